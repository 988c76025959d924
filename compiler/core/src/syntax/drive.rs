//! The loop that runs the generated parser's tables over a file without syntax errors.
//!
//! lalrpop-util's driver reads each token through an iterator and returns it in an enum that also carries the
//! end of input and errors, and keeps its stacks behind `&mut self`: about 130 instructions per token of the
//! benchmark in `compiler/core/examples/bench_check.rs`, before any action runs. Most files have no syntax error,
//! so [`parse_without_errors`] shifts and reduces with the same tables, the same actions and the same stacks in
//! a plain loop over the token slice, and gives up at the first error (or at anything else it does not handle);
//! the caller then parses the file again from the start with lalrpop-util's driver, whose error recovery
//! (`!` in the grammar) reports and skips the mistakes. A file either parses here with no error or is parsed
//! there: what the grammar accepts and the tree its actions build are the same either way.

use lalrpop_util::state_machine::{ParseResult, ParserAction, ParserDefinition, SymbolTriple};

/// Runs `definition`'s tables over `tokens` (start, token, end) to the end of input. Returns the parse result
/// (the start symbol's action ran) or `None` at the first token no state accepts, in which case the actions have
/// run up to that token and their effects must be undone by the caller.
///
/// `following`: where the token after `tokens` starts when they are a part of a file (`syntax::split`), `None` at
/// the end of the file. The last reductions see it as their lookahead's start, as they would in the whole file
/// (lalrpop places an empty production at its lookahead).
pub fn parse_without_errors<D, T>(
    mut definition: D,
    tokens: T,
    following: Option<D::Location>,
) -> Option<ParseResult<D>>
where
    D: ParserDefinition,
    T: Iterator<Item = (D::Location, D::Token, D::Location)>,
{
    let mut top = definition.start_state();
    let mut states: Vec<D::StateIndex> = Vec::with_capacity(64);
    states.push(top);
    let mut symbols: Vec<SymbolTriple<D>> = Vec::with_capacity(64);
    for (start, token, end) in tokens {
        let index = definition.token_to_index(&token)?;
        loop {
            let action = definition.action(top, index);
            if let Some(target) = action.as_shift() {
                states.push(target);
                top = target;
                symbols.push((start, definition.token_to_symbol(index, token), end));
                break;
            }
            let reduction = action.as_reduce()?;
            // A reduction that finishes the parse before the input ends is an error (lalrpop-util reports the
            // extra token); so is a failing action.
            if definition.reduce(reduction, Some(&start), &mut states, &mut symbols).is_some() {
                return None;
            }
            top = *states.last()?;
        }
    }
    loop {
        let reduction = definition.eof_action(top).as_reduce()?;
        if let Some(result) = definition.reduce(reduction, following.as_ref(), &mut states, &mut symbols) {
            return Some(result);
        }
        top = *states.last()?;
    }
}

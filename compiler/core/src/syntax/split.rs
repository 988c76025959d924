//! A large file lexed and parsed in parts, each part on a thread of its own.
//!
//! A file is cut before a `let` in the first column, which `syntax::tokens` makes `ItemLet`: the start of a
//! top-level item, a token found nowhere else in the grammar but after `[%%kernel`.
//!
//! - **The same tokens.** No token but a comment spans a line break, and a part that ends inside a comment ends
//!   with an `Error` token, on which it fails to parse. So where every part parses, each cut falls between two
//!   tokens of the whole file, and the parts' tokens are the file's: what `syntax::tokens` decides from the token
//!   after the last one of a part is the same for the end of the input as for a `let` (no contextual keyword and
//!   no trailing `;` depends on which of the two follows), and a part's first token is `ItemLet` whatever comes
//!   before it.
//! - **The same tree.** A file is a sequence of items (`File: () = Item*`), so where every part parses, the file
//!   parses, and the grammar is LR(1), hence unambiguous: the file's one tree is the parts' trees side by side,
//!   and an LR parser runs the actions of a tree in one order (left to right, children first), the first part's
//!   before the second's.
//!
//! Each part after the first is parsed by a builder of its own into a module of its own; its expression ids then
//! move past those of the parts before it ([`append_module`]), and the file's builder takes over the part's
//! state where the part could not have been built differently after the parts before it
//! (`Builder::can_take`). Where it could, the file's builder parses the rest itself. Where a part does not parse
//! (a syntax error, or a cut inside a comment), the caller parses the whole file in one piece.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::diagnostic::Diagnostic;
use crate::source::FileId;
use crate::syntax::ast::{ExprId, ExprKind, Item, Module, ModuleParam, ModuleParamKind, Param, TypeExpr};
use crate::syntax::builder::{Builder, Part};
use crate::syntax::lexer::{lexemes_in, Lexeme};
use crate::syntax::lift::LocalFunction;
use crate::syntax::{depth, drive, grammar, tokens};

/// Fewest bytes of a part (about 2,700 lines of typical code, a millisecond of lexing and parsing): a smaller
/// file is parsed in one piece, where starting a thread and moving a part's nodes would cost more than they save.
const MIN_PART_BYTES: usize = 80_000;

/// Most parts of one file.
const MAX_PARTS: usize = 4;

/// Where `text` is cut into parts (the byte each part after the first starts at), for the threads there are:
/// none for a small file.
pub(super) fn cuts(text: &str) -> Vec<usize> {
    cuts_for(text, crate::parallel::thread_budget())
}

/// How many parts a file of `bytes` bytes is cut into, with the threads there are (fewer where it has too few
/// lines that start with `let`).
pub fn parts(bytes: usize) -> usize {
    parts_for(bytes, crate::parallel::thread_budget())
}

fn parts_for(bytes: usize, threads: usize) -> usize {
    (bytes / MIN_PART_BYTES).clamp(1, threads.clamp(1, MAX_PARTS))
}

/// [`cuts`] with `threads` threads.
pub(super) fn cuts_for(text: &str, threads: usize) -> Vec<usize> {
    let parts = parts_for(text.len(), threads);
    let mut cuts: Vec<usize> = Vec::new();
    for part in 1..parts {
        let from = (text.len() * part / parts).max(cuts.last().map_or(1, |c| c + 1));
        match next_item_let(text, from) {
            Some(at) => cuts.push(at),
            None => break,
        }
    }
    cuts
}

/// The first `let` at the start of a line (and followed by a blank) at or after byte `from`.
pub(super) fn next_item_let(text: &str, from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = from;
    while at < bytes.len() {
        let line = at + bytes[at..].iter().position(|&b| b == b'\n')? + 1;
        if bytes[line..].starts_with(b"let")
            && bytes.get(line + 3).is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            return Some(line);
        }
        at = line;
    }
    None
}

/// A file parsed in parts.
pub(super) struct Parsed {
    /// The builder's diagnostics.
    pub(super) diagnostics: Vec<Diagnostic>,
    pub(super) local_functions: Vec<LocalFunction>,
    /// Each part was found to hold no expression nested deeper than `syntax::depth` allows (each part looked at
    /// on its thread), so the file holds none either: the nesting limit has nothing to cut.
    pub(super) shallow: bool,
}

/// Lexes and parses `text` cut at `cuts` (bytes where a line starts with `let`, see [`cuts`]) into `module`,
/// the parts after the first on threads of their own. `None` where a part does not parse, with `module` as it
/// was.
pub(super) fn parse_in_parts(
    text: &str,
    file: FileId,
    module: &mut Module,
    default_kernel_name: &str,
    cuts: &[usize],
) -> Option<Parsed> {
    let bounds: Vec<usize> = std::iter::once(0).chain(cuts.iter().copied()).chain([text.len()]).collect();
    let mark = module.mark();
    let first_expr = module.exprs.len();
    let mut shallow = true;
    // As `syntax::parser` reserves for a file in one piece (about one token per four bytes).
    module.exprs.reserve(text.len() * 3 / 20);
    module.expr_spans.reserve(text.len() * 3 / 20);
    let mut builder = Builder::new(text, file, module, default_kernel_name);
    // Set when the parts not yet taken will not be: their threads stop reading tokens, so that a file whose first
    // part has a syntax error (a file being typed in the language server) does not wait for the others.
    let stop = &AtomicBool::new(false);
    let parsed = std::thread::scope(|scope| {
        let threads: Vec<_> = (bounds.windows(2).skip(1))
            .map(|range| {
                let range = range[0]..range[1];
                let work = move || parse_part(text, file, default_kernel_name, range, stop);
                crate::stack::spawn_scoped(scope, "skc-parse-part", work)
            })
            .collect();
        if !parse_tokens(&mut builder, lex_part(text, 0..bounds[1]).iter(), following(text, bounds[1])) {
            stop.store(true, Ordering::Relaxed);
            return false;
        }
        shallow = !depth::any_too_deep(builder.module, first_expr);
        for (index, thread) in threads.into_iter().enumerate() {
            // A thread that could not start, or panicked, gives no part: the rest is parsed here (where a panic
            // would happen again, on the caller's thread).
            match thread.and_then(|t| t.join().ok()).flatten() {
                Some(PartParsed { module: part_module, part, shallow: part_shallow }) if builder.can_take(&part) => {
                    let shift = append_module(builder.module, part_module);
                    builder.take(part, shift);
                    shallow &= part_shallow;
                }
                _ => {
                    stop.store(true, Ordering::Relaxed);
                    shallow = false;
                    let rest = bounds[index + 1]..text.len();
                    return parse_tokens(&mut builder, lex_part(text, rest).iter(), None);
                }
            }
        }
        true
    });
    if !parsed {
        drop(builder);
        module.truncate_to(mark);
        return None;
    }
    let (diagnostics, recoveries, local_functions) = builder.finish();
    debug_assert!(recoveries.is_empty(), "the loop that recovers is not run here");
    Some(Parsed { diagnostics, local_functions, shallow })
}

/// The grammar's tokens of `text[range]`.
fn lex_part(text: &str, range: Range<usize>) -> Vec<Lexeme> {
    tokens::contextualize_part(text, range.len(), lexemes_in(text, range))
}

/// Where the token after a part ending at byte `end` starts: `end` itself (a `let`), or none at the end.
fn following(text: &str, end: usize) -> Option<u32> {
    (end < text.len()).then_some(end as u32)
}

/// A part after the first, parsed on its thread.
struct PartParsed {
    module: Module,
    part: Part,
    /// No expression of the part lies deeper than the nesting limit.
    shallow: bool,
}

/// A part lexed and parsed by a builder that starts empty, into a module of its own; `None` where it does not
/// parse, or where `stop` was set before it ended.
fn parse_part(
    text: &str,
    file: FileId,
    default_kernel_name: &str,
    range: Range<usize>,
    stop: &AtomicBool,
) -> Option<PartParsed> {
    let after = following(text, range.end);
    let tokens = lex_part(text, range);
    let mut module = Module::default();
    module.exprs.reserve(tokens.len() * 3 / 5);
    module.expr_spans.reserve(tokens.len() * 3 / 5);
    let mut builder = Builder::new(text, file, &mut module, default_kernel_name);
    // A relaxed load per token: the flag only cuts short work whose result is thrown away.
    let until_stopped = tokens.iter().take_while(|_| !stop.load(Ordering::Relaxed));
    if !parse_tokens(&mut builder, until_stopped, after) || stop.load(Ordering::Relaxed) {
        return None;
    }
    let part = builder.into_part();
    let shallow = !depth::any_too_deep(&module, 0);
    Some(PartParsed { module, part, shallow })
}

/// Runs the grammar's tables over `tokens` (the rest of a file, or a part followed by a token starting at
/// `following`).
fn parse_tokens<'t>(builder: &mut Builder, tokens: impl Iterator<Item = &'t Lexeme>, following: Option<u32>) -> bool {
    let machine = grammar::__parse__File::__StateMachine { b: builder, __phantom: std::marker::PhantomData };
    let input = tokens.map(|&l| (l.start, l, l.end));
    matches!(drive::parse_without_errors(machine, input, following), Some(Ok(())))
}

/// Appends `part` (a module built from empty) to `module`, its expression ids moved past `module`'s; returns
/// how far they moved.
pub(super) fn append_module(module: &mut Module, part: Module) -> u32 {
    let shift = u32::try_from(module.exprs.len()).expect("expression ids are 32 bits");
    // Every table by name, so that a table added to `Module` is added here too.
    let Module { items, exprs, expr_spans, allows, params } = part;
    module.exprs.extend(exprs.into_iter().map(|mut kind| {
        shift_expr(&mut kind, shift);
        kind
    }));
    module.expr_spans.extend(expr_spans);
    module.items.extend(items.into_iter().map(|mut item| {
        shift_item(&mut item, shift);
        item
    }));
    module.allows.extend(allows);
    module.params.extend(params.into_iter().map(|mut param| {
        shift_module_param(&mut param, shift);
        param
    }));
    shift
}

pub(crate) fn shift_expr_id(id: ExprId, shift: u32) -> ExprId {
    ExprId(id.0 + shift)
}

/// Moves the expression ids of a node: its children and those in its type annotations (`T[n]`).
fn shift_expr(kind: &mut ExprKind, shift: u32) {
    crate::syntax::ast::map_children(kind, |id| shift_expr_id(id, shift));
    use ExprKind::*;
    // Every variant by name, so that one added with a type in it is placed here.
    match kind {
        Let { ty, .. } => ty.iter_mut().for_each(|ty| shift_type(ty, shift)),
        LetArray { elem, .. } => elem.iter_mut().for_each(|ty| shift_type(ty, shift)),
        Annot { ty, .. } => shift_type(ty, shift),
        Int { .. }
        | Float { .. }
        | Bool(_)
        | Str
        | Unit
        | Var(_)
        | Global(_)
        | Call { .. }
        | Unary { .. }
        | Binary { .. }
        | Ref(_)
        | Assign { .. }
        | If { .. }
        | For { .. }
        | While { .. }
        | Seq(..)
        | Index { .. }
        | IndexSet { .. }
        | Field { .. }
        | FieldSet { .. }
        | Record(_)
        | Tuple(_)
        | ArrayLit(_)
        | Superstep { .. }
        | Pragma { .. }
        | Return(_)
        | Break
        | Continue
        | Error => {}
    }
}

fn shift_type(ty: &mut TypeExpr, shift: u32) {
    match ty {
        TypeExpr::Named(_) | TypeExpr::Qualified { .. } | TypeExpr::Variable(_) => {}
        TypeExpr::Apply { arg, constructor: _ } | TypeExpr::QualifiedApply { arg, module: _, constructor: _ } => {
            shift_type(arg, shift)
        }
        TypeExpr::Sized { elem, size, span: _ } => {
            *size = shift_expr_id(*size, shift);
            shift_type(elem, shift);
        }
        TypeExpr::Function { params, ret } => {
            params.iter_mut().for_each(|p| shift_type(p, shift));
            shift_type(ret, shift);
        }
        TypeExpr::Tuple(components) => components.iter_mut().for_each(|c| shift_type(c, shift)),
    }
}

fn shift_param(param: &mut Param, shift: u32) {
    let Param { name: _, ty, span: _ } = param;
    ty.iter_mut().for_each(|ty| shift_type(ty, shift));
}

fn shift_item(item: &mut Item, shift: u32) {
    match item {
        Item::Kernel(k) => {
            let crate::syntax::ast::Kernel { name: _, params, body, span: _, launch_bounds: _, contract: _ } = k;
            params.iter_mut().for_each(|p| shift_param(p, shift));
            *body = shift_expr_id(*body, shift);
        }
        Item::Function(f) => {
            let crate::syntax::ast::Function { name: _, params, ret, body, span: _ } = f;
            params.iter_mut().for_each(|p| shift_param(p, shift));
            ret.iter_mut().for_each(|ty| shift_type(ty, shift));
            *body = shift_expr_id(*body, shift);
        }
        Item::Constant(c) => {
            let crate::syntax::ast::Constant { name: _, ty, value, span: _ } = c;
            ty.iter_mut().for_each(|ty| shift_type(ty, shift));
            *value = shift_expr_id(*value, shift);
        }
        Item::Record(r) => {
            let crate::syntax::ast::RecordDecl { name: _, fields, span: _ } = r;
            fields.iter_mut().for_each(|(_, ty)| shift_type(ty, shift));
        }
        Item::Open(o) => {
            let crate::syntax::ast::Open { module: _, span: _, args, alias: _ } = o;
            for crate::syntax::ast::OpenArgument { name: _, value } in args {
                *value = shift_expr_id(*value, shift);
            }
        }
    }
}

fn shift_module_param(param: &mut ModuleParam, shift: u32) {
    match &mut param.kind {
        ModuleParamKind::Type(ty) => shift_type(ty, shift),
        ModuleParamKind::Value | ModuleParamKind::Function => {}
    }
}

pub(crate) fn shift_local_function(f: &mut LocalFunction, shift: u32) {
    let LocalFunction { let_expr, name: _, params, ret, body, span: _, anonymous: _ } = f;
    *let_expr = shift_expr_id(*let_expr, shift);
    params.iter_mut().for_each(|p| shift_param(p, shift));
    ret.iter_mut().for_each(|ty| shift_type(ty, shift));
    *body = shift_expr_id(*body, shift);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `lines` lines: a function of four lines, over and over, with `let` in a comment now and then.
    fn program(lines: usize) -> String {
        let block = "let f (x : int32) : int32 =\n  let y = x + 1 in\n  (* see\nlet z = y *)\n  y\n";
        block.repeat(lines / 5 + 1)
    }

    #[test]
    fn a_file_is_cut_at_lets_in_the_first_column_after_equal_shares() {
        let text = program(40_000);
        for threads in [2, 3, 4, 16] {
            let cuts = cuts_for(&text, threads);
            assert_eq!(cuts.len(), threads.min(MAX_PARTS) - 1, "{threads} threads");
            for (index, &cut) in cuts.iter().enumerate() {
                let share = text.len() * (index + 1) / (cuts.len() + 1);
                assert!(cut >= share && cut - share < 100, "{cut} after {share}");
                assert!(text[..cut].ends_with('\n') && text[cut..].starts_with("let "), "{cut}");
            }
        }
        // One thread, or a file smaller than two parts: in one piece.
        assert!(cuts_for(&text, 1).is_empty());
        assert!(cuts_for(&program(2_000), 4).is_empty());
        // A part is at least `MIN_PART_BYTES`.
        let two_parts = "let c = 1\n".repeat(MIN_PART_BYTES * 2 / 10 + 1);
        assert_eq!(cuts_for(&two_parts, 4).len(), 1);
    }

    #[test]
    fn a_part_told_to_stop_gives_nothing() {
        let text = "let f (x : int32) : int32 = x + 1\n".repeat(100);
        let cut = next_item_let(&text, 1).expect("a second item");
        let range = cut..text.len();
        assert!(parse_part(&text, FileId(0), "t", range.clone(), &AtomicBool::new(false)).is_some());
        assert!(parse_part(&text, FileId(0), "t", range, &AtomicBool::new(true)).is_none());
    }

    #[test]
    fn a_line_that_starts_with_a_longer_name_is_no_cut() {
        assert_eq!(next_item_let("a\nletter\nlet_x\nlet\tb", 0), Some(15));
        assert_eq!(next_item_let("a\nlets go", 0), None);
        // The first line is never a cut: the first part starts there.
        assert_eq!(next_item_let("let a = 1\n", 0), None);
    }
}

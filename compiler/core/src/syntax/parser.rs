//! Parsing: text to [`Module`]. The grammar (`grammar.lalrpop`, generated into `grammar.rs`) reads the tokens
//! of `syntax::tokens`; its actions build the arena AST through `syntax::builder`. Parsing never fails: the
//! grammar recovers at statements and items (`!`), `syntax::errors` words what it expected, and
//! `syntax::depth` bounds the nesting the later passes see.

use crate::diagnostic::Diagnostic;
use crate::source::FileId;
use crate::syntax::ast::Module;
use crate::syntax::builder::Builder;
use crate::syntax::lexer::lex;
use crate::syntax::{depth, errors, grammar, tokens};

/// Parses `text` (file `file`) and appends its items and expressions to `module`. Returns syntax diagnostics.
/// `default_kernel_name` names a bare `fun ... -> ...` kernel (the CLI passes the file stem).
pub fn parse(text: &str, file: FileId, module: &mut Module, default_kernel_name: &str) -> Vec<Diagnostic> {
    let tokens = tokens::contextualize(text, &lex(text));
    // Typical code has a little over one expression per two tokens: reserving them up front saves growing (and
    // copying) the arena.
    module.exprs.reserve(tokens.len() * 3 / 5);
    module.expr_spans.reserve(tokens.len() * 3 / 5);
    let (first_item, first_expr) = (module.items.len(), module.exprs.len());
    let mut builder = Builder::new(text, file, module, default_kernel_name);
    let input = tokens.iter().map(|&l| (l.start, l, l.end));
    let outcome = grammar::FileParser::new().parse(&mut builder, input);
    let (mut diagnostics, mut recoveries) = builder.finish();
    if let Err(error) = outcome {
        // Recovery at the item level accepts the end of the file, so this does not happen; if it did, the error
        // is reported like any other.
        recoveries.push(lalrpop_util::ErrorRecovery { error, dropped_tokens: Vec::new() });
    }
    errors::report(text, file, &tokens, recoveries, &mut diagnostics);
    diagnostics.extend(depth::limit_nesting(module, first_item, first_expr));
    diagnostics
}

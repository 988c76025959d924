//! Parsing: text to [`Module`]. The grammar (`grammar.lalrpop`, generated into `grammar.rs`) reads the tokens
//! of `syntax::tokens`; its actions build the arena AST through `syntax::builder`. Parsing never fails: the
//! grammar recovers at statements and items (`!`), `syntax::errors` words what it expected, and
//! `syntax::depth` bounds the nesting the later passes see. A file without syntax errors is parsed by
//! `syntax::drive`'s loop over the generated tables; one with errors by lalrpop-util's driver, which recovers.

use crate::diagnostic::Diagnostic;
use crate::source::FileId;
use crate::syntax::ast::Module;
use crate::syntax::builder::{Builder, Recovery};
use crate::syntax::lexer::{lexemes, Lexeme};
use crate::syntax::lift::{self, LocalFunction};
use crate::syntax::{depth, drive, errors, grammar, tokens};

/// Parses `text` (file `file`) and appends its items and expressions to `module`. Returns syntax diagnostics.
/// `default_kernel_name` names a bare `fun ... -> ...` kernel (the CLI passes the file stem).
pub fn parse(text: &str, file: FileId, module: &mut Module, default_kernel_name: &str) -> Vec<Diagnostic> {
    parse_with(text, file, module, default_kernel_name, Driver::FastUnlessErrors)
}

fn parse_with(
    text: &str,
    file: FileId,
    module: &mut Module,
    default_kernel_name: &str,
    driver: Driver,
) -> Vec<Diagnostic> {
    let tokens = tokens::contextualize(text, lexemes(text));
    // Typical code has a little over one expression per two tokens: reserving them up front saves growing (and
    // copying) the arena.
    module.exprs.reserve(tokens.len() * 3 / 5);
    module.expr_spans.reserve(tokens.len() * 3 / 5);
    let (first_item, first_expr) = (module.items.len(), module.exprs.len());
    let (mut diagnostics, recoveries, local_functions) =
        run_grammar(text, file, module, default_kernel_name, &tokens, driver);
    errors::report(text, file, &tokens, recoveries, &mut diagnostics);
    diagnostics.extend(depth::limit_nesting(module, first_item, first_expr));
    // After the nesting limit: lifting walks the tree recursively.
    diagnostics.extend(lift::lift_local_functions(module, first_item, local_functions));
    diagnostics
}

/// Which loop runs the grammar's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Driver {
    /// `syntax::drive`'s loop, and lalrpop-util's driver from the start again if the file has a syntax error.
    FastUnlessErrors,
    /// lalrpop-util's driver only (the tests compare the two).
    #[cfg(test)]
    Recovering,
}

/// Runs the grammar over `tokens`, building into `module`: the builder's diagnostics, the places where the
/// parser recovered, and the local functions to lift.
fn run_grammar(
    text: &str,
    file: FileId,
    module: &mut Module,
    default_kernel_name: &str,
    tokens: &[Lexeme],
    driver: Driver,
) -> (Vec<Diagnostic>, Vec<Recovery>, Vec<LocalFunction>) {
    let input = tokens.iter().map(|&l| (l.start, l, l.end));
    let mark = module.mark();
    let mut builder = Builder::new(text, file, module, default_kernel_name);
    let fast = match driver {
        Driver::FastUnlessErrors => {
            let machine =
                grammar::__parse__File::__StateMachine { b: &mut builder, __phantom: std::marker::PhantomData };
            drive::parse_without_errors(machine, input.clone())
        }
        #[cfg(test)]
        Driver::Recovering => None,
    };
    let outcome = match fast {
        Some(outcome) => outcome,
        None => {
            // A syntax error (or the recovering driver asked for): parse from the start again with lalrpop-util's
            // driver, which recovers and records where, after undoing what the actions built.
            drop(builder);
            module.truncate_to(mark);
            builder = Builder::new(text, file, module, default_kernel_name);
            grammar::FileParser::new().parse(&mut builder, input)
        }
    };
    let (diagnostics, mut recoveries, local_functions) = builder.finish();
    if let Err(error) = outcome {
        // Recovery at the item level accepts the end of the file, so this does not happen; if it did, the error
        // is reported like any other.
        recoveries.push(lalrpop_util::ErrorRecovery { error, dropped_tokens: Vec::new() });
    }
    (diagnostics, recoveries, local_functions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::ast::{ExprKind, Item};

    /// Every `.sk` file of the repository's tests, examples and stdlib.
    fn corpus() -> Vec<std::path::PathBuf> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = Vec::new();
        let mut folders: Vec<_> = ["tests", "examples", "stdlib", "bench"].iter().map(|f| root.join(f)).collect();
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    folders.push(path);
                } else if path.extension().is_some_and(|e| e == "sk") {
                    files.push(path);
                }
            }
        }
        files
    }

    #[test]
    fn both_drivers_build_the_same_module_and_diagnostics() {
        let (mut with_errors, mut total) = (0, 0);
        let mut texts: Vec<String> =
            corpus().iter().map(|p| std::fs::read_to_string(p).expect("a readable .sk file")).collect();
        // Errors at the start, in the middle and at the end of a file, after actions have built items.
        let sample = "let f (x : int32) : int32 = x + 1\nkernel k (o : int32 vector) =\n  o.(0) <- f 1\n";
        texts.extend([format!(") {sample}"), format!("{sample}let g = (\n{sample}"), format!("{sample} let")]);
        for text in &texts {
            let (mut fast, mut recovering) = (Module::default(), Module::default());
            let fast_diagnostics = parse_with(text, FileId(0), &mut fast, "t", Driver::FastUnlessErrors);
            let recovering_diagnostics = parse_with(text, FileId(0), &mut recovering, "t", Driver::Recovering);
            assert_eq!(fast, recovering, "{text}");
            assert_eq!(fast_diagnostics, recovering_diagnostics, "{text}");
            total += 1;
            with_errors += usize::from(fast_diagnostics.iter().any(|d| d.code.starts_with("E01")));
        }
        assert!(total > 300 && with_errors > 10, "{total} files, {with_errors} with syntax errors");
    }

    fn codes(text: &str) -> Vec<&'static str> {
        let mut module = Module::default();
        parse(text, FileId(0), &mut module, "t").iter().map(|d| d.code).collect()
    }

    #[test]
    fn nesting_is_limited_where_later_passes_recurse() {
        let ifs = format!("kernel k (o : int32 vector) = {} o.(0) <- 1", "if true then ".repeat(300));
        assert_eq!(codes(&ifs), ["E0104"]);
        // Spines that passes follow in a loop (or on their large stacks) are not nesting.
        let lets = format!("kernel k (o : int32 vector) = {} o.(0) <- 1", "let x = 1 in ".repeat(5000));
        assert!(codes(&lets).is_empty());
        let sum = format!("let c = 1{}", " + 1".repeat(5000));
        assert!(codes(&sum).is_empty());
        let parentheses = format!("let c = {}1{}", "(".repeat(5000), ")".repeat(5000));
        assert!(codes(&parentheses).is_empty());
    }

    #[test]
    fn a_negated_literal_may_reach_the_minimum() {
        assert!(codes("let a = -2147483648\nlet b = -9223372036854775808L").is_empty());
        assert_eq!(codes("let a = 2147483648"), ["E0102"]);
        assert_eq!(codes("let a = -2147483648 ** 2"), ["E0102"]);
    }

    #[test]
    fn a_missing_semicolon_is_reported_at_the_end_of_the_line() {
        let text = "kernel k (o : int32 vector) =\n  o.(0) <- 1\n  o.(1) <- 2\n";
        let mut module = Module::default();
        let diagnostics = parse(text, FileId(0), &mut module, "t");
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        assert_eq!(diagnostics[0].message, "expected `;`, found `o`");
        assert_eq!(diagnostics[0].primary_span().start as usize, text.find("1\n").unwrap() + 1);
    }

    #[test]
    fn else_belongs_to_the_innermost_if_and_let_bodies_swallow_sequences() {
        let mut module = Module::default();
        let text = "let f (a : bool) (b : bool) = if a then if b then 1 else 2\nlet g (x : int32) = let y = x in y; y";
        assert!(parse(text, FileId(0), &mut module, "t").is_empty());
        let Item::Function(f) = &module.items[0] else { panic!() };
        let ExprKind::If { then_branch, else_branch: None, .. } = module.expr(f.body) else {
            panic!("outer if has no else")
        };
        assert!(matches!(module.expr(*then_branch), ExprKind::If { else_branch: Some(_), .. }));
        let Item::Function(g) = &module.items[1] else { panic!() };
        let ExprKind::Let { body, .. } = module.expr(g.body) else { panic!("a let") };
        assert!(matches!(module.expr(*body), ExprKind::Seq(..)));
    }
}

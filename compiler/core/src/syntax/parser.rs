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
use crate::syntax::{depth, drive, errors, grammar, split, tokens};

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
    let (first_item, first_expr) = (module.items.len(), module.exprs.len());
    let cuts = match &driver {
        Driver::FastUnlessErrors => split::cuts(text),
        #[cfg(test)]
        Driver::CutAt(cuts) => cuts.clone(),
        #[cfg(test)]
        Driver::Recovering => Vec::new(),
    };
    let in_parts =
        if cuts.is_empty() { None } else { split::parse_in_parts(text, file, module, default_kernel_name, &cuts) };
    let (mut diagnostics, local_functions, shallow) = match in_parts {
        Some(parsed) => (parsed.diagnostics, parsed.local_functions, parsed.shallow),
        None => {
            let (diagnostics, local_functions) = parse_in_one_piece(text, file, module, default_kernel_name, driver);
            (diagnostics, local_functions, false)
        }
    };
    if !shallow {
        diagnostics.extend(depth::limit_nesting(module, first_item, first_expr));
    }
    // After the nesting limit: lifting walks the tree recursively.
    diagnostics.extend(lift::lift_local_functions(module, first_item, local_functions));
    diagnostics
}

/// Which loop runs the grammar's tables.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Driver {
    /// `syntax::drive`'s loop (on the parts `syntax::split` cuts a large file into), and lalrpop-util's driver
    /// from the start again if the file has a syntax error.
    FastUnlessErrors,
    /// As `FastUnlessErrors`, with the file cut at these bytes (the tests cut before every item).
    #[cfg(test)]
    CutAt(Vec<usize>),
    /// lalrpop-util's driver only (the tests compare the two).
    #[cfg(test)]
    Recovering,
}

/// The file's tokens parsed in one run of the grammar: the diagnostics and the local functions to lift.
fn parse_in_one_piece(
    text: &str,
    file: FileId,
    module: &mut Module,
    default_kernel_name: &str,
    driver: Driver,
) -> (Vec<Diagnostic>, Vec<LocalFunction>) {
    let tokens = tokens::contextualize(text, lexemes(text));
    // Typical code has a little over one expression per two tokens: reserving them up front saves growing (and
    // copying) the arena.
    module.exprs.reserve(tokens.len() * 3 / 5);
    module.expr_spans.reserve(tokens.len() * 3 / 5);
    let (mut diagnostics, recoveries, local_functions) =
        run_grammar(text, file, module, default_kernel_name, &tokens, driver);
    errors::report(text, file, &tokens, recoveries, &mut diagnostics);
    (diagnostics, local_functions)
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
        #[cfg(test)]
        Driver::Recovering => None,
        _ => {
            let machine =
                grammar::__parse__File::__StateMachine { b: &mut builder, __phantom: std::marker::PhantomData };
            drive::parse_without_errors(machine, input.clone(), None)
        }
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

    /// The parse of `text` in one piece, and the diagnostics, as `parse_with` gives them.
    fn in_one_piece(text: &str) -> (Module, Vec<Diagnostic>) {
        let mut module = Module::default();
        let diagnostics = parse_with(text, FileId(0), &mut module, "t", Driver::CutAt(Vec::new()));
        (module, diagnostics)
    }

    fn cut_at(text: &str, cuts: Vec<usize>) -> (Module, Vec<Diagnostic>) {
        let mut module = Module::default();
        let diagnostics = parse_with(text, FileId(0), &mut module, "t", Driver::CutAt(cuts));
        (module, diagnostics)
    }

    /// Where `split::cuts` may cut `text`: every line that starts with `let` (in a comment too).
    fn item_starts(text: &str) -> Vec<usize> {
        std::iter::successors(split::next_item_let(text, 1), |&at| split::next_item_let(text, at + 1)).collect()
    }

    #[test]
    fn a_file_cut_into_parts_parses_as_in_one_piece() {
        let (mut files, mut cuts_tried) = (0, 0);
        for path in corpus() {
            let text = std::fs::read_to_string(&path).expect("a readable .sk file");
            let starts = item_starts(&text);
            if starts.is_empty() {
                continue;
            }
            let whole = in_one_piece(&text);
            // Each item start on its own, then (at most 16 threads) many at once.
            for &at in &starts {
                assert_eq!(cut_at(&text, vec![at]), whole, "{} cut at byte {at}", path.display());
                cuts_tried += 1;
            }
            let many: Vec<usize> = starts.iter().copied().step_by(starts.len().div_ceil(16)).collect();
            assert_eq!(cut_at(&text, many), whole, "{} cut at every item", path.display());
            files += 1;
        }
        assert!(files > 250 && cuts_tried > 900, "{files} files, {cuts_tried} cuts");
    }

    #[test]
    fn the_corpus_in_one_file_parses_in_four_parts_as_in_one_piece() {
        // Every file of the corpus without a syntax error, one after the other: a large file of every form.
        let texts = corpus().into_iter().map(|p| std::fs::read_to_string(p).expect("a readable .sk file"));
        let mut text = String::new();
        for file in texts.filter(|t| !in_one_piece(t).1.iter().any(|d| d.code.starts_with("E01"))) {
            text.push_str(&file);
            text.push('\n');
        }
        let cuts = split::cuts_for(&text, 4);
        assert_eq!(cuts.len(), 3, "{} bytes", text.len());
        assert_eq!(cut_at(&text, cuts), in_one_piece(&text));
    }

    #[test]
    fn parts_whose_builders_would_differ_are_parsed_after_the_parts_before() {
        // Hidden names numbered in both parts, a variant declared in one part and used in the next, bare kernels
        // named in both parts, a variant's payload naming an earlier record, a literal only a minus claims, a
        // syntax error in the second part, and the others below.
        let second = "let g (x : int32) : int32 =\n  let (a, b) = (x, x) in\n  a + b\n";
        let matches = "let h (v : int32) : int32 =\n  match (if v > 0 then A else B v) with A -> 1 | B n -> n\n";
        let texts = [
            format!("let f (x : int32) : int32 =\n  let (a, b) = (x, 1) in\n  a + b\n{second}"),
            format!("type t = A | B of int32\nlet f (x : int32) : int32 = x\n{matches}"),
            "fun (o : int32 vector) -> o.(0) <- 1\nlet c = 1\nfun (o : int32 vector) -> o.(0) <- 2\n".to_string(),
            "type r = { x : int32 }\nlet c = 1\ntype t = A | B of r\n".to_string(),
            "let a = -2147483648\nlet b = 2147483648\nlet c = -2147483648\n".to_string(),
            format!("let f (x : int32) : int32 = x\n{second}let h = (\n"),
            // A cut inside a comment, and inside `[%%kernel`.
            "let a = 1\n(* a comment\nlet b = 2\n*)\nlet c = 3\n".to_string(),
            "let a = 1\n[%%kernel\nlet k (o : int32 vector) = o.(0) <- 1]\nlet c = 3\n".to_string(),
            // Names that are keywords only before some tokens, last before a cut.
            "let f (r : int32) : int32 = r\nlet g (x : int32) : int32 = f\nkernel\nlet h = 1\n".to_string(),
            "let f (x : int32) : int32 = x\nlet g (ref : int32) : int32 = f ref\nlet h = 1\n".to_string(),
            // An expression nested too deeply, in the first part or in a later one.
            format!("let a = 1\nlet f (x : int32) : int32 = {} x\nlet b = 2\n", "if true then ".repeat(300)),
        ];
        for text in &texts {
            let whole = in_one_piece(text);
            for at in item_starts(text) {
                assert_eq!(cut_at(text, vec![at]), whole, "{text} cut at byte {at}");
            }
            assert_eq!(cut_at(text, item_starts(text)), whole, "{text} cut at every item");
        }
        assert!(in_one_piece(texts.last().unwrap()).1.iter().any(|d| d.code == "E0104"));
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

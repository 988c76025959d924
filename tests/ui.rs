//! UI tests: every `tests/ui/**/*.sk` is checked; its rendered diagnostics are snapshotted, and the verdict must
//! match the inline expectations (`(* error: E0001 *)`), so a snapshot can never bless a wrong verdict.

use skc_tests::{actual, check_path, compare, expected, render_all};

#[test]
fn ui() {
    let mut failures = Vec::new();
    insta::glob!("ui/**/*.sk", |path| {
        let checked = check_path(path);
        let text = &checked.sources.file(checked.root).text;
        let differences = compare(&expected(text), &actual(&checked));
        if !differences.is_empty() {
            failures.push(format!("{}:\n{differences}", path.display()));
        }
        insta::assert_snapshot!(render_all(&checked));
    });
    assert!(failures.is_empty(), "verdicts differ from the inline expectations:\n{}", failures.join("\n"));
}

/// Memoized calls (`convergence::memo`) change nothing: on every UI input and on a WENO program (whose generated
/// helpers are called thousands of times), the analysis with replayed calls
/// gives the same diagnostics, rendered, and the same level and source for every expression as the one that
/// analyses every call.
#[test]
fn memoized_calls_give_the_same_analysis() {
    use skc_core::convergence::analyse_with;
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut inputs: Vec<(std::path::PathBuf, Vec<(String, String)>)> = Vec::new();
    insta::glob!("ui/**/*.sk", |path| inputs.push((path.to_path_buf(), Vec::new())));
    // One WENO configuration: without memoized calls it takes seconds in a debug build (the reason for them).
    let defines = [("k", "2"), ("strategy", "1"), ("table", "3"), ("immersed", "true")];
    let defines = defines.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect();
    inputs.push((repo.join("stdlib/weno/weno_advection.sk"), defines));
    let mut programs = 0;
    for (path, defines) in inputs {
        let text = std::fs::read_to_string(&path).unwrap();
        let checked = skc_tests::check_text(&skc_tests::display_name(&path), &text, defines);
        let (fresh_info, fresh) = analyse_with(&checked.module, &checked.types, false);
        let (memo_info, memo) = analyse_with(&checked.module, &checked.types, true);
        let render = |ds: &[skc_core::Diagnostic]| -> Vec<String> {
            ds.iter()
                .map(|d| skc_core::diagnostic::render(d, &checked.sources, skc_core::diagnostic::ColorChoice::Never))
                .collect()
        };
        assert_eq!(render(&fresh), render(&memo), "{}", path.display());
        // With memoized calls on, `analyse_with` is the analysis `check` runs (with no promise of whole warps).
        let (_, checked_diagnostics) = skc_core::convergence::analyse(&checked.module, &checked.types, false);
        assert_eq!(render(&memo), render(&checked_diagnostics), "{}", path.display());
        assert_eq!(fresh_info.thread_varying_ifs(), memo_info.thread_varying_ifs(), "{}", path.display());
        for e in 0..checked.module.exprs.len() as u32 {
            let e = skc_core::syntax::ast::ExprId(e);
            let fresh_source = fresh_info.source(e, &checked.module, &checked.types).map(|s| (s.span, s.message));
            let memo_source = memo_info.source(e, &checked.module, &checked.types).map(|s| (s.span, s.message));
            assert_eq!(
                (fresh_info.level(e), fresh_info.level_in_any_context(e), fresh_source),
                (memo_info.level(e), memo_info.level_in_any_context(e), memo_source),
                "{}: expression {e:?} at {:?}",
                path.display(),
                checked.module.span(e)
            );
        }
        programs += 1;
    }
    assert!(programs > 100, "compared {programs} programs");
}

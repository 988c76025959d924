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

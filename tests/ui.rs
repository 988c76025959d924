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

/// Every suggested `select` rewrite (W0101) is a valid program that says the same thing: applied to its file, the
/// file still checks without errors, and the rewritten stores are not reported again.
#[test]
fn predicated_commit_suggestions_apply_cleanly() {
    let mut applied = 0;
    let mut failures = Vec::new();
    insta::glob!("ui/**/*.sk", |path| {
        let checked = check_path(path);
        let mut fixes: Vec<_> = checked
            .diagnostics
            .iter()
            .filter(|d| d.code == "W0101")
            .map(|d| d.suggestion.clone().expect("W0101 carries a suggestion"))
            .filter(|s| s.span.file == checked.root)
            .collect();
        if fixes.is_empty() {
            return;
        }
        // Back to front, so earlier offsets stay valid.
        fixes.sort_by_key(|s| std::cmp::Reverse(s.span.start));
        let mut text = checked.sources.file(checked.root).text.clone();
        for fix in &fixes {
            text.replace_range(fix.span.range(), &fix.replacement);
            applied += 1;
        }
        let name = skc_tests::display_name(path);
        let fixed = skc_core::check(&name, &text, &skc_tests::DirLoader, &Default::default());
        let left: Vec<_> = fixed.diagnostics.iter().filter(|d| d.is_error() || d.code == "W0101").collect();
        if !left.is_empty() {
            failures.push(format!("{}: after the rewrites:\n{}\n{left:?}", path.display(), text));
        }
    });
    assert!(applied >= 8, "the lint's UI tests have suggestions ({applied})");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

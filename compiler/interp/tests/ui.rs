//! UI tests of the interpreter's reports: every `tests/ui/*.sk` runs with the launch its `NAME.json` describes
//! (`kernel`, `grid`, `block`, and optionally `shared` bytes, `schedule`, `steps`, `no_check` to run a program the
//! convergence analysis rejects, and `args` as `skc run --args` takes them). The checker's diagnostics, the
//! run's reports (rendered as the CLI prints them) and the written vectors are snapshotted; the verdict must
//! match the inline expectations (`(* error: R0003 *)` on the line of a report's primary label, as for compile
//! errors), so a snapshot cannot bless a wrong verdict.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;
use skc_core::diagnostic::{render, ColorChoice};
use skc_core::{Diagnostic, SourceMap};
use skc_interp::{args, launch, Geometry, Options, Program, Schedule};

fn dims(v: &Value) -> [u32; 3] {
    let items: Vec<u32> =
        v.as_array().expect("an array of extents").iter().map(|d| d.as_u64().unwrap() as u32).collect();
    [items[0], *items.get(1).unwrap_or(&1), *items.get(2).unwrap_or(&1)]
}

/// `(line, code)` of `(* error: CODE *)` markers.
fn expected(text: &str) -> BTreeSet<(usize, String)> {
    let mut out = BTreeSet::new();
    for (number, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(i) = rest.find("(* error: ") {
            rest = &rest[i + 10..];
            let code: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
            out.insert((number + 1, code));
        }
    }
    out
}

fn lines(diagnostics: &[&Diagnostic], sources: &SourceMap) -> BTreeSet<(usize, String)> {
    diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| {
            let span = d.primary_span();
            (sources.file(span.file).line_col(span.start as usize).0 + 1, d.code.to_string())
        })
        .collect()
}

/// Runs one UI input; returns the snapshot text and the differences from its expectations.
fn run_case(path: &Path) -> (String, String) {
    let text = std::fs::read_to_string(path).unwrap();
    let name = format!("tests/ui/{}", path.file_name().unwrap().to_string_lossy());
    let spec: Value = serde_json::from_str(&std::fs::read_to_string(path.with_extension("json")).unwrap()).unwrap();
    let checked = skc_core::check(&name, &text, &skc_core::NoModules, &Default::default());
    let mut out = String::new();
    for d in &checked.diagnostics {
        out.push_str(&render(d, &checked.sources, ColorChoice::Never));
    }
    let no_check = spec.get("no_check").and_then(Value::as_bool).unwrap_or(false);
    assert!(Program::runnable(&checked).is_ok(), "{name}: not runnable");
    assert_eq!(checked.has_errors(), no_check, "{name}: `no_check` must be set exactly for rejected programs");
    let program = Program::new(&checked);
    let kernel_name = spec["kernel"].as_str().unwrap();
    let kernel = program.kernel(kernel_name).unwrap();
    let mut launch_args = args::parse(kernel, &spec["args"], &|_| Err("no files".into())).unwrap();
    let shared = spec.get("shared").and_then(Value::as_u64).unwrap_or(0) as u32;
    let geometry = Geometry { grid: dims(&spec["grid"]), block: dims(&spec["block"]), dynamic_shared_bytes: shared };
    let schedule: Schedule = spec.get("schedule").and_then(Value::as_str).unwrap_or("in-order").parse().unwrap();
    let mut options = Options { schedule, ..Options::default() };
    if let Some(steps) = spec.get("steps").and_then(Value::as_u64) {
        options.step_budget = steps;
    }
    let outcome = launch(&program, kernel_name, &geometry, &mut launch_args, &options).unwrap();
    out.push_str(&format!(
        "--- run {kernel_name}: grid {:?}, block {:?}, {shared} shared bytes, {schedule} ---\n",
        geometry.grid, geometry.block
    ));
    for r in &outcome.reports {
        out.push_str(&render(&r.diagnostic, &checked.sources, ColorChoice::Never));
    }
    if !outcome.printed.is_empty() {
        out.push_str(&format!("printed:\n{}", outcome.printed));
    }
    out.push_str(&format!(
        "completed: {}, suppressed reports: {}\nwritten: {}\n",
        outcome.completed,
        outcome.suppressed,
        args::written_json(kernel, &launch_args)
    ));
    let mut all: Vec<&Diagnostic> = checked.diagnostics.iter().collect();
    all.extend(outcome.reports.iter().map(|r| &r.diagnostic));
    let actual = lines(&all, &checked.sources);
    let wanted = expected(&text);
    let mut differences = String::new();
    for (line, code) in wanted.difference(&actual) {
        differences.push_str(&format!("  missing {code} on line {line}\n"));
    }
    for (line, code) in actual.difference(&wanted) {
        differences.push_str(&format!("  unexpected {code} on line {line}\n"));
    }
    (out, differences)
}

#[test]
fn ui() {
    let mut failures = Vec::new();
    let mut cases = 0;
    insta::glob!("ui/*.sk", |path| {
        let (snapshot, differences) = run_case(path);
        if !differences.is_empty() {
            failures.push(format!("{}:\n{differences}", path.display()));
        }
        insta::assert_snapshot!(snapshot);
        cases += 1;
    });
    assert!(cases >= 12, "found the UI inputs ({cases})");
    assert!(failures.is_empty(), "verdicts differ from the inline expectations:\n{}", failures.join("\n"));
}

/// Every report kind has a UI input (R0011, a construct the interpreter cannot run, has none in the language).
#[test]
fn every_report_kind_has_a_ui_input() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui");
    let mut codes = BTreeSet::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        if entry.path().extension().is_some_and(|e| e == "sk") {
            codes.extend(expected(&std::fs::read_to_string(entry.path()).unwrap()).into_iter().map(|(_, c)| c));
        }
    }
    for n in (1..=12).filter(|n| *n != 11) {
        let code = format!("R{n:04}");
        assert!(codes.contains(&code), "no UI input expects {code}");
    }
}

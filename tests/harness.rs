//! Shared test helpers: check a `.sk` file (modules found next to it), render its
//! diagnostics as plain ASCII, and compare them with the expectations written inline in the source:
//! `(* error: E0001 *)` or `(* warning: W0003 *)` on the line the diagnostic's primary label starts on.
//! `host` runs emitted CUDA C on the host with a C++ compiler.

pub mod editor;
pub mod host;

pub mod generator;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use skc_core::diagnostic::{render, ColorChoice};
use skc_core::session::{DiskFiles, Session};
use skc_core::{Checked, Severity};

pub mod require;

/// The repository's root: files are named from it (see [`display_name`]).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A stable, machine-independent file name for snapshots: the path from the `tests/` folder on.
pub fn display_name(path: &Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    match text.rfind("/tests/") {
        Some(i) => text[i + 1..].to_string(),
        None => text,
    }
}

/// Checks a test input with `open M` looking only next to it (a session with an empty search path), for the
/// target its first line names (`(* target: sm_75 *)`), else the default one.
pub fn check_path(path: &Path) -> Checked {
    let files = DiskFiles::rooted(repo_root());
    let mut session = Session::new(&files);
    if let Some(target) = target_directive(path) {
        session = session.with_target(target);
    }
    session.check_file(Path::new(&display_name(path))).expect("test input is readable")
}

/// The architecture a test input's first line asks for: `(* target: sm_75 *)`.
fn target_directive(path: &Path) -> Option<skc_core::target::Target> {
    let text = std::fs::read_to_string(path).ok()?;
    let first = text.lines().next()?.trim();
    let name = first.strip_prefix("(* target:")?.strip_suffix("*)")?.trim();
    Some(skc_core::target::Target::parse(name).expect("a known architecture in the target directive"))
}

/// [`check_path`] of `text` named `name` (a path from the repository root), with `-D` definitions.
pub fn check_text(name: &str, text: &str, defines: Vec<(String, String)>) -> Checked {
    let files = DiskFiles::rooted(repo_root());
    Session::new(&files).with_defines(defines).check(name, text)
}

/// Every diagnostic rendered without colour, in order.
pub fn render_all(checked: &Checked) -> String {
    let mut out = String::new();
    for d in &checked.diagnostics {
        out.push_str(&render(d, &checked.sources, ColorChoice::Never));
    }
    if out.is_empty() {
        out.push_str("(no diagnostics)\n");
    }
    out
}

/// Where a diagnostic is expected: a line of the root file, or `file.sk:LINE` in an opened module.
pub type Expectation = (String, String, String);

/// `(place, "error"|"warning", code)` triples written in the root file's comments: `(* error: E0001 *)` on the
/// offending line, or `(* error: E0001 at vecmath.sk:6 *)` for a diagnostic inside an opened module.
pub fn expected(text: &str) -> BTreeSet<Expectation> {
    let mut out = BTreeSet::new();
    for (number, line) in text.lines().enumerate() {
        for (kind, marker) in [("error", "(* error: "), ("warning", "(* warning: ")] {
            let mut rest = line;
            while let Some(i) = rest.find(marker) {
                rest = &rest[i + marker.len()..];
                let code: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
                let after = &rest[code.len()..];
                let place = match after.strip_prefix(" at ") {
                    Some(place) => place.split_whitespace().next().unwrap_or("").to_string(),
                    None => (number + 1).to_string(),
                };
                out.insert((place, kind.to_string(), code));
            }
        }
    }
    out
}

/// The same triples for what the compiler reported, in every file.
pub fn actual(checked: &Checked) -> BTreeSet<Expectation> {
    checked
        .diagnostics
        .iter()
        .filter(|d| d.severity != Severity::Note)
        .map(|d| {
            let span = d.primary_span();
            let file = checked.sources.file(span.file);
            let (line, _) = file.line_col(span.start as usize);
            let place = if span.file == checked.root {
                (line + 1).to_string()
            } else {
                let base = file.name.rsplit('/').next().unwrap_or(&file.name).to_string();
                format!("{base}:{}", line + 1)
            };
            (place, d.severity.as_str().to_string(), d.code.to_string())
        })
        .collect()
}

/// A readable account of the differences, empty when they agree.
pub fn compare(expected: &BTreeSet<Expectation>, actual: &BTreeSet<Expectation>) -> String {
    let mut out = String::new();
    for (line, kind, code) in expected.difference(actual) {
        out.push_str(&format!("  missing {kind} {code} on line {line}\n"));
    }
    for (line, kind, code) in actual.difference(expected) {
        out.push_str(&format!("  unexpected {kind} {code} on line {line}\n"));
    }
    out
}

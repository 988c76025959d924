//! The generated modules of `stdlib/ode/` are up to date with the tableaus (regenerate with `SKC_ODE_BLESS=1`).

use skc_core::session::{DiskFiles, Session};
use skc_ode::sk::{generated_modules, stdlib_dir};

#[test]
fn generated_modules_are_current() {
    let bless = std::env::var("SKC_ODE_BLESS").map(|v| v == "1").unwrap_or(false);
    let mut stale = Vec::new();
    for (name, text) in generated_modules() {
        let path = stdlib_dir().join(name);
        if bless {
            std::fs::write(&path, &text).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            stale.push(name);
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated modules {stale:?}: run SKC_ODE_BLESS=1 cargo test -p skc-ode --test sk_modules"
    );
}

/// Every module of `stdlib/ode` checks and emits alone, with its parameters' defaults (the system, the method
/// and the stepper included), as `skc check stdlib/ode/<file>.sk` does.
#[test]
fn every_module_of_stdlib_ode_checks_alone() {
    let mut names: Vec<_> = std::fs::read_dir(stdlib_dir())
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "sk"))
        .collect();
    names.sort();
    assert!(names.len() >= 7, "stdlib/ode has {} modules", names.len());
    let files = DiskFiles::new();
    let mut failures = Vec::new();
    for path in &names {
        let text = std::fs::read_to_string(path).unwrap();
        if let Err(e) = Session::standard(&files).compile(&path.display().to_string(), &text) {
            failures.push(format!("{}: {e}", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

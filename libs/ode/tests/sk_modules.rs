//! The generated modules of `stdlib/ode/` are up to date with the tableaus (regenerate with `SKC_ODE_BLESS=1`).

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

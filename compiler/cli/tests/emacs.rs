//! A second real editor against `skc lsp`: Emacs, headless, with `editors/emacs/skc-mode.el` and eglot (built
//! into Emacs 29 and later; the Debian package elpa-eglot before), runs `editors/emacs/test-eglot.el`: the mode
//! and its highlighting, E0001 on a divergent barrier through Flymake, `skc-explain`, a fix through the buffer
//! that clears the diagnostics, `skc-show-cuda`, and shutdown. `skc` is found on the PATH: the test puts the
//! binary under test first on it. Without Emacs (or eglot) the test says so and passes, unless
//! `SKC_REQUIRE_EMACS=1` (CI), where it fails.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// `GNU Emacs 28.2` when Emacs runs and can load eglot.
fn emacs_with_eglot() -> Result<String, String> {
    let output = Command::new("emacs")
        .args(["--batch", "--eval", "(progn (require 'eglot) (princ emacs-version))"])
        .output()
        .map_err(|e| format!("`emacs` cannot be run ({e}); install it (apt-get install emacs-nox elpa-eglot)"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(format!("Emacs cannot load eglot (apt-get install elpa-eglot, or Emacs 29+):\n{stderr}"));
    }
    Ok(format!("GNU Emacs {}", String::from_utf8_lossy(&output.stdout).trim()))
}

#[test]
fn emacs_with_eglot_sees_and_clears_a_convergence_error() {
    use skc_tests::require::{or_skip, Tool};
    let Some(version) = or_skip(Tool::Emacs, emacs_with_eglot(), "the Emacs test") else { return };
    eprintln!("running {version}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let emacs_dir = root.join("editors/emacs");
    let skc = Path::new(env!("CARGO_BIN_EXE_skc"));
    let mut emacs = Command::new("emacs");
    emacs.arg("--batch").arg("-L").arg(&emacs_dir).arg("-l").arg(emacs_dir.join("skc-mode.el"));
    emacs.arg("-l").arg(emacs_dir.join("test-eglot.el"));
    let steps =
        ["ok: skc-mode", "E0001 at 2:28-2:45", "skc-explain", "diagnostics cleared", "skc-show-cuda", "server exited"];
    skc_tests::editor::run(&mut emacs, "Emacs", &root, skc, Duration::from_secs(120), &steps);
}

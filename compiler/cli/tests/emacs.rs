//! A second real editor against `skc lsp`: Emacs, headless, with `editors/emacs/skc-mode.el` and eglot (built
//! into Emacs 29 and later; the Debian package elpa-eglot before), runs `editors/emacs/test-eglot.el`: the mode
//! and its highlighting, E0001 on a divergent barrier through Flymake, `skc-explain`, a fix through the buffer
//! that clears the diagnostics, `skc-show-cuda`, and shutdown. `skc` is found on the PATH: the test puts the
//! binary under test first on it. Without Emacs (or eglot) the test says so and passes, unless
//! `SKC_REQUIRE_EMACS=1` (CI), where it fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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
    let version = match emacs_with_eglot() {
        Ok(version) => version,
        Err(why) if std::env::var("SKC_REQUIRE_EMACS").as_deref() == Ok("1") => panic!("SKC_REQUIRE_EMACS=1 but {why}"),
        Err(why) => {
            eprintln!("note: skipping the Emacs test: {why} (set SKC_REQUIRE_EMACS=1 to make this fail)");
            return;
        }
    };
    eprintln!("running {version}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let emacs_dir = root.join("editors/emacs");
    let skc_dir: PathBuf = Path::new(env!("CARGO_BIN_EXE_skc")).parent().unwrap().to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(skc_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let mut child = Command::new("emacs")
        .arg("--batch")
        .arg("-L")
        .arg(&emacs_dir)
        .arg("-l")
        .arg(emacs_dir.join("skc-mode.el"))
        .arg("-l")
        .arg(emacs_dir.join("test-eglot.el"))
        .env("PATH", path)
        .current_dir(&root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start emacs");
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("emacs did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("{stdout}{stderr}");
    assert!(output.status.success(), "the Emacs test failed ({}):\n{stdout}{stderr}", output.status);
    for step in
        ["ok: skc-mode", "E0001 at 2:28-2:45", "skc-explain", "diagnostics cleared", "skc-show-cuda", "server exited"]
    {
        assert!(stdout.contains(step), "the test did not get to `{step}`:\n{stdout}");
    }
}

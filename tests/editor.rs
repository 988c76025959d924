//! A real editor against `skc lsp` in a test: the editor runs headless with the `skc` under test first on the
//! PATH (so its configuration finds it as a user's would), within a time limit, and must print each step of its
//! test script. The Neovim and Emacs tests share it.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The PATH with the folder of `skc` first.
pub fn path_with_skc_first(skc: &Path) -> std::ffi::OsString {
    let skc_dir = skc.parent().expect("the skc binary is in a folder").to_path_buf();
    let rest = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(skc_dir).chain(std::env::split_paths(&rest))).expect("a PATH can be built")
}

/// Runs `editor` (its arguments set) from `root` with `skc` first on the PATH, ends it after `limit`, and checks
/// that it succeeded and printed every one of `steps`; returns its standard output.
pub fn run(editor: &mut Command, name: &str, root: &Path, skc: &Path, limit: Duration, steps: &[&str]) -> String {
    let mut child = editor
        .env("PATH", path_with_skc_first(skc))
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
    let deadline = Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("{name} did not finish within {} s", limit.as_secs());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("{stdout}{stderr}");
    assert!(output.status.success(), "the {name} test failed ({}):\n{stdout}{stderr}", output.status);
    for step in steps {
        assert!(stdout.contains(step), "the {name} test did not get to `{step}`:\n{stdout}");
    }
    stdout
}

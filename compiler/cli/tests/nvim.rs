//! A real editor against `skc lsp`: Neovim's built-in LSP client runs `editors/nvim/test_lsp.lua` (open a file
//! with a divergent barrier, expect E0001 on it, fix it through the buffer, expect the diagnostics to clear).
//! Without `nvim` on the PATH the test says so and passes, unless `SKC_REQUIRE_NVIM=1` (CI), where it fails.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn neovim_client_sees_and_clears_a_convergence_error() {
    let Some(version) = skc_tests::require::nvim("the Neovim test") else { return };
    eprintln!("running {version}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let script = root.join("editors/nvim/test_lsp.lua");
    let mut child = Command::new("nvim")
        .args(["--headless", "--clean", "-c"])
        .arg(format!("luafile {}", script.display()))
        .env("SKC_BIN", env!("CARGO_BIN_EXE_skc"))
        .current_dir(&root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start nvim");
    let deadline = Instant::now() + Duration::from_secs(90);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("nvim did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("{stdout}{stderr}");
    assert!(output.status.success(), "the Neovim test failed ({}):\n{stdout}{stderr}", output.status);
    assert!(stdout.contains("ok: diagnostics cleared after the edit"), "{stdout}");
}

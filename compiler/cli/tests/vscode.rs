//! The VS Code extension as packaged (`editors/vscode/skc.vsix`, built by `npm run package` there) against the
//! real `skc lsp`: its `extension/` folder is unpacked and its client code runs under Node with a stand-in for
//! the `vscode` module (`editors/vscode/test/packaged-client.js`, which lists what this cannot cover). Without
//! the package or `node` the test says so and passes, unless `SKC_REQUIRE_VSCODE=1` (CI), where it fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use skc_tests::require::{or_skip, Tool};

/// The packaged extension and Node's version, or why the test cannot run.
fn vsix_and_node(root: &Path) -> Result<(PathBuf, String), String> {
    let vsix = root.join("editors/vscode/skc.vsix");
    if !vsix.exists() {
        return Err("editors/vscode/skc.vsix is not built (`npm ci && npm run package` in editors/vscode)".into());
    }
    let version = Command::new("node").arg("--version").output().map_err(|e| format!("`node` cannot be run ({e})"))?;
    Ok((vsix, String::from_utf8_lossy(&version.stdout).trim().to_string()))
}

fn unpack(vsix: &Path, into: &Path) -> Result<(), String> {
    let status = Command::new("python3")
        .args(["-m", "zipfile", "-e"])
        .arg(vsix)
        .arg(into)
        .status()
        .map_err(|e| format!("cannot run python3 to unpack the .vsix: {e}"))?;
    status.success().then_some(()).ok_or_else(|| format!("unpacking {} failed ({status})", vsix.display()))
}

#[test]
fn the_packaged_extension_drives_skc_lsp() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let Some((vsix, version)) = or_skip(Tool::Vscode, vsix_and_node(&root), "the VS Code extension test") else {
        return;
    };
    eprintln!("running node {version}");
    let unpacked: PathBuf = std::env::temp_dir().join(format!("skc-vsix-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&unpacked);
    unpack(&vsix, &unpacked).unwrap();
    let output = Command::new("node")
        .arg(root.join("editors/vscode/test/packaged-client.js"))
        .arg(unpacked.join("extension"))
        .arg(env!("CARGO_BIN_EXE_skc"))
        .output()
        .expect("cannot run node");
    let _ = std::fs::remove_dir_all(&unpacked);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("{stdout}{stderr}");
    assert!(output.status.success(), "the VS Code extension test failed ({}):\n{stdout}{stderr}", output.status);
    for step in ["E0001 at", "skc.explainCode E0001", "skc.showCudaC opened", "skc.restartServer", "deactivated"] {
        assert!(stdout.contains(step), "the test did not get to `{step}`:\n{stdout}");
    }
}

//! The boundaries ARCHITECTURE.md states, checked on the source tree: skc-runtime (`runtime/`) is the only crate
//! that talks to the CUDA driver, and skc-nvrtc (`compiler/nvrtc/`) the only other one that uses cudarc (for
//! NVRTC). Every other crate launches, allocates and times through skc-runtime.

use std::path::{Path, PathBuf};

use skc_tests::repo_root;

/// Folders whose code may use cudarc and call the driver.
const GPU_CRATES: &[&str] = &["runtime", "compiler/nvrtc"];

/// What only those folders may contain: the cudarc crate, and a driver library linked or declared by hand.
const FORBIDDEN: &[&str] = &["cudarc", "#[link(name = \"cuda", "libcuda.so", "extern \"C\" {", "extern \"system\" {"];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !name.starts_with('.') && name != "target" && name != "node_modules" {
                sources(&path, out);
            }
        } else if name.ends_with(".rs") || name == "Cargo.toml" {
            out.push(path);
        }
    }
}

#[test]
fn only_the_runtime_and_nvrtc_crates_touch_cuda() {
    let root = repo_root();
    let mut files = Vec::new();
    sources(&root, &mut files);
    let this_file = root.join("tests/architecture.rs");
    let mut found = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&root).expect("under the repository");
        if *file == this_file || GPU_CRATES.iter().any(|dir| relative.starts_with(dir)) {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("source is readable");
        for (number, line) in text.lines().enumerate() {
            if let Some(what) = FORBIDDEN.iter().find(|what| line.contains(*what)) {
                found.push(format!("{}:{}: `{what}`: {}", relative.display(), number + 1, line.trim()));
            }
        }
    }
    assert!(files.len() > 100, "expected the whole tree, found {} files", files.len());
    assert!(
        found.is_empty(),
        "CUDA outside skc-runtime and skc-nvrtc (go through skc_runtime instead):\n{}",
        found.join("\n")
    );
}

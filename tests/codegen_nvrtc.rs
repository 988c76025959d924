//! Every CUDA C file skc emits compiles with NVRTC, without errors or warnings: the inputs of `tests/codegen/`
//! and every `tests/ui/**/*.sk` the front end accepts. Skipped (with a note) when NVRTC cannot be found, unless
//! `SKC_REQUIRE_NVRTC=1`; `SKC_NVRTC_PATH` names the folder holding libnvrtc.

use std::path::{Path, PathBuf};

use skc_core::codegen::{emit_cuda, EmitOptions};
use skc_nvrtc::{load_nvrtc, CompileOptions, LibrarySearch};
use skc_tests::check_path;

fn sk_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sk_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "sk") {
            out.push(path);
        }
    }
}

/// The lines of NVRTC's log that are diagnostics (the rest is the ptxas resource report).
fn diagnostics(log: &str) -> Vec<&str> {
    log.lines().filter(|l| l.contains("warning") || l.contains("error")).collect()
}

#[test]
fn emitted_cuda_compiles_without_warnings() {
    if let Err(e) = load_nvrtc(&LibrarySearch::from_env()) {
        assert!(std::env::var("SKC_REQUIRE_NVRTC").as_deref() != Ok("1"), "NVRTC could not be loaded: {e}");
        eprintln!("note: skipped, NVRTC not available: {e}");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut inputs = Vec::new();
    sk_files(&root.join("codegen"), &mut inputs);
    sk_files(&root.join("ui"), &mut inputs);
    inputs.sort();
    let mut compiled = 0;
    let mut failures = Vec::new();
    for path in &inputs {
        let checked = check_path(path);
        if checked.has_errors() {
            continue;
        }
        let output = emit_cuda(&checked.module, &checked.types, &checked.sources, &EmitOptions::default());
        let name = path.file_name().unwrap().to_string_lossy().replace(".sk", ".cu");
        let options = CompileOptions { include_cubin: false, ..CompileOptions::default() };
        match skc_nvrtc::compile(&output.source, &name, &options) {
            Ok(result) if diagnostics(&result.log).is_empty() => compiled += 1,
            Ok(result) => failures.push(format!("{}: warnings\n{}", path.display(), result.log)),
            Err(e) => failures.push(format!("{}: {e}\n{}", path.display(), output.source)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(compiled >= 16, "only {compiled} inputs compiled");
    eprintln!("{compiled} emitted CUDA C files compiled with NVRTC without warnings");
}

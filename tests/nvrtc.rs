//! Every program `skc check` accepts compiles through NVRTC: all accepted UI inputs, every codegen input, every
//! example and every standard-library module. Also holds register and spill budgets for representative kernels.
//! Needs NVRTC (no GPU): with `SKC_REQUIRE_NVRTC=1` (set by scripts/test.sh) a missing NVRTC is a failure.

use std::path::{Path, PathBuf};

use skc_core::codegen::{emit_cuda, EmitOptions};
use skc_nvrtc::{CompileOptions, CompileOutput, NvrtcError};
use skc_tests::check_path;

/// Loads NVRTC once; `None` (after a note) when it is missing and not required.
fn nvrtc_available() -> bool {
    match skc_nvrtc::load_nvrtc(&skc_nvrtc::LibrarySearch::from_env()) {
        Ok(_) => true,
        Err(error) => {
            let required = std::env::var("SKC_REQUIRE_NVRTC").map(|v| v == "1").unwrap_or(false);
            assert!(!required, "SKC_REQUIRE_NVRTC=1 but NVRTC cannot be loaded: {error}");
            eprintln!("note: NVRTC not found, NVRTC tests skipped ({error})");
            false
        }
    }
}

fn sk_files(root: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(root) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sk_files(&path, out);
        } else if path.extension().map(|e| e == "sk").unwrap_or(false) {
            out.push(path);
        }
    }
}

/// Every `.sk` file of the corpus that the front end accepts.
fn accepted_programs() -> Vec<PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["tests/ui", "tests/codegen", "examples", "stdlib"] {
        sk_files(&repo.join(dir), &mut files);
    }
    files.sort();
    files.into_iter().filter(|f| !check_path(f).has_errors()).collect()
}

fn compile(path: &Path) -> Result<CompileOutput, NvrtcError> {
    let checked = check_path(path);
    let cuda = emit_cuda(&checked.module, &checked.types, &checked.sources, &EmitOptions::default());
    let name = format!("{}.cu", path.file_stem().unwrap_or_default().to_string_lossy());
    skc_nvrtc::compile(&cuda.source, &name, &CompileOptions { include_cubin: false, ..CompileOptions::default() })
}

#[test]
fn every_accepted_program_compiles_with_nvrtc() {
    if !nvrtc_available() {
        return;
    }
    let programs = accepted_programs();
    assert!(programs.len() >= 50, "expected the whole corpus, found {} accepted programs", programs.len());
    let mut failures = Vec::new();
    for path in &programs {
        match compile(path) {
            Ok(out) if out.log.contains("warning") => {
                failures.push(format!("{}: warnings:\n{}", path.display(), out.log))
            }
            Ok(_) => {}
            Err(error) => failures.push(format!("{}: {error}", path.display())),
        }
    }
    eprintln!("compiled {} accepted programs with NVRTC", programs.len());
    assert!(failures.is_empty(), "{} of {} programs failed:\n{}", failures.len(), programs.len(), failures.join("\n"));
}

/// (file, kernel, most registers, spill bytes allowed) on sm_90.
const BUDGETS: &[(&str, &str, u32, u32)] = &[
    ("ui/seed/reduce.sk", "reduce", 24, 0),
    ("codegen/warp_reduce.sk", "", 32, 0),
    ("codegen/matmul.sk", "", 64, 0),
    ("codegen/transpose.sk", "", 32, 0),
    ("codegen/scan.sk", "", 32, 0),
];

#[test]
fn register_and_spill_budgets_hold() {
    if !nvrtc_available() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut report = Vec::new();
    for (file, kernel, max_registers, max_spill) in BUDGETS {
        let out = compile(&root.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let entries: Vec<_> =
            out.resources.iter().filter(|r| r.is_entry && (kernel.is_empty() || r.name == *kernel)).collect();
        assert!(!entries.is_empty(), "{file}: no kernel `{kernel}` in the ptxas report:\n{}", out.log);
        for r in entries {
            report.push(format!("{file} {}: {} registers, {} spill bytes", r.name, r.registers, r.spill_bytes()));
            assert!(
                r.registers <= *max_registers,
                "{file} {}: {} registers > budget {max_registers}",
                r.name,
                r.registers
            );
            assert!(r.spill_bytes() <= *max_spill, "{file} {}: {} spill bytes > {max_spill}", r.name, r.spill_bytes());
        }
    }
    eprintln!("{}", report.join("\n"));
}

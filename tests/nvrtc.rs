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

/// Compiles an accepted program as the runtime would: relocatable device code when it launches kernels from the
/// device (NVRTC rejects `<<<...>>>` in device code otherwise).
fn compile(path: &Path) -> Result<CompileOutput, NvrtcError> {
    let checked = check_path(path);
    let cuda = emit_cuda(&checked.module, &checked.types, &checked.sources, &EmitOptions::default());
    let name = format!("{}.cu", path.file_stem().unwrap_or_default().to_string_lossy());
    let options =
        CompileOptions { include_cubin: false, relocatable: cuda.needs_device_runtime, ..CompileOptions::default() };
    skc_nvrtc::compile(&cuda.source, &name, &options)
}

/// Device-side launches compile only as relocatable code, which calls the device runtime (linked at load time);
/// ordered atomics and named barriers become the PTX instructions they promise.
#[test]
fn scheduler_builtins_lower_to_the_expected_ptx() {
    if !nvrtc_available() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let launch = root.join("ui/sched/ok_launch.sk");
    let checked = check_path(&launch);
    let cuda = emit_cuda(&checked.module, &checked.types, &checked.sources, &EmitOptions::default());
    assert!(cuda.needs_device_runtime, "a program with `launch` needs the device runtime");
    let plain = CompileOptions { include_cubin: false, ..CompileOptions::default() };
    assert!(skc_nvrtc::compile(&cuda.source, "ok_launch.cu", &plain).is_err(), "launches need relocatable code");
    let out = compile(&launch).unwrap_or_else(|e| panic!("{e}"));
    assert!(out.ptx.contains("__cudaCDP2LaunchDeviceV2"), "device launch through the device runtime:\n{}", out.ptx);
    assert!(out.resources.iter().any(|r| r.is_entry && r.name == "parent"), "ptxas report of a relocatable build");

    let atomics = compile(&root.join("ui/sched/ok_ordered_atomics.sk")).unwrap_or_else(|e| panic!("{e}"));
    for instruction in [
        "ld.acquire.sys.b32",
        "ld.relaxed.cta.b32",
        "ld.acquire.gpu.b32",
        "atom.add.relaxed.gpu.u64",
        "atom.add.acq_rel.sys.u64",
        "atom.cas.acq_rel.gpu.b64",
        "atom.exch.release.cta.b64",
        "atom.cas.relaxed.sys.b64",
        "atom.add.acquire.gpu.u64",
        "atom.add.release.gpu.f32",
        "st.release.sys.b32",
        "st.relaxed.gpu.b32",
        "fence.acq_rel.sys",
    ] {
        assert!(atomics.ptx.contains(instruction), "no `{instruction}` in the PTX of ok_ordered_atomics.sk");
    }
    let specialised = compile(&root.join("ui/sched/ok_warp_specialised.sk")).unwrap_or_else(|e| panic!("{e}"));
    assert!(specialised.ptx.contains("bar.sync"), "named barrier");
    assert!(specialised.ptx.contains(".maxntid 256, 1, 1") && specialised.ptx.contains(".minnctapersm 1"));
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

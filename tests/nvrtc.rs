//! The corpus of accepted programs: every `.sk` file of `tests/ui` (but the inputs that expect an error),
//! `tests/codegen`, `examples`, `stdlib`, `libs` and `bench` (but the modules only a host's program can check)
//! passes the front end, and compiles through NVRTC exactly as skc-runtime compiles it. A corpus file that stops checking fails
//! the first test; it is never dropped from the second. Also holds register and spill budgets for representative
//! kernels. Needs NVRTC (no GPU) for all but the first test: with `SKC_REQUIRE_NVRTC=1` (set by
//! scripts/test.sh) a missing NVRTC is a failure.

use std::path::{Path, PathBuf};

use skc_core::session::{DiskFiles, Session};
use skc_nvrtc::{CompileOptions, CompileOutput};
use skc_runtime::{Program, RuntimeError};
use skc_tests::{expected, repo_root, require};

/// Modules that use the names of a module a host generates, of a system the user supplies or of the precision
/// module the solver opens (`to_real`), so they check only inside a program a host builds (skc-ode's solver
/// programs, whose own tests compile them).
const HOST_BUILT: &[&str] = &[
    "libs/ode/systems/fsal_probe.sk",
    "libs/ode/systems/kepler.sk",
    "libs/ode/systems/lorenz96.sk",
    "stdlib/metrics/metrics.sk",
    "stdlib/metrics/summaries.sk",
    "stdlib/metrics/summary_probe.sk",
    "stdlib/ode/ode_dirk.sk",
    "stdlib/ode/ode_erk.sk",
    "stdlib/ode/ode_f32.sk",
    "stdlib/ode/ode_f64.sk",
    "stdlib/ode/ode_no_jacobian.sk",
    "stdlib/ode/ode_solve.sk",
];

fn sk_files(root: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(root) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sk_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "sk") {
            out.push(path);
        }
    }
}

/// The corpus, as paths from the repository root.
fn corpus() -> Vec<PathBuf> {
    let repo = repo_root();
    let mut files = Vec::new();
    for dir in ["tests/ui", "tests/codegen", "examples", "stdlib", "libs", "bench"] {
        sk_files(&repo.join(dir), &mut files);
    }
    let mut corpus: Vec<PathBuf> = files
        .into_iter()
        .map(|f| f.strip_prefix(&repo).expect("found under the repository").to_path_buf())
        .filter(|f| !HOST_BUILT.iter().any(|h| Path::new(h) == f))
        .filter(|f| {
            let text = std::fs::read_to_string(repo.join(f)).expect("corpus file is readable");
            !expected(&text).iter().any(|(_, kind, _)| kind == "error")
        })
        .collect();
    corpus.sort();
    corpus
}

/// The standard session (next to the file, then the standard library) over the repository.
fn session(files: &DiskFiles) -> Session<'_> {
    Session::standard(files)
}

/// Compiles a corpus file as skc-runtime does (CUDA C for sm_90, relocatable device code when it launches kernels
/// from the device, through the compile cache).
fn compile(path: &Path) -> Result<CompileOutput, RuntimeError> {
    let files = DiskFiles::rooted(repo_root());
    Program::from_session_file(&session(&files), path)?.compile("sm_90")
}

#[test]
fn every_corpus_file_checks_and_host_built_modules_do_not_alone() {
    let corpus = corpus();
    assert!(corpus.len() >= 50, "expected the whole corpus, found {} files", corpus.len());
    let files = DiskFiles::rooted(repo_root());
    let session = session(&files);
    let failures: Vec<String> =
        corpus.iter().filter_map(|path| session.compile_file(path).err().map(|e| e.to_string())).collect();
    assert!(failures.is_empty(), "{} corpus files do not check:\n{}", failures.len(), failures.join("\n"));
    for module in HOST_BUILT {
        let alone = session.check_file(Path::new(module)).unwrap_or_else(|e| panic!("{e}"));
        assert!(alone.has_errors(), "{module} checks alone: it belongs in the corpus, not in HOST_BUILT");
    }
}

#[test]
fn every_corpus_file_compiles_with_nvrtc() {
    if !require::nvrtc("the NVRTC corpus") {
        return;
    }
    let corpus = corpus();
    let mut failures = Vec::new();
    for path in &corpus {
        match compile(path) {
            Ok(out) if out.log.contains("warning") => {
                failures.push(format!("{}: warnings:\n{}", path.display(), out.log))
            }
            Ok(_) => {}
            Err(error) => failures.push(format!("{}: {error}", path.display())),
        }
    }
    eprintln!("compiled {} corpus files with NVRTC", corpus.len());
    assert!(failures.is_empty(), "{} of {} programs failed:\n{}", failures.len(), corpus.len(), failures.join("\n"));
}

/// Device-side launches compile only as relocatable code, which calls the device runtime (linked at load time);
/// ordered atomics and named barriers become the PTX instructions they promise.
#[test]
fn scheduler_builtins_lower_to_the_expected_ptx() {
    if !require::nvrtc("the scheduler builtins' PTX") {
        return;
    }
    let launch = Path::new("tests/ui/sched/ok_launch.sk");
    let cuda = &session(&DiskFiles::rooted(repo_root())).compile_file(launch).unwrap_or_else(|e| panic!("{e}")).cuda;
    assert!(cuda.needs_device_runtime, "a program with `launch` needs the device runtime");
    let plain = CompileOptions { include_cubin: false, ..CompileOptions::default() };
    assert!(skc_nvrtc::compile(&cuda.source, "ok_launch.cu", &plain).is_err(), "launches need relocatable code");
    let out = compile(launch).unwrap_or_else(|e| panic!("{e}"));
    assert!(out.ptx.contains("__cudaCDP2LaunchDeviceV2"), "device launch through the device runtime:\n{}", out.ptx);
    assert!(out.resources.iter().any(|r| r.is_entry && r.name == "parent"), "ptxas report of a relocatable build");

    let atomics = compile(Path::new("tests/ui/sched/ok_ordered_atomics.sk")).unwrap_or_else(|e| panic!("{e}"));
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
    let specialised = compile(Path::new("tests/ui/sched/ok_warp_specialised.sk")).unwrap_or_else(|e| panic!("{e}"));
    assert!(specialised.ptx.contains("bar.sync"), "named barrier");
    assert!(specialised.ptx.contains(".maxntid 256, 1, 1") && specialised.ptx.contains(".minnctapersm 1"));
}

/// (file, kernel, most registers, spill bytes allowed) on sm_90.
const BUDGETS: &[(&str, &str, u32, u32)] = &[
    ("tests/ui/seed/reduce.sk", "reduce", 24, 0),
    ("tests/codegen/warp_reduce.sk", "", 32, 0),
    ("tests/codegen/matmul.sk", "", 64, 0),
    ("tests/codegen/transpose.sk", "", 32, 0),
    ("tests/codegen/scan.sk", "", 32, 0),
];

#[test]
fn register_and_spill_budgets_hold() {
    if !require::nvrtc("the register budgets") {
        return;
    }
    let mut report = Vec::new();
    for (file, kernel, max_registers, max_spill) in BUDGETS {
        let out = compile(Path::new(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
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

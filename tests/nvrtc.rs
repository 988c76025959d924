//! The corpus of accepted programs: every `.sk` file of `tests/ui` (but the inputs that expect an error),
//! `tests/codegen`, `examples`, `stdlib`, `libs` and `bench` (but the modules only a host's program can check)
//! passes the front end, and compiles through NVRTC exactly as skc-runtime compiles it. A corpus file that stops
//! checking fails the first test; it is never dropped from the second. Generated programs at, below and above each
//! resource limit compile too. Also holds register and spill budgets for representative kernels. Needs NVRTC (no
//! GPU) for all but the first test: with `SKC_REQUIRE_NVRTC=1` (set by scripts/test.sh) a missing NVRTC is a failure.

use std::path::{Path, PathBuf};

use skc_core::session::{DiskFiles, MemoryFiles, Session};
use skc_nvrtc::{CompileOptions, CompileOutput};
use skc_runtime::{Program, RuntimeError};
use skc_tests::{expected, repo_root, require};

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
        .filter(|f| {
            let text = std::fs::read_to_string(repo.join(f)).expect("corpus file is readable");
            !expected(&text).iter().any(|(_, kind, _)| kind == "error")
        })
        .collect();
    corpus.sort();
    corpus
}

/// Programs whose hosts launch only blocks of whole warps and promise so (`Session::with_full_warps`): the
/// scheduler's warps read each other's lanes by shuffles, sound only when every lane exists.
const WHOLE_WARPS: &[&str] = &["stdlib/sched/sched.sk", "bench/kernels/queue_bench.sk"];

/// The standard session (next to the file, then the standard library) over the repository.
fn session(files: &DiskFiles) -> Session<'_> {
    Session::standard(files)
}

/// The session a corpus file is compiled in: its host's promise of whole warps where it makes one.
fn session_for<'f>(files: &'f DiskFiles, path: &Path) -> Session<'f> {
    match WHOLE_WARPS.iter().any(|w| Path::new(w) == path) {
        true => session(files).with_full_warps(),
        false => session(files),
    }
}

/// Compiles a corpus file as skc-runtime does (CUDA C for sm_90, relocatable device code when it launches kernels
/// from the device, through the compile cache).
fn compile(path: &Path) -> Result<CompileOutput, RuntimeError> {
    let files = DiskFiles::rooted(repo_root());
    Program::from_session_file(&session_for(&files, path), path)?.compile("sm_90")
}

#[test]
fn every_corpus_file_checks() {
    let corpus = corpus();
    assert!(corpus.len() >= 50, "expected the whole corpus, found {} files", corpus.len());
    let files = DiskFiles::rooted(repo_root());
    let session = session(&files);
    let failures: Vec<String> = corpus
        .iter()
        .filter_map(|path| session_for(&files, path).compile_file(path).err().map(|e| e.to_string()))
        .collect();
    assert!(failures.is_empty(), "{} corpus files do not check:\n{}", failures.len(), failures.join("\n"));
    // Without the promise the scheduler is rejected: its shuffles from fixed lanes may miss in a partial warp.
    for program in WHOLE_WARPS {
        let unpromised = session.check_file(Path::new(program)).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            unpromised.has_errors(),
            "{program} checks without the promise of whole warps: drop it from WHOLE_WARPS"
        );
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

/// A program that uses generic functions at several types compiles to one C function per instance, each of the
/// instance's types, and NVRTC compiles them all (no templates, no function pointers).
#[test]
fn generic_functions_compile_to_one_function_per_instance() {
    if !require::nvrtc("generic function instances") {
        return;
    }
    let path = Path::new("tests/ui/types/generic_functions.sk");
    let cuda = session(&DiskFiles::rooted(repo_root())).compile_file(path).unwrap_or_else(|e| panic!("{e}")).cuda;
    for signature in [
        "float sq__float32(float x)",
        "int sq__int32(int x)",
        "double sq__float64(double x)",
        "long long pick__int64(long long x, long long y)",
        "float pick__float32(float x, float y)",
        "double sum_sq__float64(double x, double y)",
        "float double_it(float x)",
    ] {
        assert!(cuda.source.contains(signature), "`{signature}` in:\n{}", cuda.source);
    }
    assert!(!cuda.source.contains("unused"), "a generic function nothing calls is not emitted");
    let out = compile(path).unwrap_or_else(|e| panic!("{e}"));
    assert!(out.resources.iter().any(|r| r.is_entry && r.name == "k"), "the kernel's ptxas report");
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

/// A vector load or store is one instruction of the vector's width, from global and from shared memory.
/// A constant array read at an index known after unrolling is an immediate in the PTX, no load; a
/// `[@constant_memory]` array and a read at a thread-varying index stay loads from constant memory.
#[test]
fn constant_array_reads_at_unrolled_indices_fold_to_immediates() {
    if !require::nvrtc("the folding of constant arrays") {
        return;
    }
    let out = compile(Path::new("tests/codegen/constant_folding.sk")).unwrap_or_else(|e| panic!("{e}"));
    let loads: Vec<&str> = out.ptx.lines().filter(|l| l.trim_start().starts_with("ld.const")).collect();
    assert!(!loads.iter().any(|l| l.contains("[weights")), "a read of `weights` at a known index loaded:\n{}", out.ptx);
    for immediate in ["0f3E800000", "0f3F000000", "0f3E000000", "0f40000000"] {
        assert!(out.ptx.contains(immediate), "no immediate {immediate} (a value of `weights`):\n{}", out.ptx);
    }
    for kept in ["[kept]", "[kept+4]", "[kept+8]", "[kept+12]"] {
        assert!(loads.iter().any(|l| l.contains(kept)), "no load {kept} of the [@constant_memory] array:\n{}", out.ptx);
    }
    assert_eq!(loads.len(), 5, "four loads of `kept` and the read at a thread-varying index:\n{}", out.ptx);
}

#[test]
fn vector_accesses_are_single_vector_instructions() {
    if !require::nvrtc("the vector accesses' PTX") {
        return;
    }
    let out = compile(Path::new("tests/codegen/vector_loads.sk")).unwrap_or_else(|e| panic!("{e}"));
    for instruction in [
        "ld.global.nc.v4.f32",
        "st.global.v4.f32",
        "st.shared.v4.",
        "ld.shared.v4.f32",
        "ld.global.v2.f64",
        "st.global.v2.f64",
    ] {
        assert!(out.ptx.contains(instruction), "no `{instruction}` in the PTX of vector_loads.sk:\n{}", out.ptx);
    }
    assert!(!out.ptx.contains("ld.global.nc.f32"), "a float4 load split into scalar loads:\n{}", out.ptx);
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

// --- resource limits ---------------------------------------------------------------------------------------

/// A generated program near a resource limit: at or below it, it must check and compile without a warning for
/// `arch`; above it, `skc check` must reject it with E0220, and (where ptxas enforces the limit) the CUDA C
/// emitted anyway must fail to compile, so the limit is the target's own, not a guess.
struct LimitCase {
    what: String,
    source: String,
    arch: &'static str,
    fits: bool,
    /// Does NVRTC itself refuse (an error, or for launch bounds a warning) the program above the limit?
    nvrtc_enforces: bool,
}

fn shared_case(elements: u32, fits: bool) -> LimitCase {
    LimitCase {
        what: format!("{elements} float64 of static shared memory"),
        source: format!(
            "kernel k (out : float64 vector) =\n  let%shared (t : float64) = {elements} in\n  \
             t.(thread_idx_x) <- 1.0d;\n  Gpu.block_barrier;\n  out.(global_idx) <- t.(block_dim_x - 1 - thread_idx_x)\n"
        ),
        arch: "sm_90",
        fits,
        nvrtc_enforces: true,
    }
}

/// A two-dimensional shared array of `rows` x `columns` float64: every element counts.
fn shared_2d_case(rows: u32, columns: u32, fits: bool) -> LimitCase {
    LimitCase {
        what: format!("{rows} x {columns} float64 of static shared memory"),
        source: format!(
            "kernel k (out : float64 vector) =\n  let%shared (t : float64) = ({rows}, {columns}) in\n  \
             t.(thread_idx_y).(thread_idx_x) <- 1.0d;\n  Gpu.block_barrier;\n  \
             out.(global_idx) <- t.(block_dim_y - 1 - thread_idx_y).(block_dim_x - 1 - thread_idx_x)\n"
        ),
        arch: "sm_90",
        fits,
        nvrtc_enforces: true,
    }
}

fn constant_case(elements: usize, fits: bool) -> LimitCase {
    let items: Vec<String> = (0..elements).map(|i| (i % 97).to_string()).collect();
    LimitCase {
        what: format!("{elements} int32 of constant memory"),
        source: format!(
            "let table = [| {} |]\n\nkernel k (out : int32 vector) = out.(global_idx) <- table.(global_idx)\n",
            items.join("; ")
        ),
        arch: "sm_90",
        fits,
        nvrtc_enforces: true,
    }
}

fn parameter_case(ty: &str, count: usize, fits: bool) -> LimitCase {
    let params: Vec<String> = (0..count).map(|i| format!("(a{i} : {ty})")).collect();
    LimitCase {
        what: format!("a vector and {count} {ty} parameters"),
        source: format!("kernel k (out : {ty} vector) {} =\n  out.(0) <- a0 + a{}\n", params.join(" "), count - 1),
        arch: "sm_90",
        fits,
        nvrtc_enforces: true,
    }
}

fn local_case(elements: u32, fits: bool) -> LimitCase {
    LimitCase {
        what: format!("{elements} float64 of local memory"),
        source: format!(
            "kernel k (out : float64 vector) (n : int32) =\n  let%local (t : float64) = {elements} in\n  \
             for j = 0 to n - 1 do t.(int32 out.(j)) <- 1.0d done;\n  out.(global_idx) <- t.(n)\n"
        ),
        arch: "sm_90",
        fits,
        // ptxas compiles any frame size; the launch fails. The limit is the Programming Guide's.
        nvrtc_enforces: false,
    }
}

fn launch_bounds_case(arch: &'static str, threads: u32, blocks: u32, fits: bool) -> LimitCase {
    LimitCase {
        what: format!("launch bounds {threads} {blocks} on {arch}"),
        source: format!("kernel[@launch_bounds {threads} {blocks}] k (out : int32 vector) = out.(global_idx) <- 1\n"),
        arch,
        fits,
        nvrtc_enforces: true,
    }
}

/// Programs at, just below and just above every resource limit `skc check` enforces.
fn limit_cases() -> Vec<LimitCase> {
    let mut cases = vec![
        shared_case(6144, true),
        shared_case(6143, true),
        shared_case(6145, false),
        shared_2d_case(64, 96, true),
        shared_2d_case(64, 97, false),
        constant_case(16384, true),
        constant_case(16383, true),
        constant_case(16385, false),
        // 8 bytes of pointer, then the scalars: 32,764 bytes is the most.
        parameter_case("int32", 8189, true),
        parameter_case("int32", 8188, true),
        parameter_case("int32", 8190, false),
        parameter_case("float64", 4094, true),
        parameter_case("float64", 4095, false),
        local_case(65536, true),
        local_case(65535, true),
        local_case(65537, false),
    ];
    // (arch, most blocks, most threads) per multiprocessor.
    for (arch, blocks, threads) in [("sm_75", 16, 1024), ("sm_86", 16, 1536), ("sm_89", 24, 1536), ("sm_90", 32, 2048)]
    {
        cases.push(launch_bounds_case(arch, 32, blocks, true));
        cases.push(launch_bounds_case(arch, 32, blocks - 1, true));
        cases.push(launch_bounds_case(arch, 32, blocks + 1, false));
        cases.push(launch_bounds_case(arch, threads / 2, 2, true));
        cases.push(launch_bounds_case(arch, threads / 2 + 1, 2, false));
        cases.push(launch_bounds_case(arch, 1024, 1, true));
    }
    // Whole warps: 288 threads are 9 warps, 5 blocks of them 1,440 threads; 300 threads round up to 320 (1,600).
    cases.push(launch_bounds_case("sm_90", 288, 5, true));
    cases.push(launch_bounds_case("sm_86", 288, 5, true));
    cases.push(launch_bounds_case("sm_86", 300, 5, false));
    cases
}

#[test]
fn programs_at_each_resource_limit_build_and_beyond_it_are_rejected() {
    if !require::nvrtc("the resource-limit programs") {
        return;
    }
    let mut failures = Vec::new();
    let cases = limit_cases();
    let files = MemoryFiles::new();
    for case in &cases {
        let target = skc_core::target::Target::parse(case.arch).unwrap();
        let session = Session::new(&files).with_target(target);
        let checked = session.check("limit.sk", &case.source);
        let codes: Vec<&str> = checked.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.code).collect();
        let expected: &[&str] = if case.fits { &[] } else { &["E0220"] };
        if codes != expected {
            failures.push(format!("{}: check reported {codes:?}, expected {expected:?}", case.what));
            continue;
        }
        if !case.fits && !case.nvrtc_enforces {
            continue;
        }
        let cuda = session.emit(&checked);
        let options = CompileOptions { include_cubin: false, arch: case.arch.to_string(), ..CompileOptions::default() };
        let refused = match skc_nvrtc::compile(&cuda.source, "limit.cu", &options) {
            Ok(out) => out.log.contains("warning"),
            Err(_) => true,
        };
        if refused == case.fits {
            let verdict =
                if case.fits { "fits, but NVRTC refuses it" } else { "is over the limit, but NVRTC takes it" };
            failures.push(format!("{}: {verdict}", case.what));
        }
    }
    eprintln!("checked and compiled {} programs at resource limits", cases.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The 16-bit floats compute with the PTX instructions their semantics name (each rounds once, to nearest even),
/// with no CUDA header: float16 `+ - *` and `fma` as `add/sub/mul/fma.rn.f16`, bfloat16's as `fma.rn.bf16`, the
/// conversions as `cvt.rn.f16.f32`, `cvt.rn.bf16.f32` and `cvt.f32.f16`, and division through `div.rn.f32`.
#[test]
fn half_floats_use_the_rounded_ptx_instructions() {
    if !require::nvrtc("the 16-bit floats' PTX") {
        return;
    }
    let out = compile(Path::new("tests/codegen/half_floats.sk")).unwrap_or_else(|e| panic!("{e}"));
    for instruction in [
        "add.rn.f16",
        "sub.rn.f16",
        "mul.rn.f16",
        "fma.rn.f16",
        "fma.rn.bf16",
        "cvt.rn.f16.f32",
        "cvt.rn.bf16.f32",
        "cvt.f32.f16",
    ] {
        assert!(out.ptx.contains(instruction), "no `{instruction}` in the PTX of half_floats.sk:\n{}", out.ptx);
    }
    assert!(out.ptx.contains("div.rn.f32"), "a 16-bit division not through div.rn.f32:\n{}", out.ptx);
    assert!(!out.ptx.contains("div.approx") && !out.ptx.contains("div.full"), "an inexact division:\n{}", out.ptx);
}

/// The 16-bit pairs move in one 4-byte access (`ld.global.nc.v2.u16`, `st.global.v2.u16`) and compute lane by
/// lane in one PTX instruction each (`add/sub/mul/fma.rn.f16x2`, `fma.rn.bf16x2`, `xor.b32` for negation), but
/// division, the scalar one on each lane (`div.rn.f32`); `atomic_add` on float16 and bfloat16 is `atom.add.noftz.f16` and `.bf16`,
/// `atomic_add_float16x2` and `atomic_add_bfloat16x2` are `.f16x2` and `.bf16x2`.
#[test]
fn half_pairs_and_16_bit_atomics_use_their_ptx_instructions() {
    if !require::nvrtc("the 16-bit pairs' PTX") {
        return;
    }
    let out = compile(Path::new("tests/codegen/half_pairs.sk")).unwrap_or_else(|e| panic!("{e}"));
    for instruction in [
        "add.rn.f16x2",
        "sub.rn.f16x2",
        "mul.rn.f16x2",
        "fma.rn.f16x2",
        "fma.rn.bf16x2",
        "atom.add.noftz.f16",
        "atom.add.noftz.bf16",
        "atom.add.noftz.f16x2",
        "atom.add.noftz.bf16x2",
        "ld.global.nc.v2.u16",
        "st.global.v2.u16",
    ] {
        assert!(out.ptx.contains(instruction), "no `{instruction}` in the PTX of half_pairs.sk:\n{}", out.ptx);
    }
    // Division is the scalar division on each lane, through div.rn.f32 (PTX has no f16x2 or bf16x2 division), and
    // negation one xor of both sign bits.
    assert!(out.ptx.contains("div.rn.f32"), "a pair division not through div.rn.f32:\n{}", out.ptx);
    assert!(!out.ptx.contains("div.approx") && !out.ptx.contains("div.full"), "an inexact division:\n{}", out.ptx);
    assert!(out.ptx.contains("xor.b32"), "a pair negation not one 32-bit xor:\n{}", out.ptx);
    assert!(!out.ptx.contains("neg.f16x2") && !out.ptx.contains("neg.bf16x2"), "neg leaves a NaN unspecified");
    // Every global load of the pair kernels is a whole pair (one 4-byte `ld.global.nc.v2.u16`): no lone 16-bit
    // load is left.
    let sixteen_bit_loads: Vec<&str> = out
        .ptx
        .lines()
        .filter(|l| l.trim_start().starts_with("ld.global") && !l.contains(".v2.") && l.contains("16"))
        .collect();
    assert!(sixteen_bit_loads.is_empty(), "a pair load split into 16-bit loads: {sixteen_bit_loads:?}\n{}", out.ptx);
}

/// `atomic_add` on bfloat16 and `atomic_add_bfloat16x2` need sm_90 (`atom.add.noftz.bf16`, `.bf16x2`), the float16
/// ones sm_70: the checker accepts each on exactly the targets where NVRTC compiles it (E0224 on the others).
#[test]
fn sixteen_bit_atomics_check_exactly_where_they_compile() {
    if !require::nvrtc("the 16-bit atomics on each target") {
        return;
    }
    let source = |elem: &str| match elem {
        "float16x2" | "bfloat16x2" => {
            format!("kernel k (xs : {elem} vector) =\n  let _ = atomic_add_{elem} xs 0 xs.(1) in\n  ()\n")
        }
        _ => format!("kernel k (xs : {elem} vector) =\n  let _ = atomic_add xs 0 ({elem} 1.0) in\n  ()\n"),
    };
    let files = MemoryFiles::new();
    let mut failures = Vec::new();
    for elem in ["float16", "bfloat16", "float16x2", "bfloat16x2"] {
        let newest = Session::new(&files);
        let checked = newest.check("atomic.sk", source(elem));
        assert!(!checked.has_errors(), "{elem}: {:?}", checked.diagnostics);
        let cuda = newest.emit(&checked);
        for arch in ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90"] {
            let target = skc_core::target::Target::parse(arch).unwrap();
            let accepted = !Session::new(&files).with_target(target).check("atomic.sk", source(elem)).has_errors();
            let options = CompileOptions { include_cubin: true, arch: arch.to_string(), ..CompileOptions::default() };
            let compiles = skc_nvrtc::compile(&cuda.source, "atomic.cu", &options).is_ok();
            let expected = elem.starts_with("float16") || arch == "sm_90";
            if accepted != expected || compiles != expected {
                failures
                    .push(format!("{elem} on {arch}: checked {accepted}, compiled {compiles}, expected {expected}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

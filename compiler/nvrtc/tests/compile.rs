//! Integration tests against real NVRTC: compile output, ptxas report, errors, loading.

mod common;

use skc_nvrtc::{compile, mapped_files_containing, occupancy, CompileOptions, Limiter, NvrtcError};

#[test]
fn compiles_saxpy_to_ptx_cubin_and_report() {
    let lib = require_nvrtc!("compiles_saxpy_to_ptx_cubin_and_report");
    let out = compile(&common::data("simple.cu"), "simple.cu", &CompileOptions::default()).expect("compiles");
    assert!(out.ptx.contains(".entry saxpy"), "PTX:\n{}", out.ptx);
    assert!(out.ptx.contains(".target sm_90"));
    assert_eq!(out.cubin.get(..4), Some(&b"\x7fELF"[..]), "CUBIN is an ELF file");
    assert_eq!(out.nvrtc_version, lib.version);
    assert!(!out.cache_hit);
    assert_eq!(out.resources.len(), 1, "log:\n{}", out.log);
    let saxpy = &out.resources[0];
    assert_eq!((saxpy.name.as_str(), saxpy.arch.as_str(), saxpy.is_entry), ("saxpy", "sm_90", true));
    assert!(saxpy.registers > 0 && saxpy.registers < 64, "{saxpy:?}");
    eprintln!("saxpy compiled in {:?} with NVRTC {:?} from {}", out.elapsed, lib.version, lib.path.display());
}

#[test]
fn nvrtc_is_13_0_from_the_searched_path() {
    let lib = require_nvrtc!("nvrtc_is_13_0_from_the_searched_path");
    assert_eq!(lib.version.0, 13, "{lib:?}");
    // The library cudarc calls into is the file we chose, and so is the builtins library.
    let mapped = mapped_files_containing("libnvrtc");
    let dir = lib.path.parent().and_then(|d| std::fs::canonicalize(d).ok()).expect("library folder");
    assert!(mapped.iter().any(|p| p.starts_with(&dir) && file_name_starts(p, "libnvrtc.so")), "{mapped:?}");
    // Compile once so NVRTC has needed its builtins library.
    compile(&common::data("simple.cu"), "simple.cu", &CompileOptions::default()).expect("compiles");
    let mapped = mapped_files_containing("libnvrtc-builtins");
    assert!(mapped.iter().all(|p| p.starts_with(&dir)), "builtins from another folder: {mapped:?}");
    assert_eq!(mapped.len(), 1, "{mapped:?}");
    let on_loader_path = std::env::var("LD_LIBRARY_PATH").unwrap_or_default();
    let dir_on_loader_path = on_loader_path.split(':').any(|p| std::fs::canonicalize(p).is_ok_and(|p| p == dir));
    if dir_on_loader_path {
        eprintln!("note: {} is on LD_LIBRARY_PATH, so this run does not prove the builtins preload", dir.display());
    }
    eprintln!("LD_LIBRARY_PATH={on_loader_path:?}; found_by={}; path={}", lib.found_by, lib.path.display());
}

fn file_name_starts(path: &std::path::Path, prefix: &str) -> bool {
    path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(prefix))
}

#[test]
fn reports_shared_memory_barriers_and_several_kernels() {
    require_nvrtc!("reports_shared_memory_barriers_and_several_kernels");
    let out = compile(&common::data("shared.cu"), "shared.cu", &CompileOptions::default()).expect("compiles");
    let names: Vec<&str> = out.resources.iter().map(|r| r.name.as_str()).collect();
    assert!(names.contains(&"block_sum") && names.contains(&"poly"), "{names:?}");
    let sum = out.resources.iter().find(|r| r.name == "block_sum").expect("block_sum");
    assert_eq!((sum.shared_bytes, sum.barriers), (1024, 1));
}

#[test]
fn reports_stack_and_spills() {
    require_nvrtc!("reports_stack_and_spills");
    let out = compile(&common::data("spill.cu"), "spill.cu", &CompileOptions::default()).expect("compiles");
    let heavy = &out.resources[0];
    assert_eq!(heavy.name, "heavy");
    assert!(heavy.stack_frame_bytes >= 256, "{heavy:?}");
    assert!(heavy.spill_store_bytes > 0 && heavy.spill_load_bytes > 0, "{heavy:?}");
    // __launch_bounds__(1024, 2) caps registers at 32.
    assert!(heavy.registers <= 32, "{heavy:?}");
    let occ = occupancy(heavy, 1024, 0, "sm_90");
    assert_eq!(occ.blocks_per_sm, 2, "{occ:?}");
}

#[test]
fn reports_non_inlined_device_function() {
    require_nvrtc!("reports_non_inlined_device_function");
    let out = compile(&common::data("noinline.cu"), "noinline.cu", &CompileOptions::default()).expect("compiles");
    let helper = out.resources.iter().find(|r| r.name == "_Z6helperPKfi").expect("helper in report");
    assert!(!helper.is_entry);
    let entries = out.resources.iter().filter(|r| r.is_entry).count();
    assert_eq!(entries, 3, "{:#?}", out.resources);
}

#[test]
fn older_arch_reports_constant_banks() {
    require_nvrtc!("older_arch_reports_constant_banks");
    let out = compile(&common::data("shared.cu"), "shared.cu", &CompileOptions::for_arch("sm_80")).expect("compiles");
    assert!(out.ptx.contains(".target sm_80"));
    let poly = out.resources.iter().find(|r| r.name == "poly").expect("poly");
    assert_eq!(poly.arch, "sm_80");
    assert!(poly.constant_bytes.iter().any(|&(bank, bytes)| bank == 0 && bytes > 0), "{poly:?}");
}

#[test]
fn debug_line_info_and_no_cubin_options_work() {
    require_nvrtc!("debug_line_info_and_no_cubin_options_work");
    let source = common::data("simple.cu");
    let debug = CompileOptions { debug: true, line_info: true, ..CompileOptions::default() };
    let out = compile(&source, "simple.cu", &debug).expect("debug compile");
    assert!(out.ptx.contains(".loc"), "debug PTX has line info");
    let lines = CompileOptions { line_info: true, optimize: false, include_cubin: false, ..CompileOptions::default() };
    let out = compile(&source, "simple.cu", &lines).expect("lineinfo compile");
    assert!(out.cubin.is_empty());
    assert!(out.ptx.contains(".loc"));
    assert_eq!(out.resources.len(), 1);
}

#[test]
fn every_supported_arch_compiles() {
    require_nvrtc!("every_supported_arch_compiles");
    for arch in ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"] {
        let out = compile(&common::data("simple.cu"), "simple.cu", &CompileOptions::for_arch(arch))
            .unwrap_or_else(|e| panic!("{arch}: {e}"));
        assert_eq!(out.resources[0].arch, arch);
        assert!(!out.cubin.is_empty(), "{arch}");
    }
}

#[test]
fn broken_cuda_returns_compile_error_with_log() {
    require_nvrtc!("broken_cuda_returns_compile_error_with_log");
    let err = compile(&common::data("broken.cu"), "broken.cu", &CompileOptions::default()).expect_err("must fail");
    let NvrtcError::Compile { log } = &err else {
        panic!("expected Compile, got {err:?}");
    };
    assert!(log.contains("identifier \"undefined_thing\" is undefined"), "{log}");
    assert!(log.contains("broken.cu(2)"), "log names the program and line: {log}");
    assert!(err.to_string().starts_with("NVRTC compilation failed:"));
}

#[test]
fn bad_option_is_an_api_error_not_a_panic() {
    require_nvrtc!("bad_option_is_an_api_error_not_a_panic");
    let options = CompileOptions { extra: vec!["--no-such-option".into()], ..CompileOptions::default() };
    let err = compile(&common::data("simple.cu"), "simple.cu", &options).expect_err("must fail");
    match &err {
        NvrtcError::Api { call, code } => {
            assert_eq!(*call, "nvrtcCompileProgram");
            assert!(code.contains("NVRTC_ERROR_INVALID_OPTION") && code.contains("--no-such-option"), "{code}");
        }
        other => panic!("expected Api, got {other:?}"),
    }
    let old_arch = compile(&common::data("simple.cu"), "simple.cu", &CompileOptions::for_arch("sm_70"));
    assert!(matches!(old_arch, Err(NvrtcError::Api { .. })), "NVRTC 13 dropped sm_70: {old_arch:?}");
}

#[test]
fn nul_byte_in_source_is_invalid_input() {
    require_nvrtc!("nul_byte_in_source_is_invalid_input");
    let err = compile("__global__ void k() {}\0", "k.cu", &CompileOptions::default()).expect_err("must fail");
    assert!(matches!(err, NvrtcError::InvalidInput { what: "CUDA source", .. }), "{err:?}");
}

#[test]
fn occupancy_from_a_real_report() {
    require_nvrtc!("occupancy_from_a_real_report");
    let out = compile(&common::data("shared.cu"), "shared.cu", &CompileOptions::default()).expect("compiles");
    let sum = out.resources.iter().find(|r| r.name == "block_sum").expect("block_sum");
    let occ = occupancy(sum, 256, 0, "sm_90");
    assert_eq!((occ.blocks_per_sm, occ.warps_per_sm, occ.limited_by), (8, 64, Limiter::Warps));
}

//! stdlib/sched/queue_bench.sk (the queue-alone benchmark) through the front end and NVRTC, without a GPU: it
//! opens sched.sk unchanged, is therefore relocatable like it (sched.sk's child launch),
//! and its kernels take the parameters `skc_sched::queue_bench` passes. Needs NVRTC (as `scripts/test.sh`).

use skc_bench::queue::program;
use skc_nvrtc::{compile, CompileOptions};
use skc_runtime::{ParamType, ScalarType};

#[test]
fn the_benchmark_compiles_relocatable_without_spills() {
    let program = program().unwrap_or_else(|e| panic!("{e}"));
    assert!(program.needs_device_runtime, "opening Sched brings its child launch: relocatable");
    let options = CompileOptions { relocatable: true, ..CompileOptions::for_arch("sm_90") };
    let out = compile(&program.cuda_source, "queue_bench.cu", &options).unwrap_or_else(|e| panic!("{e}"));
    for kernel in ["qb_warp", "qb_lane"] {
        let r = out.resources.iter().find(|r| r.is_entry && r.name.contains(kernel)).expect("kernel in the report");
        assert_eq!((r.spill_store_bytes, r.spill_load_bytes), (0, 0), "{kernel} spills: {r:?}");
        eprintln!("{kernel}: {} registers", r.registers);
    }
}

/// The parameter lists `QueueBench::launch` passes, in order: device pointers (`p`) and int32 values (`i`).
#[test]
fn the_kernels_take_what_the_host_passes() {
    let program = program().unwrap();
    for (kernel, expected) in [("qb_warp", "pppippipii"), ("qb_lane", "pppipipii")] {
        let signature = program.kernel(kernel).unwrap_or_else(|| panic!("no kernel {kernel}"));
        let kinds: String = signature
            .params
            .iter()
            .map(|p| match &p.ty {
                ParamType::Vector { .. } => 'p',
                ParamType::Scalar(ScalarType::Int32) => 'i',
                _ => '?',
            })
            .collect();
        assert_eq!(kinds, expected, "{kernel}: {:?}", signature.params);
    }
}

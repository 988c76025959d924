//! stdlib/sched/queue_bench.sk (the queue-alone benchmark) through the front end and NVRTC, without a GPU, for
//! both queue variants: it opens sched.sk unchanged, is therefore relocatable like it (sched.sk's child launch),
//! and its kernels take the parameters `skc_sched::queue_bench` passes. Needs NVRTC (as `scripts/test.sh`).

use skc_nvrtc::{compile, CompileOptions};
use skc_runtime::{ParamType, ScalarType};
use skc_sched::queue_bench::program;
use skc_sched::QueueKind;

#[test]
fn both_variants_compile_relocatable_without_spills() {
    for queue in [QueueKind::Ticket, QueueKind::Cas] {
        let program = program(queue).unwrap_or_else(|e| panic!("{queue:?}: {e}"));
        assert!(program.needs_device_runtime, "{queue:?}: opening Sched brings its child launch: relocatable");
        let options = CompileOptions { relocatable: true, ..CompileOptions::for_arch("sm_90") };
        let out =
            compile(&program.cuda_source, "queue_bench.cu", &options).unwrap_or_else(|e| panic!("{queue:?}: {e}"));
        for kernel in ["qb_warp", "qb_lane"] {
            let r = out.resources.iter().find(|r| r.is_entry && r.name.contains(kernel)).expect("kernel in the report");
            assert_eq!((r.spill_store_bytes, r.spill_load_bytes), (0, 0), "{queue:?}: {kernel} spills: {r:?}");
            eprintln!("{queue:?} {kernel}: {} registers", r.registers);
        }
    }
}

#[test]
fn the_cas_variant_takes_positions_with_cas() {
    let ticket = program(QueueKind::Ticket).unwrap().cuda_source;
    let cas = program(QueueKind::Cas).unwrap().cuda_source;
    assert!(ticket.contains("static constexpr bool queue_cas = false;"), "the ticket variant");
    assert!(cas.contains("static constexpr bool queue_cas = true;"), "-D queue_cas=true reaches the opened Sched");
}

/// The parameter lists `QueueBench::launch` passes, in order: device pointers (`p`) and int32 values (`i`).
#[test]
fn the_kernels_take_what_the_host_passes() {
    let program = program(QueueKind::Ticket).unwrap();
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

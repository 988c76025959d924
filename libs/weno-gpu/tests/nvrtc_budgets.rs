//! Every stdlib/weno kernel variant that matters for resources compiles with NVRTC (sm_90) within budget:
//! no spills anywhere; WENO9 (k = 5) kernels under 128 registers. Needs NVRTC, not a GPU: with
//! `SKC_REQUIRE_NVRTC=1` a missing NVRTC is a failure.

use skc_weno_gpu::build::build;
use skc_weno_gpu::variants::{benchmark_variants, default_variant, Precision, Variant};

/// The default variant of every order in both precisions, and every WENO9 benchmark variant.
fn variants() -> Vec<Variant> {
    let mut out: Vec<Variant> = Vec::new();
    for precision in [Precision::F64, Precision::F32] {
        for k in 2..=6 {
            out.push(default_variant(precision, k));
        }
    }
    for v in benchmark_variants().into_iter().filter(|v| v.k == 5) {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// Kernels allowed exactly 128 registers (not fewer): the momentum-like kernel (18 reconstructions) with
/// per-thread table reads from global memory or the select cascade, at WENO9 in float64.
fn allowed_128(v: &Variant, kernel: &str) -> bool {
    kernel == "momentum_tendency" && v.precision == Precision::F64 && v.strategy == 1 && (v.table == 2 || v.table == 3)
}

#[test]
fn weno_kernels_hold_their_register_and_spill_budgets() {
    if !skc_tests::require::nvrtc("the WENO register budgets") {
        return;
    }
    let list = variants();
    let results: Vec<(Variant, Result<skc_weno_gpu::build::Built, String>)> = std::thread::scope(|s| {
        let halves: Vec<Vec<Variant>> =
            vec![list.iter().step_by(2).cloned().collect(), list.iter().skip(1).step_by(2).cloned().collect()];
        let handles: Vec<_> = halves
            .into_iter()
            .map(|part| {
                s.spawn(move || {
                    part.into_iter()
                        .map(|v| {
                            let b = build(&v);
                            (v, b)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let mut failures = Vec::new();
    for (v, built) in &results {
        let built = match built {
            Ok(b) => b,
            Err(e) => {
                failures.push(format!("{}: {e}", v.name()));
                continue;
            }
        };
        assert!(built.resources.len() >= 5, "{}: expected five kernels", v.name());
        for r in &built.resources {
            eprintln!(
                "{:<28} {:<26} {:>3} registers, {} spill bytes",
                v.name(),
                r.kernel,
                r.registers,
                r.spill_stores + r.spill_loads
            );
            if r.spill_stores + r.spill_loads > 0 || r.stack > 0 {
                failures.push(format!("{} {}: spills ({} stack bytes)", v.name(), r.kernel, r.stack));
            }
            let limit = if allowed_128(v, &r.kernel) { 128 } else { 127 };
            if v.k == 5 && r.registers > limit {
                failures.push(format!("{} {}: {} registers", v.name(), r.kernel, r.registers));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn each_precision_is_the_whole_program() {
    // One source, `real` chosen by `-D real=...`: no kernel parameter of the other precision.
    for precision in [Precision::F64, Precision::F32] {
        let cuda = skc_weno_gpu::build::cuda_source(&default_variant(precision, 3)).expect("front end accepts");
        let wrong = if precision == Precision::F64 { "float " } else { "double " };
        assert!(!cuda.contains(&format!("const {wrong}")), "{precision:?}: mixed precision in the CUDA C");
    }
}

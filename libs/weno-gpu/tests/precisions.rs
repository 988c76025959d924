//! One source of stdlib/weno serves both precisions: a program that opens `Weno_advection` twice, as a float32
//! and a float64 instance, holds both sets of kernels under the instances' names, and each instance's CUDA C is
//! that of the program compiled for its precision alone (`-D real=...`, as skc-weno-gpu's variants are), the
//! instance's prefix aside. No NVRTC needed.

use skc_core::session::{DiskFiles, Session};
use skc_weno_gpu::build::cuda_source;
use skc_weno_gpu::variants::{default_variant, Precision};

const KERNELS: [&str; 5] = [
    "tracer_tendency",
    "tracer_tendency_boundary",
    "tracer_tendency_interior",
    "tracer_tendency_1d",
    "momentum_tendency",
];

#[test]
fn float32_and_float64_instances_side_by_side() {
    let files = DiskFiles::new();
    let session = Session::standard(&files);
    let text = "open Weno_advection (real = float32) as Weno32\nopen Weno_advection as Weno64\n";
    let compiled = session.compile("both.sk", text).expect("both precisions check");
    let cuda = &compiled.cuda.source;
    for kernel in KERNELS {
        for (prefix, element) in [("Weno32", "float"), ("Weno64", "double")] {
            let signature = format!("__global__ void {prefix}_{kernel}(const {element}* __restrict__ ");
            assert!(cuda.contains(&signature), "{signature}");
        }
    }
    // Each instance's code, its names without the prefix, is the code of its precision compiled alone.
    let body = |source: &str, prefix: Option<&str>| -> Vec<String> {
        let unprefixed = |l: &str| prefix.map_or(l.to_string(), |p| l.replace(&format!("{p}_"), ""));
        source.lines().filter(|l| !l.starts_with("#line") && !l.starts_with("//")).map(unprefixed).collect()
    };
    for (precision, prefix, other) in [(Precision::F32, "Weno32", "Weno64"), (Precision::F64, "Weno64", "Weno32")] {
        let alone = cuda_source(&default_variant(precision, 3)).expect("the variant compiles");
        let alone: Vec<String> = body(&alone, None).into_iter().filter(|l| !l.trim().is_empty()).collect();
        let instance: Vec<String> = body(cuda, Some(prefix))
            .into_iter()
            .filter(|l| !l.contains(&format!("{other}_")) && !l.trim().is_empty())
            .collect();
        for line in &alone {
            assert!(instance.contains(line), "{prefix}: `{line}` of the {precision:?} program is not in the instance");
        }
    }
}

//! GPU checks (feature `gpu-tests`): builds the variants with NVRTC into a temporary folder, then runs them
//! against the CPU reference. Fails (never skips) without NVRTC or a GPU.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use skc_weno_gpu::build::{build, write, Built};
use skc_weno_gpu::variants::{all_variants, Variant};

/// Builds every variant with one NVRTC compilation per core: the 90 variants take minutes one after another.
fn build_all(variants: &[Variant]) -> Vec<Result<Built, String>> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<Built, String>>>> = Mutex::new((0..variants.len()).map(|_| None).collect());
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(variants.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(variant) = variants.get(i) else { break };
                let built = build(variant);
                results.lock().unwrap()[i] = Some(built);
            });
        }
    });
    results.into_inner().unwrap().into_iter().map(|r| r.expect("every variant was built")).collect()
}

#[test]
fn every_variant_matches_the_cpu_reference_on_the_gpu() {
    let dir = std::env::temp_dir().join(format!("skc-weno-gpu-{}", std::process::id()));
    let variants = all_variants();
    for (variant, built) in variants.iter().zip(build_all(&variants)) {
        let built = built.expect("NVRTC builds the variant");
        write(&dir, variant, &built, false).unwrap();
    }
    let gpu = skc_weno_gpu::device::Gpu::new().expect("a CUDA GPU");
    let outcomes = skc_weno_gpu::check::check_all(&gpu, &dir).expect("GPU runs");
    assert_eq!(outcomes.len(), variants.len(), "one outcome per variant");
    let failed: Vec<&str> = outcomes.iter().filter(|o| !o.passed()).map(|o| o.name.as_str()).collect();
    assert!(failed.is_empty(), "mismatches: {failed:?}");
}

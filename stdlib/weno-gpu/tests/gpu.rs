//! GPU checks (feature `gpu-tests`): builds the variants with NVRTC into a temporary folder, then runs them
//! against the CPU reference. Fails (never skips) without NVRTC or a GPU.

#[test]
fn every_variant_matches_the_cpu_reference_on_the_gpu() {
    let dir = std::env::temp_dir().join(format!("skc-weno-gpu-{}", std::process::id()));
    for v in skc_weno_gpu::variants::all_variants() {
        let built = skc_weno_gpu::build::build(&v).expect("NVRTC builds the variant");
        skc_weno_gpu::build::write(&dir, &v, &built).unwrap();
    }
    let gpu = skc_weno_gpu::device::Gpu::new().expect("a CUDA GPU");
    let outcomes = skc_weno_gpu::check::check_all(&gpu, &dir).expect("GPU runs");
    let failed: Vec<&str> = outcomes.iter().filter(|o| !o.passed()).map(|o| o.name.as_str()).collect();
    assert!(failed.is_empty(), "mismatches: {failed:?}");
}

//! 3-D WENO advection on slabs over several GPUs against one GPU (`cargo test -p skc-weno-gpu --features
//! gpu-tests --test multigpu`): after several SSP-RK3 steps the tracer on 2 .. SKC_GPUS devices (default 2)
//! equals the one-GPU tracer bit for bit (every cell is computed by the same kernel from the same values), and
//! the tracer's total is conserved to round-off. Fails, never skips, with fewer devices than SKC_GPUS or without
//! NCCL (SKC_NCCL_PATH).

use skc_runtime::DeviceSet;
use skc_weno_gpu::slab::SlabAdvection;

fn gpus_asked() -> usize {
    std::env::var("SKC_GPUS").ok().and_then(|v| v.parse().ok()).unwrap_or(2)
}

fn devices(count: usize) -> DeviceSet {
    DeviceSet::first(count).unwrap_or_else(|e| panic!("the multi-GPU tests ask for {count} GPU(s) (SKC_GPUS): {e}"))
}

fn advect(count: usize, n: [usize; 3], steps: usize) -> Vec<f64> {
    let mut run = SlabAdvection::new(&devices(count), n, 3, 0.4).unwrap_or_else(|e| panic!("{count} GPU(s): {e}"));
    run.run(steps).unwrap_or_else(|e| panic!("{count} GPU(s): {e}"));
    run.download().unwrap()
}

#[test]
fn slabs_on_several_gpus_equal_one_gpu_bit_for_bit() {
    // Odd sizes; nz = 53 gives slabs of unequal thickness on 2 and 4 GPUs.
    let n = [40, 29, 53];
    let steps = 12;
    let initial = advect(1, n, 0);
    let one = advect(1, n, steps);
    let total = |v: &[f64]| v.iter().sum::<f64>();
    let drift = (total(&one) - total(&initial)).abs() / total(&initial).abs();
    assert!(drift < 1e-12, "the tracer's total drifted by {drift:e}");
    assert!(one.iter().zip(&initial).any(|(a, b)| a != b), "the tracer did not move");
    for count in 2..=gpus_asked() {
        let many = advect(count, n, steps);
        let differing = one.iter().zip(&many).filter(|(a, b)| a.to_bits() != b.to_bits()).count();
        let worst = one.iter().zip(&many).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        assert_eq!(differing, 0, "{count} GPUs: {differing} cells differ from one GPU (largest difference {worst:e})");
        eprintln!("{count} GPUs: {} cells equal to one GPU after {steps} steps", many.len());
    }
}

#[test]
fn slabs_thinner_than_two_halos_are_refused() {
    let count = gpus_asked();
    let error = SlabAdvection::new(&devices(count), [16, 16, 5 * count], 3, 0.4).err().expect("too thin");
    assert!(error.contains("needs at least 6"), "{error}");
}

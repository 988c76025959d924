//! Every example's kernels on a real GPU against the CPU, at sizes that are not multiples of the block
//! (`cargo test -p skc-examples --features gpu-tests`). Without a GPU every test fails with a message saying so.

use skc_examples::{
    histogram, matmul, reduce, scan, softmax, spmv, stencil, transpose, vector_add, warp_reduce, Outcome,
};
use skc_runtime::{Context, Result, RuntimeError};

fn gpu() -> Context {
    Context::new(0).unwrap_or_else(|e| {
        panic!(
            "the gpu-tests need a CUDA GPU and its driver, and this machine has none usable: {e}. \
             Run them on a GPU machine (scripts/gpu.sh), or run `cargo test` without `--features gpu-tests`."
        )
    })
}

fn assert_passes(outcomes: impl IntoIterator<Item = Result<Outcome>>) {
    for outcome in outcomes {
        let outcome = outcome.unwrap_or_else(|e| panic!("{e}"));
        println!("{outcome}");
        assert!(outcome.passed(), "{outcome}");
    }
}

#[test]
fn vector_add_matches_the_cpu() {
    let ctx = gpu();
    assert_passes([1, 1000, 1 << 20, (1 << 20) + 7].map(|n| vector_add::check(&ctx, n)));
}

#[test]
fn seed_tree_reduction_matches_the_cpu() {
    let ctx = gpu();
    assert_passes([1, 255, 256, 100_003, 1 << 22].map(|n| reduce::check(&ctx, n)));
}

#[test]
fn warp_shuffle_reduction_matches_the_cpu() {
    let ctx = gpu();
    assert_passes([1, 31, 1000, 1 << 20, (1 << 24) + 3].map(|n| warp_reduce::check(&ctx, n)));
}

#[test]
fn generic_block_sum_at_int32_matches_the_cpu() {
    let ctx = gpu();
    assert_passes([1, 31, 1000, 1 << 20, (1 << 24) + 3].map(|n| warp_reduce::check_int32(&ctx, n)));
}

#[test]
fn hillis_steele_scan_matches_the_cpu() {
    let ctx = gpu();
    assert_passes([1, 1023, 1024, 1025, 100_000, 1 << 20].map(|n| scan::check(&ctx, n)));
}

#[test]
fn histogram_matches_the_cpu() {
    let ctx = gpu();
    assert_passes([1, 1000, 1 << 20, 10_000_019].map(|n| histogram::check(&ctx, n)));
}

#[test]
fn transpose_matches_the_cpu() {
    let ctx = gpu();
    assert_passes([(1, 1), (32, 32), (1000, 777), (33, 1025), (2048, 2048)].map(|(w, h)| transpose::check(&ctx, w, h)));
}

#[test]
fn matmul_matches_the_cpu() {
    let ctx = gpu();
    assert_passes([128, 256, 512].map(|n| matmul::check(&ctx, n)));
    assert!(matmul::check(&ctx, 100).is_err(), "n must be a multiple of the tile");
}

#[test]
fn softmax_matches_the_cpu() {
    let ctx = gpu();
    assert_passes([(1, 32), (1000, 128), (4096, 256), (100_000, 1024)].map(|(c, b)| softmax::check(&ctx, c, b)));
}

/// Blocks that are not whole warps break the kernel's launch contract: the runtime refuses them, naming the
/// kernel and the attribute, instead of running shuffles that read lanes that do not exist.
#[test]
fn softmax_refuses_blocks_of_partial_warps() {
    let ctx = gpu();
    for block in [100, 200, 1000] {
        match softmax::check(&ctx, 1000, block) {
            Err(RuntimeError::LaunchContract { kernel, contract, .. }) => {
                assert_eq!((kernel.as_str(), contract.as_str()), ("softmax", "[@block_multiple 32]"))
            }
            other => panic!("block {block}: expected a contract error, got {other:?}"),
        }
    }
}

#[test]
fn stencil_matches_the_cpu() {
    let ctx = gpu();
    assert_passes([(1, 1), (1000, 777), (33, 1025), (4096, 4096)].map(|(w, h)| stencil::check(&ctx, w, h)));
}

#[test]
fn spmv_matches_the_cpu() {
    let ctx = gpu();
    assert_passes([(1, 32), (1000, 128), (100_003, 256), (1 << 20, 256)].map(|(r, b)| spmv::check(&ctx, r, b)));
    assert!(matches!(spmv::check(&ctx, 1000, 100), Err(RuntimeError::LaunchContract { .. })));
}

/// float16 and bfloat16 axpy and a float16 dot product summed in float32, bit for bit against the CPU (which
/// computes through skc_core::half_float, as the interpreter does), NaN, infinities, zeros and subnormals included.
#[test]
fn half_precision_matches_the_cpu_bit_for_bit() {
    let ctx = gpu();
    for n in [1, 10, 1000, (1 << 20) + 3] {
        assert_passes(
            skc_examples::half_precision::check(&ctx, n).unwrap_or_else(|e| panic!("{e}")).into_iter().map(Ok),
        );
    }
}

//! `skc run --interp` semantics on every example kernel without a GPU: each example's launches, as its host code
//! makes them, against a CPU reference, at sizes that are and are not multiples of the block (the GPU tests'
//! smaller sizes; `cargo run --release -p skc-interp --example run_examples` runs all of them, timed).

#[path = "support/examples.rs"]
mod examples;

use skc_interp::{Options, Schedule};

fn check(example: &'static str, sizes: &[(usize, usize)]) {
    for schedule in [Schedule::InOrder, Schedule::Reversed, Schedule::Random(7)] {
        let options = Options { schedule, ..Options::default() };
        for &size in sizes {
            let run = examples::run(example, size, &options);
            assert!(
                run.passed(),
                "{example} {} ({schedule}): error {} (tolerance {}), reports {:?}",
                run.size,
                run.error,
                run.tolerance,
                run.reports
            );
        }
    }
}

#[test]
fn vector_add() {
    check("vector_add", &[(1, 0), (1000, 0), (100_007, 0)]);
}

#[test]
fn reduce() {
    check("reduce", &[(1, 0), (255, 0), (256, 0), (100_003, 0)]);
}

#[test]
fn warp_reduce() {
    check("warp_reduce", &[(1, 0), (31, 0), (1000, 0), (300_001, 0)]);
}

#[test]
fn scan() {
    check("scan", &[(1, 0), (1023, 0), (1024, 0), (1025, 0), (100_000, 0)]);
}

#[test]
fn histogram() {
    check("histogram", &[(1, 0), (1000, 0), (100_003, 0)]);
}

#[test]
fn transpose() {
    check("transpose", &[(1, 1), (32, 32), (100, 77), (33, 1025)]);
}

#[test]
fn matmul() {
    check("matmul", &[(128, 0), (256, 0)]);
}

#[test]
fn softmax() {
    check("softmax", &[(1, 32), (100, 64), (1000, 128), (33, 1024)]);
}

/// Blocks that are not whole warps are refused by the kernel's contract before any thread runs (R0013), never
/// computed with shuffles from lanes that do not exist.
#[test]
fn softmax_refuses_partial_warps() {
    for block in [100, 200, 1000] {
        let run = examples::run("softmax", (1000, block), &skc_interp::Options::default());
        assert!(!run.reports.is_empty(), "block {block}: refused");
        assert!(run.reports.iter().all(|r| r.starts_with("R0013: ")), "block {block}: {:?}", run.reports);
        assert_eq!(run.threads, 0, "block {block}: no thread ran");
    }
}

#[test]
fn stencil() {
    check("stencil", &[(1, 1), (32, 8), (100, 77), (33, 200)]);
}

#[test]
fn spmv() {
    check("spmv", &[(1, 32), (100, 64), (1000, 128), (3001, 256)]);
}

//! The queue-alone benchmark on a real GPU (`cargo test -p skc-sched --features gpu-tests --test queue_gpu`):
//! small runs of both kernels (warp-level and lane-level operations), with every element id counted: each enqueued element, the pre-fill included, dequeued exactly once or still in the queue. Also the
//! configuration errors. Without a GPU every test fails with a message saying so.

use skc_bench::queue::{Level, QueueBench};
use skc_runtime::Context;
use skc_sched::SchedError;

fn gpu() -> Context {
    Context::new(0).unwrap_or_else(|e| {
        panic!(
            "the gpu-tests need a CUDA GPU and its driver, and this machine has none usable: {e}. Run them on a GPU \
             machine, or run `cargo test` without `--features gpu-tests`."
        )
    })
}

#[test]
fn the_queue_conserves_every_element() {
    let ctx = gpu();
    let bench = QueueBench::new(&ctx, 1 << 16, 1 << 20).unwrap_or_else(|e| panic!("{e}"));
    for level in [Level::Warp, Level::Lane] {
        // Pre-filled and empty queues; more threads than the pre-fill, so dequeues also wait for enqueues.
        for (threads, rounds, prefill) in [(4096, 16, 4096), (8192, 8, 0), (256, 64, 32)] {
            let run = bench
                .run(level, threads, rounds, prefill, true)
                .unwrap_or_else(|e| panic!("{level:?} {threads} threads: {e}"));
            assert_eq!(run.element_ops, 2 * threads as u64 * rounds as u64);
            assert!(run.seconds > 0.0, "timed by events");
            if level == Level::Warp {
                // One enqueue per warp and round, and at least one dequeue batch per warp and round.
                assert!(run.queue_ops >= 2 * (threads / 32) as u64 * rounds as u64, "{run:?}");
            }
            eprintln!("{level:?} {threads} threads x {rounds}: {:.3e} element ops/s", run.element_rate());
        }
    }
}

#[test]
fn sizes_that_cannot_work_are_errors() {
    let ctx = gpu();
    let bench = QueueBench::new(&ctx, 1 << 12, 1 << 12).unwrap_or_else(|e| panic!("{e}"));
    for (threads, rounds, prefill, exact) in [(100, 1, 0, false), (4096, 1, 1, false), (256, 100, 0, true)] {
        match bench.run(Level::Warp, threads, rounds, prefill, exact) {
            Err(SchedError::Config { kernel, .. }) => assert_eq!(kernel, "qb_warp/qb_lane"),
            other => panic!("{threads} threads, {rounds} rounds, pre-fill {prefill}: {other:?}"),
        }
    }
    assert!(matches!(QueueBench::new(&ctx, 1000, 0), Err(SchedError::Config { .. })));
}

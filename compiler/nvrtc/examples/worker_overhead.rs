//! What running NVRTC in a worker process costs per compilation: compiles the same small kernel in this process
//! and in a fresh worker (as `skc build` and `Runner::from_env` do on a cache miss), alternating, and prints the
//! median wall time of each and their difference.
//!
//! `cargo run --release -p skc-nvrtc --example worker_overhead [ROUNDS]` (builds the worker binary first with
//! `cargo build --release -p skc-nvrtc --bin skc-nvrtc-worker`).

use std::time::{Duration, Instant};

use skc_nvrtc::{CompileOptions, Isolation, LibrarySearch, Runner, WorkerCommand, WORKER_BINARY};

const KERNEL: &str = r#"extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}"#;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(20);
    let exe = std::env::current_exe().expect("current executable");
    // target/release/examples/worker_overhead -> target/release/skc-nvrtc-worker
    let worker = exe.parent().and_then(|d| d.parent()).map(|d| d.join(WORKER_BINARY)).expect("target folder");
    assert!(worker.is_file(), "build the worker first: cargo build --release -p skc-nvrtc --bin {WORKER_BINARY}");
    let in_process = Runner::in_process(LibrarySearch::from_env());
    let isolated =
        Runner { search: LibrarySearch::from_env(), isolation: Isolation::Worker(WorkerCommand::new(worker)) };
    let options = CompileOptions::default();
    // Loads NVRTC in this process once, outside the timings (a worker loads it on every start: part of its cost).
    in_process.compile(KERNEL, "saxpy.cu", &options).expect("compiles");
    let (mut here, mut there) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let started = Instant::now();
        in_process.compile(KERNEL, "saxpy.cu", &options).expect("compiles");
        here.push(started.elapsed());
        let started = Instant::now();
        isolated.compile(KERNEL, "saxpy.cu", &options).expect("compiles");
        there.push(started.elapsed());
    }
    let (here, there) = (median(here), median(there));
    println!(
        "median of {rounds}: in process {here:.1?}, in a fresh worker {there:.1?}, overhead {:.1?}",
        there.saturating_sub(here)
    );
}

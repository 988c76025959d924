//! The device queue alone against the Broker Queue's published 2.7e9 ops/s (stdlib/sched/queue_bench.sk): for
//! each granularity (warp-level operations of 32 elements, lane-level operations of one) and each thread count, every thread alternates an enqueue and a dequeue for R rounds on a
//! queue pre-filled with one element per thread. Each configuration runs once small with every id counted, then
//! `--repeats` times for about `--ms` milliseconds each (R calibrated by a short run); every run is checked for
//! conservation (an element lost or duplicated stops the benchmark with an error). Prints the median run.
//!
//! `queue-bench [--threads 1024,4096,...] [--ms 30] [--repeats 3] [--capacity 1048576] [--max-run-s 10]`
//! A row whose rounds are predicted (from the previous row, contention growing with the square of the threads)
//! to make its exact run longer than `--max-run-s` runs 1 round exactly and one timed run, so that a collapsing
//! queue is reported, not waited out.
//! queue_bench.sk is this crate's (`kernels/`); the sched.sk it opens is the standard library's.

use skc_bench::queue::{Level, QueueBench, QueueRun, BROKER_QUEUE_OPS};
use skc_runtime::Context;
use skc_sched::Result;

/// Rounds of the exact run of each row.
const VERIFY_ROUNDS: u32 = 4;

struct Options {
    threads: Vec<u32>,
    /// A run predicted to take longer than this is shortened (fewer rounds, one repeat).
    max_run_s: f64,
    ms: f64,
    repeats: usize,
    capacity: usize,
}

fn parse() -> std::result::Result<Options, String> {
    let mut o = Options {
        threads: vec![1024, 4096, 16384, 65536, 262144],
        max_run_s: 10.0,
        ms: 30.0,
        repeats: 3,
        capacity: 1 << 20,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let value = pair.get(1).ok_or(format!("{} needs a value", pair[0]))?;
        let bad = || format!("bad value `{value}` for {}", pair[0]);
        match pair[0].as_str() {
            "--threads" => {
                o.threads =
                    value.split(',').map(|t| t.parse().map_err(|_| bad())).collect::<std::result::Result<_, _>>()?
            }
            "--max-run-s" => o.max_run_s = value.parse().map_err(|_| bad())?,
            "--ms" => o.ms = value.parse().map_err(|_| bad())?,
            "--repeats" => o.repeats = value.parse().map_err(|_| bad())?,
            "--capacity" => o.capacity = value.parse().map_err(|_| bad())?,
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(o)
}

fn main() {
    let options = parse().unwrap_or_else(|e| {
        eprintln!("queue-bench: {e}\nusage: queue-bench [--threads 1024,4096] [--ms 30] [--repeats 3] [--capacity N] [--max-run-s 10]");
        std::process::exit(2)
    });
    let ctx = Context::new(0).unwrap_or_else(|e| {
        eprintln!("queue-bench needs a CUDA GPU: {e}");
        std::process::exit(2)
    });
    if let Err(e) = sweep(&ctx, &options) {
        eprintln!("queue-bench: {e}");
        std::process::exit(1);
    }
}

fn sweep(ctx: &Context, o: &Options) -> Result<()> {
    let max_threads = o.threads.iter().copied().max().unwrap_or(0) as usize;
    let max_ids = max_threads * (VERIFY_ROUNDS as usize + 1);
    let mut rows = Vec::new();
    println!("{}", header());
    let bench = QueueBench::new(ctx, o.capacity, max_ids)?;
    for level in [Level::Warp, Level::Lane] {
        // (threads, seconds per round) of the last row: predicts the next one (contention grows at worst with
        // the square of the threads), so that a collapsing run is run short, not hung.
        let mut last: Option<(u32, f64)> = None;
        for &threads in &o.threads {
            let (median, runs) = measure(&bench, level, threads, last, o)?;
            last = Some((threads, median.seconds / median.rounds as f64));
            let row = row(&median, &runs);
            println!("{row}");
            rows.push(row);
        }
    }
    println!("\nall runs conserved every element (ids counted exactly in a run of {VERIFY_ROUNDS} rounds, or 1 where rounds are slow, per row, checksums in the timed runs)");
    println!("\n{}", header());
    for r in &rows {
        println!("{r}");
    }
    Ok(())
}

/// One row: an exact run of `VERIFY_ROUNDS` rounds (1 when the prediction says that rounds take long), then
/// `repeats` checksum-checked runs of about `ms` milliseconds (one run when a round alone takes a good part of
/// `max_run_s`). Returns the median run and every timed run, sorted.
fn measure(
    bench: &QueueBench,
    level: Level,
    threads: u32,
    last: Option<(u32, f64)>,
    o: &Options,
) -> Result<(QueueRun, Vec<QueueRun>)> {
    let predicted = last.map_or(0.0, |(t, per_round)| per_round * (threads as f64 / t as f64).powi(2));
    let slow = predicted * VERIFY_ROUNDS as f64 > o.max_run_s;
    let verify = bench.run(level, threads, if slow { 1 } else { VERIFY_ROUNDS }, threads, true)?;
    let mut per_round = verify.seconds / verify.rounds as f64;
    if per_round * 8.0 < o.max_run_s / 10.0 {
        // A longer probe: a few rounds are dominated by the launch.
        let probe = bench.run(level, threads, 8, threads, false)?;
        per_round = probe.seconds / 8.0;
    }
    let limit = ((1u64 << 30) / threads as u64).saturating_sub(2).max(1) as f64;
    let rounds = (o.ms * 1e-3 / per_round).clamp(1.0, limit) as u32;
    let repeats = if per_round * rounds as f64 > o.max_run_s / 4.0 { 1 } else { o.repeats.max(1) };
    let mut runs =
        (0..repeats).map(|_| bench.run(level, threads, rounds, threads, false)).collect::<Result<Vec<QueueRun>>>()?;
    runs.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
    Ok((runs[runs.len() / 2].clone(), runs))
}

fn header() -> String {
    format!(
        "| {:<4} | {:>7} | {:>6} | {:>8} | {:>13} | {:>15} | {:>9} | {:>9} | {:>10} |\n|{}|",
        "ops",
        "threads",
        "rounds",
        "ms",
        "element ops/s",
        "queue ops/s",
        "elem/2.7e9",
        "ops/2.7e9",
        "ms min-max",
        [
            "------",
            "---------",
            "--------",
            "----------",
            "---------------",
            "-----------------",
            "-----------",
            "-----------",
            "------------"
        ]
        .join("|")
    )
}

fn row(r: &QueueRun, runs: &[QueueRun]) -> String {
    let level = match r.level {
        Level::Warp => "warp",
        Level::Lane => "lane",
    };
    let (lo, hi) = (runs[0].seconds * 1e3, runs[runs.len() - 1].seconds * 1e3);
    format!(
        "| {:<4} | {:>7} | {:>6} | {:>8.2} | {:>13.3e} | {:>15.3e} | {:>9.2}x | {:>8.3}x | {:>4.1}-{:<5.1} |",
        level,
        r.threads,
        r.rounds,
        r.seconds * 1e3,
        r.element_rate(),
        r.op_rate(),
        r.element_rate() / BROKER_QUEUE_OPS,
        r.op_rate() / BROKER_QUEUE_OPS,
        lo,
        hi
    )
}

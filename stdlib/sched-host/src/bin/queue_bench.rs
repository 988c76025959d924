//! The device queue alone against the Broker Queue's published 2.7e9 ops/s (stdlib/sched/queue_bench.sk): for
//! each queue variant (ticket, the seed's CAS), each granularity (warp-level operations of 32 elements, lane-level
//! operations of one) and each thread count, every thread alternates an enqueue and a dequeue for R rounds on a
//! queue pre-filled with one element per thread. Each configuration runs once small with every id counted, then
//! `--repeats` times for about `--ms` milliseconds each (R calibrated by a short run); every run is checked for
//! conservation (an element lost or duplicated stops the benchmark with an error). Prints the median run.
//!
//! `queue-bench [--threads 1024,4096,...] [--ms 30] [--repeats 3] [--capacity 1048576]`
//! Environment: `SKC_QUEUE_BENCH_SK` (queue_bench.sk, with sched.sk next to it, when not in the source tree).

use skc_runtime::Context;
use skc_sched::queue_bench::{Level, QueueBench, QueueRun, BROKER_QUEUE_OPS};
use skc_sched::{QueueKind, Result};

struct Options {
    threads: Vec<u32>,
    ms: f64,
    repeats: usize,
    capacity: usize,
}

fn parse() -> std::result::Result<Options, String> {
    let mut o = Options { threads: vec![1024, 4096, 16384, 65536, 262144], ms: 30.0, repeats: 3, capacity: 1 << 20 };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let value = pair.get(1).ok_or(format!("{} needs a value", pair[0]))?;
        let bad = || format!("bad value `{value}` for {}", pair[0]);
        match pair[0].as_str() {
            "--threads" => {
                o.threads =
                    value.split(',').map(|t| t.parse().map_err(|_| bad())).collect::<std::result::Result<_, _>>()?
            }
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
        eprintln!("queue-bench: {e}\nusage: queue-bench [--threads 1024,4096] [--ms 30] [--repeats 3] [--capacity N]");
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
    let verify_rounds = 4u32;
    let max_ids = max_threads * (verify_rounds as usize + 1);
    let mut rows = Vec::new();
    println!("{}", header());
    for queue in [QueueKind::Ticket, QueueKind::Cas] {
        let bench = QueueBench::new(ctx, queue, o.capacity, max_ids)?;
        for level in [Level::Warp, Level::Lane] {
            for &threads in &o.threads {
                bench.run(level, threads, verify_rounds, threads, true)?;
                let rounds = calibrate(&bench, level, threads, o.ms)?;
                let mut runs = (0..o.repeats.max(1))
                    .map(|_| bench.run(level, threads, rounds, threads, false))
                    .collect::<Result<Vec<QueueRun>>>()?;
                runs.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
                let median = runs[runs.len() / 2].clone();
                let row = row(&median, &runs);
                println!("{row}");
                rows.push(row);
            }
        }
    }
    println!("\nall runs conserved every element (ids counted exactly in a {verify_rounds}-round run per row, checksums in the timed runs)");
    println!("\n{}", header());
    for r in &rows {
        println!("{r}");
    }
    Ok(())
}

/// Rounds for a run of about `ms` milliseconds, from a short run (at least 8 rounds, ids below 2^30).
fn calibrate(bench: &QueueBench, level: Level, threads: u32, ms: f64) -> Result<u32> {
    let probe = 8u32;
    let run = bench.run(level, threads, probe, threads, false)?;
    let per_round = run.seconds / probe as f64;
    let limit = ((1u64 << 30) / threads as u64).saturating_sub(2).max(probe as u64) as f64;
    Ok((ms * 1e-3 / per_round).clamp(probe as f64, limit) as u32)
}

fn header() -> String {
    format!(
        "| {:<6} | {:<4} | {:>7} | {:>6} | {:>8} | {:>13} | {:>15} | {:>9} | {:>9} | {:>10} |\n|{}|",
        "queue",
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
            "--------",
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
    let queue = match r.queue {
        QueueKind::Ticket => "ticket",
        QueueKind::Cas => "cas",
    };
    let level = match r.level {
        Level::Warp => "warp",
        Level::Lane => "lane",
    };
    let (lo, hi) = (runs[0].seconds * 1e3, runs[runs.len() - 1].seconds * 1e3);
    format!(
        "| {:<6} | {:<4} | {:>7} | {:>6} | {:>8.2} | {:>13.3e} | {:>15.3e} | {:>9.2}x | {:>8.3}x | {:>4.1}-{:<5.1} |",
        queue,
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

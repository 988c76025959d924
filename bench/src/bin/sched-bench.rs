//! The scheduler's benchmark and short checks, for the GPU machine (no Rust toolchain there: copied as a binary).
//!
//! `sched-bench bench [SECTIONS]`  every measurement of docs/performance.md's scheduler section, with baselines
//!                      measured in the same run (plain launches, a CUDA graph, a stream of kernels, the host <-> GPU
//!                      ping-pong); SECTIONS (comma-separated, default all): inject, latency, devgen, compute,
//!                      children (the launch baselines always run);
//! `sched-bench pingpong`  the round trip's physical floor alone;
//! `sched-bench smoke`  a short mixed run (empty, compute, spawn, child tasks from 2 producers) whose counts and
//!                      completions are checked: what compute-sanitizer runs;
//! `--quick` anywhere on the command line: smaller sizes. sched.sk is read from the standard library.

use std::time::{Duration, Instant};

use skc_bench::sched::{
    lone_round_trips, percentile, pingpong, run_producers, trace_lines, traced_tasks, Baseline, PINGPONG_COSTS,
};
use skc_runtime::Context;
use skc_sched::{Config, Result, Scheduler, Task};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--quick").collect();
    let mode = args.first().cloned().unwrap_or_else(|| "bench".into());
    let ctx = Context::new(0).unwrap_or_else(|e| {
        eprintln!("sched-bench needs a CUDA GPU: {e}");
        std::process::exit(2)
    });
    let outcome = match mode.as_str() {
        "bench" => bench(&ctx, args.get(1).map_or(SECTIONS, String::as_str)),
        "pingpong" => floor(&ctx),
        "smoke" => smoke(&ctx),
        other => {
            eprintln!("usage: sched-bench [bench [SECTIONS]|pingpong|smoke] [--quick] (got `{other}`)");
            std::process::exit(2)
        }
    };
    if let Err(e) = outcome {
        eprintln!("sched-bench {mode}: {e}");
        std::process::exit(1);
    }
}

fn quick() -> bool {
    std::env::args().any(|a| a == "--quick")
}

/// A mixed run whose every task id must execute exactly once.
fn smoke(ctx: &Context) -> Result<()> {
    let config = Config { rings: 2, count_ids: 1 << 16, reserve_sms: 8, child_cap: 64, ..Config::default() };
    let mut sched = Scheduler::start(ctx, config)?;
    let mut next = 0i64;
    let mut lists = vec![Vec::new(), Vec::new()];
    for i in 0..400 {
        let task = match i % 4 {
            0 => Task::empty(next),
            1 => Task::compute(next, 200),
            2 => Task::spawn(next, 40, 50),
            _ => Task::child(next, 3, 100),
        };
        next += task.ids();
        lists[i % 2].push(task);
    }
    let seconds = run_producers(&mut sched, lists, 16)?;
    let finished = sched.stop()?;
    let wrong: Vec<usize> = (0..next as usize).filter(|&i| finished.counts[i] != 1).collect();
    let extra = finished.counts[next as usize..].iter().filter(|&&c| c != 0).count();
    println!("smoke: {next} ids in {:.1} ms, stats {:?}", seconds * 1e3, finished.stats);
    if !wrong.is_empty() || extra != 0 || finished.stats.left_reserved != 0 {
        eprintln!(
            "smoke FAILED: {} ids not executed exactly once (first {:?}), {extra} stray",
            wrong.len(),
            &wrong[..wrong.len().min(8)]
        );
        std::process::exit(1);
    }
    println!("smoke: every id executed exactly once");
    Ok(())
}

const SECTIONS: &str = "inject,latency,devgen,compute,children";

fn bench(ctx: &Context, sections: &str) -> Result<()> {
    let on = |name: &str| sections.split(',').any(|s| s == name);
    println!("device: {} ({} SMs)", ctx.device().name, ctx.device().multiprocessors);
    let probe = Scheduler::start(ctx, Config::default())?;
    println!(
        "scheduler: grid {} blocks of {} threads (one scheduler warp each), cooperative launch: {}",
        probe.grid,
        probe.block,
        probe.cooperative()
    );
    probe.stop()?;
    let base = Baseline::new(ctx)?;
    let (graph_rate, plain_rate) = launch_baselines(&base)?;
    if on("inject") {
        host_injected(ctx, graph_rate, plain_rate)?;
    }
    if on("latency") {
        floor(ctx)?;
        latency(ctx)?;
    }
    if on("devgen") {
        device_generated(ctx)?;
    }
    if on("compute") {
        compute_tasks(ctx, &base)?;
    }
    if on("children") {
        let d = Config::default();
        let variants = [("fast path", d.clone()), ("no fast path", Config { fast_path: false, ..d })];
        for (label, config) in variants {
            children(ctx, label, config)?;
        }
    }
    Ok(())
}

/// The round trip's physical floor: a one-lane kernel answers the host's ping through pinned mapped memory,
/// with each load and store flavour, and the costs of single PCIe reads and system-scope writes.
fn floor(ctx: &Context) -> Result<()> {
    let n = if quick() { 5_000 } else { 20_000 };
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    for mode in [0i32, 1, 2, 4, 6, 8, 14] {
        let load = if mode & 1 == 1 { "ld.relaxed.sys" } else { "ld.acquire.sys" };
        let store = match mode & 6 {
            0 => "st.release.sys",
            2 => "fence.release.sys + st.relaxed.sys",
            4 => "fence.sc.sys + st.relaxed.sys",
            _ => "st.relaxed.sys alone",
        };
        let noise = if mode & 8 == 8 { ", with a polling warp next to it" } else { "" };
        let p = pingpong(ctx, mode, n, 2_000)?;
        println!(
            "ping-pong floor ({load}, reply {store}{noise}): host round trip p50 {:.2} us, p99 {:.2} us, max {:.2} \
             us over {n}; device: ping to ping p50 {:.2} us, reply written in p50 {:.3} us",
            us(percentile(&p.round_trips, 0.5)),
            us(percentile(&p.round_trips, 0.99)),
            us(*p.round_trips.last().unwrap()),
            us(percentile(&p.device_round_trips, 0.5)),
            us(percentile(&p.reply, 0.5)),
        );
        if mode == 0 || mode == 8 {
            for (name, ns) in PINGPONG_COSTS.iter().zip(p.costs) {
                println!("  single operation{noise}, mean of 2000: {name}: {:.3} us", ns as f64 * 1e-3);
            }
        }
    }
    Ok(())
}

/// Empty kernels per second: plain launches and a CUDA graph of 1000 launches replayed.
fn launch_baselines(base: &Baseline) -> Result<(f64, f64)> {
    let n = if quick() { 20_000 } else { 100_000 };
    let plain = n as f64 / base.plain_launches(n, None)?;
    let replays = n / 1000;
    let graph = (replays * 1000) as f64 / base.graph(1000, replays, None)?;
    println!("baseline: plain launches {plain:.3e} kernels/s, CUDA graph (1000 kernels) {graph:.3e} kernels/s");
    Ok((graph, plain))
}

/// Host-injected empty tasks per second with 1 and 4 producer threads, with the fast path (the default) and
/// without it (the mailbox's worker then polls the queue like any other).
fn host_injected(ctx: &Context, graph_rate: f64, plain_rate: f64) -> Result<()> {
    let per_producer: usize = if quick() { 1 << 20 } else { 1 << 22 };
    let d = Config::default();
    let configs = [
        ("fast path", d.clone()),
        ("no fast path", Config { fast_path: false, ..d.clone() }),
        ("fast path, sleeping polls", Config { spin_ns: 0, fast_poll_ns: 1000, poll_idle_ns: 8192, ..d }),
    ];
    let mut variants = Vec::new();
    for rings in [1usize, 4] {
        for batch in [32usize, 256] {
            variants.extend(configs.iter().map(|(label, c)| (rings, batch, *label, c.clone())));
        }
    }
    for (rings, batch, label, config) in variants {
        let config = Config { rings, ring_capacity: 1 << 14, ..config };
        let mut sched = Scheduler::start(ctx, config)?;
        let lists = (0..rings)
            .map(|r| (0..per_producer).map(|i| Task::empty((r * per_producer + i) as i64)).collect())
            .collect();
        let seconds = run_producers(&mut sched, lists, batch)?;
        sched.stop()?;
        let rate = (rings * per_producer) as f64 / seconds;
        println!(
            "host-injected empty tasks: {rings} producer(s), batches of {batch}, {label}: {rate:.3e} tasks/s = {:.1}x \
             the CUDA graph, {:.1}x plain launches (target >= 10x the graph)",
            rate / graph_rate,
            rate / plain_rate
        );
    }
    Ok(())
}

/// Host enqueue to completion seen by the host, one task at a time; with the scheduler warps' idle sleep capped
/// at 256 ns (the default) and 0 (spinning), with the fast path (the default) and without it (every task through
/// the device queue), and once with the queue history recorded (queue path), to split the device's part: enqueue
/// by the scheduler warp, and from there until a worker has the task.
fn latency(ctx: &Context) -> Result<()> {
    let d = Config::default();
    let variants = [
        ("default: fast path, spinning, quiet window", d.clone()),
        ("no quiet window", Config { quiet_ns: 0, ..d.clone() }),
        ("sleeping polls", Config { spin_ns: 0, ..d.clone() }),
        ("queue path only", Config { fast_path: false, ..d.clone() }),
        ("device timestamps on", Config { fast_timing: true, ..d.clone() }),
        ("device timestamps on, no quiet window", Config { fast_timing: true, quiet_ns: 0, ..d.clone() }),
        ("queue path only, history recorded", Config { fast_path: false, history: 1, ..d.clone() }),
    ];
    for (label, config) in variants {
        let n = if quick() { 2_000 } else { 20_000 };
        let history = if config.history > 0 { 4 * n } else { 0 };
        let config = Config { history, trace_positions: n + 200, ..config };
        let mut sched = Scheduler::start(ctx, config)?;
        let (mut samples, _) = lone_round_trips(&mut sched, n, 200)?;
        let finished = sched.stop()?;
        if !finished.trace.is_empty() {
            for line in trace_lines(label, &traced_tasks(&finished.trace, &samples, 200)) {
                println!("  {line}");
            }
        }
        samples.sort();
        let us = |d: Duration| d.as_secs_f64() * 1e6;
        println!(
            "round trip (submit -> completion visible), {label}: p50 {:.2} us, \
             p99 {:.2} us, max {:.2} us over {n} (targets p50 < 3 us, p99 < 10 us; {} of {} tasks took the fast path)",
            us(percentile(&samples, 0.5)),
            us(percentile(&samples, 0.99)),
            us(*samples.last().unwrap()),
            finished.stats.fast_path,
            finished.stats.executed
        );
        if history > 0 {
            let mut enq = std::collections::HashMap::new();
            let (mut enqueue, mut to_worker) = (Vec::new(), Vec::new());
            for r in finished.history.iter().filter(|r| r.op == 0) {
                enq.insert(r.value, *r);
                enqueue.push(Duration::from_nanos(r.t1 - r.t0));
            }
            for r in finished.history.iter().filter(|r| r.op == 1) {
                if let Some(e) = enq.get(&r.value) {
                    to_worker.push(Duration::from_nanos(r.t1.saturating_sub(e.t1)));
                }
            }
            enqueue.sort();
            to_worker.sort();
            println!(
                "  device part (median): enqueue by the scheduler warp {:.2} us, enqueued -> in a worker's hands {:.2} us; \
                 the rest of the round trip is the PCIe reads of tail and slot, the completion write and the host",
                us(percentile(&enqueue, 0.5)),
                us(percentile(&to_worker, 0.5))
            );
        }
    }
    Ok(())
}

/// Empty tasks generated on the device against the number of producer warps, with the fast path (the default)
/// and without it.
fn device_generated(ctx: &Context) -> Result<()> {
    let cap: i64 = if quick() { 1 << 24 } else { 1 << 27 };
    let variants: [(&str, Config, &[usize]); 2] = [
        ("fast path", Config::default(), &[1, 8, 32, 128, 256]),
        ("no fast path", Config { fast_path: false, ..Config::default() }, &[1, 8]),
    ];
    for (label, config, counts) in variants {
        for &producers in counts {
            let config = Config { queue_capacity: 1 << 20, ..config.clone() };
            let mut sched = Scheduler::start(ctx, config)?;
            // Warm up: the kernel is running and idle before the clock starts.
            let mut p = sched.producers().pop().expect("one ring");
            let t = p.submit(Task::empty(0))?;
            p.wait(t)?;
            // About 2M tasks per producer warp (up to 2^27 in all), so that one warp alone takes a fraction of a second.
            let total = cap.min(producers as i64 * (1 << 21));
            let per = (total / producers as i64) as i32;
            let tasks: Vec<Task> =
                (0..producers).map(|k| Task::spawn(1 + k as i64 * (per as i64 + 1), per, 0)).collect();
            let begin = Instant::now();
            p.submit_batch(&tasks)?;
            p.wait_all()?;
            drop(p);
            let finished = sched.stop()?;
            let seconds = begin.elapsed().as_secs_f64();
            let generated = per as f64 * producers as f64;
            println!(
                "device-generated empty tasks, {label}, {producers} producer warps: {:.3e} tasks/s \
                 ({generated:.0} tasks in {:.1} ms, {} run inline because the queue was full, {} spawn task(s) \
                 through the mailbox; Broker Queue published 2.7e9 ops/s)",
                generated / seconds,
                seconds * 1e3,
                finished.stats.spawn_inline,
                finished.stats.fast_path
            );
        }
    }
    Ok(())
}

/// Compute tasks of about 1, 10 and 50 us: a dependent chain (each waits for the previous) and independent
/// tasks, against a stream of kernels and a CUDA graph of the same kernels.
fn compute_tasks(ctx: &Context, base: &Baseline) -> Result<()> {
    for iters in [500i32, 5_000, 25_000] {
        let task = base.task_time(iters, 200)?;
        let n = if quick() { 200 } else { 2_000 };
        let stream = base.plain_launches(n, Some(iters))? / n as f64;
        let graph = base.graph(n, 1, Some(iters))? / n as f64;
        let mut sched = Scheduler::start(ctx, Config::default())?;
        let mut p = sched.producers().pop().expect("one ring");
        let begin = Instant::now();
        for i in 0..n {
            let t = p.submit(Task::compute(i as i64, iters))?;
            p.wait(t)?;
        }
        let chain = begin.elapsed().as_secs_f64() / n as f64;
        let tasks: Vec<Task> = (0..n).map(|i| Task::compute(i as i64, iters)).collect();
        let begin = Instant::now();
        p.submit_batch(&tasks)?;
        p.wait_all()?;
        let independent = begin.elapsed().as_secs_f64() / n as f64;
        drop(p);
        sched.stop()?;
        let us = |s: f64| s * 1e6;
        println!(
            "compute task of {:.2} us ({iters} iterations): wall per task: stream of kernels {:.2} us (efficiency {:.2}), \
             CUDA graph {:.2} us ({:.2}), scheduler dependent chain {:.2} us ({:.2}), scheduler independent {:.3} us \
             ({:.1} tasks in parallel)",
            us(task),
            us(stream),
            task / stream,
            us(graph),
            task / graph,
            us(chain),
            task / chain,
            us(independent),
            task / independent
        );
    }
    Ok(())
}

/// Fire-and-forget children: launch-to-first-instruction latency of one child at a time, throughput, and what
/// happens past the pending-launch limit (2048).
fn children(ctx: &Context, mode: &str, base: Config) -> Result<()> {
    {
        let config = Config { reserve_sms: 32, ..base.clone() };
        let mut sched = Scheduler::start(ctx, config)?;
        let mut p = sched.producers().pop().expect("one ring");
        let n = 500;
        let begin = Instant::now();
        for i in 0..n {
            let t = p.submit(Task::child(i * 2, 1, 100))?;
            p.wait(t)?;
        }
        let seconds = begin.elapsed().as_secs_f64();
        drop(p);
        let s = sched.stop()?.stats;
        println!(
            "children one at a time ({mode}, {n}, each waited for): launch-to-first-instruction mean {:.2} us, max {:.2} us; \
             submit -> child's completion seen {:.2} us per child; {} launched, {} inline",
            s.child_latency_sum_ns as f64 * 1e-3 / s.child_started.max(1) as f64,
            s.child_latency_max_ns as f64 * 1e-3,
            seconds * 1e6 / n as f64,
            s.child_launched,
            s.child_inline
        );
    }
    for (label, n, iters, cap) in
        [("short children", 4_000usize, 100, 1024u32), ("past the limit", 6_000, 200_000, 6_000)]
    {
        let config = Config { reserve_sms: 32, child_cap: cap, ring_capacity: 1 << 13, ..base.clone() };
        let mut sched = Scheduler::start(ctx, config)?;
        let mut p = sched.producers().pop().expect("one ring");
        let tasks: Vec<Task> = (0..n).map(|i| Task::child(i as i64 * 2, 1, iters)).collect();
        let begin = Instant::now();
        p.submit_batch(&tasks)?;
        p.wait_all()?;
        let seconds = begin.elapsed().as_secs_f64();
        drop(p);
        let f = sched.stop()?;
        let s = &f.stats;
        let mean = if s.child_started > 0 { s.child_latency_sum_ns as f64 / s.child_started as f64 } else { 0.0 };
        println!(
            "children ({mode}, {label}, {n} tasks of 1 block x {iters} iterations, cap {cap}): {:.3e} tasks/s, {} \
             launched, {} started, {} inline (cap reached or launch refused), launch-to-first-instruction mean {:.1} \
             us, max {:.1} us",
            n as f64 / seconds,
            s.child_launched,
            s.child_started,
            s.child_inline,
            mean * 1e-3,
            s.child_latency_max_ns as f64 * 1e-3
        );
    }
    Ok(())
}

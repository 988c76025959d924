//! Measurements the benchmark binary (`sched-bench`) prints, and the baselines it measures in the same process:
//! plain launches and a CUDA graph of the same empty or compute kernel, from `sched.sk` itself.

use std::time::{Duration, Instant};

use skc_runtime::{args, Context, DeviceArray, Kernel, LaunchConfig, Module, Stream};

use skc_sched::{program, Config, Result, SchedError, Scheduler, Task};

/// The baseline kernels on a stream of their own, launched through skc-runtime's checked launches.
pub struct Baseline {
    _module: Module,
    empty: Kernel,
    compute: Kernel,
    stream: Stream,
    sink: DeviceArray<f32>,
}

impl Baseline {
    pub fn new(ctx: &Context) -> Result<Baseline> {
        let module = Module::from_program(ctx, program(&Config::default())?)?;
        let empty = module.kernel("sched_empty")?;
        let compute = module.kernel("sched_compute")?;
        let stream = ctx.new_stream()?;
        let sink = ctx.device_array(1)?;
        Ok(Baseline { _module: module, empty, compute, stream, sink })
    }

    /// Queues one launch: the empty kernel (`iters` None) or one warp of `iters` compute iterations.
    fn launch(&self, iters: Option<i32>) -> skc_runtime::Result<()> {
        let one_warp = LaunchConfig::new(1, 32);
        match iters {
            None => self.empty.launch_on(&self.stream, &one_warp, &mut args![&self.sink]),
            Some(iters) => self.compute.launch_on(&self.stream, &one_warp, &mut args![&self.sink, iters, 0i64]),
        }
    }

    fn sync(&self) -> Result<()> {
        Ok(self.stream.synchronize()?)
    }

    /// Seconds for `n` launches queued back to back on one stream, until the last finished.
    pub fn plain_launches(&self, n: usize, iters: Option<i32>) -> Result<f64> {
        self.launch(iters)?;
        self.sync()?;
        let begin = Instant::now();
        for _ in 0..n {
            self.launch(iters)?;
        }
        self.sync()?;
        Ok(begin.elapsed().as_secs_f64())
    }

    /// Seconds for `replays` launches of a graph of `per_graph` kernels captured from this stream.
    pub fn graph(&self, per_graph: usize, replays: usize, iters: Option<i32>) -> Result<f64> {
        let graph = self.stream.capture(|| {
            for _ in 0..per_graph {
                self.launch(iters)?;
            }
            Ok(())
        })?;
        graph.launch()?;
        self.sync()?;
        let begin = Instant::now();
        for _ in 0..replays {
            graph.launch()?;
        }
        self.sync()?;
        Ok(begin.elapsed().as_secs_f64())
    }

    /// Device time of one compute task as a one-warp kernel (mean of `n` back-to-back launches, by events).
    pub fn task_time(&self, iters: i32, n: usize) -> Result<f64> {
        self.launch(Some(iters))?;
        let timer = self.stream.start_timer()?;
        for _ in 0..n {
            self.launch(Some(iters))?;
        }
        let ms = timer.stop()?;
        Ok(ms as f64 * 1e-3 / n as f64)
    }
}

/// What one ping-pong run measured (see `sched_pingpong` in sched.sk).
pub struct PingPong {
    /// Host: from the ping's store to the pong seen, sorted.
    pub round_trips: Vec<Duration>,
    /// Device: from seeing ping i to having written pong i (the reply's cost as the GPU sees it), sorted.
    pub reply: Vec<Duration>,
    /// Device: from seeing ping i to seeing ping i + 1 (the round trip as the GPU sees it), sorted.
    pub device_round_trips: Vec<Duration>,
    /// Mean cost (ns) of single operations, named by [`PINGPONG_COSTS`] (sched_pingpong in sched.sk).
    pub costs: [u64; 11],
}

pub const PINGPONG_COSTS: [&str; 11] = [
    "ld.relaxed.sys",
    "ld.acquire.sys",
    "the scheduler's poll (4 slot words, 2 more lines, 3 registers: one round trip)",
    "ld.relaxed.sys + fence.acquire.sys",
    "st.release.sys",
    "fence.release.sys + st.relaxed.sys",
    "fence.sc.sys + st.relaxed.sys",
    "st.relaxed.sys alone",
    "the same poll into one register (each load waits for the previous)",
    "the poll with all 32 lanes loading",
    "st.release.gpu to device memory",
];

/// Host <-> GPU ping-pong through pinned mapped host memory (not write-combined, like the ring's tail and the
/// completion records): the host stores ping = i and spins until pong = i, `n` times after 200 warm-up rounds.
/// `mode` picks the GPU's load and store flavour and whether a second warp polls host memory next to it
/// (sched_pingpong in sched.sk). Same module, same context, same
/// process as the scheduler's benchmark.
pub fn pingpong(ctx: &Context, mode: i32, n: usize, reps: i32) -> Result<PingPong> {
    const KERNEL: &str = "sched_pingpong";
    let module = Module::from_program(ctx, program(&Config::default())?)?;
    let kernel = module.kernel(KERNEL)?;
    let ping = ctx.host_mapped::<u64>(16, false)?;
    let pong = ctx.host_mapped::<u64>(16, false)?;
    let words = ctx.host_mapped::<u64>(32, false)?;
    let total = n + 200;
    let stamps = ctx.device_array::<u64>(2 * total + 2)?;
    let costs = ctx.device_array::<u64>(16)?;
    let stream = ctx.new_stream()?;
    // Every buffer outlives the kernel: the stream is synchronised before they drop.
    let mut args = args![&ping, &pong, &words, total as i32, mode, reps, &stamps, &costs];
    kernel.launch_on(&stream, &LaunchConfig::new(1, 64), &mut args)?;
    let (ping_w, pong_w) = (ping.atomic(0), pong.atomic(0));
    let mut round_trips = Vec::with_capacity(n);
    let timeout = Duration::from_secs(10);
    let mut failed = None;
    'rounds: for i in 1..=total as u64 {
        let begin = Instant::now();
        ping_w.store(i, std::sync::atomic::Ordering::Release);
        let mut spins = 0u32;
        while pong_w.load(std::sync::atomic::Ordering::Acquire) < i {
            spins += 1;
            if spins.is_multiple_of(4096) && begin.elapsed() > timeout {
                failed = Some(i);
                break 'rounds;
            }
            std::hint::spin_loop();
        }
        if i > 200 {
            round_trips.push(begin.elapsed());
        }
    }
    if let Some(i) = failed {
        // Unblock the kernel so that the stream can be synchronised and the memory freed.
        ping_w.store(u64::MAX, std::sync::atomic::Ordering::Release);
        stream.synchronize().ok();
        return Err(SchedError::Timeout { kernel: KERNEL, what: format!("pong {i}"), waited: timeout });
    }
    stream.synchronize()?;
    let st = stamps.download()?;
    let c = costs.download()?;
    let measured = 201..=total;
    let mut reply: Vec<Duration> = measured.clone().map(|i| Duration::from_nanos(st[2 * i + 1] - st[2 * i])).collect();
    let mut device_round_trips: Vec<Duration> =
        measured.filter(|&i| i < total).map(|i| Duration::from_nanos(st[2 * i + 2] - st[2 * i])).collect();
    round_trips.sort();
    reply.sort();
    device_round_trips.sort();
    let mut costs_out = [0u64; 11];
    costs_out.copy_from_slice(&c[..11]);
    Ok(PingPong { round_trips, reply, device_round_trips, costs: costs_out })
}

/// Percentile of sorted samples.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

/// Submits `tasks` through `sched`'s producers from one thread each, in batches, and waits for all of them.
/// Returns seconds from the first submission to the last completion seen.
pub fn run_producers(sched: &mut Scheduler, per_producer: Vec<Vec<Task>>, batch: usize) -> Result<f64> {
    let producers = sched.producers();
    let begin = Instant::now();
    let results: Vec<Result<()>> = std::thread::scope(|scope| {
        let handles: Vec<_> = producers
            .into_iter()
            .zip(per_producer)
            .map(|(mut producer, tasks)| {
                scope.spawn(move || -> Result<()> {
                    for chunk in tasks.chunks(batch.max(1)) {
                        producer.submit_batch(chunk)?;
                    }
                    producer.wait_all()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("producer thread panicked")).collect()
    });
    let seconds = begin.elapsed().as_secs_f64();
    results.into_iter().collect::<Result<Vec<()>>>()?;
    Ok(seconds)
}

/// Submits `warm + n` empty tasks one at a time through the scheduler's only producer, each waited for. Returns
/// the round trip (submit -> completion seen) of each task after the first `warm` (task i + warm is position
/// i + warm of ring 0, at index i), and the sorted times of those submit calls alone (slot writes, fence, tail).
pub fn lone_round_trips(sched: &mut Scheduler, n: usize, warm: usize) -> Result<(Vec<Duration>, Vec<Duration>)> {
    let mut producer = sched.producers().pop().expect("one ring");
    let mut samples = Vec::with_capacity(n);
    let mut submits = Vec::with_capacity(n);
    for i in 0..(n + warm) {
        let begin = Instant::now();
        let ticket = producer.submit(Task::empty(i as i64))?;
        let submitted = begin.elapsed();
        producer.wait(ticket)?;
        if i >= warm {
            samples.push(begin.elapsed());
            submits.push(submitted);
        }
    }
    submits.sort();
    Ok((samples, submits))
}

/// The device's part of traced lone tasks (`Config::fast_timing`), per task: the spans between consecutive
/// stamps of `skc_sched::layout::trace`, with the host's round trip of the same task.
pub struct TracedTask {
    /// Position in ring 0.
    pub position: usize,
    pub round_trip: Duration,
    /// ns: poll issued -> tail back, -> slot back, -> mailbox seen free, -> hand-over stored, -> worker saw it,
    /// -> fields read, -> run, -> record stored, -> count-down and mailbox stored; record stored -> quiet window
    /// over (scheduler warp); the host's rest (its round trip less poll issued -> record stored); and the
    /// previous task's record stored -> this task's finding poll issued (0 when the previous one is not traced).
    pub spans: [i64; TRACE_SPANS],
    pub empty_polls: u64,
    /// 1 one read, 2 tail then slot.
    pub path: u64,
}

pub const TRACE_SPANS: usize = 12;
pub const TRACE_SPAN_NAMES: [&str; TRACE_SPANS] =
    ["poll", "slot", "check", "hand", "wake", "take", "run", "record", "release", "quiet", "host", "gap"];

/// The traced tasks among `samples` (round trips from [`lone_round_trips`], whose first task is position
/// `warm`): those the trace has every stamp of (handed over through the mailbox).
pub fn traced_tasks(trace: &[u64], samples: &[Duration], warm: usize) -> Vec<TracedTask> {
    use skc_sched::layout::trace as tr;
    let mut tasks = Vec::new();
    for (i, &round_trip) in samples.iter().enumerate() {
        let position = warm + i;
        let Some(w) = trace.get(position * tr::WORDS..(position + 1) * tr::WORDS) else { break };
        let stamps = [
            tr::POLL,
            tr::TAIL,
            tr::SLOT,
            tr::CHECKED,
            tr::HANDED,
            tr::SEEN,
            tr::TAKEN,
            tr::RAN,
            tr::RECORDED,
            tr::RELEASED,
        ];
        if stamps.iter().any(|&k| w[k] == 0) {
            continue;
        }
        let d = |a: usize, b: usize| w[b] as i64 - w[a] as i64;
        let device = d(tr::POLL, tr::RECORDED);
        let previous_record = match position.checked_sub(1) {
            Some(p) => trace.get(p * tr::WORDS + tr::RECORDED).copied().unwrap_or(0),
            None => 0,
        };
        let gap = if previous_record == 0 { 0 } else { w[tr::POLL] as i64 - previous_record as i64 };
        let spans = [
            d(tr::POLL, tr::TAIL),
            d(tr::TAIL, tr::SLOT),
            d(tr::SLOT, tr::CHECKED),
            d(tr::CHECKED, tr::HANDED),
            d(tr::HANDED, tr::SEEN),
            d(tr::SEEN, tr::TAKEN),
            d(tr::TAKEN, tr::RAN),
            d(tr::RAN, tr::RECORDED),
            d(tr::RECORDED, tr::RELEASED),
            if w[tr::QUIET] == 0 { 0 } else { d(tr::RECORDED, tr::QUIET) },
            round_trip.as_nanos() as i64 - device,
            gap,
        ];
        tasks.push(TracedTask { position, round_trip, spans, empty_polls: w[tr::EMPTY_POLLS], path: w[tr::PATH] });
    }
    tasks
}

/// Median of signed samples (0 for none).
pub fn median_i64(values: &mut [i64]) -> i64 {
    if values.is_empty() {
        return 0;
    }
    values.sort_unstable();
    values[values.len() / 2]
}

/// One line per traced run: medians (us) of each span, how tasks were found, and the host round trip's median
/// split by whether the task was found by the first poll after the previous task.
pub fn trace_lines(label: &str, tasks: &[TracedTask]) -> Vec<String> {
    let us = |ns: i64| ns as f64 * 1e-3;
    let spans: Vec<String> = (0..TRACE_SPANS)
        .map(|k| {
            let mut v: Vec<i64> = tasks.iter().map(|t| t.spans[k]).collect();
            format!("{} {:.2}", TRACE_SPAN_NAMES[k], us(median_i64(&mut v)))
        })
        .collect();
    let p50 = |pick: &dyn Fn(&TracedTask) -> bool| {
        let mut v: Vec<Duration> = tasks.iter().filter(|t| pick(t)).map(|t| t.round_trip).collect();
        v.sort();
        (v.len(), percentile(&v, 0.5).as_secs_f64() * 1e6)
    };
    let (first, first_p50) = p50(&|t| t.empty_polls == 0);
    let (later, later_p50) = p50(&|t| t.empty_polls > 0);
    let one_read = tasks.iter().filter(|t| t.path == 1).count();
    vec![
        format!("trace {label}: {} tasks, medians us: {}", tasks.len(), spans.join(", ")),
        format!(
            "trace {label}: found by the first poll after the previous task {first} (round trip p50 {first_p50:.2} \
             us), by a later one {later} ({later_p50:.2} us); one-read finds {one_read}"
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use skc_sched::layout::trace as tr;

    /// A trace of positions 0..3: position 1 handed over with every stamp, 2 found by one read after two empty
    /// polls, 0 not traced (no stamps: not a mailbox task).
    fn synthetic() -> Vec<u64> {
        let mut trace = vec![0u64; 3 * tr::WORDS];
        for (p, base, empty, path) in [(1usize, 10_000u64, 0u64, 2u64), (2, 20_000, 2, 1)] {
            let w = &mut trace[p * tr::WORDS..(p + 1) * tr::WORDS];
            let steps =
                [tr::POLL, tr::TAIL, tr::SLOT, tr::CHECKED, tr::HANDED, tr::SEEN, tr::TAKEN, tr::RAN, tr::RECORDED];
            for (i, &k) in steps.iter().enumerate() {
                w[k] = base + 100 * i as u64;
            }
            w[tr::RELEASED] = base + 1_000;
            w[tr::QUIET] = base + 1_200;
            w[tr::EMPTY_POLLS] = empty;
            w[tr::PATH] = path;
        }
        trace
    }

    #[test]
    fn traced_tasks_take_spans_between_stamps() {
        let samples = [Duration::from_nanos(5_000), Duration::from_nanos(4_000), Duration::from_nanos(3_000)];
        let tasks = traced_tasks(&synthetic(), &samples, 0);
        assert_eq!(tasks.iter().map(|t| t.position).collect::<Vec<_>>(), [1, 2]);
        let second = &tasks[1];
        // poll .. record: eight steps of 100 ns; release 200 ns after the record, quiet 400 ns after it.
        assert_eq!(&second.spans[..10], &[100, 100, 100, 100, 100, 100, 100, 100, 200, 400]);
        // The host's rest: 3,000 ns less the device's 800; the gap from position 1's record (10,800) to 20,000.
        assert_eq!((second.spans[10], second.spans[11]), (2_200, 9_200));
        assert_eq!((second.empty_polls, second.path), (2, 1));
        assert_eq!(tasks[0].spans[11], 0, "position 0 has no record: no gap");
        let lines = trace_lines("synthetic", &tasks);
        assert!(lines[0].contains("2 tasks") && lines[0].contains("release 0.20"), "{}", lines[0]);
        assert!(lines[1].contains("previous task 1") && lines[1].contains("one-read finds 1"), "{}", lines[1]);
    }
}

//! The scheduler on a real GPU (`cargo test -p skc-sched --features gpu-tests`): conservation under stress (every
//! task id executed exactly once, nothing lost after stop), lone tasks through the mailbox, a 16-slot ring over
//! many laps (the one-read poll must find tasks), a recorded queue history checked for linearizability, children
//! with inline fallback, typed errors. Without a GPU every test fails with a message saying so.
//!
//! `SKC_SCHED_STRESS_IDS` sets the stress size (default 100 million task ids).

use std::time::Instant;

use skc_runtime::Context;
use skc_sched::linearizability::check_fifo;
use skc_sched::{history_ops, Config, Producer, SchedError, Scheduler, Task};

fn gpu() -> Context {
    Context::new(0).unwrap_or_else(|e| {
        panic!(
            "the gpu-tests need a CUDA GPU and its driver, and this machine has none usable: {e}. Run them on a GPU \
             machine, or run `cargo test` without `--features gpu-tests`."
        )
    })
}

/// The tasks of ids `range`, in a fixed mix: per 128 ids, 60 empty tasks, 2 compute tasks, a spawn of 63 device
/// tasks (a device-side producer) and, every 4096 ids, a child of 2 blocks instead of 3 of the empty tasks.
fn tasks_for(range: std::ops::Range<i64>, mut emit: impl FnMut(&[Task]) -> Result<(), SchedError>) {
    let mut batch = Vec::with_capacity(4096);
    let mut id = range.start;
    while id < range.end {
        let left = range.end - id;
        let task = if left >= 64 && id % 128 == 0 {
            Task::spawn(id, 63, 0)
        } else if left >= 3 && id % 4096 == 1000 {
            Task::child(id, 2, 50)
        } else if id % 64 == 7 {
            Task::compute(id, 20)
        } else {
            Task::empty(id)
        };
        id += task.ids();
        batch.push(task);
        if batch.len() == batch.capacity() {
            emit(&batch).unwrap_or_else(|e| panic!("{e}"));
            batch.clear();
        }
    }
    emit(&batch).unwrap_or_else(|e| panic!("{e}"));
}

fn run_mix(sched: &mut Scheduler, ids: i64) {
    let producers = sched.producers();
    let n = producers.len() as i64;
    std::thread::scope(|scope| {
        for (r, mut producer) in producers.into_iter().enumerate() {
            let range = (ids * r as i64 / n)..(ids * (r as i64 + 1) / n);
            scope.spawn(move || {
                tasks_for(range, |batch| producer.submit_batch(batch).map(|_| ()));
                producer.wait_all().unwrap_or_else(|e| panic!("{e}"));
            });
        }
    });
}

fn assert_each_once(counts: &[u32]) {
    let wrong: Vec<(usize, u32)> = counts.iter().enumerate().filter(|(_, &c)| c != 1).map(|(i, &c)| (i, c)).collect();
    assert!(
        wrong.is_empty(),
        "{} of {} ids not executed exactly once; first (id, count): {:?}",
        wrong.len(),
        counts.len(),
        &wrong[..wrong.len().min(10)]
    );
}

#[test]
fn every_task_runs_exactly_once_under_stress() {
    let ctx = gpu();
    let ids: i64 = std::env::var("SKC_SCHED_STRESS_IDS").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000_000);
    let config = Config {
        rings: 4,
        ring_capacity: 1 << 14,
        queue_capacity: 1 << 20,
        count_ids: ids as usize,
        reserve_sms: 8,
        timeout: std::time::Duration::from_secs(120),
        ..Config::default()
    };
    let mut sched = Scheduler::start(&ctx, config).unwrap_or_else(|e| panic!("{e}"));
    let begin = Instant::now();
    run_mix(&mut sched, ids);
    let submitted = begin.elapsed();
    let finished = sched.stop().unwrap_or_else(|e| panic!("{e}"));
    eprintln!("stress: {ids} ids in {submitted:?} (all completions seen), stats {:?}", finished.stats);
    assert_eq!(finished.stats.left_reserved, 0, "tasks left in the queue after stop");
    assert_each_once(&finished.counts);
}

/// One producer submits one task at a time and waits for it (the fast path's case: a lone task while the
/// mailbox's worker is idle) while another floods the device queue; every id must run exactly once, with the fast
/// path on (some tasks must then have taken it) and off (none may).
#[test]
fn lone_tasks_take_the_fast_path_and_each_runs_once() {
    let ctx = gpu();
    let base = Config { rings: 2, reserve_sms: 8, ..Config::default() };
    let cases = [("fast path", base.clone()), ("no fast path", Config { fast_path: false, ..base })];
    for (name, config) in cases {
        let fast_path = config.fast_path;
        let lone_ids = 40_000i64;
        let ids = 2_000_000i64;
        let config = Config { count_ids: ids as usize, ..config };
        let mut sched = Scheduler::start(&ctx, config).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut producers = sched.producers();
        let (mut flood, mut lone) = (producers.pop().unwrap(), producers.pop().unwrap());
        std::thread::scope(|scope| {
            scope.spawn(move || {
                tasks_for(lone_ids..ids, |batch| flood.submit_batch(batch).map(|_| ()));
                flood.wait_all().unwrap_or_else(|e| panic!("{e}"));
            });
            // Every kind of task alone: empty, compute and child (a launched grid writes the completion) through
            // the mailbox, spawn through the queue (its children go there too).
            let (mut id, mut i) = (0i64, 0);
            while id < lone_ids {
                let task = match i % 8 {
                    3 => Task::compute(id, 100),
                    5 => Task::spawn(id, 40, 0),
                    7 if i % 64 == 7 => Task::child(id, 2, 50),
                    _ => Task::empty(id),
                };
                // The ids past lone_ids belong to the flood.
                let task = if id + task.ids() > lone_ids { Task::empty(id) } else { task };
                let ticket = lone.submit(task).unwrap_or_else(|e| panic!("{name}: {e}"));
                lone.wait(ticket).unwrap_or_else(|e| panic!("{name}: {e}"));
                id += task.ids();
                i += 1;
            }
        });
        let finished = sched.stop().unwrap_or_else(|e| panic!("{name}: {e}"));
        eprintln!("{name}: stats {:?}", finished.stats);
        assert_eq!(finished.stats.left_reserved, 0, "{name}: tasks left in the queue after stop");
        assert_each_once(&finished.counts);
        if fast_path {
            assert!(finished.stats.fast_path > 0, "{name}: no task took the fast path");
        } else {
            assert_eq!(finished.stats.fast_path, 0, "{name}: the fast path is off");
        }
    }
}

/// A ring of 16 slots reused for thousands of laps, with lone tasks (each waited for: they take the mailbox) and
/// batches of 1 to 40 in between (more than the ring holds: the producer waits for slots, the warp takes them
/// after the tail's acquire). Every id runs exactly once, and no slot of an older lap is ever taken for a newer
/// one; once more with the device trace, where some lone tasks must have been found by the one-read poll (the
/// path the stamps guard).
#[test]
fn a_small_ring_survives_many_laps() {
    let ctx = gpu();
    let base = Config { rings: 1, ring_capacity: 16, reserve_sms: 8, ..Config::default() };
    let traced = Config { fast_timing: true, trace_positions: 250_000, ..base.clone() };
    for (name, config) in [("16-slot ring", base), ("16-slot ring", traced)] {
        small_ring_laps(&ctx, name, config);
    }
}

fn small_ring_laps(ctx: &Context, name: &str, config: Config) {
    let ids = 200_000i64;
    let traced = config.fast_timing;
    let config = Config { count_ids: ids as usize, ..config };
    let mut sched = Scheduler::start(ctx, config).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut p = sched.producers().pop().unwrap();
    let (mut id, mut round) = (0i64, 0usize);
    while id < ids {
        if round % 2 == 0 {
            let ticket = p.submit(Task::empty(id)).unwrap_or_else(|e| panic!("{e}"));
            p.wait(ticket).unwrap_or_else(|e| panic!("{e}"));
            id += 1;
        } else {
            let n = ((round * 7) % 40 + 1).min((ids - id) as usize) as i64;
            let batch: Vec<Task> =
                (id..id + n).map(|i| if i % 5 == 0 { Task::compute(i, 30) } else { Task::empty(i) }).collect();
            p.submit_batch(&batch).unwrap_or_else(|e| panic!("{e}"));
            id += n;
        }
        round += 1;
    }
    p.wait_all().unwrap_or_else(|e| panic!("{name}: {e}"));
    drop(p);
    let finished = sched.stop().unwrap_or_else(|e| panic!("{name}: {e}"));
    eprintln!("{name}{}: stats {:?}", if traced { " (traced)" } else { "" }, finished.stats);
    assert_eq!(finished.stats.left_reserved, 0, "{name}: tasks left in the queue after stop");
    assert_each_once(&finished.counts);
    assert!(finished.stats.fast_path > 0, "{name}: no lone task took the fast path");
    if traced {
        use skc_sched::layout::trace;
        let paths = finished.trace.chunks(trace::WORDS).map(|w| w[trace::PATH]);
        let one_read = paths.filter(|&path| path == 1).count();
        eprintln!("{name} (traced): {one_read} lone tasks found by the one-read poll");
        assert!(one_read > 0, "{name}: the one-read poll never found a task");
    }
}

#[test]
fn the_queue_history_is_linearizable() {
    let ctx = gpu();
    let config = Config { rings: 2, history: 1 << 21, count_ids: 1 << 20, ..Config::default() };
    let mut sched = Scheduler::start(&ctx, config).unwrap_or_else(|e| panic!("{e}"));
    let ids = 300_000i64;
    run_mix(&mut sched, ids);
    let finished = sched.stop().unwrap_or_else(|e| panic!("{e}"));
    assert_each_once(&finished.counts[..ids as usize]);
    assert!(finished.stats.history_records <= 1 << 21, "history buffer overflowed: the history is incomplete");
    let ops = history_ops(&finished.history);
    let enqueues = ops.iter().filter(|o| o.kind == skc_sched::linearizability::OpKind::Enqueue).count();
    assert!(enqueues > 200_000, "too few operations recorded: {enqueues}");
    // The clock's tick: the smallest positive step between recorded readings.
    let mut stamps: Vec<u64> = ops.iter().flat_map(|o| [o.start, o.end]).collect();
    stamps.sort_unstable();
    stamps.dedup();
    let tick = stamps.windows(2).map(|w| w[1] - w[0]).min().unwrap_or(1);
    let verdict = check_fifo(&ops, tick);
    eprintln!("{} operations, clock tick {tick} ns: {verdict:?}", ops.len());
    assert_eq!(verdict, Ok(()), "{}", verdict.as_ref().unwrap_err());
}

#[test]
fn children_run_and_fall_back_inline_past_the_cap() {
    let ctx = gpu();
    let config = Config { rings: 1, count_ids: 1 << 16, reserve_sms: 16, child_cap: 8, ..Config::default() };
    let mut sched = Scheduler::start(&ctx, config).unwrap_or_else(|e| panic!("{e}"));
    let mut producer: Producer = sched.producers().pop().unwrap();
    let tasks: Vec<Task> = (0..2000).map(|i| Task::child(i * 5, 4, 20_000)).collect();
    producer.submit_batch(&tasks).unwrap();
    producer.wait_all().unwrap_or_else(|e| panic!("{e}"));
    drop(producer);
    let finished = sched.stop().unwrap();
    let s = &finished.stats;
    eprintln!("children: {s:?}");
    assert!(s.child_launched > 0, "no child was launched");
    assert!(s.child_inline > 0, "with a cap of 8 children in flight, some must run inline");
    assert_eq!(s.child_launched + s.child_inline, 2000);
    assert_eq!(s.child_started, s.child_launched, "every launched child started (after the parent, at the latest)");
    assert_each_once(&finished.counts[..10_000]);
}

#[test]
fn errors_are_typed_and_name_the_kernel() {
    let ctx = gpu();
    let err = Scheduler::start(&ctx, Config { ring_capacity: 1000, ..Config::default() }).err().unwrap();
    assert!(matches!(err, SchedError::Config { .. }) && err.kernel() == Some("sched_main"), "{err}");
    let err = Scheduler::start(&ctx, Config { rings: 100_000, ..Config::default() }).err().unwrap();
    assert!(matches!(err, SchedError::Config { .. }), "{err}");
    // A 24-bit stamp tells laps apart only in rings of at most 2^23 slots.
    let err = Scheduler::start(&ctx, Config { ring_capacity: 1 << 24, ..Config::default() }).err().unwrap();
    assert!(matches!(err, SchedError::Config { .. }) && err.to_string().contains("2^23"), "{err}");

    let mut sched = Scheduler::start(&ctx, Config::default()).unwrap();
    let mut producer = sched.producers().pop().unwrap();
    // A kind a slot cannot carry is refused, with nothing of its batch submitted.
    let err = producer.submit_batch(&[Task::empty(0), Task { kind: 300, ..Task::empty(1) }]).unwrap_err();
    assert!(matches!(err, SchedError::Task { ring: 0, .. }) && err.to_string().contains("kind 300"), "{err}");
    assert_eq!(producer.submitted(), 0);
    let ticket = producer.submit(Task::empty(0)).unwrap();
    producer.wait(ticket).unwrap();
    assert!(producer.is_done(ticket));
    sched.stop().unwrap();
    let err = producer.submit(Task::empty(1)).unwrap_err();
    assert!(matches!(err, SchedError::Stopped { ring: 0 }) && err.kernel() == Some("sched_main"), "{err}");
}

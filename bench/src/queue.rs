//! The device queue alone (`kernels/queue_bench.sk`, over stdlib/sched/sched.sk): threads alternate an enqueue and a dequeue of empty
//! elements on a pre-filled queue, timed with CUDA events, and every run checked for conservation (every element
//! enqueued, the pre-fill included, is dequeued exactly once or is still in the queue at the end). The
//! `queue-bench` binary sweeps thread counts for the Broker Queue comparison; the GPU test runs it small.
//!
//! Two granularities: [`Level::Warp`] (one `enqueue` of 32 elements per warp and round, then `reserve_ready` +
//! `take_slot` batches until 32 came back: the scheduler's use) and [`Level::Lane`] (one element per operation per
//! thread: the Broker Queue benchmark's unit).

use std::cell::Cell;
use std::mem::ManuallyDrop;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use skc_runtime::{args, Arg, Context, DeviceArray, Kernel, LaunchConfig, Module, Program, Stream};

use skc_sched::layout::{ctl, HistRecord, Task, K_EMPTY};
use skc_sched::{Result, SchedError};

/// The Broker Queue's published rate (Kerbl et al., ICS 2018; 65K threads, RTX 2080 SUPER-class GPU).
pub const BROKER_QUEUE_OPS: f64 = 2.7e9;

/// Threads per block of both kernels.
pub const BLOCK: u32 = 256;

const KERNELS: &str = "qb_warp/qb_lane";

/// Words of the kernels' `sums` (the `s_*` constants of queue_bench.sk).
const SUMS_WORDS: usize = 4;

/// Which kernel: how many elements one queue operation moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// `qb_warp`: a warp's `enqueue` moves 32 elements; its dequeue batches together as many.
    Warp,
    /// `qb_lane`: every thread enqueues and dequeues one element at a time.
    Lane,
}

impl Level {
    pub fn kernel(self) -> &'static str {
        match self {
            Level::Warp => "qb_warp",
            Level::Lane => "qb_lane",
        }
    }
}

/// The benchmark's source, in this crate's `kernels/`.
pub fn source_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/queue_bench.sk")
}

/// The benchmark program (front end and CUDA C; no GPU needed). It opens Sched (found in the standard library),
/// whose child launch makes the program relocatable (linked with the device runtime when loaded).
/// Its blocks are [`BLOCK`] threads, whole warps, which the scheduler's shuffles rely on.
pub fn program() -> Result<Program> {
    let files = skc_core::session::DiskFiles::new();
    let session = skc_core::session::Session::standard(&files).with_full_warps();
    Ok(Program::from_session_file(&session, source_path())?)
}

/// What one run did and whether it kept every element.
#[derive(Clone, Debug)]
pub struct QueueRun {
    pub level: Level,
    pub threads: u32,
    pub rounds: u32,
    pub prefill: u32,
    /// Kernel time by CUDA events.
    pub seconds: f64,
    /// Elements enqueued plus elements dequeued by the kernel: 2 x threads x rounds.
    pub element_ops: u64,
    /// Queue operations (calls): enqueues plus dequeue batches. Warp level: one `enqueue` per warp and round,
    /// and the `reserve_ready` + `take_slot` batches it took to get 32 back (each a handful of atomics on the
    /// queue's words). Lane level: the same as `element_ops`.
    pub queue_ops: u64,
    /// Checked exactly (every id counted), not only by checksums.
    pub exact: bool,
}

impl QueueRun {
    pub fn element_rate(&self) -> f64 {
        self.element_ops as f64 / self.seconds
    }

    pub fn op_rate(&self) -> f64 {
        self.queue_ops as f64 / self.seconds
    }
}

/// The queue's device memory.
struct Buffers {
    ctl: DeviceArray<u64>,
    slots: DeviceArray<Task>,
    state: DeviceArray<u32>,
    counts: DeviceArray<u32>,
    sums: DeviceArray<u64>,
    /// `qb_warp`'s history buffer: one record, never written (`record_history` is off).
    hist: DeviceArray<HistRecord>,
}

/// A loaded benchmark program and the queue's memory.
pub struct QueueBench {
    ctx: Context,
    _module: Module,
    warp: Kernel,
    lane: Kernel,
    capacity: usize,
    max_ids: usize,
    stream: ManuallyDrop<Stream>,
    mem: ManuallyDrop<Buffers>,
    /// Set when a run timed out: its kernel may still use the memory, which is then leaked, never freed.
    hung: Cell<bool>,
    /// Longest a run may take before it is reported as a hang.
    pub timeout: Duration,
}

fn config_error(reason: String) -> SchedError {
    SchedError::Config { kernel: KERNELS, reason }
}

impl QueueBench {
    /// Compiles (cached) and loads the program, with a queue of `capacity` slots (a power of two) and
    /// exact counters for up to `max_ids` element ids.
    pub fn new(ctx: &Context, capacity: usize, max_ids: usize) -> Result<QueueBench> {
        if !capacity.is_power_of_two() || capacity > 1 << 30 {
            return Err(config_error(format!("queue capacity {capacity}: a power of two, at most 2^30")));
        }
        if max_ids > i32::MAX as usize {
            return Err(config_error(format!("{max_ids} exact ids: at most 2^31 - 1")));
        }
        let module = Module::from_program(ctx, program()?)?;
        let warp = module.kernel(Level::Warp.kernel())?;
        let lane = module.kernel(Level::Lane.kernel())?;
        let stream = ManuallyDrop::new(ctx.new_stream()?);
        Ok(QueueBench {
            ctx: ctx.clone(),
            _module: module,
            warp,
            lane,
            capacity,
            max_ids,
            stream,
            mem: ManuallyDrop::new(Buffers {
                ctl: ctx.device_array(ctl::WORDS)?,
                slots: ctx.device_array(capacity)?,
                state: ctx.device_array(capacity)?,
                counts: ctx.device_array(max_ids.max(1))?,
                sums: ctx.device_array(SUMS_WORDS)?,
                hist: ctx.device_array(1)?,
            }),
            hung: Cell::new(false),
            timeout: Duration::from_secs(60),
        })
    }

    /// Runs `threads` threads (a multiple of [`BLOCK`]) for `rounds` rounds on a queue pre-filled with `prefill`
    /// elements, counting every id exactly when `exact` (else by checksums), and checks conservation: an element
    /// lost or dequeued twice is an error, never a number.
    pub fn run(&self, level: Level, threads: u32, rounds: u32, prefill: u32, exact: bool) -> Result<QueueRun> {
        let ids = prefill as u64 + threads as u64 * rounds as u64;
        self.check_size(threads, rounds, prefill, ids, exact)?;
        self.prepare(prefill, exact)?;
        let seconds = self.launch(level, threads, rounds, prefill, if exact { ids as i32 } else { 0 })?;
        let sums = self.mem.sums.download()?;
        let dequeued = threads as u64 * rounds as u64;
        let queue_ops = match level {
            Level::Warp => threads as u64 / 32 * rounds as u64 + sums[3],
            Level::Lane => 2 * dequeued,
        };
        let run = QueueRun { level, threads, rounds, prefill, seconds, element_ops: 2 * dequeued, queue_ops, exact };
        self.check_conservation(&run, &sums, ids)?;
        Ok(run)
    }

    fn check_size(&self, threads: u32, rounds: u32, prefill: u32, ids: u64, exact: bool) -> Result<()> {
        if !threads.is_multiple_of(BLOCK) || threads == 0 {
            return Err(config_error(format!("{threads} threads: a positive multiple of {BLOCK}")));
        }
        // Every thread may hold one element in flight besides the pre-fill; the queue must never be full.
        if prefill as usize + threads as usize > self.capacity {
            return Err(config_error(format!(
                "pre-fill {prefill} + {threads} threads exceed the queue's {} slots",
                self.capacity
            )));
        }
        // Ids and counters are int32 in the kernels: stay clear of the limit.
        if ids + prefill as u64 >= 1 << 31 || rounds == 0 {
            return Err(config_error(format!("{rounds} rounds of {threads} threads: 1 .. 2^31 elements")));
        }
        if exact && ids > self.max_ids as u64 {
            return Err(config_error(format!("{ids} ids to count exactly, counters for {}", self.max_ids)));
        }
        Ok(())
    }

    /// Zeroes the queue and writes the pre-fill: elements 0 .. prefill-1 in slots 0 .. prefill-1, full for round
    /// 0 (tag 1), with tail, ready count and reserved room as the enqueues would have left them.
    fn prepare(&self, prefill: u32, exact: bool) -> Result<()> {
        let mut words = vec![0u64; ctl::WORDS];
        words[ctl::TAIL] = prefill as u64;
        words[ctl::COUNT] = prefill as u64;
        words[ctl::RESERVED] = prefill as u64;
        let elements: Vec<Task> = (0..prefill as i64).map(|id| Task { kind: K_EMPTY, id, ..Task::default() }).collect();
        let mut state = vec![0u32; self.capacity];
        state[..prefill as usize].fill(1);
        // Each copy fits its array (prefill <= capacity, checked); no kernel runs.
        self.mem.ctl.upload_prefix(&words)?;
        self.mem.state.upload_prefix(&state)?;
        self.mem.slots.upload_prefix(&elements)?;
        self.mem.sums.zero()?;
        if exact {
            self.mem.counts.zero()?;
        }
        // Copies from pageable memory and memsets may still be in flight when their calls return, and the kernel
        // runs on a non-blocking stream that does not wait for them.
        Ok(self.ctx.synchronize()?)
    }

    /// Launches between two events and polls until done (a hang becomes a timeout error). Returns event seconds.
    fn launch(&self, level: Level, threads: u32, rounds: u32, prefill: u32, n_ids: i32) -> Result<f64> {
        let m = &*self.mem;
        let q_cap = self.capacity as i32;
        let (prefill, rounds) = (prefill as i32, rounds as i32);
        // The parameter orders of qb_warp and qb_lane in queue_bench.sk.
        let (kernel, mut args): (&Kernel, Vec<Arg>) = match level {
            Level::Warp => (
                &self.warp,
                args![&m.ctl, &m.slots, &m.state, q_cap, &m.hist, &m.counts, n_ids, &m.sums, prefill, rounds].into(),
            ),
            Level::Lane => (
                &self.lane,
                args![&m.ctl, &m.slots, &m.state, q_cap, &m.counts, n_ids, &m.sums, prefill, rounds].into(),
            ),
        };
        // Every buffer outlives the launch: it is waited for (or, after a timeout, leaked).
        let timer = self.stream.start_timer()?;
        kernel.launch_on(&self.stream, &LaunchConfig::new(threads / BLOCK, BLOCK), &mut args)?;
        let ms = timer.stop_after(|| self.wait(level.kernel()))?;
        Ok(ms as f64 * 1e-3)
    }

    fn wait(&self, kernel: &'static str) -> Result<()> {
        let begin = Instant::now();
        while !self.stream.is_idle()? {
            if begin.elapsed() > self.timeout {
                self.hung.set(true);
                return Err(SchedError::Timeout {
                    kernel,
                    what: "the queue benchmark's run".into(),
                    waited: self.timeout,
                });
            }
            std::thread::sleep(Duration::from_micros(100));
        }
        Ok(())
    }

    /// Every id 0 .. ids-1 dequeued by the kernel or left in the queue, exactly once; the queue's counters as
    /// `prefill` elements left in it would have them.
    fn check_conservation(&self, run: &QueueRun, sums: &[u64], ids: u64) -> Result<()> {
        let kernel = run.level.kernel();
        let fail = |what: String| Err(SchedError::Conservation { kernel, what });
        let words = self.mem.ctl.download()?;
        let state = self.mem.state.download()?;
        let slots = self.mem.slots.download()?;
        let left: Vec<u64> = state.iter().zip(&slots).filter(|(s, _)| *s & 1 == 1).map(|(_, e)| e.id as u64).collect();
        let dequeued = run.threads as u64 * run.rounds as u64;
        let prefill = run.prefill as u64;
        if sums[0] != dequeued {
            return fail(format!("{} elements dequeued, {dequeued} expected", sums[0]));
        }
        if left.len() as u64 != prefill {
            return fail(format!("{} elements left in the queue, {prefill} expected", left.len()));
        }
        let (tail, head) = (words[ctl::TAIL], words[ctl::HEAD]);
        if tail.wrapping_sub(head) != prefill || words[ctl::COUNT] != prefill || words[ctl::RESERVED] != prefill {
            return fail(format!(
                "tail - head = {}, count = {}, reserved = {}; {prefill} expected for each",
                tail.wrapping_sub(head),
                words[ctl::COUNT] as i64,
                words[ctl::RESERVED] as i64
            ));
        }
        // Checksums: the sums of ids and of their squares over 0 .. ids-1 (wrapping, as the kernel adds).
        let (mut sum, mut squares) = (sums[1], sums[2]);
        for &id in &left {
            sum = sum.wrapping_add(id);
            squares = squares.wrapping_add(id.wrapping_mul(id));
        }
        let n = ids as u128;
        let (want_sum, want_squares) =
            (n * n.saturating_sub(1) / 2, n.saturating_sub(1) * n * (2 * n).saturating_sub(1) / 6);
        let (want_sum, want_squares) = (want_sum as u64, want_squares as u64);
        if (sum, squares) != (want_sum, want_squares) {
            return fail(
                "the ids' checksums differ from those of 0 .. n-1: some id lost, repeated or corrupted".into(),
            );
        }
        if run.exact {
            let mut counts = self.mem.counts.download()?;
            counts.truncate(ids as usize);
            for &id in &left {
                match counts.get_mut(id as usize) {
                    Some(c) => *c += 1,
                    None => return fail(format!("id {id} left in the queue is out of range")),
                }
            }
            let wrong: Vec<(usize, u32)> =
                counts.iter().enumerate().filter(|(_, &c)| c != 1).map(|(i, &c)| (i, c)).take(10).collect();
            if !wrong.is_empty() {
                return fail(format!("ids not seen exactly once (first (id, times)): {wrong:?}"));
            }
        }
        Ok(())
    }
}

impl Drop for QueueBench {
    fn drop(&mut self) {
        if self.hung.get() {
            return; // a kernel may still run: leak its stream and memory rather than free them under it
        }
        // SAFETY: every launch was waited for; nothing uses the memory or the stream any more, and neither is
        // used after this.
        unsafe {
            ManuallyDrop::drop(&mut self.mem);
            ManuallyDrop::drop(&mut self.stream);
        }
    }
}

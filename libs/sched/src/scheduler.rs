//! [`Scheduler`]: compiles `stdlib/sched/sched.sk` for the configuration, allocates its memory without event
//! tracking (skc-runtime's `HostMapped` and `DeviceArray`), launches `sched_main` with a grid the device holds
//! resident on a non-blocking stream of its own, hands out one [`Producer`] per host ring, and stops it: the stop
//! word is written only after every producer has been closed, the kernel drains everything submitted and exits,
//! and only then is device memory read back and freed.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use skc_runtime::{args, Context, DeviceArray, Kernel, LaunchConfig, Module, Stream};

use crate::config::{check_config, program, Config};
use crate::error::{Result, SchedError};
use crate::layout::{ctl, trace, HistRecord, Task, CHILD_BLOCK, CHILD_KERNEL, MAILBOX_WORDS, MAIN_KERNEL};
use crate::producer::Producer;
use crate::rings::{Rings, CLOSED, IDLE};

/// Counters the kernel kept, read after it exited.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Tasks dequeued by workers (a task handed back to the queue is dequeued again).
    pub executed: u64,
    /// Spawned tasks run inline because the device queue was full.
    pub spawn_inline: u64,
    /// Child grids launched.
    pub child_launched: u64,
    /// Child tasks run inline (cap reached or launch refused).
    pub child_inline: u64,
    /// Child grids that started.
    pub child_started: u64,
    /// Sum and maximum of launch-to-first-instruction times of children (ns, globaltimer).
    pub child_latency_sum_ns: u64,
    pub child_latency_max_ns: u64,
    /// History records written (may exceed the buffer: then the history is incomplete).
    pub history_records: u64,
    /// Left in the queue or a mailbox at exit (must be 0).
    pub left_reserved: u64,
    /// Host tasks handed to a worker through its block's mailbox (the fast path) instead of the device queue.
    pub fast_path: u64,
}

/// What a stopped scheduler leaves.
#[derive(Debug)]
pub struct Finished {
    pub stats: Stats,
    /// Execution count of each id below `count_ids`.
    pub counts: Vec<u32>,
    /// Recorded queue operations (at most `history` of them).
    pub history: Vec<HistRecord>,
    /// With `fast_timing`: `layout::trace::WORDS` words per position of ring 0 below `trace_positions` (see
    /// [`crate::layout::trace`]; all 0 for a position that was not a lone task handed over).
    pub trace: Vec<u64>,
    /// From launch to exit as the host saw it.
    pub ran_for: Duration,
}

/// Device memory of one run.
struct DeviceState {
    ctl: DeviceArray<u64>,
    q_slots: DeviceArray<Task>,
    q_state: DeviceArray<u32>,
    counts: DeviceArray<u32>,
    hist: DeviceArray<HistRecord>,
    child_blocks: DeviceArray<u32>,
    sink: DeviceArray<f32>,
    /// The fast path's mailboxes: `MAILBOX_WORDS` per block.
    mailboxes: DeviceArray<u64>,
    /// Device timestamps of traced tasks (`fast_timing`).
    trace: DeviceArray<u64>,
}

/// A running scheduler.
pub struct Scheduler {
    _module: Module,
    stream: Stream,
    rings: Arc<Rings>,
    device: Option<DeviceState>,
    producers: Option<Vec<Producer>>,
    config: Config,
    started: Instant,
    cooperative: bool,
    /// Blocks launched and threads per block.
    pub grid: u32,
    pub block: u32,
}

impl Scheduler {
    /// Compiles (cached), allocates and launches the scheduler.
    pub fn start(ctx: &Context, config: Config) -> Result<Scheduler> {
        check_config(&config)?;
        let program = program(&config)?;
        let device_runtime = program.needs_device_runtime;
        let module = Module::from_program(ctx, program)?;
        let main = module.kernel(MAIN_KERNEL)?;
        if let Some(limit) = config.pending_launch_limit {
            ctx.set_pending_launch_limit(limit)?;
        }
        let child_room = if device_runtime && config.reserve_sms == 0 {
            // Children must fit beside the persistent blocks when no SM is reserved for them.
            let per_sm = ctx.device().registers_per_sm;
            Some(RegisterBudget { per_sm, main: main.registers()?, child: module.kernel(CHILD_KERNEL)?.registers()? })
        } else {
            None
        };
        let (grid, block) = geometry(ctx, &main, &config, child_room)?;
        let rings = Arc::new(Rings::allocate(
            ctx,
            config.rings,
            config.ring_capacity,
            config.write_combined_slots,
            config.timeout,
        )?);
        let device = allocate_device(ctx, &config, grid)?;
        let stream = ctx.new_stream()?;
        let mut scheduler = Scheduler {
            _module: module,
            stream,
            rings: rings.clone(),
            device: Some(device),
            producers: None,
            config,
            started: Instant::now(),
            cooperative: false,
            grid,
            block,
        };
        scheduler.launch(&main, device_runtime)?;
        scheduler.producers = Some((0..scheduler.config.rings).map(|r| Producer::new(rings.clone(), r)).collect());
        Ok(scheduler)
    }

    /// Launches cooperatively, except code that launches children: the driver refuses a cooperative launch of
    /// it (measured on an H200 with driver 580: CUDA_ERROR_NOT_PERMITTED). The grid is sized by the occupancy
    /// query to be resident either way, and nothing else runs on the device while the scheduler starts, so
    /// every block is scheduled at once. Every buffer outlives the kernel (freed only after it has exited).
    fn launch(&mut self, main: &Kernel, device_runtime: bool) -> Result<()> {
        let d = self.device.as_ref().expect("device memory lives until stop");
        let (r, c) = (&*self.rings, &self.config);
        let (ring_cap, n_rings, q_cap) = (c.ring_capacity as i32, c.rings as i32, c.queue_capacity as i32);
        let (n_ids, hist_len, child_cap) = (c.count_ids as i32, c.history as i32, c.child_cap as i32);
        let trace_len = if c.fast_timing { c.trace_positions as i32 } else { 0 };
        // The parameter order of `sched_main` in sched.sk; `ring_words` is the slots' memory as words.
        let mut args = args![
            &r.hctl,
            &r.slots,
            r.slots.view_as::<u64>(),
            &r.tails,
            &r.heads,
            &r.done,
            ring_cap,
            n_rings,
            &d.ctl,
            &d.q_slots,
            &d.q_state,
            q_cap,
            &d.counts,
            n_ids,
            &d.hist,
            hist_len,
            &d.child_blocks,
            child_cap,
            &d.sink,
            &d.mailboxes,
            &d.trace,
            trace_len
        ];
        let config = LaunchConfig::new(self.grid, self.block);
        self.started = Instant::now();
        if device_runtime {
            return Ok(main.launch_on(&self.stream, &config, &mut args)?);
        }
        main.launch_cooperative_on(&self.stream, &config, &mut args)?;
        self.cooperative = true;
        Ok(())
    }

    /// Whether the kernel was launched cooperatively (the driver guarantees that every block is resident).
    pub fn cooperative(&self) -> bool {
        self.cooperative
    }

    /// One producer per ring, to move into the threads that submit. Only the first call returns them.
    pub fn producers(&mut self) -> Vec<Producer> {
        self.producers.take().unwrap_or_default()
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Asks the kernel to stop after draining everything submitted, waits for it (and its children) to exit,
    /// then reads back its counters, counts and history. Producers still held elsewhere are closed first (their
    /// later submits fail with [`SchedError::Stopped`]); a submit in progress is waited for.
    pub fn stop(mut self) -> Result<Finished> {
        self.request_stop();
        self.wait_exit()?;
        let ran_for = self.started.elapsed();
        let device = self.device.take().expect("device memory lives until stop");
        let words = device.ctl.download()?;
        let stats = Stats {
            executed: words[ctl::EXECUTED],
            spawn_inline: words[ctl::SPAWN_INLINE],
            child_launched: words[ctl::CHILD_LAUNCHED],
            child_inline: words[ctl::CHILD_INLINE],
            child_started: words[ctl::CHILD_STARTED],
            child_latency_sum_ns: words[ctl::CHILD_LAT_SUM],
            child_latency_max_ns: words[ctl::CHILD_LAT_MAX],
            history_records: words[ctl::HIST],
            left_reserved: words[ctl::RESERVED].wrapping_add(words[ctl::MAILBOX]),
            fast_path: words[ctl::FAST],
        };
        let counts = if self.config.count_ids > 0 { device.counts.download()? } else { Vec::new() };
        let mut history = if self.config.history > 0 { device.hist.download()? } else { Vec::new() };
        history.truncate(stats.history_records.min(self.config.history as u64) as usize);
        let trace = if self.config.fast_timing { device.trace.download()? } else { Vec::new() };
        Ok(Finished { stats, counts, history, trace, ran_for })
    }

    /// Closes every ring (waiting for a submit in progress) and writes the stop word.
    fn request_stop(&self) {
        for state in &self.rings.states {
            while state.compare_exchange(IDLE, CLOSED, Ordering::AcqRel, Ordering::Acquire).is_err() {
                if state.load(Ordering::Acquire) == CLOSED {
                    break;
                }
                std::hint::spin_loop();
            }
        }
        // Every tail is published (producers are closed); the kernel reads the stop word, then the tails.
        self.rings.hctl.atomic(0).store(1, Ordering::SeqCst);
    }

    /// Polls the stream (never a blocking synchronise: a hang becomes a timeout error, not a hung process).
    fn wait_exit(&self) -> Result<()> {
        let begin = Instant::now();
        while !self.stream.is_idle()? {
            if begin.elapsed() > self.config.timeout {
                return Err(SchedError::Timeout {
                    kernel: MAIN_KERNEL,
                    what: "exit after the stop request".into(),
                    waited: self.config.timeout,
                });
            }
            std::thread::sleep(Duration::from_micros(50));
        }
        Ok(())
    }
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        if let Some(device) = self.device.take() {
            // Dropped without `stop`: stop it, and free its memory only if it exited.
            self.request_stop();
            if self.wait_exit().is_err() {
                std::mem::forget(device);
                return;
            }
            drop(device);
        }
    }
}

/// Registers per SM and per thread of the persistent and the child kernel.
#[derive(Clone, Copy, Debug)]
struct RegisterBudget {
    per_sm: u32,
    main: u32,
    child: u32,
}

/// Registers a block of `threads` threads of a kernel using `regs` per thread takes on an SM: allocated per
/// warp in units of 256 (sm_70 and later).
fn block_registers(regs: u32, threads: u32) -> u32 {
    let per_warp = (regs * 32).div_ceil(256) * 256;
    per_warp * threads.div_ceil(32)
}

/// The most persistent blocks per SM (at most `per_sm`) that leave room for one child block beside them. With
/// no SM reserved, a child that fits nowhere waits until the scheduler exits: measured when the history variant's
/// 122 registers filled the register file at 2 blocks per SM and two child tasks never completed while the
/// scheduler ran.
fn blocks_leaving_child_room(per_sm: u32, block: u32, budget: RegisterBudget) -> u32 {
    let child = block_registers(budget.child, CHILD_BLOCK);
    let main = block_registers(budget.main, block).max(1);
    let fit = budget.per_sm.saturating_sub(child) / main;
    per_sm.min(fit)
}

/// Threads per block and a grid the device holds resident: blocks per SM from the occupancy query (and, with
/// `child_room`, no more than leave room for a child block on each SM), times the SMs not reserved for
/// children.
fn geometry(ctx: &Context, main: &Kernel, config: &Config, child_room: Option<RegisterBudget>) -> Result<(u32, u32)> {
    let block = config.block_warps * 32;
    let per_sm = main.max_active_blocks_per_sm(block, 0)?;
    let per_sm = config.blocks_per_sm.map_or(per_sm, |b| b.min(per_sm));
    let per_sm = child_room.map_or(per_sm, |budget| blocks_leaving_child_room(per_sm, block, budget));
    let sms = ctx.device().multiprocessors.saturating_sub(config.reserve_sms);
    let grid = per_sm * sms;
    if grid == 0 || (grid as usize) < config.rings.max(1) {
        return Err(SchedError::Config {
            kernel: MAIN_KERNEL,
            reason: format!(
                "a resident grid of {grid} blocks ({per_sm} per SM on {sms} SMs) cannot serve {} ring(s): each ring \
                 needs a block's scheduler warp",
                config.rings
            ),
        });
    }
    Ok((grid, block))
}

fn allocate_device(ctx: &Context, config: &Config, grid: u32) -> Result<DeviceState> {
    Ok(DeviceState {
        ctl: ctx.device_array(ctl::WORDS)?,
        q_slots: ctx.device_array(config.queue_capacity)?,
        q_state: ctx.device_array(config.queue_capacity)?,
        counts: ctx.device_array(config.count_ids.max(1))?,
        hist: ctx.device_array(config.history.max(1))?,
        child_blocks: ctx.device_array(config.rings.max(1) * config.ring_capacity)?,
        sink: ctx.device_array(1)?,
        mailboxes: ctx.device_array(grid as usize * MAILBOX_WORDS)?,
        trace: ctx.device_array(if config.fast_timing { config.trace_positions * trace::WORDS } else { 1 })?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_registers_round_each_warp_up_to_256() {
        assert_eq!(block_registers(14, 128), 4 * 512);
        assert_eq!(block_registers(120, 256), 8 * 3840);
        assert_eq!(block_registers(122, 256), 8 * 4096);
        assert_eq!(block_registers(96, 256), 8 * 3072);
    }

    #[test]
    fn persistent_blocks_leave_room_for_a_child() {
        let budget = |main| RegisterBudget { per_sm: 65536, main, child: 14 };
        // A history variant of 122 registers: 2 blocks fill the register file; one block is left.
        assert_eq!(blocks_leaving_child_room(2, 256, budget(122)), 1);
        // 120 registers leave 4,096 registers, two child blocks' worth.
        assert_eq!(blocks_leaving_child_room(2, 256, budget(120)), 2);
        assert_eq!(blocks_leaving_child_room(2, 256, budget(96)), 2);
        // Never more than the occupancy allowed.
        assert_eq!(blocks_leaving_child_room(1, 256, budget(32)), 1);
    }
}

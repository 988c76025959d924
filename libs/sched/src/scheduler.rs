//! [`Scheduler`]: compiles `stdlib/sched/sched.sk` for the configured variant, allocates its memory without
//! cudarc event tracking, launches `sched_main` cooperatively with a grid the device holds resident on a
//! non-blocking stream of its own, hands out one [`Producer`] per host ring, and stops it: the stop word is
//! written only after every producer has been closed, the kernel drains everything submitted and exits, and only
//! then is device memory read back and freed.

use std::ffi::c_void;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use skc_core::session::{stdlib_root, DiskFiles, Session};
use skc_runtime::cudarc::driver::{result, sys, CudaFunction};
use skc_runtime::{Context, Module, Program};

use crate::error::{Result, SchedError};
use crate::layout::{ctl, HistRecord, RingSlot, Task, MAILBOX_WORDS, RING_WORD_STRIDE};
use crate::memory::{DeviceArray, HostMapped};
use crate::producer::{Producer, CLOSED, IDLE};

/// The persistent kernel's name in sched.sk.
pub const MAIN_KERNEL: &str = "sched_main";

/// What to start.
#[derive(Clone, Debug)]
pub struct Config {
    /// Host rings, one per host producer thread.
    pub rings: usize,
    /// Slots per ring (a power of two): tasks one producer may have submitted and not yet completed.
    pub ring_capacity: usize,
    /// Slots of the device queue (a power of two).
    pub queue_capacity: usize,
    /// Records of queue history to keep (0: no recording, the kernel is compiled without it).
    pub history: usize,
    /// Task ids 0..count_ids get an execution counter (0: none).
    pub count_ids: usize,
    /// Warps per block; the first is the scheduler warp.
    pub block_warps: u32,
    /// Blocks per SM (at most what the occupancy query allows; `None`: that maximum).
    pub blocks_per_sm: Option<u32>,
    /// SMs left without a persistent block, for child grids.
    pub reserve_sms: u32,
    /// Children in flight at most (kept under the pending-launch limit).
    pub child_cap: u32,
    /// `cudaLimitDevRuntimePendingLaunchCount` to set (`None`: the driver's default, 2048).
    pub pending_launch_limit: Option<usize>,
    /// Host ring slots in write-combined memory (the host only writes them).
    pub write_combined_slots: bool,
    /// Longest sleep (ns) of an idle scheduler warp between reads of its ring's tail (`-D poll_idle_ns`).
    pub poll_idle_ns: u32,
    /// A lone task goes to the block's first worker through the block's mailbox (global memory) when that
    /// worker is idle (`-D fast_path`), instead of through the device queue.
    pub fast_path: bool,
    /// Sleep (ns) of the mailbox's worker between looks at the mailbox, after its spin window (`-D fast_poll_ns`).
    pub fast_poll_ns: u32,
    /// For this long (ns) after a scheduler warp last found a task, and after the mailbox's worker last took
    /// one, they poll without sleeping (`-D spin_ns`).
    pub spin_ns: u64,
    /// After handing a task to its mailbox, the scheduler warp issues no PCIe read until the worker has written
    /// the completion record, for at most this long (ns; 0: no pause) (`-D quiet_ns`): a system-scope fence
    /// waits for the PCIe reads its SM has in flight.
    pub quiet_ns: u64,
    /// Device timestamps of fast-path tasks summed into [`Stats`] (`-D fast_timing`); off for measurements of
    /// the round trip itself.
    pub fast_timing: bool,
    /// Longest wait for anything the GPU must do (a free ring slot, a completion, the kernel's exit).
    pub timeout: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            rings: 1,
            ring_capacity: 4096,
            queue_capacity: 1 << 16,
            history: 0,
            count_ids: 0,
            block_warps: 8,
            blocks_per_sm: Some(2),
            reserve_sms: 0,
            child_cap: 1024,
            pending_launch_limit: None,
            write_combined_slots: true,
            poll_idle_ns: 256,
            fast_path: true,
            fast_poll_ns: 64,
            spin_ns: 2_000_000,
            quiet_ns: 4_000,
            fast_timing: false,
            timeout: Duration::from_secs(20),
        }
    }
}

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
    /// With `fast_timing`: sums over `fast_timed` mailbox tasks (ns, globaltimer) of the scheduler warp's poll
    /// that found the task (its PCIe round trip), the way from there to the worker taking it, running and
    /// counting it, and the completion record's write.
    pub fast_poll_sum_ns: u64,
    pub fast_hand_sum_ns: u64,
    pub fast_run_sum_ns: u64,
    pub fast_done_sum_ns: u64,
    pub fast_timed: u64,
}

/// What a stopped scheduler leaves.
#[derive(Debug)]
pub struct Finished {
    pub stats: Stats,
    /// Execution count of each id below `count_ids`.
    pub counts: Vec<u32>,
    /// Recorded queue operations (at most `history` of them).
    pub history: Vec<HistRecord>,
    /// From launch to exit as the host saw it.
    pub ran_for: Duration,
}

/// The host-visible rings, shared with the producers.
pub(crate) struct Rings {
    pub ctx: Context,
    /// `[0]`: the stop request.
    pub hctl: HostMapped<u64>,
    pub slots: HostMapped<RingSlot>,
    pub tails: HostMapped<u64>,
    pub heads: HostMapped<u64>,
    pub done: HostMapped<u64>,
    pub states: Vec<AtomicU8>,
    pub capacity: usize,
    pub write_combined: bool,
    pub timeout: Duration,
}

impl Drop for Rings {
    fn drop(&mut self) {
        // The memory is freed by the fields' drops, which need the context current on this thread.
        self.ctx.cuda().bind_to_thread().ok();
    }
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
}

/// A running scheduler.
pub struct Scheduler {
    ctx: Context,
    _module: Module,
    stream: sys::CUstream,
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

// SAFETY: the raw stream handle is only used by the owner (&mut self / self).
unsafe impl Send for Scheduler {}

/// The scheduler's source, in the standard library.
pub fn source_path() -> PathBuf {
    stdlib_root().join("sched/sched.sk")
}

/// The scheduler program for a configuration (front end, CUDA C; no GPU needed).
pub fn program(config: &Config) -> Result<Program> {
    let defines = [
        ("record_history".to_string(), (config.history > 0).to_string()),
        ("block_warps".to_string(), config.block_warps.to_string()),
        ("poll_idle_ns".to_string(), format!("{}u", config.poll_idle_ns)),
        ("fast_path".to_string(), config.fast_path.to_string()),
        ("fast_poll_ns".to_string(), format!("{}u", config.fast_poll_ns)),
        ("spin_ns".to_string(), format!("{}UL", config.spin_ns)),
        ("quiet_ns".to_string(), format!("{}UL", config.quiet_ns)),
        ("fast_timing".to_string(), config.fast_timing.to_string()),
    ];
    let files = DiskFiles::new();
    let session = Session::standard(&files).with_defines(defines);
    Ok(Program::from_session_file(&session, source_path())?)
}

fn check_config(config: &Config) -> Result<()> {
    let bad = |reason: String| Err(SchedError::Config { kernel: MAIN_KERNEL, reason });
    if !config.ring_capacity.is_power_of_two() || !config.queue_capacity.is_power_of_two() {
        return bad("ring and queue capacities must be powers of two".into());
    }
    if config.queue_capacity > 1 << 30 || config.rings.max(1) * config.ring_capacity > i32::MAX as usize {
        // sched.sk indexes the queue and the rings' slots (`ring * ring_cap + slot`) with int32.
        return bad("the queue holds at most 2^30 slots, and all rings together fewer than 2^31".into());
    }
    if config.count_ids > i32::MAX as usize || config.history > i32::MAX as usize {
        return bad("count_ids and history must fit in an int32".into());
    }
    if config.block_warps < 2 || config.block_warps > 32 {
        return bad(format!("block_warps is {}: one scheduler warp and at least one worker", config.block_warps));
    }
    Ok(())
}

impl Scheduler {
    /// Compiles (cached), allocates and launches the scheduler.
    pub fn start(ctx: &Context, config: Config) -> Result<Scheduler> {
        check_config(&config)?;
        let program = program(&config)?;
        let module_needs_devrt = program.needs_device_runtime;
        let module = Module::from_program(ctx, program)?;
        let main = module.kernel(MAIN_KERNEL)?.cuda_function().clone();
        ctx.cuda().bind_to_thread().map_err(|e| SchedError::cuda("cuCtxSetCurrent", MAIN_KERNEL, e))?;
        if let Some(limit) = config.pending_launch_limit {
            // SAFETY: sets a context limit; no kernel of this context runs yet.
            unsafe { sys::cuCtxSetLimit(sys::CUlimit::CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT, limit) }
                .result()
                .map_err(|e| SchedError::cuda("cuCtxSetLimit", MAIN_KERNEL, e))?;
        }
        let child_room = if module_needs_devrt && config.reserve_sms == 0 {
            // Children must fit beside the persistent blocks when no SM is reserved for them.
            let regs = |name: &str| -> Result<u32> { Ok(module.kernel(name)?.registers()?) };
            let per_sm_regs = ctx
                .cuda()
                .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)
                .map_err(|e| SchedError::cuda("cuDeviceGetAttribute", MAIN_KERNEL, e))?
                .max(0) as u32;
            Some(RegisterBudget { per_sm: per_sm_regs, main: regs(MAIN_KERNEL)?, child: regs(CHILD_KERNEL)? })
        } else {
            None
        };
        let (grid, block) = geometry(ctx, &main, &config, child_room)?;
        let rings = Arc::new(allocate_rings(ctx, &config)?);
        let device = allocate_device(&config, grid)?;
        let stream = result::stream::create(result::stream::StreamKind::NonBlocking)
            .map_err(|e| SchedError::cuda("cuStreamCreate", MAIN_KERNEL, e))?;
        let mut scheduler = Scheduler {
            ctx: ctx.clone(),
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
        scheduler.launch(&main, module_needs_devrt)?;
        scheduler.producers = Some((0..scheduler.config.rings).map(|r| Producer::new(rings.clone(), r)).collect());
        Ok(scheduler)
    }

    /// Launches cooperatively, except code that launches children: the driver refuses a cooperative launch of
    /// it (measured on an H200 with driver 580: CUDA_ERROR_NOT_PERMITTED). The grid is sized by the occupancy
    /// query to be resident either way, and nothing else runs on the device while the scheduler starts, so
    /// every block is scheduled at once.
    fn launch(&mut self, main: &CudaFunction, device_runtime: bool) -> Result<()> {
        let d = self.device.as_ref().expect("device memory lives until stop");
        let r = &self.rings;
        let c = &self.config;
        let mut p_hctl = r.hctl.device_ptr();
        let mut p_slots = r.slots.device_ptr();
        let mut p_tails = r.tails.device_ptr();
        let mut p_heads = r.heads.device_ptr();
        let mut p_done = r.done.device_ptr();
        let mut ring_cap = c.ring_capacity as i32;
        let mut n_rings = c.rings as i32;
        let mut p_ctl = d.ctl.device_ptr();
        let mut p_qslots = d.q_slots.device_ptr();
        let mut p_qstate = d.q_state.device_ptr();
        let mut q_cap = c.queue_capacity as i32;
        let mut p_counts = d.counts.device_ptr();
        let mut n_ids = c.count_ids as i32;
        let mut p_hist = d.hist.device_ptr();
        let mut hist_len = c.history as i32;
        let mut p_child = d.child_blocks.device_ptr();
        let mut child_cap = c.child_cap as i32;
        let mut p_sink = d.sink.device_ptr();
        let mut p_mailboxes = d.mailboxes.device_ptr();
        // The parameter order of `sched_main` in sched.sk.
        let mut params: [*mut c_void; 19] = [
            &mut p_hctl as *mut u64 as *mut c_void,
            &mut p_slots as *mut u64 as *mut c_void,
            &mut p_tails as *mut u64 as *mut c_void,
            &mut p_heads as *mut u64 as *mut c_void,
            &mut p_done as *mut u64 as *mut c_void,
            &mut ring_cap as *mut i32 as *mut c_void,
            &mut n_rings as *mut i32 as *mut c_void,
            &mut p_ctl as *mut u64 as *mut c_void,
            &mut p_qslots as *mut u64 as *mut c_void,
            &mut p_qstate as *mut u64 as *mut c_void,
            &mut q_cap as *mut i32 as *mut c_void,
            &mut p_counts as *mut u64 as *mut c_void,
            &mut n_ids as *mut i32 as *mut c_void,
            &mut p_hist as *mut u64 as *mut c_void,
            &mut hist_len as *mut i32 as *mut c_void,
            &mut p_child as *mut u64 as *mut c_void,
            &mut child_cap as *mut i32 as *mut c_void,
            &mut p_sink as *mut u64 as *mut c_void,
            &mut p_mailboxes as *mut u64 as *mut c_void,
        ];
        self.started = Instant::now();
        let (f, grid, block) = (main.cu_function(), (self.grid, 1, 1), (self.block, 1, 1));
        // SAFETY: the parameters match sched_main's signature (checked by the NVRTC test's signature check);
        // every buffer outlives the kernel (freed only after it has exited).
        if device_runtime {
            return unsafe { result::launch_kernel(f, grid, block, 0, self.stream, &mut params) }
                .map_err(|e| SchedError::cuda("cuLaunchKernel", MAIN_KERNEL, e));
        }
        // SAFETY: as above.
        unsafe { result::launch_cooperative_kernel(f, grid, block, 0, self.stream, &mut params) }
            .map_err(|e| SchedError::cuda("cuLaunchCooperativeKernel", MAIN_KERNEL, e))?;
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
            fast_poll_sum_ns: words[ctl::FAST_POLL],
            fast_hand_sum_ns: words[ctl::FAST_HAND],
            fast_run_sum_ns: words[ctl::FAST_RUN],
            fast_done_sum_ns: words[ctl::FAST_DONE],
            fast_timed: words[ctl::FAST_TIMED],
        };
        let counts = if self.config.count_ids > 0 { device.counts.download()? } else { Vec::new() };
        let mut history = if self.config.history > 0 { device.hist.download()? } else { Vec::new() };
        history.truncate(stats.history_records.min(self.config.history as u64) as usize);
        Ok(Finished { stats, counts, history, ran_for })
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
        self.ctx.cuda().bind_to_thread().map_err(|e| SchedError::cuda("cuCtxSetCurrent", MAIN_KERNEL, e))?;
        let begin = Instant::now();
        loop {
            // SAFETY: a stream created by this scheduler.
            let status = unsafe { sys::cuStreamQuery(self.stream) };
            match status {
                sys::CUresult::CUDA_SUCCESS => return Ok(()),
                sys::CUresult::CUDA_ERROR_NOT_READY => {}
                other => return Err(SchedError::cuda("cuStreamQuery", MAIN_KERNEL, other.result().unwrap_err())),
            }
            if begin.elapsed() > self.config.timeout {
                return Err(SchedError::Timeout {
                    kernel: MAIN_KERNEL,
                    what: "exit after the stop request".into(),
                    waited: self.config.timeout,
                });
            }
            std::thread::sleep(Duration::from_micros(50));
        }
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
        // SAFETY: the kernel on this stream has exited.
        unsafe { result::stream::destroy(self.stream) }.ok();
    }
}

/// The child kernel's name in sched.sk.
const CHILD_KERNEL: &str = "sched_child";
/// Threads per child block (`launch sched_child arg 128 ...` in sched.sk).
const CHILD_BLOCK: u32 = 128;

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
fn geometry(
    ctx: &Context,
    main: &CudaFunction,
    config: &Config,
    child_room: Option<RegisterBudget>,
) -> Result<(u32, u32)> {
    let block = config.block_warps * 32;
    // SAFETY: a function of a loaded module.
    let per_sm = unsafe { result::occupancy::max_active_block_per_multiprocessor(main.cu_function(), block as i32, 0) }
        .map_err(|e| SchedError::cuda("cuOccupancyMaxActiveBlocksPerMultiprocessor", MAIN_KERNEL, e))?
        .max(0) as u32;
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

fn allocate_rings(ctx: &Context, config: &Config) -> Result<Rings> {
    let rings = config.rings.max(1);
    Ok(Rings {
        ctx: ctx.clone(),
        hctl: HostMapped::new(16, false)?,
        slots: HostMapped::new(rings * config.ring_capacity, config.write_combined_slots)?,
        tails: HostMapped::new(rings * RING_WORD_STRIDE, false)?,
        heads: HostMapped::new(rings * RING_WORD_STRIDE, false)?,
        done: HostMapped::new(rings * config.ring_capacity, false)?,
        states: (0..config.rings).map(|_| AtomicU8::new(IDLE)).collect(),
        capacity: config.ring_capacity,
        write_combined: config.write_combined_slots,
        timeout: config.timeout,
    })
}

fn allocate_device(config: &Config, grid: u32) -> Result<DeviceState> {
    Ok(DeviceState {
        ctl: DeviceArray::new(ctl::WORDS)?,
        q_slots: DeviceArray::new(config.queue_capacity)?,
        q_state: DeviceArray::new(config.queue_capacity)?,
        counts: DeviceArray::new(config.count_ids.max(1))?,
        hist: DeviceArray::new(config.history.max(1))?,
        child_blocks: DeviceArray::new(config.rings.max(1) * config.ring_capacity)?,
        sink: DeviceArray::new(1)?,
        mailboxes: DeviceArray::new(grid as usize * MAILBOX_WORDS)?,
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

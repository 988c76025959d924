//! [`Config`]: what a scheduler is started with: its sizes, its grid, and the compile-time options of
//! `stdlib/sched/sched.sk` it is compiled with (`-D`); [`program`] compiles sched.sk for one.

use std::path::PathBuf;
use std::time::Duration;

use skc_core::session::{stdlib_root, DiskFiles, Session};
use skc_runtime::Program;

use crate::error::{Result, SchedError};
use crate::layout::MAIN_KERNEL;

/// What to start.
#[derive(Clone, Debug)]
pub struct Config {
    /// Host rings, one per host producer thread.
    pub rings: usize,
    /// Slots per ring (a power of two, at most 2^23): tasks one producer may have submitted and not yet
    /// completed.
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
    /// Device timestamps of each lone task of ring 0 at a position below [`Config::trace_positions`], returned
    /// in [`crate::Finished::trace`] (`-D fast_timing`; see [`crate::layout::trace`]); off for measurements of
    /// the round trip itself.
    pub fast_timing: bool,
    /// Positions of ring 0 traced with `fast_timing`.
    pub trace_positions: usize,
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
            trace_positions: 1 << 16,
            timeout: Duration::from_secs(20),
        }
    }
}

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
    // The scheduler launches blocks of `block_warps` whole warps, and its warps read each other's lanes by shuffles.
    let session = Session::standard(&files).with_defines(defines).with_full_warps();
    Ok(Program::from_session_file(&session, source_path())?)
}

pub(crate) fn check_config(config: &Config) -> Result<()> {
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
    if config.ring_capacity > crate::layout::MAX_RING_CAPACITY {
        // A slot's 24-bit stamp must tell its position from the one a lap earlier.
        return bad(format!("a ring holds at most {} slots (2^23)", crate::layout::MAX_RING_CAPACITY));
    }
    if config.fast_timing && config.trace_positions.saturating_mul(crate::layout::trace::WORDS) > i32::MAX as usize {
        return bad("trace_positions * trace words must fit in an int32".into());
    }
    if config.block_warps < 2 || config.block_warps > 32 {
        return bad(format!("block_warps is {}: one scheduler warp and at least one worker", config.block_warps));
    }
    Ok(())
}

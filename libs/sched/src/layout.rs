//! What the host and `stdlib/sched/sched.sk` agree on: the kernels' names, the task record, the history record,
//! the ring slot, task kinds and the words of the device control array. The `.sk` constants of the same names are
//! the other half; the NVRTC test checks the record sizes against the emitted CUDA C, and every launch checks the
//! records' names and sizes against the kernel's signature.

/// The persistent kernel's name in sched.sk.
pub const MAIN_KERNEL: &str = "sched_main";
/// The child kernel's name in sched.sk.
pub const CHILD_KERNEL: &str = "sched_child";
/// Threads per child block (`launch sched_child arg 128 ...` in sched.sk).
pub const CHILD_BLOCK: u32 = 128;

/// One task: 32 bytes, `type task` of sched.sk.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Task {
    pub kind: i32,
    pub arg: i32,
    pub aux: i32,
    /// 0 from the host; the scheduler counts here how often a worker handed the task back to the queue.
    pub pad: i32,
    /// The task's id; spawn and child tasks also use ids `id + 1 ..= id + arg` for the tasks or tiles they make.
    pub id: i64,
    /// The completion record to write, `(ring << 40) | (position + 1)`. Not stored in a ring slot (the GPU
    /// computes it from the ring and the position, so what a submitted task holds here is ignored); set on the
    /// device for the queue.
    pub ret: u64,
}

skc_runtime::sk_record!(Task = "task");

pub const K_EMPTY: i32 = 0;
pub const K_COMPUTE: i32 = 1;
pub const K_SPAWN: i32 = 2;
pub const K_CHILD: i32 = 3;

impl Task {
    /// Does nothing but complete.
    pub fn empty(id: i64) -> Task {
        Task { kind: K_EMPTY, id, ..Task::default() }
    }

    /// A warp runs a dependent chain of `iters` fused multiply-adds per lane (about 2 ns each on an H100).
    pub fn compute(id: i64, iters: i32) -> Task {
        Task { kind: K_COMPUTE, arg: iters, id, ..Task::default() }
    }

    /// Device-side producer: enqueues `count` compute tasks of `iters` iterations (empty tasks when `iters` is 0),
    /// ids `id + 1 ..= id + count` (running a batch inline when the device queue is full). Also how a large task
    /// is tiled over the workers.
    pub fn spawn(id: i64, count: i32, iters: i32) -> Task {
        Task { kind: K_SPAWN, arg: count, aux: iters, id, ..Task::default() }
    }

    /// A large task as a fire-and-forget child grid of `blocks` blocks (tile ids `id + 1 ..= id + blocks`), or
    /// inline when too many children are in flight or the launch fails.
    pub fn child(id: i64, blocks: i32, iters: i32) -> Task {
        Task { kind: K_CHILD, arg: blocks, aux: iters, id, ..Task::default() }
    }

    /// How many ids the task uses (its own and those of what it makes).
    pub fn ids(&self) -> i64 {
        match self.kind {
            K_SPAWN | K_CHILD => 1 + self.arg.max(0) as i64,
            _ => 1,
        }
    }
}

/// One recorded queue operation (`type hrec` of sched.sk).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HistRecord {
    pub value: i64,
    pub t0: u64,
    pub t1: u64,
    /// Global warp number (block * warps per block + warp).
    pub who: i32,
    /// 0 enqueue, 1 dequeue.
    pub op: i32,
}

skc_runtime::sk_record!(HistRecord = "hrec");

/// Words of the device control array `ctl` (uint64), 16 apart (one 128-byte line each).
pub mod ctl {
    pub const HEAD: usize = 0;
    pub const TAIL: usize = 16;
    pub const COUNT: usize = 32;
    pub const RESERVED: usize = 48;
    pub const STOP: usize = 64;
    pub const DRAINED: usize = 80;
    pub const CHILDREN: usize = 96;
    pub const SPAWN_INLINE: usize = 112;
    pub const CHILD_LAUNCHED: usize = 128;
    pub const CHILD_INLINE: usize = 144;
    pub const HIST: usize = 160;
    pub const CHILD_LAT_SUM: usize = 176;
    pub const CHILD_LAT_MAX: usize = 192;
    pub const CHILD_STARTED: usize = 208;
    pub const EXECUTED: usize = 224;
    pub const FAST: usize = 240;
    /// Sums over fast-path tasks (ns, globaltimer; only with `-D fast_timing=true`), see `Stats`.
    pub const FAST_POLL: usize = 256;
    pub const FAST_HAND: usize = 272;
    pub const FAST_RUN: usize = 288;
    pub const FAST_DONE: usize = 304;
    pub const FAST_TIMED: usize = 320;
    /// Mailbox tasks not yet finished (must be 0 at exit).
    pub const MAILBOX: usize = 336;
    pub const WORDS: usize = 352;
}

/// Words (uint64) of one block's fast-path mailbox in the kernel's `mb` buffer (`mb_words` of sched.sk): one
/// 128-byte line per block. The buffer is in global memory, not shared memory: a scheduler kernel that declared
/// its mailbox in shared memory stopped launching children after 2,048 launches (docs/performance.md).
pub const MAILBOX_WORDS: usize = 16;

/// Host ring words (`ring_tail`, `ring_head`) are 8 apart: each ring's word has its own 64-byte line.
pub const RING_WORD_STRIDE: usize = 8;

/// A task as it sits in a host ring slot (`type rslot` of sched.sk): four 64-bit words, `kind | arg << 32`,
/// `aux`, `id`, and the completion record `(ring << 40) | (position + 1)` (which the GPU recomputes from the ring
/// and the position). Read by `load_slot` in sched.sk, only after the tail that covers the slot was published.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RingSlot {
    pub words: [u64; 4],
}

skc_runtime::sk_record!(RingSlot = "rslot");

/// The ring-slot form of `task` for position `pos` of ring `ring`.
pub fn ring_slot(task: &Task, ring: usize, pos: u64) -> RingSlot {
    RingSlot {
        words: [
            task.kind as u32 as u64 | (task.arg as u32 as u64) << 32,
            task.aux as u32 as u64,
            task.id as u64,
            ((ring as u64) << 40) | (pos + 1),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_have_the_sizes_the_kernel_assumes() {
        assert_eq!(std::mem::size_of::<Task>(), 32);
        assert_eq!(std::mem::size_of::<HistRecord>(), 32);
        assert_eq!(std::mem::size_of::<RingSlot>(), 32);
    }

    #[test]
    fn ring_slots_hold_the_fields_where_sched_sk_reads_them() {
        let task = Task::child(-7_000_000_000, -3, 1 << 20);
        let [w0, w1, w2, w3] = ring_slot(&task, 5, 41).words;
        // load_slot: kind = low32 w0, arg = low32 (w0 lsr 32), aux = low32 w1, id = int64 w2.
        assert_eq!((w0 as u32 as i32, (w0 >> 32) as u32 as i32), (task.kind, task.arg));
        assert_eq!((w1 as u32 as i32, w2 as i64), (task.aux, task.id));
        assert_eq!(w3, (5 << 40) | 42);
    }
}

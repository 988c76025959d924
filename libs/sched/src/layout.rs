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
    /// One of the `K_*` kinds (0..=3; any other kind up to [`MAX_KIND`] runs as a task that does nothing, and a
    /// kind outside 0..=255 is refused by `submit`: a ring slot carries 8 bits of it).
    pub kind: i32,
    pub arg: i32,
    pub aux: i32,
    /// Not stored in a ring slot (0 on the device); the scheduler counts here how often a worker handed the task
    /// back to the queue.
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
    /// Mailbox tasks not yet finished (must be 0 at exit).
    pub const MAILBOX: usize = 256;
    pub const WORDS: usize = 272;
}

/// The device timestamps of a traced task (`-D fast_timing`, `tr_*` of sched.sk): [`WORDS`](trace::WORDS)
/// words per position of ring 0, globaltimer nanoseconds (0: not reached), in the order the task goes through
/// the device.
pub mod trace {
    pub const WORDS: usize = 16;
    /// The scheduler warp's: the poll that found the task issued; its tail back; the task's slot back (the tail's
    /// time when the poll's own read of the head slot had it); the mailbox seen free; the hand-over's last store
    /// issued; the quiet window over.
    pub const POLL: usize = 0;
    pub const TAIL: usize = 1;
    pub const SLOT: usize = 2;
    pub const CHECKED: usize = 3;
    pub const HANDED: usize = 4;
    pub const QUIET: usize = 5;
    /// Polls that found nothing between the previous task and this one (a count, not a time).
    pub const EMPTY_POLLS: usize = 6;
    /// How the task was found: 1 by the one-read poll, 2 tail then slot (a code, not a time).
    pub const PATH: usize = 7;
    /// The worker's: the mailbox seen full; the task's fields read; the task run; the completion record's
    /// release store issued; its count-down and mailbox stores issued.
    pub const SEEN: usize = 8;
    pub const TAKEN: usize = 9;
    pub const RAN: usize = 10;
    pub const RECORDED: usize = 11;
    pub const RELEASED: usize = 12;
}

/// Words (uint64) of one block's fast-path mailbox in the kernel's `mb` buffer (`mb_words` of sched.sk): one
/// 128-byte line per block. The buffer is in global memory, not shared memory: a scheduler kernel that declared
/// its mailbox in shared memory stopped launching children after 2,048 launches (docs/performance.md).
pub const MAILBOX_WORDS: usize = 16;

/// Host ring words (`ring_tail`, `ring_head`) are 8 apart: each ring's word has its own 64-byte line.
pub const RING_WORD_STRIDE: usize = 8;

/// A task as it sits in a host ring slot (`type rslot` of sched.sk): four 64-bit words, each stamped with its
/// position (see [`stamped_slot`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RingSlot {
    pub words: [u64; 4],
}

skc_runtime::sk_record!(RingSlot = "rslot");

/// The largest ring: a 24-bit stamp of position + 1 then differs from the one the slot held a lap earlier.
pub const MAX_RING_CAPACITY: usize = 1 << 23;

/// The largest kind a ring slot and a mailbox word carry (8 bits, beside a 32-bit `arg` in 40 bits of payload).
pub const MAX_KIND: i32 = 0xFF;

/// Positions a ring can take over a scheduler's life: a completion record is `(ring << 40) | (position + 1)`, so
/// position + 1 must fit in 40 bits (about 1.1e12 tasks; 17 hours of one producer at 1.8e7 tasks/s).
pub const MAX_POSITIONS: u64 = (1 << 40) - 1;

/// Where a stamped slot word keeps its stamp (bits 40..63) and payload (bits 0..39).
const STAMP_SHIFT: u32 = 40;
const PAYLOAD: u64 = (1 << STAMP_SHIFT) - 1;

/// The stamp of position `pos`, in place (`stamp_of (p + 1)` in sched.sk).
pub fn stamp(pos: u64) -> u64 {
    ((pos + 1) & 0xFF_FFFF) << STAMP_SHIFT
}

/// Why `task` cannot be submitted, if it cannot: its kind must fit the 8 bits a slot gives it (`arg`, `aux` and
/// `id` travel whole; `pad` and `ret` are not stored: the GPU sets them).
pub fn check_task(task: &Task) -> Result<(), String> {
    if !(0..=MAX_KIND).contains(&task.kind) {
        return Err(format!("task {} has kind {}: a ring slot carries kinds 0..={MAX_KIND}", task.id, task.kind));
    }
    Ok(())
}

/// The ring-slot form of `task` for position `pos`: each word is `stamp(pos)` and 40 bits of the task:
/// `kind << 32 | arg` (kind in 8 bits: [`check_task`]), `aux`, the low and the high half of `id`. Each word is
/// written with one aligned 8-byte store and read by the GPU with one 8-byte load, so a word is never torn, and a
/// slot whose four stamps are `pos`'s holds `pos`'s task: an idle scheduler warp may read it in the same round
/// trip as the tail (`poll_ring` in sched.sk).
pub fn stamped_slot(task: &Task, pos: u64) -> RingSlot {
    let s = stamp(pos);
    let id = task.id as u64;
    RingSlot {
        words: [
            s | (task.kind as u64 & 0xFF) << 32 | task.arg as u32 as u64,
            s | task.aux as u32 as u64,
            s | (id & 0xFFFF_FFFF),
            s | (id >> 32),
        ],
    }
}

/// The task a stamped slot holds for position `pos` (as sched.sk decodes it), or `None` if a stamp is not
/// `pos`'s.
pub fn decode_stamped(slot: &RingSlot, pos: u64) -> Option<Task> {
    let [w0, w1, w2, w3] = slot.words;
    if slot.words.iter().any(|w| w & !PAYLOAD != stamp(pos)) {
        return None;
    }
    Some(Task {
        kind: ((w0 >> 32) & 0xFF) as i32,
        arg: w0 as u32 as i32,
        aux: w1 as u32 as i32,
        pad: 0,
        id: ((w3 & 0xFFFF_FFFF) << 32 | (w2 & 0xFFFF_FFFF)) as i64,
        ret: 0,
    })
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
    fn stamped_slots_round_trip_and_reject_other_positions() {
        let tasks = [
            Task::empty(0),
            Task::compute(-5, i32::MAX),
            Task::spawn(i64::MAX - 1000, 63, -1),
            Task::child(i64::MIN + 7, i32::MIN, 1 << 20),
            Task { kind: MAX_KIND, arg: -1, aux: i32::MIN, pad: 0, id: -1, ret: 0 },
        ];
        for pos in [0u64, 1, 4095, (1 << 24) - 2, (1 << 24) - 1, 1 << 24, 123_456_789_012] {
            for task in &tasks {
                let slot = stamped_slot(task, pos);
                assert_eq!(decode_stamped(&slot, pos), Some(*task), "position {pos}");
                // The slot of the same position one lap earlier or later (rings up to 2^23 slots) is not this one.
                for lap in [1u64, 2, 16, 4096, MAX_RING_CAPACITY as u64] {
                    assert_eq!(decode_stamped(&slot, pos + lap), None, "position {pos} + {lap}");
                }
                // A slot with one word of another position (read before the host rewrote it) is incomplete.
                for w in 0..4 {
                    let mut torn = slot;
                    torn.words[w] = stamped_slot(task, pos + 16).words[w];
                    assert_eq!(decode_stamped(&torn, pos + 16), None, "position {pos}, word {w} of the old lap");
                }
            }
            if pos < MAX_RING_CAPACITY as u64 {
                assert_eq!(decode_stamped(&RingSlot::default(), pos), None, "a zeroed slot is never position {pos}");
            }
        }
    }

    #[test]
    fn kinds_past_eight_bits_are_refused_before_they_reach_a_slot() {
        assert_eq!(check_task(&Task::child(3, 1, 1)), Ok(()));
        assert_eq!(check_task(&Task { kind: MAX_KIND, ..Task::empty(4) }), Ok(()));
        for kind in [MAX_KIND + 1, -1, i32::MIN, i32::MAX] {
            let err = check_task(&Task { kind, ..Task::empty(5) }).unwrap_err();
            assert!(err.contains(&format!("kind {kind}")) && err.contains("0..=255"), "{err}");
        }
    }
}

//! What the host and `stdlib/sched/sched.sk` agree on: the task record, the history record, task kinds and the
//! words of the device control array. The `.sk` constants of the same names are the other half; the NVRTC test
//! checks the record sizes against the emitted CUDA C.

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

/// A task as it sits in a host ring slot: four 64-bit words. With `Config::stamped_slots` (not the default)
/// each is stamped in its top 24 bits with the slot's position + 1 (mod 2^24) ([`encode_slot`]); otherwise the
/// words are the task record's ([`plain_slot`]). The host writes every word with one aligned 8-byte store and the
/// GPU reads it with one 8-byte system-scope load, so a word is never torn, and a slot whose four stamps all
/// match the position the GPU expects is completely written. That lets an idle scheduler warp read the slot at
/// its head in the same PCIe round trip as the tail (one read finds a lone task) instead of reading the tail
/// first and the slot after it; measured, it gained nothing in the round trip and cost a third of 1-producer
/// injection, hence not the default. Stamped low 40 bits: `kind` (8 bits) and `arg` (32) in word 0, `aux` in
/// word 1, the low and high halves of `id` in words 2 and 3; `ret` is not stored (the GPU knows the ring and the
/// position). Decoded by `decode_slot` and `load_slot` in sched.sk.
pub type RingSlot = [u64; 4];

/// Bits of a slot word's stamp. Rings hold at most 2^23 slots, so the stamp of a position and that of the
/// position one lap earlier (what the slot held before) always differ, and a slot still zeroed (never written)
/// is only read for a position below the capacity, whose stamp is not 0.
pub const STAMP_BITS: u32 = 24;

/// The stamp of position `pos`, shifted into place.
pub fn stamp(pos: u64) -> u64 {
    ((pos + 1) & ((1 << STAMP_BITS) - 1)) << 40
}

/// The ring-slot form of `task` for position `pos`.
pub fn encode_slot(task: &Task, pos: u64) -> RingSlot {
    let s = stamp(pos);
    let id = task.id as u64;
    [
        s | ((task.kind as u64 & 0xFF) << 32) | task.arg as u32 as u64,
        s | task.aux as u32 as u64,
        s | (id & 0xFFFF_FFFF),
        s | (id >> 32),
    ]
}

/// The plain (unstamped) ring-slot form of `task` for position `pos` of ring `ring` (`Config::stamped_slots`
/// off): the words of the task record, with its completion record set.
pub fn plain_slot(task: &Task, ring: usize, pos: u64) -> RingSlot {
    [
        task.kind as u32 as u64 | (task.arg as u32 as u64) << 32,
        task.aux as u32 as u64,
        task.id as u64,
        ((ring as u64) << 40) | (pos + 1),
    ]
}

/// The task a completely written slot holds (as the GPU decodes it), or `None` if a stamp is not `pos`'s.
pub fn decode_slot(slot: &RingSlot, pos: u64) -> Option<Task> {
    let s = stamp(pos);
    if slot.iter().any(|w| w & !0xFF_FFFF_FFFF != s) {
        return None;
    }
    Some(Task {
        kind: ((slot[0] >> 32) & 0xFF) as i32,
        arg: slot[0] as u32 as i32,
        aux: slot[1] as u32 as i32,
        pad: 0,
        id: ((slot[3] & 0xFFFF_FFFF) << 32 | (slot[2] & 0xFFFF_FFFF)) as i64,
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
    fn ring_slots_round_trip_and_reject_other_positions() {
        let tasks = [
            Task::empty(0),
            Task::compute(-5, i32::MAX),
            Task::spawn(i64::MAX - 1000, 63, -1),
            Task::child(i64::MIN + 7, i32::MIN, 1 << 20),
        ];
        for pos in [0u64, 1, 4095, (1 << 24) - 2, (1 << 24) - 1, 1 << 24, 123_456_789_012] {
            for task in &tasks {
                let slot = encode_slot(task, pos);
                assert_eq!(decode_slot(&slot, pos), Some(*task), "position {pos}");
                // The same slot one lap earlier or later (any ring capacity up to 2^23) is not taken for this one.
                for lap in [1u64, 2, 64, 4096, 1 << 23] {
                    assert_eq!(decode_slot(&slot, pos + lap), None, "position {pos} + {lap}");
                }
                // A slot with one word of another position is incomplete.
                for w in 0..4 {
                    let mut torn = slot;
                    torn[w] = encode_slot(task, pos + 1)[w];
                    assert_eq!(decode_slot(&torn, pos), None, "position {pos}, word {w} torn");
                }
            }
            if pos < 1 << 23 {
                assert_eq!(decode_slot(&[0; 4], pos), None, "a zeroed slot is never position {pos}");
            }
        }
    }
}

//! Memory of a launch: global buffers (the vector arguments), the running block's shared memory, constant
//! memory, and each thread's local memory; the handles that name them; and the shadow memory behind race and
//! initialisation checks.
//!
//! A handle (the value of a vector, array or `ref` cell) packs a memory space, a base (a buffer's index for global
//! memory, a word offset otherwise) and a length in elements into one word.
//!
//! Races. Every word of shared memory and of every global buffer the kernel writes has a [`Shadow`]: its last
//! write and its last two reads by different threads, each with the thread, the access's site and the epoch of
//! the thread's warp. Two accesses conflict when they come from different threads, at least one writes, and not
//! both are atomic; they race when neither happens before the other. Happens-before is the barriers' (block
//! barriers for the block, `warp_barrier` for a warp, named barriers for the warps that meet there), kept as a
//! vector clock over the warps of the block ([`Clocks`]). Threads of different blocks are never ordered (blocks
//! never wait for each other). Keeping two readers per word can miss a race when three or more threads read a
//! word before a conflicting write, never reports one that did not happen.

use crate::value::Scalar;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Global = 0,
    Shared = 1,
    Local = 2,
    Const = 3,
}

pub fn handle(space: Space, base: u32, len: u32) -> u64 {
    ((space as u64) << 62) | ((base as u64 & 0x3FFF_FFFF) << 32) | len as u64
}

pub fn decode(handle: u64) -> (Space, u32, u32) {
    let space = match handle >> 62 {
        0 => Space::Global,
        1 => Space::Shared,
        2 => Space::Local,
        _ => Space::Const,
    };
    (space, ((handle >> 32) & 0x3FFF_FFFF) as u32, handle as u32)
}

/// No thread.
pub const NOBODY: u32 = u32::MAX;
const ATOMIC: u32 = 1 << 31;

/// One access remembered by the shadow memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// The thread's index in the launch (blocks one after another, threads by rank).
    pub thread: u32,
    /// The epoch of the thread's warp, with [`ATOMIC`] set for an atomic access.
    pub epoch: u32,
    /// The instruction's address (its site is the access's expression).
    pub pc: u32,
}

impl Access {
    pub const NONE: Access = Access { thread: NOBODY, epoch: 0, pc: 0 };

    pub fn is_atomic(self) -> bool {
        self.epoch & ATOMIC != 0
    }

    pub fn epoch(self) -> u32 {
        self.epoch & !ATOMIC
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shadow {
    pub write: Access,
    pub read: Access,
    /// The last read by a thread other than `read`'s.
    pub other_read: Access,
}

impl Shadow {
    pub const FRESH: Shadow = Shadow { write: Access::NONE, read: Access::NONE, other_read: Access::NONE };
    /// Memory the host initialised: written, by nobody in particular, before the launch.
    pub const INITIALISED: Shadow =
        Shadow { write: Access { thread: NOBODY - 1, epoch: 0, pc: 0 }, read: Access::NONE, other_read: Access::NONE };

    pub fn is_initialised(&self) -> bool {
        self.write.thread != NOBODY
    }
}

/// A global buffer: a vector argument.
pub struct GlobalBuffer {
    pub words: Vec<u64>,
    /// Shadow words (for buffers the kernel may write).
    pub shadow: Option<Vec<Shadow>>,
}

/// Which thread performs an access, and where it stands.
#[derive(Clone, Copy, Debug)]
pub struct Accessor {
    pub thread: u32,
    pub warp: u32,
    pub pc: u32,
}

/// The happens-before state of the running block: an epoch per warp (advanced at each barrier the warp takes
/// part in) and, per warp, the latest epoch of every other warp it has synchronised with.
pub struct Clocks {
    pub warps: usize,
    pub threads_per_block: u32,
    /// The index in the launch of the block's first thread.
    pub first_thread: u32,
    pub epoch: Vec<u32>,
    /// `seen[w * warps + v]`: the epoch of warp `v` that warp `w` has synchronised with (0: none).
    pub seen: Vec<u32>,
}

impl Clocks {
    pub fn new() -> Clocks {
        Clocks { warps: 0, threads_per_block: 1, first_thread: 0, epoch: Vec::new(), seen: Vec::new() }
    }

    pub fn reset(&mut self, warps: usize, threads_per_block: u32, first_thread: u32) {
        self.warps = warps;
        self.threads_per_block = threads_per_block;
        self.first_thread = first_thread;
        self.epoch.clear();
        self.epoch.resize(warps, 1);
        self.seen.clear();
        self.seen.resize(warps * warps, 0);
    }

    /// A barrier among the warps in `participants` (each contributes and receives), with `arrivers` contributing
    /// only (`named_barrier_arrive`).
    pub fn synchronise(&mut self, participants: &[u32], arrivers: &[u32]) {
        let n = self.warps;
        let mut joined = vec![0u32; n];
        for &w in participants.iter().chain(arrivers) {
            let w = w as usize;
            for (v, joined) in joined.iter_mut().enumerate() {
                *joined = (*joined).max(self.seen[w * n + v]);
            }
            joined[w] = joined[w].max(self.epoch[w]);
        }
        for &w in participants {
            let w = w as usize;
            for (seen, joined) in self.seen[w * n..(w + 1) * n].iter_mut().zip(&joined) {
                *seen = (*seen).max(*joined);
            }
        }
        for &w in participants.iter().chain(arrivers) {
            self.epoch[w as usize] += 1;
        }
    }

    /// A barrier of the whole block.
    pub fn block_barrier(&mut self) {
        let n = self.warps;
        for w in 0..n {
            for v in 0..n {
                self.seen[w * n + v] = self.epoch[v];
            }
        }
        for e in &mut self.epoch {
            *e += 1;
        }
    }

    /// Does `earlier` happen before the current access of `by`?
    pub fn ordered(&self, earlier: Access, by: Accessor) -> bool {
        if earlier.thread == by.thread || earlier.thread == NOBODY - 1 {
            return true;
        }
        let block_start = self.first_thread;
        if earlier.thread < block_start || earlier.thread - block_start >= self.threads_per_block {
            return false;
        }
        let warp = ((earlier.thread - block_start) / 32) as usize;
        if warp == by.warp as usize {
            earlier.epoch() < self.epoch[warp]
        } else {
            self.seen[by.warp as usize * self.warps + warp] >= earlier.epoch()
        }
    }

    fn stamp(&self, by: Accessor, atomic: bool) -> Access {
        let epoch = self.epoch[by.warp as usize] | if atomic { ATOMIC } else { 0 };
        Access { thread: by.thread, epoch, pc: by.pc }
    }
}

impl Default for Clocks {
    fn default() -> Self {
        Clocks::new()
    }
}

/// A race found: the earlier access and whether the current one writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Race {
    pub earlier: Access,
    pub earlier_writes: bool,
    pub now_writes: bool,
}

/// Checks an access against a word's shadow and records it. `writes`: a store or a read-modify-write.
pub fn track(shadow: &mut Shadow, clocks: &Clocks, by: Accessor, writes: bool, atomic: bool) -> Option<Race> {
    let conflicts = |earlier: Access, earlier_writes: bool| {
        earlier.thread != NOBODY
            && earlier.thread != by.thread
            && (writes || earlier_writes)
            && !(atomic && earlier.is_atomic())
            && !clocks.ordered(earlier, by)
    };
    let mut race = None;
    if conflicts(shadow.write, true) {
        race = Some(Race { earlier: shadow.write, earlier_writes: true, now_writes: writes });
    } else if writes {
        for earlier in [shadow.read, shadow.other_read] {
            if conflicts(earlier, false) {
                race = Some(Race { earlier, earlier_writes: false, now_writes: true });
                break;
            }
        }
    }
    let stamp = clocks.stamp(by, atomic);
    if writes {
        shadow.write = stamp;
        shadow.read = Access::NONE;
        shadow.other_read = Access::NONE;
    } else if shadow.read.thread == by.thread {
        shadow.read = stamp;
    } else {
        shadow.other_read = shadow.read;
        shadow.read = stamp;
    }
    race
}

/// The value of an index of type `ty` (out-of-range unsigned values become -1: out of bounds anyway).
pub fn index_value(bits: u64, ty: Scalar) -> i64 {
    match ty {
        Scalar::Int32 => bits as u32 as i32 as i64,
        Scalar::UInt32 => bits as u32 as i64,
        Scalar::Int64 => bits as i64,
        _ => i64::try_from(bits).unwrap_or(-1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_round_trip() {
        let h = handle(Space::Shared, 12345, 4096);
        assert_eq!(decode(h), (Space::Shared, 12345, 4096));
        assert_eq!(decode(handle(Space::Const, 0x3FFF_FFFF, u32::MAX)), (Space::Const, 0x3FFF_FFFF, u32::MAX));
    }

    fn by(thread: u32) -> Accessor {
        Accessor { thread, warp: thread / 32, pc: 0 }
    }

    #[test]
    fn barriers_order_accesses() {
        let mut clocks = Clocks::new();
        clocks.reset(2, 64, 0);
        let mut word = Shadow::INITIALISED;
        assert!(track(&mut word, &clocks, by(0), true, false).is_none());
        // Another warp reads before any barrier: a race.
        assert!(track(&mut word, &clocks, by(40), false, false).is_some());
        clocks.block_barrier();
        assert!(track(&mut word, &clocks, by(1), true, false).is_none());
        // Same warp, no warp barrier: a race; after one, none.
        assert!(track(&mut word, &clocks, by(2), false, false).is_some());
        clocks.synchronise(&[0], &[]);
        assert!(track(&mut word, &clocks, by(3), true, false).is_none());
        // Atomics never race with each other.
        assert!(track(&mut word, &clocks, by(3), true, true).is_none());
        assert!(track(&mut word, &clocks, by(35), true, true).is_none());
        // But a plain read of an atomically written word, unordered, does.
        assert!(track(&mut word, &clocks, by(36), false, false).is_some());
    }

    #[test]
    fn threads_of_other_blocks_are_never_ordered() {
        let mut clocks = Clocks::new();
        clocks.reset(1, 32, 32);
        let earlier = Access { thread: 5, epoch: 1, pc: 0 };
        clocks.block_barrier();
        assert!(!clocks.ordered(earlier, by(33)));
    }
}

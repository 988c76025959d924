//! One GPU thread as a small state machine: its position in the launch, its register stack and local memory,
//! its call frames, and where it stands (running, waiting at a synchronisation point, parked at `activemask`,
//! exited). A thread that stops keeps `pc` at the instruction it stopped on, so two threads are at the same
//! program point exactly when their `pc` and the return addresses of their frames are equal.

use crate::code::{Code, Reg, SyncOp};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Where the caller continues.
    pub ret_pc: u32,
    /// The caller's register base.
    pub base: u32,
    /// The caller's local memory base.
    pub local_base: u32,
    /// The caller's register for the result.
    pub dst: Reg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Runnable,
    /// At a barrier or collective (`pc` is the `Sync` instruction).
    Waiting,
    /// At `activemask`, until its warp has no runnable lane.
    Parked,
    Exited,
}

/// What a waiting thread brings to its synchronisation point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pending {
    pub op: SyncOp,
    pub dst: Reg,
    pub a: u64,
    pub b: u64,
    pub c: u64,
}

pub struct Thread {
    /// Linear index in the block (x fastest), as the hardware numbers threads into warps.
    pub rank: u32,
    pub idx: [u32; 3],
    /// Index in the launch (blocks one after another).
    pub global: u32,
    pub warp: u32,
    pub lane: u32,
    pub pc: u32,
    pub base: u32,
    pub local_base: u32,
    pub regs: Vec<u64>,
    pub local: Vec<u64>,
    pub frames: Vec<Frame>,
    pub state: State,
    pub pending: Pending,
    /// Instructions executed.
    pub steps: u64,
    /// AST nodes evaluated (counted only when the launch asks: `Options::count_nodes`).
    pub nodes: u64,
}

impl Thread {
    pub fn new() -> Thread {
        Thread {
            rank: 0,
            idx: [0; 3],
            global: 0,
            warp: 0,
            lane: 0,
            pc: 0,
            base: 0,
            local_base: 0,
            regs: Vec::new(),
            local: Vec::new(),
            frames: Vec::new(),
            state: State::Exited,
            pending: Pending { op: SyncOp::BlockBarrier, dst: 0, a: 0, b: 0, c: 0 },
            steps: 0,
            nodes: 0,
        }
    }

    /// Is this thread at the same program point as `other`: the same instruction, reached through the same calls,
    /// in the same iteration of every loop around it and around each call?
    pub fn same_point(&self, other: &Thread, code: &Code) -> bool {
        let same_iterations = |pc: u32, base: u32, other_base: u32| {
            code.loops_around(pc)
                .iter()
                .all(|l| self.regs.get((base + l.reg) as usize) == other.regs.get((other_base + l.reg) as usize))
        };
        self.pc == other.pc
            && self.frames.len() == other.frames.len()
            && self.frames.iter().zip(&other.frames).all(|(a, b)| a.ret_pc == b.ret_pc)
            && same_iterations(self.pc, self.base, other.base)
            && self
                .frames
                .iter()
                .zip(&other.frames)
                .all(|(a, b)| same_iterations(a.ret_pc.saturating_sub(1), a.base, b.base))
    }

    /// The iteration of the innermost loop around the instruction it stopped at (0 for the first), if any.
    pub fn iteration(&self, code: &Code) -> Option<u64> {
        let l = *code.loops_around(self.pc).last()?;
        self.regs.get((self.base + l.reg) as usize).copied()
    }

    /// Where the thread stopped, as a key that orders program points as one thread would reach them: frame by
    /// frame from the kernel's, each loop around the call or instruction as (its first instruction, its
    /// iteration), then the instruction. Code is laid out in program order, so an earlier key is a point that
    /// comes first (a later iteration comes after every point of an earlier one).
    pub fn point_key(&self, code: &Code) -> Vec<(u32, u64)> {
        let mut key = Vec::new();
        let mut level = |pc: u32, base: u32| {
            for l in code.loops_around(pc) {
                key.push((l.head, self.regs.get((base + l.reg) as usize).copied().unwrap_or(0)));
            }
            key.push((pc, 0));
        };
        // Each frame holds a caller's call site (just before its return address) and register base.
        for frame in &self.frames {
            level(frame.ret_pc.saturating_sub(1), frame.base);
        }
        level(self.pc, self.base);
        key
    }

    /// The register `r` of the current frame.
    pub fn reg(&self, r: Reg) -> u64 {
        self.regs[(self.base + r) as usize]
    }

    pub fn set_reg(&mut self, r: Reg, value: u64) {
        let at = (self.base + r) as usize;
        self.regs[at] = value;
    }
}

impl Default for Thread {
    fn default() -> Self {
        Thread::new()
    }
}

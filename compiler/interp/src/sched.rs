//! Runs one block: its threads interleave between synchronisation points in the order the [`Schedule`] says,
//! each running until it stops (at a barrier or collective, at its exit, or when its slice ends at a loop's back
//! edge). A warp collective completes when every existing lane of the warp waits at the same collective (the same
//! instruction reached through the same calls); a block barrier when every thread of the block waits at the same
//! barrier (threads that exited do not count: a barrier after some threads left never completes); a named barrier
//! when its count of threads, in whole warps, has arrived. `activemask` parks a thread until no lane of its warp
//! can run, and then gives each group of lanes parked at the same place the mask of that group. When no thread can
//! run and some have not exited, the block has diverged: the report says who waits where and who left.

use std::collections::VecDeque;

use crate::code::{FunctionCode, SyncOp};
use crate::exec::{ChildLaunch, Exec, Finding, Stop};
use crate::launch::{Options, Rng, Schedule};
use crate::memory::{Clocks, GlobalBuffer, Shadow};
use crate::report::{self, Namer, Report, ReportKind};
use crate::thread::{State, Thread};
use crate::warp;

/// The state of one named barrier (`bar.sync id, count`).
#[derive(Clone, Debug, Default)]
struct Named {
    /// Threads expected (0: idle).
    count: u32,
    arrived: u32,
    /// Warps that wait (`named_barrier`) and that only arrive (`named_barrier_arrive`).
    waiting: Vec<u32>,
    arrivers: Vec<u32>,
}

/// A block being run, and the memory that lives per block (reused from block to block).
pub struct BlockRunner<'a> {
    pub namer: &'a Namer<'a>,
    pub kernel: &'a FunctionCode,
    pub params: &'a [u64],
    pub options: &'a Options,
    pub dynamic_shared_bytes: u32,
    threads: Vec<Thread>,
    shared: Vec<u64>,
    shared_shadow: Vec<Shadow>,
    clocks: Clocks,
    named: Vec<Named>,
    /// Warps registered at a named barrier (their lanes wait for the barrier's count).
    at_named: Vec<bool>,
    runnable: VecDeque<u32>,
    runnable_in_warp: Vec<u32>,
    parked_in_warp: Vec<u32>,
    exited: u32,
    block_waiting: u32,
    rng: Rng,
    block_idx: [u32; 3],
    /// Instructions the threads of finished blocks executed.
    pub instructions: u64,
    /// AST nodes they evaluated (with `Options::count_nodes`).
    pub nodes: u64,
}

/// Where the findings, child launches and time of the whole launch go.
pub struct LaunchState<'g> {
    pub globals: &'g mut [GlobalBuffer],
    pub findings: &'g mut Vec<Finding>,
    pub launches: &'g mut Vec<ChildLaunch>,
    pub printed: &'g mut String,
}

impl<'a> BlockRunner<'a> {
    pub fn new(
        namer: &'a Namer<'a>,
        kernel: &'a FunctionCode,
        params: &'a [u64],
        options: &'a Options,
        dynamic_shared_bytes: u32,
    ) -> Self {
        let tpb = namer.block.iter().product::<u32>() as usize;
        let warps = tpb.div_ceil(32);
        // At most one word per byte of dynamic shared memory (every element takes at least a byte).
        let shared_words = namer.program.code.static_shared as usize + dynamic_shared_bytes as usize;
        BlockRunner {
            namer,
            kernel,
            params,
            options,
            dynamic_shared_bytes,
            threads: (0..tpb).map(|_| Thread::new()).collect(),
            shared: vec![0; shared_words],
            shared_shadow: vec![Shadow::FRESH; shared_words],
            clocks: Clocks::new(),
            named: vec![Named::default(); 16],
            at_named: vec![false; warps],
            runnable: VecDeque::with_capacity(tpb),
            runnable_in_warp: vec![0; warps],
            parked_in_warp: vec![0; warps],
            exited: 0,
            block_waiting: 0,
            rng: Rng::new(0),
            block_idx: [0; 3],
            instructions: 0,
            nodes: 0,
        }
    }

    fn tpb(&self) -> u32 {
        self.threads.len() as u32
    }

    /// The ranks of warp `w`'s existing lanes.
    fn lanes(&self, w: u32) -> std::ops::Range<u32> {
        w * 32..(w * 32 + 32).min(self.tpb())
    }

    fn init(&mut self, block_linear: u32, block_idx: [u32; 3]) {
        let tpb = self.tpb();
        let block = self.namer.block;
        let warps = tpb.div_ceil(32) as usize;
        self.block_idx = block_idx;
        self.shared.fill(0);
        self.shared_shadow.fill(Shadow::FRESH);
        self.clocks.reset(warps, tpb, block_linear * tpb);
        for named in &mut self.named {
            *named = Named::default();
        }
        self.at_named.fill(false);
        self.parked_in_warp.fill(0);
        self.runnable_in_warp.fill(0);
        self.exited = 0;
        self.block_waiting = 0;
        self.runnable.clear();
        let seed = match self.options.schedule {
            Schedule::Random(seed) => seed ^ (block_linear as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            _ => 0,
        };
        self.rng = Rng::new(seed);
        for (rank, t) in self.threads.iter_mut().enumerate() {
            let rank = rank as u32;
            t.rank = rank;
            t.idx = [rank % block[0], (rank / block[0]) % block[1], rank / (block[0] * block[1])];
            t.global = block_linear * tpb + rank;
            t.warp = rank / 32;
            t.lane = rank % 32;
            t.pc = self.kernel.entry;
            t.base = 0;
            t.local_base = 0;
            t.regs.clear();
            t.regs.resize(self.kernel.frame_regs as usize, 0);
            t.regs[..self.params.len()].copy_from_slice(self.params);
            t.local.clear();
            t.local.resize(self.kernel.frame_local as usize, 0);
            t.frames.clear();
            t.steps = 0;
            t.nodes = 0;
            t.state = State::Runnable;
        }
        for w in 0..warps {
            self.runnable_in_warp[w] = self.lanes(w as u32).len() as u32;
        }
        let order = self.order((0..tpb).collect());
        self.runnable.extend(order);
    }

    /// `ranks` in the schedule's order for waking.
    fn order(&mut self, mut ranks: Vec<u32>) -> Vec<u32> {
        match self.options.schedule {
            Schedule::InOrder => {}
            Schedule::Reversed => ranks.reverse(),
            Schedule::Random(_) => {
                for i in (1..ranks.len()).rev() {
                    let j = self.rng.below(i as u64 + 1) as usize;
                    ranks.swap(i, j);
                }
            }
        }
        ranks
    }

    fn set_state(&mut self, rank: u32, state: State) {
        let t = &mut self.threads[rank as usize];
        let w = t.warp as usize;
        match t.state {
            State::Runnable => self.runnable_in_warp[w] -= 1,
            State::Parked => self.parked_in_warp[w] -= 1,
            _ => {}
        }
        t.state = state;
        match state {
            State::Runnable => self.runnable_in_warp[w] += 1,
            State::Parked => self.parked_in_warp[w] += 1,
            State::Exited => self.exited += 1,
            State::Waiting => {}
        }
    }

    /// Lets a stopped thread go on after its synchronisation point.
    fn wake(&mut self, rank: u32) {
        self.threads[rank as usize].pc += 1;
        self.set_state(rank, State::Runnable);
        self.runnable.push_back(rank);
    }

    /// Runs block `block_linear` (at `block_idx`) to its end. A fatal report ends it early.
    pub fn run(&mut self, block_linear: u32, block_idx: [u32; 3], launch: &mut LaunchState) -> Result<(), Box<Report>> {
        self.init(block_linear, block_idx);
        let result = self.schedule(launch);
        self.instructions += self.threads.iter().map(|t| t.steps).sum::<u64>();
        self.nodes += self.threads.iter().map(|t| t.nodes).sum::<u64>();
        result
    }

    fn schedule(&mut self, launch: &mut LaunchState) -> Result<(), Box<Report>> {
        let tpb = self.tpb();
        loop {
            let Some(rank) = self.next_runnable() else {
                if self.exited == tpb {
                    return Ok(());
                }
                if self.release_all_parked() {
                    continue;
                }
                return Err(Box::new(self.divergence()));
            };
            let slice = match self.options.schedule {
                Schedule::Random(_) => 1 + self.rng.below(self.options.slice.max(1)),
                _ => self.options.slice.max(1),
            };
            let stop = self.run_thread(rank, slice, launch);
            match stop {
                Stop::Yield => self.runnable.push_back(rank),
                Stop::Exit => {
                    self.set_state(rank, State::Exited);
                }
                Stop::Sync => self.arrive(rank, launch)?,
                Stop::Fault(fault) => {
                    let t = &self.threads[rank as usize];
                    return Err(Box::new(report::fault(self.namer, fault, t.global, t.pc)));
                }
            }
            let w = self.threads[rank as usize].warp;
            self.release_parked(w);
        }
    }

    fn next_runnable(&mut self) -> Option<u32> {
        match self.options.schedule {
            Schedule::Random(_) if !self.runnable.is_empty() => {
                let i = self.rng.below(self.runnable.len() as u64) as usize;
                self.runnable.swap_remove_back(i)
            }
            _ => self.runnable.pop_front(),
        }
    }

    fn run_thread(&mut self, rank: u32, slice: u64, launch: &mut LaunchState) -> Stop {
        let namer = self.namer;
        let t = &mut self.threads[rank as usize];
        let mut exec = Exec {
            code: &namer.program.code,
            globals: launch.globals,
            shared: &mut self.shared,
            shared_shadow: &mut self.shared_shadow,
            check_races: self.options.check_races,
            clocks: &self.clocks,
            grid: namer.grid,
            block: namer.block,
            block_idx: self.block_idx,
            dynamic_shared_bytes: self.dynamic_shared_bytes,
            findings: launch.findings,
            launches: launch.launches,
            printed: launch.printed,
            timer: self.instructions,
        };
        if self.options.count_nodes {
            exec.run::<true>(t, t.steps + slice, self.options.step_budget)
        } else {
            exec.run::<false>(t, t.steps + slice, self.options.step_budget)
        }
    }

    /// A thread reached a synchronisation point.
    fn arrive(&mut self, rank: u32, launch: &mut LaunchState) -> Result<(), Box<Report>> {
        let op = self.threads[rank as usize].pending.op;
        let w = self.threads[rank as usize].warp;
        match op {
            SyncOp::ActiveMask => self.set_state(rank, State::Parked),
            SyncOp::BlockBarrier | SyncOp::BlockReduce(_) => {
                self.set_state(rank, State::Waiting);
                self.block_waiting += 1;
                if self.block_waiting == self.tpb() && self.all_at_same_point(0..self.tpb()) {
                    self.complete_block_barrier();
                }
            }
            _ => {
                self.set_state(rank, State::Waiting);
                if !self.at_named[w as usize] && self.all_at_same_point(self.lanes(w)) {
                    self.complete_warp(w, launch)?;
                }
            }
        }
        Ok(())
    }

    /// Do the threads `ranks` all wait, at the same program point?
    fn all_at_same_point(&self, mut ranks: std::ops::Range<u32>) -> bool {
        let Some(first) = ranks.next() else { return false };
        let first = &self.threads[first as usize];
        first.state == State::Waiting
            && ranks.all(|r| {
                let t = &self.threads[r as usize];
                t.state == State::Waiting && t.same_point(first, &self.namer.program.code)
            })
    }

    fn complete_block_barrier(&mut self) {
        if self.options.check_races {
            self.clocks.block_barrier();
        }
        self.block_waiting = 0;
        if let SyncOp::BlockReduce(op) = self.threads[0].pending.op {
            let result = warp::block_reduce(op, self.threads.iter().map(|t| t.pending.a));
            for t in &mut self.threads {
                let dst = t.pending.dst;
                t.set_reg(dst, result);
            }
        }
        let ranks = self.order((0..self.tpb()).collect());
        for r in ranks {
            self.wake(r);
        }
    }

    fn complete_warp(&mut self, w: u32, launch: &mut LaunchState) -> Result<(), Box<Report>> {
        let lanes = self.lanes(w);
        let first = &self.threads[lanes.start as usize];
        let op = first.pending.op;
        match op {
            SyncOp::WarpBarrier => {
                if self.options.check_races {
                    self.clocks.synchronise(&[w], &[]);
                }
            }
            SyncOp::Shuffle(mode) | SyncOp::ShuffleWidth(mode) => {
                let ts = &self.threads[lanes.start as usize..lanes.end as usize];
                let values: Vec<u64> = ts.iter().map(|t| t.pending.a).collect();
                let operands: Vec<u64> = ts.iter().map(|t| t.pending.b).collect();
                let widths: Vec<u64> = match op {
                    SyncOp::ShuffleWidth(_) => ts.iter().map(|t| t.pending.c).collect(),
                    _ => vec![32; ts.len()],
                };
                let (results, absent) = warp::shuffle_within(mode, &values, &operands, &widths);
                for (lane, source) in absent {
                    let t = &self.threads[(lanes.start + lane) as usize];
                    let finding =
                        Finding::AbsentLane { thread: t.global, pc: t.pc, lane, source, lanes: lanes.len() as u32 };
                    launch.findings.push(finding);
                }
                for (i, r) in lanes.clone().enumerate() {
                    let t = &mut self.threads[r as usize];
                    let dst = t.pending.dst;
                    t.set_reg(dst, results[i]);
                }
            }
            SyncOp::Vote(vote) => {
                let ts = &self.threads[lanes.start as usize..lanes.end as usize];
                let predicates: Vec<u64> = ts.iter().map(|t| t.pending.a).collect();
                let result = warp::vote(vote, &predicates);
                for r in lanes.clone() {
                    let t = &mut self.threads[r as usize];
                    let dst = t.pending.dst;
                    t.set_reg(dst, result);
                }
            }
            SyncOp::WarpReduce(reduce) => {
                let ts = &self.threads[lanes.start as usize..lanes.end as usize];
                let values: Vec<u64> = ts.iter().map(|t| t.pending.a).collect();
                let result = warp::warp_reduce(reduce, &values);
                for r in lanes.clone() {
                    let t = &mut self.threads[r as usize];
                    let dst = t.pending.dst;
                    t.set_reg(dst, result);
                }
            }
            SyncOp::NamedBarrier { arrive } => return self.named_barrier(w, arrive),
            SyncOp::BlockBarrier | SyncOp::BlockReduce(_) | SyncOp::ActiveMask => return Ok(()),
        }
        let ranks = self.order(lanes.collect());
        for r in ranks {
            self.wake(r);
        }
        Ok(())
    }

    /// Warp `w` arrives at a named barrier (its lanes agree on the id and count, or it is a misuse).
    fn named_barrier(&mut self, w: u32, arrive: bool) -> Result<(), Box<Report>> {
        let lanes = self.lanes(w);
        let first = &self.threads[lanes.start as usize];
        let (id, count) = (first.pending.a as u32 as i32, first.pending.b as u32 as i32);
        let (global, pc, a, b) = (first.global, first.pc, first.pending.a, first.pending.b);
        let misuse = |problem: String| Err(Box::new(report::named_barrier(self.namer, global, pc, problem)));
        let lane_values = &self.threads[lanes.start as usize..lanes.end as usize];
        if let Some(t) = lane_values.iter().find(|t| t.pending.a != a || t.pending.b != b) {
            let (other_id, other_count) = (t.pending.a as u32 as i32, t.pending.b as u32 as i32);
            return misuse(format!(
                "lanes of warp {w} name different barriers or counts (barrier {id} for {count} threads, and barrier \
                 {other_id} for {other_count})"
            ));
        }
        if !(1..=15).contains(&id) {
            return misuse(format!("id {id} is not between 1 and 15 (0 is the block barrier's)"));
        }
        if count <= 0 || count % 32 != 0 {
            return misuse(format!("count {count} is not a positive multiple of 32"));
        }
        let named = &mut self.named[id as usize];
        if named.count != 0 && named.count != count as u32 {
            let expected = named.count;
            return misuse(format!("barrier {id} was given {expected} threads by another warp, and {count} here"));
        }
        named.count = count as u32;
        named.arrived += 32;
        if arrive {
            named.arrivers.push(w);
            let ranks = self.order(lanes.collect());
            for r in ranks {
                self.wake(r);
            }
        } else {
            named.waiting.push(w);
            self.at_named[w as usize] = true;
        }
        let named = &mut self.named[id as usize];
        if named.arrived >= named.count {
            let done = std::mem::take(named);
            if self.options.check_races {
                self.clocks.synchronise(&done.waiting, &done.arrivers);
            }
            for w in done.waiting {
                self.at_named[w as usize] = false;
                let ranks = self.order(self.lanes(w).collect());
                for r in ranks {
                    self.wake(r);
                }
            }
        }
        Ok(())
    }

    /// Once no lane of warp `w` can run, gives the lanes parked at the earliest `activemask` (in program order,
    /// [`Thread::point_key`]) the mask of those lanes, and lets them go on: lanes parked at later points wait for
    /// the lanes that may still reach them, as lanes reconverge on the hardware.
    fn release_parked(&mut self, w: u32) -> bool {
        let wi = w as usize;
        if self.parked_in_warp[wi] == 0 || self.runnable_in_warp[wi] > 0 {
            return false;
        }
        let code = &self.namer.program.code;
        let parked: Vec<(Vec<(u32, u64)>, u32)> = self
            .lanes(w)
            .filter(|r| self.threads[*r as usize].state == State::Parked)
            .map(|r| (self.threads[r as usize].point_key(code), r))
            .collect();
        let Some(earliest) = parked.iter().map(|(k, _)| k).min().cloned() else { return false };
        let group: Vec<u32> = parked.into_iter().filter(|(k, _)| *k == earliest).map(|(_, r)| r).collect();
        let mask: u64 = group.iter().map(|r| 1u64 << (r % 32)).sum();
        for &r in &group {
            let t = &mut self.threads[r as usize];
            let dst = t.pending.dst;
            t.set_reg(dst, mask);
        }
        let ranks = self.order(group);
        for r in ranks {
            self.wake(r);
        }
        true
    }

    fn release_all_parked(&mut self) -> bool {
        let mut any = false;
        for w in 0..self.tpb().div_ceil(32) {
            any |= self.release_parked(w);
        }
        any
    }

    /// The report of a block where no thread can run and some have not exited.
    fn divergence(&self) -> Report {
        let at_barrier = self.threads.iter().any(|t| {
            t.state == State::Waiting
                && matches!(
                    t.pending.op,
                    SyncOp::BlockBarrier | SyncOp::BlockReduce(_) | SyncOp::NamedBarrier { arrive: false }
                )
        });
        if at_barrier {
            let groups = report::groups(&self.threads, &self.namer.program.code);
            return report::divergence(self.namer, self.block_idx, &groups, None, ReportKind::BarrierDivergence);
        }
        let stuck = self.threads.iter().find(|t| t.state == State::Waiting).map(|t| t.warp).unwrap_or(0);
        let lanes = self.lanes(stuck);
        let groups = report::groups(&self.threads[lanes.start as usize..lanes.end as usize], &self.namer.program.code);
        report::divergence(self.namer, self.block_idx, &groups, Some(stuck), ReportKind::CollectiveDivergence)
    }
}

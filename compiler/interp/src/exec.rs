//! Runs one thread until it stops: at a barrier or collective, at its exit, when its time slice ends (at a loop's
//! back edge or `nanosleep`), or at a fault. This is the interpreter's inner loop; everything a thread does to
//! memory goes through [`Exec`], which checks bounds, initialisation and races.

use crate::code::{AtomicOp, Code, HalfOp, HandleBase, Instr, LaunchSite, Position, PrintfSite};
use crate::memory::{decode, handle, index_value, track, Accessor, Clocks, GlobalBuffer, Race, Shadow, Space};
use crate::ops::{self, IntFault};
use crate::thread::{Frame, Pending, Thread};
use crate::value::Scalar;
use skc_core::half_float::HalfFormat;
use skc_core::printf_format::{self, PrintfArg, PrintfValue};

/// Why a thread stopped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stop {
    /// At a `Sync` instruction (its `pending` says which).
    Sync,
    Exit,
    /// Its time slice ended; it can run on.
    Yield,
    /// It cannot go on; the launch fails.
    Fault(Fault),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fault {
    OutOfBounds {
        index: i64,
        len: u32,
        space: Space,
    },
    DivisionByZero,
    StepBudget {
        steps: u64,
    },
    /// The dynamic shared array needs more bytes than the launch gave.
    DynamicShared {
        needed: u64,
        given: u32,
    },
    /// A construct the interpreter does not run (`Code::traps`).
    Trap(u32),
    /// `assert c` with `c` false.
    AssertionFailed,
    /// A store into constant memory or through a dangling handle.
    BadMemory,
}

/// Something wrong that does not stop the thread.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Finding {
    Race {
        space: Space,
        buffer: u32,
        word: u64,
        race: Race,
        thread: u32,
        pc: u32,
    },
    UninitialisedRead {
        word: u64,
        thread: u32,
        pc: u32,
    },
    /// A shuffle read lane `source`, which does not exist in a warp of `lanes` lanes.
    AbsentLane {
        thread: u32,
        pc: u32,
        lane: u32,
        source: u32,
        lanes: u32,
    },
    /// Signed integer overflow (undefined in the language; the result wraps).
    Overflow {
        thread: u32,
        pc: u32,
    },
}

/// Findings kept per launch (the rest are dropped: reports keep one per place anyway).
pub const MAX_FINDINGS: usize = 100_000;

/// A device-side launch to run after the current grid.
#[derive(Clone, Debug)]
pub struct ChildLaunch {
    pub kernel: u32,
    pub grid: u32,
    pub block: u32,
    pub shared: u32,
    pub args: Vec<u64>,
    pub pc: u32,
    pub thread: u32,
}

/// What a running thread sees: the code, the launch's memory and geometry, and where findings go.
pub struct Exec<'a> {
    pub code: &'a Code,
    pub globals: &'a mut [GlobalBuffer],
    pub shared: &'a mut [u64],
    pub shared_shadow: &'a mut [Shadow],
    pub check_races: bool,
    pub clocks: &'a Clocks,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub block_idx: [u32; 3],
    pub dynamic_shared_bytes: u32,
    pub findings: &'a mut Vec<Finding>,
    pub launches: &'a mut Vec<ChildLaunch>,
    /// Instructions executed by the launch before this thread's slice (`globaltimer`).
    pub timer: u64,
    /// What `printf` printed, in the order the threads ran it.
    pub printed: &'a mut String,
}

impl Exec<'_> {
    /// Runs `t` until it stops; it stops at a loop's back edge once it has executed `slice_end` instructions in
    /// all, and faults there past `budget`.
    /// With `COUNT`, also adds the AST nodes its instructions stand for to `t.nodes` (`Code::weights`).
    pub fn run<const COUNT: bool>(&mut self, t: &mut Thread, slice_end: u64, budget: u64) -> Stop {
        let code = self.code;
        let weights = &code.weights[..];
        let mut nodes = 0u64;
        let instrs = &code.instrs[..];
        let mut pc = t.pc as usize;
        let mut base = t.base as usize;
        let mut steps = t.steps;
        let limit = slice_end.min(budget);
        // The registers live in a local while the thread runs (their pointer and length stay in CPU registers).
        let mut regs = std::mem::take(&mut t.regs);
        macro_rules! r {
            ($x:expr) => {
                regs[base + $x as usize]
            };
        }
        macro_rules! stop {
            ($why:expr) => {{
                t.regs = regs;
                t.nodes += nodes;
                t.pc = pc as u32;
                t.base = base as u32;
                t.steps = steps;
                return $why;
            }};
        }
        // An integer operation's result into `dst`: an overflow is reported and keeps the wrapped value, a
        // division by zero stops the thread.
        macro_rules! integer {
            ($result:expr, $dst:expr) => {
                match $result {
                    Ok(v) => r!($dst) = v,
                    Err(IntFault::Overflow(v)) => {
                        r!($dst) = v;
                        self.find(Finding::Overflow { thread: t.global, pc: pc as u32 });
                    }
                    Err(IntFault::DivisionByZero) => stop!(Stop::Fault(Fault::DivisionByZero)),
                }
            };
        }
        loop {
            let instr = instrs[pc];
            steps += 1;
            if COUNT {
                nodes += weights[pc] as u64;
            }
            match instr {
                Instr::Const { dst, bits } => r!(dst) = bits,
                Instr::Move { dst, src } => r!(dst) = r!(src),
                Instr::MoveN { dst, src, n } => {
                    let (s, d) = (base + src as usize, base + dst as usize);
                    regs.copy_within(s..s + n as usize, d);
                }
                Instr::I32 { op, dst, a, b } => integer!(ops::int32(op, r!(a), r!(b)), dst),
                Instr::U32 { op, dst, a, b } => integer!(ops::uint32(op, r!(a), r!(b)), dst),
                Instr::I64 { op, dst, a, b } => integer!(ops::int64(op, r!(a), r!(b)), dst),
                Instr::U64 { op, dst, a, b } => integer!(ops::uint64(op, r!(a), r!(b)), dst),
                Instr::F32 { op, dst, a, b } => r!(dst) = ops::float32(op, r!(a), r!(b)),
                Instr::F64 { op, dst, a, b } => r!(dst) = ops::float64(op, r!(a), r!(b)),
                Instr::CmpI32 { op, dst, a, b } => r!(dst) = ops::compare_i32(op, r!(a), r!(b)),
                Instr::Cmp { ty, op, dst, a, b } => r!(dst) = ops::compare(ty, op, r!(a), r!(b)),
                Instr::Unary { op, dst, a } => r!(dst) = ops::unary(op, r!(a)),
                Instr::Funnel { left, dst, lo, hi, shift } => {
                    r!(dst) = ops::funnel_shift(left, r!(lo), r!(hi), r!(shift))
                }
                Instr::Math32 { op, dst, a } => r!(dst) = ops::math32(op, r!(a)),
                Instr::Math64 { op, dst, a } => r!(dst) = ops::math64(op, r!(a)),
                Instr::Half { format, op, dst, a, b } => r!(dst) = ops::half(format, op, r!(a), r!(b)),
                Instr::HalfFma { format, dst, a, b, c } => {
                    r!(dst) = u64::from(format.fma(r!(a) as u16, r!(b) as u16, r!(c) as u16));
                }
                Instr::Fma32 { dst, a, b, c } => {
                    let f = |w: u64| f32::from_bits(w as u32);
                    r!(dst) = f(r!(a)).mul_add(f(r!(b)), f(r!(c))).to_bits() as u64;
                }
                Instr::Fma64 { dst, a, b, c } => {
                    let f = f64::from_bits;
                    r!(dst) = f(r!(a)).mul_add(f(r!(b)), f(r!(c))).to_bits();
                }
                Instr::Convert { from, to, dst, a } => r!(dst) = ops::convert(from, to, r!(a)),
                Instr::Select { dst, cond, a, b, n } => {
                    let src = if r!(cond) != 0 { a } else { b };
                    let (s, d) = (base + src as usize, base + dst as usize);
                    regs.copy_within(s..s + n as usize, d);
                }
                Instr::Jump { to } => {
                    pc = to as usize;
                    continue;
                }
                Instr::JumpIfNot { cond, to } => {
                    if r!(cond) == 0 {
                        pc = to as usize;
                        continue;
                    }
                }
                Instr::JumpIf { cond, to } => {
                    if r!(cond) != 0 {
                        pc = to as usize;
                        continue;
                    }
                }
                Instr::Loop { to, iter } => {
                    r!(iter) += 1;
                    pc = to as usize;
                    if steps >= limit {
                        if steps >= budget {
                            stop!(Stop::Fault(Fault::StepBudget { steps }));
                        }
                        stop!(Stop::Yield);
                    }
                    continue;
                }
                Instr::BranchI32 { op, a, b, to } => {
                    if ops::compare_i32(op, r!(a), r!(b)) == 0 {
                        pc = to as usize;
                        continue;
                    }
                }
                Instr::ForI32 { counter, last, down, iter, to } => {
                    let c = r!(counter) as u32 as i32;
                    if c != r!(last) as u32 as i32 {
                        r!(counter) = if down { c - 1 } else { c + 1 } as u32 as u64;
                        r!(iter) += 1;
                        pc = to as usize;
                        if steps >= limit {
                            if steps >= budget {
                                stop!(Stop::Fault(Fault::StepBudget { steps }));
                            }
                            stop!(Stop::Yield);
                        }
                        continue;
                    }
                }
                Instr::Load { dst, arr, idx, idx_ty, stride, offset, n } => {
                    let index = index_value(r!(idx), idx_ty);
                    let by = Accessor { thread: t.global, warp: t.warp, pc: pc as u32 };
                    let handle = r!(arr);
                    let at = base + dst as usize;
                    let (regs, local) = (&mut regs, &t.local);
                    let out = &mut regs[at..at + n as usize];
                    if let Err(fault) = self.load(handle, index, stride as u64, offset as u64, out, local, by) {
                        stop!(Stop::Fault(fault));
                    }
                }
                Instr::Store { src, arr, idx, idx_ty, stride, offset, n } => {
                    let index = index_value(r!(idx), idx_ty);
                    let by = Accessor { thread: t.global, warp: t.warp, pc: pc as u32 };
                    let handle = r!(arr);
                    let at = base + src as usize;
                    let (regs, local) = (&regs, &mut t.local);
                    let words = &regs[at..at + n as usize];
                    if let Err(fault) = self.store(handle, index, stride as u64, offset as u64, words, local, by) {
                        stop!(Stop::Fault(fault));
                    }
                }
                Instr::AtomicPairAdd { format, dst, arr, idx, a } => {
                    let index = index_value(r!(idx), Scalar::Int32);
                    let by = Accessor { thread: t.global, warp: t.warp, pc: pc as u32 };
                    let ty = if format == HalfFormat::Float16 { Scalar::Float16 } else { Scalar::BFloat16 };
                    let (handle, lanes) = (r!(arr), [r!(a), r!(a + 1)]);
                    // Both lanes within this one instruction: no other thread runs between them.
                    for lane in 0..2 {
                        let at = (index, 2, lane as u64);
                        match self.atomic(AtomicOp::Add, ty, handle, at, lanes[lane], 0, &mut t.local, by) {
                            Ok(old) => r!(dst + lane as u32) = old,
                            Err(fault) => stop!(Stop::Fault(fault)),
                        }
                    }
                }
                Instr::Atomic { op, ty, dst, arr, idx, a, b } => {
                    let index = index_value(r!(idx), Scalar::Int32);
                    let by = Accessor { thread: t.global, warp: t.warp, pc: pc as u32 };
                    let (handle, x, y) = (r!(arr), r!(a), r!(b));
                    match self.atomic(op, ty, handle, (index, 1, 0), x, y, &mut t.local, by) {
                        Ok(old) => {
                            if op != AtomicOp::Store {
                                r!(dst) = old;
                            }
                        }
                        Err(fault) => stop!(Stop::Fault(fault)),
                    }
                }
                Instr::Row { dst, arr, idx, idx_ty, stride, len } => {
                    let index = index_value(r!(idx), idx_ty);
                    let (space, base, rows) = decode(r!(arr));
                    match Self::address(index, rows, u64::from(stride), 0, space) {
                        Ok(at) => r!(dst) = handle(space, base + at as u32, len),
                        Err(fault) => stop!(Stop::Fault(fault)),
                    }
                }
                Instr::VectorView { dst, src, lanes } => {
                    let (space, base, len) = decode(r!(src));
                    r!(dst) = handle(space, base, len / lanes.max(1));
                }
                Instr::Handle { base: HandleBase::Local, dst, offset, len } => {
                    r!(dst) = handle(Space::Local, t.local_base + offset, len);
                }
                Instr::Handle { base: HandleBase::Shared, dst, offset, len } => {
                    r!(dst) = handle(Space::Shared, offset, len);
                }
                Instr::DynamicShared { dst, count, count_ty, elem_words, elem_bytes } => {
                    let count = index_value(r!(count), count_ty).max(0) as u64;
                    let needed = count * elem_bytes as u64;
                    let fits = needed <= self.dynamic_shared_bytes as u64
                        && (self.code.static_shared as u64 + count * elem_words as u64) <= self.shared.len() as u64;
                    if !fits {
                        stop!(Stop::Fault(Fault::DynamicShared { needed, given: self.dynamic_shared_bytes }));
                    }
                    r!(dst) = handle(Space::Shared, self.code.static_shared, count as u32);
                }
                Instr::NewCell { dst, offset, src, n } => {
                    let at = (t.local_base + offset) as usize;
                    let s = base + src as usize;
                    t.local[at..at + n as usize].copy_from_slice(&regs[s..s + n as usize]);
                    r!(dst) = handle(Space::Local, t.local_base + offset, 1);
                }
                Instr::Position { dst, which } => r!(dst) = self.position(t, which),
                Instr::Call { func, args, count, dst } => {
                    let callee = &code.functions[func as usize];
                    let new_base = regs.len();
                    regs.resize(new_base + callee.frame_regs as usize, 0);
                    let mut to = new_base;
                    for &(reg, n) in &code.call_args[args as usize..(args + count) as usize] {
                        let from = base + reg as usize;
                        regs.copy_within(from..from + n as usize, to);
                        to += n as usize;
                    }
                    let local_base = t.local.len();
                    t.local.resize(local_base + callee.frame_local as usize, 0);
                    t.frames.push(Frame { ret_pc: pc as u32 + 1, base: base as u32, local_base: t.local_base, dst });
                    base = new_base;
                    t.local_base = local_base as u32;
                    pc = callee.entry as usize;
                    continue;
                }
                Instr::Ret { src, n } => {
                    let Some(frame) = t.frames.pop() else { stop!(Stop::Exit) };
                    let from = base + src as usize;
                    let to = frame.base as usize + frame.dst as usize;
                    regs.copy_within(from..from + n as usize, to);
                    regs.truncate(base);
                    t.local.truncate(t.local_base as usize);
                    base = frame.base as usize;
                    t.local_base = frame.local_base;
                    pc = frame.ret_pc as usize;
                    continue;
                }
                Instr::Exit => stop!(Stop::Exit),
                Instr::Sync { op, dst, a, b, c } => {
                    t.pending = Pending { op, dst, a: r!(a), b: r!(b), c: r!(c) };
                    stop!(Stop::Sync);
                }
                Instr::Sleep => {
                    pc += 1;
                    stop!(Stop::Yield);
                }
                Instr::Timer { dst } => r!(dst) = self.timer + steps,
                Instr::Launch { site, dst } => {
                    let LaunchSite { kernel, grid, block, shared, args, count } = code.launches[site as usize];
                    let mut words = Vec::new();
                    for &(reg, n) in &code.call_args[args as usize..(args + count) as usize] {
                        let from = base + reg as usize;
                        words.extend_from_slice(&regs[from..from + n as usize]);
                    }
                    self.launches.push(ChildLaunch {
                        kernel,
                        grid: r!(grid) as u32,
                        block: r!(block) as u32,
                        shared: r!(shared) as u32,
                        args: words,
                        pc: pc as u32,
                        thread: t.global,
                    });
                    r!(dst) = 0;
                }
                Instr::Trap { message } => stop!(Stop::Fault(Fault::Trap(message))),
                Instr::Printf { site } => self.printf(&code.printf_sites[site as usize], &regs[..], base),
                Instr::Assert { cond } => {
                    if r!(cond) == 0 {
                        stop!(Stop::Fault(Fault::AssertionFailed));
                    }
                }
            }
            pc += 1;
        }
    }

    /// Records a finding (up to [`MAX_FINDINGS`]).
    fn find(&mut self, finding: Finding) {
        if self.findings.len() < MAX_FINDINGS {
            push(self.findings, finding);
        }
    }

    fn position(&self, t: &Thread, which: Position) -> u64 {
        let v: u32 = match which {
            Position::ThreadIdx(a) => t.idx[a as usize],
            Position::BlockIdx(a) => self.block_idx[a as usize],
            Position::BlockDim(a) => self.block[a as usize],
            Position::GridDim(a) => self.grid[a as usize],
            Position::GlobalIdx(a) => {
                let a = a as usize;
                self.block_idx[a].wrapping_mul(self.block[a]).wrapping_add(t.idx[a])
            }
            Position::GlobalThreadId => {
                let [gx, gy, _] = self.grid;
                let [bx, by, bz] = self.block_idx;
                let block = bx.wrapping_add(gx.wrapping_mul(by.wrapping_add(gy.wrapping_mul(bz))));
                let per_block = self.block[0].wrapping_mul(self.block[1]).wrapping_mul(self.block[2]);
                block.wrapping_mul(per_block).wrapping_add(t.rank)
            }
            Position::LaneId => t.lane,
            Position::WarpId => t.warp,
        };
        v as u64
    }

    /// The word offset of element `index`'s words `offset..` in an array of `len` elements of `stride` words.
    #[inline(always)]
    fn address(index: i64, len: u32, stride: u64, offset: u64, space: Space) -> Result<u64, Fault> {
        if index < 0 || index >= len as i64 {
            return Err(Fault::OutOfBounds { index, len, space });
        }
        Ok(index as u64 * stride + offset)
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn load(
        &mut self,
        h: u64,
        index: i64,
        stride: u64,
        offset: u64,
        out: &mut [u64],
        local: &[u64],
        by: Accessor,
    ) -> Result<(), Fault> {
        let (space, base, len) = decode(h);
        let at = Self::address(index, len, stride, offset, space)?;
        let n = out.len();
        match space {
            Space::Global => {
                let buffer = self.globals.get_mut(base as usize).ok_or(Fault::BadMemory)?;
                let at = at as usize;
                copy_words(out, buffer.words.get(at..at + n))?;
                if let (Some(shadow), true) = (&mut buffer.shadow, self.check_races) {
                    let words = &mut shadow[at..at + n];
                    track_global(words, self.clocks, self.findings, by, false, base, at);
                }
            }
            Space::Shared => {
                let at = (base as u64 + at) as usize;
                copy_words(out, self.shared.get(at..at + n))?;
                for k in 0..n {
                    let word = &mut self.shared_shadow[at + k];
                    if !word.is_initialised() {
                        let finding =
                            Finding::UninitialisedRead { word: (at + k) as u64, thread: by.thread, pc: by.pc };
                        push(self.findings, finding);
                    }
                    if self.check_races {
                        if let Some(race) = track(word, self.clocks, by, false, false) {
                            let word = (at + k) as u64;
                            let finding = Finding::Race { space, buffer: 0, word, race, thread: by.thread, pc: by.pc };
                            push(self.findings, finding);
                        }
                    } else if !word.is_initialised() {
                        *word = Shadow::INITIALISED;
                    }
                }
            }
            Space::Local => {
                let at = (base as u64 + at) as usize;
                copy_words(out, local.get(at..at + n))?;
            }
            Space::Const => {
                let at = (base as u64 + at) as usize;
                copy_words(out, self.code.constants.get(at..at + n))?;
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn store(
        &mut self,
        h: u64,
        index: i64,
        stride: u64,
        offset: u64,
        words: &[u64],
        local: &mut [u64],
        by: Accessor,
    ) -> Result<(), Fault> {
        let (space, base, len) = decode(h);
        let at = Self::address(index, len, stride, offset, space)?;
        let n = words.len();
        match space {
            Space::Global => {
                let buffer = self.globals.get_mut(base as usize).ok_or(Fault::BadMemory)?;
                let at = at as usize;
                copy_words(buffer.words.get_mut(at..at + n).ok_or(Fault::BadMemory)?, Some(words))?;
                if self.check_races {
                    let shadow = buffer.shadow.get_or_insert_with(|| vec![Shadow::INITIALISED; buffer.words.len()]);
                    track_global(&mut shadow[at..at + n], self.clocks, self.findings, by, true, base, at);
                }
            }
            Space::Shared => {
                let at = (base as u64 + at) as usize;
                copy_words(self.shared.get_mut(at..at + n).ok_or(Fault::BadMemory)?, Some(words))?;
                for k in 0..n {
                    let word = &mut self.shared_shadow[at + k];
                    if self.check_races {
                        if let Some(race) = track(word, self.clocks, by, true, false) {
                            let word = (at + k) as u64;
                            let finding = Finding::Race { space, buffer: 0, word, race, thread: by.thread, pc: by.pc };
                            push(self.findings, finding);
                        }
                    } else {
                        *word = Shadow::INITIALISED;
                    }
                }
            }
            Space::Local => {
                let at = (base as u64 + at) as usize;
                copy_words(local.get_mut(at..at + n).ok_or(Fault::BadMemory)?, Some(words))?;
            }
            Space::Const => return Err(Fault::BadMemory),
        }
        Ok(())
    }

    /// An atomic on one word (word `lane` of element `index`, whose elements are `lanes` words each: 1, 1 but for a
    /// 16-bit pair's); returns the old value.
    #[allow(clippy::too_many_arguments)]
    fn atomic(
        &mut self,
        op: AtomicOp,
        ty: Scalar,
        h: u64,
        (index, lanes, lane): (i64, u64, u64),
        a: u64,
        b: u64,
        local: &mut [u64],
        by: Accessor,
    ) -> Result<u64, Fault> {
        let (space, base, len) = decode(h);
        let at = Self::address(index, len, lanes, lane, space)? as usize;
        let writes = op != AtomicOp::Load;
        let check_races = self.check_races;
        let (word, shadow): (&mut u64, Option<&mut Shadow>) = match space {
            Space::Global => {
                let buffer = self.globals.get_mut(base as usize).ok_or(Fault::BadMemory)?;
                if writes && check_races && buffer.shadow.is_none() {
                    buffer.shadow = Some(vec![Shadow::INITIALISED; buffer.words.len()]);
                }
                let shadow = buffer.shadow.as_mut().map(|s| &mut s[at]);
                (buffer.words.get_mut(at).ok_or(Fault::BadMemory)?, shadow)
            }
            Space::Shared => {
                let at = base as usize + at;
                let shadow = &mut self.shared_shadow[at];
                if !shadow.is_initialised() {
                    let finding = Finding::UninitialisedRead { word: at as u64, thread: by.thread, pc: by.pc };
                    push(self.findings, finding);
                    if !check_races {
                        *shadow = Shadow::INITIALISED;
                    }
                }
                (self.shared.get_mut(at).ok_or(Fault::BadMemory)?, Some(shadow))
            }
            Space::Local => (local.get_mut(base as usize + at).ok_or(Fault::BadMemory)?, None),
            Space::Const if op == AtomicOp::Load => {
                return self.code.constants.get(base as usize + at).copied().ok_or(Fault::BadMemory)
            }
            Space::Const => return Err(Fault::BadMemory),
        };
        let old = *word;
        *word = atomic_result(op, ty, old, a, b);
        if let (Some(shadow), true) = (shadow, check_races) {
            if let Some(race) = track(shadow, self.clocks, by, writes, true) {
                let buffer = if space == Space::Global { base } else { 0 };
                let word = if space == Space::Global { at as u64 } else { (base as usize + at) as u64 };
                push(self.findings, Finding::Race { space, buffer, word, race, thread: by.thread, pc: by.pc });
            }
        }
        Ok(old)
    }
}

/// Records a finding, up to [`MAX_FINDINGS`].
/// Tracks an access by `by` to consecutive words of global buffer `buffer` from word `first` (their shadows in
/// `shadow`), recording each race it finds.
#[inline(always)]
fn track_global(
    shadow: &mut [Shadow],
    clocks: &Clocks,
    findings: &mut Vec<Finding>,
    by: Accessor,
    writes: bool,
    buffer: u32,
    first: usize,
) {
    for (k, word_shadow) in shadow.iter_mut().enumerate() {
        if let Some(race) = track(word_shadow, clocks, by, writes, false) {
            let word = (first + k) as u64;
            let finding = Finding::Race { space: Space::Global, buffer, word, race, thread: by.thread, pc: by.pc };
            push(findings, finding);
        }
    }
}

fn push(findings: &mut Vec<Finding>, finding: Finding) {
    if findings.len() < MAX_FINDINGS {
        findings.push(finding);
    }
}

/// Copies a value's words (one word, the common case, without a call to `memcpy`).
#[inline(always)]
fn copy_words(to: &mut [u64], from: Option<&[u64]>) -> Result<(), Fault> {
    let from = from.ok_or(Fault::BadMemory)?;
    if to.len() == 1 {
        to[0] = from[0];
    } else {
        to.copy_from_slice(from);
    }
    Ok(())
}

/// The new value of an atomic read-modify-write.
fn atomic_result(op: AtomicOp, ty: Scalar, old: u64, a: u64, b: u64) -> u64 {
    use crate::code::IntOp;
    let int = |op: IntOp| match ty {
        Scalar::Int32 => ops::int32(op, old, a),
        Scalar::UInt32 => ops::uint32(op, old, a),
        Scalar::Int64 => ops::int64(op, old, a),
        _ => ops::uint64(op, old, a),
    };
    match op {
        AtomicOp::Add => match ty {
            // atom.add.f32 flushes subnormal inputs and results to zero.
            Scalar::Float32 => {
                let ftz = |x: f32| if x.is_subnormal() { 0.0f32.copysign(x) } else { x };
                let sum = ftz(f32::from_bits(old as u32)) + ftz(f32::from_bits(a as u32));
                ftz(sum).to_bits() as u64
            }
            Scalar::Float64 => (f64::from_bits(old) + f64::from_bits(a)).to_bits(),
            // atom.add.noftz.f16 and .bf16: rounded once to nearest even, subnormals kept.
            Scalar::Float16 | Scalar::BFloat16 => ops::half(ty.half_format().expect("16-bit"), HalfOp::Add, old, a),
            _ => int(IntOp::Add).unwrap_or(old),
        },
        AtomicOp::Sub => int(IntOp::Sub).unwrap_or(old),
        AtomicOp::Min | AtomicOp::Max if matches!(ty, Scalar::Float32 | Scalar::Float64) => {
            ops::atomic_float_min_max(op == AtomicOp::Min, ty == Scalar::Float64, old, a)
        }
        AtomicOp::Min => int(IntOp::Min).unwrap_or(old),
        AtomicOp::Max => int(IntOp::Max).unwrap_or(old),
        AtomicOp::And => old & a,
        AtomicOp::Or => old | a,
        AtomicOp::Xor => old ^ a,
        AtomicOp::Exch | AtomicOp::Store => a,
        AtomicOp::Cas => {
            if old == a {
                b
            } else {
                old
            }
        }
        AtomicOp::Load => old,
    }
}

impl Exec<'_> {
    /// Formats one `printf` call's arguments as C would and appends the line.
    fn printf(&mut self, site: &PrintfSite, regs: &[u64], base: usize) {
        let values: Vec<PrintfValue> = site
            .args
            .iter()
            .map(|&(reg, ty)| {
                let bits = regs[base + reg as usize];
                match ty {
                    PrintfArg::Int32 => PrintfValue::Signed(bits as u32 as i32 as i64),
                    PrintfArg::UInt32 => PrintfValue::Unsigned(bits as u32 as u64),
                    PrintfArg::Int64 => PrintfValue::Signed(bits as i64),
                    PrintfArg::UInt64 => PrintfValue::Unsigned(bits),
                    PrintfArg::Float32 => PrintfValue::Float(f32::from_bits(bits as u32) as f64),
                    PrintfArg::Float64 => PrintfValue::Float(f64::from_bits(bits)),
                }
            })
            .collect();
        self.printed.push_str(&printf_format::format(&site.pieces, &values));
    }
}

//! What the interpreter reports, as skc-core `Diagnostic`s (codes R0001..R0014, each with an `skc explain` page)
//! so they print like compile errors: a primary label where it happened, secondary labels for the other threads
//! involved, notes naming the threads.

use skc_core::syntax::ast::{ExprId, ExprKind};
use skc_core::{Diagnostic, Span};

use crate::code::SyncOp;
use crate::exec::{Fault, Finding};
use crate::memory::Space;
use crate::thread::Thread;
use crate::Program;

/// The kind of a report (its code).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReportKind {
    /// R0001: a block barrier (or named barrier) that not every thread reaches.
    BarrierDivergence,
    /// R0002: a warp collective that not every existing lane of the warp reaches.
    CollectiveDivergence,
    /// R0003
    DataRace,
    /// R0004
    OutOfBounds,
    /// R0005
    DivisionByZero,
    /// R0006
    UninitialisedRead,
    /// R0007
    StepBudget,
    /// R0008: a shuffle reads a lane that does not exist.
    AbsentLane,
    /// R0009: the dynamic shared array is larger than the launch's dynamic shared memory.
    DynamicSharedTooSmall,
    /// R0010: a named barrier used inconsistently.
    NamedBarrier,
    /// R0011: a construct the interpreter cannot run.
    Unsupported,
    /// R0012: signed integer overflow.
    Overflow,
    /// R0013: the launch breaks the kernel's launch contract (no thread runs).
    LaunchContract,
    /// R0014: `assert c` with `c` false.
    AssertionFailed,
}

impl ReportKind {
    pub fn code(self) -> &'static str {
        match self {
            ReportKind::BarrierDivergence => "R0001",
            ReportKind::CollectiveDivergence => "R0002",
            ReportKind::DataRace => "R0003",
            ReportKind::OutOfBounds => "R0004",
            ReportKind::DivisionByZero => "R0005",
            ReportKind::UninitialisedRead => "R0006",
            ReportKind::StepBudget => "R0007",
            ReportKind::AbsentLane => "R0008",
            ReportKind::DynamicSharedTooSmall => "R0009",
            ReportKind::NamedBarrier => "R0010",
            ReportKind::Unsupported => "R0011",
            ReportKind::Overflow => "R0012",
            ReportKind::LaunchContract => "R0013",
            ReportKind::AssertionFailed => "R0014",
        }
    }

    /// Does it stop the launch?
    pub fn is_fatal(self) -> bool {
        !matches!(
            self,
            ReportKind::DataRace | ReportKind::UninitialisedRead | ReportKind::AbsentLane | ReportKind::Overflow
        )
    }

    /// Is it a divergence (what the convergence analysis promises never happens)?
    pub fn is_divergence(self) -> bool {
        matches!(self, ReportKind::BarrierDivergence | ReportKind::CollectiveDivergence)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub kind: ReportKind,
    pub diagnostic: Diagnostic,
}

/// Names threads and places of one launch.
pub struct Namer<'a> {
    pub program: &'a Program,
    pub grid: [u32; 3],
    pub block: [u32; 3],
}

impl Namer<'_> {
    fn threads_per_block(&self) -> u32 {
        self.block[0] * self.block[1] * self.block[2]
    }

    fn block_of(&self, global: u32) -> [u32; 3] {
        let b = global / self.threads_per_block().max(1);
        [b % self.grid[0], (b / self.grid[0]) % self.grid[1], b / (self.grid[0] * self.grid[1])]
    }

    fn multi_dim(dims: [u32; 3]) -> bool {
        dims[1] > 1 || dims[2] > 1
    }

    fn coords(dims: [u32; 3], v: [u32; 3]) -> String {
        if Self::multi_dim(dims) {
            format!("({},{},{})", v[0], v[1], v[2])
        } else {
            v[0].to_string()
        }
    }

    /// `block 2`, or `block (1,2,0)` for a grid of several dimensions.
    pub fn block_name(&self, block: [u32; 3]) -> String {
        format!("block {}", Self::coords(self.grid, block))
    }

    /// `thread 5 of block 2`, with coordinates when the block or grid has several dimensions.
    pub fn thread(&self, global: u32) -> String {
        let tpb = self.threads_per_block().max(1);
        let rank = global % tpb;
        let idx =
            [rank % self.block[0], (rank / self.block[0]) % self.block[1], rank / (self.block[0] * self.block[1])];
        let thread = Self::coords(self.block, idx);
        if self.grid == [1, 1, 1] {
            format!("thread {thread}")
        } else {
            format!("thread {thread} of {}", self.block_name(self.block_of(global)))
        }
    }

    pub fn span_of_pc(&self, pc: u32) -> Span {
        let site = self.program.code.sites.get(pc as usize).copied().unwrap_or(ExprId(0));
        self.program.span(site)
    }

    /// The kind of expression instruction `pc` comes from.
    pub fn site_kind(&self, pc: u32) -> Option<&ExprKind> {
        let site = self.program.code.sites.get(pc as usize)?;
        self.program.module.exprs.get(site.index())
    }

    /// Where a synchronisation instruction is: a `superstep`'s barrier is shown on its keyword.
    pub fn sync_span(&self, pc: u32) -> Span {
        let site = self.program.code.sites.get(pc as usize).copied().unwrap_or(ExprId(0));
        let span = self.program.span(site);
        match self.program.module.expr(site) {
            ExprKind::Superstep { .. } if span.len() > 9 => Span { end: span.start + 9, ..span },
            _ => span,
        }
    }

    /// The part of `span` on its first line (a loop's header rather than the whole loop).
    pub fn first_line(&self, span: Span) -> Span {
        let text = self.program.source_text(span);
        match text.find('\n') {
            Some(n) => Span { end: span.start + text[..n].trim_end().len() as u32, ..span },
            None => span,
        }
    }

    /// Where a thread left the kernel: its `return`, or the last character of the kernel's body.
    pub fn exit_span(&self, pc: u32) -> Span {
        let site = self.program.code.sites.get(pc as usize).copied().unwrap_or(ExprId(0));
        let span = self.program.span(site);
        match self.program.module.expr(site) {
            ExprKind::Return(_) => span,
            _ => Span { start: span.end.saturating_sub(1).max(span.start), ..span },
        }
    }
}

/// `0-15, 32, 40-47` for sorted ranks.
pub fn ranges(ranks: &[u32]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < ranks.len() {
        let mut j = i;
        while j + 1 < ranks.len() && ranks[j + 1] == ranks[j] + 1 {
            j += 1;
        }
        parts.push(if i == j { ranks[i].to_string() } else { format!("{}-{}", ranks[i], ranks[j]) });
        i = j + 1;
    }
    if parts.len() > 6 {
        let shown = parts[..6].join(", ");
        return format!("{shown}, ... ({} in all)", ranks.len());
    }
    parts.join(", ")
}

/// `thread 3` / `threads 0-15`.
pub fn threads_phrase(ranks: &[u32]) -> String {
    if ranks.len() == 1 {
        format!("thread {}", ranks[0])
    } else {
        format!("threads {}", ranges(ranks))
    }
}

fn sync_name(op: SyncOp) -> &'static str {
    match op {
        SyncOp::BlockBarrier => "barrier",
        SyncOp::WarpBarrier => "warp barrier",
        SyncOp::BlockReduce(_) => "barrier reduction",
        SyncOp::Shuffle(_) | SyncOp::ShuffleWidth(_) => "shuffle",
        SyncOp::Vote(_) => "vote",
        SyncOp::WarpReduce(_) => "warp reduction",
        SyncOp::NamedBarrier { .. } => "named barrier",
        SyncOp::ActiveMask => "activemask",
    }
}

/// A group of threads of a block that stopped at the same place.
pub struct Group {
    pub ranks: Vec<u32>,
    /// The instruction (a `Sync`, or the `Exit` for exited threads).
    pub pc: u32,
    pub op: Option<SyncOp>,
    /// The return addresses of the calls that led there, outermost first.
    pub calls: Vec<u32>,
    /// The iteration of the innermost loop around that place (0 for the first), if there is one.
    pub iteration: Option<u64>,
}

/// Groups the threads by where they stopped (`threads` of one block, or one warp's lanes).
pub fn groups(threads: &[Thread], code: &crate::code::Code) -> Vec<Group> {
    let mut out: Vec<(usize, Group)> = Vec::new();
    for (i, t) in threads.iter().enumerate() {
        let exited = t.state == crate::thread::State::Exited;
        let found = out.iter_mut().find(|(first, g)| {
            let other = &threads[*first];
            (other.state == crate::thread::State::Exited) == exited
                && (exited && g.pc == t.pc || !exited && t.same_point(other, code))
        });
        match found {
            Some((_, g)) => g.ranks.push(t.rank),
            None => {
                let op = (!exited).then_some(t.pending.op);
                let calls = t.frames.iter().map(|f| f.ret_pc).collect();
                let iteration = if exited { None } else { t.iteration(code) };
                out.push((i, Group { ranks: vec![t.rank], pc: t.pc, op, calls, iteration }));
            }
        }
    }
    out.into_iter().map(|(_, g)| g).collect()
}

/// The divergence report of a block that can make no progress: the groups of its threads and where each stopped.
pub fn divergence(namer: &Namer, block: [u32; 3], groups: &[Group], warp: Option<u32>, kind: ReportKind) -> Report {
    let mut waiting: Vec<&Group> = groups.iter().filter(|g| g.op.is_some()).collect();
    // The primary label goes to the largest group (then the one reached through the fewest calls).
    waiting.sort_by_key(|g| (std::cmp::Reverse(g.ranks.len()), g.calls.len(), g.ranks[0]));
    let exited: Vec<&Group> = groups.iter().filter(|g| g.op.is_none()).collect();
    let Some(first) = waiting.first() else {
        let d = Diagnostic::error(kind.code(), "no thread can go on, and none waits");
        return Report { kind, diagnostic: d };
    };
    let what = if kind == ReportKind::BarrierDivergence { "barrier" } else { "warp collective" };
    let scope = match warp {
        Some(w) => format!("warp {w} of {}", namer.block_name(block)),
        None => namer.block_name(block),
    };
    let message = if waiting.len() > 1 {
        format!("{what} divergence: the threads of {scope} wait at {} different places", waiting.len())
    } else {
        let left: usize = exited.iter().map(|g| g.ranks.len()).sum();
        format!("{what} divergence: {left} thread(s) of {scope} exited, and the others wait for them")
    };
    let mut d = Diagnostic::error(kind.code(), message);
    for (i, g) in waiting.iter().enumerate() {
        let place = match namer.site_kind(g.pc) {
            Some(ExprKind::Superstep { .. }) => "the barrier that ends this superstep".to_string(),
            _ => format!("this {}", sync_name(g.op.unwrap_or(SyncOp::BlockBarrier))),
        };
        let shared_place = waiting.iter().filter(|o| o.pc == g.pc).count() > 1;
        let when = match g.iteration {
            Some(n) if shared_place => format!(", in iteration {} of the loop around it", n + 1),
            _ => String::new(),
        };
        let text = format!("{} wait at {place}{when}", threads_phrase(&g.ranks));
        let span = namer.sync_span(g.pc);
        d = if i == 0 { d.primary(span, text) } else { d.secondary(span, text) };
        if let Some(&ret) = g.calls.last() {
            let call = namer.span_of_pc(ret.saturating_sub(1));
            d = d.secondary(call, format!("{} got there through this call", threads_phrase(&g.ranks)));
        }
    }
    for g in &exited {
        d = d.secondary(namer.exit_span(g.pc), format!("{} left the kernel here", threads_phrase(&g.ranks)));
    }
    let _ = first;
    d = d
        .note(format!(
            "threads are numbered by rank in the block (x fastest), as the hardware groups them into warps of 32; the \
             block has {} threads",
            namer.threads_per_block()
        ))
        .note(
            "a barrier completes only when every thread of the block reaches the same barrier (the same place, through \
             the same calls, in the same loop iterations; exited threads do not count), and a warp collective only \
             when every existing lane of the warp reaches the same collective",
        );
    Report { kind, diagnostic: d }
}

/// A fault of one thread.
pub fn fault(namer: &Namer, fault: Fault, thread: u32, pc: u32) -> Report {
    let who = namer.thread(thread);
    let mut span = namer.span_of_pc(pc);
    if let Fault::StepBudget { .. } = fault {
        span = namer.first_line(span);
    }
    let (kind, message, label, note) = match fault {
        Fault::OutOfBounds { index, len, space } => (
            ReportKind::OutOfBounds,
            format!("index out of bounds: {who} accesses element {index} of {} with {len} elements", space_name(space)),
            format!("index {index}, but the length is {len}"),
            None,
        ),
        Fault::DivisionByZero => (
            ReportKind::DivisionByZero,
            format!("integer division by zero in {who}"),
            "the divisor is 0".to_string(),
            None,
        ),
        Fault::StepBudget { steps } => (
            ReportKind::StepBudget,
            format!("{who} ran past the step budget ({steps} instructions): the kernel may never end"),
            "it was still looping here".to_string(),
            Some("raise the budget with `--steps N` if the kernel is just long".to_string()),
        ),
        Fault::DynamicShared { needed, given } => (
            ReportKind::DynamicSharedTooSmall,
            format!("the dynamic shared array needs {needed} bytes, and the launch gives {given}"),
            format!("{needed} bytes"),
            Some("pass the bytes with `--shared BYTES`".to_string()),
        ),
        Fault::Trap(message) => {
            let what = namer.program.code.traps.get(message as usize).cloned().unwrap_or_default();
            (ReportKind::Unsupported, format!("the interpreter cannot run {what}"), format!("{who} reached it"), None)
        }
        Fault::AssertionFailed => (
            ReportKind::AssertionFailed,
            format!("assertion failed in {who}"),
            "this condition is false".to_string(),
            None,
        ),
        Fault::BadMemory => (
            ReportKind::OutOfBounds,
            format!("{who} accesses memory it cannot (a store to constant memory or a dangling handle)"),
            "here".to_string(),
            None,
        ),
    };
    let mut d = Diagnostic::error(kind.code(), message).primary(span, label);
    if let Some(note) = note {
        d = d.note(note);
    }
    Report { kind, diagnostic: d }
}

fn space_name(space: Space) -> &'static str {
    match space {
        Space::Global => "a vector",
        Space::Shared => "a shared array",
        Space::Local => "a local array",
        Space::Const => "a constant array",
    }
}

/// A finding that does not stop the launch.
pub fn finding(namer: &Namer, finding: &Finding, buffer_names: &[String]) -> Report {
    match *finding {
        Finding::Race { space, buffer, word, race, thread, pc } => {
            let place = match space {
                Space::Global => {
                    let name = buffer_names.get(buffer as usize).map(String::as_str).unwrap_or("?");
                    format!("word {word} of `{name}`")
                }
                _ => format!("word {word} of shared memory"),
            };
            let verb = |writes: bool, atomic: bool| match (writes, atomic) {
                (true, true) => "atomically updates",
                (true, false) => "writes",
                (false, true) => "atomically reads",
                (false, false) => "reads",
            };
            let now = format!("{} {} it here", namer.thread(thread), verb(race.now_writes, false));
            let earlier = format!(
                "{} {} it here, with no barrier in between",
                namer.thread(race.earlier.thread),
                verb(race.earlier_writes, race.earlier.is_atomic())
            );
            let (span, earlier_span) = (namer.span_of_pc(pc), namer.span_of_pc(race.earlier.pc));
            let mut d = Diagnostic::error(
                ReportKind::DataRace.code(),
                format!("data race on {place}: {} and {}", namer.thread(race.earlier.thread), namer.thread(thread)),
            );
            d = if span == earlier_span {
                d.primary(span, format!("{now}; {earlier}"))
            } else {
                d.primary(span, now).secondary(earlier_span, earlier)
            };
            d = d.note(
                "two accesses race when different threads make them, at least one writes, not both are atomic, and no \
                 barrier both threads take part in comes between them",
            );
            Report { kind: ReportKind::DataRace, diagnostic: d }
        }
        Finding::UninitialisedRead { word, thread, pc } => {
            let d = Diagnostic::error(
                ReportKind::UninitialisedRead.code(),
                format!("{} reads word {word} of shared memory, which no thread has written", namer.thread(thread)),
            )
            .primary(namer.span_of_pc(pc), "this read sees uninitialised shared memory")
            .note("shared memory starts undefined in every block; the interpreter reads it as 0");
            Report { kind: ReportKind::UninitialisedRead, diagnostic: d }
        }
        Finding::AbsentLane { thread, pc, lane, source, lanes } => absent_lane(namer, thread, pc, lane, source, lanes),
        Finding::Overflow { thread, pc } => {
            let d = Diagnostic::error(
                ReportKind::Overflow.code(),
                format!("signed integer overflow in {}", namer.thread(thread)),
            )
            .primary(namer.span_of_pc(pc), "the result does not fit its type")
            .note(
                "signed overflow is undefined in the language (NVRTC optimises assuming it never happens); the \
                 interpreter wraps and goes on. Compute on uint32 or uint64 where wrapping is meant",
            );
            Report { kind: ReportKind::Overflow, diagnostic: d }
        }
    }
}

/// A shuffle whose source lane does not exist (the last warp of a block of a size that is not a multiple of 32).
pub fn absent_lane(namer: &Namer, thread: u32, pc: u32, lane: u32, source: u32, lanes: u32) -> Report {
    let d = Diagnostic::error(
        ReportKind::AbsentLane.code(),
        format!("{} (lane {lane}) shuffles from lane {source}, which does not exist in its warp", namer.thread(thread)),
    )
    .primary(namer.span_of_pc(pc), format!("lane {source} is read here; the warp has {lanes} lanes"))
    .note(
        "the last warp of a block whose size is not a multiple of 32 has fewer lanes; CUDA leaves a shuffle from a \
         missing lane undefined, and the interpreter reads 0 there (the same for every lane that reads it)",
    );
    Report { kind: ReportKind::AbsentLane, diagnostic: d }
}

/// A named barrier used inconsistently.
pub fn named_barrier(namer: &Namer, thread: u32, pc: u32, problem: String) -> Report {
    let d = Diagnostic::error(ReportKind::NamedBarrier.code(), format!("named barrier misuse: {problem}"))
        .primary(namer.span_of_pc(pc), format!("{} reached it", namer.thread(thread)))
        .note(
            "a named barrier's id is 1 to 15 and its count a multiple of 32, the same for every warp that meets there",
        );
    Report { kind: ReportKind::NamedBarrier, diagnostic: d }
}

/// R0013: a launch of `kernel` with blocks of `block` threads breaks its contract (`violation`).
pub fn contract_violation(
    kernel: &crate::Kernel,
    block: [u32; 3],
    violation: &skc_core::contract::ContractViolation,
) -> Report {
    let [x, y, z] = block;
    let d = Diagnostic::error(
        ReportKind::LaunchContract.code(),
        format!("the launch breaks the contract of kernel `{}`: {}", kernel.name, violation.reason),
    )
    .primary(kernel.name_span, format!("`{}` declares `{}`", kernel.name, violation.attribute))
    .note(format!("the launch's block is ({x}, {y}, {z}); no thread ran"))
    .help("launch it with a block that keeps the contract, or drop the attribute (and what relies on it)");
    Report { kind: ReportKind::LaunchContract, diagnostic: d }
}

//! A launch: checks the arguments against the kernel's parameters and the geometry against CUDA's limits, lays
//! the vectors out as global buffers, runs the grid's blocks one after another (in order, reversed, or shuffled,
//! as the schedule says), then the kernels the grid launched from the device (after their parent, in the order
//! they were launched), and writes the vectors back into the arguments.
//!
//! This is the entry point a runtime backend calls: a checked program, a kernel's name, the geometry with its
//! dynamic shared bytes, and the argument buffers.

use std::fmt;

use crate::exec::{ChildLaunch, Finding};
use crate::memory::{handle, GlobalBuffer, Shadow, Space};
use crate::report::{self, Namer, Report, ReportKind};
use crate::sched::{BlockRunner, LaunchState};
use crate::value::Arg;
use crate::{ParamKind, Program};

/// Grid and block extents (x fastest) and the bytes of dynamic shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared_bytes: u32,
}

impl Geometry {
    /// A one-dimensional launch.
    pub fn linear(grid: u32, block: u32) -> Geometry {
        Geometry { grid: [grid, 1, 1], block: [block, 1, 1], dynamic_shared_bytes: 0 }
    }

    pub fn with_shared(mut self, bytes: u32) -> Geometry {
        self.dynamic_shared_bytes = bytes;
        self
    }

    pub fn threads_per_block(&self) -> u64 {
        self.block.iter().map(|&d| d as u64).product()
    }

    pub fn blocks(&self) -> u64 {
        self.grid.iter().map(|&d| d as u64).product()
    }
}

/// The order in which the threads of a block take turns between synchronisation points (and blocks run).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// By rank, each thread running until it stops; blocks in order.
    InOrder,
    /// By rank from the last; blocks from the last.
    Reversed,
    /// A random runnable thread at each turn, for a random slice of instructions; blocks shuffled. Deterministic
    /// from the seed.
    Random(u64),
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Schedule::InOrder => write!(f, "in-order"),
            Schedule::Reversed => write!(f, "reversed"),
            Schedule::Random(seed) => write!(f, "random:{seed}"),
        }
    }
}

impl std::str::FromStr for Schedule {
    type Err = String;
    fn from_str(s: &str) -> Result<Schedule, String> {
        match s {
            "in-order" => Ok(Schedule::InOrder),
            "reversed" => Ok(Schedule::Reversed),
            _ => match s.strip_prefix("random:").map(str::parse) {
                Some(Ok(seed)) => Ok(Schedule::Random(seed)),
                _ => Err(format!("`{s}` is not a schedule: in-order, reversed or random:SEED")),
            },
        }
    }
}

#[derive(Clone, Debug)]
pub struct Options {
    pub schedule: Schedule,
    /// Track happens-before and report data races (and keep shadow memory for every written vector).
    pub check_races: bool,
    /// Instructions one thread may execute before it is reported as hanging.
    pub step_budget: u64,
    /// Instructions a thread runs before the scheduler may switch at a loop's back edge (for `Random`, the
    /// largest slice drawn).
    pub slice: u64,
    /// Reports of one kind kept (the rest are counted).
    pub max_reports_per_kind: usize,
    /// Device-side launches run before further ones are refused.
    pub max_child_launches: usize,
    /// Also count the AST nodes evaluated (`Outcome::nodes`; a few percent slower).
    pub count_nodes: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            schedule: Schedule::InOrder,
            check_races: true,
            step_budget: 100_000_000,
            slice: 10_000,
            max_reports_per_kind: 5,
            max_child_launches: 4096,
            count_nodes: false,
        }
    }
}

/// What a launch did.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Fatal report first (if any), then the others in the order found.
    pub reports: Vec<Report>,
    /// Did every thread run to its end (no fatal report)?
    pub completed: bool,
    /// Instructions executed by all threads (thread-instructions).
    pub instructions: u64,
    /// AST nodes evaluated by all threads (0 unless `Options::count_nodes`).
    pub nodes: u64,
    pub threads: u64,
    /// Reports beyond `max_reports_per_kind` or repeating an earlier one (same places), not kept.
    pub suppressed: usize,
    /// What the threads' `printf` calls printed, in the order they ran them.
    pub printed: String,
}

impl Outcome {
    pub fn has(&self, kind: ReportKind) -> bool {
        self.reports.iter().any(|r| r.kind == kind)
    }

    pub fn diverged(&self) -> bool {
        self.reports.iter().any(|r| r.kind.is_divergence())
    }
}

/// A launch that cannot start: its arguments or geometry do not fit the kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaunchError {
    UnknownKernel { name: String, kernels: Vec<String> },
    ArgumentCount { kernel: String, expected: usize, given: usize },
    ArgumentType { kernel: String, param: String, expected: String, given: String },
    Geometry(String),
}

impl fmt::Display for LaunchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaunchError::UnknownKernel { name, kernels } => {
                write!(f, "no kernel `{name}` in the program (its kernels: {})", kernels.join(", "))
            }
            LaunchError::ArgumentCount { kernel, expected, given } => {
                write!(f, "kernel `{kernel}` takes {expected} argument(s), {given} given")
            }
            LaunchError::ArgumentType { kernel, param, expected, given } => {
                write!(f, "argument `{param}` of kernel `{kernel}` must be {expected}, not {given}")
            }
            LaunchError::Geometry(why) => write!(f, "invalid launch geometry: {why}"),
        }
    }
}

impl std::error::Error for LaunchError {}

/// A small deterministic generator (xorshift64*).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() >> 32) * n) >> 32
    }
}

/// Runs `kernel` of `program` over a grid. Vector arguments receive what the kernel wrote.
pub fn launch(
    program: &Program,
    kernel: &str,
    geometry: &Geometry,
    args: &mut [Arg],
    options: &Options,
) -> Result<Outcome, LaunchError> {
    let index = program.kernel_index(kernel).ok_or_else(|| LaunchError::UnknownKernel {
        name: kernel.to_string(),
        kernels: program.kernels.iter().map(|k| k.name.clone()).collect(),
    })?;
    check_geometry(geometry)?;
    check_arguments(program, index, args)?;
    let kernel_interface = &program.kernels[index];
    if let Some(violation) = kernel_interface.contract.violation(geometry.block) {
        let report = report::contract_violation(kernel_interface, geometry.block, &violation);
        return Ok(Outcome { reports: vec![report], completed: false, ..Outcome::default() });
    }
    let mut globals = Vec::new();
    let mut names = Vec::new();
    let mut params = Vec::new();
    let kernel_info = &program.kernels[index];
    let passed = kernel_info.params.iter().filter(|p| p.kind != ParamKind::Unit);
    for (param, arg) in passed.zip(args.iter_mut()) {
        match arg {
            Arg::Scalar(_, bits) => params.push(*bits),
            Arg::Record(_, words) => params.extend_from_slice(words),
            Arg::Vector(buffer) => {
                let written = matches!(param.kind, ParamKind::Vector { written: true, .. });
                let words = std::mem::take(&mut buffer.words);
                let len = (words.len() / buffer.elem.words().max(1)) as u32;
                let shadow = (written && options.check_races).then(|| vec![Shadow::INITIALISED; words.len()]);
                params.push(handle(Space::Global, globals.len() as u32, len));
                globals.push(GlobalBuffer { words, shadow });
                names.push(param.name.clone());
            }
        }
    }
    let mut grid = Grid {
        program,
        options,
        globals,
        findings: Vec::new(),
        printed: String::new(),
        instructions: 0,
        nodes: 0,
        threads: 0,
    };
    let mut reports = Vec::new();
    let mut pending: std::collections::VecDeque<Pending> =
        [Pending { kernel: index, geometry: *geometry, params, from: None }].into();
    let mut children = 0usize;
    let mut completed = true;
    while let Some(next) = pending.pop_front() {
        let mut launches = Vec::new();
        if let Err(report) = grid.run(&next, &mut launches) {
            reports.push(*report);
            completed = false;
            break;
        }
        for child in launches {
            children += 1;
            if children > options.max_child_launches {
                break;
            }
            pending.push_back(child_launch(&child));
        }
    }
    let namer = Namer { program, grid: geometry.grid, block: geometry.block };
    let suppressed = collect_findings(&namer, &grid.findings, &names, options, &mut reports);
    for (arg, buffer) in args
        .iter_mut()
        .filter_map(|a| match a {
            Arg::Vector(b) => Some(b),
            _ => None,
        })
        .zip(grid.globals.drain(..))
    {
        arg.words = buffer.words;
    }
    Ok(Outcome {
        reports,
        completed,
        instructions: grid.instructions,
        nodes: grid.nodes,
        threads: grid.threads,
        suppressed,
        printed: grid.printed,
    })
}

/// A grid to run: the host's launch, or a device-side launch (`from`: the launching thread and instruction).
struct Pending {
    kernel: usize,
    geometry: Geometry,
    params: Vec<u64>,
    from: Option<(u32, u32)>,
}

fn child_launch(child: &ChildLaunch) -> Pending {
    let geometry = Geometry::linear(child.grid, child.block).with_shared(child.shared);
    Pending {
        kernel: child.kernel as usize,
        geometry,
        params: child.args.clone(),
        from: Some((child.thread, child.pc)),
    }
}

/// Findings as reports: one per pair of places (the first found), at most `max_reports_per_kind` of a kind.
fn collect_findings(
    namer: &Namer,
    findings: &[Finding],
    names: &[String],
    options: &Options,
    reports: &mut Vec<Report>,
) -> usize {
    let mut seen = std::collections::HashSet::new();
    let mut per_kind = std::collections::HashMap::new();
    let mut suppressed = 0;
    for finding in findings {
        let key = match *finding {
            // One report per pair of places, whichever access came first.
            Finding::Race { pc, race, .. } => (ReportKind::DataRace, pc.min(race.earlier.pc), pc.max(race.earlier.pc)),
            Finding::UninitialisedRead { pc, .. } => (ReportKind::UninitialisedRead, pc, 0),
            Finding::AbsentLane { pc, .. } => (ReportKind::AbsentLane, pc, 0),
            Finding::Overflow { pc, .. } => (ReportKind::Overflow, pc, 0),
        };
        let count = per_kind.entry(key.0).or_insert(0usize);
        if !seen.insert(key) || *count >= options.max_reports_per_kind {
            suppressed += 1;
            continue;
        }
        *count += 1;
        reports.push(report::finding(namer, finding, names));
    }
    suppressed
}

fn check_geometry(g: &Geometry) -> Result<(), LaunchError> {
    let bad = |why: String| Err(LaunchError::Geometry(why));
    if g.grid.contains(&0) || g.block.contains(&0) {
        return bad("every extent must be at least 1".into());
    }
    if g.threads_per_block() > 1024 {
        return bad(format!("{} threads per block; CUDA allows at most 1024", g.threads_per_block()));
    }
    if g.block[2] > 64 {
        return bad(format!("block z = {}; CUDA allows at most 64", g.block[2]));
    }
    if g.grid[1] > 65535 || g.grid[2] > 65535 || g.grid[0] > i32::MAX as u32 {
        return bad("grid y and z may be at most 65535, x at most 2^31 - 1".into());
    }
    if g.blocks() * g.threads_per_block() > u32::MAX as u64 - 1 {
        return bad("more than 2^32 - 2 threads in one launch".into());
    }
    Ok(())
}

fn check_arguments(program: &Program, index: usize, args: &[Arg]) -> Result<(), LaunchError> {
    let kernel = &program.kernels[index];
    let params: Vec<_> = kernel.params.iter().filter(|p| p.kind != ParamKind::Unit).collect();
    if params.len() != args.len() {
        return Err(LaunchError::ArgumentCount {
            kernel: kernel.name.clone(),
            expected: params.len(),
            given: args.len(),
        });
    }
    for (param, arg) in params.iter().zip(args) {
        let (fits, expected) = match (&param.kind, arg) {
            (ParamKind::Scalar(s), Arg::Scalar(t, _)) => (s == t, s.name().to_string()),
            (ParamKind::Scalar(s), _) => (false, s.name().to_string()),
            (ParamKind::Record(r), Arg::Record(t, words)) => (r == t && words.len() == r.words(), r.name()),
            (ParamKind::Record(r), _) => (false, r.name()),
            (ParamKind::Vector { elem, .. }, Arg::Vector(b)) => {
                (*elem == b.elem && b.words.len() % elem.words().max(1) == 0, format!("a {} vector", elem.name()))
            }
            (ParamKind::Vector { elem, .. }, _) => (false, format!("a {} vector", elem.name())),
            (ParamKind::Unit, _) => (true, String::new()),
        };
        if !fits {
            return Err(LaunchError::ArgumentType {
                kernel: kernel.name.clone(),
                param: param.name.clone(),
                expected,
                given: arg.describe(),
            });
        }
    }
    Ok(())
}

/// The state of the launch across its grids.
struct Grid<'p> {
    program: &'p Program,
    options: &'p Options,
    globals: Vec<GlobalBuffer>,
    findings: Vec<Finding>,
    printed: String,
    instructions: u64,
    nodes: u64,
    threads: u64,
}

impl Grid<'_> {
    /// Runs every block of kernel `k`; device-side launches go to `launches`.
    fn run(&mut self, grid: &Pending, launches: &mut Vec<ChildLaunch>) -> Result<(), Box<Report>> {
        let (k, geometry, params) = (grid.kernel, &grid.geometry, &grid.params[..]);
        if let (Err(e), Some(from)) = (check_geometry(geometry), grid.from) {
            return Err(Box::new(launch_failure(self.program, k, e.to_string(), from)));
        }
        if grid.from.is_some() {
            // A grid launched from the device runs after its parent has finished (see docs/interp.md): what the
            // parent did to memory happens before it, and its thread numbers start again from 0.
            for buffer in &mut self.globals {
                if let Some(shadow) = &mut buffer.shadow {
                    shadow.fill(Shadow::INITIALISED);
                }
            }
        }
        let namer = Namer { program: self.program, grid: geometry.grid, block: geometry.block };
        let kernel = &self.program.code.kernels[k];
        let mut runner = BlockRunner::new(&namer, kernel, params, self.options, geometry.dynamic_shared_bytes);
        let blocks = geometry.blocks() as u32;
        let order: Vec<u32> = match self.options.schedule {
            Schedule::InOrder => (0..blocks).collect(),
            Schedule::Reversed => (0..blocks).rev().collect(),
            Schedule::Random(seed) => {
                let mut order: Vec<u32> = (0..blocks).collect();
                let mut rng = Rng::new(seed ^ 0xB10C);
                for i in (1..order.len()).rev() {
                    order.swap(i, rng.below(i as u64 + 1) as usize);
                }
                order
            }
        };
        let [gx, gy, _] = geometry.grid;
        let mut state = LaunchState {
            globals: &mut self.globals,
            findings: &mut self.findings,
            launches,
            printed: &mut self.printed,
        };
        let mut result = Ok(());
        for b in order {
            let block_idx = [b % gx, (b / gx) % gy, b / (gx * gy)];
            if let Err(report) = runner.run(b, block_idx, &mut state) {
                result = Err(report);
                break;
            }
        }
        self.instructions += runner.instructions;
        self.nodes += runner.nodes;
        self.threads += geometry.blocks() * geometry.threads_per_block();
        result
    }
}

/// A device-side launch whose geometry CUDA would refuse (its status would be an error; the interpreter stops).
fn launch_failure(program: &Program, k: usize, why: String, (thread, pc): (u32, u32)) -> Report {
    let name = program.kernels.get(k).map(|k| k.name.clone()).unwrap_or_default();
    let namer = Namer { program, grid: [1, 1, 1], block: [1, 1, 1] };
    let d = skc_core::Diagnostic::error(
        ReportKind::Unsupported.code(),
        format!("a device-side launch of `{name}` cannot run: {why}"),
    )
    .primary(namer.span_of_pc(pc), format!("launched here (thread {thread} of the launch)"));
    Report { kind: ReportKind::Unsupported, diagnostic: d }
}

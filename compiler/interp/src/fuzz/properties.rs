//! The properties that test the compiler with the interpreter, on generated programs.
//!
//! 1. Soundness: a program `skc check` accepts never diverges (no barrier or collective divergence in any of
//!    several launches: blocks that are and are not multiples of 32, several inputs, several schedules). A
//!    program that does is a counterexample: a bug in the convergence analysis.
//! 2. Precision (a figure, not a verdict): the share of the programs the analysis rejects (only with convergence
//!    errors) that never diverge in any of those launches.
//!
//! (3, the emitter, lives in the tests: every accepted program compiles with NVRTC, and `skc run --gpu` agrees
//! with the interpreter on race-free programs; see docs/interp.md.)

use super::generate::{generate, Config};
use crate::args::random_vector;
use crate::launch::{launch, Geometry, Options, Schedule};
use crate::value::{Arg, Buffer, Scalar, ValueType};
use crate::{Program, CONVERGENCE_CODES};

/// One launch of a generated kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trial {
    pub grid: u32,
    pub block: u32,
    /// Seed of the inputs (`input`, `n`, `u`).
    pub inputs: u64,
    pub schedule: Schedule,
}

impl Trial {
    pub fn describe(&self) -> String {
        format!("grid {} block {} inputs {} schedule {}", self.grid, self.block, self.inputs, self.schedule)
    }
}

/// The launches every program gets: blocks of 64, 48 and 32 threads, two grids, two input sets, three schedules.
pub fn trials(seed: u64) -> Vec<Trial> {
    let mut out = Vec::new();
    for (i, block) in [64u32, 48, 32].into_iter().enumerate() {
        out.push(Trial { grid: 2, block, inputs: 1, schedule: Schedule::InOrder });
        out.push(Trial { grid: 1, block, inputs: 2, schedule: Schedule::Random(seed ^ i as u64) });
    }
    out.push(Trial { grid: 2, block: 48, inputs: 3, schedule: Schedule::Reversed });
    out
}

/// The arguments of the generated kernel for a launch of `threads` threads: `input` (values -20..20), `out`,
/// `acc` (16 counters), `n` (0..7), `u` (1..4).
pub fn arguments(threads: usize, seed: u64) -> Vec<Arg> {
    let int = ValueType::Scalar(Scalar::Int32);
    let mut input = random_vector(&int, threads, seed, Some(-20.0), Some(19.0));
    input.elem = int.clone();
    vec![
        Arg::Vector(input),
        Arg::Vector(Buffer::new(int.clone(), threads)),
        Arg::Vector(Buffer::new(int, 16)),
        Arg::i32((seed % 8) as i32),
        Arg::i32(1 + (seed % 4) as i32),
    ]
}

/// What the checker said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Accepted,
    /// Rejected with convergence errors only.
    Rejected,
    /// Other errors: a program the generator should not have made (its first error's code).
    Invalid(String),
}

/// The result of checking and running one program.
#[derive(Clone, Debug)]
pub struct Evaluation {
    pub verdict: Verdict,
    /// The first launch that diverged.
    pub diverged: Option<Trial>,
    /// Launches that stopped for another reason (out of bounds, budget...): their codes.
    pub other_failures: Vec<&'static str>,
    pub launches: usize,
    pub instructions: u64,
}

/// Checks `source` and runs it under `trials` (stopping at the first divergence).
pub fn evaluate(source: &str, trials: &[Trial]) -> Evaluation {
    let checked = skc_core::check("generated.sk", source, &skc_core::NoModules, &Default::default());
    let verdict = match checked.diagnostics.iter().find(|d| d.is_error()) {
        None => Verdict::Accepted,
        Some(_) => match checked.diagnostics.iter().find(|d| d.is_error() && !CONVERGENCE_CODES.contains(&d.code)) {
            None => Verdict::Rejected,
            Some(d) => Verdict::Invalid(d.code.to_string()),
        },
    };
    let mut evaluation =
        Evaluation { verdict, diverged: None, other_failures: Vec::new(), launches: 0, instructions: 0 };
    if matches!(evaluation.verdict, Verdict::Invalid(_)) {
        return evaluation;
    }
    let program = Program::new(&checked);
    for trial in trials {
        let options =
            Options { schedule: trial.schedule, check_races: false, step_budget: 1_000_000, ..Options::default() };
        let threads = (trial.grid * trial.block) as usize;
        let mut args = arguments(threads, trial.inputs);
        let geometry = Geometry::linear(trial.grid, trial.block);
        let Ok(outcome) = launch(&program, "k", &geometry, &mut args, &options) else {
            evaluation.other_failures.push("launch");
            continue;
        };
        evaluation.launches += 1;
        evaluation.instructions += outcome.instructions;
        if outcome.diverged() {
            evaluation.diverged = Some(*trial);
            break;
        }
        if let Some(fatal) = outcome.reports.iter().find(|r| r.kind.is_fatal()) {
            evaluation.other_failures.push(fatal.kind.code());
        }
    }
    evaluation
}

/// Counts over a range of seeds.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub programs: u64,
    pub accepted: u64,
    pub rejected: u64,
    pub invalid: u64,
    /// Rejected programs that diverged in some launch.
    pub rejected_diverging: u64,
    /// Accepted programs that diverged: (seed, the launch).
    pub counterexamples: Vec<(u64, Trial)>,
    /// Programs with a launch that stopped for another reason than divergence.
    pub inconclusive: u64,
    pub launches: u64,
    pub instructions: u64,
    /// The first invalid programs' seeds and codes (generator bugs to look at).
    pub invalid_examples: Vec<(u64, String)>,
}

impl Summary {
    /// The share of rejected programs that never diverged (property 2).
    pub fn precision_gap(&self) -> f64 {
        if self.rejected == 0 {
            return 0.0;
        }
        (self.rejected - self.rejected_diverging) as f64 / self.rejected as f64
    }

    pub fn add(&mut self, seed: u64, evaluation: &Evaluation) {
        self.programs += 1;
        self.launches += evaluation.launches as u64;
        self.instructions += evaluation.instructions;
        if !evaluation.other_failures.is_empty() {
            self.inconclusive += 1;
        }
        match &evaluation.verdict {
            Verdict::Accepted => {
                self.accepted += 1;
                if let Some(trial) = evaluation.diverged {
                    self.counterexamples.push((seed, trial));
                }
            }
            Verdict::Rejected => {
                self.rejected += 1;
                self.rejected_diverging += evaluation.diverged.is_some() as u64;
            }
            Verdict::Invalid(code) => {
                self.invalid += 1;
                if self.invalid_examples.len() < 10 {
                    self.invalid_examples.push((seed, code.clone()));
                }
            }
        }
    }

    pub fn merge(&mut self, other: Summary) {
        self.programs += other.programs;
        self.accepted += other.accepted;
        self.rejected += other.rejected;
        self.invalid += other.invalid;
        self.rejected_diverging += other.rejected_diverging;
        self.counterexamples.extend(other.counterexamples);
        self.inconclusive += other.inconclusive;
        self.launches += other.launches;
        self.instructions += other.instructions;
        for example in other.invalid_examples {
            if self.invalid_examples.len() < 10 {
                self.invalid_examples.push(example);
            }
        }
    }

    pub fn report(&self) -> String {
        format!(
            "{} programs: {} accepted, {} rejected ({} of them diverged, so {:.1}% of rejected programs never \
             diverged), {} invalid; {} counterexamples; {} inconclusive; {} launches, {} thread-instructions",
            self.programs,
            self.accepted,
            self.rejected,
            self.rejected_diverging,
            100.0 * self.precision_gap(),
            self.invalid,
            self.counterexamples.len(),
            self.inconclusive,
            self.launches,
            self.instructions
        )
    }
}

/// Is `source` accepted by the checker, and does it diverge in `trial`? (A counterexample to property 1.)
pub fn is_counterexample(source: &str, trial: Trial) -> bool {
    let evaluation = evaluate(source, &[trial]);
    evaluation.verdict == Verdict::Accepted && evaluation.diverged.is_some()
}

/// The program of `seed`, a counterexample in `trial`, cut down to what still makes it one.
pub fn minimise_counterexample(seed: u64, trial: Trial, config: &Config) -> super::program::Program {
    let program = generate(seed, config);
    super::minimise(&program, &|p| is_counterexample(&p.render(), trial))
}

/// Generates and evaluates the programs of `seeds`.
pub fn run_seeds(seeds: impl Iterator<Item = u64>, config: &Config) -> Summary {
    let mut summary = Summary::default();
    for seed in seeds {
        let source = generate(seed, config).render();
        let evaluation = evaluate(&source, &trials(seed));
        summary.add(seed, &evaluation);
    }
    summary
}

/// One case of the GPU differential (property 3): a race-free program the checker accepts, a launch, and what
/// the interpreter computed. `skc run --gpu` must write the same (integers exactly; floats, of which the
/// generator makes none today, within 1e-5 relative).
#[derive(Clone, Debug)]
pub struct DifferentialCase {
    pub source: String,
    pub grid: u32,
    pub block: u32,
    /// The arguments, as `skc run --args` reads them.
    pub args: serde_json::Value,
    /// The written vectors, as `skc run` prints them.
    pub expected: serde_json::Value,
}

/// The differential case of `seed`, if its program is accepted, deterministic (`Config::deterministic`) and its
/// launch has no report at all (no race, no read of uninitialised shared memory, no shuffle from a missing lane)
/// and writes the same under every schedule.
pub fn differential_case(seed: u64) -> Option<DifferentialCase> {
    // Every kind of shuffle: a program that reads a lane that does not exist reports R0008 and is left out below.
    let config = Config { deterministic: true, ..Config::without_known_holes() };
    let source = generate(seed, &config).render();
    let checked = skc_core::check("generated.sk", &source, &skc_core::NoModules, &Default::default());
    if checked.has_errors() {
        return None;
    }
    let program = Program::new(&checked);
    let kernel = program.kernel("k")?;
    let (grid, block) = (2, [64u32, 96, 32, 48][(seed % 4) as usize]);
    let threads = (grid * block) as usize;
    let mut expected = None;
    for schedule in [Schedule::InOrder, Schedule::Reversed, Schedule::Random(seed)] {
        let mut args = arguments(threads, seed);
        let options = Options { schedule, step_budget: 1_000_000, ..Options::default() };
        let outcome = launch(&program, "k", &Geometry::linear(grid, block), &mut args, &options).ok()?;
        if !outcome.completed || !outcome.reports.is_empty() {
            return None;
        }
        let written = crate::args::written_json(kernel, &args);
        if expected.as_ref().is_some_and(|e| *e != written) {
            return None;
        }
        expected = Some(written);
    }
    let args = arguments(threads, seed);
    let scalar = |a: &Arg| match a {
        Arg::Scalar(s, bits) => s.to_json(*bits),
        _ => serde_json::Value::Null,
    };
    let json = serde_json::json!({
        "input": args[0].buffer().map(Buffer::to_json),
        "out": { "fill": 0, "len": threads },
        "acc": { "fill": 0, "len": 16 },
        "n": scalar(&args[3]),
        "u": scalar(&args[4]),
    });
    Some(DifferentialCase { source, grid, block, args: json, expected: expected? })
}

/// Compares what the GPU wrote with what the interpreter wrote: `None` when they agree (integers and bools
/// exactly, floats within `1e-5` relative or `1e-6` absolute), else the first difference.
pub fn compare_outputs(expected: &serde_json::Value, actual: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (name, ev) in e {
                let Some(av) = a.get(name) else { return Some(format!("`{name}` missing")) };
                if let Some(d) = compare_outputs(ev, av) {
                    return Some(format!("`{name}`: {d}"));
                }
            }
            None
        }
        (Value::Array(e), Value::Array(a)) if e.len() == a.len() => {
            e.iter().zip(a).enumerate().find_map(|(i, (x, y))| compare_outputs(x, y).map(|d| format!("[{i}] {d}")))
        }
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            let (x, y) = (x.as_f64().unwrap_or(f64::NAN), y.as_f64().unwrap_or(f64::NAN));
            let close = (x - y).abs() <= 1e-6_f64.max(1e-5 * x.abs().max(y.abs()));
            (!close).then(|| format!("{x} (interpreter) and {y} (GPU)"))
        }
        (x, y) => (x != y).then(|| format!("{x} (interpreter) and {y} (GPU)")),
    }
}

//! Testing the compiler with the interpreter: a generator of random well-typed kernels (`generate`, over the
//! tree of `program`), the properties they must have (`properties`), and a delta-debugging minimiser of the
//! programs that break one (`minimise`).

pub mod generate;
pub mod minimise;
pub mod program;
pub mod properties;

pub use generate::{generate, Config, Hole};
pub use minimise::minimise;
pub use properties::{
    compare_outputs, differential_case, evaluate, is_counterexample, minimise_counterexample, run_seeds, trials,
    DifferentialCase, Evaluation, Summary, Trial, Verdict,
};

//! A solver program without a GPU: a system file (which opens the solver `Ode_solve` with its functions), checked
//! by skc's front end with the `-D` definitions of a configuration (the solver modules' parameters: stepper family,
//! method, controller, precision, FSAL vote, trace), and emitted as CUDA C, through one [`Session`]: with summaries,
//! the chain's sizes as definitions and its generated module `Ode_summaries` in memory (it replaces the default
//! without summaries of `stdlib/ode`), the system file's folder, then the standard library (`stdlib/ode`,
//! `stdlib/metrics`).

use std::path::{Path, PathBuf};

use skc_core::codegen::{CudaOutput, EmitOptions, KernelBounds};
use skc_core::session::{CompileError, Compiled, DiskFiles, Session};

use crate::config::{Config, JacobianKind};
use crate::sk::{defines, Options};
use crate::summaries::generate::{layout_defines, summaries_module};
use crate::summaries::Layout;

/// A system given as a `.sk` file (its module name is the file name, capitalised).
#[derive(Clone, Debug, PartialEq)]
pub struct SystemSource {
    pub path: PathBuf,
    /// Extra `-D` definitions for the system (`n_states=8` for a system of any size).
    pub defines: Vec<(String, String)>,
}

impl SystemSource {
    pub fn new(path: impl Into<PathBuf>) -> SystemSource {
        SystemSource { path: path.into(), defines: Vec::new() }
    }

    pub fn with_define(mut self, name: &str, value: impl ToString) -> SystemSource {
        self.defines.push((name.to_string(), value.to_string()));
        self
    }

    /// `Lorenz` for `lorenz.sk`.
    pub fn module_name(&self) -> String {
        let stem = self.path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let mut name = stem;
        if let Some(first) = name.get_mut(0..1) {
            first.make_ascii_uppercase();
        }
        name
    }
}

/// The front end's verdict on a program that does not compile: the rendered diagnostics.
#[derive(Clone, Debug, PartialEq)]
pub struct FrontendError {
    pub rendered: String,
}

impl std::fmt::Display for FrontendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the solver program does not compile:\n{}", self.rendered)
    }
}

impl std::error::Error for FrontendError {}

/// A checked and emitted solver program.
pub struct SolverProgram {
    /// The system file's path, the program's root (for NVRTC and messages).
    pub name: String,
    pub defines: Vec<(String, String)>,
    pub cuda: CudaOutput,
    /// The system's `n_states` and `n_params`, as compiled (after `-D`).
    pub n_states: usize,
    pub n_params: usize,
}

fn int_constant(types: &skc_core::types::TypeInfo, name: &str) -> Option<usize> {
    types.constants.iter().find(|c| c.name == name).and_then(|c| match c.value {
        skc_core::types::ConstValue::Int(v) if v >= 0 => Some(v as usize),
        _ => None,
    })
}

fn bool_constant(types: &skc_core::types::TypeInfo, name: &str) -> Option<bool> {
    types.constants.iter().find(|c| c.name == name).and_then(|c| match c.value {
        skc_core::types::ConstValue::Bool(v) => Some(v),
        _ => None,
    })
}

/// The example systems of this crate (`libs/ode/systems`).
pub fn systems_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("systems")
}

/// The front end's errors as the solver reports them.
fn frontend_error(e: CompileError) -> FrontendError {
    match e {
        CompileError::Errors { rendered, .. } => FrontendError { rendered },
        other => FrontendError { rendered: other.to_string() },
    }
}

/// The summary chain of `spec` alone, in the kernels of `stdlib/metrics/summary_probe.sk` (a system of
/// `n_states` states, windows over `duration`), checked and emitted: for the tests of the metric code. The file
/// is compiled as it is, with the chain's definitions.
pub fn summary_probe(
    spec: &crate::summaries::SummarySpec,
    n_states: usize,
    precision: crate::config::Precision,
    duration: f64,
) -> Result<CudaOutput, FrontendError> {
    spec.validate(n_states).map_err(|e| FrontendError { rendered: format!("summaries: {e}") })?;
    let path = skc_core::session::search::stdlib_root().join("metrics/summary_probe.sk");
    let root =
        std::fs::read_to_string(&path).map_err(|e| FrontendError { rendered: format!("{}: {e}", path.display()) })?;
    let layout = Layout::of(spec);
    let files = DiskFiles::new();
    let session = Session::standard(&files)
        .with_module("Ode_summaries", summaries_module(spec, &layout))
        .with_defines(layout_defines(spec, &layout, duration))
        .with_define("n_states", n_states)
        .with_define("real", precision.name());
    let compiled = session.compile(&path.display().to_string(), &root).map_err(frontend_error)?;
    Ok(compiled.cuda)
}

impl SolverProgram {
    /// Checks and emits the solver program of `system` for `cfg`.
    pub fn build(system: &SystemSource, cfg: &Config, options: &Options) -> Result<SolverProgram, FrontendError> {
        // The program is the system file itself: it opens the solver `Ode_solve` with its functions and sizes,
        // and the configuration's choices (the stepper family and method among them) are `-D` definitions.
        let root = std::fs::read_to_string(&system.path)
            .map_err(|e| FrontendError { rendered: format!("{}: {e}", system.path.display()) })?;
        let mut all_defines = defines(cfg, options);
        all_defines.extend(system.defines.iter().cloned());
        let name = system.path.display().to_string();
        let files = DiskFiles::new();
        let mut session = Session::standard(&files);
        // With summaries, the chain: its sizes as definitions, and the module of its metric calls, which wins
        // over the default of `stdlib/ode` (no summaries).
        if let Some(spec) = &cfg.summaries {
            let layout = Layout::of(spec);
            all_defines.extend(layout_defines(spec, &layout, cfg.duration));
            session = session.with_module("Ode_summaries", summaries_module(spec, &layout));
        }
        let session = session.with_defines(all_defines.clone()).with_emit(emit_options(options));
        let Compiled { checked, cuda } = session.compile(&name, &root).map_err(frontend_error)?;
        let (Some(n_states), Some(n_params)) =
            (int_constant(&checked.types, "n_states"), int_constant(&checked.types, "n_params"))
        else {
            return Err(FrontendError { rendered: "the system defines no integer n_states and n_params".into() });
        };
        if cfg.method.is_implicit()
            && cfg.jacobian == JacobianKind::Analytic
            && !bool_constant(&checked.types, "has_jacobian").unwrap_or(false)
        {
            return Err(FrontendError {
                rendered: format!("{} gives no `jac` (has_jacobian): use finite differences", system.path.display()),
            });
        }
        if let Some(spec) = &cfg.summaries {
            spec.validate(n_states).map_err(|e| FrontendError { rendered: format!("summaries: {e}") })?;
        }
        Ok(SolverProgram { name, defines: all_defines, cuda, n_states, n_params })
    }
}

/// How the solver's CUDA C is emitted. Full warps: the solver launches blocks of a multiple of 32 threads
/// (gpu.rs), so the warp votes take the constant full mask and ptxas adds no convergence check to each of them.
/// With `min_blocks_per_sm`, `ode_solve` gets `__launch_bounds__(block_size, min_blocks_per_sm)`.
fn emit_options(options: &Options) -> EmitOptions {
    let bounds = (options.min_blocks_per_sm > 0).then(|| KernelBounds {
        kernel: "ode_solve".into(),
        max_threads: options.block_size,
        min_blocks: Some(options.min_blocks_per_sm),
    });
    EmitOptions {
        full_warps: options.full_warps,
        launch_bounds: bounds.into_iter().collect(),
        ..EmitOptions::default()
    }
}

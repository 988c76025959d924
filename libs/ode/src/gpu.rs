//! The host API on a GPU: a system from a `.sk` right-hand side, a [`Config`] (method, controller, tolerances, step,
//! output times) and [`Options`], compiled once into an [`OdeSolver`]; batches of initial values and parameter
//! sets in float32 or float64, solved into host arrays with per-run statuses and counters. Every error of the
//! input (shapes, settings, precision) is reported before any kernel runs.
//!
//! ```ignore
//! let ctx = Context::new(0)?;
//! let system = SystemSource::new("libs/ode/systems/lorenz.sk");
//! let mut cfg = Config::new(Method::Tsit5, 1.0, 1e-3);
//! cfg.precision = Precision::F32;
//! let solver = OdeSolver::new(&ctx, &system, &cfg, &Options::default())?;
//! let solution = solver.solve::<f32>(&y0, &rho)?;            // runs x 3 states, runs x 1 parameter
//! ```

use std::fmt;

use skc_runtime::{
    Arg, Context, DeviceBuffer, DeviceElem, Kernel, LaunchConfig, Module, Program, RuntimeError, ScalarValue, Stream,
};

use crate::config::{Config, ConfigError, Precision, Status};
use crate::program::{FrontendError, SolverProgram, SystemSource};
use crate::sk::Options;
use crate::summaries::{Layout, Summaries};

/// The state types a solver runs in.
pub trait Real: DeviceElem + Copy + Default + PartialEq + fmt::Debug + Into<ScalarValue> + 'static {
    const PRECISION: Precision;
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
}

impl Real for f32 {
    const PRECISION: Precision = Precision::F32;
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

impl Real for f64 {
    const PRECISION: Precision = Precision::F64;
    fn from_f64(v: f64) -> Self {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
}

/// What can go wrong, before or during a solve.
#[derive(Debug)]
pub enum OdeError {
    Config(ConfigError),
    Frontend(FrontendError),
    /// Inputs whose lengths do not match the system and each other.
    Shape(String),
    /// Host arrays of another float type than the solver was compiled for.
    Precision {
        compiled: Precision,
        given: Precision,
    },
    Runtime(RuntimeError),
}

impl fmt::Display for OdeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OdeError::Config(e) => write!(f, "invalid settings: {e}"),
            OdeError::Frontend(e) => write!(f, "{e}"),
            OdeError::Shape(message) => write!(f, "wrong shapes: {message}"),
            OdeError::Precision { compiled, given } => {
                write!(f, "the solver is compiled for {} states, not {}", compiled.name(), given.name())
            }
            OdeError::Runtime(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for OdeError {}

impl From<RuntimeError> for OdeError {
    fn from(e: RuntimeError) -> Self {
        OdeError::Runtime(e)
    }
}

impl From<ConfigError> for OdeError {
    fn from(e: ConfigError) -> Self {
        OdeError::Config(e)
    }
}

/// Results of a batch, as host arrays (row-major, run first).
#[derive(Clone, Debug, PartialEq)]
pub struct Solution<T> {
    pub n_runs: usize,
    pub n_states: usize,
    pub n_saves: usize,
    /// runs x n_states; NaN for failed runs.
    pub final_state: Vec<T>,
    /// runs x n_saves x n_states; NaN from the failure on.
    pub saves: Vec<T>,
    pub status: Vec<Status>,
    pub attempted: Vec<u32>,
    pub rejected: Vec<u32>,
    pub newton_iters: Vec<u32>,
    /// runs x trace_len attempted steps: +h accepted, -h rejected, 0 past the last one.
    pub trace: Vec<f64>,
    pub trace_len: usize,
    /// Device time of the kernel, milliseconds.
    pub device_ms: f32,
    /// Summary metrics by name, when the configuration asks for them.
    pub summaries: Option<Summaries<T>>,
}

impl<T: Real> Solution<T> {
    /// A solution of `n_runs` runs shaped like `like` (states, saves, trace length, summary names and windows),
    /// every value zero or default, to be filled run by run (the ensemble scatters its devices' parts into it).
    pub fn blank(n_runs: usize, like: &Solution<T>) -> Solution<T> {
        let summaries = like.summaries.as_ref().map(|s| Summaries {
            n_runs,
            n_windows: s.n_windows,
            names: s.names.clone(),
            values: vec![T::default(); n_runs * s.n_windows * s.names.len()],
        });
        Solution {
            n_runs,
            n_states: like.n_states,
            n_saves: like.n_saves,
            final_state: vec![T::default(); n_runs * like.n_states],
            saves: vec![T::default(); n_runs * like.n_saves * like.n_states],
            status: vec![Status::default(); n_runs],
            attempted: vec![0; n_runs],
            rejected: vec![0; n_runs],
            newton_iters: vec![0; n_runs],
            trace: vec![0.0; n_runs * like.trace_len],
            trace_len: like.trace_len,
            device_ms: 0.0,
            summaries,
        }
    }

    pub fn final_of(&self, run: usize) -> &[T] {
        &self.final_state[run * self.n_states..(run + 1) * self.n_states]
    }
    pub fn trace_of(&self, run: usize) -> &[f64] {
        &self.trace[run * self.trace_len..(run + 1) * self.trace_len]
    }
}

/// Device buffers of one batch: inputs and outputs stay on the device between solves (for timing).
pub struct DeviceBatch<T: Real> {
    pub n_runs: usize,
    pub y0: DeviceBuffer<T>,
    pub params: DeviceBuffer<T>,
    pub final_state: DeviceBuffer<T>,
    pub saves: DeviceBuffer<T>,
    pub status: DeviceBuffer<i32>,
    pub counters: DeviceBuffer<i32>,
    pub trace: DeviceBuffer<f64>,
    /// windows x (summarised variables x outputs) x runs (see [`Summaries::from_device`]); one element without
    /// summaries.
    pub summaries: DeviceBuffer<T>,
}

/// A compiled solver: one kernel for a system, method, controller, precision and options.
pub struct OdeSolver {
    ctx: Context,
    module: Module,
    kernel: Kernel,
    cfg: Config,
    options: Options,
    n_states: usize,
    n_params: usize,
    block: u32,
    /// Output names of the summaries (variables x outputs) and windows per run; empty without summaries.
    summary_names: Vec<String>,
    /// The device column of each named output (`Layout::device_columns`); written values per run and window.
    summary_columns: Vec<usize>,
    summary_width: usize,
    summary_windows: usize,
}

impl OdeSolver {
    /// Validates the settings, compiles the solver program (front end, CUDA C, NVRTC through the cache) and loads it.
    pub fn new(ctx: &Context, system: &SystemSource, cfg: &Config, options: &Options) -> Result<OdeSolver, OdeError> {
        let program = OdeSolver::program(system, cfg, options)?;
        let module = Module::from_program(ctx, Program::from_output(&program.name, &program.cuda))?;
        OdeSolver::from_module(module, &program, cfg, options)
    }

    /// Validates the settings and builds the solver program (front end and CUDA C; no GPU, no NVRTC).
    pub fn program(system: &SystemSource, cfg: &Config, options: &Options) -> Result<SolverProgram, OdeError> {
        cfg.validate()?;
        if !options.block_size.is_multiple_of(32) || !(32..=1024).contains(&options.block_size) {
            return Err(OdeError::Config(ConfigError::BlockSize(options.block_size)));
        }
        let program = SolverProgram::build(system, cfg, options).map_err(OdeError::Frontend)?;
        cfg.validate_for(program.n_states)?;
        Ok(program)
    }

    /// A solver from `program` ([`OdeSolver::program`] of the same settings) already loaded as `module` on the
    /// module's device: several devices share one build ([`crate::ensemble::EnsembleSolver`]).
    pub fn from_module(
        module: Module,
        program: &SolverProgram,
        cfg: &Config,
        options: &Options,
    ) -> Result<OdeSolver, OdeError> {
        let (summary_names, summary_columns, summary_width, summary_windows) = match &cfg.summaries {
            Some(spec) => {
                let layout = Layout::of(spec);
                let n_vars = spec.variables.len();
                let width = n_vars * layout.columns.len();
                (layout.names(spec), layout.device_columns(n_vars), width, spec.n_windows(cfg.duration))
            }
            None => (Vec::new(), Vec::new(), 0, 0),
        };
        let kernel = module.kernel("ode_solve")?;
        // A multiple of 32: the program is emitted with `full_warps` (program.rs), whose votes assume whole warps.
        let block = (kernel.max_threads_per_block().min(options.block_size) / 32 * 32).max(32);
        Ok(OdeSolver {
            ctx: module.context().clone(),
            module,
            kernel,
            cfg: cfg.clone(),
            options: options.clone(),
            n_states: program.n_states,
            n_params: program.n_params,
            block,
            summary_names,
            summary_columns,
            summary_width,
            summary_windows,
        })
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }
    pub fn n_states(&self) -> usize {
        self.n_states
    }
    pub fn n_params(&self) -> usize {
        self.n_params
    }
    pub fn module(&self) -> &Module {
        &self.module
    }
    pub fn registers(&self) -> Result<u32, OdeError> {
        Ok(self.kernel.registers()?)
    }
    pub fn block_size(&self) -> u32 {
        self.block
    }

    fn check_inputs<T: Real>(&self, y0_len: usize, params_len: usize) -> Result<usize, OdeError> {
        if T::PRECISION != self.cfg.precision {
            return Err(OdeError::Precision { compiled: self.cfg.precision, given: T::PRECISION });
        }
        if y0_len == 0 || !y0_len.is_multiple_of(self.n_states) {
            return Err(OdeError::Shape(format!(
                "{y0_len} initial values are not a positive multiple of the {} states",
                self.n_states
            )));
        }
        let runs = y0_len / self.n_states;
        if params_len != runs * self.n_params {
            return Err(OdeError::Shape(format!(
                "{runs} runs of {} parameters need {} parameter values, not {params_len}",
                self.n_params,
                runs * self.n_params
            )));
        }
        let saves = runs as u64 * self.cfg.n_saves().max(1) as u64 * self.n_states as u64;
        let trace = runs as u64 * self.options.trace_len as u64;
        let summaries = self.summary_len(runs) as u64;
        if saves > i32::MAX as u64 || trace > i32::MAX as u64 || summaries > i32::MAX as u64 || runs > i32::MAX as usize
        {
            return Err(OdeError::Shape(format!("{runs} runs: the outputs exceed 2^31 elements")));
        }
        Ok(runs)
    }

    /// Summary values the device writes for `runs` runs (windows x variables x columns each).
    fn summary_len(&self, runs: usize) -> usize {
        runs * self.summary_windows * self.summary_width
    }

    /// Uploads a batch and allocates its outputs (shapes checked first).
    pub fn upload<T: Real>(&self, y0: &[T], params: &[T]) -> Result<DeviceBatch<T>, OdeError> {
        self.upload_on(y0, params, &self.ctx.stream())
    }

    /// [`upload`](Self::upload) in the order of `stream` (a stream of the solver's device).
    pub fn upload_on<T: Real>(&self, y0: &[T], params: &[T], stream: &Stream) -> Result<DeviceBatch<T>, OdeError> {
        let runs = self.check_inputs::<T>(y0.len(), params.len())?;
        let params_buffer = if params.is_empty() { stream.alloc_zeros::<T>(1)? } else { stream.upload(params)? };
        Ok(DeviceBatch {
            n_runs: runs,
            y0: stream.upload(y0)?,
            params: params_buffer,
            final_state: stream.alloc_zeros::<T>(runs * self.n_states)?,
            saves: stream.alloc_zeros::<T>((runs * self.cfg.n_saves() * self.n_states).max(1))?,
            status: stream.alloc_zeros::<i32>(runs)?,
            counters: stream.alloc_zeros::<i32>(runs * 3)?,
            trace: stream.alloc_zeros::<f64>((runs * self.options.trace_len).max(1))?,
            summaries: stream.alloc_zeros::<T>(self.summary_len(runs).max(1))?,
        })
    }

    /// Runs the kernel on a batch already on the device; returns its device time in milliseconds.
    pub fn run<T: Real>(&self, batch: &mut DeviceBatch<T>) -> Result<f32, OdeError> {
        let stream = self.ctx.stream();
        let timer = stream.start_timer()?;
        self.launch_on(batch, &stream)?;
        Ok(timer.stop()?)
    }

    /// Queues the kernel on a batch already on the device, on `stream` (a stream of the solver's device), and
    /// returns at once.
    pub fn launch_on<T: Real>(&self, batch: &mut DeviceBatch<T>, stream: &Stream) -> Result<(), OdeError> {
        if T::PRECISION != self.cfg.precision {
            return Err(OdeError::Precision { compiled: self.cfg.precision, given: T::PRECISION });
        }
        let c = &self.cfg;
        let g = &c.gains;
        let r = T::from_f64;
        let grid = batch.n_runs.div_ceil(self.block as usize) as u32;
        let config = LaunchConfig::new(grid, self.block);
        let mut args: Vec<Arg> = vec![
            Arg::from(&batch.y0),
            Arg::from(&batch.params),
            Arg::from(&mut batch.final_state),
            Arg::from(&mut batch.saves),
            Arg::from(&mut batch.status),
            Arg::from(&mut batch.counters),
            Arg::from(&mut batch.trace),
            Arg::from(batch.n_runs as i32),
            Arg::from(c.n_saves() as i32),
            Arg::from(c.t0),
            Arg::from(c.duration),
            Arg::from(c.dt),
            Arg::from(c.save_every.unwrap_or(0.0)),
            Arg::from(c.dt_min),
            Arg::from(c.dt_max),
            Arg::from(c.max_steps.min(i32::MAX as u32) as i32),
            Arg::from(r(c.atol)),
            Arg::from(r(c.rtol)),
            Arg::from(r(g.safety)),
            Arg::from(r(g.k_i)),
            Arg::from(r(g.k_p)),
            Arg::from(r(g.k_d)),
            Arg::from(r(g.min_shrink)),
            Arg::from(r(g.max_growth)),
            Arg::from(r(g.deadband_low)),
            Arg::from(r(g.deadband_high)),
            Arg::from(r(g.damping)),
            Arg::from(c.newton_tol),
            Arg::from(c.max_newton.min(i32::MAX as u32) as i32),
            Arg::from(&mut batch.summaries),
        ];
        self.kernel.launch_on(stream, &config, &mut args)?;
        Ok(())
    }

    /// Downloads the results of a batch.
    pub fn download<T: Real>(&self, batch: &DeviceBatch<T>, device_ms: f32) -> Result<Solution<T>, OdeError> {
        self.download_on(batch, &self.ctx.stream(), device_ms)
    }

    /// [`download`](Self::download) after the work queued on `stream` (a stream of the solver's device).
    pub fn download_on<T: Real>(
        &self,
        batch: &DeviceBatch<T>,
        stream: &Stream,
        device_ms: f32,
    ) -> Result<Solution<T>, OdeError> {
        let get = |buffer: &DeviceBuffer<T>| -> Result<Vec<T>, OdeError> {
            let mut out = vec![T::default(); buffer.len()];
            buffer.copy_to_host_on(&mut out, stream)?;
            Ok(out)
        };
        let get_i32 = |buffer: &DeviceBuffer<i32>| -> Result<Vec<i32>, OdeError> {
            let mut out = vec![0; buffer.len()];
            buffer.copy_to_host_on(&mut out, stream)?;
            Ok(out)
        };
        let runs = batch.n_runs;
        let counters = get_i32(&batch.counters)?;
        let n_saves = self.cfg.n_saves();
        let trace_len = self.options.trace_len;
        let mut saves = get(&batch.saves)?;
        saves.truncate(runs * n_saves * self.n_states);
        let mut trace = vec![0.0; batch.trace.len()];
        batch.trace.copy_to_host_on(&mut trace, stream)?;
        trace.truncate(runs * trace_len);
        let summaries = match self.cfg.summaries {
            Some(_) => {
                let device = get(&batch.summaries)?;
                let names = self.summary_names.clone();
                Some(Summaries::from_device(runs, self.summary_windows, names, &self.summary_columns, &device))
            }
            None => None,
        };
        Ok(Solution {
            n_runs: runs,
            n_states: self.n_states,
            n_saves,
            final_state: get(&batch.final_state)?,
            saves,
            status: get_i32(&batch.status)?.into_iter().map(|s| Status(s as u32)).collect(),
            attempted: (0..runs).map(|i| counters[3 * i] as u32).collect(),
            rejected: (0..runs).map(|i| counters[3 * i + 1] as u32).collect(),
            newton_iters: (0..runs).map(|i| counters[3 * i + 2] as u32).collect(),
            trace,
            trace_len,
            device_ms,
            summaries,
        })
    }

    /// Solves a batch: `y0` is runs x n_states, `params` runs x n_params (row-major).
    pub fn solve<T: Real>(&self, y0: &[T], params: &[T]) -> Result<Solution<T>, OdeError> {
        let mut batch = self.upload(y0, params)?;
        let ms = self.run(&mut batch)?;
        self.download(&batch, ms)
    }
}

//! How skc's side of a peer comparison is timed, the same way as the peers' scripts (`peers/hidden_timing.py`):
//!
//! - **GPU time** with the host's work hidden: a one-thread spinner kernel of about 30 ms ([`Spinner`]) is queued
//!   on the stream first, then the start event, the timed work and the stop event; while the spinner runs, the
//!   host's enqueueing cannot leave the GPU idle inside the timed span. A sample counts only when the host's
//!   enqueue (from before the spinner's launch to the return of the last launch) took less than
//!   [`VALID_FRACTION`] of the spinner's calibrated duration ([`HiddenSample::valid`]).
//! - **The time a caller waits**: wall-clock time of one call from host arrays to results on the host (for skc,
//!   `OdeSolver::solve`: upload, launch, download).
//!
//! Both are reported as medians over a stated number of runs after a warm-up, in one JSON object per measurement
//! ([`JsonLine`], with the card's name from the driver and the date).

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use skc_ode::gpu::{DeviceBatch, OdeSolver, Real};
use skc_ode::Config;
use skc_runtime::{
    Arg, Context, Kernel, KernelSignature, LaunchConfig, Module, ParamSignature, ScalarType, ScalarValue, Stream,
};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// What the spinner is calibrated to, in milliseconds.
pub const SPINNER_TARGET_MS: f64 = 30.0;
/// A sample is valid when the host's enqueue took less than this fraction of the spinner's duration (the margin
/// covers a clock higher than at calibration: the spinner counts SM cycles).
pub const VALID_FRACTION: f64 = 0.8;

/// The spinner's CUDA C (compiled through the runtime's NVRTC).
pub const SPINNER_CUDA: &str = r#"extern "C" __global__ void spin(long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) {
    }
}
"#;

/// A one-thread kernel that spins on `clock64` for a calibrated number of cycles.
pub struct Spinner {
    kernel: Kernel,
    cycles: i64,
    /// The shortest of three calibration runs alone on the GPU, milliseconds.
    ms: f64,
}

impl Spinner {
    pub fn new(ctx: &Context) -> Result<Spinner> {
        let signature = KernelSignature::new("spin", vec![ParamSignature::scalar("cycles", ScalarType::Int64)]);
        let kernel = Module::from_cuda(ctx, "spinner.cu", SPINNER_CUDA, vec![signature])?.kernel("spin")?;
        let stream = ctx.stream();
        // 1e7 cycles (5 ms at 2 GHz), then scaled to the target by what they took.
        let probe: i64 = 10_000_000;
        let mut spinner = Spinner { kernel, cycles: probe, ms: 0.0 };
        spinner.alone(&stream)?;
        let probe_ms = spinner.alone(&stream)?;
        spinner.cycles = (probe as f64 * SPINNER_TARGET_MS / probe_ms) as i64;
        spinner.ms =
            (0..3).map(|_| spinner.alone(&stream)).collect::<Result<Vec<f64>>>()?.into_iter().fold(f64::MAX, f64::min);
        Ok(spinner)
    }

    pub fn ms(&self) -> f64 {
        self.ms
    }

    pub fn queue(&self, stream: &Stream) -> Result<()> {
        self.kernel.launch_on(stream, &LaunchConfig::new(1, 1), &mut [Arg::from(self.cycles)])?;
        Ok(())
    }

    fn alone(&self, stream: &Stream) -> Result<f64> {
        let timer = stream.start_timer()?;
        self.queue(stream)?;
        Ok(timer.stop()? as f64)
    }
}

/// One timed run with the host hidden.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HiddenSample {
    /// Device time between the start and stop events, milliseconds.
    pub gpu_ms: f64,
    /// Host time from before the spinner's launch to the return of `enqueue`, milliseconds.
    pub enqueue_ms: f64,
}

impl HiddenSample {
    pub fn valid(&self, spinner_ms: f64) -> bool {
        self.enqueue_ms < VALID_FRACTION * spinner_ms
    }
}

/// Queues the spinner, the start event, `enqueue` (which queues the timed work on `stream` and returns without
/// waiting for it) and the stop event, then waits.
pub fn hidden(spinner: &Spinner, stream: &Stream, enqueue: impl FnOnce() -> Result<()>) -> Result<HiddenSample> {
    let before = Instant::now();
    spinner.queue(stream)?;
    let timer = stream.start_timer()?;
    enqueue()?;
    let enqueue_ms = before.elapsed().as_secs_f64() * 1e3;
    let gpu_ms = timer.stop()? as f64;
    Ok(HiddenSample { gpu_ms, enqueue_ms })
}

/// The vectors `ode_solve` takes before its scalars (y0s, params, y_final, saves, status_out, counters, trace);
/// `summary_out` follows the scalars.
pub const SOLVER_LEADING_VECTORS: usize = 7;

/// `ode_solve`'s scalar parameters as `OdeSolver::run` passes them, by name and in order (the names of
/// stdlib/ode/ode_solve.sk, checked against the emitted signature by `tests/timing.rs`).
pub fn solver_scalars<T: Real>(cfg: &Config, n_runs: usize) -> Vec<(&'static str, ScalarValue)> {
    let g = &cfg.gains;
    let r = |v: f64| T::from_f64(v).into();
    vec![
        ("n_runs", (n_runs as i32).into()),
        ("n_saves", (cfg.n_saves() as i32).into()),
        ("t0", cfg.t0.into()),
        ("duration", cfg.duration.into()),
        ("dt0", cfg.dt.into()),
        ("save_every", cfg.save_every.unwrap_or(0.0).into()),
        ("dt_min", cfg.dt_min.into()),
        ("dt_max", cfg.dt_max.into()),
        ("max_steps", (cfg.max_steps.min(i32::MAX as u32) as i32).into()),
        ("atol", r(cfg.atol)),
        ("rtol", r(cfg.rtol)),
        ("safety", r(g.safety)),
        ("k_i", r(g.k_i)),
        ("k_p", r(g.k_p)),
        ("k_d", r(g.k_d)),
        ("min_shrink", r(g.min_shrink)),
        ("max_growth", r(g.max_growth)),
        ("deadband_low", r(g.deadband_low)),
        ("deadband_high", r(g.deadband_high)),
        ("damping", r(g.damping)),
        ("newton_tol", cfg.newton_tol.into()),
        ("max_newton", (cfg.max_newton.min(i32::MAX as u32) as i32).into()),
    ]
}

/// Queues `OdeSolver::run`'s launch on `stream` without waiting: the same kernel with the same arguments in the
/// same order. [`time_solver`] checks that its results are bit-identical to `run`'s.
pub fn launch_solver<T: Real>(
    solver: &OdeSolver,
    kernel: &Kernel,
    batch: &mut DeviceBatch<T>,
    stream: &Stream,
) -> Result<()> {
    let grid = batch.n_runs.div_ceil(solver.block_size() as usize) as u32;
    let scalars = solver_scalars::<T>(solver.config(), batch.n_runs);
    let mut args: Vec<Arg> = vec![
        Arg::from(&batch.y0),
        Arg::from(&batch.params),
        Arg::from(&mut batch.final_state),
        Arg::from(&mut batch.saves),
        Arg::from(&mut batch.status),
        Arg::from(&mut batch.counters),
        Arg::from(&mut batch.trace),
    ];
    args.extend(scalars.into_iter().map(|(_, value)| Arg::Scalar(value)));
    args.push(Arg::from(&mut batch.summaries));
    kernel.launch_on(stream, &LaunchConfig::new(grid, solver.block_size()), &mut args)?;
    Ok(())
}

/// A measurement: the GPU-time samples (with the host hidden) and the caller's waits.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    pub samples: Vec<HiddenSample>,
    pub waits_ms: Vec<f64>,
    pub spinner_ms: f64,
}

impl Measurement {
    pub fn valid_gpu_ms(&self) -> Vec<f64> {
        self.samples.iter().filter(|s| s.valid(self.spinner_ms)).map(|s| s.gpu_ms).collect()
    }

    /// Median GPU time of the valid samples; None when none is valid.
    pub fn gpu_ms(&self) -> Option<f64> {
        median(&self.valid_gpu_ms())
    }

    pub fn wait_ms(&self) -> Option<f64> {
        median(&self.waits_ms)
    }

    /// The timing fields of the measurement's JSON line.
    pub fn write(&self, line: &mut JsonLine) {
        let enqueue_max = self.samples.iter().map(|s| s.enqueue_ms).fold(0.0, f64::max);
        line.opt_num("gpu_ms", self.gpu_ms())
            .opt_num("wait_ms", self.wait_ms())
            .int("runs", self.samples.len().max(self.waits_ms.len()) as u64)
            .int("valid_runs", self.valid_gpu_ms().len() as u64)
            .num("enqueue_ms_max", enqueue_max)
            .num("spinner_ms", self.spinner_ms)
            .nums("gpu_ms_all", &self.samples.iter().map(|s| s.gpu_ms).collect::<Vec<_>>())
            .nums("wait_ms_all", &self.waits_ms);
    }
}

/// The median (the mean of the middle two for an even count); None for no values.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    Some(if sorted.len() % 2 == 1 { sorted[mid] } else { (sorted[mid - 1] + sorted[mid]) / 2.0 })
}

/// Times a compiled solver on one batch: a warm-up by `OdeSolver::run`, `runs` launches with the host hidden,
/// a check that their results are bit-identical to the warm-up's, then `runs` calls of `OdeSolver::solve` from
/// the host arrays (the caller's wait). Returns the warm-up's solution and the measurement.
pub fn time_solver<T: Real>(
    solver: &OdeSolver,
    spinner: &Spinner,
    y0: &[T],
    params: &[T],
    runs: usize,
) -> Result<(skc_ode::gpu::Solution<T>, Measurement)> {
    let stream = solver.module().context().stream();
    let kernel = solver.module().kernel("ode_solve")?;
    let mut batch = solver.upload(y0, params)?;
    let warm_ms = solver.run(&mut batch)?;
    let solution = solver.download(&batch, warm_ms)?;
    let mut samples = Vec::with_capacity(runs);
    for _ in 0..runs {
        samples.push(hidden(spinner, &stream, || launch_solver(solver, &kernel, &mut batch, &stream))?);
    }
    if runs > 0 {
        let again = solver.download(&batch, 0.0)?;
        if !same_results(&solution, &again) {
            return Err("the spinner-timed launches gave other results than OdeSolver::run".into());
        }
    }
    let mut waits_ms = Vec::with_capacity(runs);
    for _ in 0..runs {
        let before = Instant::now();
        let solved = solver.solve(y0, params)?;
        waits_ms.push(before.elapsed().as_secs_f64() * 1e3);
        drop(solved);
    }
    Ok((solution, Measurement { samples, waits_ms, spinner_ms: spinner.ms() }))
}

fn same_results<T: Real>(a: &skc_ode::gpu::Solution<T>, b: &skc_ode::gpu::Solution<T>) -> bool {
    let bits = |v: &[T]| v.iter().map(|x| x.to_f64().to_bits()).collect::<Vec<u64>>();
    bits(&a.final_state) == bits(&b.final_state)
        && a.attempted == b.attempted
        && a.rejected == b.rejected
        && a.status == b.status
        && bits(a.summaries.as_ref().map_or(&[][..], |s| &s.values))
            == bits(b.summaries.as_ref().map_or(&[][..], |s| &s.values))
}

/// One JSON object on one line, written field by field in order (numbers that are not finite become null).
#[derive(Clone, Debug, Default)]
pub struct JsonLine {
    fields: Vec<String>,
}

impl JsonLine {
    /// A measurement's line: `peer`, `bench`, `card`, `date` first.
    pub fn measurement(peer: &str, bench: &str, card: &str) -> JsonLine {
        let mut line = JsonLine::default();
        line.str("peer", peer).str("bench", bench).str("card", card).str("date", &utc_now());
        line
    }

    pub fn str(&mut self, key: &str, value: &str) -> &mut Self {
        self.fields.push(format!("{}:{}", quoted(key), quoted(value)));
        self
    }

    pub fn num(&mut self, key: &str, value: f64) -> &mut Self {
        self.fields.push(format!("{}:{}", quoted(key), number(value)));
        self
    }

    pub fn opt_num(&mut self, key: &str, value: Option<f64>) -> &mut Self {
        self.fields.push(format!("{}:{}", quoted(key), value.map_or("null".to_string(), number)));
        self
    }

    pub fn int(&mut self, key: &str, value: u64) -> &mut Self {
        self.fields.push(format!("{}:{value}", quoted(key)));
        self
    }

    pub fn nums(&mut self, key: &str, values: &[f64]) -> &mut Self {
        let items: Vec<String> = values.iter().map(|v| number(*v)).collect();
        self.fields.push(format!("{}:[{}]", quoted(key), items.join(",")));
        self
    }

    pub fn render(&self) -> String {
        format!("{{{}}}", self.fields.join(","))
    }
}

fn number(value: f64) -> String {
    if value.is_finite() {
        // Shortest text that reads back the same value (Rust's `{:?}` of f64 keeps a `.0` or an exponent).
        format!("{value:?}")
    } else {
        "null".to_string()
    }
}

fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The present time in UTC as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_now() -> String {
    let seconds = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    utc_of(seconds)
}

/// `seconds` since 1970-01-01 as `YYYY-MM-DDTHH:MM:SSZ` (the proleptic Gregorian calendar).
pub fn utc_of(seconds: u64) -> String {
    let days = (seconds / 86_400) as i64;
    let rest = seconds % 86_400;
    // Days to a civil date (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rest / 3600, rest / 60 % 60, rest % 60)
}

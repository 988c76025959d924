//! One batch of trajectories over several GPUs of a host: [`EnsembleSolver`] builds the solver program once,
//! loads it on every device of a [`DeviceSet`] (one NVRTC compile per architecture), splits a batch by
//! trajectories into contiguous shares ([`split_runs`]) and solves the shares at once, one host thread per device.
//!
//! Within a device, a share is cut into chunks solved on two streams in turn, so that a chunk's upload and the
//! previous chunk's download overlap the kernel of the chunk between them. Shares and chunks start at multiples of
//! the kernel's block size: every warp then integrates the same trajectories as in a one-GPU launch of the whole
//! batch (the kernel's warp votes see the same lanes), so the results are bit-for-bit those of
//! [`OdeSolver::solve`] on one device, counters and summary metrics included.
//!
//! ```ignore
//! let devices = DeviceSet::first(4)?;
//! let solver = EnsembleSolver::new(&devices, &system, &cfg, &Options::default())?;
//! let (solution, timing) = solver.solve::<f32>(&y0, &rho)?;
//! ```

use std::ops::Range;
use std::time::Instant;

use skc_runtime::{split_aligned, DeviceSet, Program};

use crate::config::Config;
use crate::gpu::{DeviceBatch, OdeError, OdeSolver, Real, Solution};
use crate::program::SystemSource;
use crate::sk::Options;

/// Contiguous shares of `runs` trajectories for `devices` devices, balanced by trajectories; each share starts at
/// a multiple of `align` (the kernel's block size). Shares may be empty when the batch is small.
pub fn split_runs(runs: usize, devices: usize, align: usize) -> Vec<Range<usize>> {
    split_aligned(runs, devices, align)
}

/// Times of one ensemble run or solve.
#[derive(Clone, Debug, PartialEq)]
pub struct EnsembleTiming {
    /// Host wall time from the first launch (or upload) to the last result, milliseconds.
    pub wall_ms: f64,
    /// Per device of the set: its kernels' device time ([`EnsembleSolver::run`]) or its thread's wall time from
    /// upload to download ([`EnsembleSolver::solve`]), milliseconds; 0 for a device with an empty share.
    pub device_ms: Vec<f64>,
    /// Per device: the trajectories it solved (its share of the batch).
    pub shares: Vec<Range<usize>>,
}

/// A batch already on the devices: one [`DeviceBatch`] per non-empty share.
pub struct EnsembleBatch<T: Real> {
    pub shares: Vec<Range<usize>>,
    /// `parts[i]` holds share `i` on the set's device `i` (None for an empty share).
    pub parts: Vec<Option<DeviceBatch<T>>>,
}

/// A compiled solver on every device of a set.
pub struct EnsembleSolver {
    devices: DeviceSet,
    solvers: Vec<OdeSolver>,
    chunks_per_device: usize,
}

impl EnsembleSolver {
    /// Validates the settings, builds the solver program once, compiles it once per architecture of the set and
    /// loads it on every device.
    pub fn new(
        devices: &DeviceSet,
        system: &SystemSource,
        cfg: &Config,
        options: &Options,
    ) -> Result<EnsembleSolver, OdeError> {
        if devices.is_empty() {
            return Err(OdeError::Shape("an ensemble needs at least one device".into()));
        }
        let program = OdeSolver::program(system, cfg, options)?;
        let modules = devices.load(&Program::from_output(&program.name, &program.cuda))?;
        let solvers = modules
            .into_iter()
            .map(|module| OdeSolver::from_module(module, &program, cfg, options))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(EnsembleSolver { devices: devices.clone(), solvers, chunks_per_device: 4 })
    }

    /// How many chunks [`solve`](Self::solve) cuts each device's share into (4 by default; 1 turns the overlap of
    /// copies and kernels off).
    pub fn set_chunks_per_device(&mut self, chunks: usize) {
        self.chunks_per_device = chunks.max(1);
    }

    pub fn devices(&self) -> &DeviceSet {
        &self.devices
    }

    /// The solver of each device of the set.
    pub fn solvers(&self) -> &[OdeSolver] {
        &self.solvers
    }

    /// The shares of a batch of `runs` trajectories.
    pub fn split(&self, runs: usize) -> Vec<Range<usize>> {
        split_runs(runs, self.solvers.len(), self.solvers[0].block_size() as usize)
    }

    /// Checks the shapes of a batch; returns its number of runs.
    fn runs_of<T: Real>(&self, y0: &[T], params: &[T]) -> Result<usize, OdeError> {
        let solver = &self.solvers[0];
        let (ns, np) = (solver.n_states(), solver.n_params());
        if y0.is_empty() || !y0.len().is_multiple_of(ns) || params.len() != y0.len() / ns * np {
            return Err(OdeError::Shape(format!(
                "{} initial values and {} parameter values do not make runs of {ns} states and {np} parameters",
                y0.len(),
                params.len()
            )));
        }
        Ok(y0.len() / ns)
    }

    /// The slices of `y0` and `params` holding runs `runs`.
    fn slices<'a, T: Real>(&self, y0: &'a [T], params: &'a [T], runs: &Range<usize>) -> (&'a [T], &'a [T]) {
        let (ns, np) = (self.solvers[0].n_states(), self.solvers[0].n_params());
        (&y0[runs.start * ns..runs.end * ns], &params[runs.start * np..runs.end * np])
    }

    /// Uploads each share of a batch to its device.
    pub fn upload<T: Real>(&self, y0: &[T], params: &[T]) -> Result<EnsembleBatch<T>, OdeError> {
        let shares = self.split(self.runs_of(y0, params)?);
        let mut parts = Vec::with_capacity(shares.len());
        for (solver, share) in self.solvers.iter().zip(&shares) {
            parts.push(if share.is_empty() {
                None
            } else {
                let (y, p) = self.slices(y0, params, share);
                Some(solver.upload(y, p)?)
            });
        }
        Ok(EnsembleBatch { shares, parts })
    }

    /// Runs the kernel on every device at once (a batch already uploaded), and waits for all of them.
    pub fn run<T: Real>(&self, batch: &mut EnsembleBatch<T>) -> Result<EnsembleTiming, OdeError> {
        let started = Instant::now();
        let mut timers = Vec::with_capacity(self.solvers.len());
        for (solver, part) in self.solvers.iter().zip(batch.parts.iter_mut()) {
            timers.push(match part {
                Some(part) => {
                    let stream = solver.module().context().stream();
                    let timer = stream.start_timer()?;
                    solver.launch_on(part, &stream)?;
                    Some(timer)
                }
                None => None,
            });
        }
        let mut device_ms = Vec::with_capacity(timers.len());
        for timer in timers {
            device_ms.push(match timer {
                Some(timer) => timer.stop()? as f64,
                None => 0.0,
            });
        }
        let wall_ms = started.elapsed().as_secs_f64() * 1e3;
        Ok(EnsembleTiming { wall_ms, device_ms, shares: batch.shares.clone() })
    }

    /// Downloads every share and joins them into the solution of the whole batch.
    pub fn download<T: Real>(&self, batch: &EnsembleBatch<T>) -> Result<Solution<T>, OdeError> {
        let mut parts = Vec::new();
        for (solver, part) in self.solvers.iter().zip(&batch.parts) {
            if let Some(part) = part {
                parts.push(solver.download(part, 0.0)?);
            }
        }
        Ok(Solution::concat(parts))
    }

    /// Solves a batch (`y0` runs x n_states, `params` runs x n_params) over every device: one host thread per
    /// device uploads, solves and downloads its share in chunks whose copies overlap the kernels.
    pub fn solve<T: Real>(&self, y0: &[T], params: &[T]) -> Result<(Solution<T>, EnsembleTiming), OdeError> {
        let shares = self.split(self.runs_of(y0, params)?);
        let started = Instant::now();
        let results: Vec<Result<ShareResult<T>, OdeError>> = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .solvers
                .iter()
                .zip(&shares)
                .map(|(solver, share)| {
                    let (y, p) = self.slices(y0, params, share);
                    scope.spawn(move || {
                        let begun = Instant::now();
                        let solution = solve_share(solver, y, p, self.chunks_per_device)?;
                        Ok((solution, begun.elapsed().as_secs_f64() * 1e3))
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("an ensemble device thread panicked")).collect()
        });
        let mut parts = Vec::new();
        let mut device_ms = Vec::new();
        for result in results {
            let (solution, ms) = result?;
            parts.extend(solution);
            device_ms.push(ms);
        }
        let wall_ms = started.elapsed().as_secs_f64() * 1e3;
        let mut solution = Solution::concat(parts);
        solution.device_ms = wall_ms as f32;
        Ok((solution, EnsembleTiming { wall_ms, device_ms, shares }))
    }
}

/// What one device's thread returns: its share's solution (None for an empty share) and its wall time in ms.
type ShareResult<T> = (Option<Solution<T>>, f64);

/// One device's share: chunks on two streams in turn (upload and launch chunk c, then download chunk c-1).
fn solve_share<T: Real>(
    solver: &OdeSolver,
    y0: &[T],
    params: &[T],
    chunks: usize,
) -> Result<Option<Solution<T>>, OdeError> {
    let (ns, np) = (solver.n_states(), solver.n_params());
    let runs = y0.len() / ns;
    if runs == 0 {
        return Ok(None);
    }
    let ctx = solver.module().context();
    let streams = [ctx.new_stream()?, ctx.new_stream()?];
    let mut parts = Vec::new();
    let mut pending: Option<(DeviceBatch<T>, usize)> = None;
    let ranges: Vec<_> =
        split_aligned(runs, chunks, solver.block_size() as usize).into_iter().filter(|r| !r.is_empty()).collect();
    for (c, range) in ranges.iter().enumerate() {
        let stream = &streams[c % 2];
        let (y, p) = (&y0[range.start * ns..range.end * ns], &params[range.start * np..range.end * np]);
        let mut batch = solver.upload_on(y, p, stream)?;
        solver.launch_on(&mut batch, stream)?;
        if let Some((previous, s)) = pending.take() {
            parts.push(solver.download_on(&previous, &streams[s], 0.0)?);
        }
        pending = Some((batch, c % 2));
    }
    if let Some((last, s)) = pending {
        parts.push(solver.download_on(&last, &streams[s], 0.0)?);
    }
    Ok(Some(Solution::concat(parts)))
}

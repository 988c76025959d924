//! One batch of trajectories over several GPUs of a host: [`EnsembleSolver`] builds the solver program once,
//! loads it on every device of a [`DeviceSet`] (one NVRTC compile per architecture), deals the batch's blocks to
//! the devices in turn ([`crate::deal`]: device `d` of `D` solves blocks `d, d + D, ...`, so that every device gets
//! an even sample of a batch whose cost varies along it) and solves the shares at once, one host thread per device.
//!
//! Each device's blocks are gathered from the host arrays into one contiguous device buffer, solved, and its
//! results scattered back to the runs' places in the batch. Within a device, a share is cut into chunks solved on
//! two streams in turn, so that a chunk's upload and the previous chunk's download overlap the kernel of the
//! chunk between them. Shares are whole blocks of the kernel's block size and chunks start at multiples of it:
//! every warp then integrates the same trajectories in the same lanes as in a one-GPU launch of the whole batch
//! (the kernel's warp votes see the same lanes), so the results are bit-for-bit those of [`OdeSolver::solve`] on
//! one device, counters and summary metrics included.
//!
//! ```ignore
//! let devices = DeviceSet::first(4)?;
//! let solver = EnsembleSolver::new(&devices, &system, &cfg, &Options::default())?;
//! let (solution, timing) = solver.solve::<f32>(&y0, &rho)?;
//! ```

use std::borrow::Cow;
use std::ops::Range;
use std::time::Instant;

use skc_runtime::{split_aligned, DeviceSet, Program};

use crate::config::Config;
use crate::deal::{deal, Share};
use crate::gpu::{DeviceBatch, OdeError, OdeSolver, Real, Solution};
use crate::program::SystemSource;
use crate::sk::Options;

/// Times of one ensemble run or solve.
#[derive(Clone, Debug, PartialEq)]
pub struct EnsembleTiming {
    /// Host wall time from the first launch (or upload) to the last result, milliseconds.
    pub wall_ms: f64,
    /// Per device of the set: its kernels' device time ([`EnsembleSolver::run`]) or its thread's wall time from
    /// upload to download ([`EnsembleSolver::solve`]), milliseconds; 0 for a device with an empty share.
    pub device_ms: Vec<f64>,
    /// Per device: the trajectories it solved (its share of the batch).
    pub shares: Vec<Share>,
}

/// A batch already on the devices: one [`DeviceBatch`] per non-empty share, each holding its share's runs end to
/// end.
pub struct EnsembleBatch<T: Real> {
    /// Runs in the whole batch.
    pub n_runs: usize,
    pub shares: Vec<Share>,
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

    /// The shares of a batch of `runs` trajectories: blocks of the kernel's block size dealt to the devices in
    /// turn.
    pub fn split(&self, runs: usize) -> Vec<Share> {
        deal(runs, self.solvers.len(), self.solvers[0].block_size() as usize)
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

    /// Uploads each share of a batch to its device, its runs gathered end to end.
    pub fn upload<T: Real>(&self, y0: &[T], params: &[T]) -> Result<EnsembleBatch<T>, OdeError> {
        let n_runs = self.runs_of(y0, params)?;
        let shares = self.split(n_runs);
        let mut parts = Vec::with_capacity(shares.len());
        for (solver, share) in self.solvers.iter().zip(&shares) {
            parts.push(if share.is_empty() {
                None
            } else {
                let (y, p) = gather_inputs(solver, share, 0..share.len(), y0, params);
                Some(solver.upload(&y, &p)?)
            });
        }
        Ok(EnsembleBatch { n_runs, shares, parts })
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

    /// Downloads every share and scatters its runs into the solution of the whole batch.
    pub fn download<T: Real>(&self, batch: &EnsembleBatch<T>) -> Result<Solution<T>, OdeError> {
        let mut parts = Vec::new();
        for ((solver, part), share) in self.solvers.iter().zip(&batch.parts).zip(&batch.shares) {
            if let Some(part) = part {
                parts.push(Placed { share: *share, first_local: 0, solution: solver.download(part, 0.0)? });
            }
        }
        Ok(assemble(batch.n_runs, parts))
    }

    /// Solves a batch (`y0` runs x n_states, `params` runs x n_params) over every device: one host thread per
    /// device gathers, uploads, solves and downloads its share in chunks whose copies overlap the kernels; the
    /// parts are then scattered into the solution of the whole batch.
    pub fn solve<T: Real>(&self, y0: &[T], params: &[T]) -> Result<(Solution<T>, EnsembleTiming), OdeError> {
        let n_runs = self.runs_of(y0, params)?;
        let shares = self.split(n_runs);
        let started = Instant::now();
        let results: Vec<Result<ShareResult<T>, OdeError>> = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .solvers
                .iter()
                .zip(&shares)
                .map(|(solver, share)| {
                    scope.spawn(move || {
                        let begun = Instant::now();
                        let parts = solve_share(solver, share, y0, params, self.chunks_per_device)?;
                        Ok((parts, begun.elapsed().as_secs_f64() * 1e3))
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("an ensemble device thread panicked")).collect()
        });
        let mut parts = Vec::new();
        let mut device_ms = Vec::new();
        for result in results {
            let (placed, ms) = result?;
            parts.extend(placed);
            device_ms.push(ms);
        }
        let mut solution = assemble(n_runs, parts);
        let wall_ms = started.elapsed().as_secs_f64() * 1e3;
        solution.device_ms = wall_ms as f32;
        Ok((solution, EnsembleTiming { wall_ms, device_ms, shares }))
    }
}

/// The solution of some consecutive runs of a share: its runs `first_local ..` in the share's numbering.
struct Placed<T> {
    share: Share,
    first_local: usize,
    solution: Solution<T>,
}

/// What one device's thread returns: its chunks' solutions (none for an empty share) and its wall time in ms.
type ShareResult<T> = (Vec<Placed<T>>, f64);

/// The initial values and parameters of a share's runs `local`, from the batch's host arrays: borrowed when the
/// runs are consecutive in the batch (one device), gathered otherwise.
fn gather_inputs<'a, T: Real>(
    solver: &OdeSolver,
    share: &Share,
    local: Range<usize>,
    y0: &'a [T],
    params: &'a [T],
) -> (Cow<'a, [T]>, Cow<'a, [T]>) {
    (share.gather(local.clone(), solver.n_states(), y0), share.gather(local, solver.n_params(), params))
}

/// The solution of a batch of `n_runs` runs from the solutions of its parts, every run written to its place in
/// the batch (`device_ms` is the largest part's). The parts must cover the batch.
fn assemble<T: Real>(n_runs: usize, parts: Vec<Placed<T>>) -> Solution<T> {
    let first = parts.first().expect("the solution of a batch from no parts");
    let mut whole = Solution::blank(n_runs, &first.solution);
    for part in &parts {
        place(&mut whole, part);
        whole.device_ms = whole.device_ms.max(part.solution.device_ms);
    }
    whole
}

/// Writes every per-run output of a part into its runs' places in the whole batch's solution.
fn place<T: Real>(whole: &mut Solution<T>, part: &Placed<T>) {
    let (share, first, from) = (&part.share, part.first_local, &part.solution);
    let n_states = whole.n_states;
    share.scatter(first, n_states, &from.final_state, &mut whole.final_state);
    share.scatter(first, whole.n_saves * n_states, &from.saves, &mut whole.saves);
    share.scatter(first, 1, &from.status, &mut whole.status);
    share.scatter(first, 1, &from.attempted, &mut whole.attempted);
    share.scatter(first, 1, &from.rejected, &mut whole.rejected);
    share.scatter(first, 1, &from.newton_iters, &mut whole.newton_iters);
    share.scatter(first, whole.trace_len, &from.trace, &mut whole.trace);
    if let (Some(all), Some(some)) = (whole.summaries.as_mut(), from.summaries.as_ref()) {
        share.scatter(first, all.n_windows * all.names.len(), &some.values, &mut all.values);
    }
}

/// One device's share: chunks on two streams in turn (gather, upload and launch chunk c, then download chunk c-1).
fn solve_share<T: Real>(
    solver: &OdeSolver,
    share: &Share,
    y0: &[T],
    params: &[T],
    chunks: usize,
) -> Result<Vec<Placed<T>>, OdeError> {
    let mut parts = Vec::new();
    if share.is_empty() {
        return Ok(parts);
    }
    let ctx = solver.module().context();
    let streams = [ctx.new_stream()?, ctx.new_stream()?];
    let mut pending: Option<(DeviceBatch<T>, usize, usize)> = None;
    let ranges: Vec<_> = split_aligned(share.len(), chunks, solver.block_size() as usize)
        .into_iter()
        .filter(|r| !r.is_empty())
        .collect();
    for (c, range) in ranges.iter().enumerate() {
        let stream = &streams[c % 2];
        let (y, p) = gather_inputs(solver, share, range.clone(), y0, params);
        let mut batch = solver.upload_on(&y, &p, stream)?;
        solver.launch_on(&mut batch, stream)?;
        if let Some((previous, s, first_local)) = pending.take() {
            let solution = solver.download_on(&previous, &streams[s], 0.0)?;
            parts.push(Placed { share: *share, first_local, solution });
        }
        pending = Some((batch, c % 2, range.start));
    }
    if let Some((last, s, first_local)) = pending {
        let solution = solver.download_on(&last, &streams[s], 0.0)?;
        parts.push(Placed { share: *share, first_local, solution });
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::{assemble, Placed};
    use crate::config::Status;
    use crate::deal::deal;
    use crate::gpu::Solution;
    use crate::summaries::Summaries;

    /// A solution of runs `runs` of a batch whose every value names its run, as one GPU would return it.
    fn numbered(runs: &[usize]) -> Solution<f64> {
        let (n_states, n_saves, trace_len, n_windows, names) = (3, 2, 4, 2, 3);
        let rows = |width: usize| -> Vec<f64> {
            runs.iter().flat_map(|&r| (0..width).map(move |k| (r * 1000 + k) as f64)).collect()
        };
        let n = runs.len();
        Solution {
            n_runs: n,
            n_states,
            n_saves,
            final_state: rows(n_states),
            saves: rows(n_saves * n_states),
            status: runs.iter().map(|&r| Status(r as u32)).collect(),
            attempted: runs.iter().map(|&r| r as u32 + 1).collect(),
            rejected: runs.iter().map(|&r| r as u32 + 2).collect(),
            newton_iters: runs.iter().map(|&r| r as u32 + 3).collect(),
            trace: rows(trace_len),
            trace_len,
            device_ms: runs.len() as f32,
            summaries: Some(Summaries {
                n_runs: n,
                n_windows,
                names: vec![String::new(); names],
                values: rows(n_windows * names),
            }),
        }
    }

    /// Each device solves its share in chunks that return their runs in the share's order; assembled, they give
    /// what one device returns for the whole batch.
    #[test]
    fn chunks_of_dealt_shares_assemble_into_the_one_device_solution() {
        for (n_runs, devices, block, chunks) in
            [(1000, 2, 32, 3), (20_077, 4, 256, 4), (300, 5, 256, 2), (77, 1, 32, 1)]
        {
            let one = numbered(&(0..n_runs).collect::<Vec<_>>());
            let mut parts = Vec::new();
            for share in deal(n_runs, devices, block) {
                for chunk in
                    skc_runtime::split_aligned(share.len(), chunks, block).into_iter().filter(|c| !c.is_empty())
                {
                    let runs: Vec<usize> = chunk.clone().map(|local| share.batch_run(local)).collect();
                    parts.push(Placed { share, first_local: chunk.start, solution: numbered(&runs) });
                }
            }
            let largest = parts.iter().map(|p| p.solution.device_ms).fold(0.0, f32::max);
            let mut whole = assemble(n_runs, parts);
            assert_eq!(whole.device_ms, largest);
            whole.device_ms = one.device_ms;
            assert_eq!(whole, one, "{n_runs} runs over {devices} devices, {chunks} chunks each");
        }
    }
}

//! The integration loop of one run, and the batch in warps of 32 lanes.
//!
//! Time is float64: accumulated step by step with adaptive controllers; with fixed steps it is counted,
//! `t_base + k dt` from the last landing, so no rounding accumulates over many steps. Each attempted step aims at the next target, the earlier of the next save time and the end:
//! when the target is at most `dt (1 + 1e-9)` away the step is truncated to land on it exactly. An accepted step
//! that lands on a save time stores the state; one that lands on the end finishes the run. Save times are
//! `t0 + i * save_every` (the first sample is the initial state), the last one snapped to the end when within
//! `1e-9 save_every` of it. A failure (status bits) ends the run and masks its final state and its unsaved
//! samples with NaN. Adaptive steps check that the new state is finite after every step, fixed steps at each
//! landing.
//!
//! FSAL: a lane reuses its cached first-stage derivative only if every lane of its warp that is still running
//! accepted its previous step (`FsalVote::Warp`, the kernels' default), or if it accepted its own
//! (`FsalVote::PerThread`, the compile-time alternative).

use crate::config::{Config, ConfigError, Status};
use crate::reference::controller::{clamped_gain, dead_band, error_norm, History};
use crate::reference::stepper::{dirk_step, erk_step, StepInput, Workspace};
use crate::reference::system::System;
use crate::summaries::stream::SummaryState;
use crate::summaries::Layout;
use crate::tableau::Tableau;

/// Lanes per warp.
pub const WARP: usize = 32;

/// Landing slack: a target within `dt (1 + LANDING_SLACK)` is reached in one (stretched) step.
pub const LANDING_SLACK: f64 = 1e-9;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FsalVote {
    Warp,
    PerThread,
}

/// One attempted step: where it started, its size, whether it was accepted, and what the decisions were made
/// from (for comparing kernels, whose rounding differs, decision by decision; see `crate::compare`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepRecord {
    pub t: f64,
    pub h: f64,
    pub accepted: bool,
    /// What this lane's own controller decided (differs from `accepted` only when replaying a kernel's steps).
    pub own_accept: bool,
    /// The step size the lane proposed before the landing decision (the fixed dt with fixed steps).
    pub proposed: f64,
    /// The distance to the next target (save time or end) when the step started.
    pub remaining: f64,
    /// Whether the step landed on the target.
    pub lands: bool,
    /// The error norm (NaN with fixed steps or a failed implicit step).
    pub nrm2: f64,
    /// The controller's clamped gain before the dead band (NaN with fixed steps).
    pub gain: f64,
    /// See [`crate::reference::stepper::StepOutcome::newton_margin`].
    pub newton_margin: f64,
}

/// A kernel's attempted step to replay: accepted or not, and its size.
pub type ForcedStep = (bool, f64);

/// The result of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub final_state: Vec<f64>,
    /// `n_saves x n_states`, row-major.
    pub saves: Vec<f64>,
    pub status: Status,
    pub attempted: u32,
    pub rejected: u32,
    pub newton_iters: u32,
    pub trace: Vec<StepRecord>,
    /// Summary metrics: windows x (summarised variables x outputs), NaN for windows not completed; empty
    /// without summaries.
    pub summaries: Vec<f64>,
}

impl Run {
    pub fn accepted(&self) -> u32 {
        self.attempted - self.rejected
    }
}

/// The results of a batch, run by run.
#[derive(Clone, Debug, PartialEq)]
pub struct Batch {
    pub n_states: usize,
    pub n_saves: usize,
    pub runs: Vec<Run>,
}

/// The time of save sample `index`.
pub fn save_time(cfg: &Config, index: usize) -> f64 {
    let every = cfg.save_every.expect("save times need save_every");
    let t_end = cfg.t0 + cfg.duration;
    let t = cfg.t0 + index as f64 * every;
    if t >= t_end - 1e-9 * every {
        t_end
    } else {
        t
    }
}

/// Fixed steps from `from` to `target`: `ceil((target - from) / dt - 1e-9)`, at least one; the last one lands.
pub fn segment_steps(from: f64, target: f64, dt: f64) -> u32 {
    (((target - from) / dt - LANDING_SLACK).ceil() as i64).max(1) as u32
}

struct Lane<'a, S: System + ?Sized> {
    sys: &'a S,
    cfg: &'a Config,
    tableau: &'a Tableau,
    p: &'a [f64],
    y: Vec<f64>,
    t: f64,
    /// Fixed steps: the time of the last landing and the full steps taken since.
    t_base: f64,
    steps_since_base: u32,
    segment_steps: u32,
    dt: f64,
    history: History,
    prev_accepted: bool,
    save_index: usize,
    next_save: f64,
    summary: Option<SummaryState>,
    next_sample: f64,
    done: bool,
    ws: Workspace,
    run: Run,
    /// Replay: the kernel's attempted steps, taken instead of this lane's own decisions.
    forced: Option<&'a [ForcedStep]>,
}

impl<'a, S: System + ?Sized> Lane<'a, S> {
    fn new(
        sys: &'a S,
        cfg: &'a Config,
        tableau: &'a Tableau,
        y0: &[f64],
        p: &'a [f64],
        forced: Option<&'a [ForcedStep]>,
    ) -> Self {
        let n = y0.len();
        let n_saves = cfg.n_saves();
        let dt = if cfg.controller.is_adaptive() { cfg.dt.clamp(cfg.dt_min, cfg.dt_max) } else { cfg.dt };
        let summary_len = match &cfg.summaries {
            Some(spec) => spec.n_windows(cfg.duration) * spec.variables.len() * Layout::of(spec).outputs.len(),
            None => 0,
        };
        let mut lane = Lane {
            sys,
            cfg,
            tableau,
            p,
            y: y0.to_vec(),
            t: cfg.t0,
            t_base: cfg.t0,
            steps_since_base: 0,
            segment_steps: 0,
            dt,
            history: History::default(),
            prev_accepted: false,
            save_index: 0,
            next_save: f64::INFINITY,
            summary: cfg.summaries.as_ref().map(SummaryState::new),
            next_sample: f64::INFINITY,
            done: cfg.duration == 0.0,
            ws: Workspace::new(tableau, n),
            run: Run {
                final_state: vec![0.0; n],
                saves: vec![f64::NAN; n_saves * n],
                status: Status::SUCCESS,
                attempted: 0,
                rejected: 0,
                newton_iters: 0,
                trace: Vec::new(),
                summaries: vec![f64::NAN; summary_len],
            },
            forced,
        };
        lane.next_sample = lane.sample_time(0);
        if n_saves > 0 {
            lane.save();
        }
        if !cfg.controller.is_adaptive() {
            lane.segment_steps = segment_steps(cfg.t0, lane.next_target(), cfg.dt);
        }
        lane
    }

    /// The time of summary sample `k`, or infinity past the last one (or without summaries).
    fn sample_time(&self, k: usize) -> f64 {
        match &self.cfg.summaries {
            Some(spec) if k < spec.n_windows(self.cfg.duration) * spec.per_window() => {
                spec.sample_time(self.cfg.t0, self.cfg.t0 + self.cfg.duration, k)
            }
            _ => f64::INFINITY,
        }
    }

    /// The next time a step must land on: the next save, summary sample or the end.
    fn next_target(&self) -> f64 {
        self.next_save.min(self.next_sample).min(self.cfg.t0 + self.cfg.duration)
    }

    /// A summary sample of the current state; a completed window stores its outputs.
    fn sample_summaries(&mut self) {
        let Some(summary) = self.summary.as_mut() else { return };
        let window = summary.samples / self.cfg.summaries.as_ref().expect("summaries").per_window();
        if let Some(row) = summary.sample(&self.y) {
            self.run.summaries[window * row.len()..(window + 1) * row.len()].copy_from_slice(&row);
        }
        let k = summary.samples;
        self.next_sample = self.sample_time(k);
    }

    fn save(&mut self) {
        let n = self.y.len();
        let i = self.save_index;
        self.run.saves[i * n..(i + 1) * n].copy_from_slice(&self.y);
        self.save_index += 1;
        self.next_save =
            if self.save_index < self.cfg.n_saves() { save_time(self.cfg, self.save_index) } else { f64::INFINITY };
    }

    fn fail(&mut self, status: Status) {
        self.run.status = self.run.status | status;
        self.y.iter_mut().for_each(|v| *v = f64::NAN);
        self.done = true;
    }

    /// One attempted step (the lane is running).
    fn attempt(&mut self, reuse_k0: bool) {
        let cfg = self.cfg;
        let adaptive = cfg.controller.is_adaptive();
        let t_end = cfg.t0 + cfg.duration;
        let target = self.next_target();
        // Replay: the kernel's step (a kernel's landing step is exactly the remaining distance: same time sums).
        let forced = self.forced.and_then(|steps| steps.get(self.run.attempted as usize)).copied();
        let (land, h, remaining) = if adaptive {
            let remaining = target - self.t;
            let land = match forced {
                Some((_, h)) => h >= remaining,
                None => remaining <= self.dt * (1.0 + LANDING_SLACK),
            };
            let own = forced.map_or(self.dt, |(_, h)| h);
            (land, if land { remaining } else { own }, remaining)
        } else {
            self.t = self.t_base + self.steps_since_base as f64 * self.dt;
            let land = self.steps_since_base + 1 >= self.segment_steps;
            (land, if land { target - self.t } else { self.dt }, target - self.t)
        };
        let mut record = StepRecord {
            t: self.t,
            h,
            accepted: false,
            own_accept: false,
            proposed: self.dt,
            remaining,
            lands: land,
            nrm2: f64::NAN,
            gain: f64::NAN,
            newton_margin: f64::INFINITY,
        };
        let input = StepInput { t: self.t, h, y: &self.y, p: self.p, reuse_k0, estimate_error: adaptive };
        let outcome = if cfg.method.is_implicit() {
            dirk_step(self.sys, self.tableau, cfg, &input, &mut self.ws)
        } else {
            erk_step(self.sys, self.tableau, &input, &mut self.ws)
        };
        self.run.attempted += 1;
        self.run.newton_iters += outcome.newton_iters;
        record.newton_margin = outcome.newton_margin;
        let (accept, dt_new, nrm2) = if adaptive {
            let nrm2 = match outcome.failure {
                None => error_norm(&self.ws.err, &self.y, &self.ws.y_new, cfg.atol, cfg.rtol),
                Some(_) => f64::NAN,
            };
            record.own_accept = outcome.failure.is_none() && nrm2 <= 1.0;
            record.nrm2 = nrm2;
            let accept = forced.map_or(record.own_accept, |(accepted, _)| accepted);
            // The clamped gain is recorded (the comparison reads it); the step takes it through the dead band.
            record.gain = match outcome.failure {
                None => clamped_gain(
                    cfg.controller,
                    &cfg.gains,
                    self.tableau.controller_order(),
                    nrm2,
                    accept,
                    h,
                    &self.history,
                    outcome.newton_iters,
                    cfg.max_newton,
                ),
                Some(_) => cfg.gains.min_shrink,
            };
            let g = match outcome.failure {
                None => dead_band(&cfg.gains, record.gain),
                Some(_) => cfg.gains.min_shrink,
            };
            let raw = h * g;
            if !accept && raw < cfg.dt_min {
                self.run.trace.push(record);
                self.run.rejected += 1;
                self.fail(Status::STEP_TOO_SMALL);
                return;
            }
            (accept, raw.clamp(cfg.dt_min, cfg.dt_max), nrm2)
        } else {
            record.own_accept = outcome.failure.is_none();
            let accept = forced.map_or(record.own_accept, |(accepted, _)| accepted);
            if !accept {
                self.run.trace.push(record);
                self.run.rejected += 1;
                // Replaying a kernel's failure that this lane would not have had: Newton's closest call decides.
                self.fail(outcome.failure.unwrap_or(Status::MAX_NEWTON_ITERATIONS));
                return;
            }
            (true, self.dt, 0.0)
        };
        record.accepted = accept;
        self.run.trace.push(record);
        if accept {
            if adaptive {
                self.history.record_accepted(nrm2, h);
            }
            if land {
                self.t = target;
                self.t_base = target;
                self.steps_since_base = 0;
            } else if adaptive {
                self.t += h;
            } else {
                self.steps_since_base += 1;
            }
            self.y.copy_from_slice(&self.ws.y_new);
            if self.tableau.fsal() {
                let last = self.ws.k[self.tableau.stages() - 1].clone();
                self.ws.k[0] = last;
            }
            if (adaptive || land) && !self.y.iter().all(|v| v.is_finite()) {
                self.fail(Status::NONFINITE);
                return;
            }
            if land && target == self.next_save {
                self.save();
            }
            if land && target == self.next_sample {
                self.sample_summaries();
            }
            if land && target == t_end {
                self.done = true;
            } else if land && !adaptive {
                self.segment_steps = segment_steps(self.t, self.next_target(), self.dt);
            }
        } else {
            self.run.rejected += 1;
        }
        self.prev_accepted = accept;
        self.dt = dt_new;
        if !self.done && self.run.attempted >= cfg.max_steps {
            self.fail(Status::MAX_STEPS);
        }
    }

    fn finish(mut self) -> Run {
        self.run.final_state = self.y;
        self.run
    }
}

fn check_shapes<S: System + ?Sized>(sys: &S, y0: &[f64], params: &[f64]) -> Result<usize, ConfigError> {
    let (n, np) = (sys.n_states(), sys.n_params());
    if n == 0 || !y0.len().is_multiple_of(n) {
        return Err(ConfigError::NotPositive { name: "runs (y0 length / n_states)", value: y0.len() as f64 });
    }
    let runs = y0.len() / n;
    if params.len() != runs * np {
        return Err(ConfigError::NotFinite { name: "params length (runs x n_params)", value: params.len() as f64 });
    }
    Ok(runs)
}

/// Solves every run of a batch (`y0`: runs x n_states, `params`: runs x n_params), 32 lanes in lockstep.
pub fn solve_batch<S: System + ?Sized>(
    sys: &S,
    y0: &[f64],
    params: &[f64],
    cfg: &Config,
    vote: FsalVote,
) -> Result<Batch, ConfigError> {
    run_batch(sys, y0, params, cfg, vote, None)
}

/// Replays a kernel's attempted steps (`forced[run]`: accepted or not, size) instead of deciding: the states,
/// samples and counters along the kernel's path, and in each [`StepRecord`] what this reference would have
/// decided there. A run stops when it lands on the end, fails, or runs out of forced steps.
pub fn replay_batch<S: System + ?Sized>(
    sys: &S,
    y0: &[f64],
    params: &[f64],
    cfg: &Config,
    vote: FsalVote,
    forced: &[Vec<ForcedStep>],
) -> Result<Batch, ConfigError> {
    run_batch(sys, y0, params, cfg, vote, Some(forced))
}

fn run_batch<S: System + ?Sized>(
    sys: &S,
    y0: &[f64],
    params: &[f64],
    cfg: &Config,
    vote: FsalVote,
    forced: Option<&[Vec<ForcedStep>]>,
) -> Result<Batch, ConfigError> {
    cfg.validate()?;
    let runs = check_shapes(sys, y0, params)?;
    let (n, np) = (sys.n_states(), sys.n_params());
    let tableau = Tableau::of(cfg.method);
    let mut results = Vec::with_capacity(runs);
    for warp_start in (0..runs).step_by(WARP) {
        let warp_end = (warp_start + WARP).min(runs);
        let mut lanes: Vec<Lane<S>> = (warp_start..warp_end)
            .map(|r| {
                let steps = forced.map(|f| f[r].as_slice());
                Lane::new(sys, cfg, &tableau, &y0[r * n..(r + 1) * n], &params[r * np..(r + 1) * np], steps)
            })
            .collect();
        // A replayed lane without forced steps left stops where the kernel's record ends.
        let out_of_steps = |l: &Lane<S>| l.forced.is_some_and(|f| l.run.attempted as usize >= f.len());
        while !lanes.iter().all(|l| l.done || out_of_steps(l)) {
            let warp_accepted = lanes.iter().all(|l| l.done || l.prev_accepted);
            for lane in lanes.iter_mut().filter(|l| !l.done && !out_of_steps(l)) {
                let accepted = match vote {
                    FsalVote::Warp => warp_accepted,
                    FsalVote::PerThread => lane.prev_accepted,
                };
                lane.attempt(tableau.fsal() && accepted);
            }
        }
        results.extend(lanes.into_iter().map(Lane::finish));
    }
    Ok(Batch { n_states: n, n_saves: cfg.n_saves(), runs: results })
}

/// Solves one run.
pub fn integrate<S: System + ?Sized>(sys: &S, y0: &[f64], p: &[f64], cfg: &Config) -> Result<Run, ConfigError> {
    let batch = solve_batch(sys, y0, p, cfg, FsalVote::PerThread)?;
    Ok(batch.runs.into_iter().next().expect("one run"))
}

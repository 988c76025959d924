//! Comparing a kernel's results (GPU, or the emitted C run on the host) with the CPU reference, run by run.
//!
//! A kernel rounds differently from the reference (FMA contraction, float32 states, exp2/log2 in place of pow),
//! so a decision whose quantity lies within rounding of its threshold may go either way, and from there the two
//! runs follow different paths. Demanding equal step sequences would then fail on correct kernels; comparing
//! only where the sequences happen to agree would hide wrong decisions. The rule here:
//!
//! 1. The reference **replays** the kernel's recorded steps (accepted or not, and their sizes) from the same
//!    initial values, and at every step records what it would have decided itself from the same state.
//! 2. Every kernel decision must be the reference's, unless the reference's quantity is within a stated margin
//!    of the threshold ([`Margins`]): the acceptance (`|nrm2 - 1|`), the step size proposed by the controller
//!    (relative difference; excused only after an error norm below the rounding floor, where the error estimate
//!    is rounding noise, a gain at a dead-band edge, or a Newton decision within its margin), the landing on a
//!    save time or the end (`remaining` against `dt (1 + 1e-9)`), and each Newton iteration's convergence and
//!    divergence tests. Fixed steps must have the same sizes (1e-9 relative).
//! 3. Along that shared path the values must agree: the final states and every saved sample to 1e-9 (float64)
//!    or 1e-5 (float32; 4e-5 for the low-order and implicit methods, whose many steps add more rounding),
//!    relative to the size of the state it belongs to, `max(max_i |y_i|, 1)` (float32 rounds every component
//!    at the scale of the largest one, with which it is coupled); the same status bits, NaN masking, attempted and rejected steps, and
//!    Newton iterations (these may differ only where a Newton decision was within its margin).
//!
//! Runs whose accept/reject sequence differs from the reference's own run are counted and reported
//! (`diverged`): each of them has passed the checks above. The kernel's trace must hold every attempted step (`trace_len` large enough).

use skc_ode::config::{Config, ConfigError, Precision, Status};
use skc_ode::reference::driver::LANDING_SLACK;
use skc_ode::reference::{replay_batch, solve_batch, Batch, ForcedStep, FsalVote, Run, StepRecord, System};
use skc_ode::tableau::Tableau;

/// A kernel's outputs for a batch, as host arrays in float64.
pub struct KernelOutput<'a> {
    pub final_state: &'a [f64],
    pub saves: &'a [f64],
    pub status: &'a [Status],
    pub attempted: &'a [u32],
    pub rejected: &'a [u32],
    pub newton_iters: &'a [u32],
    /// runs x trace_len: +h accepted, -h rejected, 0 after the last attempt.
    pub trace: &'a [f64],
    pub trace_len: usize,
}

/// The outcome of a comparison (the checks that must hold have already held when this is returned).
#[derive(Clone, Debug)]
pub struct Agreement {
    /// The largest difference of a final state from the replay (relative to max(|value|, 1)).
    pub worst_final: f64,
    /// Runs whose sequence of accepted and rejected steps differs from the reference's own run (every
    /// decision on the way explained).
    pub diverged: usize,
    /// Kernel steps where a decision differed from the reference's within the allowances: an acceptance or a
    /// landing that went the other way, or a step size beyond the base margin (1e-7 / 1e-3 relative).
    pub flipped_decisions: usize,
    pub runs: usize,
}

/// How close to its threshold a decision's quantity must be for a kernel to decide it differently.
///
/// The error estimate `h sum d_j k_j` is a small difference of stage derivatives, each of which carries the
/// rounding of the stage values: its noise is about `noise |y|`, with `noise` 30 units of roundoff of the state
/// type for explicit methods (a stage value of an s-stage method carries up to s roundings, and a step's
/// `h |df/dy|` is below 1 where they are stable; measured up to 15 with Vern7 in float32) and 1e4 for implicit
/// ones (Newton iterates are converged to `newton_tol` only, and their last bits depend on every update, with
/// finite-difference Jacobians exact to sqrt(eps) only; measured up to 3100 with Kvaerno3 in float64). In units of the error norm's scale `atol + rtol |y|`
/// that is `nu = noise / rtol`, so the square root of `nrm2` is known to `nu`: `nrm2` to `2 nu sqrt(nrm2)` and
/// a gain (exponents below 1) to `2 nu / sqrt(nrm2)` relative. The same noise over the Newton test's scale
/// (`max(rtol, 64 eps) newton_tol`) bounds how well a Newton decision is known. float64 explicit at rtol 1e-6:
/// nu = 7e-9, a step size known to 1e-6 relative once `nrm2 > 2e-4`. float32 at rtol 1e-4: nu = 0.036 (a
/// float32 error estimate at tolerances float32 can meet is a rough number, and so are the decisions on it;
/// implicit float32 decisions are rounding throughout, and only the values along the kernel's path are held).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Margins {
    /// Rounding noise of an error estimate, relative to the state.
    pub noise: f64,
    /// `|nrm2 - 1|` for accepting a step, besides the noise.
    pub accept: f64,
    /// Relative difference of a controller's step size (and of the landing test and dead-band edges), besides
    /// the noise.
    pub step: f64,
    /// Relative distance of a Newton norm from `newton_tol`, or from twice the previous norm.
    pub newton: f64,
}

impl Margins {
    pub fn of(cfg: &Config) -> Margins {
        let eps = cfg.precision.epsilon();
        let noise = if cfg.method.is_implicit() { 1e4 * eps } else { 30.0 * eps };
        match cfg.precision {
            Precision::F64 => Margins { noise, accept: 1e-6, step: 1e-7, newton: 1e-6 },
            Precision::F32 => Margins { noise, accept: 1e-3, step: 1e-3, newton: 1e-3 },
        }
    }

    /// The noise of `sqrt(nrm2)` under a configuration's relative tolerance.
    fn nu(&self, cfg: &Config) -> f64 {
        self.noise / cfg.rtol
    }

    /// How close (relative) a Newton norm must come to its threshold for its decision to be rounding.
    fn newton_allowance(&self, cfg: &Config) -> f64 {
        let scale = cfg.rtol.max(64.0 * cfg.precision.epsilon()) * cfg.newton_tol;
        self.newton + self.noise / scale
    }
}

/// The value tolerance (relative to max(|value|, 1)) for a configuration, along the kernel's own path.
pub fn value_tolerance(cfg: &Config) -> f64 {
    match cfg.precision {
        Precision::F64 => 1e-9,
        Precision::F32 if Tableau::of(cfg.method).order >= 4 && !cfg.method.is_implicit() => 1e-5,
        Precision::F32 => 4e-5,
    }
}

fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

/// The kernel's attempted steps of run `r`.
fn kernel_steps(kernel: &KernelOutput, r: usize) -> Vec<ForcedStep> {
    let len = kernel.trace_len;
    kernel.trace[r * len..(r + 1) * len].iter().take_while(|h| **h != 0.0).map(|h| (*h > 0.0, h.abs())).collect()
}

/// How far the step size the kernel proposed after `history` (the replay's records before the step) may be from
/// the reference's, relative: the margin plus the noise of the gain's error norms (the last one and, for PI, PID
/// and Gustafsson, the last two accepted ones); unbounded where the gain sat at a dead-band edge or a Newton
/// decision (Gustafsson's gain uses the iteration count) was within its margin.
fn step_allowance(history: &[StepRecord], cfg: &Config, m: &Margins) -> f64 {
    let Some(last) = history.last() else { return m.step };
    let band = [cfg.gains.deadband_low, cfg.gains.deadband_high];
    if band.iter().any(|edge| relative(last.gain, *edge) <= m.step + m.nu(cfg))
        || last.newton_margin <= m.newton_allowance(cfg)
    {
        return f64::INFINITY;
    }
    let accepted_norms = history.iter().rev().filter(|s| s.accepted).take(2).map(|s| s.nrm2);
    let smallest = std::iter::once(last.nrm2).chain(accepted_norms).fold(f64::INFINITY, f64::min);
    m.step + 2.0 * m.nu(cfg) / smallest.sqrt()
}

/// Checks one replayed step against the kernel's; returns whether a decision went the other way.
fn check_step(k: usize, step: ForcedStep, replay: &[StepRecord], cfg: &Config, m: &Margins) -> Result<bool, String> {
    let rec = &replay[k];
    let mut flipped = false;
    if step.0 != rec.own_accept {
        let near = (rec.nrm2 - 1.0).abs() <= m.accept + 2.0 * m.nu(cfg) * rec.nrm2.sqrt();
        if !near && rec.newton_margin > m.newton_allowance(cfg) {
            return Err(format!(
                "step {k}: the kernel {} it, the reference's error norm there is {:.6e} (Newton margin {:.1e})",
                if step.0 { "accepted" } else { "rejected" },
                rec.nrm2,
                rec.newton_margin
            ));
        }
        flipped = true;
    }
    if !cfg.controller.is_adaptive() {
        if relative(step.1, rec.h) > 1e-9 {
            return Err(format!("step {k}: fixed step of {:e}, the reference's {:e}", step.1, rec.h));
        }
        return Ok(flipped);
    }
    let reach = rec.proposed * (1.0 + LANDING_SLACK);
    let own_land = rec.remaining <= reach;
    if own_land != rec.lands {
        if relative(rec.remaining, reach) > step_allowance(&replay[..k], cfg, m) {
            return Err(format!(
                "step {k}: the kernel {} on the target {:e} away, the reference proposed {:e}",
                if rec.lands { "landed" } else { "did not land" },
                rec.remaining,
                rec.proposed
            ));
        }
        flipped = true;
    }
    if !rec.lands && relative(step.1, rec.proposed) > m.step {
        if relative(step.1, rec.proposed) > step_allowance(&replay[..k], cfg, m) {
            return Err(format!(
                "step {k}: step of {:e}, the reference proposed {:e} (after an error norm of {:e}, gain {:e})",
                step.1,
                rec.proposed,
                replay.get(k.wrapping_sub(1)).map_or(f64::NAN, |s| s.nrm2),
                replay.get(k.wrapping_sub(1)).map_or(f64::NAN, |s| s.gain),
            ));
        }
        flipped = true;
    }
    Ok(flipped)
}

/// The size of a state for comparing its components: `max(max_i |y_i|, 1)` (1 for a masked state).
fn state_scale(y: &[f64]) -> f64 {
    y.iter().filter(|v| v.is_finite()).fold(1.0f64, |m, v| m.max(v.abs()))
}

/// The values of a run against the replay: NaN where the replay has NaN, else within `tolerance`.
fn check_values(kernel: &KernelOutput, r: usize, run: &Run, n: usize, n_saves: usize, tol: f64) -> Result<f64, String> {
    let mut worst = 0.0f64;
    let scale = state_scale(&run.final_state);
    for s in 0..n {
        let (k, c) = (kernel.final_state[r * n + s], run.final_state[s]);
        if c.is_nan() != k.is_nan() {
            return Err(format!("final state {k}, the reference's {c}"));
        }
        if !c.is_nan() {
            worst = worst.max((k - c).abs() / scale);
        }
    }
    for (i, c) in run.saves.iter().enumerate() {
        let k = kernel.saves[r * n_saves * n + i];
        let scale = state_scale(&run.saves[i / n * n..(i / n + 1) * n]);
        if c.is_nan() != k.is_nan() || (!c.is_nan() && (k - c).abs() > tol * scale) {
            return Err(format!("sample value {i} is {k}, the reference's {c}"));
        }
    }
    if worst > tol {
        return Err(format!("final state differs by {worst:.2e} > {tol:.0e}"));
    }
    Ok(worst)
}

/// Checks one run of the kernel against its replay; returns the worst final difference and flipped decisions.
fn check_run(
    kernel: &KernelOutput,
    r: usize,
    steps: &[ForcedStep],
    replay: &Batch,
    cfg: &Config,
) -> Result<(f64, usize), String> {
    let run = &replay.runs[r];
    let m = Margins::of(cfg);
    if kernel.attempted[r] as usize > kernel.trace_len {
        return Err(format!(
            "{} attempted steps, a trace of {}: too short to compare",
            kernel.attempted[r], kernel.trace_len
        ));
    }
    if steps.len() != kernel.attempted[r] as usize {
        return Err(format!("{} steps traced, {} attempted", steps.len(), kernel.attempted[r]));
    }
    // Decisions first (the most telling message), over the steps both took.
    let mut flipped = 0;
    for (k, step) in steps.iter().enumerate().take(run.trace.len()) {
        flipped += usize::from(check_step(k, *step, &run.trace, cfg, &m)?);
    }
    if run.trace.len() != steps.len() || run.rejected != kernel.rejected[r] {
        return Err(format!(
            "the replay of the kernel's {} steps ({} rejected) ended after {} ({} rejected)",
            steps.len(),
            kernel.rejected[r],
            run.trace.len(),
            run.rejected
        ));
    }
    if kernel.status[r] != run.status {
        return Err(format!("status {:?}, the replay's {:?}", kernel.status[r], run.status));
    }
    let newton_close = run.trace.iter().any(|s| s.newton_margin <= m.newton_allowance(cfg));
    if kernel.newton_iters[r] != run.newton_iters && !newton_close {
        return Err(format!("{} Newton iterations, the replay's {}", kernel.newton_iters[r], run.newton_iters));
    }
    let worst = check_values(kernel, r, run, replay.n_states, replay.n_saves, value_tolerance(cfg))
        .map_err(|e| format!("along the kernel's steps: {e}"))?;
    Ok((worst, flipped))
}

/// Compares a kernel's batch (`y0`, `params`: exactly the values the kernel got, in float64) with the reference
/// under the rule of this module; `Err` names the first check that fails.
pub fn compare<S: System + ?Sized>(
    label: &str,
    sys: &S,
    y0: &[f64],
    params: &[f64],
    cfg: &Config,
    vote: FsalVote,
    kernel: &KernelOutput,
) -> Result<Agreement, String> {
    let config_error = |e: ConfigError| format!("{label}: {e}");
    let own = solve_batch(sys, y0, params, cfg, vote).map_err(config_error)?;
    let runs = own.runs.len();
    let steps: Vec<Vec<ForcedStep>> = (0..runs).map(|r| kernel_steps(kernel, r)).collect();
    let replay = replay_batch(sys, y0, params, cfg, vote, &steps).map_err(config_error)?;
    let (mut worst, mut diverged, mut flipped) = (0.0f64, 0, 0);
    for (r, (run_steps, own_run)) in steps.iter().zip(&own.runs).enumerate() {
        let (w, f) = check_run(kernel, r, run_steps, &replay, cfg).map_err(|e| format!("{label}: run {r}: {e}"))?;
        worst = worst.max(w);
        flipped += f;
        let same = own_run.trace.len() == run_steps.len()
            && own_run.trace.iter().zip(run_steps).all(|(a, b)| a.accepted == b.0);
        diverged += usize::from(!same);
    }
    Ok(Agreement { worst_final: worst, diverged, flipped_decisions: flipped, runs })
}

#[cfg(test)]
mod tests {
    use super::*;
    use skc_ode::config::ControllerKind;
    use skc_ode::method::Method;
    use skc_ode::reference::system::Lorenz;

    /// The reference's own run of a small Lorenz batch, written out as a kernel would.
    struct Fake {
        y0: Vec<f64>,
        rho: Vec<f64>,
        cfg: Config,
        final_state: Vec<f64>,
        saves: Vec<f64>,
        status: Vec<Status>,
        attempted: Vec<u32>,
        rejected: Vec<u32>,
        newton_iters: Vec<u32>,
        trace: Vec<f64>,
    }

    const LEN: usize = 256;

    fn fake(cfg: Config) -> Fake {
        let n = 8;
        let y0: Vec<f64> = (0..n).flat_map(|_| [1.0, 0.0, 0.0]).collect();
        let rho: Vec<f64> = (0..n).map(|i| 21.0 * i as f64 / (n - 1) as f64).collect();
        let batch = solve_batch(&Lorenz, &y0, &rho, &cfg, FsalVote::Warp).unwrap();
        let mut trace = vec![0.0; n * LEN];
        for (r, run) in batch.runs.iter().enumerate() {
            for (k, s) in run.trace.iter().enumerate() {
                trace[r * LEN + k] = if s.accepted { s.h } else { -s.h };
            }
        }
        Fake {
            final_state: batch.runs.iter().flat_map(|r| r.final_state.clone()).collect(),
            saves: batch.runs.iter().flat_map(|r| r.saves.clone()).collect(),
            status: batch.runs.iter().map(|r| r.status).collect(),
            attempted: batch.runs.iter().map(|r| r.attempted).collect(),
            rejected: batch.runs.iter().map(|r| r.rejected).collect(),
            newton_iters: batch.runs.iter().map(|r| r.newton_iters).collect(),
            trace,
            y0,
            rho,
            cfg,
        }
    }

    fn check(f: &Fake) -> Result<Agreement, String> {
        let output = KernelOutput {
            final_state: &f.final_state,
            saves: &f.saves,
            status: &f.status,
            attempted: &f.attempted,
            rejected: &f.rejected,
            newton_iters: &f.newton_iters,
            trace: &f.trace,
            trace_len: LEN,
        };
        compare("fake", &Lorenz, &f.y0, &f.rho, &f.cfg, FsalVote::Warp, &output)
    }

    fn adaptive() -> Config {
        let mut cfg = Config::new(Method::Tsit5, 1.0, 1e-3).with_controller(ControllerKind::I);
        cfg.save_every = Some(0.25);
        cfg
    }

    #[test]
    fn the_reference_agrees_with_itself() {
        let a = check(&fake(adaptive())).unwrap();
        assert_eq!((a.worst_final, a.diverged, a.flipped_decisions), (0.0, 0, 0));
    }

    #[test]
    fn a_step_accepted_far_from_the_threshold_is_caught() {
        let mut f = fake(adaptive());
        // The first rejected step of some run, accepted instead: its norm is well above 1.
        let k = f.trace.iter().position(|h| *h < 0.0).expect("a rejected step in the batch");
        f.trace[k] = -f.trace[k];
        let e = check(&f).unwrap_err();
        assert!(e.contains("the kernel accepted it"), "{e}");
    }

    #[test]
    fn a_wrong_step_size_is_caught() {
        let mut f = fake(adaptive());
        // A run's fifth step 1% longer than its controller proposed (a wrong exponent or safety factor).
        f.trace[3 * LEN + 4] *= 1.01;
        let e = check(&f).unwrap_err();
        assert!(e.contains("the reference proposed"), "{e}");
    }

    #[test]
    fn values_off_the_path_are_caught() {
        let mut f = fake(adaptive());
        f.final_state[5] += 1e-8 * f.final_state[5].abs().max(1.0);
        assert!(check(&f).unwrap_err().contains("final state differs"));
        let mut f = fake(adaptive());
        f.saves[7] = f64::NAN;
        assert!(check(&f).unwrap_err().contains("sample value 7"));
    }

    #[test]
    fn fixed_steps_must_have_the_same_sizes_and_counters() {
        let mut f = fake(Config::new(Method::Tsit5, 1.0, 1e-2).with_controller(ControllerKind::Fixed));
        assert!(check(&f).is_ok());
        f.trace[10] *= 1.0 + 1e-6;
        assert!(check(&f).unwrap_err().contains("fixed step of"));
        let mut f = fake(Config::new(Method::Tsit5, 1.0, 1e-2).with_controller(ControllerKind::Fixed));
        f.rejected[2] = 1;
        assert!(check(&f).is_err());
    }
}

//! One Runge-Kutta step of either family, as the kernels compute it.
//!
//! ERK: stage i is `y + h * acc` with `acc = sum_{j<i} a_ij k_j` over the non-zero coefficients, then
//! `k_i = f(t + c_i h, .)`; with fixed steps an intermediate stage is `y + (h a_i0) k_0 + (h a_i1) k_1 + ...`
//! accumulated left to right (the last stage of an FSAL tableau, the new solution, keeps `y + h * acc`). For FSAL
//! tableaus the last stage value is the new solution; otherwise `y + h * sum b_j k_j`.
//! The error estimate is `h * sum (b_j - b_hat_j) k_j`.
//!
//! DIRK: the iteration matrix `M = I - h gamma J` (J analytic, or forward differences at `(t, y)`) is factored
//! once per attempted step. Each implicit stage solves `z = base + h gamma f(t + c_i h, z)` by Newton from
//! `z = base + h gamma k_{i-1}` (`k_{-1} = 0`), and `k_i = (z - base) / (h gamma)`. Stiffly accurate tableaus
//! take the last stage value as the new solution.

use crate::config::{Config, JacobianKind, Status};
use crate::reference::linalg::Lu;
use crate::reference::system::System;
use crate::tableau::Tableau;

/// Scratch space and stage derivatives for one run (`k[0]` doubles as the FSAL cache).
pub struct Workspace {
    pub k: Vec<Vec<f64>>,
    pub y_new: Vec<f64>,
    pub err: Vec<f64>,
    stage: Vec<f64>,
}

impl Workspace {
    pub fn new(tableau: &Tableau, n: usize) -> Workspace {
        Workspace {
            k: vec![vec![0.0; n]; tableau.stages()],
            y_new: vec![0.0; n],
            err: vec![0.0; n],
            stage: vec![0.0; n],
        }
    }
}

/// What a step reports besides its values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepOutcome {
    pub newton_iters: u32,
    /// `MAX_NEWTON_ITERATIONS` or `NEWTON_DIVERGENCE` when an implicit stage failed.
    pub failure: Option<Status>,
    /// How close the step's closest Newton decision came to going the other way: the smallest relative distance
    /// of an iteration's norm from `newton_tol` (converged) or from twice the previous norm (diverging); infinite
    /// without Newton iterations. Comparisons with the kernels use it to tell rounding from a bug.
    pub newton_margin: f64,
}

impl Default for StepOutcome {
    fn default() -> Self {
        StepOutcome { newton_iters: 0, failure: None, newton_margin: f64::INFINITY }
    }
}

/// The inputs of one step.
pub struct StepInput<'a> {
    pub t: f64,
    pub h: f64,
    pub y: &'a [f64],
    pub p: &'a [f64],
    /// `k[0]` already holds `f(t, y)` (FSAL reuse).
    pub reuse_k0: bool,
    /// Compute the error estimate (adaptive controllers).
    pub estimate_error: bool,
}

/// `acc = sum_{j < upto} coeffs[j] k_j` over the non-zero coefficients, as the kernels unroll it.
fn combine(coeffs: &[f64], k: &[Vec<f64>], upto: usize, state: usize) -> f64 {
    let mut acc: Option<f64> = None;
    for (j, &c) in coeffs.iter().enumerate().take(upto) {
        if c != 0.0 {
            acc = Some(match acc {
                None => c * k[j][state],
                Some(a) => a + c * k[j][state],
            });
        }
    }
    acc.unwrap_or(0.0)
}

/// `y + (h c_0) k_0 + (h c_1) k_1 + ...` over the non-zero coefficients, as the kernels accumulate an
/// intermediate stage value.
fn accumulate(y: f64, h: f64, coeffs: &[f64], k: &[Vec<f64>], upto: usize, state: usize) -> f64 {
    let mut acc = y;
    for (j, &c) in coeffs.iter().enumerate().take(upto) {
        if c != 0.0 {
            acc += (h * c) * k[j][state];
        }
    }
    acc
}

fn error_estimate(tableau: &Tableau, h: f64, ws: &mut Workspace) {
    let d = tableau.error_weights().expect("adaptive steps need an embedded pair");
    for i in 0..ws.err.len() {
        ws.err[i] = h * combine(&d, &ws.k, d.len(), i);
    }
}

/// An explicit step; `ws.y_new` and (if asked) `ws.err` receive the results.
pub fn erk_step<S: System + ?Sized>(sys: &S, tableau: &Tableau, input: &StepInput, ws: &mut Workspace) -> StepOutcome {
    let (s, n) = (tableau.stages(), input.y.len());
    if !input.reuse_k0 {
        sys.rhs(input.t, input.y, input.p, &mut ws.k[0]);
    }
    for i in 1..s {
        // Fixed steps accumulate intermediate stages onto y (the kernels' step size is compiled in).
        let exact = input.estimate_error || (tableau.fsal() && i == s - 1);
        for state in 0..n {
            ws.stage[state] = if exact {
                input.y[state] + input.h * combine(&tableau.a[i], &ws.k, i, state)
            } else {
                accumulate(input.y[state], input.h, &tableau.a[i], &ws.k, i, state)
            };
        }
        sys.rhs(input.t + tableau.c[i] * input.h, &ws.stage, input.p, &mut ws.k[i]);
    }
    if tableau.fsal() {
        ws.y_new.copy_from_slice(&ws.stage);
    } else {
        for state in 0..n {
            ws.y_new[state] = input.y[state] + input.h * combine(&tableau.b, &ws.k, s, state);
        }
    }
    if input.estimate_error {
        error_estimate(tableau, input.h, ws);
    }
    StepOutcome::default()
}

/// The Jacobian at `(t, y)` into `jac` (row-major), analytic or by forward differences from `f0 = f(t, y)`.
fn jacobian<S: System + ?Sized>(sys: &S, cfg: &Config, t: f64, y: &[f64], p: &[f64], f0: &[f64], jac: &mut [f64]) {
    if cfg.jacobian == JacobianKind::Analytic && sys.jacobian(t, y, p, jac) {
        return;
    }
    let n = y.len();
    let sqrt_eps = cfg.precision.epsilon().sqrt();
    let (mut yp, mut fp) = (y.to_vec(), vec![0.0; n]);
    for col in 0..n {
        let shifted = y[col] + sqrt_eps * y[col].abs().max(1.0);
        let delta = shifted - y[col];
        yp[col] = shifted;
        sys.rhs(t, &yp, p, &mut fp);
        yp[col] = y[col];
        for row in 0..n {
            jac[row * n + col] = (fp[row] - f0[row]) / delta;
        }
    }
}

/// Newton iterations for one implicit stage: `z` holds the start and receives the solution.
#[allow(clippy::too_many_arguments)]
fn newton<S: System + ?Sized>(
    sys: &S,
    cfg: &Config,
    lu: &Lu,
    t: f64,
    p: &[f64],
    base: &[f64],
    hg: f64,
    z: &mut [f64],
    iters: &mut u32,
    margin: &mut f64,
) -> Option<Status> {
    let n = z.len();
    let rtol = cfg.rtol.max(64.0 * cfg.precision.epsilon());
    let (mut fz, mut delta) = (vec![0.0; n], vec![0.0; n]);
    let mut previous = f64::INFINITY;
    for m in 0..cfg.max_newton {
        sys.rhs(t, z, p, &mut fz);
        for i in 0..n {
            delta[i] = z[i] - base[i] - hg * fz[i];
        }
        lu.solve(&mut delta);
        let mut sum = 0.0;
        for i in 0..n {
            z[i] -= delta[i];
            let scaled = delta[i] / (cfg.atol + rtol * z[i].abs());
            sum += scaled * scaled;
        }
        *iters += 1;
        let norm = (sum * (1.0 / n as f64)).sqrt();
        *margin = margin.min((norm / cfg.newton_tol - 1.0).abs());
        if m > 0 {
            *margin = margin.min((norm / (2.0 * previous) - 1.0).abs());
        }
        if norm <= cfg.newton_tol {
            return None;
        }
        // Written so that a NaN norm counts as divergence.
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        let diverging = !(norm <= 2.0 * previous);
        if m > 0 && diverging {
            return Some(Status::NEWTON_DIVERGENCE);
        }
        previous = norm;
    }
    Some(Status::MAX_NEWTON_ITERATIONS)
}

/// A diagonally implicit step; `ws.y_new` and (if asked) `ws.err` receive the results.
#[allow(clippy::needless_range_loop)]
pub fn dirk_step<S: System + ?Sized>(
    sys: &S,
    tableau: &Tableau,
    cfg: &Config,
    input: &StepInput,
    ws: &mut Workspace,
) -> StepOutcome {
    let (s, n, h, t) = (tableau.stages(), input.y.len(), input.h, input.t);
    let gamma = tableau.implicit_diagonal().expect("a DIRK tableau has implicit stages");
    let hg = h * gamma;
    let explicit_first = tableau.a[0][0] == 0.0;
    let mut outcome = StepOutcome::default();
    // f(t, y): the explicit first stage, or only for the finite differences.
    let mut f0 = vec![0.0; n];
    let needs_f0 = explicit_first || cfg.jacobian == JacobianKind::FiniteDifferences;
    if explicit_first {
        if !input.reuse_k0 {
            sys.rhs(t, input.y, input.p, &mut ws.k[0]);
        }
        // Differences need f(t, y) itself: a reused k0 (the previous step's last stage derivative) is exact only
        // to the Newton tolerance, which differencing by sqrt(eps) would amplify.
        if input.reuse_k0 && cfg.jacobian == JacobianKind::FiniteDifferences {
            sys.rhs(t, input.y, input.p, &mut f0);
        } else {
            f0.copy_from_slice(&ws.k[0]);
        }
    } else if needs_f0 {
        sys.rhs(t, input.y, input.p, &mut f0);
    }
    let mut m = vec![0.0; n * n];
    jacobian(sys, cfg, t, input.y, input.p, &f0, &mut m);
    for r in 0..n {
        for c in 0..n {
            m[r * n + c] = f64::from(r == c) - hg * m[r * n + c];
        }
    }
    let Some(lu) = Lu::factor(n, m) else {
        outcome.failure = Some(Status::NEWTON_DIVERGENCE);
        return outcome;
    };
    let mut z = vec![0.0; n];
    for i in 0..s {
        if tableau.a[i][i] == 0.0 {
            continue;
        }
        for state in 0..n {
            ws.stage[state] = input.y[state] + h * combine(&tableau.a[i], &ws.k, i, state);
            let guess = if i > 0 { ws.k[i - 1][state] } else { 0.0 };
            z[state] = ws.stage[state] + hg * guess;
        }
        if let Some(failure) = newton(
            sys,
            cfg,
            &lu,
            t + tableau.c[i] * h,
            input.p,
            &ws.stage,
            hg,
            &mut z,
            &mut outcome.newton_iters,
            &mut outcome.newton_margin,
        ) {
            outcome.failure = Some(failure);
            return outcome;
        }
        for state in 0..n {
            ws.k[i][state] = (z[state] - ws.stage[state]) / hg;
        }
    }
    if tableau.stiffly_accurate() {
        ws.y_new.copy_from_slice(&z);
    } else {
        for state in 0..n {
            ws.y_new[state] = input.y[state] + h * combine(&tableau.b, &ws.k, s, state);
        }
    }
    if input.estimate_error {
        error_estimate(tableau, h, ws);
    }
    outcome
}

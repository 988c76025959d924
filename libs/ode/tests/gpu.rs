//! GPU against the CPU reference (`cargo test -p skc-ode --features gpu-tests`; without a GPU these fail, never
//! skip), through `tests/common/compare.rs`: the reference replays every run's recorded steps and checks each of the
//! GPU's decisions (accept, step size, landing, Newton) against its own, allowing a different one only within
//! rounding of the threshold (`Margins`: 1e-6 of the error norm in float64), and the values along those steps:
//! 1e-9 in float64, 1e-5 in float32 (4e-5 for the low-order and implicit methods); the same status bits, NaN
//! masking, saved samples and counters; and the errors reported before any kernel runs. With the FSAL warp
//! vote the reference runs lanes in lockstep warps of 32, as the GPU does.

#[path = "common/compare.rs"]
mod compare;

use compare::{compare, Agreement, KernelOutput};
use skc_ode::gpu::{OdeError, OdeSolver, Real, Solution};
use skc_ode::program::SystemSource;
use skc_ode::reference::system::{Lorenz, Lorenz96, Robertson, VanDerPol};
use skc_ode::reference::{solve_batch, FsalVote, System};
use skc_ode::sk::Options;
use skc_ode::{Config, ControllerKind, JacobianKind, Method, Precision, Status, Tableau};
use skc_runtime::Context;

fn context() -> Context {
    Context::new(0).unwrap_or_else(|e| panic!("the GPU tests need a CUDA GPU: {e}"))
}

fn system(name: &str) -> SystemSource {
    SystemSource::new(skc_ode::program::systems_dir().join(name))
}

const TRACE: usize = 16384;

fn lorenz_inputs(n: usize) -> (Vec<f64>, Vec<f64>) {
    let y0: Vec<f64> = (0..n).flat_map(|_| [1.0, 0.0, 0.0]).collect();
    let rho: Vec<f64> = (0..n).map(|i| (21.0 * i as f64 / (n - 1) as f64) as f32 as f64).collect();
    (y0, rho)
}

/// Solves on the GPU in precision `T` and compares with the float64 reference (warp lockstep with the same FSAL
/// decision) under the rule of [`tests/common/compare.rs`].
fn compare_gpu<T: Real, S: System>(
    ctx: &Context,
    sys: &S,
    file: &str,
    y0: &[f64],
    params: &[f64],
    cfg: &Config,
    options: &Options,
) -> (Agreement, Solution<T>) {
    let mut cfg = cfg.clone();
    cfg.precision = T::PRECISION;
    let label = format!("{file} {} {} {} {:?}", cfg.method, cfg.controller.name(), T::PRECISION.name(), cfg.jacobian);
    let solver = OdeSolver::new(ctx, &system(file), &cfg, options).unwrap_or_else(|e| panic!("{label}: {e}"));
    let cast = |v: &[f64]| v.iter().map(|x| T::from_f64(*x)).collect::<Vec<T>>();
    let gpu = solver.solve::<T>(&cast(y0), &cast(params)).unwrap();
    // The CPU runs from exactly the values the GPU got.
    let y0_t: Vec<f64> = cast(y0).iter().map(|v| v.to_f64()).collect();
    let p_t: Vec<f64> = cast(params).iter().map(|v| v.to_f64()).collect();
    let vote = if options.fsal_vote { FsalVote::Warp } else { FsalVote::PerThread };
    let widen = |v: &[T]| v.iter().map(|x| x.to_f64()).collect::<Vec<f64>>();
    let (final_state, saves) = (widen(&gpu.final_state), widen(&gpu.saves));
    let output = KernelOutput {
        final_state: &final_state,
        saves: &saves,
        status: &gpu.status,
        attempted: &gpu.attempted,
        rejected: &gpu.rejected,
        newton_iters: &gpu.newton_iters,
        trace: &gpu.trace,
        trace_len: gpu.trace_len,
    };
    let agreement = compare(&label, sys, &y0_t, &p_t, &cfg, vote, &output).unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "{label:<56} worst final difference {:.2e}, runs diverging from the reference's own {}/{} ({} decisions within margins)",
        agreement.worst_final, agreement.diverged, agreement.runs, agreement.flipped_decisions
    );
    (agreement, gpu)
}

fn traced() -> Options {
    Options { fsal_vote: true, trace_len: TRACE, ..Options::default() }
}

#[test]
fn every_explicit_method_matches_the_cpu_on_the_lorenz_sweep() {
    let ctx = context();
    let (y0, rho) = lorenz_inputs(256);
    for method in Method::EXPLICIT {
        let mut controllers = vec![ControllerKind::Fixed];
        if Tableau::of(method).is_adaptive() {
            controllers.push(ControllerKind::I);
        }
        for controller in controllers {
            let dt = if controller.is_adaptive() { 1e-3 } else { 1e-2 };
            let cfg = Config::new(method, 1.0, dt).with_controller(controller);
            compare_gpu::<f64, _>(&ctx, &Lorenz, "lorenz.sk", &y0, &rho, &cfg, &traced());
            // A float32 error estimate at 1e-6 is mostly rounding, and still rough at 1e-5 (see tests/common/compare.rs's
            // Margins): float32 adaptive runs use 1e-4, where their decisions can be held.
            let cfg32 = if controller.is_adaptive() { cfg.clone().with_tolerances(1e-4, 1e-4) } else { cfg.clone() };
            compare_gpu::<f32, _>(&ctx, &Lorenz, "lorenz.sk", &y0, &rho, &cfg32, &traced());
        }
    }
}

#[test]
fn every_controller_matches_the_cpu() {
    let ctx = context();
    let (y0, rho) = lorenz_inputs(128);
    for method in [Method::Tsit5, Method::Kvaerno5] {
        for controller in ControllerKind::ALL.into_iter().filter(|c| c.is_adaptive()) {
            let mut cfg = Config::new(method, 1.0, 1e-3).with_controller(controller);
            cfg.jacobian = JacobianKind::Analytic;
            compare_gpu::<f64, _>(&ctx, &Lorenz, "lorenz.sk", &y0, &rho, &cfg, &traced());
        }
    }
}

#[test]
fn implicit_methods_match_the_cpu_on_stiff_van_der_pol() {
    let ctx = context();
    let n = 64;
    let y0: Vec<f64> = (0..n).flat_map(|i| [1.0 + i as f64 / n as f64, 0.0]).collect();
    let mu: Vec<f64> = (0..n).map(|i| 100.0 + 900.0 * i as f64 / n as f64).collect();
    for method in Method::IMPLICIT {
        for jacobian in [JacobianKind::Analytic, JacobianKind::FiniteDifferences] {
            let tableau = Tableau::of(method);
            let (dt, duration) = if tableau.is_adaptive() { (1e-3, 2.0) } else { (1e-2, 1.0) };
            let mut cfg = Config::new(method, duration, dt);
            cfg.jacobian = jacobian;
            compare_gpu::<f64, _>(&ctx, &VanDerPol, "van_der_pol.sk", &y0, &mu, &cfg, &traced());
        }
        // float32 on a non-stiff problem (on stiff Van der Pol float32 rounding is amplified far beyond 1e-5).
        let cfg = Config::new(method, 1.0, 1e-2).with_tolerances(1e-5, 1e-5);
        let (y0, rho) = lorenz_inputs(64);
        compare_gpu::<f32, _>(&ctx, &Lorenz, "lorenz.sk", &y0, &rho, &cfg, &traced());
    }
}

#[test]
fn eight_states_and_saved_samples() {
    let ctx = context();
    let n = 96;
    let sys = Lorenz96(8);
    let y0: Vec<f64> =
        (0..n).flat_map(|r| (0..8).map(move |s| if s == 0 { 8.01 + r as f64 * 1e-3 } else { 8.0 })).collect();
    let forcing = vec![8.0; n];
    for method in [Method::Tsit5, Method::Vern7, Method::Kvaerno3] {
        let mut cfg = Config::new(method, 2.0, 1e-2);
        cfg.save_every = Some(0.25);
        let (_, gpu) = compare_gpu::<f64, _>(&ctx, &sys, "lorenz96.sk", &y0, &forcing, &cfg, &traced());
        assert_eq!(gpu.n_saves, 9);
    }
}

#[test]
fn failures_are_masked_like_the_cpu_does() {
    let ctx = context();
    let n = 40;
    let y0: Vec<f64> = (0..n).flat_map(|_| [1.0, 0.0, 0.0]).collect();
    // Rates that make explicit Euler blow up for some runs and not for others.
    let params: Vec<f64> = (0..n).flat_map(|i| [0.04, 3e7 * (i as f64 / n as f64).powi(4), 1e4]).collect();
    let mut cfg = Config::new(Method::Euler, 5.0, 2e-3);
    cfg.save_every = Some(1.0);
    // Runs at the edge of explicit Euler's stability amplify rounding (FMA contraction on the GPU): statuses and
    // masking are compared here.
    let solver = OdeSolver::new(&ctx, &system("robertson.sk"), &cfg, &traced()).unwrap();
    let gpu = solver.solve::<f64>(&y0, &params).unwrap();
    let cpu = solve_batch(&Robertson, &y0, &params, &cfg, FsalVote::Warp).unwrap();
    for (r, run) in cpu.runs.iter().enumerate() {
        assert_eq!(gpu.status[r], run.status, "run {r}");
        assert_eq!(gpu.final_of(r)[0].is_nan(), run.final_state[0].is_nan(), "run {r}");
        for (i, v) in run.saves.iter().enumerate() {
            assert_eq!(gpu.saves[r * 6 * 3 + i].is_nan(), v.is_nan(), "run {r} sample value {i}");
        }
    }
    let failed = gpu.status.iter().filter(|s| s.contains(Status::NONFINITE)).count();
    assert!(failed > 0 && failed < n, "{failed} of {n} runs failed");
    // Too few steps.
    let mut few = Config::new(Method::Tsit5, 1.0, 1e-3).with_controller(ControllerKind::Fixed);
    few.max_steps = 100;
    let (y0, rho) = lorenz_inputs(32);
    let (_, gpu) = compare_gpu::<f32, _>(&ctx, &Lorenz, "lorenz.sk", &y0, &rho, &few, &traced());
    assert!(gpu.status.iter().all(|s| *s == Status::MAX_STEPS));
    assert!(gpu.final_state.iter().all(|v| v.is_nan()));
}

#[test]
fn per_thread_fsal_decision_matches_too() {
    let ctx = context();
    let (y0, rho) = lorenz_inputs(256);
    for method in [Method::Tsit5, Method::Kvaerno3] {
        let mut cfg = Config::new(method, 1.0, 1e-3);
        cfg.jacobian = JacobianKind::Analytic;
        let options = Options { fsal_vote: false, trace_len: TRACE, ..Options::default() };
        compare_gpu::<f64, _>(&ctx, &Lorenz, "lorenz.sk", &y0, &rho, &cfg, &options);
    }
}

#[test]
fn bad_inputs_are_errors_before_any_kernel_runs() {
    let ctx = context();
    let mut cfg = Config::new(Method::Tsit5, 1.0, 1e-3);
    cfg.precision = Precision::F32;
    let solver = OdeSolver::new(&ctx, &system("lorenz.sk"), &cfg, &Options::default()).unwrap();
    assert!(matches!(solver.solve::<f32>(&[1.0, 0.0], &[1.0]), Err(OdeError::Shape(_))));
    assert!(matches!(solver.solve::<f32>(&[1.0, 0.0, 0.0], &[1.0, 2.0]), Err(OdeError::Shape(_))));
    assert!(matches!(solver.solve::<f64>(&[1.0, 0.0, 0.0], &[1.0]), Err(OdeError::Precision { .. })));
    let mut nan = cfg.clone();
    nan.atol = f64::NAN;
    assert!(matches!(OdeSolver::new(&ctx, &system("lorenz.sk"), &nan, &Options::default()), Err(OdeError::Config(_))));
    let mut negative = cfg.clone();
    negative.duration = -1.0;
    assert!(matches!(
        OdeSolver::new(&ctx, &system("lorenz.sk"), &negative, &Options::default()),
        Err(OdeError::Config(_))
    ));
    let mut analytic = Config::new(Method::Kvaerno5, 1.0, 1e-3);
    analytic.jacobian = JacobianKind::Analytic;
    let missing = OdeSolver::new(&ctx, &system("kepler.sk"), &analytic, &Options::default());
    assert!(matches!(missing, Err(OdeError::Frontend(_))));
}

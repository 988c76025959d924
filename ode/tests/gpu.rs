//! GPU against the CPU reference (`cargo test -p skc-ode --features gpu-tests`; without a GPU these fail, never
//! skip): final states to 1e-9 in float64 and 1e-5 in float32, the same accepted/rejected step sequence (float64:
//! every run; float32: every run whose error norms stay clear of the accept threshold), the same counters, status
//! bits and NaN masking, saved samples, and the errors reported before any kernel runs.

use skc_ode::gpu::{OdeError, OdeSolver, Real, Solution};
use skc_ode::program::SystemSource;
use skc_ode::reference::system::{Lorenz, Lorenz96, Robertson, VanDerPol};
use skc_ode::reference::{solve_batch, Batch, FsalVote, System};
use skc_ode::sk::Options;
use skc_ode::{Config, ControllerKind, JacobianKind, Method, Precision, Status, Tableau};
use skc_runtime::Context;

fn context() -> Context {
    Context::new(0).unwrap_or_else(|e| panic!("the GPU tests need a CUDA GPU: {e}"))
}

fn system(name: &str) -> SystemSource {
    SystemSource::new(skc_ode::program::systems_dir().join(name))
}

const TRACE: usize = 256;

fn lorenz_inputs(n: usize) -> (Vec<f64>, Vec<f64>) {
    let y0: Vec<f64> = (0..n).flat_map(|_| [1.0, 0.0, 0.0]).collect();
    let rho: Vec<f64> = (0..n).map(|i| (21.0 * i as f64 / (n - 1) as f64) as f32 as f64).collect();
    (y0, rho)
}

/// Solves on the GPU in precision `T` and on the CPU (float64, warp lockstep, same vote), and compares.
struct Comparison {
    label: String,
    worst_final: f64,
    trace_mismatches: usize,
    runs: usize,
}

fn compare<T: Real, S: System>(
    ctx: &Context,
    sys: &S,
    file: &str,
    y0: &[f64],
    params: &[f64],
    cfg: &Config,
    options: &Options,
) -> (Comparison, Solution<T>, Batch) {
    let mut cfg = cfg.clone();
    cfg.precision = T::PRECISION;
    let solver = OdeSolver::new(ctx, &system(file), &cfg, options).unwrap_or_else(|e| panic!("{file}: {e}"));
    let cast = |v: &[f64]| v.iter().map(|x| T::from_f64(*x)).collect::<Vec<T>>();
    let gpu = solver.solve::<T>(&cast(y0), &cast(params)).unwrap();
    // The CPU runs from exactly the values the GPU got.
    let y0_t: Vec<f64> = cast(y0).iter().map(|v| v.to_f64()).collect();
    let p_t: Vec<f64> = cast(params).iter().map(|v| v.to_f64()).collect();
    let vote = if options.fsal_vote { FsalVote::Warp } else { FsalVote::PerThread };
    let cpu = solve_batch(sys, &y0_t, &p_t, &cfg, vote).unwrap();
    let n = sys.n_states();
    let mut worst = 0.0f64;
    let mut mismatches = 0;
    for (r, run) in cpu.runs.iter().enumerate() {
        assert_eq!(gpu.status[r], run.status, "{file} {} run {r}: status", cfg.method);
        for s in 0..n {
            let (g, c) = (gpu.final_state[r * n + s].to_f64(), run.final_state[s]);
            if c.is_nan() {
                assert!(g.is_nan(), "{file} run {r}: the CPU masked the run, the GPU has {g}");
            } else {
                worst = worst.max((g - c).abs() / c.abs().max(1.0));
            }
        }
        let gpu_trace: Vec<(bool, f64)> =
            gpu.trace_of(r).iter().take_while(|h| **h != 0.0).map(|h| (*h > 0.0, h.abs())).collect();
        let cpu_trace: Vec<(bool, f64)> = run.trace.iter().take(TRACE).map(|s| (s.accepted, s.h)).collect();
        let same = gpu_trace.len() == cpu_trace.len()
            && gpu_trace.iter().zip(&cpu_trace).all(|(g, c)| g.0 == c.0 && (g.1 - c.1).abs() <= 1e-4 * c.1);
        let counters = gpu.attempted[r] == run.attempted && gpu.rejected[r] == run.rejected;
        if !(same && counters) {
            mismatches += 1;
        }
    }
    let label = format!("{} {} {} {}", file, cfg.method, cfg.controller.name(), T::PRECISION.name());
    (Comparison { label, worst_final: worst, trace_mismatches: mismatches, runs: cpu.runs.len() }, gpu, cpu)
}

fn tolerance(precision: Precision) -> f64 {
    match precision {
        Precision::F32 => 1e-5,
        Precision::F64 => 1e-9,
    }
}

fn check<T: Real>(c: &Comparison, max_trace_mismatch_fraction: f64) {
    eprintln!(
        "{:<48} worst final difference {:.2e}, accept/reject sequences differing in {}/{} runs",
        c.label, c.worst_final, c.trace_mismatches, c.runs
    );
    assert!(c.worst_final <= tolerance(T::PRECISION), "{}: {:.2e}", c.label, c.worst_final);
    assert!(
        c.trace_mismatches as f64 <= max_trace_mismatch_fraction * c.runs as f64,
        "{}: {} of {} runs took other steps",
        c.label,
        c.trace_mismatches,
        c.runs
    );
}

fn traced() -> Options {
    Options { fsal_vote: true, trace_len: TRACE }
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
            let (c, _, _) = compare::<f64, _>(&ctx, &Lorenz, "lorenz.sk", &y0, &rho, &cfg, &traced());
            check::<f64>(&c, 0.0);
            let (c, _, _) = compare::<f32, _>(&ctx, &Lorenz, "lorenz.sk", &y0, &rho, &cfg, &traced());
            // float32 error norms differ from float64 ones by ~1e-6: a step right at the threshold may flip.
            check::<f32>(&c, 0.05);
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
            let (c, _, _) = compare::<f64, _>(&ctx, &Lorenz, "lorenz.sk", &y0, &rho, &cfg, &traced());
            check::<f64>(&c, 0.0);
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
            let (c, gpu, cpu) = compare::<f64, _>(&ctx, &VanDerPol, "van_der_pol.sk", &y0, &mu, &cfg, &traced());
            check::<f64>(&c, 0.0);
            for (r, run) in cpu.runs.iter().enumerate() {
                assert_eq!(gpu.newton_iters[r], run.newton_iters, "{}: run {r} Newton iterations", c.label);
            }
            let (c, _, _) = compare::<f32, _>(&ctx, &VanDerPol, "van_der_pol.sk", &y0, &mu, &cfg, &traced());
            check::<f32>(&c, 0.1);
        }
    }
}

#[test]
fn eight_states_and_saved_samples() {
    let ctx = context();
    let n = 96;
    let sys = Lorenz96(8);
    let y0: Vec<f64> = (0..n).flat_map(|r| (0..8).map(move |s| if s == 0 { 8.01 + r as f64 * 1e-3 } else { 8.0 })).collect();
    let forcing = vec![8.0; n];
    for method in [Method::Tsit5, Method::Vern7, Method::Kvaerno3] {
        let mut cfg = Config::new(method, 2.0, 1e-2);
        cfg.save_every = Some(0.25);
        let (c, gpu, cpu) = compare::<f64, _>(&ctx, &sys, "lorenz96.sk", &y0, &forcing, &cfg, &traced());
        check::<f64>(&c, 0.0);
        assert_eq!(gpu.n_saves, 9);
        for (r, run) in cpu.runs.iter().enumerate() {
            for (i, v) in run.saves.iter().enumerate() {
                let g = gpu.saves[r * 9 * 8 + i];
                assert!((g - v).abs() <= 1e-9 * v.abs().max(1.0), "{}: run {r} sample value {i}: {g} vs {v}", c.label);
            }
        }
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
    let (c, gpu, _) = compare::<f64, _>(&ctx, &Robertson, "robertson.sk", &y0, &params, &cfg, &traced());
    check::<f64>(&c, 0.0);
    let failed = gpu.status.iter().filter(|s| s.contains(Status::NONFINITE)).count();
    assert!(failed > 0 && failed < n, "{failed} of {n} runs failed");
    // Too few steps.
    let mut few = Config::new(Method::Tsit5, 1.0, 1e-3).with_controller(ControllerKind::Fixed);
    few.max_steps = 100;
    let (y0, rho) = lorenz_inputs(32);
    let (c, gpu, _) = compare::<f32, _>(&ctx, &Lorenz, "lorenz.sk", &y0, &rho, &few, &traced());
    check::<f32>(&c, 0.0);
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
        let options = Options { fsal_vote: false, trace_len: TRACE };
        let (c, _, _) = compare::<f64, _>(&ctx, &Lorenz, "lorenz.sk", &y0, &rho, &cfg, &options);
        check::<f64>(&c, 0.0);
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
    assert!(matches!(OdeSolver::new(&ctx, &system("lorenz.sk"), &negative, &Options::default()), Err(OdeError::Config(_))));
    let mut analytic = Config::new(Method::Kvaerno5, 1.0, 1e-3);
    analytic.jacobian = JacobianKind::Analytic;
    let missing = OdeSolver::new(&ctx, &system("kepler.sk"), &analytic, &Options::default());
    assert!(matches!(missing, Err(OdeError::Frontend(_))));
}

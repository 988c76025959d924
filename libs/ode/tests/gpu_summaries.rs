//! Summary metrics on the GPU against the recomputation from the saved trajectories of the same GPU runs
//! (`cargo test -p skc-ode --features gpu-tests --test gpu_summaries`; without a GPU these fail, never skip):
//! all 18 metrics, float32 and float64, fixed and adaptive steps, several windows, a settling time, eight
//! variables summarised out of order, and failed runs (NaN in every window they did not complete). Selections
//! (max, min, peaks, differences) must match exactly, sums within float32 / float64 round-off (see
//! `skc_ode::summaries::recompute::compare`).

use skc_ode::gpu::{OdeSolver, Real};
use skc_ode::program::SystemSource;
use skc_ode::sk::Options;
use skc_ode::summaries::recompute::{compare, recompute, Float};
use skc_ode::summaries::{Metric, SummarySpec};
use skc_ode::{Config, ControllerKind, Method, Precision};
use skc_runtime::Context;

fn context() -> Context {
    Context::new(0).unwrap_or_else(|e| panic!("the GPU tests need a CUDA GPU: {e}"))
}

fn system(name: &str) -> SystemSource {
    SystemSource::new(skc_ode::program::systems_dir().join(name))
}

/// Solves on the GPU and compares every run's summaries with the recomputation; returns the failed runs.
fn check<T: Real + Float>(ctx: &Context, label: &str, file: &str, cfg: &Config, y0: &[f64], params: &[f64]) -> usize {
    let solver =
        OdeSolver::new(ctx, &system(file), cfg, &Options::default()).unwrap_or_else(|e| panic!("{label}: {e}"));
    let y0: Vec<T> = y0.iter().map(|v| T::from_f64(*v)).collect();
    let params: Vec<T> = params.iter().map(|v| T::from_f64(*v)).collect();
    let solution = solver.solve(&y0, &params).unwrap_or_else(|e| panic!("{label}: {e}"));
    let spec = cfg.summaries.as_ref().unwrap();
    let summaries = solution.summaries.as_ref().expect("summaries");
    let n = solution.n_states;
    let per_run = summaries.n_windows * summaries.names.len();
    let per_save = solution.n_saves * n;
    let tol = if T::PRECISION == Precision::F32 { 2e-5 } else { 1e-11 };
    let mut compared = 0;
    for r in 0..solution.n_runs {
        let expected = recompute(
            spec,
            cfg.duration,
            &solution.saves[r * per_save..(r + 1) * per_save],
            n,
            cfg.save_every.unwrap(),
        )
        .unwrap();
        compared += compare(
            spec,
            &summaries.values[r * per_run..(r + 1) * per_run],
            &expected,
            tol,
            &format!("{label} run {r}"),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    }
    assert_eq!(compared, summaries.values.len());
    let failed = solution.status.iter().filter(|s| s.failed()).count();
    eprintln!("{label}: {compared} summary values of {} runs agree ({failed} failed runs)", solution.n_runs);
    failed
}

fn lorenz_cfg(precision: Precision, method: Method, controller: ControllerKind) -> Config {
    let mut cfg = Config::new(method, 2.0, 1e-3).with_controller(controller);
    cfg.precision = precision;
    cfg.save_every = Some(0.015625);
    cfg.summaries = Some(SummarySpec {
        settling: 0.25,
        state_names: vec!["x".into(), "y".into(), "z".into()],
        ..SummarySpec::new(Metric::all(3), vec![0, 1, 2], 0.015625, 0.125)
    });
    cfg
}

fn lorenz_inputs(n: usize) -> (Vec<f64>, Vec<f64>) {
    let y0: Vec<f64> = (0..n).flat_map(|_| [1.0, 0.0, 0.0]).collect();
    let rho: Vec<f64> = (0..n).map(|i| (28.0 * i as f64 / (n - 1) as f64) as f32 as f64).collect();
    (y0, rho)
}

#[test]
fn lorenz_summaries_match_the_recomputation_from_saved_trajectories() {
    let ctx = context();
    let (y0, rho) = lorenz_inputs(512);
    for (method, controller) in [(Method::Tsit5, ControllerKind::Fixed), (Method::DormandPrince5, ControllerKind::I)] {
        let cfg = lorenz_cfg(Precision::F32, method, controller);
        assert_eq!(check::<f32>(&ctx, &format!("lorenz {method} float32"), "lorenz.sk", &cfg, &y0, &rho), 0);
        let cfg = lorenz_cfg(Precision::F64, method, controller);
        assert_eq!(check::<f64>(&ctx, &format!("lorenz {method} float64"), "lorenz.sk", &cfg, &y0, &rho), 0);
    }
}

/// Fixed steps whose grid holds every sample (dt = 2^-10: samples every 16 steps after 256 of settling) take
/// the samples by step count: at the save landings when saves fall on the samples (checked against the
/// recomputation), inside the full-step loop when saves come once per window (the same summaries).
#[test]
fn fixed_steps_on_the_sample_grid_take_samples_by_step_count() {
    let ctx = context();
    let (y0, rho) = lorenz_inputs(512);
    let mut cfg = lorenz_cfg(Precision::F32, Method::Tsit5, ControllerKind::Fixed);
    cfg.dt = 1.0 / 1024.0;
    assert_eq!(check::<f32>(&ctx, "lorenz grid float32, saves at the samples", "lorenz.sk", &cfg, &y0, &rho), 0);
    let summaries = |cfg: &Config| {
        let solver = OdeSolver::new(&ctx, &system("lorenz.sk"), cfg, &Options::default()).unwrap();
        let y0: Vec<f32> = y0.iter().map(|v| *v as f32).collect();
        let rho: Vec<f32> = rho.iter().map(|v| *v as f32).collect();
        solver.solve(&y0, &rho).unwrap().summaries.expect("summaries").values
    };
    let at_landings = summaries(&cfg);
    cfg.save_every = Some(0.125);
    let in_loop = summaries(&cfg);
    assert_eq!(at_landings.len(), in_loop.len());
    for (i, (a, b)) in at_landings.iter().zip(&in_loop).enumerate() {
        assert!((a - b).abs() <= 1e-5 * a.abs().max(1.0), "output {i}: {a} at landings, {b} in the loop");
    }
    eprintln!("lorenz grid float32: {} summary values agree, samples in the loop and at landings", in_loop.len());
}

#[test]
fn eight_variables_out_of_order_and_failed_runs() {
    let ctx = context();
    let runs = 256;
    let n = 8;
    let y0: Vec<f64> = (0..runs).flat_map(|r| (0..n).map(move |i| if i == r % n { 8.01 } else { 8.0 })).collect();
    let forcing: Vec<f64> = (0..runs).map(|r| 4.0 + 0.05 * r as f64).collect();
    for precision in [Precision::F32, Precision::F64] {
        let mut cfg = Config::new(Method::DormandPrince5, 4.0, 1e-3);
        cfg.precision = precision;
        cfg.save_every = Some(0.0625);
        cfg.summaries = Some(SummarySpec {
            settling: 1.0,
            ..SummarySpec::new(Metric::all(2), vec![7, 0, 3, 5, 1, 2, 6, 4], 0.0625, 0.25)
        });
        let label = format!("lorenz96 {}", precision.name());
        let failed = match precision {
            Precision::F32 => check::<f32>(&ctx, &label, "lorenz96.sk", &cfg, &y0, &forcing),
            Precision::F64 => check::<f64>(&ctx, &label, "lorenz96.sk", &cfg, &y0, &forcing),
        };
        assert_eq!(failed, 0, "{label}");
    }
    // Runs that stop at max_steps in the middle: the windows they completed keep their values, the rest are NaN
    // (the recomputation from the NaN-masked saves says the same).
    let (y0, rho) = lorenz_inputs(256);
    for precision in [Precision::F32, Precision::F64] {
        let mut cfg = lorenz_cfg(precision, Method::DormandPrince5, ControllerKind::I);
        // Half the runs stop: the median of the steps they take without the limit.
        let reference = skc_ode::reference::solve_batch(
            &skc_ode::reference::system::Lorenz,
            &y0,
            &rho,
            &cfg,
            skc_ode::reference::FsalVote::Warp,
        )
        .unwrap();
        let mut steps: Vec<u32> = reference.runs.iter().map(|r| r.attempted).collect();
        steps.sort();
        cfg.max_steps = steps[128];
        let label = format!("lorenz max_steps {}", precision.name());
        let failed = match precision {
            Precision::F32 => check::<f32>(&ctx, &label, "lorenz.sk", &cfg, &y0, &rho),
            Precision::F64 => check::<f64>(&ctx, &label, "lorenz.sk", &cfg, &y0, &rho),
        };
        assert!(failed > 0 && failed < 256, "{label}: {failed} failed runs");
    }
}

//! The integration loop of the CPU reference: landing on save times and the end, counters, status bits and NaN
//! masking, the FSAL warp vote, adaptive accuracy with every controller, and stiff problems.

use skc_ode::reference::driver::save_time;
use skc_ode::reference::system::{Lorenz, Manufactured, Robertson, VanDerPol};
use skc_ode::reference::{integrate, solve_batch, FsalVote};
use skc_ode::{Config, ControllerKind, JacobianKind, Method, Status};

fn lorenz_batch(n: usize) -> (Vec<f64>, Vec<f64>) {
    let y0: Vec<f64> = (0..n).flat_map(|_| [1.0, 0.0, 0.0]).collect();
    let rho: Vec<f64> = (0..n).map(|i| 21.0 * i as f64 / (n - 1) as f64).collect();
    (y0, rho)
}

#[test]
fn fixed_steps_count_exactly_and_land_on_save_times() {
    let mut cfg = Config::new(Method::Tsit5, 1.0, 1e-3).with_controller(ControllerKind::Fixed);
    let run = integrate(&Lorenz, &[1.0, 0.0, 0.0], &[10.0], &cfg).unwrap();
    assert_eq!((run.attempted, run.rejected), (1000, 0));
    // dt = 0.1 with saves every 0.25: steps of 0.1, 0.1, 0.05 between save times.
    cfg.dt = 0.1;
    cfg.save_every = Some(0.25);
    let run = integrate(&Lorenz, &[1.0, 0.0, 0.0], &[10.0], &cfg).unwrap();
    assert_eq!(cfg.n_saves(), 5);
    let hs: Vec<f64> = run.trace.iter().map(|r| r.h).collect();
    assert_eq!(hs.len(), 12);
    for (i, h) in hs.iter().enumerate() {
        let expected = if i % 3 == 2 { 0.05 } else { 0.1 };
        assert!((h - expected).abs() < 1e-12, "step {i}: {h}");
    }
    // The samples are the states at the save times: the first is the initial state, the last the final one.
    assert_eq!(&run.saves[..3], &[1.0, 0.0, 0.0]);
    assert_eq!(&run.saves[12..15], &run.final_state[..]);
    assert_eq!(save_time(&cfg, 4), 1.0);
    // The first sample after the start equals a solve that stops there (with the same steps).
    let mut to_first = cfg.clone();
    to_first.save_every = None;
    to_first.duration = save_time(&cfg, 1);
    let part = integrate(&Lorenz, &[1.0, 0.0, 0.0], &[10.0], &to_first).unwrap();
    assert_eq!(&part.final_state[..], &run.saves[3..6]);
}

#[test]
fn adaptive_steps_land_on_save_times() {
    let mut cfg = Config::new(Method::DormandPrince5, 1.0, 1e-3);
    cfg.save_every = Some(0.1);
    let run = integrate(&Lorenz, &[1.0, 0.0, 0.0], &[21.0], &cfg).unwrap();
    assert!(!run.status.failed());
    let accepted_ends: Vec<f64> = run.trace.iter().filter(|r| r.accepted).map(|r| r.t + r.h).collect();
    for k in 1..cfg.n_saves() {
        let ts = save_time(&cfg, k);
        assert!(accepted_ends.iter().any(|t| (t - ts).abs() < 1e-12), "no step ends at {ts}");
    }
    assert!(run.saves.iter().all(|v| v.is_finite()));
}

#[test]
fn zero_duration_returns_the_initial_state() {
    let mut cfg = Config::new(Method::Tsit5, 0.0, 1e-3);
    cfg.save_every = Some(0.1);
    let run = integrate(&Lorenz, &[1.0, 2.0, 3.0], &[10.0], &cfg).unwrap();
    assert_eq!(run.final_state, [1.0, 2.0, 3.0]);
    assert_eq!(run.saves, [1.0, 2.0, 3.0]);
    assert_eq!(run.attempted, 0);
}

#[test]
fn failures_set_status_bits_and_mask_with_nan() {
    // Explicit Euler far beyond its stability limit on Robertson: the state overflows.
    let cfg = Config::new(Method::Euler, 10.0, 0.1);
    let mut saving = cfg.clone();
    saving.save_every = Some(1.0);
    let run = integrate(&Robertson, &[1.0, 0.0, 0.0], &[0.04, 3e7, 1e4], &saving).unwrap();
    assert!(run.status.contains(Status::NONFINITE), "{:?}", run.status);
    assert!(run.final_state.iter().all(|v| v.is_nan()));
    assert_eq!(&run.saves[..3], &[1.0, 0.0, 0.0]);
    assert!(run.saves[3..].iter().all(|v| v.is_nan()));
    // Too few steps allowed.
    let mut few = Config::new(Method::Tsit5, 1.0, 1e-3).with_controller(ControllerKind::Fixed);
    few.max_steps = 10;
    let run = integrate(&Lorenz, &[1.0, 0.0, 0.0], &[10.0], &few).unwrap();
    assert_eq!(run.status, Status::MAX_STEPS);
    assert_eq!(run.attempted, 10);
    // A minimum step the error cannot be brought under.
    let mut coarse = Config::new(Method::DormandPrince5, 2.0, 0.1).with_tolerances(1e-12, 1e-12);
    coarse.dt_min = 0.05;
    let run = integrate(&VanDerPol, &[2.0, 0.0], &[1000.0], &coarse).unwrap();
    assert_eq!(run.status, Status::STEP_TOO_SMALL);
    assert!(run.final_state[0].is_nan());
    // Newton failure of a fixed implicit step.
    let mut newton = Config::new(Method::Sdirk2, 1.0, 0.5);
    newton.max_newton = 1;
    newton.newton_tol = 1e-12;
    let run = integrate(&VanDerPol, &[2.0, 0.0], &[1000.0], &newton).unwrap();
    assert!(run.status.contains(Status::MAX_NEWTON_ITERATIONS), "{:?}", run.status);
}

#[test]
fn invalid_settings_are_errors_before_anything_runs() {
    let mut cfg = Config::new(Method::Tsit5, 1.0, 1e-3);
    cfg.rtol = f64::NAN;
    assert!(integrate(&Lorenz, &[1.0, 0.0, 0.0], &[10.0], &cfg).is_err());
    let cfg = Config::new(Method::Tsit5, 1.0, 1e-3);
    assert!(integrate(&Lorenz, &[1.0, 0.0], &[10.0], &cfg).is_err(), "wrong state shape");
    assert!(
        solve_batch(&Lorenz, &[1.0, 0.0, 0.0, 1.0, 0.0, 0.0], &[10.0], &cfg, FsalVote::Warp).is_err(),
        "wrong params"
    );
}

/// For explicit FSAL methods the cached derivative equals a fresh evaluation, so the warp vote changes nothing.
#[test]
fn warp_vote_gives_per_thread_results_for_explicit_methods() {
    let (y0, rho) = lorenz_batch(96);
    for method in [Method::DormandPrince5, Method::Tsit5, Method::BogackiShampine3] {
        let cfg = Config::new(method, 1.0, 1e-3);
        let warp = solve_batch(&Lorenz, &y0, &rho, &cfg, FsalVote::Warp).unwrap();
        let lane = solve_batch(&Lorenz, &y0, &rho, &cfg, FsalVote::PerThread).unwrap();
        assert_eq!(warp, lane, "{method}");
        assert!(warp.runs.iter().any(|r| r.rejected > 0), "{method}: the sweep rejects steps somewhere");
    }
}

#[test]
fn every_controller_meets_the_tolerance() {
    let y0 = Manufactured::solution(0.0);
    let exact = Manufactured::solution(2.0);
    for method in Method::all().filter(|m| skc_ode::Tableau::of(*m).is_adaptive()) {
        for controller in ControllerKind::ALL.into_iter().filter(|c| c.is_adaptive()) {
            let mut cfg = Config::new(method, 2.0, 1e-2).with_controller(controller).with_tolerances(1e-8, 1e-8);
            cfg.jacobian = JacobianKind::Analytic;
            let run = integrate(&Manufactured, &y0, &[], &cfg).unwrap();
            assert!(!run.status.failed(), "{method}/{}: {:?}", controller.name(), run.status);
            let err = (0..3).map(|i| (run.final_state[i] - exact[i]).abs()).fold(0.0, f64::max);
            assert!(err < 1e-5, "{method}/{}: error {err:.1e} after {} steps", controller.name(), run.attempted);
        }
    }
}

#[test]
fn lorenz_sweep_matches_a_tight_reference() {
    let (y0, rho) = lorenz_batch(64);
    let reference = solve_batch(
        &Lorenz,
        &y0,
        &rho,
        &Config::new(Method::Vern7, 1.0, 1e-3).with_tolerances(1e-13, 1e-13),
        FsalVote::Warp,
    )
    .unwrap();
    for (method, controller, tol) in [
        (Method::Tsit5, ControllerKind::Fixed, 1e-8),
        (Method::Tsit5, ControllerKind::I, 1e-4),
        (Method::DormandPrince5, ControllerKind::I, 1e-4),
    ] {
        let cfg = Config::new(method, 1.0, 1e-3).with_controller(controller);
        let batch = solve_batch(&Lorenz, &y0, &rho, &cfg, FsalVote::Warp).unwrap();
        let mut worst = 0.0f64;
        for (r, reference) in batch.runs.iter().zip(&reference.runs) {
            for s in 0..3 {
                worst = worst
                    .max((r.final_state[s] - reference.final_state[s]).abs() / (1.0 + reference.final_state[s].abs()));
            }
        }
        eprintln!("{method} {}: worst relative error {worst:.2e}", controller.name());
        assert!(worst < tol, "{method} {}: {worst:.2e}", controller.name());
    }
}

/// Van der Pol with mu = 1000: the L-stable DIRK methods need a small fraction of the steps DP5 needs.
#[test]
fn stiff_van_der_pol_needs_far_fewer_implicit_steps() {
    let (y0, mu) = ([2.0, 0.0], [1000.0]);
    let explicit = integrate(&VanDerPol, &y0, &mu, &Config::new(Method::DormandPrince5, 20.0, 1e-3)).unwrap();
    assert!(!explicit.status.failed(), "{:?}", explicit.status);
    for method in [Method::Kvaerno3, Method::Kvaerno5] {
        for jacobian in [JacobianKind::Analytic, JacobianKind::FiniteDifferences] {
            let mut cfg = Config::new(method, 20.0, 1e-3);
            cfg.jacobian = jacobian;
            let run = integrate(&VanDerPol, &y0, &mu, &cfg).unwrap();
            assert!(!run.status.failed(), "{method}: {:?}", run.status);
            eprintln!(
                "{method} ({jacobian:?}): {} steps ({} rejected, {} Newton iterations); dp5: {} steps; x(20) {:.6} vs {:.6}",
                run.attempted, run.rejected, run.newton_iters, explicit.attempted, run.final_state[0], explicit.final_state[0]
            );
            assert!(run.attempted * 20 < explicit.attempted, "{method}: {} vs {}", run.attempted, explicit.attempted);
            assert!((run.final_state[0] - explicit.final_state[0]).abs() < 1e-3);
        }
    }
    // Fixed-step implicit methods are stable with steps far beyond the explicit stability limit.
    for method in [Method::Sdirk2, Method::LStableDirk3, Method::ImplicitMidpoint, Method::Trapezoidal] {
        let run = integrate(&VanDerPol, &y0, &mu, &Config::new(method, 20.0, 0.1)).unwrap();
        assert!(!run.status.failed(), "{method}: {:?}", run.status);
        assert!((run.final_state[0] - explicit.final_state[0]).abs() < 2e-2, "{method}: {}", run.final_state[0]);
    }
    let run = integrate(&VanDerPol, &y0, &mu, &Config::new(Method::ClassicalRk4, 20.0, 0.1)).unwrap();
    assert!(run.status.failed(), "RK4 with h = 0.1 is unstable for mu = 1000");
}

#[test]
fn robertson_with_kvaerno5() {
    let mut cfg = Config::new(Method::Kvaerno5, 40.0, 1e-6).with_tolerances(1e-10, 1e-7);
    cfg.dt_min = 1e-12;
    cfg.dt_max = 40.0;
    cfg.jacobian = JacobianKind::Analytic;
    let run = integrate(&Robertson, &[1.0, 0.0, 0.0], &[0.04, 3e7, 1e4], &cfg).unwrap();
    assert!(!run.status.failed(), "{:?}", run.status);
    let sum: f64 = run.final_state.iter().sum();
    assert!((sum - 1.0).abs() < 1e-6, "mass is conserved: {sum}");
    // The reference values at t = 40 (Hairer & Wanner's test set).
    let expected = [0.715827068719394, 9.185534764557338e-6, 0.284163745745841];
    for (value, want) in run.final_state.iter().zip(expected) {
        assert!((value - want).abs() < 1e-5 * want.max(1e-2), "{:?}", run.final_state);
    }
    eprintln!("robertson: {} steps, {} rejected, {:?}", run.attempted, run.rejected, run.final_state);
    assert!(run.attempted < 500);
}

/// The FSAL vote experiment's system: the forced (odd) runs reject many steps, the others none.
#[test]
fn fsal_probe_rejects_in_odd_runs_only() {
    use skc_ode::reference::system::FsalProbe;
    let n = 64;
    let y0: Vec<f64> = (0..n).flat_map(|_| [1.0, 0.0, 0.0, 0.0]).collect();
    let params: Vec<f64> = (0..n).flat_map(|i| [21.0, (i % 2) as f64, 50.0]).collect();
    let mut cfg = Config::new(Method::Tsit5, 1.0, 1e-3);
    cfg.gains.deadband_high = 1.0;
    cfg.dt_max = 1e-3;
    let warp = solve_batch(&FsalProbe, &y0, &params, &cfg, FsalVote::Warp).unwrap();
    let lane = solve_batch(&FsalProbe, &y0, &params, &cfg, FsalVote::PerThread).unwrap();
    assert_eq!(warp, lane);
    let (mut even, mut odd) = ((0, 0), (0, 0));
    for (i, r) in warp.runs.iter().enumerate() {
        let class = if i % 2 == 0 { &mut even } else { &mut odd };
        class.0 += r.attempted;
        class.1 += r.rejected;
    }
    eprintln!("even runs: {even:?} attempted/rejected, odd runs: {odd:?}");
    assert_eq!(even.1, 0);
    assert!(odd.1 * 4 > odd.0, "odd runs reject a quarter of their steps or more: {odd:?}");
}

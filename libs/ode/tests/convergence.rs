//! Measured order of convergence of every method with fixed steps: the error after one period of the Kepler
//! problem (eccentricity 0.5, exact solution known) shrinks by 2^order each time the step is halved.

use skc_ode::reference::system::Kepler;
use skc_ode::reference::{integrate, System};
use skc_ode::{Config, ControllerKind, JacobianKind, Method, Tableau};

const ECCENTRICITY: f64 = 0.5;

fn error_with(method: Method, steps: usize) -> f64 {
    let mut cfg =
        Config::new(method, Kepler::PERIOD, Kepler::PERIOD / steps as f64).with_controller(ControllerKind::Fixed);
    // Newton iterations converge far below the truncation errors measured here.
    cfg.atol = 1e-12;
    cfg.rtol = 1e-12;
    cfg.newton_tol = 0.1;
    cfg.jacobian = JacobianKind::FiniteDifferences;
    let y0 = Kepler::initial_state(ECCENTRICITY);
    let run = integrate(&Kepler, &y0, &[], &cfg).expect("valid settings");
    assert!(!run.status.failed(), "{method} with {steps} steps: status {:?}", run.status);
    assert_eq!(run.attempted as usize, steps, "{method}: every fixed step lands");
    (0..Kepler.n_states()).map(|i| (run.final_state[i] - y0[i]).abs()).fold(0.0, f64::max)
}

/// Steps of the coarsest solve: in the asymptotic range, and the finest stays above round-off.
fn coarsest(order: u32) -> usize {
    match order {
        1 => 25_600,
        2 => 800,
        3..=5 => 400,
        _ => 100,
    }
}

#[test]
fn fixed_step_methods_converge_at_their_order() {
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for method in Method::all() {
        let order = Tableau::of(method).order;
        let n0 = coarsest(order);
        let errors: Vec<f64> = [n0, 2 * n0, 4 * n0].iter().map(|&n| error_with(method, n)).collect();
        let slopes: Vec<f64> = errors.windows(2).map(|w| (w[0] / w[1]).log2()).collect();
        report.push(format!(
            "{method:>18}: order {order}, steps {n0}/{}/{}: errors {:.2e} {:.2e} {:.2e}, measured {:.2} {:.2}",
            2 * n0,
            4 * n0,
            errors[0],
            errors[1],
            errors[2],
            slopes[0],
            slopes[1]
        ));
        if (slopes[1] - order as f64).abs() > 0.25 {
            failures.push(format!("{method}: measured order {:.2}, expected {order}", slopes[1]));
        }
    }
    eprintln!("{}", report.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

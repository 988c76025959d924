//! Every tableau against the order conditions: the weights `b` satisfy every condition up to the method's order
//! and fail one of the next order; the embedded weights likewise for the embedded order. Also L-stability
//! (`R(-inf) = 0`) of the methods that claim it.

use skc_ode::order::{residuals, stability_function};
use skc_ode::{Method, Tableau};

/// Relative tolerance of an order condition (to the sum of absolute values of its terms).
const TOL: f64 = 1e-14;

/// The order every condition holds to, and the largest relative residual up to it.
fn order_of(a: &[Vec<f64>], b: &[f64], claimed: u32) -> (u32, f64) {
    let res = residuals(a, b, claimed as usize + 1);
    let mut worst = 0.0f64;
    let mut order = 0;
    for p in 1..=claimed as usize + 1 {
        let rel = res.iter().filter(|r| r.order == p).map(|r| r.residual.abs() / r.scale).fold(0.0, f64::max);
        if rel > TOL {
            break;
        }
        worst = worst.max(rel);
        order = p as u32;
    }
    (order, worst)
}

#[test]
fn propagated_solutions_have_their_order() {
    let mut report = Vec::new();
    for m in Method::all() {
        let t = Tableau::of(m);
        let (order, worst) = order_of(&t.a, &t.b, t.order);
        report.push(format!("{m:>18}: order {order} (claimed {}), worst relative residual {worst:.1e}", t.order));
        assert_eq!(order, t.order, "{m}: conditions hold to order {order}, claimed {}", t.order);
    }
    eprintln!("{}", report.join("\n"));
}

#[test]
fn embedded_solutions_have_their_order() {
    for m in Method::all() {
        let t = Tableau::of(m);
        if let (Some(b_hat), Some(claimed)) = (&t.b_hat, t.embedded_order) {
            let (order, worst) = order_of(&t.a, b_hat, claimed);
            eprintln!("{m:>18}: embedded order {order} (claimed {claimed}), worst relative residual {worst:.1e}");
            assert_eq!(order, claimed, "{m}: embedded conditions hold to order {order}, claimed {claimed}");
        }
    }
}

#[test]
fn l_stable_methods_damp_infinitely_stiff_modes() {
    for m in [Method::Sdirk2, Method::LStableDirk3, Method::Kvaerno3, Method::Kvaerno5] {
        let t = Tableau::of(m);
        let r = stability_function(&t.a, &t.b, -1e8);
        assert!(r.abs() < 1e-6, "{m}: R(-1e8) = {r}");
        for z in [-0.5, -10.0, -1e3] {
            assert!(stability_function(&t.a, &t.b, z).abs() <= 1.0, "{m}: |R({z})| > 1");
        }
    }
    // The trapezoidal rule and the implicit midpoint rule are A-stable only: |R(-inf)| = 1.
    for m in [Method::ImplicitMidpoint, Method::Trapezoidal] {
        let t = Tableau::of(m);
        assert!((stability_function(&t.a, &t.b, -1e8).abs() - 1.0).abs() < 1e-6, "{m}");
    }
}

//! Accuracy of the CPU reference (float64): face values and tendencies of u0 = sin(pi x) on [-1, 1]
//! converge at order 2k-1; WENO3 as the notes say; reduced orders equal the standalone lower-order schemes;
//! WENO5-Z with RK4 stays fifth order on Henrick's critical-point profile.

use std::f64::consts::PI;

use skc_weno_tables::reference::{
    cell_averages, immersed_order, observed_orders, rk4_step, tendency_1d, window, Boundary, Weno,
};

/// (L-infinity error of the left-biased face values, of the tendency) on n periodic cells.
fn errors(weno: &Weno, n: usize) -> (f64, f64) {
    let dx = 2.0 / n as f64;
    let avg = cell_averages(n, -1.0, 1.0, |x| -(PI * x).cos() / PI);
    let cell = |i: i64| avg[i.rem_euclid(n as i64) as usize];
    let mut face_err: f64 = 0.0;
    for f in 0..n as i64 {
        let w = window(weno.k, f, 1.0, cell);
        let x = -1.0 + f as f64 * dx;
        face_err = face_err.max((weno.reconstruct(&w, weno.k) - (PI * x).sin()).abs());
    }
    let g = tendency_1d(weno, &avg, &vec![1.0; n + 1], dx, Boundary::Periodic, None);
    let mut tend_err: f64 = 0.0;
    for (i, gi) in g.iter().enumerate() {
        let (a, b) = (-1.0 + i as f64 * dx, -1.0 + (i + 1) as f64 * dx);
        tend_err = tend_err.max((gi + ((PI * b).sin() - (PI * a).sin()) / dx).abs());
    }
    (face_err, tend_err)
}

fn orders(k: usize, ns: &[usize]) -> (Vec<f64>, Vec<f64>) {
    let weno = Weno::new(k);
    let e: Vec<(usize, f64, f64)> = ns
        .iter()
        .map(|&n| {
            let (a, b) = errors(&weno, n);
            (n, a, b)
        })
        .collect();
    eprintln!("k = {k}: {e:?}");
    (
        observed_orders(&e.iter().map(|x| (x.0, x.1)).collect::<Vec<_>>()),
        observed_orders(&e.iter().map(|x| (x.0, x.2)).collect::<Vec<_>>()),
    )
}

#[test]
fn weno5_converges_at_fifth_order() {
    let (face, tend) = orders(3, &[40, 80, 160, 320]);
    eprintln!("face {face:?} tendency {tend:?}");
    assert!(face.iter().skip(1).all(|o| *o > 4.8), "{face:?}");
    assert!(tend.iter().skip(1).all(|o| *o > 4.8), "{tend:?}");
}

#[test]
fn weno7_converges_at_seventh_order() {
    let (face, tend) = orders(4, &[20, 40, 80]);
    eprintln!("face {face:?} tendency {tend:?}");
    assert!(face.iter().all(|o| *o > 6.7), "{face:?}");
    assert!(tend.iter().all(|o| *o > 6.7), "{tend:?}");
}

#[test]
fn weno9_and_weno11_reach_ninth_order_at_small_n() {
    for k in [5, 6] {
        let (face, tend) = orders(k, &[10, 20, 40]);
        eprintln!("k = {k}: face {face:?} tendency {tend:?}");
        // Between N = 20 and 40 the observed orders approach 9 from below (8.9-9.0 for k = 5); k = 6 reaches
        // roundoff before showing 11.
        assert!(face.iter().all(|o| *o >= 8.8), "k = {k}: {face:?}");
        assert!(tend.iter().all(|o| *o >= 8.8), "k = {k}: {tend:?}");
    }
}

#[test]
fn weno3_is_second_order_in_max_norm() {
    // WENO3-Z loses its third order at the critical points of sin: face values are second order in L-infinity,
    // the tendency (a difference of face values over dx) first order, until N is large enough (640 here) for
    // the weights to approach the linear ones.
    let (face, tend) = orders(2, &[80, 160, 320, 640]);
    eprintln!("face {face:?} tendency {tend:?}");
    assert!(face.iter().all(|o| *o > 1.9), "{face:?}");
    assert!(tend.iter().all(|o| *o > 0.95), "{tend:?}");
}

#[test]
fn reduced_order_equals_the_standalone_scheme() {
    let mut seed = 12345u64;
    let mut rand = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    for k in 2..=6 {
        let big = Weno::new(k);
        for o in 1..=k {
            let small = Weno::new(o);
            for _ in 0..20 {
                let w: Vec<f64> = (0..2 * k - 1).map(|_| rand()).collect();
                let inner = &w[k - o..k + o - 1];
                let a = big.reconstruct(&w, o);
                let b = if o == 1 { inner[0] } else { small.reconstruct(inner, o) };
                assert!((a - b).abs() <= 1e-13 * (1.0 + b.abs()), "k={k} o={o}: {a} vs {b}");
            }
        }
    }
}

#[test]
fn constants_are_reproduced_at_every_order() {
    for k in 2..=6 {
        let weno = Weno::new(k);
        for o in 1..=k {
            let v = weno.reconstruct(&vec![3.25; 2 * k - 1], o);
            assert!((v - 3.25).abs() < 1e-13, "k={k} o={o}: {v}");
        }
    }
}

#[test]
fn immersed_mask_lowers_the_order() {
    let k = 5;
    // window cells 0..8, upwind at 4; order s uses cells 5-s .. 3+s, so a solid cell at 7 allows s <= 3
    assert_eq!(immersed_order(5, k, |m| m != 7), 3);
    assert_eq!(immersed_order(5, k, |m| m != 0), 4);
    assert_eq!(immersed_order(5, k, |m| m != 2), 2);
    assert_eq!(immersed_order(3, k, |_| true), 3);
    assert_eq!(immersed_order(5, k, |m| m != 4), 1);
}

#[test]
fn bounded_tendency_is_conservative_and_exact_for_constants() {
    let weno = Weno::new(5);
    let n = 23;
    let c = vec![2.0; n];
    let mut u: Vec<f64> = (0..=n).map(|f| ((f as f64) * 0.7).sin()).collect();
    u[0] = 0.0;
    u[n] = 0.0;
    let g = tendency_1d(&weno, &c, &u, 0.1, Boundary::Bounded, None);
    // constant tracer: -(u c)_x = -c u_x exactly, face by face
    for i in 0..n {
        let want = -2.0 * (u[i + 1] - u[i]) / 0.1;
        assert!((g[i] - want).abs() < 1e-12, "{i}: {} vs {want}", g[i]);
    }
    let total: f64 =
        tendency_1d(&weno, &(0..n).map(|i| (i as f64).cos()).collect::<Vec<_>>(), &u, 0.1, Boundary::Bounded, None)
            .iter()
            .sum();
    assert!(total.abs() < 1e-12, "walls: no net flux, {total}");
}

/// RK4 on the Henrick profile; dt ~ dx^(5/4) so the time error stays below the spatial one.
fn henrick_error(n: usize) -> f64 {
    let weno = Weno::new(3);
    let dx = 2.0 / n as f64;
    let exact = |x: f64| (PI * x - (PI * x).sin() / PI).sin();
    let gauss = [
        (0.0, 128.0 / 225.0),
        (0.5384693101056831, 0.4786286704993665),
        (-0.5384693101056831, 0.4786286704993665),
        (0.906_179_845_938_664, 0.236_926_885_056_189_1),
        (-0.906_179_845_938_664, 0.236_926_885_056_189_1),
    ];
    let averages = |shift: f64| -> Vec<f64> {
        (0..n)
            .map(|i| {
                let a = -1.0 + i as f64 * dx;
                // composite 4 x 5-point Gauss per cell
                let mut s = 0.0;
                for p in 0..4 {
                    let (lo, h) = (a + p as f64 * dx / 4.0, dx / 4.0);
                    for (x, w) in gauss {
                        s += w * exact(lo + (x + 1.0) * h / 2.0 - shift) * h / 2.0;
                    }
                }
                s / dx
            })
            .collect()
    };
    let t_end = 2.0;
    let dt0 = 0.4 * dx * (dx / 0.05f64).powf(0.25).min(1.0);
    let steps = (t_end / dt0).ceil() as usize;
    let dt = t_end / steps as f64;
    let vel = vec![1.0; n + 1];
    let mut u = averages(0.0);
    for _ in 0..steps {
        rk4_step(&mut u, dt, &|c: &[f64]| tendency_1d(&weno, c, &vel, dx, Boundary::Periodic, None));
    }
    let r = averages(t_end);
    u.iter().zip(&r).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max)
}

#[test]
fn weno5z_stays_fifth_order_on_henrick() {
    let e: Vec<(usize, f64)> = [40, 80, 160].iter().map(|&n| (n, henrick_error(n))).collect();
    let o = observed_orders(&e);
    eprintln!("Henrick WENO5-Z RK4: {e:?} orders {o:?}");
    assert!(o.last().unwrap() > &4.5, "{o:?}");
}

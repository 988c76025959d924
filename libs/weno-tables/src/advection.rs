//! The 1-D advection test problem of the examples: u_t + u_x = 0 on [-1, 1], periodic, one period (t = 2),
//! classical RK4 with dt ~ dx^(order/4) (for order > 4) so that the time error stays below the spatial one; the right-hand
//! side is given (CPU reference or a GPU kernel).

use std::f64::consts::PI;

use crate::reference::observed_orders;

/// u0 = sin(pi x), or Henrick's critical-point profile sin(pi x - sin(pi x)/pi).
pub fn initial(x: f64, henrick: bool) -> f64 {
    if henrick {
        (PI * x - (PI * x).sin() / PI).sin()
    } else {
        (PI * x).sin()
    }
}

/// Cell averages over n cells of [-1, 1] of u0 shifted by `shift` (composite Gauss-Legendre, 4 x 5 points).
pub fn averages(n: usize, shift: f64, henrick: bool) -> Vec<f64> {
    let dx = 2.0 / n as f64;
    let gauss = [
        (0.0, 128.0 / 225.0),
        (0.5384693101056831, 0.4786286704993665),
        (-0.5384693101056831, 0.4786286704993665),
        (0.906179845938664, 0.2369268850561891),
        (-0.906179845938664, 0.2369268850561891),
    ];
    (0..n)
        .map(|i| {
            let a = -1.0 + i as f64 * dx;
            let h = dx / 4.0;
            let mut s = 0.0;
            for p in 0..4 {
                let lo = a + p as f64 * h;
                for (x, w) in gauss {
                    s += w * initial(lo + (x + 1.0) * h / 2.0 - shift, henrick) * h / 2.0;
                }
            }
            s / dx
        })
        .collect()
}

/// (L1, L-infinity) errors after one period on n cells for a scheme of the given order, with `rhs(u, dx)`.
pub fn advect(order: usize, n: usize, henrick: bool, rhs: &mut dyn FnMut(&[f64], f64) -> Vec<f64>) -> (f64, f64) {
    let t_end = 2.0;
    let dx = 2.0 / n as f64;
    let dt0 = 0.4 * dx * (dx / 2.0).powf(order as f64 / 4.0 - 1.0).min(1.0);
    let steps = (t_end / dt0).ceil() as usize;
    let dt = t_end / steps as f64;
    let mut u = averages(n, 0.0, henrick);
    let add = |a: &[f64], b: &[f64], s: f64| a.iter().zip(b).map(|(x, y)| x + s * y).collect::<Vec<f64>>();
    for _ in 0..steps {
        let k1 = rhs(&u, dx);
        let k2 = rhs(&add(&u, &k1, dt / 2.0), dx);
        let k3 = rhs(&add(&u, &k2, dt / 2.0), dx);
        let k4 = rhs(&add(&u, &k3, dt), dx);
        for i in 0..n {
            u[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
    let exact = averages(n, t_end, henrick);
    let l1 = u.iter().zip(&exact).map(|(a, b)| (a - b).abs()).sum::<f64>() / n as f64;
    let linf = u.iter().zip(&exact).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    (l1, linf)
}

/// Grid sizes of the study for k stencils: in the asymptotic range, above roundoff.
pub fn resolutions(k: usize) -> &'static [usize] {
    match k {
        2 | 3 => &[20, 40, 80, 160, 320],
        4 => &[10, 20, 40, 80],
        _ => &[10, 15, 20, 30, 40],
    }
}

/// A right-hand side of the study: (k, cell values, dx) to the tendency.
pub type StudyRhs<'a> = dyn FnMut(usize, &[f64], f64) -> Vec<f64> + 'a;

/// Runs the study for k stencils and prints the table; returns the observed L1 orders.
pub fn study(k: usize, henrick: bool, rhs: &mut StudyRhs) -> Vec<f64> {
    let results: Vec<(usize, f64, f64)> = resolutions(k)
        .iter()
        .map(|&n| {
            let (l1, linf) = advect(2 * k - 1, n, henrick, &mut |u, dx| rhs(k, u, dx));
            (n, l1, linf)
        })
        .collect();
    let o1 = observed_orders(&results.iter().map(|r| (r.0, r.1)).collect::<Vec<_>>());
    let oi = observed_orders(&results.iter().map(|r| (r.0, r.2)).collect::<Vec<_>>());
    println!("WENO{}-Z (k = {k})", 2 * k - 1);
    println!("  {:>5} {:>12} {:>7} {:>12} {:>7}", "N", "L1", "order", "Linf", "order");
    for (i, (n, l1, linf)) in results.iter().enumerate() {
        let (a, b) = if i == 0 {
            (String::new(), String::new())
        } else {
            (format!("{:.2}", o1[i - 1]), format!("{:.2}", oi[i - 1]))
        };
        println!("  {n:>5} {l1:>12.3e} {a:>7} {linf:>12.3e} {b:>7}");
    }
    o1
}

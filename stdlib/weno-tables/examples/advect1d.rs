//! 1-D linear advection u_t + u_x = 0 on [-1, 1] (periodic) with WENO-Z of every order and classical RK4:
//! prints L1 and L-infinity errors after one period and the observed orders (CPU reference, float64).
//!
//! cargo run --release -p skc-weno-tables --example advect1d [henrick]

use std::f64::consts::PI;

use skc_weno_tables::reference::{cell_averages, observed_orders, rk4_step, tendency_1d, Boundary, Weno};

fn run(weno: &Weno, n: usize, t_end: f64, henrick: bool) -> (f64, f64) {
    let dx = 2.0 / n as f64;
    // dt ~ dx^(order/4) keeps RK4's error below the spatial one.
    let order = (2 * weno.k - 1) as f64;
    let dt0 = 0.5 * dx * (dx / 0.1).powf(order / 4.0 - 1.0).min(1.0);
    let steps = (t_end / dt0).ceil() as usize;
    let dt = t_end / steps as f64;
    let exact = |x: f64| if henrick { (PI * x - (PI * x).sin() / PI).sin() } else { (PI * x).sin() };
    // Cell averages by 8-point Gauss-Legendre on each cell (exact enough for any order tested here).
    let averages = |shift: f64| -> Vec<f64> {
        if henrick {
            let g = gauss8();
            (0..n)
                .map(|i| {
                    let a = -1.0 + i as f64 * dx;
                    g.iter().map(|(x, w)| w * exact(a + (x + 1.0) * dx / 2.0 - shift)).sum::<f64>() / 2.0
                })
                .collect()
        } else {
            cell_averages(n, -1.0, 1.0, |x| -(PI * (x - shift)).cos() / PI)
        }
    };
    let mut u = averages(0.0);
    let vel = vec![1.0; n + 1];
    let rhs = |c: &[f64]| tendency_1d(weno, c, &vel, dx, Boundary::Periodic, None);
    for _ in 0..steps {
        rk4_step(&mut u, dt, &rhs);
    }
    let reference = averages(t_end);
    let l1 = u.iter().zip(&reference).map(|(a, b)| (a - b).abs()).sum::<f64>() / n as f64;
    let linf = u.iter().zip(&reference).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    (l1, linf)
}

fn gauss8() -> Vec<(f64, f64)> {
    let x = [0.1834346424956498, 0.5255324099163290, 0.7966664774136267, 0.9602898564975363];
    let w = [0.3626837833783620, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763];
    x.iter().zip(w).flat_map(|(x, w)| [(*x, w), (-*x, w)]).collect()
}

fn main() {
    let henrick = std::env::args().any(|a| a == "henrick");
    let ks: Vec<usize> = if henrick { vec![3] } else { vec![2, 3, 4, 5, 6] };
    println!("u_t + u_x = 0 on [-1, 1], periodic, t = 2 (one period), RK4; u0 = {}", if henrick { "sin(pi x - sin(pi x)/pi)" } else { "sin(pi x)" });
    for k in ks {
        let weno = Weno::new(k);
        let ns: &[usize] = match k {
            2 | 3 => &[20, 40, 80, 160, 320],
            4 => &[10, 20, 40, 80],
            _ => &[10, 15, 20, 30, 40],
        };
        let results: Vec<(usize, f64, f64)> = ns.iter().map(|&n| {
            let (l1, linf) = run(&weno, n, 2.0, henrick);
            (n, l1, linf)
        }).collect();
        let o1 = observed_orders(&results.iter().map(|r| (r.0, r.1)).collect::<Vec<_>>());
        let oi = observed_orders(&results.iter().map(|r| (r.0, r.2)).collect::<Vec<_>>());
        println!("WENO{}-Z (k = {k})", 2 * k - 1);
        println!("  {:>5} {:>12} {:>7} {:>12} {:>7}", "N", "L1", "order", "Linf", "order");
        for (i, (n, l1, linf)) in results.iter().enumerate() {
            let (a, b) = if i == 0 { (String::new(), String::new()) } else { (format!("{:.2}", o1[i - 1]), format!("{:.2}", oi[i - 1])) };
            println!("  {n:>5} {l1:>12.3e} {a:>7} {linf:>12.3e} {b:>7}");
        }
    }
}

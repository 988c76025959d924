//! 1-D linear advection u_t + u_x = 0 on [-1, 1] (periodic) with WENO-Z of every order and classical RK4,
//! on the CPU reference (float64): prints L1 and L-infinity errors after one period and the observed orders.
//! (`weno-advect1d` in skc-weno-gpu runs the same study with the .sk kernel on a GPU.)
//!
//! cargo run --release -p skc-weno-tables --example advect1d [henrick]

use skc_weno_tables::advection::study;
use skc_weno_tables::reference::{tendency_1d, Boundary, Weno};

fn main() {
    let henrick = std::env::args().any(|a| a == "henrick");
    let ks: Vec<usize> = if henrick { vec![3] } else { vec![2, 3, 4, 5, 6] };
    println!(
        "u_t + u_x = 0 on [-1, 1], periodic, t = 2 (one period), RK4; u0 = {}",
        if henrick { "sin(pi x - sin(pi x)/pi)" } else { "sin(pi x)" }
    );
    for k in ks {
        let weno = Weno::new(k);
        study(k, henrick, &mut |_, u, dx| tendency_1d(&weno, u, &vec![1.0; u.len() + 1], dx, Boundary::Periodic, None));
    }
}

//! `weno-advect1d DIR [henrick]`: the 1-D advection study of skc-weno-tables' `advect1d` example (periodic
//! u_t + u_x = 0, RK4, one period), with the right-hand side computed on the GPU by the .sk kernel
//! `tracer_tendency_1d` (float64, variants `f64_k{k}_dynamic_constant` built into DIR); prints errors and
//! observed orders.

use skc_weno_gpu::build::load;
use skc_weno_gpu::device::{global_tables, launch_1d, Gpu, Line};
use skc_weno_gpu::variants::Variant;
use skc_weno_tables::advection::study;

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().expect("usage: weno-advect1d DIR [henrick]"));
    let henrick = args.any(|a| a == "henrick");
    let gpu = Gpu::new().unwrap_or_else(|e| {
        eprintln!("error: no usable GPU: {e}");
        std::process::exit(1);
    });
    println!("device: {}; u_t + u_x = 0 on [-1, 1], periodic, t = 2, RK4, tendency on the GPU (float64)", gpu.name());
    let ks: Vec<usize> = if henrick { vec![3] } else { vec![2, 3, 4, 5, 6] };
    let h = 6;
    for k in ks {
        let variant = Variant::parse(&format!("f64_k{k}_dynamic_constant")).expect("a variant name");
        let module = load(&gpu.ctx, &dir, &variant).expect("the variant is built into DIR");
        let f = module.kernel("tracer_tendency_1d").expect("kernel");
        let gtab = gpu.upload(&global_tables::<f64>(k, false)).unwrap();
        study(k, henrick, &mut |_, u, dx| {
            let n = u.len();
            let padded: Vec<f64> =
                (0..n + 2 * h).map(|p| u[(p as i64 - h as i64).rem_euclid(n as i64) as usize]).collect();
            let c = gpu.upload(&padded).unwrap();
            let vel = gpu.upload(&vec![1.0f64; n + 2 * h]).unwrap();
            let act = gpu.upload(&vec![1i32; n + 2 * h]).unwrap();
            let mut g = gpu.zeros::<f64>(n + 2 * h).unwrap();
            let line = Line { c: &c, u: &vel, act: &act, gtab: &gtab, n: n as i32, h: h as i32, bounded: 0, dx };
            launch_1d(&f, &line, &mut g).unwrap();
            gpu.download(&g).unwrap()[h..h + n].to_vec()
        });
    }
}

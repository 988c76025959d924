//! The Lorenz sweep on a GPU: rho = linspace(0, 21, N) (float32), u0 = (1, 0, 0), t in [0, 1], final state only.
//! Solves it in float32 with Tsit5 (fixed dt = 1e-3, then adaptive at atol = rtol = 1e-6), and prints the
//! throughput and the error against a float64 reference (Vern7 at 1e-12 on the GPU, itself checked against the
//! CPU reference on the first runs).
//!
//! cargo run --release -p skc-ode --example lorenz [N]

use skc_ode::gpu::OdeSolver;
use skc_ode::program::SystemSource;
use skc_ode::reference::system::Lorenz;
use skc_ode::reference::{solve_batch, FsalVote};
use skc_ode::sk::Options;
use skc_ode::{Config, ControllerKind, Method, Precision};
use skc_runtime::Context;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = std::env::args().nth(1).map(|a| a.parse()).transpose()?.unwrap_or(1 << 16);
    let ctx = Context::new(0)?;
    let system = SystemSource::new(skc_ode::program::systems_dir().join("lorenz.sk"));
    let rho32: Vec<f32> = (0..n).map(|i| (21.0 * i as f64 / (n - 1) as f64) as f32).collect();
    let y0_32: Vec<f32> = (0..n).flat_map(|_| [1.0f32, 0.0, 0.0]).collect();
    let rho64: Vec<f64> = rho32.iter().map(|v| *v as f64).collect();
    let y0_64: Vec<f64> = y0_32.iter().map(|v| *v as f64).collect();

    let mut reference_cfg = Config::new(Method::Vern7, 1.0, 1e-3).with_tolerances(1e-12, 1e-12);
    reference_cfg.dt_min = 1e-12;
    let reference_solver = OdeSolver::new(&ctx, &system, &reference_cfg, &Options::default())?;
    let reference = reference_solver.solve::<f64>(&y0_64, &rho64)?;
    let check = n.min(256);
    let cpu = solve_batch(&Lorenz, &y0_64[..3 * check], &rho64[..check], &reference_cfg, FsalVote::Warp)?;
    let cpu_diff = (0..check * 3)
        .map(|i| (cpu.runs[i / 3].final_state[i % 3] - reference.final_state[i]).abs())
        .fold(0.0, f64::max);
    println!("{} on {}: float64 reference (vern7, 1e-12) agrees with the CPU to {cpu_diff:.1e}", n, ctx.device().name);

    for (label, controller) in
        [("tsit5 fixed dt = 1e-3", ControllerKind::Fixed), ("tsit5 adaptive 1e-6", ControllerKind::I)]
    {
        let mut cfg = Config::new(Method::Tsit5, 1.0, 1e-3).with_controller(controller);
        cfg.precision = Precision::F32;
        let solver = OdeSolver::new(&ctx, &system, &cfg, &Options::default())?;
        let mut batch = solver.upload::<f32>(&y0_32, &rho32)?;
        solver.run(&mut batch)?;
        let ms = (0..5)
            .map(|_| solver.run(&mut batch))
            .collect::<Result<Vec<f32>, _>>()?
            .into_iter()
            .fold(f32::MAX, f32::min);
        let solution = solver.download(&batch, ms)?;
        let steps: u64 = solution.attempted.iter().map(|&s| s as u64).sum();
        let error = (0..n * 3)
            .map(|i| {
                (solution.final_state[i] as f64 - reference.final_state[i]).abs()
                    / reference.final_state[i].abs().max(1.0)
            })
            .fold(0.0, f64::max);
        let failed = solution.status.iter().filter(|s| s.failed()).count();
        println!(
            "{label:<22} {ms:8.3} ms  {:.3e} trajectory-steps/s  {:.1} steps/run  max relative error {error:.2e}  {failed} failed",
            steps as f64 / (ms as f64 * 1e-3),
            steps as f64 / n as f64
        );
    }
    Ok(())
}

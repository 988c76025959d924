//! Benchmarks of the `.sk` steppers on a GPU, one JSON line per measurement.
//!
//! `ode-bench sweep N...`: the Lorenz sweep (rho = linspace(0, 21, N) in float32, u0 = (1, 0, 0), t in [0, 1],
//! final state only) in float32 with Tsit5 fixed dt = 1e-3 and Tsit5 / DP5 adaptive at atol = rtol = 1e-6 (I
//! controller, exponent 1/5, safety 0.9, clamp [0.2, 10], no dead band, dt0 = 1e-3, as the peers are run):
//! device time of the kernel (CUDA events, inputs and outputs resident, best of 5 after a warm-up), steps and
//! the error against a float64 reference (Vern7 at 1e-12 on the GPU, checked against the CPU reference on the
//! first runs), written to `$REF_DIR/ref_N.f64` for the peers when `$REF_DIR` is set. `ode-bench
//! sweep-computed-mask N...` runs the same kernels with the warp votes' mask computed from the block size (skc's
//! default emission) instead of the constant full mask the solver uses.
//!
//! `ode-bench fsal [N]`: the FSAL vote experiment: half the lanes of each warp (the odd ones) integrate a system
//! that rejects steps at every switch of a square-wave forcing, the other half accept; Tsit5 adaptive with the
//! warp vote and with the per-thread decision. `ode-bench fsal-once [N]` runs each variant once (for ncu), as
//! `lorenz-once [N]` and `adaptive-once [N]` run the fixed and adaptive Tsit5 kernels of the sweep.
//!
//! cargo run --release -p skc-bench --bin ode-bench -- sweep 1024 1048576

use std::path::PathBuf;

use skc_ode::config::Gains;
use skc_ode::gpu::{OdeSolver, Real};
use skc_ode::program::SystemSource;
use skc_ode::reference::system::{FsalProbe, Lorenz};
use skc_ode::reference::{solve_batch, FsalVote};
use skc_ode::sk::Options;
use skc_ode::{Config, ControllerKind, Method, Precision};
use skc_runtime::Context;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn system(name: &str) -> SystemSource {
    SystemSource::new(skc_ode::program::systems_dir().join(name))
}

/// The peers' controller: I, safety 0.9, clamp [0.2, 10], no dead band.
fn matched(method: Method, controller: ControllerKind) -> Config {
    let mut cfg = Config::new(method, 1.0, 1e-3).with_controller(controller);
    cfg.gains = Gains { deadband_low: 1.0, deadband_high: 1.0, ..Gains::defaults(controller) };
    cfg.precision = Precision::F32;
    cfg
}

struct Timed<T> {
    ms: f32,
    all: Vec<f32>,
    solution: skc_ode::gpu::Solution<T>,
}

fn timed<T: Real>(solver: &OdeSolver, y0: &[T], p: &[T], reps: usize) -> Result<Timed<T>> {
    let mut batch = solver.upload(y0, p)?;
    solver.run(&mut batch)?;
    let all = (0..reps).map(|_| solver.run(&mut batch)).collect::<std::result::Result<Vec<f32>, _>>()?;
    let ms = all.iter().copied().fold(f32::MAX, f32::min);
    let solution = solver.download(&batch, ms)?;
    Ok(Timed { ms, all, solution })
}

fn lorenz_inputs(n: usize) -> (Vec<f32>, Vec<f32>) {
    let rho: Vec<f32> = (0..n).map(|i| (21.0 * i as f64 / (n - 1).max(1) as f64) as f32).collect();
    (((0..n).flat_map(|_| [1.0f32, 0.0, 0.0])).collect(), rho)
}

/// `full_warps`: the votes' mask as the solver emits it (the constant full mask); false: computed from the block
/// size as skc's emitter does by default (`sweep-computed-mask`, to measure what the constant mask buys).
fn sweep(ctx: &Context, sizes: &[usize], full_warps: bool) -> Result<()> {
    let lorenz = system("lorenz.sk");
    let mut reference_cfg = Config::new(Method::Vern7, 1.0, 1e-3).with_tolerances(1e-12, 1e-12);
    reference_cfg.dt_min = 1e-12;
    let reference_solver = OdeSolver::new(ctx, &lorenz, &reference_cfg, &Options::default())?;
    // The defaults, and (`-lb6`) ptxas held to 6 blocks of 256 threads per SM (at most 40 registers): the
    // adaptive Tsit5 kernel takes 47 registers (5 blocks) on its own.
    let base = Options { full_warps, ..Options::default() };
    let lb6 = Options { min_blocks_per_sm: 6, ..base.clone() };
    let configs = [
        ("tsit5-fixed", matched(Method::Tsit5, ControllerKind::Fixed), base.clone()),
        ("tsit5-adaptive", matched(Method::Tsit5, ControllerKind::I), base.clone()),
        ("dp5-adaptive", matched(Method::DormandPrince5, ControllerKind::I), base),
        ("tsit5-adaptive-lb6", matched(Method::Tsit5, ControllerKind::I), lb6.clone()),
        ("dp5-adaptive-lb6", matched(Method::DormandPrince5, ControllerKind::I), lb6),
    ];
    let solvers: Vec<(&str, OdeSolver)> = configs
        .iter()
        .map(|(name, cfg, options)| Ok((*name, OdeSolver::new(ctx, &lorenz, cfg, options)?)))
        .collect::<Result<_>>()?;
    for (name, solver) in &solvers {
        println!(
            "{{\"kernel\":\"{name}\",\"registers\":{},\"block\":{},\"compile_cache_hit\":{}}}",
            solver.registers()?,
            solver.block_size(),
            solver.module().compile_report().cache_hit
        );
    }
    for &n in sizes {
        let (y0, rho) = lorenz_inputs(n);
        let y0_64: Vec<f64> = y0.iter().map(|v| *v as f64).collect();
        let rho_64: Vec<f64> = rho.iter().map(|v| *v as f64).collect();
        let reference = timed::<f64>(&reference_solver, &y0_64, &rho_64, 1)?;
        let check = n.min(128);
        let cpu = solve_batch(&Lorenz, &y0_64[..3 * check], &rho_64[..check], &reference_cfg, FsalVote::Warp)?;
        let cpu_diff = (0..3 * check)
            .map(|i| (cpu.runs[i / 3].final_state[i % 3] - reference.solution.final_state[i]).abs())
            .fold(0.0, f64::max);
        if let Ok(dir) = std::env::var("REF_DIR") {
            let bytes: Vec<u8> = reference.solution.final_state.iter().flat_map(|v| v.to_le_bytes()).collect();
            std::fs::write(PathBuf::from(dir).join(format!("ref_{n}.f64")), bytes)?;
        }
        println!(
            "{{\"reference\":\"vern7-1e-12-f64\",\"n\":{n},\"gpu_ms\":{:.4},\"cpu_check_runs\":{check},\"cpu_max_abs_diff\":{cpu_diff:.3e}}}",
            reference.ms
        );
        for (name, solver) in &solvers {
            let reps = if n >= 1 << 21 { 3 } else { 5 };
            let t = timed::<f32>(solver, &y0, &rho, reps)?;
            let s = &t.solution;
            let steps: u64 = s.attempted.iter().map(|&v| v as u64).sum();
            let rejected: u64 = s.rejected.iter().map(|&v| v as u64).sum();
            let error = (0..3 * n)
                .map(|i| {
                    let r = reference.solution.final_state[i];
                    (s.final_state[i] as f64 - r).abs() / r.abs().max(1.0)
                })
                .fold(0.0, f64::max);
            let failed = s.status.iter().filter(|v| v.failed()).count();
            println!(
                "{{\"engine\":\"skc\",\"config\":\"{name}\",\"n\":{n},\"gpu_ms\":{:.4},\"all_ms\":{:?},\"steps\":{:.2},\"rejected\":{:.2},\"trajectory_steps_per_s\":{:.4e},\"error\":{error:.3e},\"failed\":{failed}}}",
                t.ms,
                t.all,
                steps as f64 / n as f64,
                rejected as f64 / n as f64,
                steps as f64 / (t.ms as f64 * 1e-3)
            );
        }
    }
    Ok(())
}

fn fsal(ctx: &Context, n: usize, reps: usize) -> Result<()> {
    let probe = system("fsal_probe.sk");
    let y0: Vec<f32> = (0..n).flat_map(|_| [1.0f32, 0.0, 0.0, 0.0]).collect();
    // rho 21; odd lanes forced (amplitude 1, 50 Hz), even lanes not.
    let params: Vec<f32> = (0..n).flat_map(|i| [21.0f32, (i % 2) as f32, 50.0]).collect();
    let mut cfg = matched(Method::Tsit5, ControllerKind::I);
    cfg.dt_max = 1e-3;
    // The CPU reference of the first warps, to check the GPU and to count the vote's reuse.
    let check = n.min(256);
    let y0_64: Vec<f64> = y0[..4 * check].iter().map(|v| *v as f64).collect();
    let p_64: Vec<f64> = params[..3 * check].iter().map(|v| *v as f64).collect();
    for vote in [true, false] {
        let solver =
            OdeSolver::new(ctx, &probe, &cfg, &Options { fsal_vote: vote, trace_len: 0, ..Options::default() })?;
        let t = timed::<f32>(&solver, &y0, &params, reps)?;
        let s = &t.solution;
        let class = |odd: usize, v: &[u32]| {
            let picked: Vec<f64> = v.iter().enumerate().filter(|(i, _)| i % 2 == odd).map(|(_, x)| *x as f64).collect();
            picked.iter().sum::<f64>() / picked.len() as f64
        };
        let mut cpu_cfg = cfg.clone();
        cpu_cfg.precision = Precision::F32;
        let cpu =
            solve_batch(&FsalProbe, &y0_64, &p_64, &cpu_cfg, if vote { FsalVote::Warp } else { FsalVote::PerThread })?;
        let diff = (0..4 * check)
            .map(|i| {
                (cpu.runs[i / 4].final_state[i % 4] - s.final_state[i] as f64).abs()
                    / cpu.runs[i / 4].final_state[i % 4].abs().max(1.0)
            })
            .fold(0.0, f64::max);
        println!(
            "{{\"experiment\":\"fsal\",\"vote\":{vote},\"n\":{n},\"gpu_ms\":{:.4},\"all_ms\":{:?},\"registers\":{},\"even_attempted\":{:.1},\"even_rejected\":{:.1},\"odd_attempted\":{:.1},\"odd_rejected\":{:.1},\"cpu_max_rel_diff\":{diff:.2e}}}",
            t.ms,
            t.all,
            solver.registers()?,
            class(0, &s.attempted),
            class(0, &s.rejected),
            class(1, &s.attempted),
            class(1, &s.rejected)
        );
    }
    Ok(())
}

/// One launch of a Tsit5 Lorenz kernel of the sweep, fixed or adaptive (for ncu's counters).
fn lorenz_once(ctx: &Context, n: usize, controller: ControllerKind) -> Result<()> {
    let solver = OdeSolver::new(ctx, &system("lorenz.sk"), &matched(Method::Tsit5, controller), &Options::default())?;
    let (y0, rho) = lorenz_inputs(n);
    let t = timed::<f32>(&solver, &y0, &rho, 0)?;
    let steps: u64 = t.solution.attempted.iter().map(|&v| v as u64).sum();
    let name = controller.name();
    println!("{{\"experiment\":\"lorenz-once\",\"controller\":\"{name}\",\"n\":{n},\"steps\":{steps}}}");
    Ok(())
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let ctx = Context::new(0)?;
    eprintln!("device: {} ({} SMs, {})", ctx.device().name, ctx.device().multiprocessors, ctx.device().arch);
    let numbers = |from: usize| -> Result<Vec<usize>> {
        Ok(args[from..].iter().map(|a| a.parse()).collect::<std::result::Result<_, _>>()?)
    };
    match args.first().map(String::as_str) {
        Some("sweep") => sweep(&ctx, &numbers(1)?, true),
        Some("sweep-computed-mask") => sweep(&ctx, &numbers(1)?, false),
        Some("fsal") => fsal(&ctx, numbers(1)?.first().copied().unwrap_or(1 << 20), 5),
        Some("fsal-once") => fsal(&ctx, numbers(1)?.first().copied().unwrap_or(1 << 20), 0),
        Some("lorenz-once") => {
            lorenz_once(&ctx, numbers(1)?.first().copied().unwrap_or(1 << 20), ControllerKind::Fixed)
        }
        Some("adaptive-once") => lorenz_once(&ctx, numbers(1)?.first().copied().unwrap_or(1 << 20), ControllerKind::I),
        _ => Err("usage: ode-bench sweep N... | sweep-computed-mask N... | fsal [N] | fsal-once [N] | lorenz-once [N] | adaptive-once [N]".into()),
    }
}

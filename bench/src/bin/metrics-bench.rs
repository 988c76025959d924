//! Summary metrics on a GPU, one JSON line per measurement. Timed as the peers' scripts time themselves
//! (`skc_bench::timing`): GPU time with the host's enqueue hidden behind a ~30 ms spinner kernel (inputs and
//! outputs resident), and the time a caller waits (`OdeSolver::solve` from host arrays to host arrays); medians
//! of 5 runs after a warm-up. Each kernel's line holds `peer`, `bench`, `variant`, `method`, `controller`, `N`,
//! `precision`, `tolerance`, `gpu_ms`, `wait_ms`, `runs`, `valid_runs`, `card` and `date`; a line per
//! configuration then gives the ratios of the GPU times.
//!
//! `metrics-bench lorenz [N]`: the Lorenz sweep (rho = linspace(0, 21, N), u0 = (1, 0, 0), t in [0, 1],
//! float32) with Tsit5 fixed dt = 1e-3 and Tsit5 adaptive (atol = rtol = 1e-6, the peers' I controller), without
//! summaries, with the mean of x only (the same 100 landings at the lowest metric cost) and with all 18 metrics
//! on the 3 variables (samples every 0.01, windows of 0.1: 100 samples, 10 windows); prints the times, the
//! ratios and the registers.
//!
//! `metrics-bench vdp DIR`: CuBIE's headline problem, Van der Pol over 1024 x0 in [1, 2] by 1024 mu in [1, 3]
//! (1,048,576 runs, run = i_x0 * 1024 + i_mu, v0 = 0), duration 20, DP5 adaptive (I controller, atol 1e-6,
//! rtol 1e-3, dt0 1e-3, no dead band), float32; without summaries and with mean, std, rms, max, min,
//! max_magnitude, peaks[3], negative_peaks[3], dxdt_max/min and d2xdt2_max/min on x and v (samples every 0.05,
//! windows of 5: 4 windows of 100 samples). Writes the summaries to DIR/skc_vdp.f32 (runs x windows x
//! outputs) and their names to DIR/skc_vdp.names, for bench/cubie_summaries.py to compare with CuBIE's.
//!
//! cargo run --release -p skc-bench --bin metrics-bench -- lorenz 1048576

use std::io::Write;
use std::path::PathBuf;

use skc_bench::timing::{time_solver, JsonLine, Spinner};
use skc_ode::config::Gains;
use skc_ode::gpu::{OdeSolver, Real, Solution};
use skc_ode::program::SystemSource;
use skc_ode::sk::Options;
use skc_ode::summaries::{Metric, SummarySpec};
use skc_ode::{Config, ControllerKind, Method, Precision};
use skc_runtime::Context;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn system(name: &str) -> SystemSource {
    SystemSource::new(skc_ode::program::systems_dir().join(name))
}

/// The peers' controller: I, safety 0.9, clamp [0.2, 10], no dead band.
fn matched(method: Method, controller: ControllerKind, duration: f64) -> Config {
    let mut cfg = Config::new(method, duration, 1e-3).with_controller(controller);
    cfg.gains = Gains { deadband_low: 1.0, deadband_high: 1.0, ..Gains::defaults(controller) };
    cfg.precision = Precision::F32;
    cfg
}

/// Timed runs per measurement.
const RUNS: usize = 5;

/// Times one solver (`time_solver`) and prints its measurement line; returns the warm-up's solution and the
/// median GPU time (NaN when no sample was valid).
#[allow(clippy::too_many_arguments)]
fn measure<T: Real>(
    solver: &OdeSolver,
    spinner: &Spinner,
    bench: &str,
    variant: &str,
    card: &str,
    y0: &[T],
    p: &[T],
) -> Result<(Solution<T>, f64)> {
    let (solution, m) = time_solver(solver, spinner, y0, p, RUNS)?;
    let cfg = solver.config();
    let mut line = JsonLine::measurement("skc", bench, card);
    line.str("variant", variant)
        .str("method", cfg.method.name())
        .str("controller", cfg.controller.name())
        .int("N", solution.n_runs as u64)
        .str("precision", T::PRECISION.name())
        .opt_num("tolerance", cfg.controller.is_adaptive().then_some(cfg.rtol));
    m.write(&mut line);
    line.int("registers", solver.registers()? as u64);
    println!("{}", line.render());
    let gpu_ms = m.gpu_ms().unwrap_or(f64::NAN);
    eprintln!(
        "{bench} {variant:<28} GPU {gpu_ms:.4} ms ({}/{} valid), wait {:.3} ms",
        m.valid_gpu_ms().len(),
        m.samples.len(),
        m.wait_ms().unwrap_or(f64::NAN)
    );
    Ok((solution, gpu_ms))
}

fn lorenz(ctx: &Context, n: usize) -> Result<()> {
    let spinner = Spinner::new(ctx)?;
    let card = ctx.device().name.clone();
    let rho: Vec<f32> = (0..n).map(|i| (21.0 * i as f64 / (n - 1).max(1) as f64) as f32).collect();
    let y0: Vec<f32> = (0..n).flat_map(|_| [1.0f32, 0.0, 0.0]).collect();
    for (label, method, controller) in
        [("tsit5-fixed", Method::Tsit5, ControllerKind::Fixed), ("tsit5-adaptive", Method::Tsit5, ControllerKind::I)]
    {
        let mut cfg = matched(method, controller, 1.0);
        if controller == ControllerKind::I {
            cfg = cfg.with_tolerances(1e-6, 1e-6);
        }
        let bench = "lorenz-metrics";
        let plain = OdeSolver::new(ctx, &system("lorenz.sk"), &cfg, &Options::default())?;
        let (_, none_ms) = measure(&plain, &spinner, bench, &format!("{label} none"), &card, &y0, &rho)?;
        // The landings alone: the same 100 sample times with the cheapest summary (the mean of x).
        cfg.summaries = Some(SummarySpec::new(vec![Metric::Mean], vec![0], 0.01, 0.1));
        let landing = OdeSolver::new(ctx, &system("lorenz.sk"), &cfg, &Options::default())?;
        let (_, landing_ms) = measure(&landing, &spinner, bench, &format!("{label} mean-x"), &card, &y0, &rho)?;
        cfg.summaries = Some(SummarySpec {
            state_names: vec!["x".into(), "y".into(), "z".into()],
            ..SummarySpec::new(Metric::all(3), vec![0, 1, 2], 0.01, 0.1)
        });
        let with = OdeSolver::new(ctx, &system("lorenz.sk"), &cfg, &Options::default())?;
        let (_, all_ms) = measure(&with, &spinner, bench, &format!("{label} all18"), &card, &y0, &rho)?;
        // Sanity: the summaries of the last run are finite.
        let solution = with.solve(&y0[..3 * 64], &rho[n - 64..])?;
        let summaries = solution.summaries.as_ref().expect("summaries");
        let finite = summaries.values.iter().all(|v| v.is_finite());
        println!(
            "{{\"bench\":\"lorenz-metrics\",\"config\":\"{label}\",\"n\":{n},\"none_ms\":{none_ms:.4},\"all18_ms\":{all_ms:.4},\
             \"ratio\":{:.3},\"mean_x_only_ms\":{landing_ms:.4},\"ratio_vs_mean_x_only\":{:.3},\"registers_none\":{},\"registers_all18\":{},\"outputs_per_run\":{},\"finite\":{finite}}}",
            all_ms / none_ms,
            all_ms / landing_ms,
            plain.registers()?,
            with.registers()?,
            summaries.values.len() / 64
        );
    }
    Ok(())
}

/// Fixed-step Lorenz without summaries, with the mean of x and with all 18 metrics, each launched once (for ncu).
fn lorenz_once(ctx: &Context, n: usize) -> Result<()> {
    let rho: Vec<f32> = (0..n).map(|i| (21.0 * i as f64 / (n - 1).max(1) as f64) as f32).collect();
    let y0: Vec<f32> = (0..n).flat_map(|_| [1.0f32, 0.0, 0.0]).collect();
    let specs = [None, Some(vec![Metric::Mean]), Some(Metric::all(3))];
    for metrics in specs {
        let mut cfg = matched(Method::Tsit5, ControllerKind::Fixed, 1.0);
        cfg.summaries = metrics.map(|m| SummarySpec::new(m, vec![0, 1, 2], 0.01, 0.1));
        let solver = OdeSolver::new(ctx, &system("lorenz.sk"), &cfg, &Options::default())?;
        let mut batch = solver.upload(&y0, &rho)?;
        eprintln!("{:.3} ms", solver.run(&mut batch)?);
    }
    Ok(())
}

fn vdp_metrics() -> Vec<Metric> {
    ["mean", "std", "rms", "max", "min", "max_magnitude", "peaks[3]", "negative_peaks[3]", "dxdt_max", "dxdt_min"]
        .iter()
        .chain(["d2xdt2_max", "d2xdt2_min"].iter())
        .map(|m| Metric::parse(m).expect("a metric"))
        .collect()
}

fn vdp(ctx: &Context, dir: &str) -> Result<()> {
    let side = 1024;
    let n = side * side;
    let mut y0 = Vec::with_capacity(2 * n);
    let mut mu = Vec::with_capacity(n);
    for i in 0..side {
        for j in 0..side {
            y0.extend([(1.0 + i as f64 / (side - 1) as f64) as f32, 0.0]);
            mu.push((1.0 + 2.0 * j as f64 / (side - 1) as f64) as f32);
        }
    }
    let spinner = Spinner::new(ctx)?;
    let card = ctx.device().name.clone();
    let mut cfg = matched(Method::DormandPrince5, ControllerKind::I, 20.0).with_tolerances(1e-6, 1e-3);
    let plain = OdeSolver::new(ctx, &system("van_der_pol.sk"), &cfg, &Options::default())?;
    let (_, none_ms) = measure(&plain, &spinner, "vdp-summaries", "none", &card, &y0, &mu)?;
    cfg.summaries = Some(SummarySpec {
        state_names: vec!["x".into(), "v".into()],
        ..SummarySpec::new(vdp_metrics(), vec![0, 1], 0.05, 5.0)
    });
    let with = OdeSolver::new(ctx, &system("van_der_pol.sk"), &cfg, &Options::default())?;
    let (solution, ms) = measure(&with, &spinner, "vdp-summaries", "summaries", &card, &y0, &mu)?;
    let summaries = solution.summaries.expect("summaries");
    let failed = solution.status.iter().filter(|s| s.failed()).count();
    let steps = solution.attempted.iter().map(|&a| a as f64).sum::<f64>() / n as f64;
    let rejected = solution.rejected.iter().map(|&a| a as f64).sum::<f64>() / n as f64;
    let dir = PathBuf::from(dir);
    std::fs::create_dir_all(&dir)?;
    let mut file = std::io::BufWriter::new(std::fs::File::create(dir.join("skc_vdp.f32"))?);
    for v in &summaries.values {
        file.write_all(&v.to_le_bytes())?;
    }
    std::fs::write(dir.join("skc_vdp.names"), summaries.names.join("\n"))?;
    println!(
        "{{\"bench\":\"vdp-summaries\",\"engine\":\"skc\",\"n\":{n},\"none_ms\":{none_ms:.4},\"summaries_ms\":{ms:.4},\
         \"ratio\":{:.3},\"windows\":{},\"outputs\":{},\"steps\":{steps:.2},\"rejected\":{rejected:.2},\"failed\":{failed},\
         \"registers_none\":{},\"registers_summaries\":{}}}",
        ms / none_ms,
        summaries.n_windows,
        summaries.names.len(),
        plain.registers()?,
        with.registers()?
    );
    Ok(())
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let ctx = Context::new(0)?;
    eprintln!("device: {} ({} SMs, {})", ctx.device().name, ctx.device().multiprocessors, ctx.device().arch);
    match (args.first().map(String::as_str), args.get(1)) {
        (Some("lorenz"), n) => lorenz(&ctx, n.map(|n| n.parse()).transpose()?.unwrap_or(1 << 20)),
        (Some("vdp"), Some(dir)) => vdp(&ctx, dir),
        (Some("lorenz-once"), n) => lorenz_once(&ctx, n.map(|n| n.parse()).transpose()?.unwrap_or(1 << 20)),
        _ => Err("usage: metrics-bench lorenz [N] | lorenz-once [N] | vdp DIR".into()),
    }
}

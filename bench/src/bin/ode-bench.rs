//! Benchmarks of the `.sk` steppers on a GPU, one JSON line per measurement on stdout (and a readable line per
//! measurement on stderr).
//!
//! Every peer comparison is timed as the peers' scripts time themselves (`skc_bench::timing`): GPU time with the
//! host's enqueue hidden behind a ~30 ms spinner kernel (a sample counts only when the enqueue took less than the
//! spinner), and the time a caller waits (`OdeSolver::solve` from host arrays to host arrays); medians of 5 runs
//! after a warm-up. Each measurement's line holds `peer`, `bench`, `method`, `controller`, `N`, `precision`,
//! `tolerance`, `gpu_ms`, `wait_ms`, `runs`, `valid_runs`, `card`, `date`, the steps and the error.
//!
//! The error is the largest relative difference of a final state from the float64 reference, `|y - ref| /
//! max(|ref|, 1)` over every run and state. The reference is Vern7 in float64 at atol = rtol = 1e-14 on the GPU
//! ([`REFERENCE_TOL`]), its first runs checked against the CPU reference; it is written to `$REF_DIR/ref_N.f64`
//! for the peers when `$REF_DIR` is set.
//!
//! `ode-bench sweep N...`: the Lorenz sweep (rho = linspace(0, 21, N) in float32, u0 = (1, 0, 0), t in [0, 1],
//! final state only) in float32 with Tsit5 fixed dt = 1e-3 and Tsit5 / DP5 adaptive at atol = rtol = 1e-6 (I
//! controller, exponent 1/5, safety 0.9, clamp [0.2, 10], no dead band, dt0 = 1e-3, as the peers are run).
//! `ode-bench sweep-computed-mask N...` runs the same kernels with the warp votes' mask computed from the block
//! size (skc's default emission) instead of the constant full mask the solver uses.
//!
//! `ode-bench work-precision f32|f64 N...`: the same Lorenz problem with Tsit5, DP5 and Vern7 (the I controller
//! above) at atol = rtol = 1e-3 ... 1e-8 (float32) or 1e-3 ... 1e-12 (float64), one line per (N, method,
//! tolerance).
//!
//! `ode-bench reference-check [RUNS]`: no GPU; the CPU reference's Vern7 in float64 at 1e-12, 1e-13 and 1e-14 on
//! RUNS values of rho over [0, 21]: failures and the differences between the three (how far the GPU reference can
//! be trusted).
//!
//! `ode-bench fsal [N]`: the FSAL vote experiment: half the lanes of each warp (the odd ones) integrate a system
//! that rejects steps at every switch of a square-wave forcing, the other half accept; Tsit5 adaptive with the
//! warp vote and with the per-thread decision. `ode-bench fsal-once [N]` runs each variant once (for ncu), as
//! `lorenz-once [N]` and `adaptive-once [N]` run the fixed and adaptive Tsit5 kernels of the sweep.
//!
//! cargo run --release -p skc-bench --bin ode-bench -- sweep 1024 1048576

use std::path::PathBuf;

use skc_bench::timing::{time_solver, JsonLine, Spinner};
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

/// The reference's tolerance (atol = rtol), Vern7 in float64.
const REFERENCE_TOL: f64 = 1e-14;
/// Timed runs per measurement (medians of these, after a warm-up).
const RUNS: usize = 5;

fn reference_config(tol: f64) -> Config {
    let mut cfg = Config::new(Method::Vern7, 1.0, 1e-3).with_tolerances(tol, tol);
    cfg.dt_min = 1e-12;
    cfg
}

/// The float64 reference of the Lorenz sweep at `n` runs (Vern7 at [`REFERENCE_TOL`] on the GPU): its first runs
/// checked against the CPU reference, written to `$REF_DIR/ref_N.f64` when set, described on one JSON line.
fn reference(solver: &OdeSolver, card: &str, n: usize) -> Result<Vec<f64>> {
    let (y0, rho) = lorenz_inputs(n);
    let y0_64: Vec<f64> = y0.iter().map(|v| *v as f64).collect();
    let rho_64: Vec<f64> = rho.iter().map(|v| *v as f64).collect();
    let reference = timed::<f64>(solver, &y0_64, &rho_64, 1)?;
    let failed = reference.solution.status.iter().filter(|v| v.failed()).count();
    if failed > 0 {
        return Err(format!("the float64 reference failed on {failed} of {n} runs").into());
    }
    let check = n.min(128);
    let cpu = solve_batch(&Lorenz, &y0_64[..3 * check], &rho_64[..check], solver.config(), FsalVote::Warp)?;
    let cpu_diff = (0..3 * check)
        .map(|i| (cpu.runs[i / 3].final_state[i % 3] - reference.solution.final_state[i]).abs())
        .fold(0.0, f64::max);
    if let Ok(dir) = std::env::var("REF_DIR") {
        let bytes: Vec<u8> = reference.solution.final_state.iter().flat_map(|v| v.to_le_bytes()).collect();
        std::fs::write(PathBuf::from(dir).join(format!("ref_{n}.f64")), bytes)?;
    }
    let mut line = JsonLine::measurement("skc", "reference", card);
    line.str("method", "vern7")
        .int("N", n as u64)
        .str("precision", "float64")
        .num("tolerance", REFERENCE_TOL)
        .num("gpu_ms", reference.ms as f64)
        .str("gpu_ms_method", "events")
        .int("cpu_check_runs", check as u64)
        .num("cpu_max_abs_diff", cpu_diff);
    println!("{}", line.render());
    Ok(reference.solution.final_state)
}

/// One solver of a comparison: a configuration's name, method, controller and tolerance (None: fixed step).
struct Case {
    name: String,
    method: Method,
    controller: ControllerKind,
    tolerance: Option<f64>,
    solver: OdeSolver,
}

impl Case {
    fn new(ctx: &Context, name: &str, cfg: &Config, options: &Options) -> Result<Case> {
        let tolerance = cfg.controller.is_adaptive().then_some(cfg.rtol);
        let solver = OdeSolver::new(ctx, &system("lorenz.sk"), cfg, options)?;
        Ok(Case { name: name.to_string(), method: cfg.method, controller: cfg.controller, tolerance, solver })
    }
}

/// Times one case on one batch and prints its measurement line.
fn measure<T: Real>(
    case: &Case,
    spinner: &Spinner,
    bench: &str,
    card: &str,
    y0: &[T],
    p: &[T],
    reference: &[f64],
) -> Result<()> {
    let (s, m) = time_solver(&case.solver, spinner, y0, p, RUNS)?;
    let n = s.n_runs;
    let steps: u64 = s.attempted.iter().map(|&v| v as u64).sum();
    let rejected: u64 = s.rejected.iter().map(|&v| v as u64).sum();
    let error = (0..3 * n)
        .map(|i| (s.final_state[i].to_f64() - reference[i]).abs() / reference[i].abs().max(1.0))
        .fold(0.0, f64::max);
    let failed = s.status.iter().filter(|v| v.failed()).count();
    let mut line = JsonLine::measurement("skc", bench, card);
    line.str("config", &case.name)
        .str("method", case.method.name())
        .str("controller", case.controller.name())
        .int("N", n as u64)
        .str("precision", T::PRECISION.name())
        .opt_num("tolerance", case.tolerance);
    m.write(&mut line);
    let per_s = m.gpu_ms().map(|ms| steps as f64 / (ms * 1e-3));
    line.num("steps", steps as f64 / n as f64)
        .num("rejected", rejected as f64 / n as f64)
        .opt_num("trajectory_steps_per_s", per_s)
        .num("error", error)
        .int("failed", failed as u64)
        .int("registers", case.solver.registers()? as u64);
    println!("{}", line.render());
    eprintln!(
        "{:<20} {:<8} N = {n:>8}: GPU {} ({}/{} valid), wait {}, {:.2} steps, error {error:.2e}",
        case.name,
        T::PRECISION.name(),
        shown(m.gpu_ms()),
        m.valid_gpu_ms().len(),
        m.samples.len(),
        shown(m.wait_ms()),
        steps as f64 / n as f64
    );
    Ok(())
}

fn shown(ms: Option<f64>) -> String {
    ms.map_or("-".to_string(), |ms| format!("{ms:.4} ms"))
}

fn card(ctx: &Context) -> String {
    ctx.device().name.clone()
}

/// `full_warps`: the votes' mask as the solver emits it (the constant full mask); false: computed from the block
/// size as skc's emitter does by default (`sweep-computed-mask`, to measure what the constant mask buys).
fn sweep(ctx: &Context, sizes: &[usize], full_warps: bool) -> Result<()> {
    let spinner = Spinner::new(ctx)?;
    let card = card(ctx);
    let reference_solver =
        OdeSolver::new(ctx, &system("lorenz.sk"), &reference_config(REFERENCE_TOL), &Options::default())?;
    // The defaults, and (`-lb6`) ptxas held to 6 blocks of 256 threads per SM (at most 40 registers): the
    // adaptive Tsit5 kernel takes 47 registers (5 blocks) on its own.
    let base = Options { full_warps, ..Options::default() };
    let lb6 = Options { min_blocks_per_sm: 6, ..base.clone() };
    let cases = [
        Case::new(ctx, "tsit5-fixed", &matched(Method::Tsit5, ControllerKind::Fixed), &base)?,
        Case::new(ctx, "tsit5-adaptive", &matched(Method::Tsit5, ControllerKind::I), &base)?,
        Case::new(ctx, "dp5-adaptive", &matched(Method::DormandPrince5, ControllerKind::I), &base)?,
        Case::new(ctx, "tsit5-adaptive-lb6", &matched(Method::Tsit5, ControllerKind::I), &lb6)?,
        Case::new(ctx, "dp5-adaptive-lb6", &matched(Method::DormandPrince5, ControllerKind::I), &lb6)?,
    ];
    for case in &cases {
        println!(
            "{{\"kernel\":\"{}\",\"registers\":{},\"block\":{},\"compile_cache_hit\":{}}}",
            case.name,
            case.solver.registers()?,
            case.solver.block_size(),
            case.solver.module().compile_report().cache_hit
        );
    }
    println!("{{\"spinner_ms\":{:.3}}}", spinner.ms());
    for &n in sizes {
        let reference = reference(&reference_solver, &card, n)?;
        let (y0, rho) = lorenz_inputs(n);
        for case in &cases {
            measure(case, &spinner, "lorenz-sweep", &card, &y0, &rho, &reference)?;
        }
    }
    Ok(())
}

/// The tolerances of the work-precision study: 1e-3 ... 1e-8 in float32, 1e-3 ... 1e-12 in float64.
fn tolerances(precision: Precision) -> Vec<f64> {
    let tightest = if precision == Precision::F32 { 8 } else { 12 };
    (3..=tightest).map(|k| 10f64.powi(-k)).collect()
}

/// Tsit5, DP5 and Vern7 with the peers' I controller at every tolerance, in `T`'s precision, at each size.
fn work_precision<T: Real>(ctx: &Context, sizes: &[usize]) -> Result<()> {
    let spinner = Spinner::new(ctx)?;
    let card = card(ctx);
    let reference_solver =
        OdeSolver::new(ctx, &system("lorenz.sk"), &reference_config(REFERENCE_TOL), &Options::default())?;
    let mut cases = Vec::new();
    for method in [Method::Tsit5, Method::DormandPrince5, Method::Vern7] {
        for tol in tolerances(T::PRECISION) {
            let mut cfg = matched(method, ControllerKind::I).with_tolerances(tol, tol);
            cfg.precision = T::PRECISION;
            cases.push(Case::new(ctx, &format!("{}-adaptive", method.name()), &cfg, &Options::default())?);
        }
    }
    println!("{{\"spinner_ms\":{:.3}}}", spinner.ms());
    for &n in sizes {
        let reference = reference(&reference_solver, &card, n)?;
        let (y0, rho) = lorenz_inputs(n);
        let y0: Vec<T> = y0.iter().map(|v| T::from_f64(*v as f64)).collect();
        let rho: Vec<T> = rho.iter().map(|v| T::from_f64(*v as f64)).collect();
        for case in &cases {
            measure(case, &spinner, "work-precision", &card, &y0, &rho, &reference)?;
        }
    }
    Ok(())
}

/// The CPU reference's Vern7 in float64 at 1e-12, 1e-13 and [`REFERENCE_TOL`] on `runs` values of rho over
/// [0, 21]: how many runs fail, and how far apart the three are.
fn reference_check(runs: usize) -> Result<()> {
    let (y0, rho) = lorenz_inputs(runs);
    let y0: Vec<f64> = y0.iter().map(|v| *v as f64).collect();
    let rho: Vec<f64> = rho.iter().map(|v| *v as f64).collect();
    let finals = [1e-12, 1e-13, REFERENCE_TOL]
        .iter()
        .map(|&tol| {
            let batch = solve_batch(&Lorenz, &y0, &rho, &reference_config(tol), FsalVote::Warp)?;
            let failed = batch.runs.iter().filter(|r| r.status.failed()).count();
            let steps = batch.runs.iter().map(|r| r.attempted as f64).sum::<f64>() / runs as f64;
            println!("{{\"reference_check\":\"vern7-f64\",\"tolerance\":{tol:e},\"runs\":{runs},\"failed\":{failed},\"steps\":{steps:.1}}}");
            Ok(batch.runs.iter().flat_map(|r| r.final_state.clone()).collect::<Vec<f64>>())
        })
        .collect::<Result<Vec<Vec<f64>>>>()?;
    let diff =
        |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| (x - y).abs() / y.abs().max(1.0)).fold(0.0, f64::max);
    println!(
        "{{\"reference_check\":\"differences\",\"1e-12_vs_tightest\":{:.3e},\"1e-13_vs_tightest\":{:.3e}}}",
        diff(&finals[0], &finals[2]),
        diff(&finals[1], &finals[2])
    );
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
    let numbers = |from: usize| -> Result<Vec<usize>> {
        Ok(args.get(from..).unwrap_or_default().iter().map(|a| a.parse()).collect::<std::result::Result<_, _>>()?)
    };
    if args.first().map(String::as_str) == Some("reference-check") {
        return reference_check(numbers(1)?.first().copied().unwrap_or(64));
    }
    let ctx = Context::new(0)?;
    eprintln!("device: {} ({} SMs, {})", ctx.device().name, ctx.device().multiprocessors, ctx.device().arch);
    match (args.first().map(String::as_str), args.get(1).map(String::as_str)) {
        (Some("sweep"), _) => sweep(&ctx, &numbers(1)?, true),
        (Some("sweep-computed-mask"), _) => sweep(&ctx, &numbers(1)?, false),
        (Some("work-precision"), Some("f32")) => work_precision::<f32>(&ctx, &numbers(2)?),
        (Some("work-precision"), Some("f64")) => work_precision::<f64>(&ctx, &numbers(2)?),
        (Some("fsal"), _) => fsal(&ctx, numbers(1)?.first().copied().unwrap_or(1 << 20), 5),
        (Some("fsal-once"), _) => fsal(&ctx, numbers(1)?.first().copied().unwrap_or(1 << 20), 0),
        (Some("lorenz-once"), _) => {
            lorenz_once(&ctx, numbers(1)?.first().copied().unwrap_or(1 << 20), ControllerKind::Fixed)
        }
        (Some("adaptive-once"), _) => {
            lorenz_once(&ctx, numbers(1)?.first().copied().unwrap_or(1 << 20), ControllerKind::I)
        }
        _ => Err("usage: ode-bench sweep N... | sweep-computed-mask N... | work-precision f32|f64 N... | \
                  reference-check [RUNS] | fsal [N] | fsal-once [N] | lorenz-once [N] | adaptive-once [N]"
            .into()),
    }
}

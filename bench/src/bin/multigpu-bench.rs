//! Scaling over the GPUs of one host, one JSON line per measurement on stdout (and a readable line on stderr).
//! NVLink multicast stays off (the runtime sets `NCCL_NVLS_ENABLE=0` before NCCL loads). Both workloads run on
//! 1, 2, 4, ... devices up to GPUS (and on GPUS itself when it is not a power of two).
//!
//! `multigpu-bench ode GPUS [--quick]`: the Lorenz sweep of `ode-bench` (float32, Tsit5 fixed dt = 1e-3 and
//! adaptive at atol = rtol = 1e-6, final state only) over the devices by `EnsembleSolver`, which deals the batch's
//! blocks to them in turn. Strong scaling at N = 2^25 (2^23 with --quick), weak scaling at 2^23 (2^21) per GPU.
//! Per device count: `gpu_ms`, the median over 5 runs of the slowest device's kernel time by its own events (the
//! GPUs' time, the host's launches left out), and `gpu_ms_per_device`, each device's median (equal when the
//! shares cost the same); `compute_ms`, the median over 5 runs (after a warm-up) of the wall time from the first
//! launch to the last device's end with the batch resident on the devices; `solve_ms`, the median of 3 whole
//! solves from host arrays to host arrays (gathers, uploads, downloads and scatters, the copies overlapped with
//! the kernels); the speed-up or efficiency against one GPU of the same run; and whether the final states equal
//! the one-GPU ones bit for bit.
//!
//! `multigpu-bench weno GPUS [--quick]`: 3-D WENO5 advection (float64, SSP-RK3, periodic, `SlabAdvection`) on z
//! slabs. Weak scaling at 256^3 cells per GPU (128^3 with --quick), strong scaling at 512^3 (256^3). Per device
//! count: `step_ms`, the wall time of 10 steps after 2 warm-up steps, per step; cell updates per second; the
//! speed-up or efficiency against one GPU; for strong scaling, whether the field equals the one-GPU field bit
//! for bit.
//!
//! cargo run --release -p skc-bench --bin multigpu-bench -- ode 4

use skc_bench::timing::{median, JsonLine};
use skc_ode::config::Gains;
use skc_ode::ensemble::EnsembleSolver;
use skc_ode::program::SystemSource;
use skc_ode::sk::Options;
use skc_ode::{Config, ControllerKind, Method, Precision};
use skc_runtime::DeviceSet;
use skc_weno_gpu::slab::SlabAdvection;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn devices(count: usize) -> Result<DeviceSet> {
    DeviceSet::first(count).map_err(|e| format!("{count} GPU(s) asked for: {e}").into())
}

fn card(set: &DeviceSet) -> String {
    set.context(0).device().name.clone()
}

/// The peers' controller of ode-bench: I, safety 0.9, clamp [0.2, 10], no dead band.
fn lorenz_cfg(controller: ControllerKind) -> Config {
    let mut cfg = Config::new(Method::Tsit5, 1.0, 1e-3).with_controller(controller);
    cfg.gains = Gains { deadband_low: 1.0, deadband_high: 1.0, ..Gains::defaults(controller) };
    cfg.precision = Precision::F32;
    cfg.atol = 1e-6;
    cfg.rtol = 1e-6;
    cfg
}

fn lorenz_inputs(n: usize) -> (Vec<f32>, Vec<f32>) {
    let y0 = (0..n).flat_map(|_| [1.0f32, 0.0, 0.0]).collect();
    let rho = (0..n).map(|i| (21.0 * i as f64 / (n - 1) as f64) as f32).collect();
    (y0, rho)
}

/// One ODE measurement on some devices.
struct OdePoint {
    /// The slowest device's kernel time by its own events, median over the rounds.
    gpu_ms: f64,
    /// Each device's kernel time, median over the rounds (shows whether the shares cost the same).
    gpu_ms_per_device: Vec<f64>,
    compute_ms: f64,
    solve_ms: f64,
    final_state: Vec<f32>,
    card: String,
}

fn ode_point(count: usize, controller: ControllerKind, n: usize) -> Result<OdePoint> {
    let set = devices(count)?;
    let system = SystemSource::new(skc_ode::program::systems_dir().join("lorenz.sk"));
    let solver = EnsembleSolver::new(&set, &system, &lorenz_cfg(controller), &Options::default())?;
    let (y0, rho) = lorenz_inputs(n);
    let mut batch = solver.upload(&y0, &rho)?;
    solver.run(&mut batch)?;
    let mut compute = Vec::new();
    let mut gpu = Vec::new();
    let mut per_device = vec![Vec::new(); count];
    for _ in 0..5 {
        let timing = solver.run(&mut batch)?;
        compute.push(timing.wall_ms);
        // The slowest device's kernels by its own events: the GPUs' time without the host's launches.
        gpu.push(timing.device_ms.iter().copied().fold(0.0, f64::max));
        for (times, ms) in per_device.iter_mut().zip(&timing.device_ms) {
            times.push(*ms);
        }
    }
    drop(batch);
    let gpu_ms_per_device: Vec<f64> = per_device.iter().map(|t| median(t).unwrap_or(f64::NAN)).collect();
    if count > 1 {
        let shown: Vec<String> = gpu_ms_per_device.iter().map(|ms| format!("{ms:.3}")).collect();
        eprintln!("  N={n} gpus={count}: kernel ms per device {}", shown.join(" / "));
    }
    let mut solve = Vec::new();
    let mut final_state = Vec::new();
    for _ in 0..3 {
        let (solution, timing) = solver.solve(&y0, &rho)?;
        solve.push(timing.wall_ms);
        final_state = solution.final_state;
    }
    Ok(OdePoint {
        gpu_ms: median(&gpu).unwrap_or(f64::NAN),
        gpu_ms_per_device,
        compute_ms: median(&compute).unwrap_or(f64::NAN),
        solve_ms: median(&solve).unwrap_or(f64::NAN),
        final_state,
        card: card(&set),
    })
}

/// The device counts measured up to `gpus`: the powers of two, and `gpus` itself (1, 2, 4 on a 4-GPU machine).
fn device_counts(gpus: usize) -> Vec<usize> {
    let mut counts: Vec<usize> = (0..usize::BITS).map(|k| 1 << k).take_while(|&c| c <= gpus).collect();
    if gpus > 0 && !gpus.is_power_of_two() {
        counts.push(gpus);
    }
    counts
}

fn ode(gpus: usize, quick: bool) -> Result<()> {
    let strong_n = if quick { 1 << 23 } else { 1 << 25 };
    let per_gpu = if quick { 1 << 21 } else { 1 << 23 };
    for controller in [ControllerKind::Fixed, ControllerKind::I] {
        let name = if controller == ControllerKind::Fixed { "fixed" } else { "adaptive" };
        for scaling in ["strong", "weak"] {
            let mut base: Option<OdePoint> = None;
            for count in device_counts(gpus) {
                let n = if scaling == "strong" { strong_n } else { per_gpu * count };
                let point = ode_point(count, controller, n)?;
                let (ratio_gpu, ratio_compute, ratio_solve, equal) = match &base {
                    None => (1.0, 1.0, 1.0, true),
                    Some(one) => {
                        // Strong: speed-up t1 / tN; weak: efficiency t1 / tN (same work per GPU).
                        let equal = scaling == "weak"
                            || one.final_state.iter().zip(&point.final_state).all(|(a, b)| a.to_bits() == b.to_bits());
                        (
                            one.gpu_ms / point.gpu_ms,
                            one.compute_ms / point.compute_ms,
                            one.solve_ms / point.solve_ms,
                            equal,
                        )
                    }
                };
                let label = if scaling == "strong" { "speedup" } else { "efficiency" };
                let (gpu, compute, solve) = (point.gpu_ms, point.compute_ms, point.solve_ms);
                eprintln!(
                    "ode tsit5 {name} {scaling} N={n} gpus={count}: GPU {gpu:.3} ms ({label} {ratio_gpu:.3}), \
                     compute {compute:.2} ms ({label} {ratio_compute:.3}), \
                     solve {solve:.2} ms ({label} {ratio_solve:.3}), equal to one GPU: {equal}"
                );
                let mut line = JsonLine::measurement("skc", &format!("multigpu-ode-{scaling}"), &point.card);
                line.str("method", "tsit5").str("controller", name).int("N", n as u64).int("gpus", count as u64);
                line.str("shares", "blocks dealt in turn");
                line.num("gpu_ms", gpu).nums("gpu_ms_per_device", &point.gpu_ms_per_device);
                line.num("compute_ms", compute).num("solve_ms", solve);
                line.num(&format!("{label}_gpu"), ratio_gpu);
                line.num(&format!("{label}_compute"), ratio_compute).num(&format!("{label}_solve"), ratio_solve);
                line.str(
                    "equal_to_one_gpu",
                    if scaling == "weak" {
                        "n/a"
                    } else if equal {
                        "yes"
                    } else {
                        "no"
                    },
                );
                println!("{}", line.render());
                if !equal {
                    return Err(format!("{count} GPUs: final states differ from one GPU").into());
                }
                if base.is_none() {
                    base = Some(point);
                }
            }
        }
    }
    Ok(())
}

/// One WENO measurement: (ms per step, field after the steps if asked).
fn weno_point(count: usize, n: [usize; 3], keep: bool) -> Result<(f64, Option<Vec<f64>>, String)> {
    let set = devices(count)?;
    let mut run = SlabAdvection::new(&set, n, 3, 0.4)?;
    run.run(2)?;
    let steps = 10;
    let ms = run.run(steps)? / steps as f64;
    let field = if keep { Some(run.download()?) } else { None };
    Ok((ms, field, card(&set)))
}

fn weno(gpus: usize, quick: bool) -> Result<()> {
    let (weak_side, strong_side) = if quick { (128, 256) } else { (256, 512) };
    for scaling in ["weak", "strong"] {
        let mut base: Option<(f64, Option<Vec<f64>>)> = None;
        for count in device_counts(gpus) {
            let n = if scaling == "weak" {
                [weak_side, weak_side, weak_side * count]
            } else {
                [strong_side, strong_side, strong_side]
            };
            let keep = scaling == "strong";
            let (ms, field, card) = weno_point(count, n, keep)?;
            let cells = (n[0] * n[1] * n[2]) as f64;
            let (ratio, equal) = match &base {
                None => (1.0, true),
                Some((ms1, field1)) => {
                    let equal = match (field1, &field) {
                        (Some(a), Some(b)) => a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()),
                        _ => true,
                    };
                    (ms1 / ms, equal)
                }
            };
            if base.is_none() {
                base = Some((ms, field));
            }
            let label = if scaling == "strong" { "speedup" } else { "efficiency" };
            eprintln!(
                "weno5 {scaling} {}x{}x{} gpus={count}: {ms:.3} ms/step, {:.3e} cell-steps/s, {label} {ratio:.3}, \
                 equal to one GPU: {}",
                n[0],
                n[1],
                n[2],
                cells / (ms * 1e-3),
                if keep { equal.to_string() } else { "n/a".into() }
            );
            let mut line = JsonLine::measurement("skc", &format!("multigpu-weno-{scaling}"), &card);
            line.str("grid", &format!("{}x{}x{}", n[0], n[1], n[2])).int("gpus", count as u64);
            line.num("step_ms", ms).num("cell_steps_per_s", cells / (ms * 1e-3)).num(label, ratio);
            line.str(
                "equal_to_one_gpu",
                if !keep {
                    "n/a"
                } else if equal {
                    "yes"
                } else {
                    "no"
                },
            );
            println!("{}", line.render());
            if !equal {
                return Err(format!("{count} GPUs: the field differs from one GPU").into());
            }
        }
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let usage = "usage: multigpu-bench ode|weno GPUS [--quick]";
    let (Some(what), Some(gpus)) = (args.first(), args.get(1).and_then(|g| g.parse::<usize>().ok())) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let result = match what.as_str() {
        "ode" => ode(gpus, quick),
        "weno" => weno(gpus, quick),
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

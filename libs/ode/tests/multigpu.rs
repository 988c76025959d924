//! One batch over several GPUs against the same batch on one GPU (`cargo test -p skc-ode --features gpu-tests
//! --test multigpu`): final states, saves, statuses, counters, traces and summary metrics must be equal bit for
//! bit, for fixed and adaptive Tsit5 and summary metrics, on 1 .. SKC_GPUS devices (default 2); an adaptive sweep
//! whose cost rises along the batch is dealt to the devices in equal costs; a batch of fewer blocks than devices
//! leaves the last devices idle. Fails, never skips, when the host has fewer devices than SKC_GPUS.

use skc_ode::deal::{deal, Share};
use skc_ode::ensemble::EnsembleSolver;
use skc_ode::gpu::{OdeSolver, Real, Solution};
use skc_ode::program::SystemSource;
use skc_ode::sk::Options;
use skc_ode::summaries::{Metric, SummarySpec};
use skc_ode::{Config, ControllerKind, Method, Precision};
use skc_runtime::DeviceSet;

fn gpus_asked() -> usize {
    std::env::var("SKC_GPUS").ok().and_then(|v| v.parse().ok()).unwrap_or(2)
}

fn devices(count: usize) -> DeviceSet {
    DeviceSet::first(count).unwrap_or_else(|e| panic!("the multi-GPU tests ask for {count} GPU(s) (SKC_GPUS): {e}"))
}

fn lorenz() -> SystemSource {
    SystemSource::new(skc_ode::program::systems_dir().join("lorenz.sk"))
}

/// Runs not a multiple of the block, so that the last share ends inside a warp.
fn lorenz_inputs<T: Real>(n: usize) -> (Vec<T>, Vec<T>) {
    let y0 = (0..n).flat_map(|_| [1.0, 0.0, 0.0]).map(T::from_f64).collect();
    let rho = (0..n).map(|i| T::from_f64((28.0 * i as f64 / (n - 1) as f64) as f32 as f64)).collect();
    (y0, rho)
}

fn assert_same<T: Real>(label: &str, one: &Solution<T>, many: &Solution<T>) {
    let bits = |v: &[T]| v.iter().map(|x| x.to_f64().to_bits()).collect::<Vec<u64>>();
    assert_eq!(one.n_runs, many.n_runs, "{label}: runs");
    assert!(bits(&one.final_state) == bits(&many.final_state), "{label}: final states differ");
    assert!(bits(&one.saves) == bits(&many.saves), "{label}: saves differ");
    assert_eq!(one.status, many.status, "{label}: statuses");
    assert_eq!(one.attempted, many.attempted, "{label}: attempted steps");
    assert_eq!(one.rejected, many.rejected, "{label}: rejected steps");
    assert_eq!(one.newton_iters, many.newton_iters, "{label}: Newton iterations");
    let trace_bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
    assert!(trace_bits(&one.trace) == trace_bits(&many.trace), "{label}: traces differ");
    match (&one.summaries, &many.summaries) {
        (Some(a), Some(b)) => {
            assert_eq!((a.n_runs, a.n_windows, &a.names), (b.n_runs, b.n_windows, &b.names), "{label}: summaries");
            assert!(bits(&a.values) == bits(&b.values), "{label}: summary values differ");
        }
        (None, None) => {}
        _ => panic!("{label}: summaries on one side only"),
    }
}

/// The ensemble on 1 .. SKC_GPUS devices (with and without chunking) against OdeSolver on device 0.
fn check<T: Real>(label: &str, cfg: &Config, options: &Options, runs: usize) {
    let (y0, rho) = lorenz_inputs::<T>(runs);
    check_inputs(label, cfg, options, &y0, &rho);
}

/// [`check`] on given inputs; returns the one-GPU solution and the kernel's block size.
fn check_inputs<T: Real>(label: &str, cfg: &Config, options: &Options, y0: &[T], rho: &[T]) -> (Solution<T>, usize) {
    let ctx = devices(1).context(0).clone();
    let single = OdeSolver::new(&ctx, &lorenz(), cfg, options).unwrap();
    let one = single.solve::<T>(y0, rho).unwrap();
    assert!(one.status.iter().any(|s| !s.failed()), "{label}: every run failed");
    for count in 1..=gpus_asked() {
        let mut solver = EnsembleSolver::new(&devices(count), &lorenz(), cfg, options).unwrap();
        for chunks in [1, 3] {
            solver.set_chunks_per_device(chunks);
            let (many, timing) = solver.solve::<T>(y0, rho).unwrap();
            let label = format!("{label}, {count} GPU(s), {chunks} chunk(s) each");
            assert_same(&label, &one, &many);
            // The shares are the batch's blocks dealt in turn (empty past the last block).
            assert_eq!(timing.shares, deal(one.n_runs, count, single.block_size() as usize), "{label}");
            let runs: Vec<usize> = timing.shares.iter().map(Share::len).collect();
            eprintln!("{label}: equal; runs per device {runs:?}, {:.2} ms", timing.wall_ms);
        }
        let mut batch = solver.upload::<T>(y0, rho).unwrap();
        solver.run(&mut batch).unwrap();
        assert_same(&format!("{label}, {count} GPU(s), resident"), &one, &solver.download(&batch).unwrap());
    }
    (one, single.block_size() as usize)
}

#[test]
fn tsit5_fixed_and_adaptive_are_bit_identical_on_every_device_count() {
    for precision in [Precision::F32, Precision::F64] {
        for controller in [ControllerKind::Fixed, ControllerKind::I] {
            let mut cfg = Config::new(Method::Tsit5, 1.0, 1e-3).with_controller(controller);
            cfg.precision = precision;
            cfg.save_every = Some(0.25);
            let options = Options { trace_len: 64, ..Options::default() };
            let label = format!("Tsit5 {} {}", controller.name(), precision.name());
            match precision {
                Precision::F32 => check::<f32>(&label, &cfg, &options, 20_000 + 77),
                Precision::F64 => check::<f64>(&label, &cfg, &options, 20_000 + 77),
            }
        }
    }
}

#[test]
fn summary_metrics_are_bit_identical_on_every_device_count() {
    let mut cfg = Config::new(Method::DormandPrince5, 2.0, 1e-3).with_controller(ControllerKind::I);
    cfg.precision = Precision::F32;
    cfg.save_every = Some(0.125);
    cfg.summaries = Some(SummarySpec {
        settling: 0.25,
        state_names: vec!["x".into(), "y".into(), "z".into()],
        ..SummarySpec::new(Metric::all(3), vec![0, 1, 2], 0.015625, 0.125)
    });
    check::<f32>("DormandPrince5 I float32 with summaries", &cfg, &Options::default(), 5_000 + 3);
}

/// Lorenz with rho rising from 0 to 28 along the batch (the top fifth takes well over the steps of the bottom
/// fifth) and x0 varying from lane to lane (so the lanes of a warp disagree and the warp votes matter): every
/// device's share costs about the same number of steps, and the results stay those of one GPU bit for bit.
#[test]
fn a_sweep_whose_cost_rises_along_the_batch_is_dealt_evenly_and_stays_bit_identical() {
    let mut cfg = Config::new(Method::Tsit5, 1.0, 1e-3).with_controller(ControllerKind::I);
    cfg.precision = Precision::F32;
    cfg.save_every = Some(0.25);
    let options = Options { trace_len: 16, ..Options::default() };
    let runs = (1 << 17) + 77;
    let (mut y0, rho) = lorenz_inputs::<f32>(runs);
    for (i, state) in y0.chunks_mut(3).enumerate() {
        state[0] = 1.0 + 0.25 * (i % 5) as f32;
    }
    let (one, block) = check_inputs("Tsit5 I float32, rising cost", &cfg, &options, &y0, &rho);
    let steps = |runs: &mut dyn Iterator<Item = usize>| runs.map(|r| one.attempted[r] as f64).sum::<f64>();
    let fifth = runs / 5;
    let (low, high) = (steps(&mut (0..fifth)), steps(&mut (runs - fifth..runs)));
    eprintln!("attempted steps: bottom fifth {low}, top fifth {high} ({:.2}x)", high / low);
    assert!(high > 1.3 * low, "the sweep's cost does not rise along the batch: {low} then {high}");
    for count in 2..=gpus_asked() {
        let per_share: Vec<f64> = deal(runs, count, block)
            .iter()
            .map(|share| steps(&mut (0..share.len()).map(|l| share.batch_run(l))))
            .collect();
        let mean = per_share.iter().sum::<f64>() / count as f64;
        let worst = per_share.iter().map(|s| (s / mean - 1.0).abs()).fold(0.0, f64::max);
        eprintln!("{count} GPUs: attempted steps per share {per_share:?}, worst {:.2}% off the mean", 100.0 * worst);
        assert!(worst < 0.02, "{count} GPUs: shares of unequal cost {per_share:?}");
    }
}

/// Two blocks of 256 runs, the second partial: on 3 GPUs or more, the devices past the second get nothing.
#[test]
fn a_batch_of_fewer_blocks_than_devices_leaves_devices_idle() {
    let mut cfg = Config::new(Method::Tsit5, 1.0, 1e-3).with_controller(ControllerKind::I);
    cfg.precision = Precision::F32;
    check::<f32>("Tsit5 I float32, 300 runs", &cfg, &Options { trace_len: 8, ..Options::default() }, 300);
}

#[test]
fn asking_for_more_devices_than_the_host_has_fails_loudly() {
    let present = skc_runtime::device_count().expect("a CUDA driver");
    let error = DeviceSet::first(present + 1).err().expect("more devices than present must fail");
    assert!(error.to_string().contains("asked for"), "{error}");
}

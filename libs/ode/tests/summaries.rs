//! Summary metrics without a GPU: the chain the host chooses (fused metrics), the front end's verdict
//! on solver programs with summaries, the CPU reference of the loop against the recomputation from its saved
//! trajectories (several windows, many variables, settling), and the streaming updates on hand-made sequences
//! (plateaus and peaks across window boundaries, genuine zeros).

use skc_ode::program::{systems_dir, SolverProgram, SystemSource};
use skc_ode::reference::system::{Lorenz, Lorenz96};
use skc_ode::reference::{solve_batch, FsalVote};
use skc_ode::sk::Options;
use skc_ode::summaries::recompute::{compare, recompute};
use skc_ode::summaries::stream::SummaryState;
use skc_ode::summaries::{Layout, Metric, Part, SummarySpec, Unit};
use skc_ode::{Config, ControllerKind, Method, Precision};

fn all_metrics_spec(variables: Vec<usize>, ds: f64, window: f64) -> SummarySpec {
    SummarySpec::new(Metric::all(3), variables, ds, window)
}

#[test]
fn fused_metrics_are_chosen_when_all_parts_are_requested() {
    let spec = all_metrics_spec(vec![0, 1, 2], 0.01, 0.1);
    let layout = Layout::of(&spec);
    let units: Vec<Unit> = layout.units.iter().map(|(u, _)| *u).collect();
    assert_eq!(
        units,
        vec![
            Unit::Shifted,
            Unit::Extremes { max: true, min: true },
            Unit::Peaks { k: 3, negative: false },
            Unit::Peaks { k: 3, negative: true },
            Unit::Dxdt { max: true, min: true },
            Unit::D2xdt2 { max: true, min: true },
            Unit::History { second: true, level: true },
        ]
    );
    // max_magnitude is read from extrema; peaks, negative_peaks and the differences share one history.
    assert_eq!(layout.slots, 3 + 2 + 3 + 3 + 2 + 2 + 3);
    // 1 + 1 + 1 + 1 + 1 + 2 + 2 + 3 + 2 + 1 + 3 + 3 + 1 + 1 + 2 + 1 + 1 + 2 outputs per variable.
    assert_eq!(layout.outputs.len(), 29);
    // Written once each: mean, std, rms, max, min, max_magnitude, 3 + 3 peaks, 2 + 2 differences.
    assert_eq!(layout.columns.len(), 16);
    assert_eq!(layout.device_columns(3).len(), 3 * 29);
    let names = layout.names(&SummarySpec { state_names: vec!["x".into(), "y".into(), "z".into()], ..spec });
    for name in
        ["x.mean", "y.mean_std_rms.rms", "z.extrema.min", "x.peaks[3].2", "y.negative_peaks[3].0", "z.d2xdt2_max"]
    {
        assert!(names.contains(&name.to_string()), "{name} missing from {names:?}");
    }

    let layout_of = |metrics: &[&str]| {
        let metrics = metrics.iter().map(|m| Metric::parse(m).unwrap()).collect();
        Layout::of(&SummarySpec::new(metrics, vec![0], 0.1, 1.0))
    };
    let units_of = |metrics: &[&str]| layout_of(metrics).units.iter().map(|(u, _)| *u).collect::<Vec<_>>();
    assert_eq!(units_of(&["mean", "std"]), vec![Unit::Shifted]);
    assert_eq!(units_of(&["std", "rms"]), vec![Unit::Shifted]);
    assert_eq!(units_of(&["mean", "rms"]), vec![Unit::Sum, Unit::SumSquares]);
    assert_eq!(units_of(&["rms"]), vec![Unit::SumSquares]);
    assert_eq!(units_of(&["max", "min"]), vec![Unit::Extremes { max: true, min: true }]);
    assert_eq!(units_of(&["min"]), vec![Unit::Extremes { max: false, min: true }]);
    let history = |second| Unit::History { second, level: false };
    assert_eq!(units_of(&["dxdt_min", "dxdt_max"]), vec![Unit::Dxdt { max: true, min: true }, history(false)]);
    assert_eq!(units_of(&["d2xdt2_max"]), vec![Unit::D2xdt2 { max: true, min: false }, history(true)]);
    assert_eq!(layout_of(&["d2xdt2_min"]).slots, 3);
    assert_eq!(units_of(&["max_magnitude", "max"]), vec![Unit::MaxMagnitude, Unit::Extremes { max: true, min: false }]);
    assert_eq!(units_of(&["max_magnitude", "extrema"]), vec![Unit::Extremes { max: true, min: true }]);
    assert_eq!(
        units_of(&["dxdt_max", "negative_peaks[2]"]),
        vec![
            Unit::Dxdt { max: true, min: false },
            Unit::Peaks { k: 2, negative: true },
            Unit::History { second: false, level: true }
        ]
    );
    assert_eq!(layout_of(&["peaks[2]", "peaks[5]"]).units[0].0, Unit::Peaks { k: 5, negative: false });
    assert_eq!(Metric::parse("peaks[0]"), None);
    assert_eq!(Metric::parse("median"), None);
    assert_eq!(layout_of(&["rms", "mean"]).outputs.iter().map(|o| o.part).collect::<Vec<_>>(), [Part::Rms, Part::Mean]);
}

#[test]
fn bad_summary_settings_are_errors() {
    let mut cfg = Config::new(Method::Tsit5, 1.0, 1e-3);
    cfg.summaries = Some(all_metrics_spec(vec![0], 0.03, 0.1));
    assert!(cfg.validate().is_err(), "a window that is not a whole number of samples");
    cfg.summaries = Some(all_metrics_spec(vec![3], 0.01, 0.1));
    assert!(cfg.validate().is_ok());
    assert!(cfg.validate_for(3).is_err(), "variable 3 of a 3-state system");
    cfg.summaries = Some(all_metrics_spec(vec![1, 1], 0.01, 0.1));
    assert!(cfg.validate_for(3).is_err());
    cfg.summaries = Some(SummarySpec { settling: -1.0, ..all_metrics_spec(vec![1], 0.01, 0.1) });
    assert!(cfg.validate().is_err());
    cfg.summaries = Some(SummarySpec::new(Vec::new(), vec![0], 0.01, 0.1));
    assert!(cfg.validate().is_err());
    let err = SolverProgram::build(
        &SystemSource::new(systems_dir().join("lorenz.sk")),
        &Config { summaries: Some(all_metrics_spec(vec![5], 0.01, 0.1)), ..Config::new(Method::Tsit5, 1.0, 1e-3) },
        &Options::default(),
    )
    .err()
    .expect("variable 5 of Lorenz");
    assert!(err.rendered.contains("variable 5"), "{}", err.rendered);
}

/// Each metric alone, and a few pairs, in both precisions: the functions a program does not use must not leave
/// their types open.
#[test]
fn every_metric_alone_passes_the_front_end() {
    let lorenz = SystemSource::new(systems_dir().join("lorenz.sk"));
    let mut sets: Vec<Vec<Metric>> = Metric::all(2).into_iter().map(|m| vec![m]).collect();
    sets.push(vec![Metric::Mean, Metric::Rms]);
    sets.push(vec![Metric::DxdtMin, Metric::Max]);
    for precision in [Precision::F32, Precision::F64] {
        for metrics in &sets {
            let mut cfg = Config::new(Method::Tsit5, 1.0, 1e-3);
            cfg.precision = precision;
            cfg.summaries = Some(SummarySpec::new(metrics.clone(), vec![1], 0.01, 0.1));
            SolverProgram::build(&lorenz, &cfg, &Options::default())
                .unwrap_or_else(|e| panic!("{metrics:?} {precision:?}: {e}"));
        }
    }
}

#[test]
fn solver_programs_with_summaries_pass_the_front_end() {
    for precision in [Precision::F32, Precision::F64] {
        for (method, controller) in
            [(Method::Tsit5, ControllerKind::Fixed), (Method::DormandPrince5, ControllerKind::I)]
        {
            let mut cfg = Config::new(method, 1.0, 1e-3).with_controller(controller);
            cfg.precision = precision;
            cfg.summaries = Some(all_metrics_spec(vec![0, 1, 2], 0.01, 0.1));
            let program =
                SolverProgram::build(&SystemSource::new(systems_dir().join("lorenz.sk")), &cfg, &Options::default())
                    .unwrap_or_else(|e| panic!("{method} {controller:?} {precision:?}: {e}"));
            assert!(program.cuda.source.contains("summary_out"));
        }
    }
}

/// Reference runs with summaries against the recomputation from their own saved trajectories.
fn check_reference_loop(label: &str, sys: &dyn skc_ode::reference::System, cfg: &Config, y0: &[f64], p: &[f64]) {
    let spec = cfg.summaries.as_ref().unwrap();
    let batch = solve_batch(sys, y0, p, cfg, FsalVote::Warp).unwrap();
    let n = sys.n_states();
    let windows = spec.n_windows(cfg.duration);
    assert!(windows >= 4, "{label}: {windows} windows");
    let mut compared = 0;
    for (r, run) in batch.runs.iter().enumerate() {
        assert!(!run.status.failed(), "{label} run {r}: {:?}", run.status);
        let expected = recompute(spec, cfg.duration, &run.saves, n, cfg.save_every.unwrap()).unwrap();
        compared += compare(spec, &run.summaries, &expected, 1e-10, &format!("{label} run {r}")).unwrap();
    }
    assert_eq!(compared, batch.runs.len() * windows * spec.variables.len() * Layout::of(spec).outputs.len());
}

#[test]
fn reference_loop_summaries_match_the_recomputation_from_saved_trajectories() {
    let runs = 40;
    let y0: Vec<f64> = (0..runs).flat_map(|_| [1.0, 0.0, 0.0]).collect();
    let rho: Vec<f64> = (0..runs).map(|i| 28.0 * i as f64 / (runs - 1) as f64).collect();
    for (method, controller) in [(Method::Tsit5, ControllerKind::Fixed), (Method::DormandPrince5, ControllerKind::I)] {
        let mut cfg = Config::new(method, 2.0, 1e-3).with_controller(controller);
        cfg.save_every = Some(0.02);
        cfg.summaries = Some(all_metrics_spec(vec![0, 1, 2], 0.02, 0.2));
        check_reference_loop(&format!("lorenz {method}"), &Lorenz, &cfg, &y0, &rho);
    }
    // Eight variables of Lorenz-96 in another order, a settling time, exactly representable times.
    let n = 8;
    let y0: Vec<f64> = (0..runs).flat_map(|r| (0..n).map(move |i| if i == r % n { 8.01 } else { 8.0 })).collect();
    let forcing: Vec<f64> = (0..runs).map(|r| 4.0 + 0.1 * r as f64).collect();
    let mut cfg = Config::new(Method::DormandPrince5, 4.0, 1e-3);
    cfg.save_every = Some(0.0625);
    cfg.summaries = Some(SummarySpec { settling: 1.0, ..all_metrics_spec(vec![7, 0, 3, 5, 1, 2, 6, 4], 0.0625, 0.25) });
    check_reference_loop("lorenz96", &Lorenz96(n), &cfg, &y0, &forcing);
}

/// Hand-made sequences: plateaus (at the start, on peaks, across window boundaries), peaks whose detecting
/// sample opens the next window, genuine zeros (a peak of value 0.0 after a fall to it and a rise, which
/// CuBIE's 0.0 sentinel hides), more peaks than slots.
pub fn sequences() -> Vec<Vec<f64>> {
    let m = 4;
    let mut out = vec![
        // A zero peak: 0 is the second-previous value when the peak at index 2 (value 0) is tested in CuBIE.
        vec![-1.0, -2.0, 0.0, -1.0, 0.0, 0.0, -3.0, 0.0, 1.0, 0.0, 0.0, 0.0],
        // Plateau at the start (no peak), plateaus on the peaks, one straddling the window boundary (3 | 4).
        vec![2.0, 2.0, 2.0, 1.0, 3.0, 3.0, 3.0, 3.0, 1.0, 5.0, 5.0, 4.0],
        // A peak at the last sample of window 0, detected by the first of window 1; then many peaks.
        vec![0.0, 1.0, 2.0, 3.0, 2.0, 3.0, 2.0, 3.0, 2.0, 3.0, 2.0, 3.0],
        // Constant zero.
        vec![0.0; 12],
    ];
    // A sampled sine with exact zeros.
    out.push((0..12).map(|i| [0.0, 1.0, 0.0, -1.0][i % 4]).collect());
    assert!(out.iter().all(|s| s.len() == 3 * m));
    out
}

#[test]
fn streaming_updates_match_the_recomputation_on_plateaus_peaks_and_zeros() {
    let spec = SummarySpec::new(Metric::all(3), vec![0], 1.0, 4.0);
    let duration = 12.0;
    for (i, seq) in sequences().iter().enumerate() {
        let mut state = SummaryState::new(&spec);
        let mut rows = Vec::new();
        for v in seq {
            if let Some(row) = state.sample(&[*v]) {
                rows.extend(row);
            }
        }
        // As saves: the initial state (unused) then the samples.
        let saves: Vec<f64> = std::iter::once(f64::NAN).chain(seq.iter().copied()).collect();
        let expected = recompute(&spec, duration, &saves, 1, 1.0).unwrap();
        compare(&spec, &rows, &expected, 1e-12, &format!("sequence {i}")).unwrap();
        // The same in float32.
        let saves32: Vec<f32> = saves.iter().map(|v| *v as f32).collect();
        let expected32 = recompute(&spec, duration, &saves32, 1, 1.0).unwrap();
        let rows32: Vec<f32> = rows.iter().map(|v| *v as f32).collect();
        compare(&spec, &rows32, &expected32, 1e-6, &format!("sequence {i} float32")).unwrap();
    }
    // The first sequence: the zero peak at 2 (after -2), the plateau 0, 0 at 4..5 after -1 (a peak ending at 5),
    // the peak 1.0 at 8 after the rise -3, 0.0.
    let layout = Layout::of(&spec);
    let peak0 = layout.outputs.iter().position(|o| o.part == Part::Peak(0)).unwrap();
    let seq = &sequences()[0];
    let saves: Vec<f64> = std::iter::once(f64::NAN).chain(seq.iter().copied()).collect();
    let rows = recompute(&spec, duration, &saves, 1, 1.0).unwrap().values;
    let width = layout.outputs.len();
    let firsts: Vec<f64> = (0..3).map(|w| rows[w * width + peak0]).collect();
    assert_eq!(firsts, vec![2.0, 5.0, 8.0]);
    // The sine 0, 1, 0, -1, ...: its peak at 1 follows a 0.0, which CuBIE's `prev_prev != 0.0` test skips.
    let seq = &sequences()[4];
    let saves: Vec<f64> = std::iter::once(f64::NAN).chain(seq.iter().copied()).collect();
    let rows = recompute(&spec, duration, &saves, 1, 1.0).unwrap().values;
    assert_eq!(rows[peak0], 1.0);
}

#[test]
fn failed_runs_keep_their_completed_windows_and_mask_the_rest() {
    let runs = 256;
    let y0: Vec<f64> = (0..runs).flat_map(|_| [1.0, 0.0, 0.0]).collect();
    let rho: Vec<f64> = (0..runs).map(|i| (28.0 * i as f64 / (runs - 1) as f64) as f32 as f64).collect();
    let mut cfg = Config::new(Method::DormandPrince5, 2.0, 1e-3);
    cfg.save_every = Some(0.015625);
    cfg.summaries = Some(SummarySpec { settling: 0.25, ..all_metrics_spec(vec![0, 1, 2], 0.015625, 0.125) });
    // Half the runs stop at max_steps: the median of the steps they take without the limit.
    let unlimited = solve_batch(&Lorenz, &y0, &rho, &cfg, FsalVote::Warp).unwrap();
    let mut steps: Vec<u32> = unlimited.runs.iter().map(|r| r.attempted).collect();
    steps.sort();
    cfg.max_steps = steps[runs / 2];
    let spec = cfg.summaries.as_ref().unwrap();
    let batch = solve_batch(&Lorenz, &y0, &rho, &cfg, FsalVote::Warp).unwrap();
    let mut failed = 0;
    let mut partial = 0;
    for (r, run) in batch.runs.iter().enumerate() {
        let expected = recompute(spec, cfg.duration, &run.saves, 3, 0.015625).unwrap();
        compare(spec, &run.summaries, &expected, 1e-10, &format!("run {r}")).unwrap();
        if run.status.failed() {
            failed += 1;
            let nan = run.summaries.iter().filter(|v| v.is_nan()).count();
            assert!(nan > 0, "run {r} failed with every window complete");
            partial += (nan < run.summaries.len()) as usize;
        }
    }
    assert!(failed > 0 && failed < runs && partial > 0, "{failed} failed runs, {partial} with completed windows");
}

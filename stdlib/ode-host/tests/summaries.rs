//! Summary metrics (issue 7) without a GPU: the chain the host chooses (fused metrics), the front end's verdict
//! on solver programs with summaries, the CPU reference of the loop against the recomputation from its saved
//! trajectories (several windows, many variables, settling), and the streaming updates on hand-made sequences
//! (plateaus and peaks across window boundaries, genuine zeros).

use skc_ode::program::{systems_dir, SolverProgram, SystemSource};
use skc_ode::reference::system::{Lorenz, Lorenz96};
use skc_ode::reference::{solve_batch, FsalVote};
use skc_ode::sk::Options;
use skc_ode::summaries::recompute::recompute;
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
            Unit::MaxMagnitude,
            Unit::Peaks { k: 3, negative: false },
            Unit::Peaks { k: 3, negative: true },
            Unit::Dxdt { max: true, min: true },
            Unit::D2xdt2 { max: true, min: true },
        ]
    );
    assert_eq!(layout.slots, 3 + 2 + 1 + 6 + 6 + 3 + 4);
    // 1 + 1 + 1 + 1 + 1 + 2 + 2 + 3 + 2 + 1 + 3 + 3 + 1 + 1 + 2 + 1 + 1 + 2 outputs per variable.
    assert_eq!(layout.outputs.len(), 29);
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
    assert_eq!(units_of(&["dxdt_min", "dxdt_max"]), vec![Unit::Dxdt { max: true, min: true }]);
    assert_eq!(units_of(&["d2xdt2_max"]), vec![Unit::D2xdt2 { max: true, min: false }]);
    assert_eq!(layout_of(&["d2xdt2_min"]).slots, 3);
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

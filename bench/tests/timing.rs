//! The host side of `skc_bench::timing` (no GPU): medians, the validity of a sample against the spinner, the
//! timing fields and the JSON line a measurement prints, and the UTC date; that the spinner compiles (NVRTC, as
//! `scripts/test.sh`), and that the launch it times passes `ode_solve` the parameters of its emitted signature.

use skc_bench::timing::{
    median, solver_scalars, utc_of, HiddenSample, JsonLine, Measurement, SOLVER_LEADING_VECTORS, SPINNER_CUDA,
    VALID_FRACTION,
};
use skc_ode::gpu::Real;
use skc_ode::program::{systems_dir, SolverProgram, SystemSource};
use skc_ode::sk::Options;
use skc_ode::summaries::{Metric, SummarySpec};
use skc_ode::{Config, ControllerKind, Method, Precision};
use skc_runtime::{ParamType, Program};

#[test]
fn median_of_odd_and_even_counts_ignores_nan() {
    assert_eq!(median(&[]), None);
    assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
    assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
    assert_eq!(median(&[f64::NAN, 5.0]), Some(5.0));
}

#[test]
fn a_sample_is_valid_only_when_its_enqueue_ends_well_inside_the_spinner() {
    let spinner_ms = 30.0;
    let sample = |enqueue_ms| HiddenSample { gpu_ms: 1.0, enqueue_ms };
    assert!(sample(1.0).valid(spinner_ms));
    assert!(sample(VALID_FRACTION * spinner_ms - 0.01).valid(spinner_ms));
    assert!(!sample(VALID_FRACTION * spinner_ms).valid(spinner_ms));
    assert!(!sample(45.0).valid(spinner_ms));
}

#[test]
fn a_measurement_reports_the_median_of_its_valid_samples_only() {
    let m = Measurement {
        samples: vec![
            HiddenSample { gpu_ms: 2.0, enqueue_ms: 0.5 },
            HiddenSample { gpu_ms: 9.0, enqueue_ms: 40.0 },
            HiddenSample { gpu_ms: 2.2, enqueue_ms: 0.4 },
            HiddenSample { gpu_ms: 2.4, enqueue_ms: 0.6 },
        ],
        waits_ms: vec![10.0, 12.0, 11.0, 13.0],
        spinner_ms: 30.0,
    };
    assert_eq!(m.valid_gpu_ms(), vec![2.0, 2.2, 2.4]);
    assert_eq!(m.gpu_ms(), Some(2.2));
    assert_eq!(m.wait_ms(), Some(11.5));
    let mut line = JsonLine::default();
    m.write(&mut line);
    assert_eq!(
        line.render(),
        "{\"gpu_ms\":2.2,\"wait_ms\":11.5,\"runs\":4,\"valid_runs\":3,\"enqueue_ms_max\":40.0,\"spinner_ms\":30.0,\
         \"gpu_ms_all\":[2.0,9.0,2.2,2.4],\"wait_ms_all\":[10.0,12.0,11.0,13.0]}"
    );
}

#[test]
fn no_valid_sample_gives_a_null_gpu_time() {
    let m = Measurement {
        samples: vec![HiddenSample { gpu_ms: 3.0, enqueue_ms: 31.0 }],
        waits_ms: vec![],
        spinner_ms: 30.0,
    };
    assert_eq!(m.gpu_ms(), None);
    let mut line = JsonLine::default();
    m.write(&mut line);
    assert!(line.render().starts_with("{\"gpu_ms\":null,\"wait_ms\":null,\"runs\":1,\"valid_runs\":0,"));
}

#[test]
fn json_lines_escape_strings_and_write_non_finite_numbers_as_null() {
    let mut line = JsonLine::default();
    line.str("peer", "skc \"x\"\\\n").num("a", 1e-6).num("b", f64::NAN).opt_num("c", None).int("N", 1 << 20);
    assert_eq!(line.render(), "{\"peer\":\"skc \\\"x\\\"\\\\\\u000a\",\"a\":1e-6,\"b\":null,\"c\":null,\"N\":1048576}");
}

#[test]
fn a_measurement_line_starts_with_peer_bench_card_and_date() {
    let rendered = JsonLine::measurement("skc", "lorenz-sweep", "NVIDIA H200").render();
    assert!(rendered.starts_with("{\"peer\":\"skc\",\"bench\":\"lorenz-sweep\",\"card\":\"NVIDIA H200\",\"date\":\""));
    assert!(rendered.ends_with("Z\"}"));
}

#[test]
fn utc_dates_follow_the_calendar() {
    assert_eq!(utc_of(0), "1970-01-01T00:00:00Z");
    assert_eq!(utc_of(951_782_400), "2000-02-29T00:00:00Z");
    assert_eq!(utc_of(1_795_772_096), "2026-11-27T09:34:56Z");
    assert_eq!(utc_of(4_107_542_399), "2100-02-28T23:59:59Z");
}

#[test]
fn the_spinner_compiles() {
    let out = skc_nvrtc::compile(SPINNER_CUDA, "spinner.cu", &skc_nvrtc::CompileOptions::for_arch("sm_90"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(out.resources.iter().any(|r| r.is_entry && r.name.contains("spin")), "{:?}", out.resources);
}

/// `launch_solver`'s arguments against the emitted `ode_solve`: 7 vectors, the scalars by name and type, the
/// summaries' vector.
fn check_solver_arguments<T: Real>(cfg: &Config) {
    let system = SystemSource::new(systems_dir().join("lorenz.sk"));
    let built = SolverProgram::build(&system, cfg, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let program = Program::from_output(&built.name, &built.cuda);
    let params = &program.kernel("ode_solve").expect("ode_solve").params;
    let scalars = solver_scalars::<T>(cfg, 1000);
    assert_eq!(params.len(), SOLVER_LEADING_VECTORS + scalars.len() + 1, "{params:?}");
    for p in &params[..SOLVER_LEADING_VECTORS] {
        assert!(matches!(p.ty, ParamType::Vector { .. }), "{p:?}");
    }
    for (p, (name, value)) in params[SOLVER_LEADING_VECTORS..].iter().zip(&scalars) {
        assert_eq!(p.name, *name);
        assert_eq!(p.ty, ParamType::Scalar(value.scalar_type()), "{name}");
    }
    let last = params.last().expect("a parameter");
    assert_eq!(last.name, "summary_out");
    assert!(matches!(last.ty, ParamType::Vector { .. }));
}

#[test]
fn the_timed_launch_passes_ode_solve_its_parameters() {
    let mut cfg = Config::new(Method::Tsit5, 1.0, 1e-3).with_controller(ControllerKind::I);
    check_solver_arguments::<f64>(&cfg);
    cfg.precision = Precision::F32;
    check_solver_arguments::<f32>(&cfg);
    cfg.summaries = Some(SummarySpec::new(vec![Metric::Mean], vec![0], 0.01, 0.1));
    check_solver_arguments::<f32>(&cfg);
    let fixed = Config {
        precision: Precision::F32,
        ..Config::new(Method::Tsit5, 1.0, 1e-3).with_controller(ControllerKind::Fixed)
    };
    check_solver_arguments::<f32>(&fixed);
}

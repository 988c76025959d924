//! The summary metric code of `stdlib/metrics` as skc emits it, compiled for the host with a C++ compiler (a
//! few lines of shims for the CUDA built-ins, one lane per warp) and run against the recomputation from saved
//! samples: the chain alone on hand-made sequences (plateaus, peaks across window boundaries, genuine zeros),
//! and whole solver programs with all 18 metrics (fixed and adaptive, float32 and float64, a settling time).
//! No GPU needed; needs `c++` (or `$CXX`), and with `SKC_REQUIRE_CXX=1` a missing compiler fails the test.

use std::process::Command;

use skc_ode::program::{summary_probe, systems_dir, SolverProgram, SystemSource};
use skc_ode::sk::Options;
use skc_ode::summaries::recompute::{compare, recompute, Float};
use skc_ode::summaries::{Layout, Metric, Summaries, SummarySpec};
use skc_ode::{Config, ControllerKind, Method, Precision};

mod common;

/// Reads `n` values of `T` from the input file.
const TAKE: &str = r#"
template <class T> static std::vector<T> take(FILE* f, size_t n) {
  std::vector<T> v(n ? n : 1); if (n && fread(v.data(), sizeof(T), n, f) != n) exit(3); return v; }
"#;

/// The chain alone: `summary_probe_run` over runs x samples x states.
const PROBE_MAIN: &str = r#"
int main(int argc, char** argv) {
  FILE* in = fopen(argv[1], "rb");
  int dims[3]; if (fread(dims, sizeof(int), 3, in) != 3) return 2;
  int runs = dims[0], in_len = dims[1], out_len = dims[2];
  std::vector<REAL> samples = take<REAL>(in, in_len);
  fclose(in);
  std::vector<REAL> out(out_len + 1);
  for (int r = 0; r < runs; r++) { blockIdx.x = r; summary_probe_run(samples.data(), out.data(), runs); }
  FILE* f = fopen(argv[2], "wb"); fwrite(out.data(), sizeof(REAL), out_len, f); fclose(f);
  return 0;
}
"#;

/// A solver program: `ode_solve` with its scalars, returning saves, status and summaries.
const SOLVE_MAIN: &str = r#"
int main(int argc, char** argv) {
  FILE* in = fopen(argv[1], "rb");
  int dims[5]; if (fread(dims, sizeof(int), 5, in) != 5) return 2;
  int runs = dims[0], n = dims[1], np = dims[2], n_saves = dims[3], summary_len = dims[4];
  std::vector<double> d = take<double>(in, 20);
  std::vector<REAL> y0 = take<REAL>(in, (size_t)runs * n), params = take<REAL>(in, (size_t)runs * np);
  fclose(in);
  std::vector<REAL> y_final((size_t)runs * n), saves((size_t)runs * n_saves * n + 1), summaries(summary_len + 1);
  std::vector<int> status(runs), counters(3 * runs);
  std::vector<double> trace(1);
  for (int r = 0; r < runs; r++) {
    blockIdx.x = r;
    ode_solve(y0.data(), params.data(), y_final.data(), saves.data(), status.data(), counters.data(), trace.data(),
              runs, n_saves, d[0], d[1], d[2], d[3], d[4], d[5], (int)d[6], (REAL)d[7], (REAL)d[8], (REAL)d[9],
              (REAL)d[10], (REAL)d[11], (REAL)d[12], (REAL)d[13], (REAL)d[14], (REAL)d[15], (REAL)d[16], (REAL)d[17],
              d[18], (int)d[19], summaries.data());
  }
  FILE* out = fopen(argv[2], "wb");
  fwrite(saves.data(), sizeof(REAL), saves.size() - 1, out);
  fwrite(summaries.data(), sizeof(REAL), summary_len, out);
  fwrite(status.data(), sizeof(int), runs, out);
  fclose(out);
  return 0;
}
"#;

/// Compiles `source` with `main` for `REAL`, feeds it `input`, returns its output bytes.
fn run_host(cxx: &str, label: &str, source: &str, main: &str, precision: Precision, input: &[u8]) -> Vec<u8> {
    let source = common::host_source(source);
    let real = if precision == Precision::F32 { "float" } else { "double" };
    let dir = common::work_dir("skc-ode-summaries");
    let stem = label.replace([' ', '/', '[', ']'], "_");
    let cpp = dir.join(format!("{stem}.cpp"));
    std::fs::write(&cpp, format!("#define REAL {real}\n{}\n{TAKE}\n{source}\n{main}", common::CUDA_HOST_SHIM)).unwrap();
    let exe = dir.join(&stem);
    let out = Command::new(cxx).args(["-O1", "-ffp-contract=off", "-w", "-o"]).arg(&exe).arg(&cpp).output().unwrap();
    assert!(out.status.success(), "{label}: {}", String::from_utf8_lossy(&out.stderr));
    let (input_path, output_path) = (dir.join(format!("{stem}.in")), dir.join(format!("{stem}.out")));
    std::fs::write(&input_path, input).unwrap();
    let status = Command::new(&exe).arg(&input_path).arg(&output_path).status().unwrap();
    assert!(status.success(), "{label}: the host program failed");
    std::fs::read(&output_path).unwrap()
}

fn put_reals(bytes: &mut Vec<u8>, values: &[f64], precision: Precision) {
    for v in values {
        match precision {
            Precision::F32 => bytes.extend((*v as f32).to_le_bytes()),
            Precision::F64 => bytes.extend(v.to_le_bytes()),
        }
    }
}

fn reals<T: Float>(data: &[u8], at: &mut usize, count: usize) -> Vec<T> {
    let size = std::mem::size_of::<T>();
    let v = (0..count)
        .map(|i| {
            let b = &data[*at + i * size..*at + (i + 1) * size];
            T::of(if size == 4 {
                f32::from_le_bytes(b.try_into().unwrap()) as f64
            } else {
                f64::from_le_bytes(b.try_into().unwrap())
            })
        })
        .collect();
    *at += count * size;
    v
}

/// Hand-made sequences of 12 samples (3 windows of 4): a zero peak, plateaus at the start and across the
/// window boundary, a peak at a window's last sample, many peaks, zeros, a sampled sine with exact zeros
/// (its peak at sample 1 follows a 0.0, which CuBIE's sentinel test hides).
fn sequences() -> Vec<[f64; 12]> {
    vec![
        [-1.0, -2.0, 0.0, -1.0, 0.0, 0.0, -3.0, 0.0, 1.0, 0.0, 0.0, 0.0],
        [2.0, 2.0, 2.0, 1.0, 3.0, 3.0, 3.0, 3.0, 1.0, 5.0, 5.0, 4.0],
        [0.0, 1.0, 2.0, 3.0, 2.0, 3.0, 2.0, 3.0, 2.0, 3.0, 2.0, 3.0],
        [0.0; 12],
        [0.0, 1.0, 0.0, -1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 1.0, 0.0, -1.0],
    ]
}

fn probe<T: Float>(cxx: &str, precision: Precision) {
    let seqs = sequences();
    // Three variables per run: the sequence, its negation and its double, summarised in the order 2, 0, 1.
    let n = 3;
    let spec = SummarySpec::new(Metric::all(3), vec![2, 0, 1], 1.0, 4.0);
    let duration = 12.0;
    let cuda = summary_probe(&spec, n, precision, duration).unwrap();
    let mut samples = Vec::new();
    for seq in &seqs {
        for v in seq {
            samples.extend([*v, -*v, 2.0 * *v]);
        }
    }
    let runs = seqs.len();
    let layout = Layout::of(&spec);
    let n_vars = spec.variables.len();
    let row = n_vars * layout.outputs.len();
    let out_len = runs * spec.n_windows(duration) * n_vars * layout.columns.len();
    let mut input = Vec::new();
    for v in [runs, samples.len(), out_len] {
        input.extend((v as i32).to_le_bytes());
    }
    put_reals(&mut input, &samples, precision);
    let label = format!("probe {}", precision.name());
    let data = run_host(cxx, &label, &cuda.source, PROBE_MAIN, precision, &input);
    let device: Vec<T> = reals(&data, &mut 0, out_len);
    let columns = layout.device_columns(n_vars);
    let actual =
        Summaries::from_device(runs, spec.n_windows(duration), vec![String::new(); row], &columns, &device).values;
    for r in 0..runs {
        // As saves: an unused initial state, then the samples.
        let saves: Vec<T> = std::iter::repeat_n(T::of(f64::NAN), n)
            .chain(samples[r * 36..(r + 1) * 36].iter().map(|v| T::of(*v)))
            .collect();
        let expected = recompute(&spec, duration, &saves, n, 1.0).unwrap();
        let per_run = spec.n_windows(duration) * row;
        compare(&spec, &actual[r * per_run..(r + 1) * per_run], &expected, 1e-6, &format!("{label} sequence {r}"))
            .unwrap();
    }
}

#[test]
fn the_chain_alone_matches_the_recomputation_on_hand_made_sequences() {
    let Some(cxx) = common::cxx_compiler("host emulation of the summaries") else { return };
    probe::<f64>(&cxx, Precision::F64);
    probe::<f32>(&cxx, Precision::F32);
}

/// Runs a solver program; checks status and, with saves at the sample times, the summaries against the
/// recomputation from the saved trajectories. Returns the summaries (runs x windows x outputs).
fn solve<T: Float>(cxx: &str, label: &str, cfg: &Config, system: &str, y0: &[f64], params: &[f64], n: usize) -> Vec<T> {
    let spec = cfg.summaries.as_ref().unwrap();
    let program = SolverProgram::build(&SystemSource::new(systems_dir().join(system)), cfg, &Options::default())
        .unwrap_or_else(|e| panic!("{label}: {e}"));
    let runs = y0.len() / n;
    let layout = Layout::of(spec);
    let n_vars = spec.variables.len();
    let row = n_vars * layout.outputs.len();
    let windows = spec.n_windows(cfg.duration);
    let summary_len = runs * windows * n_vars * layout.columns.len();
    let scalars = common::loop_scalars(cfg);
    let mut input = Vec::new();
    for v in [runs, n, params.len() / runs, cfg.n_saves(), summary_len] {
        input.extend((v as i32).to_le_bytes());
    }
    scalars.iter().for_each(|v| input.extend(v.to_le_bytes()));
    put_reals(&mut input, y0, cfg.precision);
    put_reals(&mut input, params, cfg.precision);
    let data = run_host(cxx, label, &program.cuda.source, SOLVE_MAIN, cfg.precision, &input);
    let mut at = 0;
    let saves: Vec<T> = reals(&data, &mut at, runs * cfg.n_saves() * n);
    let device: Vec<T> = reals(&data, &mut at, summary_len);
    let columns = layout.device_columns(n_vars);
    let summaries = Summaries::from_device(runs, windows, vec![String::new(); row], &columns, &device).values;
    let status: Vec<i32> =
        (0..runs).map(|r| i32::from_le_bytes(data[at + 4 * r..at + 4 * r + 4].try_into().unwrap())).collect();
    let per_save = cfg.n_saves() * n;
    let tol = if cfg.precision == Precision::F32 { 2e-5 } else { 1e-11 };
    let recomputable = cfg.save_every == Some(spec.sample_every);
    for r in 0..runs {
        assert_eq!(status[r], 0, "{label} run {r}");
        if !recomputable {
            continue;
        }
        let expected =
            recompute(spec, cfg.duration, &saves[r * per_save..(r + 1) * per_save], n, cfg.save_every.unwrap());
        let per_run = windows * row;
        compare(spec, &summaries[r * per_run..(r + 1) * per_run], &expected.unwrap(), tol, &format!("{label} run {r}"))
            .unwrap();
    }
    summaries
}

#[test]
fn solver_programs_with_all_metrics_match_the_recomputation() {
    let Some(cxx) = common::cxx_compiler("host emulation of the summaries") else { return };
    let runs = 8;
    let y0: Vec<f64> = (0..runs).flat_map(|_| [1.0, 0.0, 0.0]).collect();
    let rho: Vec<f64> = (0..runs).map(|i| 28.0 * i as f64 / (runs - 1) as f64).collect();
    for precision in [Precision::F64, Precision::F32] {
        for (method, controller) in
            [(Method::Tsit5, ControllerKind::Fixed), (Method::DormandPrince5, ControllerKind::I)]
        {
            let mut cfg = Config::new(method, 2.0, 1e-3).with_controller(controller);
            cfg.precision = precision;
            cfg.save_every = Some(0.015625);
            let mut spec = SummarySpec::new(Metric::all(3), vec![0, 1, 2], 0.015625, 0.125);
            spec.settling = 0.25;
            cfg.summaries = Some(spec);
            let label = format!("lorenz {method} {}", precision.name());
            match precision {
                Precision::F32 => drop(solve::<f32>(&cxx, &label, &cfg, "lorenz.sk", &y0, &rho, 3)),
                Precision::F64 => drop(solve::<f64>(&cxx, &label, &cfg, "lorenz.sk", &y0, &rho, 3)),
            }
        }
    }
}

/// Fixed steps whose grid holds every sample (dt = 2^-10, samples every 16 steps, settling 256 steps) take the
/// samples by step count: at the save landings when saves fall on the samples (checked against the
/// recomputation), inside the full-step loop when saves come once per window. Both give the same summaries.
fn grid_samples<T: Float>(cxx: &str, precision: Precision) {
    let runs = 8;
    let y0: Vec<f64> = (0..runs).flat_map(|_| [1.0, 0.0, 0.0]).collect();
    let rho: Vec<f64> = (0..runs).map(|i| 28.0 * i as f64 / (runs - 1) as f64).collect();
    let mut cfg = Config::new(Method::Tsit5, 2.0, 1.0 / 1024.0).with_controller(ControllerKind::Fixed);
    cfg.precision = precision;
    let mut spec = SummarySpec::new(Metric::all(3), vec![0, 1, 2], 0.015625, 0.125);
    spec.settling = 0.25;
    cfg.summaries = Some(spec);
    cfg.save_every = Some(0.015625);
    let label = format!("lorenz grid {}", precision.name());
    let at_landings = solve::<T>(cxx, &format!("{label}, saves at the samples"), &cfg, "lorenz.sk", &y0, &rho, 3);
    cfg.save_every = Some(0.125);
    let in_loop = solve::<T>(cxx, &format!("{label}, saves per window"), &cfg, "lorenz.sk", &y0, &rho, 3);
    assert_eq!(at_landings.len(), in_loop.len());
    for (i, (a, b)) in at_landings.iter().zip(&in_loop).enumerate() {
        let (a, b) = (a.to_f64(), b.to_f64());
        assert!((a - b).abs() <= 1e-5 * a.abs().max(1.0), "{label}: output {i}: {a} at landings, {b} in the loop");
    }
}

#[test]
fn fixed_steps_on_the_sample_grid_take_samples_by_step_count() {
    let Some(cxx) = common::cxx_compiler("host emulation of the summaries") else { return };
    grid_samples::<f64>(&cxx, Precision::F64);
    grid_samples::<f32>(&cxx, Precision::F32);
}

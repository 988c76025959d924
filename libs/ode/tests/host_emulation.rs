//! The emitted CUDA C of the solver kernels, compiled for the host with a C++ compiler (a few lines of shims for
//! the CUDA built-ins, one lane per warp) and run against the CPU reference: every method, fixed and adaptive,
//! float64 and float32, analytic and finite-difference Jacobians. It needs no GPU, so it checks in CI what the
//! GPU tests check on a device, short of the warp vote across lanes (here each lane is its own warp, which is
//! the per-thread decision). Each variant is built twice: without floating-point contraction (the reference's
//! own operations), and with `-ffp-contract=fast -march=native`, which fuses multiply-adds as NVRTC does on the
//! device (on a host with FMA) and so exercises the comparison rule of `tests/common/compare.rs` the way a GPU does.
//! Needs `c++` (or `$CXX`); with `SKC_REQUIRE_CXX=1` a missing compiler fails the test.
//!
//! It found a miscompilation that only the GPU showed otherwise: skc's C emitter gave nested short-circuit
//! temporaries the same name (`bool tmp1 = ...; if (tmp1) { bool tmp1 = ...; ... tmp1 = tmp1; }`).

use std::process::Command;

#[path = "common/compare.rs"]
mod compare;

use compare::{compare, KernelOutput};
use skc_ode::program::{systems_dir, SolverProgram, SystemSource};
use skc_ode::reference::system::{Lorenz, Lorenz96, VanDerPol};
use skc_ode::reference::{FsalVote, System};
use skc_ode::sk::Options;
use skc_ode::{Config, ControllerKind, JacobianKind, Method, Precision, Status, Tableau};

mod common;
use common::CUDA_HOST_SHIM as SHIM;

const MAIN: &str = r#"
template <class T> static std::vector<T> take(FILE* f, size_t n) { std::vector<T> v(n ? n : 1); if (n && fread(v.data(), sizeof(T), n, f) != n) exit(3); return v; }
int main(int argc, char** argv) {
  FILE* in = fopen(argv[1], "rb");
  int dims[5]; if (fread(dims, sizeof(int), 5, in) != 5) return 2;
  int runs = dims[0], n = dims[1], np = dims[2], n_saves = dims[3], trace_len = dims[4];
  std::vector<double> d = take<double>(in, 20);
  std::vector<REAL> y0 = take<REAL>(in, (size_t)runs * n), params = take<REAL>(in, (size_t)runs * np);
  fclose(in);
  std::vector<REAL> y_final((size_t)runs * n), saves((size_t)runs * n_saves * n + 1);
  std::vector<int> status(runs), counters(3 * runs);
  std::vector<double> trace((size_t)runs * trace_len + 1, 0.0);
  std::vector<REAL> summaries(1);  // no summaries here: tests/summaries_host.rs runs them
  for (int r = 0; r < runs; r++) {
    blockIdx.x = r;
    ode_solve(y0.data(), params.data(), y_final.data(), saves.data(), status.data(), counters.data(), trace.data(),
              runs, n_saves, d[0], d[1], d[2], d[3], d[4], d[5], (int)d[6], (REAL)d[7], (REAL)d[8], (REAL)d[9],
              (REAL)d[10], (REAL)d[11], (REAL)d[12], (REAL)d[13], (REAL)d[14], (REAL)d[15], (REAL)d[16], (REAL)d[17],
              d[18], (int)d[19], summaries.data());
  }
  FILE* out = fopen(argv[2], "wb");
  fwrite(y_final.data(), sizeof(REAL), y_final.size(), out);
  fwrite(saves.data(), sizeof(REAL), saves.size() - 1, out);
  fwrite(status.data(), sizeof(int), status.size(), out);
  fwrite(counters.data(), sizeof(int), counters.size(), out);
  fwrite(trace.data(), sizeof(double), trace.size() - 1, out);
  fclose(out);
  return 0;
}
"#;

struct HostRun {
    final_state: Vec<f64>,
    saves: Vec<f64>,
    status: Vec<Status>,
    counters: Vec<i32>,
    trace: Vec<f64>,
}

/// The two builds of every variant: exact operations, and fused multiply-adds where the compiler finds them.
const BUILDS: [(&str, &[&str]); 2] =
    [("exact", &["-O1", "-ffp-contract=off"]), ("contracted", &["-O2", "-ffp-contract=fast", "-march=native"])];

#[allow(clippy::too_many_arguments)]
fn run_on_host(
    cxx: &str,
    flags: &[&str],
    label: &str,
    system: &SystemSource,
    cfg: &Config,
    options: &Options,
    y0: &[f64],
    params: &[f64],
    n: usize,
    np: usize,
) -> HostRun {
    let program = SolverProgram::build(system, cfg, options).unwrap_or_else(|e| panic!("{label}: {e}"));
    let source = common::host_source(&program.cuda.source);
    for line in source.lines() {
        let t = line.trim().trim_end_matches(';');
        if let Some((a, b)) = t.split_once(" = ") {
            assert!(a != b || a.contains(' '), "{label}: self-assignment in the emitted C: {line}");
        }
    }
    let dir = common::work_dir("skc-ode-host");
    let stem = label.replace([' ', '/'], "_");
    let real = if cfg.precision == Precision::F32 { "float" } else { "double" };
    let cpp = dir.join(format!("{stem}.cpp"));
    std::fs::write(&cpp, format!("{SHIM}\n#define REAL {real}\n{source}\n{MAIN}")).unwrap();
    let exe = dir.join(&stem);
    let out = Command::new(cxx).args(flags).args(["-w", "-o"]).arg(&exe).arg(&cpp).output().unwrap();
    assert!(out.status.success(), "{label}: {}", String::from_utf8_lossy(&out.stderr));
    let runs = y0.len() / n;
    let scalars = common::loop_scalars(cfg);
    let mut bytes = Vec::new();
    for v in [runs, n, np, cfg.n_saves(), options.trace_len] {
        bytes.extend((v as i32).to_le_bytes());
    }
    scalars.iter().for_each(|v| bytes.extend(v.to_le_bytes()));
    let put = |bytes: &mut Vec<u8>, values: &[f64]| {
        for v in values {
            if cfg.precision == Precision::F32 {
                bytes.extend((*v as f32).to_le_bytes());
            } else {
                bytes.extend(v.to_le_bytes());
            }
        }
    };
    put(&mut bytes, y0);
    put(&mut bytes, params);
    let (input, output) = (dir.join(format!("{stem}.in")), dir.join(format!("{stem}.out")));
    std::fs::write(&input, bytes).unwrap();
    let status = Command::new(&exe).arg(&input).arg(&output).status().unwrap();
    assert!(status.success(), "{label}: the host program failed");
    let data = std::fs::read(&output).unwrap();
    // The program, its source and its files are this run's only: removed, so repeated runs do not fill the disk.
    for file in [&cpp, &exe, &input, &output] {
        let _ = std::fs::remove_file(file);
    }
    let mut at = 0;
    let mut reals = |count: usize| -> Vec<f64> {
        let size = if cfg.precision == Precision::F32 { 4 } else { 8 };
        let v = (0..count)
            .map(|i| {
                let b = &data[at + i * size..at + (i + 1) * size];
                if size == 4 {
                    f32::from_le_bytes(b.try_into().unwrap()) as f64
                } else {
                    f64::from_le_bytes(b.try_into().unwrap())
                }
            })
            .collect();
        at += count * size;
        v
    };
    let final_state = reals(runs * n);
    let saves = reals(runs * cfg.n_saves() * n);
    let ints = |at: usize, count: usize| -> Vec<i32> {
        (0..count).map(|i| i32::from_le_bytes(data[at + 4 * i..at + 4 * i + 4].try_into().unwrap())).collect()
    };
    let status = ints(at, runs);
    let counters = ints(at + 4 * runs, 3 * runs);
    let t0 = at + 16 * runs;
    let trace = (0..runs * options.trace_len)
        .map(|i| f64::from_le_bytes(data[t0 + 8 * i..t0 + 8 * i + 8].try_into().unwrap()))
        .collect();
    HostRun { final_state, saves, status: status.into_iter().map(|s| Status(s as u32)).collect(), counters, trace }
}

const TRACE: usize = 16384;

/// Runs the emitted kernel and the CPU reference (one lane per warp: the per-thread decision) and compares.
fn check_against_cpu<S: System>(cxx: &str, sys: &S, file: &str, cfg: &Config, y0: &[f64], params: &[f64]) -> String {
    let mut lines = Vec::new();
    for (build, flags) in BUILDS {
        let label = format!(
            "{file} {} {} {} {:?} {build}",
            cfg.method,
            cfg.controller.name(),
            cfg.precision.name(),
            cfg.jacobian
        );
        lines.push(check_build(cxx, flags, &label, sys, file, cfg, y0, params));
    }
    lines.join("\n")
}

#[allow(clippy::too_many_arguments)]
fn check_build<S: System>(
    cxx: &str,
    flags: &[&str],
    label: &str,
    sys: &S,
    file: &str,
    cfg: &Config,
    y0: &[f64],
    params: &[f64],
) -> String {
    let (n, np) = (sys.n_states(), sys.n_params());
    let options = Options { fsal_vote: true, trace_len: TRACE, ..Options::default() };
    let system = SystemSource::new(systems_dir().join(file));
    let host = run_on_host(cxx, flags, label, &system, cfg, &options, y0, params, n, np);
    let cast = |v: &[f64]| -> Vec<f64> {
        v.iter().map(|x| if cfg.precision == Precision::F32 { *x as f32 as f64 } else { *x }).collect()
    };
    let runs = y0.len() / n;
    let counter = |k: usize| -> Vec<u32> { (0..runs).map(|r| host.counters[3 * r + k] as u32).collect() };
    let output = KernelOutput {
        final_state: &host.final_state,
        saves: &host.saves,
        status: &host.status,
        attempted: &counter(0),
        rejected: &counter(1),
        newton_iters: &counter(2),
        trace: &host.trace,
        trace_len: TRACE,
    };
    let (y0, params) = (cast(y0), cast(params));
    let a = compare(label, sys, &y0, &params, cfg, FsalVote::PerThread, &output).unwrap_or_else(|e| panic!("{e}"));
    format!(
        "{label:<60} worst {:.1e}, diverging from the reference's own run {}/{} ({} decisions within margins)",
        a.worst_final, a.diverged, a.runs, a.flipped_decisions
    )
}

fn lorenz_inputs(n: usize) -> (Vec<f64>, Vec<f64>) {
    ((0..n).flat_map(|_| [1.0, 0.0, 0.0]).collect(), (0..n).map(|i| 21.0 * i as f64 / (n - 1) as f64).collect())
}

#[test]
fn explicit_kernels_match_the_cpu_reference() {
    let Some(cxx) = common::cxx_compiler("host emulation") else { return };
    let (y0, rho) = lorenz_inputs(24);
    let mut report = Vec::new();
    for method in Method::EXPLICIT {
        let mut controllers = vec![ControllerKind::Fixed];
        if Tableau::of(method).is_adaptive() {
            controllers.extend([
                ControllerKind::I,
                ControllerKind::PI,
                ControllerKind::PID,
                ControllerKind::Gustafsson,
            ]);
        }
        for controller in controllers {
            for precision in [Precision::F64, Precision::F32] {
                let mut cfg = Config::new(method, 1.0, if controller.is_adaptive() { 1e-3 } else { 1e-2 })
                    .with_controller(controller);
                cfg.precision = precision;
                if precision == Precision::F32 {
                    // At 1e-6 a float32 error estimate is mostly rounding: compare decisions where they mean something.
                    cfg = cfg.with_tolerances(1e-4, 1e-4);
                }
                if controller == ControllerKind::I {
                    cfg.save_every = Some(0.3);
                }
                report.push(check_against_cpu(&cxx, &Lorenz, "lorenz.sk", &cfg, &y0, &rho));
            }
        }
    }
    eprintln!("{}", report.join("\n"));
}

#[test]
fn implicit_kernels_match_the_cpu_reference() {
    let Some(cxx) = common::cxx_compiler("host emulation") else { return };
    let n = 8;
    let y0: Vec<f64> = (0..n).flat_map(|i| [1.0 + i as f64 / n as f64, 0.0]).collect();
    let mu: Vec<f64> = (0..n).map(|i| 10.0 + 990.0 * i as f64 / n as f64).collect();
    let mut report = Vec::new();
    for method in Method::IMPLICIT {
        let adaptive = Tableau::of(method).is_adaptive();
        for jacobian in [JacobianKind::Analytic, JacobianKind::FiniteDifferences] {
            let mut cfg = Config::new(method, if adaptive { 2.0 } else { 1.0 }, if adaptive { 1e-3 } else { 1e-2 });
            cfg.jacobian = jacobian;
            report.push(check_against_cpu(&cxx, &VanDerPol, "van_der_pol.sk", &cfg, &y0, &mu));
        }
        let mut cfg = Config::new(method, 1.0, 1e-2).with_tolerances(1e-4, 1e-4);
        cfg.precision = Precision::F32;
        let (y0, rho) = lorenz_inputs(8);
        report.push(check_against_cpu(&cxx, &Lorenz, "lorenz.sk", &cfg, &y0, &rho));
    }
    eprintln!("{}", report.join("\n"));
}

#[test]
fn eight_states_match_the_cpu_reference() {
    let Some(cxx) = common::cxx_compiler("host emulation") else { return };
    let sys = Lorenz96(8);
    let y0: Vec<f64> =
        (0..6).flat_map(|r| (0..8).map(move |s| if s == 0 { 8.01 + r as f64 * 1e-3 } else { 8.0 })).collect();
    let forcing = vec![8.0; 6];
    for method in [Method::Tsit5, Method::Vern7, Method::Kvaerno5] {
        let mut cfg = Config::new(method, 1.0, 1e-2);
        cfg.save_every = Some(0.25);
        eprintln!("{}", check_against_cpu(&cxx, &sys, "lorenz96.sk", &cfg, &y0, &forcing));
    }
}

//! Every stepper kernel variant compiles through NVRTC (sm_90) within its register budget: no spills and no
//! stack frame for systems of up to 8 states in float32 (Lorenz, 3 states; Lorenz-96, 8 states), for every
//! method with fixed and adaptive steps, analytic and finite-difference Jacobians, every controller, both FSAL
//! decisions and the step trace; float64 variants are compiled and reported, and hold the same budget where
//! they fit the register file. Needs NVRTC, no GPU: with `SKC_REQUIRE_NVRTC=1` a missing NVRTC fails the test.

use skc_nvrtc::CompileOptions;
use skc_ode::program::{SolverProgram, SystemSource};
use skc_ode::sk::Options;
use skc_ode::{Config, ControllerKind, JacobianKind, Method, Precision, Tableau};

fn system(name: &str) -> SystemSource {
    SystemSource::new(skc_ode::program::systems_dir().join(name))
}

struct Variant {
    label: String,
    system: SystemSource,
    n_states: usize,
    cfg: Config,
    options: Options,
}

fn variants() -> Vec<Variant> {
    let mut out = Vec::new();
    let systems = [("lorenz.sk", 3), ("lorenz96.sk", 8)];
    for method in Method::all() {
        let tableau = Tableau::of(method);
        let mut controllers = vec![ControllerKind::Fixed];
        if tableau.is_adaptive() {
            controllers.push(Config::new(method, 1.0, 1e-3).controller);
        }
        for precision in [Precision::F32, Precision::F64] {
            for (file, n) in systems {
                for &controller in &controllers {
                    let jacobians: &[JacobianKind] = if method.is_implicit() {
                        &[JacobianKind::Analytic, JacobianKind::FiniteDifferences]
                    } else {
                        &[JacobianKind::Analytic]
                    };
                    for &jacobian in jacobians {
                        let mut cfg = Config::new(method, 1.0, 1e-3).with_controller(controller);
                        cfg.precision = precision;
                        cfg.jacobian = jacobian;
                        let jac = if method.is_implicit() { format!(" {jacobian:?}") } else { String::new() };
                        out.push(Variant {
                            label: format!("{method} {} {} n={n}{jac}", controller.name(), precision.name()),
                            system: system(file),
                            n_states: n,
                            cfg,
                            options: Options::default(),
                        });
                    }
                }
            }
        }
    }
    // Every controller, the per-thread FSAL decision and the trace, on the default methods.
    for method in [Method::Tsit5, Method::Kvaerno5] {
        for controller in ControllerKind::ALL {
            for (fsal_vote, trace_len) in [(true, 0), (false, 64)] {
                let mut cfg = Config::new(method, 1.0, 1e-3).with_controller(controller);
                cfg.precision = Precision::F32;
                out.push(Variant {
                    label: format!("{method} {} float32 n=8 vote={fsal_vote} trace={trace_len}", controller.name()),
                    system: system("lorenz96.sk"),
                    n_states: 8,
                    cfg,
                    options: Options { fsal_vote, trace_len, ..Options::default() },
                });
            }
        }
    }
    out
}

/// f32 up to 8 states: no spill, no stack. f64: the same, except the DIRK matrices of 8 states in float64
/// (64 doubles for the LU alone), which are reported.
fn must_fit(v: &Variant) -> bool {
    v.cfg.precision == Precision::F32 || !(v.cfg.method.is_implicit() && v.n_states > 3)
}

#[test]
fn every_stepper_variant_compiles_within_its_budget() {
    if !skc_tests::require::nvrtc("the ODE register budgets") {
        return;
    }
    let mut report = Vec::new();
    let mut failures = Vec::new();
    let all = variants();
    for v in &all {
        let program = match SolverProgram::build(&v.system, &v.cfg, &v.options) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{}: {e}", v.label));
                continue;
            }
        };
        let options = CompileOptions { include_cubin: false, ..CompileOptions::default() };
        let out = match skc_nvrtc::compile(&program.cuda.source, "ode.cu", &options) {
            Ok(out) => out,
            Err(e) => {
                failures.push(format!("{}: NVRTC: {e}", v.label));
                continue;
            }
        };
        let Some(r) = out.resources.iter().find(|r| r.is_entry && r.name == "ode_solve") else {
            failures.push(format!("{}: no ode_solve in the ptxas report:\n{}", v.label, out.log));
            continue;
        };
        // Device functions left out of line: libdevice's internal helpers (float64 pow) are fine, ours are not.
        let functions = out.resources.iter().filter(|r| !r.is_entry && !r.name.contains("internal")).count();
        report.push(format!(
            "{:<56} {:>3} registers, stack {:>4} B, spills {:>4}/{:<4} B, {} device functions{}",
            v.label,
            r.registers,
            r.stack_frame_bytes,
            r.spill_store_bytes,
            r.spill_load_bytes,
            functions,
            if must_fit(v) { "" } else { " (reported)" }
        ));
        if must_fit(v) && (r.spill_bytes() > 0 || r.stack_frame_bytes > 0 || functions > 0) {
            failures.push(format!(
                "{}: {} registers, {} B stack, {} B spills, {} non-inlined functions",
                v.label,
                r.registers,
                r.stack_frame_bytes,
                r.spill_bytes(),
                functions
            ));
        }
        if out.log.contains("warning") {
            failures.push(format!("{}: NVRTC warnings:\n{}", v.label, out.log));
        }
    }
    eprintln!("{}\n{} variants", report.join("\n"), all.len());
    assert!(failures.is_empty(), "{} of {} variants failed:\n{}", failures.len(), all.len(), failures.join("\n"));
}

//! The generated modules of `stdlib/ode/` are up to date with the tableaus (regenerate with `SKC_ODE_BLESS=1`),
//! every module there checks alone, and a user's program in `.sk` compiles to the host's kernel.

use skc_core::session::{DiskFiles, Session};
use skc_ode::program::{SolverProgram, SystemSource};
use skc_ode::sk::{generated_modules, stdlib_dir, Options};
use skc_ode::{Config, ControllerKind, Method, Precision};

#[test]
fn generated_modules_are_current() {
    let bless = std::env::var("SKC_ODE_BLESS").map(|v| v == "1").unwrap_or(false);
    let mut stale = Vec::new();
    for (name, text) in generated_modules() {
        let path = stdlib_dir().join(name);
        if bless {
            std::fs::write(&path, &text).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            stale.push(name);
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated modules {stale:?}: run SKC_ODE_BLESS=1 cargo test -p skc-ode --test sk_modules"
    );
}

/// Every module of `stdlib/ode` and `stdlib/metrics` checks and emits alone, with its parameters' defaults (the
/// system, the method, the stepper family and the summary layout included), as `skc check stdlib/ode/<file>.sk`
/// does.
#[test]
fn every_module_of_stdlib_ode_and_metrics_checks_alone() {
    let mut names: Vec<_> = [stdlib_dir(), stdlib_dir().join("../metrics")]
        .iter()
        .flat_map(|dir| std::fs::read_dir(dir).unwrap().flatten())
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "sk"))
        .collect();
    names.sort();
    assert!(names.len() >= 12, "stdlib/ode and stdlib/metrics have {} modules", names.len());
    let files = DiskFiles::new();
    let mut failures = Vec::new();
    for path in &names {
        let text = std::fs::read_to_string(path).unwrap();
        if let Err(e) = Session::standard(&files).compile(&path.display().to_string(), &text) {
            failures.push(format!("{}: {e}", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A user's program in `.sk` (`libs/ode/examples/lorenz_solver.sk`: float32, Tsit5, PI, its `rhs` given to the
/// `open`) compiles to the kernel the host API builds for the same choices from a system file with that `rhs`.
#[test]
fn a_users_program_compiles_to_the_kernel_the_host_builds() {
    let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/lorenz_solver.sk");
    let text = std::fs::read_to_string(&example).unwrap();
    let files = DiskFiles::new();
    let user = Session::standard(&files).compile(&example.display().to_string(), &text).unwrap();
    let (rhs_start, rhs_end) = (text.find("let lorenz_rhs").unwrap(), text.find("open Ode_solve").unwrap());
    let dir = std::env::temp_dir().join(format!("skc-ode-user-program-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let system = dir.join("lorenz.sk");
    let system_text =
        format!("open Ode_solve (n_states = 3, n_params = 1, rhs = lorenz_rhs)\n\n{}", &text[rhs_start..rhs_end]);
    std::fs::write(&system, system_text).unwrap();
    let mut cfg = Config::new(Method::Tsit5, 1.0, 1e-3).with_controller(ControllerKind::PI);
    cfg.precision = Precision::F32;
    cfg.save_every = Some(0.1);
    // skc's default emission, as the user's session has it.
    let options = Options { full_warps: false, ..Options::default() };
    let host = SolverProgram::build(&SystemSource::new(&system), &cfg, &options).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(user.cuda.source.contains("__global__ void ode_solve(const float*"), "the float32 solver kernel");
    // The C after the header comment (which names the root file), `#line` directives aside, as sorted lines: the
    // items come in the order their modules load, which the two roots open differently.
    let body = |c: &str| -> Vec<String> {
        let mut lines: Vec<String> =
            c.lines().skip(1).filter(|l| !l.starts_with("#line")).map(str::to_string).collect();
        lines.sort();
        lines
    };
    let (user, host) = (body(&user.cuda.source), body(&host.cuda.source));
    let differ: Vec<String> = user
        .iter()
        .zip(&host)
        .enumerate()
        .filter(|(_, (u, h))| u != h)
        .take(5)
        .map(|(i, (u, h))| format!("line {i}:\n  user: {u}\n  host: {h}"))
        .collect();
    assert!(differ.is_empty() && user.len() == host.len(), "{}", differ.join("\n"));
}

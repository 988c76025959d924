//! `skc run FILE.sk --kernel NAME --grid X[,Y,Z] --block X[,Y,Z] [--shared BYTES] [--args ARGS.json]`: runs one
//! kernel and prints the vectors it writes as JSON (to stdout, or `--out FILE.json`, or one `.npy` per vector into
//! `--out DIR/`). The interpreter (`skc-interp`) runs it on the CPU with every check (divergence, races, bounds,
//! hangs; its reports print like compile errors); `--gpu` runs it on a GPU through skc-runtime in a binary built
//! with the `gpu` feature. Without `--interp` or `--gpu`, the GPU is used when one is found.
//!
//! Exit status: 0 clean, 1 errors in the program (compile errors, or reports of the run), 2 usage or I/O errors.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use skc_core::{Checked, Severity};
use skc_interp::{args as run_args, launch, Arg, Geometry, Options, Program, Schedule};

use crate::check::check_file;
use crate::output::{print_diagnostics, print_summary};
use crate::FrontendArgs;

#[derive(Args)]
pub struct RunArgs {
    /// The `.sk` file.
    pub file: PathBuf,
    /// The kernel to launch.
    #[arg(long)]
    pub kernel: String,
    /// Blocks in the grid: X, X,Y or X,Y,Z.
    #[arg(long, value_parser = parse_dims)]
    pub grid: [u32; 3],
    /// Threads per block: X, X,Y or X,Y,Z.
    #[arg(long, value_parser = parse_dims)]
    pub block: [u32; 3],
    /// Bytes of dynamic shared memory.
    #[arg(long, default_value_t = 0)]
    pub shared: u32,
    /// The arguments: a JSON object by parameter name (see docs/interp.md); `.npy` files named in it are read
    /// relative to it.
    #[arg(long = "args")]
    pub args_file: Option<PathBuf>,
    /// Run on the CPU interpreter.
    #[arg(long, conflicts_with = "gpu")]
    pub interp: bool,
    /// Run on the GPU (skc-runtime).
    #[arg(long)]
    pub gpu: bool,
    /// The interpreter's interleaving of threads: in-order, reversed or random:SEED.
    #[arg(long, default_value = "in-order", value_parser = parse_schedule)]
    pub schedule: Schedule,
    /// Run a program the convergence analysis rejects (to watch its divergence happen).
    #[arg(long)]
    pub no_check: bool,
    /// Write the written vectors to FILE.json, or as NAME.npy files into DIR/.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Instructions one thread may execute before the interpreter reports a hang.
    #[arg(long)]
    pub steps: Option<u64>,
    /// Do not look for data races (faster; less memory).
    #[arg(long)]
    pub no_races: bool,
    /// The architecture whose resource limits the program must fit (as `skc check --arch`).
    #[arg(long, default_value = "sm_90")]
    pub arch: String,
    #[command(flatten)]
    pub frontend: FrontendArgs,
}

fn parse_dims(text: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{text}`: give X, X,Y or X,Y,Z"));
    }
    let mut dims = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        dims[i] = p.parse().map_err(|_| format!("`{p}` is not a positive whole number"))?;
        if dims[i] == 0 {
            return Err("extents must be at least 1".into());
        }
    }
    Ok(dims)
}

fn parse_schedule(text: &str) -> Result<Schedule, String> {
    text.parse()
}

/// Which machine runs the kernel.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Backend {
    Interpreter,
    Gpu,
}

pub fn run(args: &RunArgs) -> ExitCode {
    match run_inner(args) {
        Ok(code) => code,
        Err(message) => {
            errln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run_inner(args: &RunArgs) -> Result<ExitCode, String> {
    let checked = check_file(&args.file, &args.arch, &args.frontend)?;
    if !front_end_allows_running(&checked, args) {
        return Ok(ExitCode::from(1));
    }
    let program = Program::new(&checked);
    let kernel = program.kernel(&args.kernel).ok_or_else(|| {
        let names: Vec<&str> = program.kernels().iter().map(|k| k.name.as_str()).collect();
        format!("`{}` has no kernel `{}` (its kernels: {})", args.file.display(), args.kernel, names.join(", "))
    })?;
    let mut launch_args = read_arguments(kernel, args)?;
    let geometry = Geometry { grid: args.grid, block: args.block, dynamic_shared_bytes: args.shared };
    let clean = match choose_backend(args)? {
        Backend::Gpu => {
            gpu::run(args, &geometry, &mut launch_args)?;
            true
        }
        Backend::Interpreter => run_interpreter(&program, &checked, args, &geometry, &mut launch_args)?,
    };
    let written = run_args::written_json(kernel, &launch_args);
    write_output(&written, kernel, &launch_args, args.out.as_deref())?;
    Ok(if clean { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Prints the checker's diagnostics; may the program run? Errors of the convergence analysis allow it with
/// `--no-check`, any other error never.
fn front_end_allows_running(checked: &Checked, args: &RunArgs) -> bool {
    let errors = checked.error_count();
    let warnings = checked.diagnostics.iter().filter(|d| d.severity == Severity::Warning).count();
    print_diagnostics(&checked.diagnostics, &checked.sources, args.frontend.message_format, args.frontend.color);
    let file = checked.sources.file(checked.root).name.clone();
    if errors == 0 {
        return true;
    }
    match Program::runnable(checked) {
        Ok(()) if args.no_check => {
            errln!("warning: {file}: running despite {errors} convergence error(s) (--no-check)");
            true
        }
        Ok(()) => {
            print_summary(&file, errors, warnings, args.frontend.message_format);
            errln!("note: `--no-check` runs it anyway, to watch the divergence happen");
            false
        }
        Err(_) => {
            print_summary(&file, errors, warnings, args.frontend.message_format);
            false
        }
    }
}

fn read_arguments(kernel: &skc_interp::Kernel, args: &RunArgs) -> Result<Vec<Arg>, String> {
    match &args.args_file {
        Some(path) => run_args::read_file(kernel, path),
        None => run_args::parse(kernel, &serde_json::json!({}), &|_| Err("no --args file".into())),
    }
}

fn choose_backend(args: &RunArgs) -> Result<Backend, String> {
    if args.interp {
        return Ok(Backend::Interpreter);
    }
    if args.gpu {
        if !gpu::AVAILABLE {
            return Err("not built with GPU support in this binary: `--gpu` needs skc built with `--features gpu` \
                        (use `--interp` to run on the CPU)"
                .into());
        }
        return Ok(Backend::Gpu);
    }
    Ok(if gpu::AVAILABLE && gpu::device_found() { Backend::Gpu } else { Backend::Interpreter })
}

/// Runs on the interpreter and prints its reports; returns whether there were none.
fn run_interpreter(
    program: &Program,
    checked: &Checked,
    args: &RunArgs,
    geometry: &Geometry,
    launch_args: &mut [Arg],
) -> Result<bool, String> {
    let mut options = Options { schedule: args.schedule, check_races: !args.no_races, ..Options::default() };
    if let Some(steps) = args.steps {
        options.step_budget = steps;
    }
    let outcome = launch(program, &args.kernel, geometry, launch_args, &options).map_err(|e| e.to_string())?;
    // What the kernel's `printf` calls printed, on stderr: stdout carries the written vectors as JSON.
    if !outcome.printed.is_empty() {
        err!("{}", outcome.printed);
    }
    let diagnostics: Vec<_> = outcome.reports.iter().map(|r| r.diagnostic.clone()).collect();
    print_diagnostics(&diagnostics, &checked.sources, args.frontend.message_format, args.frontend.color);
    if outcome.suppressed > 0 {
        errln!("note: {} more report(s) like these were not printed", outcome.suppressed);
    }
    if !outcome.completed {
        errln!("error: the launch stopped early; the written vectors hold what the threads wrote until then");
    }
    Ok(outcome.reports.is_empty())
}

/// The written vectors: JSON on stdout, JSON in `FILE.json`, or `.npy` files in `DIR/`.
fn write_output(
    written: &serde_json::Value,
    kernel: &skc_interp::Kernel,
    launch_args: &[Arg],
    out: Option<&Path>,
) -> Result<(), String> {
    let Some(out) = out else {
        outln!("{written}");
        return Ok(());
    };
    let is_dir = out.is_dir() || out.to_string_lossy().ends_with('/');
    if !is_dir {
        return std::fs::write(out, format!("{written}\n")).map_err(|e| format!("cannot write {}: {e}", out.display()));
    }
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let params = kernel.params.iter().filter(|p| p.kind != skc_interp::ParamKind::Unit);
    for (param, arg) in params.zip(launch_args) {
        let (skc_interp::ParamKind::Vector { written: true, .. }, Arg::Vector(buffer)) = (&param.kind, arg) else {
            continue;
        };
        let skc_interp::ValueType::Scalar(scalar) = buffer.elem else {
            return Err(format!("`{}` is a vector of records: write it as JSON (--out FILE.json)", param.name));
        };
        let file = out.join(format!("{}.npy", param.name));
        std::fs::write(&file, skc_interp::npy::write(scalar, &buffer.words))
            .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    }
    Ok(())
}

/// The GPU backend: skc-runtime, in a binary built with the `gpu` feature.
#[cfg(feature = "gpu")]
#[path = "run_gpu.rs"]
mod gpu;

#[cfg(not(feature = "gpu"))]
mod gpu {
    use super::*;

    pub const AVAILABLE: bool = false;

    pub fn device_found() -> bool {
        false
    }

    pub fn run(_: &RunArgs, _: &Geometry, _: &mut [Arg]) -> Result<(), String> {
        Err("not built with GPU support in this binary".into())
    }
}

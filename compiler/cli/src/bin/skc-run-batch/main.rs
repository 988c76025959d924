//! `skc-run-batch DIR [--gpu|--interp]`: runs every case of a corpus in one process, as `skc run` runs one, for
//! the GPU differential of the interpreter (docs/interp.md, scripts/interp_gpu_diff.sh). The corpus is what
//! `fuzz_compiler --write-corpus DIR` writes (`corpus`); each case's result goes where `skc run ... --out
//! NAME.gpu.json` would put it, with `NAME.gpu.log` for what went wrong, so `fuzz_compiler --compare DIR` reads
//! either. One process pays the GPU's context creation and NVRTC's start once, not once per case: a pool of
//! threads runs the front end and NVRTC (`pipeline`), one thread launches on the device.
//!
//! ```text
//! skc-run-batch DIR [--gpu | --interp] [--kernel k] [--threads N] [--seconds S] [--case-timeout S]
//! ```
//!
//! `--gpu` (the default) needs a binary built with the `gpu` feature; `--interp` runs the interpreter instead (a
//! check of the pipeline without a GPU). `--threads`: the pool (default: the cores); `--seconds`: no case starts
//! after S seconds; `--case-timeout` (10): seconds one case may spend on the device before the watchdog ends the
//! process (`watchdog`). Cases that already have an output or a log are skipped, so a batch that stopped is finished by
//! running it again. Exit status: 0 when the batch ran to its end (or its deadline), 3 when it stopped early (a
//! kernel hung, or a CUDA error may have broken the context; run it again for the rest), 2 usage or I/O errors.

mod corpus;
#[cfg(feature = "gpu")]
mod gpu;
mod interp;
mod launch;
mod pipeline;
mod watchdog;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use skc_core::session::{DiskFiles, Session};
use skc_core::target::Target;

use crate::pipeline::{run_batch, Limits, Tally};
use crate::watchdog::STOPPED_EXIT;

#[derive(Parser)]
#[command(name = "skc-run-batch", about = "Runs every case of a GPU-differential corpus in one process")]
struct Settings {
    /// The corpus: `cases.tsv`, `NAME.sk`, `NAME.json`.
    dir: PathBuf,
    /// Run on GPU 0 (the default; needs the `gpu` feature).
    #[arg(long, conflicts_with = "interp")]
    gpu: bool,
    /// Run on the CPU interpreter.
    #[arg(long)]
    interp: bool,
    /// The kernel every case launches.
    #[arg(long, default_value = "k")]
    kernel: String,
    /// Threads that prepare cases (front end, NVRTC); default: the cores.
    #[arg(long)]
    threads: Option<usize>,
    /// No case starts after this many seconds.
    #[arg(long)]
    seconds: Option<f64>,
    /// Seconds one case may spend on the GPU before the process is ended.
    #[arg(long, default_value_t = 10.0)]
    case_timeout: f64,
    /// The architecture whose resource limits the programs must fit (as `skc run --arch`).
    #[arg(long, default_value = "sm_90")]
    arch: String,
}

fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some(skc_nvrtc::WORKER_ARG) {
        return ExitCode::from(skc_nvrtc::serve_worker().clamp(0, 255) as u8);
    }
    let settings = Settings::parse();
    match run(&settings) {
        Ok(tally) if tally.stopped => ExitCode::from(STOPPED_EXIT),
        Ok(_) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(settings: &Settings) -> Result<Tally, String> {
    let began = Instant::now();
    let cases = corpus::read_manifest(&settings.dir)?;
    let target = Target::parse(&settings.arch).map_err(|why| format!("`--arch {}`: {why}", settings.arch))?;
    let files = DiskFiles::new();
    let session = Session::standard(&files).with_target(target);
    let threads = settings.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let limits = Limits {
        threads,
        deadline: settings.seconds.map(|s| began + Duration::from_secs_f64(s)),
        case_timeout: Duration::from_secs_f64(settings.case_timeout),
    };
    let tally = if settings.interp {
        let backend = interp::Interpreter { session: &session, kernel: settings.kernel.clone() };
        run_batch(&backend, &settings.dir, &cases, &limits)?
    } else {
        run_on_gpu(settings, &session, &cases, &limits)?
    };
    println!(
        "skc-run-batch: {} cases: {} written, {} failed, {} finished earlier, {} not run{}; {:.1} s, {threads} threads",
        cases.len(),
        tally.written,
        tally.failed,
        tally.skipped,
        tally.not_run,
        if tally.stopped { " (stopped: run again for the rest)" } else { "" },
        began.elapsed().as_secs_f64()
    );
    Ok(tally)
}

#[cfg(feature = "gpu")]
fn run_on_gpu(
    settings: &Settings,
    session: &Session,
    cases: &[corpus::Case],
    limits: &Limits,
) -> Result<Tally, String> {
    // NVRTC in a worker process (this binary): a crash of NVRTC fails one case, not the batch.
    if std::env::var_os(skc_nvrtc::WORKER_ENV).is_none() {
        let exe = std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"))?;
        std::env::set_var(skc_nvrtc::WORKER_ENV, exe);
    }
    let backend = gpu::Gpu::open(session, &settings.kernel)?;
    println!("skc-run-batch: GPU 0: {}", backend.describe());
    run_batch(&backend, &settings.dir, cases, limits)
}

#[cfg(not(feature = "gpu"))]
fn run_on_gpu(_: &Settings, _: &Session, _: &[corpus::Case], _: &Limits) -> Result<Tally, String> {
    Err("not built with GPU support: `--gpu` needs skc-run-batch built with `--features gpu` (use `--interp` to run \
         on the CPU)"
        .into())
}

//! The GPU as the batch's machine (`--gpu`, in a binary built with the `gpu` feature): one context on GPU 0 for
//! every case. `prepare` (the pool's threads) runs the front end and NVRTC through skc-runtime's `Program`, with
//! its on-disk cache (`SKC_CACHE_DIR`) and NVRTC in a worker process (this binary, so that NVRTC crashing on a
//! case fails that case only); `run` loads the CUBIN, launches with `skc_runtime::interp_args`, the launch of
//! `skc run --gpu`, and reads the vectors back.
//!
//! A kernel that never returns cannot be stopped inside the process (a context whose kernel hangs is lost), so a
//! watchdog thread watches each case's time on the device: past the limit it writes the case's log and ends the
//! process at once (`_exit`, exit status 3), and the driver tears the context down with it; the next process
//! skips the finished cases. A CUDA error (an illegal address, a failed launch) may leave the context unusable
//! too: it fails its case and stops the batch the same way (`Failure::fatal`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use skc_core::session::Session;
use skc_nvrtc::CompileOutput;
use skc_runtime::{Context, Module, RuntimeError};

use crate::corpus::{Case, CaseFiles};
use crate::launch::Launch;
use crate::pipeline::{Backend, Failure, Finished};

pub struct Gpu<'s> {
    session: &'s Session<'s>,
    kernel: String,
    ctx: Context,
    arch: String,
    watchdog: Watchdog,
}

/// A case compiled for the device.
pub struct Ready {
    launch: Launch,
    program: skc_runtime::Program,
    output: CompileOutput,
    log: PathBuf,
}

impl<'s> Gpu<'s> {
    /// Opens GPU 0 and starts the watchdog.
    pub fn open(session: &'s Session<'s>, kernel: &str, case_timeout: Duration) -> Result<Gpu<'s>, String> {
        let ctx = Context::new(0).map_err(|e| e.to_string())?;
        let arch = ctx.device().arch.clone();
        Ok(Gpu { session, kernel: kernel.to_string(), ctx, arch, watchdog: Watchdog::start(case_timeout) })
    }

    pub fn describe(&self) -> String {
        format!("{} ({})", self.ctx.device().name, self.arch)
    }
}

impl Backend for Gpu<'_> {
    type Prepared = Ready;

    fn prepare(&self, dir: &Path, case: &Case) -> Result<Ready, Failure> {
        let launch = crate::launch::prepare(self.session, dir, case, &self.kernel)?;
        let program = skc_runtime::Program::from_compiled(&launch.file_name, &launch.compiled);
        let output = program.compile(&self.arch).map_err(|e| Failure::of_case(format!("error: {e}")))?;
        Ok(Ready { launch, program, output, log: CaseFiles::new(dir, case).log() })
    }

    fn run(&self, _: &Case, ready: Ready) -> Result<Finished, Failure> {
        let Ready { mut launch, program, output, log } = ready;
        self.watchdog.watch(&log, || {
            let module = Module::from_cubin(&self.ctx, program, output.cubin).map_err(failure)?;
            let kernel = module.kernel(&self.kernel).map_err(failure)?;
            skc_runtime::interp_args::launch(&kernel, &launch.geometry, &mut launch.args).map_err(failure)
        })?;
        let written = skc_interp::args::written_json(&launch.kernel, &launch.args);
        Ok(Finished { written, notes: String::new() })
    }
}

/// A CUDA error may have broken the context (`fatal`); a refused launch (its checks) has not.
fn failure(error: RuntimeError) -> Failure {
    let message = format!("error: {error}");
    match error {
        RuntimeError::Driver { .. } => Failure::of_device(message),
        _ => Failure::of_case(message),
    }
}

/// Ends the process when one case has been on the device for longer than `limit`.
struct Watchdog {
    /// The log of the case on the device, and since when.
    current: Arc<Mutex<Option<(PathBuf, Instant)>>>,
}

/// The exit status of a batch that stopped before its end (a hang, or a context that may be broken): run again.
pub const STOPPED_EXIT: i32 = 3;

impl Watchdog {
    fn start(limit: Duration) -> Watchdog {
        let current: Arc<Mutex<Option<(PathBuf, Instant)>>> = Arc::new(Mutex::new(None));
        let watched = Arc::clone(&current);
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(50));
            let late = watched.lock().ok().and_then(|c| c.clone()).filter(|(_, since)| since.elapsed() > limit);
            if let Some((log, _)) = late {
                let message = format!(
                    "error: timed out: the case ran on the device for more than {} s (a kernel that does not \
                     return); skc-run-batch ended its process\n",
                    limit.as_secs_f64()
                );
                let _ = std::fs::write(&log, message);
                eprintln!("skc-run-batch: {} timed out; stopping (exit status {STOPPED_EXIT})", log.display());
                // SAFETY: `_exit` ends the process without running exit handlers, which could wait on the kernel.
                unsafe { libc::_exit(STOPPED_EXIT) };
            }
        });
        Watchdog { current }
    }

    fn watch<T>(&self, log: &Path, work: impl FnOnce() -> T) -> T {
        self.set(Some((log.to_path_buf(), Instant::now())));
        let result = work();
        self.set(None);
        result
    }

    fn set(&self, value: Option<(PathBuf, Instant)>) {
        if let Ok(mut current) = self.current.lock() {
            *current = value;
        }
    }
}

//! The GPU as the batch's machine (`--gpu`, in a binary built with the `gpu` feature): one context on GPU 0 for
//! every case. `prepare` (the pool's threads) runs the front end and NVRTC through skc-runtime's `Program`, with
//! its on-disk cache (`SKC_CACHE_DIR`) and NVRTC in a worker process (this binary, so that NVRTC crashing on a
//! case fails that case only); `run` loads the CUBIN, launches with `skc_runtime::interp_args`, the launch of
//! `skc run --gpu`, and reads the vectors back.
//!
//! A kernel that hangs is the watchdog's (`watchdog`). A CUDA error (an illegal address, a failed launch) may
//! leave the context unusable: it fails its case and stops the batch (`Failure::fatal`), so that a fresh process
//! runs the rest.

use std::path::Path;

use skc_core::session::Session;
use skc_nvrtc::CompileOutput;
use skc_runtime::{Context, Module, RuntimeError};

use crate::corpus::Case;
use crate::launch::Launch;
use crate::pipeline::{Backend, Failure, Finished};

pub struct Gpu<'s> {
    session: &'s Session<'s>,
    kernel: String,
    ctx: Context,
    arch: String,
}

/// A case compiled for the device.
pub struct Ready {
    launch: Launch,
    program: skc_runtime::Program,
    output: CompileOutput,
}

impl<'s> Gpu<'s> {
    /// Opens GPU 0.
    pub fn open(session: &'s Session<'s>, kernel: &str) -> Result<Gpu<'s>, String> {
        let ctx = Context::new(0).map_err(|e| e.to_string())?;
        let arch = ctx.device().arch.clone();
        Ok(Gpu { session, kernel: kernel.to_string(), ctx, arch })
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
        Ok(Ready { launch, program, output })
    }

    fn run(&self, _: &Case, ready: Ready) -> Result<Finished, Failure> {
        let Ready { mut launch, program, output } = ready;
        let module = Module::from_cubin(&self.ctx, program, output.cubin).map_err(failure)?;
        let kernel = module.kernel(&self.kernel).map_err(failure)?;
        skc_runtime::interp_args::launch(&kernel, &launch.geometry, &mut launch.args).map_err(failure)?;
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

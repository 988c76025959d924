//! `skc run --gpu`: the same launch on GPU 0 through skc-runtime (the front end through the session `skc check`
//! uses, CUDA C, NVRTC, a checked launch; `skc_runtime::interp_args` passes the interpreter's arguments).
//! Vectors and parameters of scalar types only (vectors of records need typed host records the command line
//! does not have).

use skc_interp::{Arg, Geometry};
use skc_runtime::{Context, Module};

use crate::run::RunArgs;
use crate::stdlib::CliFiles;

pub const AVAILABLE: bool = true;

pub fn device_found() -> bool {
    Context::new(0).is_ok()
}

/// Runs `args.kernel` on GPU 0; the vectors in `launch_args` receive what it wrote.
pub fn run(args: &RunArgs, geometry: &Geometry, launch_args: &mut [Arg]) -> Result<(), String> {
    let failed = |e: skc_runtime::RuntimeError| e.to_string();
    let ctx = Context::new(0).map_err(failed)?;
    let files = CliFiles::new();
    let session = crate::check::session(&files, &args.arch, &args.frontend)?;
    let program = skc_runtime::Program::from_session_file(&session, &args.file).map_err(failed)?;
    let module = Module::from_program(&ctx, program).map_err(failed)?;
    let kernel = module.kernel(&args.kernel).map_err(failed)?;
    skc_runtime::interp_args::launch(&kernel, geometry, launch_args).map_err(failed)
}

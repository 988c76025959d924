//! What every backend does first for a case, as `skc run` does for its file: the front end (through one session
//! shared by the pool's threads), the kernel's interface for the interpreter, and its arguments read from
//! `NAME.json` by `skc_interp::args::read_file`, the reader of `skc run --args`.

use std::path::Path;

use skc_core::session::{Compiled, Session};
use skc_interp::{Arg, Geometry};

use crate::corpus::{Case, CaseFiles};
use crate::pipeline::Failure;

/// A case ready to launch: its program, the kernel's interface, the arguments and the geometry.
pub struct Launch {
    /// The `.sk` file's path, as `skc run` names the program (NVRTC's program name, so the compile cache's key).
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    pub file_name: String,
    pub compiled: Compiled,
    pub interp: skc_interp::Program,
    pub kernel: skc_interp::Kernel,
    pub args: Vec<Arg>,
    pub geometry: Geometry,
}

/// The front end over `dir/NAME.sk` and the arguments of `kernel` from `dir/NAME.json`.
pub fn prepare(session: &Session, dir: &Path, case: &Case, kernel: &str) -> Result<Launch, Failure> {
    let files = CaseFiles::new(dir, case);
    let path = files.source();
    let compiled = session.compile_file(&path).map_err(|e| Failure::of_case(format!("error: {e}")))?;
    let interp = skc_interp::Program::new(&compiled.checked);
    let Some(interface) = interp.kernel(kernel).cloned() else {
        let names: Vec<&str> = interp.kernels().iter().map(|k| k.name.as_str()).collect();
        let message =
            format!("error: `{}` has no kernel `{kernel}` (its kernels: {})", path.display(), names.join(", "));
        return Err(Failure::of_case(message));
    };
    let args = skc_interp::args::read_file(&interface, &files.arguments())
        .map_err(|e| Failure::of_case(format!("error: {e}")))?;
    let geometry = Geometry { grid: case.grid, block: case.block, dynamic_shared_bytes: 0 };
    Ok(Launch { file_name: path.display().to_string(), compiled, interp, kernel: interface, args, geometry })
}

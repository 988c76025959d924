//! Crash containment: NVRTC runs in a worker process, so that a crash inside it (NVRTC 13.0 segfaults on some
//! valid C++) ends the worker, not the program that asked for the compilation; the caller gets
//! `NvrtcError::Crashed` and can report it.
//!
//! A worker is any executable that calls [`serve_stdio`] when started with the worker's arguments: the `skc`
//! binary does (`skc nvrtc-worker`, a hidden subcommand), and so does this crate's own `skc-nvrtc-worker` binary,
//! for programs that use the library. [`Isolation::from_env`] decides for library users: `SKC_NVRTC_WORKER`
//! names a worker (or `in-process`), else `skc-nvrtc-worker` next to the running executable (or one folder up,
//! where cargo puts binaries next to the `deps/` of test executables) is used, else NVRTC runs in the process
//! itself, as it did before workers existed, and a crash ends the process.
//!
//! `protocol` is the wire format; `process` the parent's side; `serve_stdio` the worker's.

mod process;
mod protocol;

use std::ffi::OsString;
use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};

pub use process::{describe_exit, WorkerProcess};
pub use protocol::{Reply, Request};

use crate::discovery::LibrarySearch;
use crate::ffi;
use crate::loader::load_nvrtc;

/// Env var naming the worker executable for library users (`in-process` for none).
pub const WORKER_ENV: &str = "SKC_NVRTC_WORKER";
/// The argument every worker is started with: `skc nvrtc-worker`, `skc-nvrtc-worker nvrtc-worker`.
pub const WORKER_ARG: &str = "nvrtc-worker";
/// The file name of this crate's worker binary.
pub const WORKER_BINARY: &str = "skc-nvrtc-worker";

/// How to start a worker.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WorkerCommand {
    pub program: PathBuf,
    pub args: Vec<OsString>,
}

impl WorkerCommand {
    /// `program nvrtc-worker`: the arguments every skc worker understands.
    pub fn new(program: impl Into<PathBuf>) -> WorkerCommand {
        WorkerCommand { program: program.into(), args: vec![WORKER_ARG.into()] }
    }

    /// The running executable as its own worker (for binaries that serve the worker, as `skc` does).
    pub fn current_exe() -> Result<WorkerCommand, crate::NvrtcError> {
        std::env::current_exe()
            .map(WorkerCommand::new)
            .map_err(|e| crate::NvrtcError::Worker { message: format!("cannot find the running executable: {e}") })
    }

    pub fn describe(&self) -> String {
        let mut text = self.program.display().to_string();
        for arg in &self.args {
            text.push(' ');
            text.push_str(&arg.to_string_lossy());
        }
        text
    }
}

/// In which process NVRTC runs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Isolation {
    /// In the calling process: the cheapest, but a crash of NVRTC ends the caller.
    InProcess,
    /// In a worker process started for each compilation (cache hits start none).
    Worker(WorkerCommand),
}

impl Isolation {
    /// The choice for library users: `SKC_NVRTC_WORKER` (a path, or `in-process`), else the `skc-nvrtc-worker`
    /// binary next to the running executable or one folder up, else in process.
    pub fn from_env() -> Isolation {
        let env = std::env::var_os(WORKER_ENV).filter(|v| !v.is_empty());
        let exe = std::env::current_exe().ok();
        Isolation::resolve(env.as_deref(), exe.as_deref())
    }

    /// `from_env` with its inputs given (tests).
    pub fn resolve(env: Option<&std::ffi::OsStr>, current_exe: Option<&Path>) -> Isolation {
        if let Some(value) = env {
            if value == "in-process" {
                return Isolation::InProcess;
            }
            return Isolation::Worker(WorkerCommand::new(value));
        }
        let binary = format!("{WORKER_BINARY}{}", std::env::consts::EXE_SUFFIX);
        let folders = current_exe.and_then(Path::parent).into_iter().flat_map(|dir| [Some(dir), dir.parent()]);
        folders
            .flatten()
            .map(|dir| dir.join(&binary))
            .find(|path| path.is_file())
            .map_or(Isolation::InProcess, |path| Isolation::Worker(WorkerCommand::new(path)))
    }
}

/// The worker's loop: reads requests from standard input until it is closed, answers each on standard output.
/// Returns the process's exit status (0, or 1 when the stream was not a worker stream).
///
/// Requests are read on a thread of their own, so that the end of the input is seen even while NVRTC compiles:
/// the parent closes it only when it has what it asked for or has gone (killed, or crashed itself), and a worker
/// left compiling for nobody (NVRTC can take minutes) ends at once.
pub fn serve_stdio() -> i32 {
    let (requests, incoming) = std::sync::mpsc::sync_channel::<Request>(1);
    std::thread::spawn(move || {
        let mut input = BufReader::new(std::io::stdin().lock());
        loop {
            match Request::read(&mut input) {
                Ok(Some(request)) => {
                    if requests.send(request).is_err() {
                        std::process::exit(1);
                    }
                }
                Ok(None) => std::process::exit(0),
                Err(error) => {
                    eprintln!("skc NVRTC worker: {error}");
                    std::process::exit(1);
                }
            }
        }
    });
    let stdout = std::io::stdout();
    let mut output = BufWriter::new(stdout.lock());
    for request in incoming {
        if answer(&request).write(&mut output).is_err() {
            return 1;
        }
    }
    0
}

/// Runs one request with NVRTC in this process.
pub fn answer(request: &Request) -> Reply {
    let search = match &request.library {
        Some(path) => LibrarySearch::only(path),
        None => LibrarySearch::from_env(),
    };
    let library = match load_nvrtc(&search) {
        Ok(library) => library,
        Err(error) => return Reply::Failed { message: error.to_string() },
    };
    match ffi::compile_program(&request.cuda_source, &request.program_name, &request.args, request.want_cubin) {
        Ok(raw) => Reply::Compiled {
            nvrtc_version: library.version,
            succeeded: raw.succeeded,
            log: raw.log,
            ptx: raw.ptx,
            cubin: raw.cubin,
        },
        Err(error) => Reply::Failed { message: error.to_string() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_names_a_worker_or_in_process() {
        let exe = Path::new("/nonexistent/bin/app");
        assert_eq!(Isolation::resolve(Some("in-process".as_ref()), Some(exe)), Isolation::InProcess);
        assert_eq!(
            Isolation::resolve(Some("/opt/skc/bin/skc".as_ref()), Some(exe)),
            Isolation::Worker(WorkerCommand { program: "/opt/skc/bin/skc".into(), args: vec!["nvrtc-worker".into()] })
        );
        assert_eq!(Isolation::resolve(None, Some(exe)), Isolation::InProcess, "no worker binary there");
        assert_eq!(Isolation::resolve(None, None), Isolation::InProcess);
    }

    #[test]
    fn a_worker_binary_next_to_the_executable_or_one_folder_up_is_found() {
        let root = std::env::temp_dir().join(format!("skc-nvrtc-worker-find-{}", std::process::id()));
        let deps = root.join("deps");
        std::fs::create_dir_all(&deps).unwrap();
        let worker = root.join(format!("{WORKER_BINARY}{}", std::env::consts::EXE_SUFFIX));
        std::fs::write(&worker, b"").unwrap();
        for exe in [root.join("app"), deps.join("test-1234")] {
            assert_eq!(Isolation::resolve(None, Some(&exe)), Isolation::Worker(WorkerCommand::new(&worker)));
        }
        let _ = std::fs::remove_dir_all(&root);
    }
}

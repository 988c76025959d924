//! The `compile` entry points: load NVRTC, run it (in this process or in a worker process, as the `Runner`
//! says), and package PTX, CUBIN, log and the parsed ptxas resource report into a `CompileOutput`.

use std::time::{Duration, Instant};

use crate::discovery::LibrarySearch;
use crate::error::NvrtcError;
use crate::ffi;
use crate::loader::{load_nvrtc, NvrtcLibrary};
use crate::options::CompileOptions;
use crate::ptxas::{parse_ptxas_report, KernelResources};
use crate::worker::{Isolation, Reply, Request, WorkerProcess};

/// Everything one compilation produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileOutput {
    pub ptx: String,
    /// Empty unless `CompileOptions::include_cubin`.
    pub cubin: Vec<u8>,
    /// NVRTC's program log: warnings plus the ptxas report.
    pub log: String,
    /// One entry per function in the ptxas report.
    pub resources: Vec<KernelResources>,
    pub nvrtc_version: (i32, i32),
    /// Wall time of the compile, or of the cache lookup on a hit.
    pub elapsed: Duration,
    pub cache_hit: bool,
}

/// Where NVRTC is found, and in which process it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Runner {
    pub search: LibrarySearch,
    pub isolation: Isolation,
}

impl Runner {
    /// NVRTC found through `search`, run in this process.
    pub fn in_process(search: LibrarySearch) -> Runner {
        Runner { search, isolation: Isolation::InProcess }
    }

    /// The default search, and a worker process when `Isolation::from_env` finds one.
    pub fn from_env() -> Runner {
        Runner { search: LibrarySearch::from_env(), isolation: Isolation::from_env() }
    }

    /// Compiles `cuda_source`.
    pub fn compile(
        &self,
        cuda_source: &str,
        program_name: &str,
        options: &CompileOptions,
    ) -> Result<CompileOutput, NvrtcError> {
        let library = load_nvrtc(&self.search)?;
        self.compile_loaded(cuda_source, program_name, options, &library)
    }

    /// Runs NVRTC, which this process has loaded (the cache key needs its version even when a worker compiles;
    /// the worker loads the same file).
    pub(crate) fn compile_loaded(
        &self,
        cuda_source: &str,
        program_name: &str,
        options: &CompileOptions,
        library: &NvrtcLibrary,
    ) -> Result<CompileOutput, NvrtcError> {
        let started = Instant::now();
        let raw = match &self.isolation {
            Isolation::InProcess => {
                ffi::compile_program(cuda_source, program_name, &options.nvrtc_args(), options.include_cubin)?
            }
            Isolation::Worker(command) => {
                let request = Request {
                    library: Some(library.path.clone()),
                    program_name: program_name.to_string(),
                    cuda_source: cuda_source.to_string(),
                    args: options.nvrtc_args(),
                    want_cubin: options.include_cubin,
                };
                raw_from_reply(WorkerProcess::start(command)?.request(&request)?)?
            }
        };
        if !raw.succeeded {
            return Err(NvrtcError::Compile { log: raw.log });
        }
        Ok(CompileOutput {
            resources: parse_ptxas_report(&raw.log),
            ptx: raw.ptx,
            cubin: raw.cubin,
            log: raw.log,
            nvrtc_version: library.version,
            elapsed: started.elapsed(),
            cache_hit: false,
        })
    }
}

/// A worker's reply as the in-process call's result.
fn raw_from_reply(reply: Reply) -> Result<ffi::RawCompile, NvrtcError> {
    match reply {
        Reply::Compiled { succeeded, log, ptx, cubin, .. } => Ok(ffi::RawCompile { succeeded, log, ptx, cubin }),
        Reply::Failed { message } => Err(NvrtcError::Worker { message }),
    }
}

/// Compiles CUDA C++ in this process with NVRTC found through the default search (see `LibrarySearch`).
pub fn compile(cuda_source: &str, program_name: &str, options: &CompileOptions) -> Result<CompileOutput, NvrtcError> {
    compile_with(cuda_source, program_name, options, &LibrarySearch::from_env())
}

/// Like `compile`, but with an explicit library search.
pub fn compile_with(
    cuda_source: &str,
    program_name: &str,
    options: &CompileOptions,
    search: &LibrarySearch,
) -> Result<CompileOutput, NvrtcError> {
    Runner::in_process(search.clone()).compile(cuda_source, program_name, options)
}

//! The `compile` entry points: load NVRTC, run it, and package PTX, CUBIN, log and
//! the parsed ptxas resource report into a `CompileOutput`.

use std::time::{Duration, Instant};

use crate::discovery::LibrarySearch;
use crate::error::NvrtcError;
use crate::ffi;
use crate::loader::load_nvrtc;
use crate::options::CompileOptions;
use crate::ptxas::{parse_ptxas_report, KernelResources};

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

/// Compiles CUDA C++ with NVRTC found through the default search (see `LibrarySearch`).
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
    let library = load_nvrtc(search)?;
    compile_loaded(cuda_source, program_name, options, library.version)
}

/// Runs NVRTC, which the caller has already loaded.
pub(crate) fn compile_loaded(
    cuda_source: &str,
    program_name: &str,
    options: &CompileOptions,
    nvrtc_version: (i32, i32),
) -> Result<CompileOutput, NvrtcError> {
    let started = Instant::now();
    let raw = ffi::compile_program(cuda_source, program_name, &options.nvrtc_args(), options.include_cubin)?;
    if !raw.succeeded {
        return Err(NvrtcError::Compile { log: raw.log });
    }
    Ok(CompileOutput {
        resources: parse_ptxas_report(&raw.log),
        ptx: raw.ptx,
        cubin: raw.cubin,
        log: raw.log,
        nvrtc_version,
        elapsed: started.elapsed(),
        cache_hit: false,
    })
}

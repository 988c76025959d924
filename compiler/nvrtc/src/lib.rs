//! skc-nvrtc: compiles generated CUDA C++ with NVRTC (loaded at run time, so
//! building skc needs no CUDA), in this process or in a worker process that
//! contains NVRTC's crashes; parses the ptxas resource report, estimates
//! occupancy, and caches results on disk by content.

mod cache;
mod compile;
mod devrt;
mod discovery;
mod error;
mod ffi;
mod loader;
mod occupancy;
mod options;
mod ptxas;
mod worker;

pub use cache::{
    compile_cached, compile_cached_with, Cache, CacheKeyInputs, CachedArtifacts, CACHE_DIR_ENV, CACHE_FORMAT_VERSION,
};
pub use compile::{compile, compile_with, CompileOutput, Runner};
pub use devrt::{devrt_candidates, find_cudadevrt, find_cudadevrt_in, DEVRT_FILE, DEVRT_PATH_ENV};
pub use discovery::{LibrarySearch, NVRTC_PATH_ENV};
pub use error::NvrtcError;
pub use loader::{load_nvrtc, mapped_files_containing, NvrtcLibrary};
pub use occupancy::{occupancy, occupancy_with_limits, ArchLimits, Limiter, Occupancy};
pub use options::{CompileOptions, DEFAULT_ARCH};
pub use ptxas::{parse_ptxas_report, KernelResources};
pub use worker::{
    answer as answer_request, describe_exit, serve_stdio as serve_worker, Isolation, Reply as WorkerReply,
    Request as WorkerRequest, WorkerCommand, WorkerProcess, WORKER_ARG, WORKER_BINARY, WORKER_ENV,
};

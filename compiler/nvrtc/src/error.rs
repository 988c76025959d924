//! The crate's single error type, `NvrtcError`, and how each case reads to a user.

use std::fmt;
use std::path::PathBuf;

/// Everything that can go wrong while finding NVRTC, compiling, or using the cache.
#[derive(Debug)]
pub enum NvrtcError {
    /// No usable libnvrtc was found. `searched` lists each place looked at, in order;
    /// `rejected` lists files that exist but could not be loaded, with the loader's reason.
    LibraryNotFound { searched: Vec<String>, rejected: Vec<String> },
    /// We loaded `requested`, but cudarc bound its calls to a different libnvrtc
    /// (`bound`), e.g. because an unversioned `libnvrtc.so` is on the loader path.
    LibraryMismatch { requested: PathBuf, bound: String },
    /// NVRTC rejected the program; `log` is its full program log.
    Compile { log: String },
    /// An NVRTC call failed for a reason other than a compile error.
    Api { call: &'static str, code: String },
    /// An input could not be handed to NVRTC (e.g. it contains a NUL byte).
    InvalidInput { what: &'static str, reason: String },
    /// `libcudadevrt.a` (the device runtime, for programs that launch kernels from the device) was not found;
    /// `searched` lists each file or folder looked at, in order.
    DeviceRuntimeNotFound { searched: Vec<String> },
    /// NVRTC crashed: the worker process that ran it on `program` ended before replying (`ended`: "killed by
    /// signal 11 (SIGSEGV)"); `stderr` is the end of what it printed.
    Crashed { program: String, ended: String, stderr: String },
    /// A worker process could not be started or spoke something other than the worker protocol, or reported a
    /// failure other than a compile error.
    Worker { message: String },
    /// A file-system operation failed (cache reads and writes).
    Io { action: String, path: PathBuf, source: std::io::Error },
}

impl NvrtcError {
    pub(crate) fn io(action: impl Into<String>, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        NvrtcError::Io { action: action.into(), path: path.into(), source }
    }
}

/// How to get NVRTC, shared by every "not found" style message.
pub(crate) const INSTALL_HINT: &str = "To install it, run `python3 -m pip install nvidia-cuda-nvrtc==13.0.88` \
(in the skc repository: `bash scripts/install-nvrtc.sh`) and set SKC_NVRTC_PATH to the wheel's `.../site-packages/nvidia/cu13/lib` \
folder, or install the CUDA 13.0 toolkit (libnvrtc in /usr/local/cuda/lib64, or set CUDA_PATH).";

impl fmt::Display for NvrtcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NvrtcError::LibraryNotFound { searched, rejected } => {
                write!(
                    f,
                    "NVRTC (libnvrtc, the CUDA runtime compiler) could not be loaded; skc needs it to compile kernels. \
                     Looked in: {}.",
                    searched.join("; ")
                )?;
                if !rejected.is_empty() {
                    write!(f, " Found but could not load: {}.", rejected.join("; "))?;
                }
                write!(f, " {INSTALL_HINT}")
            }
            NvrtcError::LibraryMismatch { requested, bound } => write!(
                f,
                "loaded NVRTC from {} but the NVRTC bindings resolved to a different library ({bound}); \
                 remove the other libnvrtc from the loader path (LD_LIBRARY_PATH, ldconfig) or point \
                 SKC_NVRTC_PATH at it instead.",
                requested.display()
            ),
            NvrtcError::Compile { log } => write!(f, "NVRTC compilation failed:\n{}", log.trim_end()),
            NvrtcError::Api { call, code } => write!(f, "NVRTC call {call} failed: {code}"),
            NvrtcError::InvalidInput { what, reason } => write!(f, "invalid {what}: {reason}"),
            NvrtcError::DeviceRuntimeNotFound { searched } => write!(
                f,
                "the CUDA device runtime library (libcudadevrt.a) was not found; a program that launches kernels \
                 from the device (`launch`) must be linked with it. Looked in: {}. Set SKC_CUDADEVRT to the file \
                 (or its folder), install the CUDA toolkit (CUDA_PATH, /usr/local/cuda/lib64), or \
                 `python3 -m pip install nvidia-cuda-runtime` (its nvidia/cu13/lib folder).",
                searched.join("; ")
            ),
            NvrtcError::Crashed { program, ended, stderr } => {
                write!(f, "NVRTC crashed while compiling {program}: its worker process was {ended}")?;
                if !stderr.is_empty() {
                    write!(f, "; it printed: {stderr}")?;
                }
                Ok(())
            }
            NvrtcError::Worker { message } => write!(f, "{message}"),
            NvrtcError::Io { action, path, source } => {
                write!(f, "could not {action} {}: {source}", path.display())
            }
        }
    }
}

impl std::error::Error for NvrtcError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            NvrtcError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

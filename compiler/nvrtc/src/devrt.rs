//! Finding `libcudadevrt.a`, the CUDA device runtime that programs launching kernels from the device (dynamic
//! parallelism) are linked with. NVRTC compiles such programs as relocatable device code; the driver's linker
//! (`cuLink*`, used by skc-runtime) then needs this static library. Nothing here links or loads anything.

use std::path::{Path, PathBuf};

use crate::discovery::known_site_packages;
use crate::error::NvrtcError;

/// Env var naming `libcudadevrt.a` itself or the folder that holds it; checked first.
pub const DEVRT_PATH_ENV: &str = "SKC_CUDADEVRT";

/// The library's file name.
pub const DEVRT_FILE: &str = "libcudadevrt.a";

/// Where to look, in order: `SKC_CUDADEVRT`, `CUDA_PATH/lib64` and `CUDA_PATH/lib`, `/usr/local/cuda/lib64`, the
/// folder of `SKC_NVRTC_PATH` (a CUDA 13 wheel folder), and the `nvidia/cu13/lib` folder of the Python wheels
/// (`nvidia-cuda-runtime` ships the library there).
pub fn devrt_candidates() -> Vec<PathBuf> {
    let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let mut out = Vec::new();
    if let Some(p) = env(DEVRT_PATH_ENV) {
        out.push(p);
    }
    if let Some(p) = env("CUDA_PATH") {
        out.push(p.join("lib64"));
        out.push(p.join("lib"));
    }
    out.push(PathBuf::from("/usr/local/cuda/lib64"));
    if let Some(p) = env(crate::discovery::NVRTC_PATH_ENV) {
        out.push(if p.is_file() { p.parent().map(Path::to_path_buf).unwrap_or(p) } else { p });
    }
    for site in known_site_packages() {
        out.push(site.join("nvidia/cu13/lib"));
    }
    out
}

/// The first `libcudadevrt.a` among `candidates` (each a file or a folder).
pub fn find_cudadevrt_in(candidates: &[PathBuf]) -> Result<PathBuf, NvrtcError> {
    for candidate in candidates {
        let file = if candidate.is_dir() { candidate.join(DEVRT_FILE) } else { candidate.clone() };
        if file.is_file() && file.file_name().is_some_and(|n| n == DEVRT_FILE) {
            return Ok(file);
        }
    }
    Err(NvrtcError::DeviceRuntimeNotFound { searched: candidates.iter().map(|c| c.display().to_string()).collect() })
}

/// `libcudadevrt.a` from the default places (see [`devrt_candidates`]).
pub fn find_cudadevrt() -> Result<PathBuf, NvrtcError> {
    find_cudadevrt_in(&devrt_candidates())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_library_in_a_folder_or_as_a_file() {
        let dir = std::env::temp_dir().join(format!("skc-devrt-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(DEVRT_FILE);
        std::fs::write(&file, b"!<arch>\n").unwrap();
        let missing = dir.join("missing");
        assert_eq!(find_cudadevrt_in(&[missing.clone(), dir.clone()]).unwrap(), file);
        assert_eq!(find_cudadevrt_in(std::slice::from_ref(&file)).unwrap(), file);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_library_lists_every_place_searched() {
        let places = [PathBuf::from("/nonexistent/a"), PathBuf::from("/nonexistent/b/libcudadevrt.a")];
        let error = find_cudadevrt_in(&places).unwrap_err();
        let text = error.to_string();
        assert!(matches!(error, NvrtcError::DeviceRuntimeNotFound { .. }));
        assert!(text.contains("/nonexistent/a") && text.contains("/nonexistent/b/libcudadevrt.a"), "{text}");
        assert!(text.contains(DEVRT_PATH_ENV), "{text}");
    }
}

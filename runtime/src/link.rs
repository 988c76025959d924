//! Linking a program that launches kernels from the device (`launch`): NVRTC compiled it as relocatable device
//! code, so its CUBIN is an unlinked object that calls the device runtime. The driver's linker (`cuLink*`, raw
//! cudarc bindings: cudarc wraps no linker) joins it with `libcudadevrt.a` into an image the driver can load.

use std::ffi::{c_char, c_uint, c_void, CString};
use std::path::{Path, PathBuf};

use cudarc::driver::sys::{self, CUjitInputType, CUjit_option, CUlinkState, CUresult};

use crate::error::{Result, RuntimeError};

/// Size of the linker's error log buffer.
const LOG_BYTES: usize = 16 * 1024;

/// What the linked image was made from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkInput {
    /// NVRTC's relocatable CUBIN object (no JIT).
    Cubin,
    /// NVRTC's PTX, compiled by the driver (used when the linker refuses the object).
    Ptx,
}

/// Owns a `CUlinkState` (and the error log it writes into) and destroys it on every exit path.
struct Linker {
    state: CUlinkState,
    log: Box<[u8; LOG_BYTES]>,
}

impl Drop for Linker {
    fn drop(&mut self) {
        // SAFETY: `state` came from cuLinkCreate and is destroyed exactly once; a failure only leaks.
        let _ = unsafe { sys::cuLinkDestroy(self.state) };
    }
}

impl Linker {
    /// A link state whose errors go to `log`. The context must be current on this thread.
    fn new() -> std::result::Result<Linker, (&'static str, CUresult, String)> {
        let mut log = Box::new([0u8; LOG_BYTES]);
        let mut options = [CUjit_option::CU_JIT_ERROR_LOG_BUFFER, CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES];
        let mut values = [log.as_mut_ptr().cast::<c_void>(), LOG_BYTES as *mut c_void];
        let mut state: CUlinkState = std::ptr::null_mut();
        // SAFETY: two options with their values; the log buffer lives (boxed, not moved) as long as the state.
        let code = unsafe {
            sys::cuLinkCreate_v2(options.len() as c_uint, options.as_mut_ptr(), values.as_mut_ptr(), &mut state)
        };
        if code != CUresult::CUDA_SUCCESS {
            return Err(("cuLinkCreate", code, String::new()));
        }
        Ok(Linker { state, log })
    }

    fn log_text(&self) -> String {
        let end = self.log.iter().position(|b| *b == 0).unwrap_or(LOG_BYTES);
        String::from_utf8_lossy(&self.log[..end]).trim().to_string()
    }

    fn check(&self, call: &'static str, code: CUresult) -> std::result::Result<(), (&'static str, CUresult, String)> {
        if code == CUresult::CUDA_SUCCESS {
            Ok(())
        } else {
            Err((call, code, self.log_text()))
        }
    }

    fn add_data(
        &mut self,
        kind: CUjitInputType,
        data: &[u8],
        name: &str,
    ) -> std::result::Result<(), (&'static str, CUresult, String)> {
        let name = CString::new(name).unwrap_or_default();
        // SAFETY: the driver copies `data` (read only, despite the `*mut`) during the call.
        let code = unsafe {
            sys::cuLinkAddData_v2(
                self.state,
                kind,
                data.as_ptr() as *mut c_void,
                data.len(),
                name.as_ptr(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        self.check("cuLinkAddData", code)
    }

    fn add_library(&mut self, path: &Path) -> std::result::Result<(), (&'static str, CUresult, String)> {
        let text = CString::new(path.display().to_string()).unwrap_or_default();
        // SAFETY: a NUL-terminated path, read during the call.
        let code = unsafe {
            sys::cuLinkAddFile_v2(
                self.state,
                CUjitInputType::CU_JIT_INPUT_LIBRARY,
                text.as_ptr() as *const c_char,
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        self.check("cuLinkAddFile", code)
    }

    /// The linked image, copied out of the state (which owns it).
    fn complete(&mut self) -> std::result::Result<Vec<u8>, (&'static str, CUresult, String)> {
        let (mut image, mut size): (*mut c_void, usize) = (std::ptr::null_mut(), 0);
        // SAFETY: both out-pointers are valid; the image stays valid until cuLinkDestroy, after the copy below.
        let code = unsafe { sys::cuLinkComplete(self.state, &mut image, &mut size) };
        self.check("cuLinkComplete", code)?;
        if image.is_null() || size == 0 {
            return Err(("cuLinkComplete", code, "the linker returned an empty image".into()));
        }
        // SAFETY: the driver reports `size` readable bytes at `image`.
        Ok(unsafe { std::slice::from_raw_parts(image.cast::<u8>(), size) }.to_vec())
    }
}

/// `libcudadevrt.a` for module `module`, from `candidates` (files or folders; see
/// `skc_nvrtc::devrt_candidates`): `RuntimeError::DeviceRuntimeMissing` lists them all when none has it.
pub fn find_device_runtime(module: &str, candidates: &[PathBuf]) -> Result<PathBuf> {
    skc_nvrtc::find_cudadevrt_in(candidates).map_err(|e| match e {
        skc_nvrtc::NvrtcError::DeviceRuntimeNotFound { searched } => {
            RuntimeError::DeviceRuntimeMissing { module: module.to_string(), searched }
        }
        other => RuntimeError::Nvrtc { module: module.to_string(), source: other },
    })
}

/// Links a relocatable program with the device runtime `devrt` (the context must be current on this thread): its
/// CUBIN object if the linker takes it, else its PTX.
pub fn link_with_device_runtime(module: &str, cubin: &[u8], ptx: &str, devrt: &Path) -> Result<(Vec<u8>, LinkInput)> {
    let error = |(call, code, log): (&'static str, CUresult, String)| RuntimeError::Link {
        module: module.to_string(),
        call,
        code: format!("{code:?}"),
        log,
    };
    let attempt = |input: LinkInput| -> std::result::Result<Vec<u8>, (&'static str, CUresult, String)> {
        let mut linker = Linker::new()?;
        match input {
            LinkInput::Cubin => linker.add_data(CUjitInputType::CU_JIT_INPUT_CUBIN, cubin, module)?,
            LinkInput::Ptx => {
                let mut text = ptx.as_bytes().to_vec();
                text.push(0);
                linker.add_data(CUjitInputType::CU_JIT_INPUT_PTX, &text, module)?
            }
        }
        linker.add_library(devrt)?;
        linker.complete()
    };
    match attempt(LinkInput::Cubin) {
        Ok(image) => Ok((image, LinkInput::Cubin)),
        Err(first) if first.0 == "cuLinkAddData" => match attempt(LinkInput::Ptx) {
            Ok(image) => Ok((image, LinkInput::Ptx)),
            Err(second) => Err(error(second)),
        },
        Err(other) => Err(error(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_device_runtime_is_a_typed_error_naming_the_module_and_the_places() {
        let places = [PathBuf::from("/nonexistent/cuda/lib64"), PathBuf::from("/nonexistent/wheel/nvidia/cu13/lib")];
        let error = find_device_runtime("sched.sk", &places).unwrap_err();
        assert!(
            matches!(&error, RuntimeError::DeviceRuntimeMissing { module, searched }
            if module == "sched.sk" && searched.len() == 2),
            "{error:?}"
        );
        let text = error.to_string();
        for expected in ["sched.sk", "libcudadevrt.a", "/nonexistent/cuda/lib64", skc_nvrtc::DEVRT_PATH_ENV] {
            assert!(text.contains(expected), "`{expected}` missing from: {text}");
        }
    }
}

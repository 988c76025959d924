//! All cudarc-specific code: binding cudarc's NVRTC entry points to the library
//! that `loader` opened, and the raw NVRTC calls (create, compile, log, PTX, CUBIN).
//! Every call returns `NvrtcError` instead of panicking.
//!
//! The bindings are cudarc's CUDA 13.0 ones (`cuda-13000`): NVRTC 13.0 is what the
//! GPU driver accepts PTX from, and its result codes match that enum exactly.

use std::ffi::{c_char, c_int, CString};
use std::panic::catch_unwind;

use cudarc::nvrtc::sys;

use crate::error::NvrtcError;

/// Symbols we call. cudarc resolves each one lazily and panics if it is missing,
/// so `bound_library_probe` checks them all up front.
const REQUIRED_SYMBOLS: [&str; 11] = [
    "nvrtcVersion",
    "nvrtcGetErrorString",
    "nvrtcCreateProgram",
    "nvrtcDestroyProgram",
    "nvrtcCompileProgram",
    "nvrtcGetProgramLogSize",
    "nvrtcGetProgramLog",
    "nvrtcGetPTXSize",
    "nvrtcGetPTX",
    "nvrtcGetCUBINSize",
    "nvrtcGetCUBIN",
];

/// Address of `nvrtcVersion` in the library cudarc resolved, after checking that
/// every symbol we need is there. cudarc opens NVRTC by soname; since `loader`
/// already opened our chosen file, the loader hands cudarc that same object.
/// cudarc panics when it finds nothing; that panic becomes an `Err` with the reason.
pub fn bound_library_probe() -> Result<usize, String> {
    // SAFETY: culib() only dlopens libnvrtc by name; its panic is caught below.
    let lib =
        catch_unwind(|| unsafe { sys::culib() }).map_err(|_| "cudarc could not open libnvrtc by name".to_string())?;
    for name in REQUIRED_SYMBOLS {
        // SAFETY: we only read the symbol's address, never call through this type.
        if unsafe { lib.get::<*const ()>(name.as_bytes()) }.is_err() {
            return Err(format!("the bound libnvrtc has no symbol {name} (too old?)"));
        }
    }
    // SAFETY: as above, address only.
    let probe = unsafe { lib.get::<*const ()>(b"nvrtcVersion") }.map_err(|e| e.to_string())?;
    Ok(*probe as usize)
}

/// NVRTC's (major, minor) version.
pub fn version() -> Result<(i32, i32), NvrtcError> {
    let (mut major, mut minor): (c_int, c_int) = (0, 0);
    // SAFETY: both pointers are valid for the call.
    let code = unsafe { sys::nvrtcVersion(&mut major, &mut minor) };
    check("nvrtcVersion", code)?;
    Ok((major, minor))
}

/// What one compilation produced. `ptx` and `cubin` are empty when compilation failed.
pub struct RawCompile {
    pub succeeded: bool,
    pub log: String,
    pub ptx: String,
    pub cubin: Vec<u8>,
}

/// Owns an `nvrtcProgram` and destroys it on every exit path.
struct Program(sys::nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: self.0 came from nvrtcCreateProgram and is destroyed exactly once.
        // A failure here only leaks NVRTC memory, so its code is ignored.
        let _ = unsafe { sys::nvrtcDestroyProgram(&mut self.0) };
    }
}

/// Compiles `source` with `args`; returns the log and, on success, PTX (and CUBIN when asked).
pub fn compile_program(
    source: &str,
    program_name: &str,
    args: &[String],
    want_cubin: bool,
) -> Result<RawCompile, NvrtcError> {
    let source_c = c_string("CUDA source", source)?;
    let name_c = c_string("program name", program_name)?;
    let args_c: Vec<CString> = args.iter().map(|a| c_string("compile option", a)).collect::<Result<_, _>>()?;
    let program = create_program(&source_c, &name_c)?;
    let arg_ptrs: Vec<*const c_char> = args_c.iter().map(|a| a.as_ptr()).collect();
    let count = c_int::try_from(arg_ptrs.len())
        .map_err(|_| NvrtcError::InvalidInput { what: "compile options", reason: "too many options".into() })?;
    // SAFETY: the program is live; arg_ptrs points at `count` NUL-terminated strings that outlive the call.
    let code = unsafe { sys::nvrtcCompileProgram(program.0, count, arg_ptrs.as_ptr()) };
    let log = program_log(&program)?;
    if code == sys::nvrtcResult::NVRTC_ERROR_COMPILATION {
        return Ok(RawCompile { succeeded: false, log, ptx: String::new(), cubin: Vec::new() });
    }
    check_with_log("nvrtcCompileProgram", code, &log)?;
    let ptx = program_ptx(&program)?;
    let cubin = if want_cubin { program_cubin(&program)? } else { Vec::new() };
    Ok(RawCompile { succeeded: true, log, ptx, cubin })
}

fn c_string(what: &'static str, text: &str) -> Result<CString, NvrtcError> {
    CString::new(text).map_err(|_| NvrtcError::InvalidInput { what, reason: "contains a NUL byte".into() })
}

fn create_program(source: &CString, name: &CString) -> Result<Program, NvrtcError> {
    let mut raw: sys::nvrtcProgram = std::ptr::null_mut();
    // SAFETY: source and name are NUL-terminated and outlive the program (NVRTC copies them).
    let code = unsafe {
        sys::nvrtcCreateProgram(&mut raw, source.as_ptr(), name.as_ptr(), 0, std::ptr::null(), std::ptr::null())
    };
    check("nvrtcCreateProgram", code)?;
    Ok(Program(raw))
}

// SAFETY (the three readers below): the program is live for the whole call, and
// `read_sized` hands the fill call a buffer of exactly the size NVRTC reported.
fn program_log(program: &Program) -> Result<String, NvrtcError> {
    let bytes = read_sized(
        "nvrtcGetProgramLog",
        |size| unsafe { sys::nvrtcGetProgramLogSize(program.0, size) },
        |buf| unsafe { sys::nvrtcGetProgramLog(program.0, buf) },
    )?;
    Ok(text_without_nul(bytes))
}

fn program_ptx(program: &Program) -> Result<String, NvrtcError> {
    let bytes = read_sized(
        "nvrtcGetPTX",
        |size| unsafe { sys::nvrtcGetPTXSize(program.0, size) },
        |buf| unsafe { sys::nvrtcGetPTX(program.0, buf) },
    )?;
    Ok(text_without_nul(bytes))
}

fn program_cubin(program: &Program) -> Result<Vec<u8>, NvrtcError> {
    read_sized(
        "nvrtcGetCUBIN",
        |size| unsafe { sys::nvrtcGetCUBINSize(program.0, size) },
        |buf| unsafe { sys::nvrtcGetCUBIN(program.0, buf) },
    )
}

/// NVRTC's two-step "ask the size, then fill a buffer" pattern.
fn read_sized(
    call: &'static str,
    get_size: impl FnOnce(*mut usize) -> sys::nvrtcResult,
    fill: impl FnOnce(*mut c_char) -> sys::nvrtcResult,
) -> Result<Vec<u8>, NvrtcError> {
    let mut size: usize = 0;
    check(call, get_size(&mut size))?;
    let mut buf = vec![0u8; size];
    if size > 0 {
        check(call, fill(buf.as_mut_ptr().cast::<c_char>()))?;
    }
    Ok(buf)
}

/// NVRTC's text outputs end with a NUL that is counted in their size.
fn text_without_nul(mut bytes: Vec<u8>) -> String {
    while bytes.last() == Some(&0) {
        bytes.pop();
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn check(call: &'static str, code: sys::nvrtcResult) -> Result<(), NvrtcError> {
    check_with_log(call, code, "")
}

/// Non-success codes become `Api` errors; a non-empty log is appended since NVRTC
/// explains option errors there.
fn check_with_log(call: &'static str, code: sys::nvrtcResult, log: &str) -> Result<(), NvrtcError> {
    if code == sys::nvrtcResult::NVRTC_SUCCESS {
        return Ok(());
    }
    let mut text = format!("{code:?}");
    if !log.trim().is_empty() {
        text.push_str(": ");
        text.push_str(log.trim());
    }
    Err(NvrtcError::Api { call, code: text })
}

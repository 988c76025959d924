//! Finding and loading libnccl at run time (building skc needs no NCCL), and the table of the NCCL functions the
//! runtime calls.
//!
//! cudarc's `nccl` feature is not used: with `dynamic-loading` it opens NCCL by the names `libnccl.so`,
//! `libnccl.so.{CUDA major}`, `.12` ... `.9`, `.1`, and never by `libnccl.so.2`, the only name the NCCL packages
//! install (the `nvidia-nccl-cu13` wheel that PyTorch brings has nvidia/nccl/lib/libnccl.so.2 alone), nor by a
//! path. So the runtime opens the file itself and binds the dozen functions it needs.
//!
//! Search order: `SKC_NCCL_PATH` (the file, or a folder holding `libnccl.so.2` or `lib/libnccl.so.2`); the
//! folders Python reports for the `nvidia.nccl` package; then the system loader by name (`libnccl.so.2`,
//! `libnccl.so`; LD_LIBRARY_PATH and ldconfig).
//!
//! Before NCCL is loaded, `NCCL_NVLS_ENABLE=0` is set in the process environment (whatever it was): NVLink
//! multicast (NVLS) must stay off on the machines skc runs on, where a program that uses it can take the host's
//! GPUs out of service. NCCL reads its environment when it initialises, after this.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::PathBuf;
use std::sync::Mutex;

use libloading::Library;

use crate::error::{Result, RuntimeError};

/// The variable naming the NCCL library file (or its folder).
pub const NCCL_PATH_ENV: &str = "SKC_NCCL_PATH";

/// NCCL's communicator handle.
pub(crate) type RawComm = *mut c_void;

/// NCCL's `ncclUniqueId`: 128 opaque bytes, passed by value.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct RawUniqueId {
    pub internal: [c_char; 128],
}

type Stream = cudarc::driver::sys::CUstream;

/// The NCCL functions the runtime uses, bound from the loaded library.
pub(crate) struct NcclApi {
    pub path: String,
    pub version: i32,
    pub get_unique_id: unsafe extern "C" fn(*mut RawUniqueId) -> c_int,
    pub comm_init_rank: unsafe extern "C" fn(*mut RawComm, c_int, RawUniqueId, c_int) -> c_int,
    pub comm_init_all: unsafe extern "C" fn(*mut RawComm, c_int, *const c_int) -> c_int,
    pub comm_destroy: unsafe extern "C" fn(RawComm) -> c_int,
    pub group_start: unsafe extern "C" fn() -> c_int,
    pub group_end: unsafe extern "C" fn() -> c_int,
    pub send: unsafe extern "C" fn(*const c_void, usize, c_int, c_int, RawComm, Stream) -> c_int,
    pub recv: unsafe extern "C" fn(*mut c_void, usize, c_int, c_int, RawComm, Stream) -> c_int,
    pub all_reduce: unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, c_int, RawComm, Stream) -> c_int,
    pub error_string: unsafe extern "C" fn(c_int) -> *const c_char,
    pub last_error: unsafe extern "C" fn(RawComm) -> *const c_char,
    _library: Library,
}

// SAFETY: function pointers into a library that stays loaded for the process's lifetime.
unsafe impl Send for NcclApi {}
unsafe impl Sync for NcclApi {}

static LOADED: Mutex<Option<&'static NcclApi>> = Mutex::new(None);

/// Loads NCCL once per process (a failure is not remembered: a later call may find it).
pub(crate) fn nccl() -> Result<&'static NcclApi> {
    let mut slot = LOADED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(api) = *slot {
        return Ok(api);
    }
    // Before NCCL can read it (see the module comment).
    std::env::set_var("NCCL_NVLS_ENABLE", "0");
    let api: &'static NcclApi = Box::leak(Box::new(load_first()?));
    *slot = Some(api);
    Ok(api)
}

/// The loaded NCCL's file and version (`major * 10000 + minor * 100 + patch`), loading it if needed.
pub fn nccl_library() -> Result<(String, i32)> {
    let api = nccl()?;
    Ok((api.path.clone(), api.version))
}

fn load_first() -> Result<NcclApi> {
    let mut searched = Vec::new();
    let mut failures = Vec::new();
    for candidate in candidates() {
        searched.push(candidate.clone());
        // SAFETY: loading NCCL runs its (trivial) initialisers only.
        match unsafe { Library::new(&candidate) } {
            Ok(library) => return bind(library, candidate),
            Err(e) => {
                // libloading's message is "dlopen failed"; the loader's own reason is its source.
                let reason = std::error::Error::source(&e).map_or_else(|| e.to_string(), |s| s.to_string());
                failures.push(reason);
            }
        }
    }
    let reason = if failures.is_empty() { "no candidate".to_string() } else { failures.join("; ") };
    Err(RuntimeError::NcclMissing { searched, reason })
}

/// Files and names to try, in order.
fn candidates() -> Vec<String> {
    let mut out = Vec::new();
    if let Some(path) = std::env::var_os(NCCL_PATH_ENV) {
        let path = PathBuf::from(path);
        if path.is_dir() {
            out.push(path.join("libnccl.so.2").display().to_string());
            out.push(path.join("lib/libnccl.so.2").display().to_string());
        } else {
            out.push(path.display().to_string());
        }
    }
    for folder in python_nccl_folders() {
        out.push(folder.join("lib/libnccl.so.2").display().to_string());
    }
    out.push("libnccl.so.2".into());
    out.push("libnccl.so".into());
    out
}

/// The folders of Python's `nvidia.nccl` package (a namespace package: its `__path__`, not `__file__`).
fn python_nccl_folders() -> Vec<PathBuf> {
    let script = "import nvidia.nccl as m\nfor p in m.__path__: print(p)";
    let Ok(output) = std::process::Command::new("python3").args(["-c", script]).output() else { return Vec::new() };
    if !output.status.success() {
        return Vec::new();
    }
    String::from_utf8_lossy(&output.stdout).lines().filter(|l| !l.trim().is_empty()).map(PathBuf::from).collect()
}

fn bind(library: Library, path: String) -> Result<NcclApi> {
    fn symbol<T: Copy>(library: &Library, path: &str, name: &str) -> Result<T> {
        // SAFETY: the type is the function's C signature (nccl.h of NCCL 2.x).
        unsafe { library.get::<T>(name.as_bytes()) }.map(|s| *s).map_err(|e| RuntimeError::NcclMissing {
            searched: vec![path.to_string()],
            reason: format!("{name} is missing: {e}"),
        })
    }
    let get_version: unsafe extern "C" fn(*mut c_int) -> c_int = symbol(&library, &path, "ncclGetVersion")?;
    let mut version = 0;
    // SAFETY: writes one int.
    unsafe { get_version(&mut version) };
    Ok(NcclApi {
        version,
        get_unique_id: symbol(&library, &path, "ncclGetUniqueId")?,
        comm_init_rank: symbol(&library, &path, "ncclCommInitRank")?,
        comm_init_all: symbol(&library, &path, "ncclCommInitAll")?,
        comm_destroy: symbol(&library, &path, "ncclCommDestroy")?,
        group_start: symbol(&library, &path, "ncclGroupStart")?,
        group_end: symbol(&library, &path, "ncclGroupEnd")?,
        send: symbol(&library, &path, "ncclSend")?,
        recv: symbol(&library, &path, "ncclRecv")?,
        all_reduce: symbol(&library, &path, "ncclAllReduce")?,
        error_string: symbol(&library, &path, "ncclGetErrorString")?,
        last_error: symbol(&library, &path, "ncclGetLastError")?,
        path,
        _library: library,
    })
}

/// NCCL's names of its results (nccl.h).
fn result_name(code: c_int) -> String {
    match code {
        1 => "ncclUnhandledCudaError".into(),
        2 => "ncclSystemError".into(),
        3 => "ncclInternalError".into(),
        4 => "ncclInvalidArgument".into(),
        5 => "ncclInvalidUsage".into(),
        6 => "ncclRemoteError".into(),
        7 => "ncclInProgress".into(),
        other => format!("ncclResult {other}"),
    }
}

impl NcclApi {
    /// Turns an NCCL result into an error naming the call, the rank and its device.
    pub(crate) fn check(
        &self,
        call: &'static str,
        code: c_int,
        comm: Option<RawComm>,
        rank: Option<usize>,
        device: Option<usize>,
    ) -> Result<()> {
        if code == 0 {
            return Ok(());
        }
        let text = |p: *const c_char| {
            // SAFETY: NCCL returns a NUL-terminated static or per-communicator string (or null).
            if p.is_null() {
                String::new()
            } else {
                unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
            }
        };
        // SAFETY: plain queries of NCCL's error text.
        let mut description = text(unsafe { (self.error_string)(code) });
        let last = text(unsafe { (self.last_error)(comm.unwrap_or(std::ptr::null_mut())) });
        if !last.is_empty() {
            description = format!("{description} ({last})");
        }
        Err(RuntimeError::Nccl { call, code: result_name(code), description, rank, device })
    }
}

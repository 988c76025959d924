//! Loading NVRTC once per process: walks the `discovery` candidates, dlopens the
//! chosen files with RTLD_GLOBAL (so cudarc's later load by soname, and NVRTC's
//! own load of libnvrtc-builtins, find them), and checks cudarc bound to that file.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use libloading::Library;

use crate::discovery::{self, Candidate, LibrarySearch};
use crate::error::NvrtcError;
use crate::ffi;

/// The NVRTC this process uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NvrtcLibrary {
    /// The libnvrtc file in use (from /proc/self/maps when it came from the system loader).
    pub path: PathBuf,
    /// The libnvrtc-builtins file preloaded next to it, if any.
    pub builtins: Option<PathBuf>,
    /// Which search step found it, e.g. "SKC_NVRTC_PATH" or "system loader".
    pub found_by: String,
    /// NVRTC's (major, minor) version.
    pub version: (i32, i32),
}

/// A loaded library and the handles that keep it mapped for the process lifetime.
struct Loaded {
    info: NvrtcLibrary,
    _handles: Vec<Library>,
}

/// Set once the first successful load happened. Failures are not remembered, so a
/// later call with a better search can still succeed.
static LOADED: Mutex<Option<&'static Loaded>> = Mutex::new(None);

/// Finds and loads NVRTC (once per process) and returns what was loaded.
///
/// cudarc binds to a single libnvrtc per process, so after the first success every
/// call returns that library whatever `search` says.
pub fn load_nvrtc(search: &LibrarySearch) -> Result<NvrtcLibrary, NvrtcError> {
    // A poisoned lock only means another thread panicked mid-load; the Option is still valid.
    let mut slot = LOADED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(loaded) = *slot {
        return Ok(loaded.info.clone());
    }
    let loaded: &'static Loaded = Box::leak(Box::new(load_first_match(search)?));
    *slot = Some(loaded);
    Ok(loaded.info.clone())
}

/// Tries every candidate in order; records where it looked for the error message.
fn load_first_match(search: &LibrarySearch) -> Result<Loaded, NvrtcError> {
    let mut searched = Vec::new();
    let mut rejected = Vec::new();
    let candidates = discovery::static_candidates(search);
    if let Some(loaded) = try_candidates(&candidates, &mut searched, &mut rejected)? {
        return Ok(loaded);
    }
    if !search.system_fallbacks {
        return Err(NvrtcError::LibraryNotFound { searched, rejected });
    }
    // Only now pay for spawning python3.
    let candidates = discovery::python_reported_candidates();
    if let Some(loaded) = try_candidates(&candidates, &mut searched, &mut rejected)? {
        return Ok(loaded);
    }
    searched.push(
        "nvidia/cu13/lib in every Python site-packages folder (venv, ~/.local, /usr/local, /usr, python3's own)".into(),
    );
    searched.push("the system loader by name (LD_LIBRARY_PATH, ldconfig)".into());
    if let Some(loaded) = try_system_loader()? {
        return Ok(loaded);
    }
    Err(NvrtcError::LibraryNotFound { searched, rejected })
}

fn try_candidates(
    candidates: &[Candidate],
    searched: &mut Vec<String>,
    rejected: &mut Vec<String>,
) -> Result<Option<Loaded>, NvrtcError> {
    for candidate in candidates {
        searched.push(candidate.describe());
        let Some(files) = discovery::resolve(&candidate.path) else {
            continue;
        };
        let builtins = files.builtins.as_deref().and_then(|b| open_global(b).ok());
        let nvrtc = match open_global(&files.nvrtc) {
            Ok(lib) => lib,
            Err(reason) => {
                rejected.push(format!("{}: {reason}", files.nvrtc.display()));
                continue;
            }
        };
        let version = bind_cudarc_to(&nvrtc, &files.nvrtc)?;
        let handles = [Some(nvrtc), builtins].into_iter().flatten().collect();
        return Ok(Some(Loaded {
            info: NvrtcLibrary {
                path: files.nvrtc,
                builtins: files.builtins,
                found_by: candidate.origin.clone(),
                version,
            },
            _handles: handles,
        }));
    }
    Ok(None)
}

/// Last resort: the names cudarc itself would try, resolved by the system loader.
fn try_system_loader() -> Result<Option<Loaded>, NvrtcError> {
    for name in cudarc::get_lib_name_candidates("nvrtc") {
        let Ok(lib) = open_global(Path::new(&name)) else {
            continue;
        };
        let version = bind_cudarc_to(&lib, Path::new(&name))?;
        let path = symbol_address(&lib).and_then(mapped_file_of).unwrap_or_else(|| PathBuf::from(&name));
        return Ok(Some(Loaded {
            info: NvrtcLibrary { path, builtins: None, found_by: "system loader".to_string(), version },
            _handles: vec![lib],
        }));
    }
    Ok(None)
}

/// Makes cudarc resolve NVRTC now and checks it resolved to `lib` (same address of
/// `nvrtcVersion`), then returns the version.
fn bind_cudarc_to(lib: &Library, path: &Path) -> Result<(i32, i32), NvrtcError> {
    let ours = symbol_address(lib).ok_or_else(|| NvrtcError::LibraryNotFound {
        searched: vec![path.display().to_string()],
        rejected: vec![format!("{}: no nvrtcVersion symbol, not an NVRTC library", path.display())],
    })?;
    let theirs = ffi::bound_library_probe().map_err(|reason| NvrtcError::LibraryNotFound {
        searched: vec![path.display().to_string()],
        rejected: vec![format!("{}: {reason}", path.display())],
    })?;
    if theirs != ours {
        let bound = mapped_file_of(theirs).map_or_else(|| "unknown file".to_string(), |p| p.display().to_string());
        return Err(NvrtcError::LibraryMismatch { requested: path.to_path_buf(), bound });
    }
    ffi::version()
}

fn symbol_address(lib: &Library) -> Option<usize> {
    // SAFETY: only the symbol's address is read.
    unsafe { lib.get::<*const ()>(b"nvrtcVersion") }.ok().map(|s| *s as usize)
}

/// dlopen with RTLD_NOW | RTLD_GLOBAL. GLOBAL matters: it puts the library's soname in
/// the loader's table, so a later dlopen by that soname (cudarc, or NVRTC looking
/// for libnvrtc-builtins) returns this object instead of searching the disk.
#[cfg(unix)]
fn open_global(path: &Path) -> Result<Library, String> {
    use libloading::os::unix::{Library as UnixLibrary, RTLD_GLOBAL, RTLD_NOW};
    // SAFETY: NVRTC's initialisers have no preconditions on the caller.
    unsafe { UnixLibrary::open(Some(path), RTLD_NOW | RTLD_GLOBAL) }.map(Library::from).map_err(|e| e.to_string())
}

#[cfg(not(unix))]
fn open_global(path: &Path) -> Result<Library, String> {
    // SAFETY: as above; Windows keeps loaded DLLs visible by module name.
    unsafe { Library::new(path) }.map_err(|e| e.to_string())
}

/// The file mapped at `address` in this process, from /proc/self/maps (Linux only).
fn mapped_file_of(address: usize) -> Option<PathBuf> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines().find_map(|line| file_if_line_covers(line, address))
}

/// Parses "start-end perms offset dev inode path" and returns path when start <= address < end.
fn file_if_line_covers(line: &str, address: usize) -> Option<PathBuf> {
    let mut fields = line.split_whitespace();
    let (start, end) = fields.next()?.split_once('-')?;
    let start = usize::from_str_radix(start, 16).ok()?;
    let end = usize::from_str_radix(end, 16).ok()?;
    if address < start || address >= end {
        return None;
    }
    let path = fields.nth(4)?;
    path.starts_with('/').then(|| PathBuf::from(path))
}

/// Files currently mapped into this process whose name contains `needle`; lets
/// tests check which libnvrtc/libnvrtc-builtins were really loaded.
pub fn mapped_files_containing(needle: &str) -> Vec<PathBuf> {
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = Vec::new();
    for path in maps.lines().filter_map(|l| l.split_whitespace().nth(5)) {
        let p = PathBuf::from(path);
        if path.contains(needle) && !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_line_lookup() {
        let line = "7f0000001000-7f0000002000 r-xp 00001000 08:01 1234 /opt/lib/libnvrtc.so.13";
        assert_eq!(file_if_line_covers(line, 0x7f0000001800), Some(PathBuf::from("/opt/lib/libnvrtc.so.13")));
        assert_eq!(file_if_line_covers(line, 0x7f0000002000), None);
        assert_eq!(file_if_line_covers("7f0-7f8 rw-p 0 00:00 0", 0x7f1), None);
    }
}

//! The standard library travels inside the binary: its `.sk` files are embedded at build time (`build.rs`) and
//! read under the name `<stdlib>/...`, so an installed `skc` opens `Ode`, `Weno`, ... from any folder. Setting
//! `SKC_STDLIB` to a folder uses that folder instead (a standard library being edited). The language server
//! needs real files (an editor opens the file a definition is in): for `skc lsp` the embedded files are written
//! once into the cache folder and `SKC_STDLIB` names them ([`write_for_language_server`]).

use std::io;
use std::path::{Path, PathBuf};

use skc_core::session::{DiskFiles, Files, STDLIB_ENV};

include!(concat!(env!("OUT_DIR"), "/stdlib_files.rs"));

/// The name under which the embedded standard library's files are read (and named in diagnostics).
pub const EMBEDDED_ROOT: &str = "<stdlib>";

/// The standard library's folder: `$SKC_STDLIB` when set, else the embedded one.
pub fn stdlib_root() -> PathBuf {
    match std::env::var_os(STDLIB_ENV).filter(|dir| !dir.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(EMBEDDED_ROOT),
    }
}

/// What the command line reads: the embedded standard library under [`EMBEDDED_ROOT`], everything else from disk.
#[derive(Clone, Debug, Default)]
pub struct CliFiles {
    pub disk: DiskFiles,
}

impl CliFiles {
    pub fn new() -> CliFiles {
        CliFiles { disk: DiskFiles::new() }
    }
}

/// The path of `path` inside the embedded standard library, with `/` separators; `None` for a path outside it.
fn embedded_path(path: &Path) -> Option<String> {
    let inside = path.strip_prefix(EMBEDDED_ROOT).ok()?;
    let parts: Vec<&str> = inside.iter().map(|part| part.to_str()).collect::<Option<_>>()?;
    Some(parts.join("/"))
}

impl Files for CliFiles {
    fn read(&self, path: &Path) -> io::Result<String> {
        match embedded_path(path) {
            Some(inside) => STDLIB_FILES
                .iter()
                .find(|(name, _)| *name == inside)
                .map(|(_, text)| text.to_string())
                .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "not in the embedded standard library")),
            None => self.disk.read(path),
        }
    }

    fn subfolders(&self, dir: &Path) -> Vec<PathBuf> {
        let Some(inside) = embedded_path(dir) else { return self.disk.subfolders(dir) };
        let prefix = if inside.is_empty() { String::new() } else { format!("{inside}/") };
        let mut folders: Vec<PathBuf> = STDLIB_FILES
            .iter()
            .filter_map(|(name, _)| name.strip_prefix(&prefix)?.split_once('/').map(|(folder, _)| dir.join(folder)))
            .collect();
        folders.sort();
        folders.dedup();
        folders
    }
}

/// For `skc lsp`, unless `SKC_STDLIB` is set: writes the embedded standard library into
/// `CACHE/stdlib/VERSION-HASH/` (the compile cache's folder: `SKC_CACHE_DIR`, `XDG_CACHE_HOME/skc` or
/// `~/.cache/skc`; a folder is written whole, then renamed into place, and never changed after) and sets
/// `SKC_STDLIB` to it. Where that fails (no cache folder, a read-only disk) the server keeps its default, the
/// source tree's `stdlib/`, and says so on stderr.
pub fn write_for_language_server() {
    if std::env::var_os(STDLIB_ENV).is_some_and(|dir| !dir.is_empty()) {
        return;
    }
    let Some(cache) = skc_nvrtc::Cache::from_env() else { return };
    let folder = cache.dir().join("stdlib").join(format!("{}-{:016x}", env!("CARGO_PKG_VERSION"), content_hash()));
    match write_once(&folder) {
        // Set before the server starts its threads; nothing else reads the environment meanwhile.
        Ok(()) => std::env::set_var(STDLIB_ENV, &folder),
        Err(e) => eprintln!("skc lsp: the standard library could not be written to {}: {e}", folder.display()),
    }
}

/// FNV-1a over every embedded file's path and text: a new standard library gets a new folder.
fn content_hash() -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for (path, text) in STDLIB_FILES {
        for byte in path.bytes().chain([0]).chain(text.bytes()).chain([0]) {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

/// Writes the embedded files under `folder` unless it exists: into a private folder first, then renamed.
fn write_once(folder: &Path) -> io::Result<()> {
    if folder.is_dir() {
        return Ok(());
    }
    let parent = folder.parent().unwrap_or(folder);
    std::fs::create_dir_all(parent)?;
    let private = parent.join(format!(".writing-{}", std::process::id()));
    for (path, text) in STDLIB_FILES {
        let file = private.join(path);
        std::fs::create_dir_all(file.parent().unwrap_or(&private))?;
        std::fs::write(&file, text)?;
    }
    match std::fs::rename(&private, folder) {
        Ok(()) => Ok(()),
        // Another server renamed the same contents into place first.
        Err(_) if folder.is_dir() => std::fs::remove_dir_all(&private),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_library_holds_every_area_and_reads_its_files() {
        let files = CliFiles::new();
        let root = Path::new(EMBEDDED_ROOT);
        let areas = files.subfolders(root);
        for area in ["ode", "sched", "weno"] {
            assert!(areas.contains(&root.join(area)), "{area} missing from {areas:?}");
        }
        let erk = files.read(&root.join("ode/ode_erk.sk")).expect("an embedded file");
        assert_eq!(erk, include_str!("../../../stdlib/ode/ode_erk.sk"));
        assert!(files.read(&root.join("ode/no_such.sk")).is_err());
        assert!(files.subfolders(&root.join("sched")).is_empty());
    }

    #[test]
    fn the_written_library_holds_every_embedded_file() {
        let folder = std::env::temp_dir().join(format!("skc-stdlib-write-{}", std::process::id())).join("lib");
        let _ = std::fs::remove_dir_all(folder.parent().unwrap());
        write_once(&folder).unwrap();
        write_once(&folder).unwrap();
        for (path, text) in STDLIB_FILES {
            assert_eq!(std::fs::read_to_string(folder.join(path)).unwrap(), *text, "{path}");
        }
        let _ = std::fs::remove_dir_all(folder.parent().unwrap());
    }
}

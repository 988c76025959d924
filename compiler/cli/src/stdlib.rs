//! The standard library travels inside the binary: its `.sk` files are embedded at build time (`build.rs`) and
//! read under the name `<stdlib>/...`, so an installed `skc` opens `Ode`, `Weno`, ... from any folder. Setting
//! `SKC_STDLIB` to a folder uses that folder instead (a standard library being edited).

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
}

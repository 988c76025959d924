//! Where a session's text comes from: the [`Files`] trait, its file-system implementation [`DiskFiles`] (the
//! only code of this crate that touches the disk, and only when a tool hands it to a session) and
//! [`MemoryFiles`] (a map, for tests and for programs a host builds). The language server implements [`Files`]
//! as an overlay of its open documents over [`DiskFiles`].

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

/// Reads source files. Implementations decide what a path means (the disk, an editor's buffers, a map). `Sync`,
/// because the front end runs on a thread of its own and reads modules from there (see [`crate::stack`]).
pub trait Files: Sync {
    /// The text of the file at `path`.
    fn read(&self, path: &Path) -> io::Result<String>;

    /// The folders directly inside `dir`, sorted (the standard library's areas); none by default.
    fn subfolders(&self, _dir: &Path) -> Vec<PathBuf> {
        Vec::new()
    }
}

/// The file system. Relative paths are read from `root` when one is set (tests name files from the repository
/// root whatever the working directory), else from the working directory.
#[derive(Clone, Debug, Default)]
pub struct DiskFiles {
    pub root: Option<PathBuf>,
}

impl DiskFiles {
    /// Relative paths from the working directory.
    pub fn new() -> DiskFiles {
        DiskFiles { root: None }
    }

    /// Relative paths from `root`.
    pub fn rooted(root: impl Into<PathBuf>) -> DiskFiles {
        DiskFiles { root: Some(root.into()) }
    }

    fn full(&self, path: &Path) -> PathBuf {
        match &self.root {
            Some(root) if path.is_relative() => root.join(path),
            _ => path.to_path_buf(),
        }
    }
}

impl Files for DiskFiles {
    fn read(&self, path: &Path) -> io::Result<String> {
        let bytes = std::fs::read(self.full(path))?;
        String::from_utf8(bytes).map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not valid UTF-8"))
    }

    fn subfolders(&self, dir: &Path) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(self.full(dir)) else { return Vec::new() };
        let mut folders: Vec<PathBuf> =
            entries.flatten().filter(|e| e.path().is_dir()).map(|e| dir.join(e.file_name())).collect();
        folders.sort();
        folders
    }
}

/// Files held in memory, by path.
#[derive(Clone, Debug, Default)]
pub struct MemoryFiles {
    pub files: BTreeMap<PathBuf, String>,
}

impl MemoryFiles {
    pub fn new() -> MemoryFiles {
        MemoryFiles::default()
    }

    pub fn with(mut self, path: impl Into<PathBuf>, text: impl Into<String>) -> MemoryFiles {
        self.files.insert(path.into(), text.into());
        self
    }
}

impl Files for MemoryFiles {
    fn read(&self, path: &Path) -> io::Result<String> {
        self.files.get(path).cloned().ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
    }

    fn subfolders(&self, dir: &Path) -> Vec<PathBuf> {
        let mut folders: Vec<PathBuf> = self
            .files
            .keys()
            .filter_map(|path| path.strip_prefix(dir).ok()?.components().next().map(|c| dir.join(c)))
            .filter(|folder| !self.files.contains_key(folder))
            .collect();
        folders.dedup();
        folders
    }
}

//! The one rule for `open M` (docs/language.md, "Modules"): a module the session holds in memory under the name
//! `M` (a module a host generates), else the first file `m.sk` or `M.sk` (`m` is `M` with its first letter in
//! lower case) in the importing file's folder, then in each folder of the [`SearchPath`] in order. The rule is
//! pure: [`candidates`] lists the paths; reading them is the session's [`Files`](super::Files).

use std::path::{Path, PathBuf};

use super::files::Files;

/// The environment variable naming the standard library's folder.
pub const STDLIB_ENV: &str = "SKC_STDLIB";

/// The standard library's folder: `$SKC_STDLIB` when set, else the `stdlib/` folder of the source tree this
/// compiler was built from. Its area subfolders (`ode/`, `weno/`, ...) are searched too (see
/// [`SearchPath::standard`]).
pub fn stdlib_root() -> PathBuf {
    match std::env::var_os(STDLIB_ENV) {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../stdlib"),
    }
}

/// Folders searched for `open M` after the importing file's own, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchPath {
    pub dirs: Vec<PathBuf>,
}

impl SearchPath {
    /// Only the importing file's folder.
    pub fn empty() -> SearchPath {
        SearchPath::default()
    }

    /// `include` (the command line's `-I`), then the standard library ([`stdlib_root`]) and each of its
    /// subfolders, as `files` lists them.
    pub fn standard(include: &[PathBuf], files: &dyn Files) -> SearchPath {
        SearchPath::empty().with_dirs(include.iter().cloned()).with_library(&stdlib_root(), files)
    }

    /// This path followed by `dirs`.
    pub fn with_dirs(mut self, dirs: impl IntoIterator<Item = PathBuf>) -> SearchPath {
        self.dirs.extend(dirs);
        self
    }

    /// This path followed by a library folder and each of its subfolders.
    pub fn with_library(self, root: &Path, files: &dyn Files) -> SearchPath {
        let areas = files.subfolders(root);
        self.with_dirs(std::iter::once(root.to_path_buf()).chain(areas))
    }
}

/// The file names of module `module`: `m.sk` and `M.sk` (one name when they are the same). None for a name
/// that cannot name a module file (empty, or with a path separator or a dot).
pub fn module_file_names(module: &str) -> Vec<String> {
    let mut chars = module.chars();
    let Some(first) = chars.next() else { return Vec::new() };
    if module.contains(['/', '\\', '.']) {
        return Vec::new();
    }
    let lower = format!("{}{}.sk", first.to_lowercase(), chars.as_str());
    let exact = format!("{module}.sk");
    if lower == exact {
        vec![exact]
    } else {
        vec![lower, exact]
    }
}

/// The folder of the file named `importer` (empty for a bare name: the working directory, or the files' root).
pub fn importer_dir(importer: &str) -> PathBuf {
    Path::new(importer).parent().map(Path::to_path_buf).unwrap_or_default()
}

/// Every path `open module` in the file `importer` may name, in the order they are tried.
pub fn candidates(module: &str, importer: &str, search: &SearchPath) -> Vec<PathBuf> {
    let names = module_file_names(module);
    let dirs = std::iter::once(importer_dir(importer)).chain(search.dirs.iter().cloned());
    let mut out: Vec<PathBuf> = Vec::new();
    for dir in dirs {
        for name in &names {
            let path = dir.join(name);
            if !out.contains(&path) {
                out.push(path);
            }
        }
    }
    out
}

/// A module found: the name its file is known by (its path, or `<generated M>`) and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub name: String,
    pub text: String,
}

/// Resolves `open module` in `importer`: the in-memory module of that name, else the first candidate `files`
/// can read. `Err` says what was looked for.
pub fn resolve(
    module: &str,
    importer: &str,
    search: &SearchPath,
    memory: &[(String, String)],
    files: &dyn Files,
) -> Result<Found, String> {
    if let Some((name, text)) = memory.iter().find(|(name, _)| name == module) {
        return Ok(Found { name: format!("<generated {name}>"), text: text.clone() });
    }
    let paths = candidates(module, importer, search);
    if paths.is_empty() {
        return Err(format!("`{module}` cannot name a module file"));
    }
    for path in &paths {
        if let Ok(text) = files.read(path) {
            return Ok(Found { name: path.display().to_string(), text });
        }
    }
    let searched: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    Err(format!("looked for {}", searched.join(", ")))
}

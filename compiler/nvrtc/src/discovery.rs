//! Where to look for libnvrtc: the ordered list of candidate locations and how a
//! location (a folder or a file) resolves to the library files inside it.
//! Nothing here loads a library; `loader` does that.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Env var naming the folder (or file) holding libnvrtc; checked right after an explicit path.
pub const NVRTC_PATH_ENV: &str = "SKC_NVRTC_PATH";

/// Which places to search for NVRTC, in this order: `explicit`, `env_path`
/// (SKC_NVRTC_PATH), `cuda_path` (CUDA_PATH/lib64, CUDA_PATH/lib), and then, when
/// `system_fallbacks` is set, /usr/local/cuda/lib64, the Python wheel layout
/// (site-packages/nvidia/cu13/lib) and finally the system loader's own search.
///
/// The env values are plain fields so callers and tests can set them without
/// mutating the process environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibrarySearch {
    pub explicit: Option<PathBuf>,
    pub env_path: Option<PathBuf>,
    pub cuda_path: Option<PathBuf>,
    pub system_fallbacks: bool,
}

impl Default for LibrarySearch {
    fn default() -> Self {
        Self::from_env()
    }
}

impl LibrarySearch {
    /// The normal search: SKC_NVRTC_PATH and CUDA_PATH from the environment, all fallbacks on.
    pub fn from_env() -> Self {
        LibrarySearch {
            explicit: None,
            env_path: non_empty_env_path(NVRTC_PATH_ENV),
            cuda_path: non_empty_env_path("CUDA_PATH"),
            system_fallbacks: true,
        }
    }

    /// A search that looks only at `path` (a folder or a libnvrtc file).
    pub fn only(path: impl Into<PathBuf>) -> Self {
        LibrarySearch { explicit: Some(path.into()), env_path: None, cuda_path: None, system_fallbacks: false }
    }

    /// Adds an explicit path that is tried before everything else.
    pub fn with_explicit(mut self, path: impl Into<PathBuf>) -> Self {
        self.explicit = Some(path.into());
        self
    }

    /// Turns off /usr/local/cuda, the Python wheel locations and the system loader.
    pub fn without_fallbacks(mut self) -> Self {
        self.system_fallbacks = false;
        self
    }
}

fn non_empty_env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// One place to look, with a human description of why we look there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub origin: String,
    pub path: PathBuf,
}

impl Candidate {
    fn new(origin: impl Into<String>, path: impl Into<PathBuf>) -> Self {
        Candidate { origin: origin.into(), path: path.into() }
    }

    /// "origin (path)", as listed in the not-found message.
    pub fn describe(&self) -> String {
        format!("{} ({})", self.origin, self.path.display())
    }
}

/// The library files found at one candidate location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibraryFiles {
    pub nvrtc: PathBuf,
    pub builtins: Option<PathBuf>,
}

/// Candidates that need no process spawn, in search order.
pub fn static_candidates(search: &LibrarySearch) -> Vec<Candidate> {
    let mut out = Vec::new();
    if let Some(p) = &search.explicit {
        out.push(Candidate::new("explicit path", p));
    }
    if let Some(p) = &search.env_path {
        out.push(Candidate::new(NVRTC_PATH_ENV, p));
    }
    if let Some(p) = &search.cuda_path {
        out.push(Candidate::new("CUDA_PATH", p.join("lib64")));
        out.push(Candidate::new("CUDA_PATH", p.join("lib")));
    }
    if search.system_fallbacks {
        out.push(Candidate::new("CUDA toolkit", "/usr/local/cuda/lib64"));
        let sites = known_site_packages();
        out.extend(wheel_candidates(&sites, "Python wheel"));
    }
    out
}

/// Wheel folders under site-packages dirs reported by `python3` itself. Spawns a
/// process, so it is only used once every cheaper location has failed.
pub fn python_reported_candidates() -> Vec<Candidate> {
    wheel_candidates(&python_reported_site_packages(), "Python wheel (python3 site)")
}

/// NVRTC ships as `nvidia/cu13/lib` in CUDA 13 wheels and `nvidia/cuda_nvrtc/lib` in CUDA 12 ones.
fn wheel_candidates(sites: &[PathBuf], origin: &str) -> Vec<Candidate> {
    let mut out = Vec::new();
    for site in sites {
        for sub in ["nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib"] {
            let dir = site.join(sub);
            if dir.is_dir() {
                out.push(Candidate::new(origin, dir));
            }
        }
    }
    out
}

/// site-packages folders found from well-known prefixes, without running Python:
/// active virtualenv/conda env, the user site, system prefixes, and the prefix of
/// each `python3` on PATH.
pub fn known_site_packages() -> Vec<PathBuf> {
    let mut prefixes: Vec<PathBuf> = Vec::new();
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(p) = non_empty_env_path(var) {
            prefixes.push(p);
        }
    }
    if let Some(home) = non_empty_env_path("HOME") {
        prefixes.push(home.join(".local"));
    }
    prefixes.extend(python_prefixes_on_path());
    for p in ["/usr/local", "/usr", "/opt/conda"] {
        prefixes.push(PathBuf::from(p));
    }
    let mut sites = Vec::new();
    for prefix in dedup(prefixes) {
        sites.extend(site_dirs_under_prefix(&prefix));
    }
    // Debian's system packages live in an unversioned folder.
    sites.push(PathBuf::from("/usr/lib/python3/dist-packages"));
    dedup(sites)
}

/// `<prefix>/lib/python3.X/{site,dist}-packages` for every python3.X folder present.
fn site_dirs_under_prefix(prefix: &Path) -> Vec<PathBuf> {
    let lib = prefix.join("lib");
    let Ok(entries) = std::fs::read_dir(&lib) else {
        return Vec::new();
    };
    let mut versions: Vec<PathBuf> =
        entries.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| file_name_starts_with(p, "python3")).collect();
    versions.sort();
    versions.reverse(); // newest Python first
    let mut out = Vec::new();
    for v in versions {
        for kind in ["site-packages", "dist-packages"] {
            let dir = v.join(kind);
            if dir.is_dir() {
                out.push(dir);
            }
        }
    }
    out
}

/// For each `bin/python3` on PATH, the prefix above `bin` (symlinks resolved, so a
/// venv's python still points at its own prefix first).
fn python_prefixes_on_path() -> Vec<PathBuf> {
    let Some(path) = std::env::var_os("PATH") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for dir in std::env::split_paths(&path) {
        let exe = dir.join("python3");
        if !exe.is_file() {
            continue;
        }
        if let Some(prefix) = dir.parent() {
            out.push(prefix.to_path_buf());
        }
        if let Some(prefix) =
            std::fs::canonicalize(&exe).ok().and_then(|real| real.parent()?.parent().map(Path::to_path_buf))
        {
            out.push(prefix);
        }
    }
    out
}

/// Asks `python3` for its site-packages folders. Any failure just yields no folders.
fn python_reported_site_packages() -> Vec<PathBuf> {
    let script = "import site,sys\nfor p in site.getsitepackages()+[site.getusersitepackages()]: print(p)";
    let Ok(output) = Command::new("python3").arg("-c").arg(script).output() else {
        return Vec::new();
    };
    if !output.status.success() {
        return Vec::new();
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(PathBuf::from)
        .collect()
}

fn dedup(paths: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for p in paths {
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

fn file_name_starts_with(path: &Path, prefix: &str) -> bool {
    path.file_name().and_then(OsStr::to_str).is_some_and(|n| n.starts_with(prefix))
}

/// Resolves a candidate (a libnvrtc file, or a folder holding one) to the files to load.
pub fn resolve(candidate: &Path) -> Option<LibraryFiles> {
    let nvrtc = if candidate.is_file() { candidate.to_path_buf() } else { find_nvrtc_in(candidate)? };
    let builtins = builtins_for(&nvrtc);
    Some(LibraryFiles { nvrtc, builtins })
}

/// NVRTC opens libnvrtc-builtins by name when compiling, and fails unless the
/// loader can find it; so look next to libnvrtc, and next to the real file when
/// libnvrtc is a symlink into another folder.
fn builtins_for(nvrtc: &Path) -> Option<PathBuf> {
    let beside = nvrtc.parent().and_then(find_builtins);
    beside.or_else(|| {
        let real = std::fs::canonicalize(nvrtc).ok()?;
        real.parent().and_then(find_builtins)
    })
}

fn file_names_in(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> =
        entries.filter_map(|e| e.ok()).filter_map(|e| e.file_name().into_string().ok()).collect();
    names.sort();
    names
}

/// Platform file-name patterns: (nvrtc prefix, builtins prefix, preferred nvrtc name).
#[cfg(not(windows))]
const NAMES: (&str, &str, &str) = ("libnvrtc.so", "libnvrtc-builtins.so", "libnvrtc.so.13");
#[cfg(windows)]
const NAMES: (&str, &str, &str) = ("nvrtc64_", "nvrtc-builtins64_", "nvrtc64_130_0.dll");

/// Picks the main library in `dir`: the CUDA 13 soname first (it matches the
/// bindings we compile against), then any other `libnvrtc.so*`, newest name first.
/// `.alt` variants and static archives never match the prefix.
fn find_nvrtc_in(dir: &Path) -> Option<PathBuf> {
    let (prefix, _, preferred) = NAMES;
    let mut names: Vec<String> = file_names_in(dir).into_iter().filter(|n| n.starts_with(prefix)).collect();
    names.sort_by_key(|n| (n != preferred, std::cmp::Reverse(n.clone())));
    names.into_iter().map(|n| dir.join(n)).find(|p| p.is_file())
}

/// The builtins library NVRTC opens by name at compile time; the newest-named one wins.
fn find_builtins(dir: &Path) -> Option<PathBuf> {
    let (_, prefix, _) = NAMES;
    file_names_in(dir).into_iter().filter(|n| n.starts_with(prefix)).map(|n| dir.join(n)).rfind(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("skc-nvrtc-disc-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        dir
    }

    #[test]
    fn search_order_is_explicit_env_cuda_then_fallbacks() {
        let search = LibrarySearch {
            explicit: Some("/a".into()),
            env_path: Some("/b".into()),
            cuda_path: Some("/c".into()),
            system_fallbacks: false,
        };
        let paths: Vec<PathBuf> = static_candidates(&search).into_iter().map(|c| c.path).collect();
        let expected: Vec<PathBuf> = ["/a", "/b", "/c/lib64", "/c/lib"].iter().map(PathBuf::from).collect();
        assert_eq!(paths, expected);
    }

    #[test]
    fn fallbacks_start_with_usr_local_cuda() {
        let search =
            LibrarySearch { explicit: Some("/x".into()), env_path: None, cuda_path: None, system_fallbacks: true };
        let c = static_candidates(&search);
        assert_eq!(c[0].path, PathBuf::from("/x"));
        assert_eq!(c[1].path, PathBuf::from("/usr/local/cuda/lib64"));
    }

    #[test]
    fn resolves_wheel_layout_and_skips_alt_variants() {
        let dir = temp_dir("wheel");
        for f in ["libnvrtc.alt.so.13", "libnvrtc-builtins.alt.so.13.0", "libnvrtc-builtins.so.13.0", "libnvrtc.so.13"]
        {
            std::fs::write(dir.join(f), b"").expect("write");
        }
        let files = resolve(&dir).expect("resolves");
        assert_eq!(files.nvrtc, dir.join("libnvrtc.so.13"));
        assert_eq!(files.builtins, Some(dir.join("libnvrtc-builtins.so.13.0")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn resolves_toolkit_layout_preferring_soname() {
        let dir = temp_dir("toolkit");
        for f in ["libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.13.0.88", "libnvrtc_static.a"] {
            std::fs::write(dir.join(f), b"").expect("write");
        }
        assert_eq!(resolve(&dir).map(|f| f.nvrtc), Some(dir.join("libnvrtc.so.13")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn builtins_are_found_beside_a_symlink_target() {
        let real = temp_dir("real");
        let linked = temp_dir("linked");
        std::fs::write(real.join("libnvrtc.so.13"), b"").expect("write");
        std::fs::write(real.join("libnvrtc-builtins.so.13.0"), b"").expect("write");
        std::os::unix::fs::symlink(real.join("libnvrtc.so.13"), linked.join("libnvrtc.so.13")).expect("symlink");
        let files = resolve(&linked).expect("resolves");
        assert_eq!(files.nvrtc, linked.join("libnvrtc.so.13"));
        let builtins = files.builtins.expect("builtins found");
        assert_eq!(builtins.file_name(), Some(OsStr::new("libnvrtc-builtins.so.13.0")));
        let _ = std::fs::remove_dir_all(&real);
        let _ = std::fs::remove_dir_all(&linked);
    }

    #[test]
    fn empty_folder_resolves_to_nothing() {
        let dir = temp_dir("empty");
        assert_eq!(resolve(&dir), None);
        assert_eq!(resolve(&dir.join("missing")), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

//! Finds the files of modules named by `open M`: `m.sk` (or `M.sk`) next to the importing file, then in each
//! `-I` directory, then in the standard library (`SKC_STDLIB`, else the `stdlib/` folder of this source tree).

use std::path::{Path, PathBuf};

use skc_core::ModuleLoader;

pub struct FileLoader {
    pub include_dirs: Vec<PathBuf>,
}

impl FileLoader {
    pub fn new(include_dirs: Vec<PathBuf>) -> FileLoader {
        FileLoader { include_dirs }
    }

    fn stdlib_dirs() -> Vec<PathBuf> {
        let root = std::env::var_os("SKC_STDLIB")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../stdlib"));
        // Stdlib modules live in one folder per area (stdlib/ode, stdlib/weno, ...) and at the top.
        let mut dirs = vec![root.clone()];
        if let Ok(entries) = std::fs::read_dir(&root) {
            let mut subdirs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
            subdirs.sort();
            dirs.extend(subdirs);
        }
        dirs
    }
}

/// `Weno` -> [`weno.sk`, `Weno.sk`].
fn candidate_names(module: &str) -> Vec<String> {
    let mut lower = module.to_string();
    if let Some(first) = lower.get_mut(0..1) {
        first.make_ascii_lowercase();
    }
    vec![format!("{lower}.sk"), format!("{module}.sk")]
}

impl ModuleLoader for FileLoader {
    fn load(&self, module: &str, importer: &str) -> Result<(String, String), String> {
        let importer_dir = Path::new(importer).parent().map(Path::to_path_buf).unwrap_or_default();
        let mut dirs = vec![importer_dir];
        dirs.extend(self.include_dirs.iter().cloned());
        dirs.extend(Self::stdlib_dirs());
        let mut searched = Vec::new();
        for dir in &dirs {
            for name in candidate_names(module) {
                let path = dir.join(&name);
                if let Ok(text) = std::fs::read_to_string(&path) {
                    return Ok((path.display().to_string(), text));
                }
                searched.push(path.display().to_string());
            }
        }
        Err(format!("looked for {}", searched.join(", ")))
    }
}

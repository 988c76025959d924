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
}

impl ModuleLoader for FileLoader {
    fn load(&self, module: &str, importer: &str) -> Result<(String, String), String> {
        let importer_dir = Path::new(importer).parent().map(Path::to_path_buf).unwrap_or_default();
        let mut dirs = vec![importer_dir];
        dirs.extend(self.include_dirs.iter().cloned());
        dirs.extend(skc_lsp::stdlib_dirs());
        let mut searched = Vec::new();
        for dir in &dirs {
            for name in skc_lsp::candidate_names(module) {
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

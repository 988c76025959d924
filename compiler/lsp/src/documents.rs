//! The open documents: their text and version as the client last sent them, and the result of checking that
//! version. Also the module loader the server checks with: a module that is open in the editor is read from its
//! document (unsaved edits included), any other from the file system next to the importing file, then from the
//! configured include directories and the standard library.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use lsp_types::Url;
use skc_core::driver::CheckOptions;
use skc_core::{Checked, ModuleLoader};

pub struct Document {
    pub uri: Url,
    pub version: i32,
    pub text: String,
    /// The name the compiler knows the file by: its path for `file:` URIs, else the URI itself.
    pub file_name: String,
    /// The result of checking `checked_version` (`None` before the first check).
    pub checked: Option<Checked>,
    pub checked_version: Option<i32>,
}

impl Document {
    /// The result of checking the current version, if it has been checked.
    pub fn current(&self) -> Option<&Checked> {
        self.checked.as_ref().filter(|_| self.checked_version == Some(self.version))
    }
}

#[derive(Default)]
pub struct Documents {
    open: HashMap<Url, Document>,
}

/// The compiler's name for the file behind `uri`.
pub fn file_name_of(uri: &Url) -> String {
    match uri.to_file_path() {
        Ok(path) if uri.scheme() == "file" => path.display().to_string(),
        _ => uri.to_string(),
    }
}

/// The URI of a file the compiler named (the inverse of [`file_name_of`]).
pub fn uri_of(file_name: &str) -> Option<Url> {
    if Path::new(file_name).is_absolute() {
        if let Ok(uri) = Url::from_file_path(file_name) {
            return Some(uri);
        }
    }
    Url::parse(file_name).ok()
}

impl Documents {
    pub fn open(&mut self, uri: Url, version: i32, text: String) {
        let file_name = file_name_of(&uri);
        self.open.insert(uri.clone(), Document { uri, version, text, file_name, checked: None, checked_version: None });
    }

    /// Replaces the text of an open document; false if it is not open.
    pub fn change(&mut self, uri: &Url, version: i32, text: String) -> bool {
        match self.open.get_mut(uri) {
            Some(document) => {
                document.version = version;
                document.text = text;
                true
            }
            None => false,
        }
    }

    pub fn close(&mut self, uri: &Url) -> Option<Document> {
        self.open.remove(uri)
    }

    /// The URIs of every open document.
    pub fn uris(&self) -> Vec<Url> {
        self.open.keys().cloned().collect()
    }

    pub fn get(&self, uri: &Url) -> Option<&Document> {
        self.open.get(uri)
    }

    pub fn get_mut(&mut self, uri: &Url) -> Option<&mut Document> {
        self.open.get_mut(uri)
    }

    /// Open documents whose last check read the file `file_name` as a module (not as their root).
    pub fn dependents_of(&self, file_name: &str) -> Vec<Url> {
        self.open
            .values()
            .filter(|d| d.file_name != file_name)
            .filter(|d| d.checked.as_ref().is_some_and(|c| c.sources.find(file_name).is_some()))
            .map(|d| d.uri.clone())
            .collect()
    }

    fn text_of_path(&self, path: &Path) -> Option<&str> {
        self.open.values().find(|d| Path::new(&d.file_name) == path).map(|d| d.text.as_str())
    }
}

/// Where modules named by `open M` are looked for, besides the importing file's folder.
#[derive(Clone, Debug, Default)]
pub struct SearchPath {
    pub include_dirs: Vec<PathBuf>,
}

/// `SKC_STDLIB`, else the `stdlib/` folder of this source tree, and its subfolders (one per area). Shared with the
/// CLI's loader, so the editor and `skc check` find the same modules.
pub fn stdlib_dirs() -> Vec<PathBuf> {
    let root = std::env::var_os("SKC_STDLIB")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../stdlib"));
    let mut dirs = vec![root.clone()];
    if let Ok(entries) = std::fs::read_dir(&root) {
        let mut subdirs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
        subdirs.sort();
        dirs.extend(subdirs);
    }
    dirs
}

/// `Weno` -> `weno.sk`, `Weno.sk`: the file names of a module (shared with the CLI's loader).
pub fn candidate_names(module: &str) -> Vec<String> {
    let mut lower = module.to_string();
    if let Some(first) = lower.get_mut(0..1) {
        first.make_ascii_lowercase();
    }
    vec![format!("{lower}.sk"), format!("{module}.sk")]
}

/// Reads modules from open documents first, then from disk.
pub struct DocumentLoader<'a> {
    pub documents: &'a Documents,
    pub search_path: &'a SearchPath,
}

impl ModuleLoader for DocumentLoader<'_> {
    fn load(&self, module: &str, importer: &str) -> Result<(String, String), String> {
        let importer_dir = Path::new(importer).parent().map(Path::to_path_buf).unwrap_or_default();
        let mut dirs = vec![importer_dir];
        dirs.extend(self.search_path.include_dirs.iter().cloned());
        dirs.extend(stdlib_dirs());
        let mut searched = Vec::new();
        for dir in &dirs {
            for name in candidate_names(module) {
                let path = dir.join(&name);
                if let Some(text) = self.documents.text_of_path(&path) {
                    return Ok((path.display().to_string(), text.to_string()));
                }
                if let Ok(text) = std::fs::read_to_string(&path) {
                    return Ok((path.display().to_string(), text));
                }
                searched.push(path.display().to_string());
            }
        }
        Err(format!("looked for {}", searched.join(", ")))
    }
}

/// Checks the current text of the open document `uri`.
pub fn check(documents: &Documents, search_path: &SearchPath, uri: &Url) -> Option<(i32, Checked)> {
    let document = documents.get(uri)?;
    let loader = DocumentLoader { documents, search_path };
    let checked = skc_core::check(&document.file_name, &document.text, &loader, &CheckOptions::default());
    Some((document.version, checked))
}

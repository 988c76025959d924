//! The open documents: their text and version as the client last sent them, and the result of checking that
//! version. Also the files the server checks with: a module that is open in the editor is read from its document
//! (unsaved edits included), any other from the file system, found by the session's search rule (next to the
//! importing file, then the configured include directories and the standard library).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use lsp_types::Url;
use skc_core::session::{DiskFiles, Files, SearchPath, Session};
use skc_core::Checked;

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

/// The text without a leading byte-order mark, as the compiler's [`skc_core::source::SourceFile`] holds it, so
/// that the document's offsets and the compiler's spans agree.
fn without_byte_order_mark(text: String) -> String {
    match skc_core::source::without_byte_order_mark(&text) {
        stripped if stripped.len() == text.len() => text,
        stripped => stripped.to_string(),
    }
}

impl Documents {
    pub fn open(&mut self, uri: Url, version: i32, text: String) {
        let file_name = file_name_of(&uri);
        let text = without_byte_order_mark(text);
        self.open.insert(uri.clone(), Document { uri, version, text, file_name, checked: None, checked_version: None });
    }

    /// Replaces the text of an open document; false if it is not open.
    pub fn change(&mut self, uri: &Url, version: i32, text: String) -> bool {
        match self.open.get_mut(uri) {
            Some(document) => {
                document.version = version;
                document.text = without_byte_order_mark(text);
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

/// The files a check reads: a text edited in memory (a rename being tried), then an open document's text
/// (unsaved edits included), then the file on disk.
struct DocumentFiles<'a> {
    documents: &'a Documents,
    /// Texts by file name that replace both the documents and the disk.
    edited: Option<&'a HashMap<String, String>>,
    disk: DiskFiles,
}

impl Files for DocumentFiles<'_> {
    fn read(&self, path: &Path) -> std::io::Result<String> {
        let edited = self.edited.and_then(|texts| texts.get(&path.display().to_string()));
        match edited.map(String::as_str).or_else(|| self.documents.text_of_path(path)) {
            Some(text) => Ok(text.to_string()),
            None => self.disk.read(path),
        }
    }

    fn subfolders(&self, dir: &Path) -> Vec<PathBuf> {
        self.disk.subfolders(dir)
    }
}

/// The search path of a server: the client's include folders (`includePaths`), then the standard library, as
/// `skc check -I` searches.
pub fn search_path(include_dirs: &[PathBuf]) -> SearchPath {
    SearchPath::standard(include_dirs, &DiskFiles::new())
}

/// Checks the current text of the open document `uri`, its modules read through the open documents first.
pub fn check(documents: &Documents, search_path: &SearchPath, uri: &Url) -> Option<(i32, Checked)> {
    let document = documents.get(uri)?;
    let files = DocumentFiles { documents, edited: None, disk: DiskFiles::new() };
    // A divergence error's edit is checked when a code action offers it, not at every keystroke.
    let session = Session::new(&files).with_search(search_path.clone()).with_deferred_fix_checks();
    Some((document.version, session.check(&document.file_name, &document.text)))
}

/// [`check`] with some files' texts replaced (by file name), the document's own included: how a rename is
/// tried before it is offered.
pub fn check_edited(
    documents: &Documents,
    search_path: &SearchPath,
    uri: &Url,
    edited: &HashMap<String, String>,
) -> Option<Checked> {
    let document = documents.get(uri)?;
    let files = DocumentFiles { documents, edited: Some(edited), disk: DiskFiles::new() };
    let session = Session::new(&files).with_search(search_path.clone()).with_deferred_fix_checks();
    let text = edited.get(&document.file_name).unwrap_or(&document.text);
    Some(session.check(&document.file_name, text))
}

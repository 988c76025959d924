//! The `.sk` inputs of a command: files, or standard input when the file is `-` (named `<stdin>` in diagnostics;
//! its `open M` looks in the working directory, then the search path).

use std::io::Read;
use std::path::Path;

/// The name standard input has in diagnostics.
pub const STDIN_NAME: &str = "<stdin>";

/// Whether the command-line argument `path` means standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// The name of an input as diagnostics and messages show it.
pub fn display_name(path: &Path) -> String {
    if is_stdin(path) {
        STDIN_NAME.to_string()
    } else {
        path.display().to_string()
    }
}

/// The file stem artifacts are named after: the file's own, `stdin` for standard input.
pub fn artifact_stem(path: &Path) -> String {
    if is_stdin(path) {
        return "stdin".to_string();
    }
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "program".into())
}

/// All of standard input as text; `Err` says why it could not be read.
pub fn read_stdin() -> Result<String, String> {
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes).map_err(|e| format!("cannot read {STDIN_NAME}: {e}"))?;
    String::from_utf8(bytes).map_err(|_| format!("cannot read {STDIN_NAME}: not valid UTF-8"))
}

//! A compilation session: everything that decides what a `.sk` program means besides its own text, in one value
//! that every tool builds and passes to [`Session::check`] or [`Session::compile`]: where its text comes from
//! ([`Files`]), where `open M` looks ([`SearchPath`], the rule in [`search`]), modules held in memory (generated
//! by a host), `-D` definitions, allowed warnings, the target whose resource limits apply and emit options. The
//! CLI, the language server, skc-runtime, skc-build, the host libraries and the tests all compile through it.
//!
//! ```ignore
//! let files = DiskFiles::new();
//! let session = Session::standard(&files).with_define("block_warps", "8");
//! let compiled = session.compile_file(Path::new("kernels/scan.sk"))?; // front end, then CUDA C
//! ```

pub mod files;
pub mod search;

use std::path::{Path, PathBuf};

use crate::codegen::{emit_cuda, CudaOutput, EmitOptions};
use crate::diagnostic::{self, ColorChoice};
use crate::driver::{CheckOptions, Checked, ModuleLoader};

pub use files::{DiskFiles, Files, MemoryFiles};
pub use search::{stdlib_root, SearchPath, STDLIB_ENV};

/// How to compile: text, modules, definitions and options. Cheap to build; borrow it for every program.
#[derive(Clone)]
pub struct Session<'f> {
    pub files: &'f dyn Files,
    pub search: SearchPath,
    /// Modules found by name before any file: `(module name, text)`.
    pub modules: Vec<(String, String)>,
    pub check: CheckOptions,
    pub emit: EmitOptions,
}

/// A program that passed the front end, and its CUDA C.
pub struct Compiled {
    pub checked: Checked,
    pub cuda: CudaOutput,
}

/// Why [`Session::compile`] produced no CUDA C.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompileError {
    /// The root file could not be read.
    Read { path: PathBuf, reason: String },
    /// The program has errors, rendered as `skc check` prints them (no colour).
    Errors { file: String, error_count: usize, rendered: String },
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompileError::Read { path, reason } => write!(f, "cannot read {}: {reason}", path.display()),
            CompileError::Errors { file, error_count, rendered } => {
                let plural = if *error_count == 1 { "" } else { "s" };
                write!(f, "{file} has {error_count} error{plural}:\n{}", rendered.trim_end())
            }
        }
    }
}

impl std::error::Error for CompileError {}

impl<'f> Session<'f> {
    /// A session whose `open M` looks only next to the importing file.
    pub fn new(files: &'f dyn Files) -> Session<'f> {
        Session {
            files,
            search: SearchPath::empty(),
            modules: Vec::new(),
            check: CheckOptions::default(),
            emit: EmitOptions::default(),
        }
    }

    /// A session with the standard search path: next to the importing file, then the standard library and its
    /// area folders ([`SearchPath::standard`]).
    pub fn standard(files: &'f dyn Files) -> Session<'f> {
        Session::new(files).with_search(SearchPath::standard(&[], files))
    }

    pub fn with_search(mut self, search: SearchPath) -> Session<'f> {
        self.search = search;
        self
    }

    /// `open name` finds `text` before looking for any file.
    pub fn with_module(mut self, name: impl Into<String>, text: impl Into<String>) -> Session<'f> {
        self.modules.push((name.into(), text.into()));
        self
    }

    /// `-D name=value`: overrides the top-level constant `name` (the value is the source text of a literal).
    pub fn with_define(mut self, name: impl Into<String>, value: impl ToString) -> Session<'f> {
        self.check.typeck.defines.push((name.into(), value.to_string()));
        self
    }

    pub fn with_defines(mut self, defines: impl IntoIterator<Item = (String, String)>) -> Session<'f> {
        self.check.typeck.defines.extend(defines);
        self
    }

    /// `-A code`: the warning `code` is not reported.
    pub fn with_allowed(mut self, code: impl Into<String>) -> Session<'f> {
        self.check.allow.push(code.into());
        self
    }

    /// The architecture whose resource limits the program must fit (`--arch`; sm_90 by default).
    pub fn with_target(mut self, target: crate::target::Target) -> Session<'f> {
        self.check.target = target;
        self
    }

    /// The host launches every kernel of the program with blocks of whole warps (a multiple of 32 threads): the
    /// convergence analysis and the emitter may rely on every lane of a warp existing
    /// ([`CheckOptions::full_warps`], [`EmitOptions::full_warps`]).
    pub fn with_full_warps(mut self) -> Session<'f> {
        self.check.full_warps = true;
        self.emit.full_warps = true;
        self
    }

    /// Edits that fix divergence errors are attached without checking the edited file (see
    /// [`CheckOptions::defer_fix_checks`]): for a caller that checks the one it offers.
    pub fn with_deferred_fix_checks(mut self) -> Session<'f> {
        self.check.defer_fix_checks = true;
        self
    }

    pub fn with_emit(mut self, emit: EmitOptions) -> Session<'f> {
        self.emit = emit;
        self
    }

    /// The front end over `text`, named `name` (its path: `open M` looks next to it first). The result keeps the
    /// text: an owned one (`String`) is moved there, a borrowed one copied.
    pub fn check(&self, name: &str, text: impl Into<String>) -> Checked {
        crate::driver::check(name, text, &Loader(self), &self.check)
    }

    /// [`check`](Self::check) of a file read through the session's [`Files`].
    pub fn check_file(&self, path: &Path) -> Result<Checked, CompileError> {
        let text = self.read(path)?;
        Ok(self.check(&path.display().to_string(), text))
    }

    /// The CUDA C of a checked program without errors, with the session's emit options.
    pub fn emit(&self, checked: &Checked) -> CudaOutput {
        emit_cuda(&checked.module, &checked.types, &checked.sources, &self.emit)
    }

    /// The front end, then (if it found no error) the CUDA C.
    pub fn compile(&self, name: &str, text: &str) -> Result<Compiled, CompileError> {
        let checked = self.check(name, text);
        if checked.has_errors() {
            return Err(errors(name, &checked));
        }
        let cuda = self.emit(&checked);
        Ok(Compiled { checked, cuda })
    }

    /// [`compile`](Self::compile) of a file read through the session's [`Files`].
    pub fn compile_file(&self, path: &Path) -> Result<Compiled, CompileError> {
        let text = self.read(path)?;
        self.compile(&path.display().to_string(), &text)
    }

    fn read(&self, path: &Path) -> Result<String, CompileError> {
        self.files.read(path).map_err(|e| CompileError::Read { path: path.to_path_buf(), reason: e.to_string() })
    }
}

/// The diagnostics of a program with errors, rendered without colour.
fn errors(name: &str, checked: &Checked) -> CompileError {
    let rendered: Vec<String> =
        checked.diagnostics.iter().map(|d| diagnostic::render(d, &checked.sources, ColorChoice::Never)).collect();
    CompileError::Errors { file: name.to_string(), error_count: checked.error_count(), rendered: rendered.join("\n") }
}

/// The driver's view of a session: [`search::resolve`] over its modules, search path and files.
struct Loader<'s, 'f>(&'s Session<'f>);

impl ModuleLoader for Loader<'_, '_> {
    fn load(&self, module: &str, importer: &str) -> Result<(String, String), String> {
        let session = self.0;
        search::resolve(module, importer, &session.search, &session.modules, session.files)
            .map(|found| (found.name, found.text))
    }
}

#[cfg(test)]
mod tests;

//! skc-core: the compiler of the `.sk` GPU kernel language, from source text to CUDA C.
//!
//! Pipeline (see ARCHITECTURE.md): `syntax` (lex, parse, never fails) -> `typeck` (names, types, constants)
//! -> `limits` (the target's resource limits) -> `convergence` (barriers and warp collectives only in converged control flow) -> `lint` (warnings on
//! its facts) -> `codegen` (CUDA C).
//! `driver` runs the stages over a root file and the modules it opens; `session` is what every tool compiles
//! through (files, the search rule for `open M`, definitions and options). This crate never links CUDA, and its
//! one file-system reader, [`session::DiskFiles`], is used only when a tool hands it to a session.

pub mod builtins;
pub mod codegen;
pub mod codes;
pub mod constant_if;
pub mod contract;
pub mod convergence;
pub mod diagnostic;
pub mod driver;
pub mod excerpt;
pub mod explain;
pub(crate) mod fxhash;
pub mod half_float;
pub mod instances;
pub mod integer_power;
pub mod limits;
pub mod lint;
pub mod parallel;
pub mod printf_format;
pub mod session;
pub mod source;
pub mod stack;
pub mod storage;
pub mod syntax;
pub mod target;
pub mod typeck;
pub mod types;
pub mod vectors;
pub(crate) mod warm;

pub use diagnostic::{Diagnostic, Severity};
pub use driver::{check, Checked, ModuleLoader, NoModules};
pub use session::{CompileError, Compiled, DiskFiles, Files, SearchPath, Session};
pub use source::{FileId, SourceMap, Span};

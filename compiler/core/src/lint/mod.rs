//! Lints: warnings about programs that are correct but could be written better for the GPU (W0101), or read
//! differently from what they do (W0102). They run after the
//! convergence analysis and read its facts; they never change a verdict (a lint only adds warnings, which
//! `CheckOptions::allow` silences by code).

pub mod misleading_indentation;
pub mod predicated_commit;

use crate::convergence::UniformityInfo;
use crate::diagnostic::Diagnostic;
use crate::source::SourceMap;
use crate::syntax::ast::Module;
use crate::types::TypeInfo;

/// The lints that read the convergence analysis' facts.
pub fn after_convergence(
    module: &Module,
    types: &TypeInfo,
    uniformity: &UniformityInfo,
    sources: &SourceMap,
) -> Vec<Diagnostic> {
    predicated_commit::check(module, types, uniformity, sources)
}

/// The lints that read only the tree and the text (the driver runs them beside the convergence analysis).
pub fn syntactic(module: &Module, sources: &SourceMap) -> Vec<Diagnostic> {
    misleading_indentation::check(module, sources)
}

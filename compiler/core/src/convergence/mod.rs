//! The convergence analysis. (Being written.)

use crate::diagnostic::Diagnostic;
use crate::syntax::ast::Module;
use crate::types::TypeInfo;

/// Uniformity facts for the language server's hover.
#[derive(Clone, Debug, Default)]
pub struct UniformityInfo {}

pub fn analyse(_module: &Module, _types: &TypeInfo) -> (UniformityInfo, Vec<Diagnostic>) {
    (UniformityInfo::default(), Vec::new())
}

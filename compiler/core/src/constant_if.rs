//! `if`s whose condition is a compile-time constant (literals, constants, module value parameters and `-D`
//! values combined by operators; the checker records them in `TypeInfo::constant_conditions`). Only the branch
//! that runs is emitted as CUDA C (`codegen`), reaches the emitted functions (`codegen::reach`) and is compiled
//! by the interpreter; the other never runs in this configuration, so what only a real use needs of the target
//! (a builtin the architecture lacks, `limits`) is not asked of it. Both branches are still type-checked, and the
//! convergence analysis still analyses both (conservative: ARCHITECTURE.md says why).

use crate::syntax::ast::{ExprId, Module};
use crate::types::TypeInfo;

/// For each expression (by `ExprId` index), whether it lies in a branch that never runs: the `else` of a constant
/// `if` whose condition is true, the `then` of one whose condition is false.
pub fn never_run(module: &Module, types: &TypeInfo) -> Vec<bool> {
    let mut dead = vec![false; module.exprs.len()];
    let mut stack: Vec<ExprId> = Vec::new();
    for (&e, &condition) in types.constant_conditions.iter() {
        let Some(crate::syntax::ast::ExprKind::If { then_branch, else_branch, .. }) = module.exprs.get(e.index())
        else {
            continue;
        };
        stack.extend(if condition { *else_branch } else { Some(*then_branch) });
    }
    while let Some(e) = stack.pop() {
        if e.index() >= dead.len() || std::mem::replace(&mut dead[e.index()], true) {
            continue;
        }
        stack.extend(module.children(e));
    }
    dead
}

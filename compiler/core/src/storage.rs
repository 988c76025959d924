//! Which variables an expression of array, vector or `ref` type refers to. Such a value is a reference to storage
//! declared elsewhere (the emitted CUDA C passes arrays and vectors as pointers and `ref` cells as C++
//! references), so a write through it changes the variable it names: the type checker follows these names to
//! know which vectors a kernel writes, and the convergence analysis to know whose contents a write changes.

use crate::syntax::ast::{ExprId, ExprKind, Module};
use crate::types::{LocalId, Resolution};

/// How deep one search follows nested expressions at most (the parser already bounds nesting; this is defence
/// against broken input only).
const MAX_DEPTH: u32 = 512;

/// Pushes onto `out` every local that `e` may evaluate to, once each: the variable it names, through annotations,
/// the last expression of a sequence or a `let`'s body, both branches of an `if` and both operands of a `select`.
/// Nothing for other expressions (literals, calls of functions, elements). `resolve` gives the resolution of a
/// name.
pub fn pointer_roots(
    module: &Module,
    resolve: &impl Fn(ExprId) -> Option<Resolution>,
    e: ExprId,
    out: &mut Vec<LocalId>,
) {
    roots_at(module, resolve, e, out, 0)
}

fn roots_at(
    module: &Module,
    resolve: &impl Fn(ExprId) -> Option<Resolution>,
    e: ExprId,
    out: &mut Vec<LocalId>,
    depth: u32,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let Some(kind) = module.exprs.get(e.index()) else { return };
    let next = |e: ExprId, out: &mut Vec<LocalId>| roots_at(module, resolve, e, out, depth + 1);
    match kind {
        ExprKind::Var(_) => {
            if let Some(Resolution::Local(local)) = resolve(e) {
                if !out.contains(&local) {
                    out.push(local);
                }
            }
        }
        ExprKind::Annot { expr, .. } => next(*expr, out),
        ExprKind::Seq(_, last) => next(*last, out),
        ExprKind::Let { body, .. } | ExprKind::LetArray { body, .. } | ExprKind::Pragma { body, .. } => {
            next(*body, out)
        }
        ExprKind::If { then_branch, else_branch, .. } => {
            next(*then_branch, out);
            if let Some(else_branch) = else_branch {
                next(*else_branch, out);
            }
        }
        ExprKind::Call { args, .. } => {
            if matches!(resolve(e), Some(Resolution::Builtin(b)) if b.name == "select") {
                for arg in args.iter().skip(1) {
                    next(*arg, out);
                }
            }
        }
        _ => {}
    }
}

/// `e` without the type annotations around it.
pub fn strip_annotations(module: &Module, mut e: ExprId) -> ExprId {
    while let Some(ExprKind::Annot { expr, .. }) = module.exprs.get(e.index()) {
        e = *expr;
    }
    e
}

//! Which variables an expression of array, vector or `ref` type refers to. Such a value is a reference to storage
//! declared elsewhere (the emitted CUDA C passes arrays and vectors as pointers and `ref` cells as C++
//! references), so a write through it changes the variable it names: the type checker follows these names to
//! know which vectors a kernel writes, and the convergence analysis to know whose contents a write changes.

use crate::syntax::ast::{ExprId, ExprKind, Module};
use crate::types::{LocalId, Resolution};

/// Pushes onto `out` every local that `e` may evaluate to, once each: the variable it names, through annotations,
/// the last expression of a sequence or a `let`'s body, both branches of an `if` and both operands of a `select`.
/// Nothing for other expressions (literals, calls of functions, elements). `resolve` gives the resolution of a
/// name.
///
/// Never stops early: a root left out would hide a write from the analyses. The spines (a sequence's last
/// expression, a `let`'s body, annotations) are followed in a loop, since they may be arbitrarily long; the
/// recursion is through branches and `select` operands only, whose nesting the parser bounds (E0104).
pub fn pointer_roots(
    module: &Module,
    resolve: &impl Fn(ExprId) -> Option<Resolution>,
    e: ExprId,
    out: &mut Vec<LocalId>,
) {
    let mut e = e;
    loop {
        let Some(kind) = module.exprs.get(e.index()) else { return };
        e = match kind {
            ExprKind::Annot { expr, .. } => *expr,
            ExprKind::Seq(_, last) => *last,
            ExprKind::Let { body, .. } | ExprKind::LetArray { body, .. } | ExprKind::Pragma { body, .. } => *body,
            _ => break,
        };
    }
    match &module.exprs[e.index()] {
        ExprKind::Var(_) => {
            if let Some(Resolution::Local(local)) = resolve(e) {
                if !out.contains(&local) {
                    out.push(local);
                }
            }
        }
        ExprKind::If { then_branch, else_branch, .. } => {
            pointer_roots(module, resolve, *then_branch, out);
            if let Some(else_branch) = else_branch {
                pointer_roots(module, resolve, *else_branch, out);
            }
        }
        ExprKind::Call { args, .. } => {
            if matches!(resolve(e), Some(Resolution::Builtin(b)) if b.name == "select") {
                for arg in args.iter().skip(1) {
                    pointer_roots(module, resolve, *arg, out);
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

/// The array an index's array operand belongs to: `t` for the rows `t.(y)` and `t.(z).(y)` of a
/// multi-dimensional array, `e` itself otherwise. Only for an operand of array type (that of `a.(i)` or
/// `a.(i) <- v`), where every `Index` is a row: the type checker makes rows only by indexing the array's name
/// (`typeck::dims`), so a write to an element of a row is a write to the named array.
pub fn row_owner(module: &Module, mut e: ExprId) -> ExprId {
    while let Some(ExprKind::Index { array, .. }) = module.exprs.get(e.index()) {
        e = *array;
    }
    e
}

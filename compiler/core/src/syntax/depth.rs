//! The nesting limit. Later passes walk the tree recursively, so an expression nested deeper than
//! [`MAX_DEPTH`] is reported (E0104) and cut off (replaced by an error node) instead of overflowing their
//! stacks. Depth counts what nests: operands, branches, bodies; not the spines that passes follow in a loop or
//! on their large stacks (the statements of a sequence, the body of a `let`, the left operand of a
//! left-associative chain such as `a + b + c`).

use crate::diagnostic::Diagnostic;
use crate::syntax::ast::{for_each_child, ExprId, ExprKind, Item, Module};

/// Deepest expression nesting accepted.
pub const MAX_DEPTH: u32 = 200;

/// Cuts every expression of the items from `first_item` on (and of the arena from `first_expr` on) that lies
/// deeper than [`MAX_DEPTH`]; reports the first one.
pub fn limit_nesting(module: &mut Module, first_item: usize, first_expr: usize) -> Option<Diagnostic> {
    if module.exprs.len() - first_expr < MAX_DEPTH as usize {
        return None; // Fewer nodes than levels: nothing can be too deep.
    }
    if !any_too_deep(module, first_expr) {
        return None;
    }
    let roots: Vec<ExprId> = module.items[first_item..].iter().filter_map(item_body).collect();
    let mut stack: Vec<(ExprId, u32)> = roots.into_iter().map(|root| (root, 0)).collect();
    let mut first = None;
    let mut children = Vec::new();
    while let Some((id, depth)) = stack.pop() {
        if depth > MAX_DEPTH {
            first = first.or(Some(module.span(id)));
            module.exprs[id.index()] = ExprKind::Error;
            continue;
        }
        let tail = tail_child(module.expr(id));
        children.clear();
        module.push_children(id, &mut children);
        for &child in &children {
            let same_level = tail == Some(child);
            stack.push((child, if same_level { depth } else { depth + 1 }));
        }
    }
    first.map(|span| {
        let at = crate::source::Span { end: span.start, ..span };
        Diagnostic::error("E0104", "expression nested too deeply")
            .primary(at, format!("more than {MAX_DEPTH} levels of nesting here"))
    })
}

/// Whether some expression from `first_expr` on lies deeper than [`MAX_DEPTH`] below an expression of the arena.
/// Children are allocated before their parents, so one pass in arena order knows each node's height (the
/// deepest nesting below it, saturated past the limit) from its children's; the roots' heights bound every depth.
pub(super) fn any_too_deep(module: &Module, first_expr: usize) -> bool {
    let limit = MAX_DEPTH as u8;
    let mut heights: Vec<u8> = Vec::with_capacity(module.exprs.len() - first_expr);
    for kind in &module.exprs[first_expr..] {
        let tail = tail_child(kind);
        let mut height = 0u8;
        let mut outside = false;
        for_each_child(kind, |child| match child.index().checked_sub(first_expr).and_then(|c| heights.get(c)) {
            Some(&below) => height = height.max(below.saturating_add(u8::from(Some(child) != tail))),
            // A child allocated before this file (never the case for a tree the builder made) is treated as
            // too deep, so that the exact walk decides.
            None => outside = true,
        });
        if outside || height > limit {
            return true;
        }
        heights.push(height);
    }
    false
}

fn item_body(item: &Item) -> Option<ExprId> {
    match item {
        Item::Kernel(k) => Some(k.body),
        Item::Function(f) => Some(f.body),
        Item::Constant(c) => Some(c.value),
        Item::Record(_) | Item::Open(_) => None,
    }
}

/// The child at its parent's level, if any: the rest of a sequence, a `let` body, the left operand of a binary
/// operator, the target of an assignment.
fn tail_child(kind: &ExprKind) -> Option<ExprId> {
    match kind {
        ExprKind::Seq(_, rest) => Some(*rest),
        ExprKind::Let { body, .. } => Some(*body),
        ExprKind::Binary { lhs, .. } => Some(*lhs),
        ExprKind::IndexSet { array, .. } => Some(*array),
        ExprKind::FieldSet { record, .. } => Some(*record),
        _ => None,
    }
}

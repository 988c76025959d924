//! Rewrites of what made a condition vary, rather than of the control flow around the operation:
//! - a condition that reads shared memory at a block-uniform index (`if s.(0) > 0`) reads it with
//!   `Gpu.uniform_load s 0` (a barrier, the load, a barrier), whose result is block-uniform;
//! - warp-index arithmetic (`thread_idx_x / 32`, `thread_idx_x lsr 5`) under a warp collective: in a kernel whose
//!   contract makes its blocks one-dimensional it is `warp_id` (the same value in every thread); otherwise the
//!   kernel declares `[@block_multiple 32]`, after which each warp has one value of it (launches with other
//!   blocks are refused, so this edit is one for a person to accept);
//! - E0004: a plain superstep with divergence inside becomes `superstep ~divergent` (the emitted code is the same);
//! - E0006: a named barrier's operand that may differ between lanes is broadcast from lane 0 (`Gpu.shfl v 0`),
//!   which changes nothing where the lanes agree.

use crate::diagnostic::Applicability;
use crate::source::Span;
use crate::syntax::ast::{BinaryOp, ExprId, ExprKind, Item, MemorySpace};
use crate::types::{Resolution, Type};

use super::super::lattice::{DivergenceKind, OriginKind, Uniformity};
use super::syntax::Fixer;
use super::{Converge, Fix, Scope};

pub(super) fn fix(f: &Fixer, request: &Converge) -> Option<Fix> {
    match request.root? {
        (OriginKind::SharedLoad(_), _) => uniform_load(f, request),
        (OriginKind::Builtin(e), _) if request.scope == Scope::Warp => warp_index(f, request, e),
        _ => None,
    }
}

/// The condition of the innermost branch, with every load of a shared array at a block-uniform index that every
/// thread evaluates (not under `&&`, `||` or an `if`) read through `Gpu.uniform_load`.
fn uniform_load(f: &Fixer, request: &Converge) -> Option<Fix> {
    let branch = request.chain.first()?;
    // The loads run where the branch is: every thread of the block must be there for the barriers they gain.
    let converged =
        request.chain.iter().skip(1).all(|l| l.kind == DivergenceKind::Branch && l.level <= Uniformity::BlockUniform);
    if branch.kind != DivergenceKind::Branch || !converged {
        return None;
    }
    let cond = f.find(branch.span, |_| true)?;
    if !matches!(f.parent(cond).map(|p| f.kind(p)), Some(ExprKind::If { cond: c, .. }) if *c == cond) {
        return None;
    }
    let mut loads = Vec::new();
    shared_loads(f, cond, &mut loads);
    if loads.is_empty() {
        return None;
    }
    let span = f.span(cond);
    let mut text = f.text(cond).to_string();
    for &(load, array, index) in loads.iter().rev() {
        let s = f.span(load);
        let replacement = format!("(Gpu.uniform_load {} {})", f.text(array), parenthesised(f, index));
        text.replace_range((s.start - span.start) as usize..(s.end - span.start) as usize, &replacement);
    }
    let first = f.text(loads[0].0);
    Some(Fix {
        message: "read the shared value with `Gpu.uniform_load`".into(),
        help: format!(
            "reads `{first}` with `Gpu.uniform_load` (a barrier, the load, a barrier): `if {text} then`. Every \
             thread of the block then gets the value stored before the first barrier, the same in all of them"
        ),
        span,
        replacement: text,
        applicability: Applicability::MachineApplicable,
    })
}

/// The loads of shared arrays at block-uniform indices in `e` that run whenever `e` does.
fn shared_loads(f: &Fixer, e: ExprId, out: &mut Vec<(ExprId, ExprId, ExprId)>) {
    match f.kind(e) {
        ExprKind::Index { array, index } => {
            let shared = matches!(f.types.type_of(*array), Type::Array { space: MemorySpace::Shared, .. });
            let named = matches!(f.types.resolution(*array), Some(Resolution::Local(_)));
            if shared && named && f.info.level(*index) <= Uniformity::BlockUniform && f.harmless(*index, false) {
                out.push((e, *array, *index));
            }
        }
        ExprKind::Binary { op: BinaryOp::And | BinaryOp::Or, lhs, .. } => shared_loads(f, *lhs, out),
        ExprKind::Binary { lhs, rhs, .. } => {
            shared_loads(f, *lhs, out);
            shared_loads(f, *rhs, out);
        }
        ExprKind::Unary { operand, .. } | ExprKind::Annot { expr: operand, .. } => shared_loads(f, *operand, out),
        _ => {}
    }
}

fn parenthesised(f: &Fixer, e: ExprId) -> String {
    match f.kind(e) {
        ExprKind::Var(_) | ExprKind::Int { .. } => f.text(e).to_string(),
        _ => format!("({})", f.text(e)),
    }
}

/// `thread_idx_x / 32k` or `thread_idx_x lsr s` (5 <= s < 32), with `e` its `thread_idx_x`, inside a kernel.
fn warp_index(f: &Fixer, request: &Converge, e: ExprId) -> Option<Fix> {
    let written = match f.kind(e) {
        ExprKind::Var(path) => path.name.name.as_str().to_string(),
        _ => return None,
    };
    if written != "thread_idx_x" || f.builtin(e)?.name != "thread_idx_x" {
        return None;
    }
    let division = f.parent(e)?;
    let ExprKind::Binary { op, lhs, rhs } = f.kind(division) else { return None };
    let ExprKind::Int { value, .. } = f.kind(*rhs) else { return None };
    let warps = match op {
        BinaryOp::Div if *value > 0 && value % 32 == 0 => value / 32,
        BinaryOp::Lsr | BinaryOp::Asr if (5..32).contains(value) => 1 << (value - 5),
        _ => return None,
    };
    if *lhs != e {
        return None;
    }
    let Item::Kernel(kernel) = f.item_at(request.op)? else { return None };
    if !kernel.span.contains(f.span(e).start as usize) {
        return None;
    }
    if kernel.contract.is_one_dimensional() {
        let replacement = if warps == 1 { "warp_id".to_string() } else { format!("(warp_id / {warps})") };
        return Some(Fix {
            message: format!("write `{replacement}`"),
            help: format!(
                "writes `{replacement}`: in the one-dimensional blocks the kernel's contract promises it is the same \
                 number as `{}`, and the analysis knows it is warp-uniform",
                f.text(division)
            ),
            span: f.span(division),
            replacement,
            applicability: Applicability::MachineApplicable,
        });
    }
    if kernel.contract.block_multiple.is_some() || kernel.contract.block_size.is_some() {
        return None;
    }
    Some(Fix {
        message: "declare `[@block_multiple 32]`".into(),
        help: format!(
            "declares `[@block_multiple 32]` on `{}`: each warp then has one value of `{}` and the program computes \
             the same, but launches whose `block_dim_x` is not a multiple of 32 are refused (a one-dimensional block \
             may use `warp_id` instead)",
            kernel.name.name.as_str(),
            f.text(division)
        ),
        span: Span { end: kernel.name.span.start, ..kernel.name.span },
        replacement: "[@block_multiple 32] ".into(),
        applicability: Applicability::MaybeIncorrect,
    })
}

/// E0004: `superstep { ... }` becomes `superstep ~divergent { ... }`.
pub(super) fn mark_divergent(f: &Fixer, superstep: Span) -> Option<Fix> {
    let text = f.sources.snippet(superstep);
    let rest = text.strip_prefix("superstep")?;
    if !rest.starts_with(|c: char| c.is_whitespace() || c == '{') || rest.trim_start().starts_with('~') {
        return None;
    }
    let at = superstep.start + "superstep".len() as u32;
    Some(Fix {
        message: "mark the superstep `~divergent`".into(),
        help: "marks it (the emitted code is the same)".into(),
        span: Span { start: at, end: at, ..superstep },
        replacement: " ~divergent".into(),
        applicability: Applicability::MachineApplicable,
    })
}

/// E0006: `named_barrier id n` with `n` not warp-uniform becomes `named_barrier id (Gpu.shfl n 0)`: lane 0's value,
/// in every lane (lane 0 always exists). The operand is still evaluated once in each lane.
pub(super) fn broadcast(f: &Fixer, operand: ExprId) -> Option<Fix> {
    if f.types.type_of(operand) != &Type::Int32 || f.contains_sync(operand) {
        return None;
    }
    let replacement = format!("(Gpu.shfl {} 0)", parenthesised(f, operand));
    Some(Fix {
        message: "broadcast lane 0's value with `Gpu.shfl`".into(),
        help: format!(
            "writes `{replacement}`: every lane then passes lane 0's value, which is the value of every lane where \
             they agree, and the one lane 0 passes where they do not"
        ),
        span: f.span(operand),
        replacement,
        applicability: Applicability::MachineApplicable,
    })
}

//! A loop whose trip count varies by thread, with the operation in its body: every thread of the group iterates
//! while some thread still runs (a barrier reduction, `Gpu.block_barrier_or`, for a block; a vote, `Gpu.any`, for
//! a warp), and the body's work is guarded by whether this thread still runs.
//!
//! `while c do body done` becomes
//! `let running = mut (c) in while Gpu.block_barrier_or running do <body guarded>; if running then running := c
//! done`: each thread evaluates `c` exactly where it did (before the first iteration, and after each iteration it
//! ran). `for i = a to b do body done` evaluates `a` and `b` once, as before, and counts with a variable that stops
//! at `b` (never past it, so the largest value of the type is no special case). Where the threads agree (a correct
//! program) every thread sees the same vote, so the iterations are the same; the vote is one more barrier per
//! iteration, which changes nothing for a program without data races.

use crate::diagnostic::Applicability;
use crate::syntax::ast::{ExprId, ExprKind};
use crate::types::Type;

use super::guard::render;
use super::syntax::Fixer;
use super::{Converge, Fix, Scope};

pub(super) fn fix(f: &Fixer, request: &Converge) -> Option<Fix> {
    let link = request.chain.first()?;
    if !request.outer_converged(1) {
        return None;
    }
    let loop_expr = f.find(link.span, |_| true).and_then(|e| f.parent(e)).filter(|&e| is_while_on(f, e, link.span));
    match loop_expr {
        Some(e) => while_loop(f, request, e),
        None => {
            let e = f.find_where(|_, kind| match kind {
                ExprKind::For { start, end, .. } => f.span(*start).to(f.span(*end)) == link.span,
                _ => false,
            })?;
            for_loop(f, request, e)
        }
    }
}

fn is_while_on(f: &Fixer, e: ExprId, span: crate::source::Span) -> bool {
    matches!(f.kind(e), ExprKind::While { cond, .. } if f.span(*cond) == span)
}

/// The vote that tells every thread of the group whether some thread still runs.
fn vote(scope: Scope, running: &str) -> String {
    match scope {
        Scope::Block => format!("Gpu.block_barrier_or {running}"),
        Scope::Warp => format!("Gpu.any {running}"),
    }
}

fn while_loop(f: &Fixer, request: &Converge, e: ExprId) -> Option<Fix> {
    let ExprKind::While { cond, body } = f.kind(e) else { return None };
    if f.contains_sync(*cond) || f.contains_exit(*cond) {
        return None;
    }
    let item = f.item_at(request.op)?.span();
    let running = f.fresh_name("running", item);
    let indent = f.indent_of(f.span(e));
    let (inner, body_indent) = (format!("{indent}  "), format!("{indent}    "));
    let mut pieces = Vec::new();
    f.flatten(*body, &mut pieces);
    let guarded = render(f, &pieces, &running, &body_indent, request.scope)?;
    let c = f.text(*cond);
    let replacement = format!(
        "begin\n{inner}let {running} = mut ({c}) in\n{inner}while {} do\n{body_indent}{guarded};\n{body_indent}if \
         {running} then {running} := {c}\n{inner}done\n{indent}end",
        vote(request.scope, &running)
    );
    Some(Fix {
        message: "iterate while some thread runs, with the work guarded".into(),
        help: format!(
            "keeps `{c}` in `{running}` (evaluated where it was) and iterates while it holds in some thread (`{}`), \
             with the body's work under `if {running}`: where the threads disagree on `{c}`, those done wait at {} \
             in each iteration the others run",
            vote(request.scope, &running),
            what(request.scope)
        ),
        span: f.span(e),
        replacement,
        applicability: Applicability::MachineApplicable,
    })
}

fn for_loop(f: &Fixer, request: &Converge, e: ExprId) -> Option<Fix> {
    let ExprKind::For { var, start, end, downto, body } = f.kind(e) else { return None };
    if f.types.type_of(*start) != &Type::Int32 || f.types.type_of(*end) != &Type::Int32 {
        return None;
    }
    if [*start, *end].iter().any(|&b| f.contains_sync(b) || f.contains_exit(b)) {
        return None;
    }
    let item = f.item_at(request.op)?.span();
    let [running, counter, last] = ["running", "counter", "last"].map(|base| f.fresh_name(base, item));
    let indent = f.indent_of(f.span(e));
    let (inner, body_indent) = (format!("{indent}  "), format!("{indent}    "));
    let mut pieces = Vec::new();
    f.flatten(*body, &mut pieces);
    let guarded = render(f, &pieces, &running, &body_indent, request.scope)?;
    let (compare, step) = if *downto { (">=", "-") } else { ("<=", "+") };
    let name = var.name.as_str();
    let replacement = format!(
        "begin\n{inner}let {counter} = mut ({}) in\n{inner}let {last} = {} in\n{inner}let {running} = mut ({counter} \
         {compare} {last}) in\n{inner}while {} do\n{body_indent}let {name} = {counter} in\n{body_indent}{guarded};\n\
         {body_indent}if {running} then begin\n{body_indent}  if {counter} = {last} then {running} := false else \
         {counter} := {counter} {step} 1\n{body_indent}end\n{inner}done\n{indent}end",
        f.text(*start),
        f.text(*end),
        vote(request.scope, &running)
    );
    Some(Fix {
        message: "iterate while some thread runs, with the work guarded".into(),
        help: format!(
            "counts `{name}` from `{}` to `{}` in each thread (evaluated once, as before) and iterates while some \
             thread still counts (`{}`), with the body's work under `if {running}`: where the threads' bounds \
             differ, those done wait at {} in each iteration the others run",
            f.text(*start),
            f.text(*end),
            vote(request.scope, &running),
            what(request.scope)
        ),
        span: f.span(e),
        replacement,
        applicability: Applicability::MachineApplicable,
    })
}

fn what(scope: Scope) -> &'static str {
    match scope {
        Scope::Block => "the barrier",
        Scope::Warp => "the collective",
    }
}

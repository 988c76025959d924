//! Rewrites of the control flow around an operation that needs converged threads:
//! - a thread-varying `if c then return` followed by the rest of the function: the rest guarded by a flag
//!   (`let active = not (c) in`), with the operations it holds outside the guards, so that every thread reaches
//!   them and only the active ones do the work;
//! - a thread-varying `if c then ...` whose branch holds the operation: the branch split around it (`let taken =
//!   c in if taken then ...; op; if taken then ...`); an operation with a result (a shuffle, a vote, a barrier
//!   reduction) runs in every thread before the statement that uses it, and the statement uses its result under
//!   the condition.
//!
//! Both keep the order of every effect, evaluate `c` once where it was evaluated, and let the threads that skipped
//! the code before evaluate only harmless expressions (see `syntax::Fixer::harmless`): a binding of the rest, or an
//! operand of the operation, that loads memory is evaluated under the guard (`if taken then v else 0`), and one
//! that calls a function or has an effect stops the edit. Loops whose trip count varies are `loops`'; `break`,
//! `continue` and the condition of a `while` that holds the operation get no edit: their help stays in words.

use crate::builtins::{Requirement, SigType};
use crate::diagnostic::Applicability;
use crate::syntax::ast::{ExprId, ExprKind};
use crate::types::Type;

use super::super::lattice::DivergenceKind;
use super::syntax::{Fixer, Piece};
use super::{Converge, Fix, Scope};

pub(super) fn fix(f: &Fixer, request: &Converge) -> Option<Fix> {
    match request.chain.first()?.kind {
        DivergenceKind::Return => flag_instead_of_return(f, request),
        DivergenceKind::Branch => split_branch(f, request),
        DivergenceKind::Loop => super::loops::fix(f, request),
        _ => None,
    }
}

/// `if c then return; rest` at the end of a function's body becomes `let active = not (c) in` and `rest` guarded.
fn flag_instead_of_return(f: &Fixer, request: &Converge) -> Option<Fix> {
    let [exit, branch, ..] = request.chain else { return None };
    if !request.outer_converged(2) {
        return None;
    }
    let if_expr = f.find(branch.span, |_| true).and_then(|e| f.parent(e))?;
    let ExprKind::If { cond, then_branch, else_branch: None } = f.kind(if_expr) else { return None };
    if f.span(*cond) != branch.span
        || !matches!(f.kind(*then_branch), ExprKind::Return(None))
        || f.span(*then_branch) != exit.span
    {
        return None;
    }
    let Some(ExprKind::Seq(first, rest)) = f.parent(if_expr).map(|p| f.kind(p)) else { return None };
    if *first != if_expr || !ends_the_body(f, f.parent(if_expr)?) {
        return None;
    }
    let item = f.item_at(request.op)?.span();
    let name = f.fresh_name("active", item);
    let indent = f.indent_of(f.span(if_expr));
    let mut pieces = Vec::new();
    f.flatten(*rest, &mut pieces);
    let guarded = render(f, &pieces, &name, &indent, request.scope)?;
    let span = f.span(if_expr).to(f.span(*rest));
    let replacement = format!("let {name} = not {} in\n{indent}{guarded}", parenthesised(f, *cond));
    Some(Fix {
        message: format!("guard the rest with `{name}` instead of returning"),
        help: format!(
            "binds `{name} = not ({c})` instead of returning and runs the work after it under `if {name}`, so every \
             thread reaches {what}: where `{c}` holds only in some threads, those now reach {what} too, without \
             doing the work",
            c = f.text(*cond),
            what = what(f, request)
        ),
        span,
        replacement,
        applicability: Applicability::MachineApplicable,
    })
}

/// Is the sequence `seq` the end of its function's body: reached from the body only through the second operand of
/// `;` and the bodies of bindings (so that a `return` in it leaves nothing but the rest of `seq`)?
fn ends_the_body(f: &Fixer, mut e: ExprId) -> bool {
    while let Some(parent) = f.parent(e) {
        let tail = match f.kind(parent) {
            ExprKind::Seq(_, b) => *b == e,
            ExprKind::Let { body, .. } | ExprKind::LetArray { body, .. } => *body == e,
            _ => false,
        };
        if !tail {
            return false;
        }
        e = parent;
    }
    let body = f.item_at(f.span(e)).map(|item| match item {
        crate::syntax::ast::Item::Kernel(k) => k.body,
        crate::syntax::ast::Item::Function(function) => function.body,
        _ => ExprId(u32::MAX),
    });
    body == Some(e)
}

/// `if c then body` whose body holds the operation: `let taken = c in` and `body` split around it.
fn split_branch(f: &Fixer, request: &Converge) -> Option<Fix> {
    let branch = request.chain.first()?;
    if !request.outer_converged(1) {
        return None;
    }
    let if_expr = f.find(branch.span, |_| true).and_then(|e| f.parent(e))?;
    let ExprKind::If { cond, then_branch, else_branch: None } = f.kind(if_expr) else { return None };
    let body = f.span(*then_branch);
    if f.span(*cond) != branch.span || request.op.start < body.start || body.end < request.op.end {
        return None;
    }
    let item = f.item_at(request.op)?.span();
    let name = f.fresh_name("taken", item);
    let indent = f.indent_of(f.span(if_expr));
    let inner = format!("{indent}  ");
    let mut pieces = Vec::new();
    f.flatten(*then_branch, &mut pieces);
    let guarded = render(f, &pieces, &name, &inner, request.scope)?;
    let (c, what) = (f.text(*cond), what(f, request));
    let guards_work = guarded.contains(&format!("if {name} then"));
    let (replacement, help) = if !guards_work && f.harmless(*cond, true) {
        // Nothing is left under the condition, which has no effect: the operation alone.
        (
            guarded,
            format!("runs {what} in every thread: where `{c}` holds only in some threads, the others now reach it too"),
        )
    } else if !guards_work {
        // Nothing is left under the condition, which is still evaluated once, where it was.
        (
            format!("begin\n{inner}let {name} = {c} in\n{inner}{guarded}\n{indent}end"),
            format!(
                "evaluates the condition as before (bound to `{name}`) and runs {what} in every thread: where `{c}` \
                 holds only in some threads, the others now reach it too"
            ),
        )
    } else {
        let results = if guarded.contains(&format!("let {}", hoisted_name(request.scope))) {
            " (a result it gives is computed in every thread and used under the condition)"
        } else {
            ""
        };
        (
            format!("begin\n{inner}let {name} = {c} in\n{inner}{guarded}\n{indent}end"),
            format!(
                "binds the condition to `{name}` and runs the branch's work under `if {name}`, with {what} outside \
                 it{results}: where `{c}` holds only in some threads, the others now reach {what} too, without doing \
                 the work"
            ),
        )
    };
    let message = match guards_work {
        true => format!("split the branch around {what}"),
        false => format!("run {what} in every thread"),
    };
    Some(Fix { message, help, span: f.span(if_expr), replacement, applicability: Applicability::MachineApplicable })
}

/// The name a hoisted operation's result is bound to (before `fresh_name` makes it unique).
fn hoisted_name(scope: Scope) -> &'static str {
    match scope {
        Scope::Warp => "exchanged",
        Scope::Block => "reduced",
    }
}

/// The operation, in a sentence.
fn what(f: &Fixer, request: &Converge) -> &'static str {
    match request.scope {
        Scope::Block if f.sources.snippet(request.op).starts_with("superstep") => "the superstep",
        Scope::Block => "the barrier",
        Scope::Warp => "the collective",
    }
}

/// `e`'s text, in parentheses unless it is a name or a literal.
fn parenthesised(f: &Fixer, e: ExprId) -> String {
    match f.kind(e) {
        ExprKind::Var(_) | ExprKind::Bool(_) => f.text(e).to_string(),
        _ => format!("({})", f.text(e)),
    }
}

/// The pieces with their work under `if guard`: bindings stay outside (their values are harmless), an operation
/// that needs converged threads stays outside as a statement of its own, and one with a result that a statement
/// uses is bound before it. `None` if a piece cannot be placed so.
pub(super) fn render(f: &Fixer, pieces: &[Piece], guard: &str, indent: &str, scope: Scope) -> Option<String> {
    let mut out = Output { text: String::new(), indent: indent.to_string(), pending: Vec::new(), after_binding: true };
    let mut synced = false;
    for &piece in pieces {
        match piece {
            Piece::Binding(e) => {
                out.flush(guard);
                out.line(&f.binding_header(e)?, true);
            }
            Piece::Statement(e) if !f.contains_sync(e) => {
                if f.contains_exit(e) {
                    return None;
                }
                out.pending.push(f.text(e).to_string());
            }
            Piece::Statement(e) if matches!(f.kind(e), ExprKind::Superstep { .. }) => {
                out.flush(guard);
                out.line(&superstep_text(f, e, guard)?, false);
                synced = true;
            }
            Piece::Statement(e) if is_operation(f, e) => {
                out.flush(guard);
                out.line(&operation_text(f, e, guard)?, false);
                synced = true;
            }
            Piece::Statement(e) => {
                let (bindings, statement) = hoisted(f, e, guard, scope)?;
                out.flush(guard);
                for binding in bindings {
                    out.line(&binding, true);
                }
                out.pending.push(statement);
                out.flush(guard);
                synced = true;
            }
        }
    }
    out.flush(guard);
    synced.then_some(out.text)
}

/// The edited text, built line by line.
struct Output {
    text: String,
    indent: String,
    /// Statements waiting to be guarded together.
    pending: Vec<String>,
    after_binding: bool,
}

impl Output {
    /// Appends a line: a binding (`let ... in`, no `;` after it) or a statement.
    fn line(&mut self, line: &str, binding: bool) {
        if !self.text.is_empty() {
            self.text.push_str(if self.after_binding { "\n" } else { ";\n" });
            self.text.push_str(&self.indent);
        }
        self.text.push_str(line);
        self.after_binding = binding;
    }

    /// Writes the pending statements as `if guard then begin ... end`.
    fn flush(&mut self, guard: &str) {
        if self.pending.is_empty() {
            return;
        }
        let inner = format!("{}  ", self.indent);
        let body: Vec<String> = self.pending.drain(..).map(|s| s.replace('\n', "\n  ")).collect();
        let block = format!("if {guard} then begin\n{inner}{}\n{}end", body.join(&format!(";\n{inner}")), self.indent);
        self.line(&block, false);
    }
}

/// A superstep that every thread enters, with its work under the guard (its barrier at the end stays outside).
fn superstep_text(f: &Fixer, e: ExprId, guard: &str) -> Option<String> {
    let ExprKind::Superstep { body, .. } = f.kind(e) else { return None };
    if f.contains_sync(*body) || f.contains_exit(*body) {
        return None;
    }
    let (span, inner) = (f.span(e), f.span(*body));
    let mut text = f.sources.snippet(span).to_string();
    if !text.starts_with("superstep") {
        return None;
    }
    let guarded = format!("if {guard} then begin {} end", f.text(*body));
    text.replace_range((inner.start - span.start) as usize..(inner.end - span.start) as usize, &guarded);
    Some(text)
}

/// Is `e`, as a whole statement, one call of an operation that needs converged threads?
fn is_operation(f: &Fixer, e: ExprId) -> bool {
    f.builtin(e).is_some_and(|b| b.requirement != Requirement::None)
}

/// The operation `e` as every thread runs it: each operand harmless, or loaded under the guard.
fn operation_text(f: &Fixer, e: ExprId, guard: &str) -> Option<String> {
    let ExprKind::Call { args, .. } = f.kind(e) else { return Some(f.text(e).to_string()) };
    let span = f.span(e);
    let mut text = f.sources.snippet(span).to_string();
    // Replace operands from the last, so earlier offsets stay valid.
    for &arg in args.iter().rev() {
        if f.harmless(arg, false) {
            continue;
        }
        if f.contains_sync(arg) || !f.harmless(arg, true) {
            return None;
        }
        let default = default_value(f.types.type_of(arg))?;
        let s = f.span(arg);
        let range = (s.start - span.start) as usize..(s.end - span.start) as usize;
        text.replace_range(range, &format!("(if {guard} then {} else {default})", f.text(arg)));
    }
    Some(text)
}

/// A statement that uses the result of operations needing converged threads (`x := x + shfl_down x 16`): each
/// operation bound before it (`let shuffled = ... in`), the statement with their names in their place. Only a
/// store or an assignment whose other parts have no effect qualifies (so moving the operations before it moves
/// them across nothing).
fn hoisted(f: &Fixer, e: ExprId, guard: &str, scope: Scope) -> Option<(Vec<String>, String)> {
    let parts: Vec<ExprId> = match f.kind(e) {
        ExprKind::Assign { value, .. } => vec![*value],
        ExprKind::IndexSet { array, index, value } => vec![*array, *index, *value],
        ExprKind::FieldSet { record, value, .. } => vec![*record, *value],
        _ => return None,
    };
    let mut operations = Vec::new();
    for part in parts {
        operations_in(f, part, &mut operations)?;
    }
    let item = f.item_at(f.span(e))?.span();
    let span = f.span(e);
    let mut statement = f.text(e).to_string();
    let mut bindings = Vec::new();
    let base = hoisted_name(scope);
    let mut used = Vec::new();
    for (n, &op) in operations.iter().enumerate() {
        let mut name = f.fresh_name(base, item);
        if n > 0 {
            name = format!("{name}_{}", n + 1);
        }
        used.push(name.clone());
        bindings.push(format!("let {name} = {} in", operation_text(f, op, guard)?));
    }
    for (&op, name) in operations.iter().zip(&used).rev() {
        let s = f.span(op);
        statement.replace_range((s.start - span.start) as usize..(s.end - span.start) as usize, name);
    }
    Some((bindings, statement))
}

/// Collects, in source order, the operations with a result inside `e`, whose other parts must be harmless (no
/// effect, no load). `None` if something else stands in the way.
fn operations_in(f: &Fixer, e: ExprId, out: &mut Vec<ExprId>) -> Option<()> {
    if let Some(b) = f.builtin(e) {
        if b.requirement != Requirement::None {
            if b.ret == SigType::Unit {
                return None;
            }
            out.push(e);
            return Some(());
        }
    }
    if !f.contains_sync(e) {
        // No loads either: the operation may be a barrier, which a load must not cross.
        return f.harmless(e, false).then_some(());
    }
    match f.kind(e) {
        ExprKind::Unary { operand, .. } | ExprKind::Annot { expr: operand, .. } => operations_in(f, *operand, out),
        ExprKind::Binary { op, lhs, rhs } => {
            if matches!(op, crate::syntax::ast::BinaryOp::And | crate::syntax::ast::BinaryOp::Or) {
                return None;
            }
            operations_in(f, *lhs, out)?;
            operations_in(f, *rhs, out)
        }
        ExprKind::Call { args, .. } if f.builtin(e).is_some() => {
            for &arg in args {
                operations_in(f, arg, out)?;
            }
            Some(())
        }
        ExprKind::Index { array, index } => {
            operations_in(f, *array, out)?;
            operations_in(f, *index, out)
        }
        _ => None,
    }
}

/// A literal of type `ty` for the threads that would not have loaded an operand (its value is never used there).
fn default_value(ty: &Type) -> Option<&'static str> {
    match ty {
        Type::Int32 => Some("0"),
        Type::Float32 => Some("0.0"),
        Type::Bool => Some("false"),
        _ => None,
    }
}

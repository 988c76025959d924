//! Where `ref` cells and arrays may go (`E0222`). The emitted CUDA C passes a `ref` cell to a function by
//! reference (`int&`) and makes `let p = r in` a second name for `r` (`int& p = r;`); arrays and vectors are
//! pointers. Any other way of producing a cell (choosing it with `if` or `select`, taking it from an array or a
//! record, ending a sequence or a `let` with it, returning it from a function) would copy its contents into a new
//! variable, and a write through the copy would not reach the cell the program names. So a cell is produced only by
//! `ref e` or by a name where it is bound or passed (reading a cell, `!e`, is a value and needs no name); a cell
//! and a `mut` variable hold values (scalars, records), not cells or arrays (a record field holds one too:
//! `E0219`, `storage.rs`); and a function returns a value. The convergence analysis relies on these rules to know,
//! at every write, which variable's contents change.

use crate::diagnostic::Diagnostic;
use crate::syntax::ast::{ExprId, ExprKind};
use crate::types::{LocalId, Type};

use super::infer::Class;
use super::{Checker, Deferred};

/// What a deferred `E0222` check is about.
#[derive(Clone, Copy, Debug)]
pub(crate) enum CellRule {
    /// The expression, bound by `let` or passed as an argument, must not be a `ref` cell (it is not a name or
    /// `ref e`).
    NotACell,
    /// The expression is put in a new `ref` cell: it must be a value.
    CellContents,
    /// The local is a `mut` variable: it must hold a value.
    MutableContents(LocalId),
}

/// How the type of an expression stands with respect to one rule.
enum Verdict {
    Fine,
    Wrong(&'static str),
    /// Not known yet (an inference variable that may still become a cell or an array).
    Unknown,
}

impl Checker<'_> {
    /// Checks `E0222` for `value`, bound by `let` or passed as an argument where a value of type `ty` is expected:
    /// when that is a `ref` cell, `value` must name one (a variable, `ref e`, annotated or not).
    pub(crate) fn check_named_cell(&mut self, value: ExprId, ty: &Type) {
        let value = crate::storage::strip_annotations(self.module, value);
        if !matches!(self.kind(value), ExprKind::Var(_) | ExprKind::Ref(_) | ExprKind::Error) {
            self.apply_cell_rule(value, ty, CellRule::NotACell);
        }
    }

    /// Applies `rule` to `ty` (the type of `id`, or of the local it names) now, or defers it.
    pub(crate) fn apply_cell_rule(&mut self, id: ExprId, ty: &Type, rule: CellRule) {
        match self.cell_verdict(ty, rule, false) {
            Verdict::Fine => {}
            Verdict::Wrong(what) => self.report_cell_rule(id, what, rule),
            Verdict::Unknown => self.deferred.push(Deferred::Cell { expr: id, ty: ty.clone(), rule }),
        }
    }

    /// Runs a deferred check on the final type.
    pub(crate) fn finish_cell_rule(&mut self, id: ExprId, ty: &Type, rule: CellRule) {
        if let Verdict::Wrong(what) = self.cell_verdict(ty, rule, true) {
            self.report_cell_rule(id, what, rule);
        }
    }

    fn cell_verdict(&self, ty: &Type, rule: CellRule, is_final: bool) -> Verdict {
        let ty = self.vars.resolve_ref(ty);
        if let Type::Var(var) = ty {
            let open = match rule {
                CellRule::NotACell => self.vars.var_class(*var) == Some(Class::Any),
                CellRule::CellContents | CellRule::MutableContents(_) => {
                    matches!(self.vars.var_class(*var), Some(Class::Any | Class::Array))
                }
            };
            return if open && !is_final { Verdict::Unknown } else { Verdict::Fine };
        }
        match (rule, ty) {
            (CellRule::NotACell, Type::Ref(_)) => Verdict::Wrong("a `ref` cell"),
            (CellRule::NotACell, _) => Verdict::Fine,
            (_, other) => match reference_kind(other) {
                Some(what) => Verdict::Wrong(what),
                None => Verdict::Fine,
            },
        }
    }

    fn report_cell_rule(&mut self, id: ExprId, what: &'static str, rule: CellRule) {
        let d = match rule {
            CellRule::NotACell => Diagnostic::error("E0222", "a `ref` cell can only be named here")
                .primary(self.span(id), "this expression produces a `ref` cell without naming it")
                .note(
                    "A `ref` cell is passed to functions by reference, and `let p = r in` makes `p` another name \
                     for `r`; a cell chosen by `if` or `select`, taken from an array or a record, or produced \
                     by a sequence or a `let` would be a copy, and writes through it would not reach the cell.",
                )
                .help("choose the value instead (`let v = if c then !a else !b in`), or branch around the code that uses the cell (`if c then f a else f b`)"),
            CellRule::CellContents => Diagnostic::error("E0222", format!("a `ref` cell cannot hold {what}"))
                .primary(self.span(id), format!("this is {what}"))
                .note("A `ref` cell holds a value: a number, a bool or a record.")
                .help("use the array or the cell itself: pass it to functions, or name it with `let`"),
            CellRule::MutableContents(local) => {
                let name = self.local_info(local).map(|l| l.name.clone()).unwrap_or_default();
                Diagnostic::error("E0222", format!("the `mut` variable `{name}` cannot hold {what}"))
                    .primary(self.span(id), format!("this is {what}"))
                    .note("A `mut` variable holds a value: a number, a bool or a record.")
                    .help(format!("name it without `mut`: `let {name} = ... in`"))
            }
        };
        self.diagnostics.push(d);
    }

    /// `E0222` for device functions whose return type is a `ref` cell, an array or a vector (final types).
    pub(crate) fn check_returned_cells(&mut self) {
        let mut found = Vec::new();
        for function in &self.info.functions {
            if let Some(what) = reference_kind(&self.vars.zonk(&function.ret)) {
                let span = match self.module.items.get(function.item) {
                    Some(crate::syntax::ast::Item::Function(f)) => {
                        f.ret.as_ref().map(|t| t.span()).unwrap_or(f.name.span)
                    }
                    _ => function.span,
                };
                found.push((span, function.name.clone(), what));
            }
        }
        for (span, name, what) in found {
            let d = Diagnostic::error("E0222", format!("the device function `{name}` cannot return {what}"))
                .primary(span, format!("returns {what}"))
                .note("A function returns a value (a number, a bool, a record or unit); the emitted CUDA C would return a copy or a pointer the caller could not write through safely.")
                .help("return the value it holds, or pass the cell or array as a parameter and write through it");
            self.diagnostics.push(d);
        }
    }
}

/// `Some(description)` when values of `ty` refer to storage (a `ref` cell, an array, a vector).
fn reference_kind(ty: &Type) -> Option<&'static str> {
    match ty {
        Type::Ref(_) => Some("a `ref` cell"),
        Type::Array { .. } | Type::ConstArray { .. } => Some("an array"),
        Type::Vector(_) => Some("a vector"),
        _ => None,
    }
}

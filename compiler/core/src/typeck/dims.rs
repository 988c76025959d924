//! Multi-dimensional shared and local arrays (`let%shared (t : float32) = (16, 17) in`): their type is an array
//! of rows (`float32 shared[16][17]`), and a row (`t.(y)`) is an array of its own type, so `t.(y).(x)` and
//! `t.(y).(x) <- v` are ordinary accesses on a row. This pass, run on final types, keeps every multi-dimensional
//! array and every row where the C it becomes (`float t[16][17]`, `t[y][x]`) and the later passes expect them:
//!
//! - a multi-dimensional array is only named (a variable declared by `let%shared`/`let%local`) and a row only
//!   made by indexing such a name, and both only to be indexed again: never a value that is bound, passed,
//!   returned or chosen by `if` (`E0231`, which also covers a name of such a type anywhere else, a parameter
//!   `float32[4][4]` included, and a multi-dimensional array given too many indices, in `access`). So every
//!   access is `t.(i).(j)...` on the declared name, which `storage::row_owner` walks back to `t`;
//! - a constant index of a dimension is inside it (`E0232`).

use crate::diagnostic::{Diagnostic, Severity};
use crate::syntax::ast::{ExprId, ExprKind};
use crate::types::{ArraySize, ConstValue, Resolution, Type};

use super::Checker;

impl Checker<'_> {
    /// Reports every misuse of a multi-dimensional array or a row (after `substitute_all`: final types).
    pub(crate) fn check_dimensions(&mut self) {
        if !self.info.expr_types.iter().any(Type::is_multi_dimensional) {
            return;
        }
        let count = self.module.exprs.len();
        let mut indexed = vec![false; count];
        for kind in &self.module.exprs {
            if let ExprKind::Index { array, .. } | ExprKind::IndexSet { array, .. } = kind {
                indexed[array.index()] = true;
            }
        }
        let declared = self.declared_arrays();
        let mut misuses = Vec::new();
        for (index, &is_indexed) in indexed.iter().enumerate() {
            let id = ExprId(index as u32);
            misuses.extend(self.row_misuse(id, is_indexed, &declared));
            misuses.extend(self.row_write(id));
            self.check_constant_index(id);
        }
        self.report_outermost(misuses);
        self.check_multi_dimensional_locals(&declared);
    }

    /// Reports each misuse that is not inside another (`(if c then a else b).(0).(0)` is one mistake, not three),
    /// in place of the type mismatch (`E0201`) the same expression caused, which `E0231` says in its own words.
    fn report_outermost(&mut self, misuses: Vec<Diagnostic>) {
        let spans: Vec<crate::source::Span> = misuses.iter().map(Diagnostic::primary_span).collect();
        let inside_another = |span: crate::source::Span| {
            spans.iter().any(|s| *s != span && s.file == span.file && s.start <= span.start && span.end <= s.end)
        };
        for d in misuses {
            let span = d.primary_span();
            if inside_another(span) {
                continue;
            }
            self.diagnostics.retain(|old| !(old.code == "E0201" && old.primary_span() == span));
            if !self.has_error_at(span) {
                self.diagnostics.push(d);
            }
        }
    }

    /// The locals `let%shared` and `let%local` declare (the only names a multi-dimensional array may have).
    fn declared_arrays(&self) -> Vec<bool> {
        let mut declared = vec![false; self.info.locals.len()];
        for (index, kind) in self.module.exprs.iter().enumerate() {
            if let ExprKind::LetArray { .. } = kind {
                if let Some(local) = self.info.declared_local.get(&ExprId(index as u32)) {
                    declared[local.0 as usize] = true;
                }
            }
        }
        declared
    }

    fn expr_type(&self, id: ExprId) -> &Type {
        self.info.expr_types.get(id.index()).unwrap_or(&Type::Error)
    }

    /// `E0231` for a multi-dimensional array or a row that is not a declared name or a row of one, or is used
    /// other than by indexing it. (A name of a local that `let%shared`/`let%local` did not declare is reported at
    /// the local.)
    fn row_misuse(&self, id: ExprId, indexed: bool, declared: &[bool]) -> Option<Diagnostic> {
        let ty = self.expr_type(id);
        let is_row =
            matches!(self.kind(id), ExprKind::Index { array, .. } if self.expr_type(*array).is_multi_dimensional());
        if !ty.is_multi_dimensional() && !is_row {
            return None;
        }
        let well_formed = match self.kind(id) {
            ExprKind::Var(_) => match self.info.resolution(id) {
                Some(Resolution::Local(l)) if !declared[l.0 as usize] => return None,
                _ => true,
            },
            ExprKind::Index { .. } => true,
            _ => false,
        };
        if well_formed && indexed {
            return None;
        }
        let span = self.span(id);
        let shown = self.info.display(ty);
        let text = self.snippet(id).to_string();
        let d = if is_row {
            let owner = self.root_name(id);
            Diagnostic::error("E0231", format!("`{text}` is a row of `{owner}`, not an element: it needs more indices"))
                .primary(span, format!("this is {shown}"))
                .note(
                    "a row of a multi-dimensional array can only be indexed further; it is not a value to pass or bind",
                )
                .help(format!("index every dimension: `{}`", self.full_access_hint(id)))
        } else if well_formed {
            Diagnostic::error("E0231", format!("`{text}` is a multi-dimensional array; it can only be indexed"))
                .primary(span, format!("this is {shown}, used here as a value"))
                .note("a function's `T array` parameter takes a one-dimensional array; a multi-dimensional array is not passed, bound or returned")
                .help(format!("index every dimension: `{text}{}`", placeholders(ty.array_dimensions().len())))
        } else {
            Diagnostic::error("E0231", "a multi-dimensional array can only be named and indexed")
                .primary(span, format!("this is {shown}"))
                .note("declare it with `let%shared` or `let%local` and index that name: `t.(y).(x)`")
        };
        Some(d)
    }

    /// `E0231` for a store into a whole row (`t.(y) <- v` for a two-dimensional `t`), in place of the mismatch
    /// between the value and the row type (`E0201`, at the value).
    fn row_write(&mut self, id: ExprId) -> Option<Diagnostic> {
        let ExprKind::IndexSet { array, value, .. } = self.kind(id) else { return None };
        let ty = self.expr_type(*array);
        if !ty.is_multi_dimensional() {
            return None;
        }
        let value_span = self.span(*value);
        self.diagnostics.retain(|old| !(old.code == "E0201" && old.primary_span() == value_span));
        let name = self.root_name(*array);
        let dimensions = self.dimensions_of_root(*array);
        Some(
            Diagnostic::error("E0231", format!("a store into `{name}` needs {dimensions} indices"))
                .primary(self.span(id), "this stores into a whole row")
                .note("a row of a multi-dimensional array is not a value: its elements are stored one by one")
                .help(format!("store one element: `{name}{} <- v`", placeholders(dimensions))),
        )
    }

    /// How many dimensions the array a chain of row accesses starts from has.
    fn dimensions_of_root(&self, mut id: ExprId) -> usize {
        while let ExprKind::Index { array, .. } = self.kind(id) {
            id = *array;
        }
        self.expr_type(id).array_dimensions().len()
    }

    fn has_error_at(&self, span: crate::source::Span) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error && d.labels.iter().any(|l| l.primary && l.span == span))
    }

    /// The name a chain of row accesses starts from (`t` for `t.(z).(y)`).
    fn root_name(&self, mut id: ExprId) -> String {
        while let ExprKind::Index { array, .. } = self.kind(id) {
            id = *array;
        }
        self.snippet(id).to_string()
    }

    /// `t.(y).(x)` for the row `t.(y)`: the access with one `.(i)` per missing dimension.
    fn full_access_hint(&self, row: ExprId) -> String {
        let missing = self.expr_type(row).array_dimensions().len();
        format!("{}{}", self.snippet(row), placeholders(missing))
    }

    /// `E0232` for an index known at compile time outside the dimension of a multi-dimensional array it indexes.
    fn check_constant_index(&mut self, id: ExprId) {
        let (array, index) = match self.kind(id) {
            ExprKind::Index { array, index } | ExprKind::IndexSet { array, index, .. } => (*array, *index),
            _ => return,
        };
        let Some(dimension) = self.dimension_indexed(array) else { return };
        let Type::Array { size: ArraySize::Const(n), .. } = self.expr_type(array) else { return };
        let n = *n;
        let Ok(ConstValue::Int(value)) = self.eval_const(index) else { return };
        if value >= 0 && value < i64::from(n) {
            return;
        }
        let owner = self.root_name(array);
        let ordinal = match dimension {
            1 => "first".to_string(),
            2 => "second".to_string(),
            3 => "third".to_string(),
            k => format!("{k}th"),
        };
        let d = Diagnostic::error(
            "E0232",
            format!("index {value} is out of bounds of the {ordinal} dimension of `{owner}`, of size {n}"),
        )
        .primary(self.span(index), format!("valid indices are 0 to {}", n - 1))
        .secondary(self.span(array), format!("this is {}", self.info.display(self.expr_type(array))));
        self.diagnostics.push(d);
    }

    /// Which dimension (from 1, outermost) an index of `array` selects, when `array` is a multi-dimensional array or
    /// one of its rows.
    fn dimension_indexed(&self, array: ExprId) -> Option<usize> {
        let mut depth = 1;
        let mut e = array;
        while let ExprKind::Index { array, .. } = self.kind(e) {
            if !self.expr_type(*array).is_multi_dimensional() {
                return None;
            }
            depth += 1;
            e = *array;
        }
        (self.expr_type(e).is_multi_dimensional()).then_some(depth)
    }

    /// `E0231` for a local of a multi-dimensional type that `let%shared`/`let%local` did not declare (a parameter
    /// `float32[4][4]`, a `let` of a row), and `E0203` for a declared one with a size not known at compile time.
    fn check_multi_dimensional_locals(&mut self, declared: &[bool]) {
        for (index, &is_declared) in declared.iter().enumerate() {
            let local = &self.info.locals[index];
            if !holds_multi_dimensional(&local.ty) {
                continue;
            }
            let (span, shown) = (local.span, self.info.display(&local.ty));
            if !is_declared {
                if self.has_error_at(span) {
                    continue;
                }
                let d = Diagnostic::error("E0231", format!("`{}` cannot have type {shown}", local.name))
                    .primary(span, "a multi-dimensional array here")
                    .note("multi-dimensional arrays are declared with `let%shared` or `let%local` and indexed by that name; they are not parameters or values");
                self.diagnostics.push(d);
            } else if local.ty.total_elements().is_none() {
                let d = Diagnostic::error(
                    "E0203",
                    "every size of a multi-dimensional array must be a compile-time constant",
                )
                .primary(span, format!("this is {shown}"));
                self.diagnostics.push(d);
            }
        }
    }
}

/// Does `ty` hold a multi-dimensional array (itself, or as what a vector, `ref` or array holds)?
fn holds_multi_dimensional(ty: &Type) -> bool {
    match ty {
        Type::Array { .. } if ty.is_multi_dimensional() => true,
        Type::Vector(elem) | Type::Ref(elem) | Type::ConstArray { elem, .. } | Type::Array { elem, .. } => {
            holds_multi_dimensional(elem)
        }
        _ => false,
    }
}

/// `.(i).(j)...`: one index per dimension, for help texts.
pub(crate) fn placeholders(count: usize) -> String {
    ["i", "j", "k", "l", "m", "n"].iter().cycle().take(count).map(|name| format!(".({name})")).collect()
}

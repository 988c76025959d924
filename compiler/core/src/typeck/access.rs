//! Rules for elements and fields: `a.(i)`, `a.(i) <- v`, `r.f`, `r.f <- v`, record literals and constant array
//! literals. Indexing a value whose type is still unknown makes it a vector (how untyped kernel parameters become
//! `T vector`); a field name finds its record type the same way.

use std::sync::Arc;

use crate::diagnostic::Diagnostic;
use crate::syntax::ast::{ExprId, ExprKind, Ident};
use crate::types::{Mutability, RecordId, Resolution, Type};

use super::infer::Class;
use super::report::Because;
use super::{Checker, Deferred};

impl Checker<'_> {
    pub(crate) fn check_index(&mut self, array: ExprId, index: ExprId) -> Type {
        let array_ty = self.check_expr(array);
        self.check_index_expr(index);
        self.element_type(array, &array_ty)
    }

    fn check_index_expr(&mut self, index: ExprId) {
        let found = self.check_expr(index);
        if self.vars.resolve_ref(&found).is_integer() || self.vars.class_of(&found) == Some(Class::Integer) {
            // An integer, or a variable of that class, already: a fresh integer variable would only be bound to it
            // (or it to the fresh one, which nothing else names).
            return;
        }
        let integer = self.vars.fresh(Class::Integer);
        self.expect_type_because(index, &found, &integer, Because::help("an index must be an integer"));
    }

    /// The element type of an array; an unknown type becomes "some array" (a vector unless something else
    /// decides); anything else is `E0210`.
    pub(crate) fn element_type(&mut self, array: ExprId, array_ty: &Type) -> Type {
        if let Some(elem) = self.vars.array_element(array_ty) {
            return elem;
        }
        // The usual answers read in place; the others (which change the table or report) on a copy.
        match self.vars.resolve_ref(array_ty) {
            Type::Vector(elem) | Type::Array { elem, .. } | Type::ConstArray { elem, .. } => return Type::clone(elem),
            Type::Error => return Type::Error,
            _ => {}
        }
        match self.vars.resolve(array_ty) {
            Type::Var(_) if self.vars.class_of(array_ty) == Some(Class::Any) => {
                let elem = self.vars.fresh(Class::Any);
                let some_array = self.vars.fresh_array(elem.clone());
                self.vars.unify(array_ty, &some_array);
                elem
            }
            Type::Vector(elem) | Type::Array { elem, .. } | Type::ConstArray { elem, .. } => Type::clone(&elem),
            Type::Error => Type::Error,
            other => {
                self.report_not_an_array(array, &other);
                Type::Error
            }
        }
    }

    fn report_not_an_array(&mut self, array: ExprId, ty: &Type) {
        if self.report_too_many_indices(array) {
            return;
        }
        let shown = self.describe(ty);
        let text = self.snippet(array);
        let subject = if !text.is_empty() && text.len() <= 40 && !text.contains('\n') {
            format!("`{text}`")
        } else {
            "this expression".to_string()
        };
        self.diagnostics.push(
            Diagnostic::error("E0210", format!("{subject} is not an array"))
                .primary(self.span(array), format!("this is {shown}, so it cannot be indexed")),
        );
    }

    /// `E0231` when `array` is an element of a multi-dimensional array indexed in every dimension, and is indexed
    /// once more (`t.(y).(x).(z)` for a two-dimensional `t`).
    fn report_too_many_indices(&mut self, array: ExprId) -> bool {
        let mut root = array;
        let mut indices = 1;
        while let ExprKind::Index { array: inner, .. } = self.kind(root) {
            root = *inner;
            indices += 1;
        }
        let dimensions = self.vars.zonk(&self.type_of(root)).array_dimensions().len();
        if dimensions < 2 {
            return false;
        }
        let name = self.snippet(root).to_string();
        self.diagnostics.push(
            Diagnostic::error("E0231", format!("`{name}` has {dimensions} dimensions but is given {indices} indices"))
                .primary(self.span(array), format!("already an element: `{name}` is indexed in every dimension here"))
                .help(format!(
                    "remove the extra index: an element of `{name}` is `{name}{}`",
                    super::dims::placeholders(dimensions)
                )),
        );
        true
    }

    pub(crate) fn check_index_set(&mut self, array: ExprId, index: ExprId, value: ExprId) -> Type {
        let array_ty = self.check_expr(array);
        self.check_index_expr(index);
        let found = self.check_expr(value);
        let elem = self.element_type(array, &array_ty);
        if self.check_array_writable(array, &array_ty) {
            let why = Because::describing(self.span(array), "the elements are ", &elem);
            self.expect_type_because(value, &found, &elem, why);
        }
        self.note_write(array);
        Type::Unit
    }

    /// Constant arrays are read-only (`E0204`).
    pub(crate) fn check_array_writable(&mut self, array: ExprId, array_ty: &Type) -> bool {
        match self.vars.resolve_ref(array_ty) {
            Type::ConstArray { .. } => {
                self.report_constant_array_write(array);
                false
            }
            Type::Var(_) => {
                self.deferred.push(Deferred::Written { ty: array_ty.clone(), expr: array });
                true
            }
            _ => true,
        }
    }

    /// `E0204` for a write to a constant array.
    pub(crate) fn report_constant_array_write(&mut self, array: ExprId) {
        let text = self.snippet(array).to_string();
        let d = Diagnostic::error("E0204", format!("cannot write to `{text}`: it is a constant array"))
            .primary(self.span(array), "read-only: it lives in constant memory")
            .help("copy it into a shared or local array to modify it");
        self.diagnostics.push(d);
    }

    pub(crate) fn check_field(&mut self, record: ExprId, field: &Ident) -> Type {
        let record_ty = self.check_expr(record);
        self.field_type(record, &record_ty, field).unwrap_or(Type::Error)
    }

    /// The type of field `field` of `record`; an unknown record type is found from the field name (`E0208`).
    fn field_type(&mut self, record: ExprId, record_ty: &Type, field: &Ident) -> Option<Type> {
        let id = match self.vars.resolve(record_ty) {
            Type::Record(id) => id,
            Type::Tuple(components) => return self.tuple_component(record, &components, field),
            Type::Error => return None,
            Type::Var(_) if self.vars.class_of(record_ty) == Some(Class::Any) => {
                let Some(id) = self.record_with_field(&field.name) else {
                    self.report_unknown_field(field);
                    return None;
                };
                self.vars.unify(record_ty, &Type::Record(id));
                id
            }
            other => {
                let shown = self.describe(&other);
                let d = Diagnostic::error("E0208", format!("{shown} has no field `{}`", field.name))
                    .primary(field.span, "unknown field")
                    .secondary(self.span(record), format!("this is {shown}, not a record"));
                self.diagnostics.push(d);
                return None;
            }
        };
        self.record_field(id, field)
    }

    /// The last declared record with a field of this name (as OCaml picks). The vector types are not among the
    /// candidates: their components (`x`, `y`) are names programs give their own records' fields.
    fn record_with_field(&self, name: &str) -> Option<RecordId> {
        let found =
            self.info.records.iter().rposition(|r| r.vector.is_none() && r.fields.iter().any(|(f, _)| f == name));
        found.map(|i| RecordId(i as u32))
    }

    fn record_field(&mut self, id: RecordId, field: &Ident) -> Option<Type> {
        let record = self.info.records.get(id.0 as usize)?;
        if let Some((_, ty)) = record.fields.iter().find(|(f, _)| *f == field.name) {
            return Some(ty.clone());
        }
        let mut d = Diagnostic::error("E0208", format!("the record `{}` has no field `{}`", record.name, field.name))
            .primary(field.span, "unknown field");
        if let Some(s) = self.closest(&field.name, record.fields.iter().map(|(f, _)| f.as_str())) {
            d = d.help(format!("did you mean `{s}`?"));
        }
        self.diagnostics.push(d);
        None
    }

    pub(crate) fn check_field_set(&mut self, record: ExprId, field: &Ident, value: ExprId) -> Type {
        let record_ty = self.check_expr(record);
        let found = self.check_expr(value);
        if let Some(field_ty) = self.field_type(record, &record_ty, field) {
            if self.check_field_target(record, field) {
                self.expect_type_because(value, &found, &field_ty, Because::of(field.span, "this field"));
            }
        }
        self.note_write(record);
        Type::Unit
    }

    /// `r.f <- v` needs `r` to be an element of an array, a `mut` variable, or a field of one of those.
    fn check_field_target(&mut self, record: ExprId, field: &Ident) -> bool {
        let (problem, help) = match self.kind(record) {
            ExprKind::Index { array, .. } => return self.check_array_writable(*array, &self.type_of(*array)),
            ExprKind::Field { record: inner, field } => return self.check_field_target(*inner, field),
            ExprKind::Annot { expr, .. } => return self.check_field_target(*expr, field),
            ExprKind::Var(path) => match self.info.resolution(record) {
                Some(Resolution::Local(local)) => {
                    if self.local_info(local).is_some_and(|l| l.mutability == Mutability::Mutable) {
                        return true;
                    }
                    let name = &path.name.name;
                    (format!("`{name}` is immutable"), format!("declare it with `let {name} = mut ... in`"))
                }
                None if self.type_of(record) == Type::Error => return true,
                _ => (format!("`{}` is not a variable", path.display()), String::new()),
            },
            _ => ("it is not a variable or an array element".to_string(), String::new()),
        };
        let mut d = Diagnostic::error("E0204", format!("cannot assign to field `{}`: {problem}", field.name))
            .primary(self.span(record), "not assignable");
        if !help.is_empty() {
            d = d.help(help);
        }
        self.diagnostics.push(d);
        false
    }

    /// `{ f = e; ... }`: the record type is the one whose fields are named; each given exactly once.
    pub(crate) fn check_record_literal(&mut self, id: ExprId, fields: &[(Ident, ExprId)]) -> Type {
        let found: Vec<Type> = fields.iter().map(|(_, e)| self.check_expr(*e)).collect();
        let Some(record) = self.record_for_literal(id, fields) else {
            return Type::Error;
        };
        let mut seen: Vec<&str> = Vec::new();
        for ((name, value), found) in fields.iter().zip(&found) {
            if seen.contains(&name.name.as_str()) {
                let d = Diagnostic::error("E0208", format!("the field `{}` is given twice", name.name))
                    .primary(name.span, "given again here");
                self.diagnostics.push(d);
                continue;
            }
            seen.push(&name.name);
            if let Some(expected) = self.record_field(record, name) {
                self.expect_type_because(*value, found, &expected, Because::of(name.span, "this field"));
            }
        }
        self.report_missing_fields(id, record, &seen);
        Type::Record(record)
    }

    /// The record whose fields best match the literal's: all of them if one has them all, else the first's.
    fn record_for_literal(&mut self, id: ExprId, fields: &[(Ident, ExprId)]) -> Option<RecordId> {
        // A vector is made with its `make_*` builtin, never found from a literal's field names.
        let has_all = |r: &crate::types::RecordInfo| {
            r.vector.is_none() && fields.iter().all(|(f, _)| r.fields.iter().any(|(n, _)| *n == f.name))
        };
        if let Some(i) = self.info.records.iter().rposition(has_all) {
            return Some(RecordId(i as u32));
        }
        let Some((first, _)) = fields.first() else {
            let d = Diagnostic::error("E0208", "an empty record literal has no type")
                .primary(self.span(id), "empty record");
            self.diagnostics.push(d);
            return None;
        };
        if let Some(record) = fields.iter().find_map(|(f, _)| self.record_with_field(&f.name)) {
            return Some(record);
        }
        self.report_unknown_field(first);
        None
    }

    fn report_unknown_field(&mut self, field: &Ident) {
        let all: Vec<String> = self
            .info
            .records
            .iter()
            .filter(|r| r.vector.is_none())
            .flat_map(|r| r.fields.iter().map(|(f, _)| f.clone()))
            .collect();
        let mut d = Diagnostic::error("E0208", format!("unknown field `{}`", field.name))
            .primary(field.span, "no record type has this field");
        if let Some(s) = self.closest(&field.name, all.iter().map(String::as_str)) {
            d = d.help(format!("did you mean `{s}`?"));
        }
        self.diagnostics.push(d);
    }

    fn report_missing_fields(&mut self, id: ExprId, record: RecordId, given: &[&str]) {
        let Some(info) = self.info.records.get(record.0 as usize) else {
            return;
        };
        let missing: Vec<String> =
            info.fields.iter().filter(|(f, _)| !given.contains(&f.as_str())).map(|(f, _)| format!("`{f}`")).collect();
        if missing.is_empty() {
            return;
        }
        let plural = if missing.len() == 1 { "" } else { "s" };
        let d = Diagnostic::error(
            "E0208",
            format!("missing field{plural} {} in a `{}` literal", missing.join(", "), info.name),
        )
        .primary(self.span(id), "every field must be given");
        self.diagnostics.push(d);
    }

    /// `[| a; b |]`: only as the whole value of a top-level constant.
    pub(crate) fn check_array_literal(&mut self, id: ExprId, items: &[ExprId]) -> Type {
        let elem = self.vars.fresh(Class::Any);
        let mut ok = true;
        for item in items {
            let found = self.check_expr(*item);
            ok &= self.expect_type_because(*item, &found, &elem, Because::help("all elements must have the same type"));
        }
        if self.array_literal_root != Some(id) {
            let d = Diagnostic::error("E0205", "an array literal is only allowed as the value of a top-level constant")
                .primary(self.span(id), "array literal here")
                .help("define it at top level: `let table = [| ... |]`, then index `table`");
            self.diagnostics.push(d);
            return Type::Error;
        }
        if items.is_empty() {
            let d =
                Diagnostic::error("E0203", "a constant array cannot be empty").primary(self.span(id), "no elements");
            self.diagnostics.push(d);
            return Type::Error;
        }
        if !ok {
            return Type::Error;
        }
        Type::ConstArray { elem: Arc::new(elem), size: items.len() as u32 }
    }
}

//! Where a type can be stored: `unit` is a value (the result of a store, a call of a `unit` function, an
//! argument that is never passed) with no bytes in C, so nothing can hold it, and a record is a C `struct` of
//! values, so its fields are scalars and records. Checked on the final types (an inferred `ref ()` is as wrong
//! as a written one): `E0219` at the record field, or at the variable, parameter or array whose type stores it.

use crate::diagnostic::Diagnostic;
use crate::source::Span;
use crate::syntax::ast::Item;
use crate::types::Type;

use super::items::ItemRef;
use super::Checker;

impl Checker<'_> {
    /// `E0219` for record fields that are not scalars or records, and for locals (variables, parameters, arrays)
    /// whose type holds `unit`, or a `ref`, in an array element or a `ref` cell.
    pub(crate) fn check_stored_types(&mut self) {
        let mut found: Vec<(Span, String, &'static str)> = Vec::new();
        let module = self.module;
        for (index, item) in module.items.iter().enumerate() {
            let (Item::Record(decl), Some(ItemRef::Record(id))) = (item, self.item_refs.get(index).copied()) else {
                continue;
            };
            let Some(info) = self.info.records.get(id.0 as usize) else { continue };
            for (name, ty) in &info.fields {
                let ty = self.vars.zonk(ty);
                let is_value = super::tuples::is_stored_by_value(&ty);
                if let (false, Some((field, _))) =
                    (is_value, decl.fields.iter().find(|(f, _)| f.name.as_str() == name.as_str()))
                {
                    let shown = self.info.display(&ty);
                    found.push((
                        field.span,
                        format!("the record field `{name}` cannot have type {shown}"),
                        "a record's fields are scalars, records and tuples, stored by value",
                    ));
                }
            }
        }
        // Kernel parameters have their own rule (`E0214`), which already covers these types.
        let mut kernel_param = vec![false; self.info.locals.len()];
        for param in self.info.kernels.iter().flat_map(|k| &k.params) {
            if let Some(slot) = kernel_param.get_mut(param.local.0 as usize) {
                *slot = true;
            }
        }
        for (index, local) in self.info.locals.iter().enumerate() {
            if kernel_param[index] || is_leaf(self.vars.resolve_ref(&local.ty)) {
                continue; // a scalar (most locals) stores nothing else: no copy of it is zonked
            }
            let ty = self.vars.zonk(&local.ty);
            if let Some(what) = unstorable_part(&ty) {
                let shown = self.info.display(&ty);
                found.push((
                    local.span,
                    format!("`{}` has type {shown}: {what}", local.name),
                    "`unit` is a value with nothing to store: an array or a `ref` cannot hold it, and a `ref` \
                     cell is a variable, not an element",
                ));
            }
        }
        for (span, message, note) in found {
            let d = Diagnostic::error("E0219", message)
                .primary(span, "this type has no representation in memory")
                .note(note);
            self.diagnostics.push(d);
        }
    }
}

/// A type that holds no other type and is not a variable (a scalar, a record, `Type::Error`): nothing in it is
/// unstorable.
fn is_leaf(ty: &Type) -> bool {
    !matches!(
        ty,
        Type::Vector(_) | Type::Array { .. } | Type::ConstArray { .. } | Type::Ref(_) | Type::Tuple(_) | Type::Var(_)
    )
}

/// What in `ty` cannot be stored: `unit` or a `ref` as an array or vector element, `unit` in a `ref` cell.
fn unstorable_part(ty: &Type) -> Option<&'static str> {
    match ty {
        Type::Vector(elem) | Type::Array { elem, .. } | Type::ConstArray { elem, .. } => match elem.as_ref() {
            Type::Unit => Some("an array cannot hold `unit`"),
            Type::Ref(_) => Some("an array cannot hold `ref` cells"),
            inner => unstorable_part(inner),
        },
        Type::Ref(inner) => match inner.as_ref() {
            Type::Unit => Some("a `ref` cell cannot hold `unit`"),
            other => unstorable_part(other),
        },
        _ => None,
    }
}

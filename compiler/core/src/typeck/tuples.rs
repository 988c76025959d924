//! Tuples: `(a, b)` has the structural type `Type::Tuple` while types are inferred (so `let (x, y) = f a in`
//! and `if c then (a, b) else (b, a)` unify component by component), a component is read as the field `_0`,
//! `_1`... (what a tuple pattern's `let`s read, `syntax::builder::tuples`), and a component is a value stored in
//! place (a scalar, a record or a tuple; E0219 otherwise, as for a record's field).
//!
//! Once every type is final, [`tuples_as_records`] makes each tuple type an anonymous record (`RecordInfo::tuple`,
//! fields `_0`, `_1`..., named after its components: `skc_tuple_float_int`) and each tuple expression a record
//! literal of it, so no later pass (convergence, emission, the interpreter) knows tuples: they see records.

use std::sync::Arc;

use crate::diagnostic::Diagnostic;
use crate::fxhash::FxHashMap;
use crate::syntax::ast::{ExprId, ExprKind, Ident, Module, Name};
use crate::types::{RecordId, RecordInfo, Type, TypeInfo};

use super::Checker;

impl Checker<'_> {
    pub(crate) fn check_tuple(&mut self, components: &[ExprId]) -> Type {
        self.made_tuples = true;
        Type::Tuple(components.iter().map(|c| self.check_expr(*c)).collect())
    }

    /// The type of the component `field` (`_0`, `_1`...) of a tuple; E0208 for any other field.
    pub(crate) fn tuple_component(&mut self, record: ExprId, components: &[Type], field: &Ident) -> Option<Type> {
        let index = field.name.strip_prefix('_').and_then(|digits| digits.parse::<usize>().ok());
        if let Some(ty) = index.and_then(|i| components.get(i)) {
            return Some(ty.clone());
        }
        let shown = self.describe(&Type::Tuple(components.into()));
        let d = Diagnostic::error("E0208", format!("{shown} has no field `{}`", field.name))
            .primary(field.span, "unknown field")
            .secondary(self.span(record), format!("this is {shown}, a tuple"))
            .help("bind its components with `let (a, b) = ... in`");
        self.diagnostics.push(d);
        None
    }

    /// E0219 at each tuple component whose final type is not stored by value (an array, a vector, a `ref`, `unit`).
    pub(crate) fn check_tuple_components(&mut self, tuple: ExprId, components: &[ExprId]) {
        if !self.is_typed(tuple) {
            return; // not checked: the sizes of a multi-dimensional array
        }
        for &component in components {
            let ty = self.vars.zonk(&self.type_of(component));
            if is_stored_by_value(&ty) {
                continue;
            }
            let shown = self.info.display(&ty);
            let d = Diagnostic::error("E0219", format!("a tuple's component cannot have type {shown}"))
                .primary(self.span(component), "this type has no representation in memory")
                .note("a tuple's components are scalars, records and tuples, stored by value");
            self.diagnostics.push(d);
        }
    }
}

/// Can a value of this (zonked) type be a tuple's component or a record's field?
pub(crate) fn is_stored_by_value(ty: &Type) -> bool {
    match ty {
        Type::Tuple(components) => components.iter().all(is_stored_by_value),
        other => other.is_numeric() || matches!(other, Type::Bool | Type::Record(_) | Type::Error | Type::Var(_)),
    }
}

/// Makes every tuple type of `info` an anonymous record and every tuple expression of `module` a record literal.
pub(crate) fn tuples_as_records(module: &mut Module, info: &mut TypeInfo) {
    if !has_tuples(info) {
        return;
    }
    let mut interner = TupleRecords { known: FxHashMap::default() };
    let mut convert = |info: &mut TypeInfo, ty: &Type| interner.convert(info, ty);
    for index in 0..info.expr_types.len() {
        if holds_tuple(&info.expr_types[index]) {
            let ty = info.expr_types[index].clone();
            info.expr_types[index] = convert(info, &ty);
            // A tuple's record is declared (for `#line` and hovers) where its first value is written.
            if let (Type::Record(id), Some(span)) = (&info.expr_types[index], module.expr_spans.get(index)) {
                let record = &mut info.records[id.0 as usize];
                if record.tuple && record.span == Default::default() {
                    record.span = *span;
                }
            }
        }
    }
    for index in 0..info.locals.len() {
        let ty = info.locals[index].ty.clone();
        info.locals[index].ty = convert(info, &ty);
    }
    for index in 0..info.functions.len() {
        let ty = info.functions[index].ret.clone();
        info.functions[index].ret = convert(info, &ty);
    }
    for index in 0..info.constants.len() {
        let ty = info.constants[index].ty.clone();
        info.constants[index].ty = convert(info, &ty);
    }
    for kernel in 0..info.kernels.len() {
        for param in 0..info.kernels[kernel].params.len() {
            let ty = info.kernels[kernel].params[param].ty.clone();
            info.kernels[kernel].params[param].ty = convert(info, &ty);
        }
    }
    // Records declared by the program may hold tuples; the tuples' own records are made with converted fields.
    for record in 0..info.records.len() {
        for field in 0..info.records[record].fields.len() {
            let ty = info.records[record].fields[field].1.clone();
            info.records[record].fields[field].1 = convert(info, &ty);
        }
    }
    for index in 0..module.exprs.len() {
        let ExprKind::Tuple(components) = &module.exprs[index] else { continue };
        let field = |(i, c): (usize, &ExprId)| (component_name(i, module.expr_spans[c.index()]), *c);
        let fields = components.iter().enumerate().map(field).collect();
        module.exprs[index] = ExprKind::Record(fields);
    }
}

/// The field that holds component `index`: `_0`, `_1`...
fn component_name(index: usize, span: crate::source::Span) -> Ident {
    Ident { name: Name::new(&format!("_{index}")), span }
}

/// Whether any type the program's tables hold is or contains a tuple: a program without one is left as it is,
/// without copying every type (this runs on every check).
fn has_tuples(info: &TypeInfo) -> bool {
    info.expr_types.iter().any(holds_tuple)
        || info.locals.iter().any(|l| holds_tuple(&l.ty))
        || info.functions.iter().any(|f| holds_tuple(&f.ret))
        || info.constants.iter().any(|c| holds_tuple(&c.ty))
        || info.kernels.iter().any(|k| k.params.iter().any(|p| holds_tuple(&p.ty)))
        || info.records.iter().any(|r| r.fields.iter().any(|f| holds_tuple(&f.1)))
}

fn holds_tuple(ty: &Type) -> bool {
    match ty {
        Type::Tuple(_) => true,
        Type::Vector(e) | Type::Ref(e) | Type::Array { elem: e, .. } | Type::ConstArray { elem: e, .. } => {
            holds_tuple(e)
        }
        _ => false,
    }
}

/// One record per tuple type, by its (converted) components.
struct TupleRecords {
    known: FxHashMap<Vec<Type>, RecordId>,
}

impl TupleRecords {
    fn convert(&mut self, info: &mut TypeInfo, ty: &Type) -> Type {
        if !holds_tuple(ty) {
            return ty.clone();
        }
        match ty {
            Type::Tuple(components) => {
                let components: Vec<Type> = components.iter().map(|c| self.convert(info, c)).collect();
                Type::Record(self.record(info, components))
            }
            Type::Vector(e) => Type::Vector(Arc::new(self.convert(info, e))),
            Type::Ref(e) => Type::Ref(Arc::new(self.convert(info, e))),
            Type::Array { elem, space, size } => {
                Type::Array { elem: Arc::new(self.convert(info, elem)), space: *space, size: *size }
            }
            Type::ConstArray { elem, size } => {
                Type::ConstArray { elem: Arc::new(self.convert(info, elem)), size: *size }
            }
            other => other.clone(),
        }
    }

    fn record(&mut self, info: &mut TypeInfo, components: Vec<Type>) -> RecordId {
        if let Some(id) = self.known.get(&components) {
            return *id;
        }
        let id = RecordId(info.records.len() as u32);
        let name = format!("skc_tuple_{}", components.iter().map(|c| c_word(info, c)).collect::<Vec<_>>().join("_"));
        let fields = components.iter().enumerate().map(|(i, c)| (format!("_{i}"), c.clone())).collect();
        info.records.push(RecordInfo { name, fields, span: Default::default(), vector: None, tuple: true });
        self.known.insert(components, id);
        id
    }
}

/// A component's word in a tuple record's name: its C scalar's spelling, or its record's name.
fn c_word(info: &TypeInfo, ty: &Type) -> String {
    match ty {
        Type::Int32 => "int".into(),
        Type::Int64 => "long".into(),
        Type::UInt32 => "uint".into(),
        Type::UInt64 => "ulong".into(),
        Type::Float32 => "float".into(),
        Type::Float64 => "double".into(),
        Type::Bool => "bool".into(),
        Type::Record(r) => info.records.get(r.0 as usize).map_or("record".into(), |r| match r.tuple {
            // A nested tuple: `skc_tuple_float_int` inside another reads `tuple_float_int_`.
            true => format!("{}_", r.name.trim_start_matches("skc_")),
            false => r.name.clone(),
        }),
        _ => "value".into(),
    }
}

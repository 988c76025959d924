//! What is at a byte offset of the root file: the one question that hover and go to definition both ask.
//! Names win over the expressions around them: a binder is its variable, a callee its function, a field name its
//! field; anything else is the smallest expression whose span contains the offset.

use skc_core::builtins::{self, Builtin};
use skc_core::syntax::ast::{ExprId, ExprKind, Ident, Item, TypeExpr};
use skc_core::types::{ConstantId, FunctionId, LocalId, RecordId, Resolution, Type};
use skc_core::{Checked, Span};

#[derive(Clone, Debug)]
pub enum Target {
    /// A local variable, at its binder (`expr: None`) or at a use.
    Local {
        local: LocalId,
        expr: Option<ExprId>,
    },
    Function(FunctionId),
    /// A builtin, at a use (`expr` is the `Var` or `Call`).
    Builtin {
        builtin: &'static Builtin,
        expr: Option<ExprId>,
    },
    Constant(ConstantId),
    /// The name of item `usize` (a kernel, function, constant or record) where it is defined.
    ItemName(usize),
    /// A record type named in a type annotation; `usize` is its item.
    RecordType(usize),
    /// A field name: in a declaration, a record literal, an access or an assignment (`expr` is the access).
    Field {
        record: Option<RecordId>,
        name: String,
        field: Span,
        expr: Option<ExprId>,
    },
    /// The module named by an `open`.
    Module(String),
    /// Any other expression.
    Expr(ExprId),
}

/// A target and the span of the text it was found at.
#[derive(Clone, Debug)]
pub struct Found {
    pub target: Target,
    pub span: Span,
}

/// What is at `offset` of the root file of `checked`.
pub fn find(checked: &Checked, offset: usize) -> Option<Found> {
    item_name_at(checked, offset)
        .or_else(|| binder_at(checked, offset))
        .or_else(|| type_name_at(checked, offset))
        .or_else(|| callee_at(checked, offset))
        .or_else(|| assignment_target_at(checked, offset))
        .or_else(|| expression_at(checked, offset))
}

fn in_root(checked: &Checked, span: Span, offset: usize) -> bool {
    span.file == checked.root && span.contains(offset)
}

fn root_items(checked: &Checked) -> impl Iterator<Item = (usize, &Item)> {
    checked.module.items.iter().enumerate().filter(|(i, _)| checked.item_files.get(*i) == Some(&checked.root))
}

fn item_name_at(checked: &Checked, offset: usize) -> Option<Found> {
    for (index, item) in root_items(checked) {
        if let Item::Open(open) = item {
            if in_root(checked, open.module.span, offset) {
                return Some(Found { target: Target::Module(open.module.name.to_string()), span: open.module.span });
            }
            continue;
        }
        if in_root(checked, item.name().span, offset) {
            return Some(Found { target: Target::ItemName(index), span: item.name().span });
        }
        if let Item::Record(record) = item {
            let id = record_id(checked, &record.name.name);
            for (field, _) in &record.fields {
                if in_root(checked, field.span, offset) {
                    return Some(field_found(id, field, None));
                }
            }
        }
    }
    None
}

fn field_found(record: Option<RecordId>, field: &Ident, expr: Option<ExprId>) -> Found {
    Found { target: Target::Field { record, name: field.name.to_string(), field: field.span, expr }, span: field.span }
}

/// A local's binder (a `let`, a parameter, a loop counter, an array), innermost first.
fn binder_at(checked: &Checked, offset: usize) -> Option<Found> {
    let locals = checked.types.locals.iter().enumerate();
    let (index, local) = locals.filter(|(_, l)| in_root(checked, l.span, offset)).min_by_key(|(_, l)| l.span.len())?;
    Some(Found { target: Target::Local { local: LocalId(index as u32), expr: None }, span: local.span })
}

/// A record name in a type annotation.
fn type_name_at(checked: &Checked, offset: usize) -> Option<Found> {
    let mut names = Vec::new();
    for (_, item) in root_items(checked) {
        item_types(item, &mut names);
    }
    for kind in &checked.module.exprs {
        match kind {
            ExprKind::Let { ty: Some(ty), .. } | ExprKind::Annot { ty, .. } => type_names(ty, &mut names),
            ExprKind::LetArray { elem: Some(ty), .. } => type_names(ty, &mut names),
            _ => {}
        }
    }
    let name = names.into_iter().find(|n| in_root(checked, n.span, offset))?;
    let (index, _) = root_or_any_record(checked, &name.name)?;
    Some(Found { target: Target::RecordType(index), span: name.span })
}

fn item_types<'m>(item: &'m Item, out: &mut Vec<&'m Ident>) {
    match item {
        Item::Kernel(k) => k.params.iter().filter_map(|p| p.ty.as_ref()).for_each(|t| type_names(t, out)),
        Item::Function(f) => {
            f.params.iter().filter_map(|p| p.ty.as_ref()).chain(f.ret.as_ref()).for_each(|t| type_names(t, out))
        }
        Item::Constant(c) => c.ty.iter().for_each(|t| type_names(t, out)),
        Item::Record(r) => r.fields.iter().for_each(|(_, t)| type_names(t, out)),
        Item::Open(_) => {}
    }
}

fn type_names<'m>(ty: &'m TypeExpr, out: &mut Vec<&'m Ident>) {
    match ty {
        TypeExpr::Named(name) | TypeExpr::Qualified { name, .. } => out.push(name),
        TypeExpr::Variable(_) => {}
        TypeExpr::Apply { arg, .. } | TypeExpr::QualifiedApply { arg, .. } => type_names(arg, out),
        TypeExpr::Sized { elem, .. } => type_names(elem, out),
        TypeExpr::Function { params, ret } => params.iter().chain([&**ret]).for_each(|t| type_names(t, out)),
        TypeExpr::Tuple(components) => components.iter().for_each(|t| type_names(t, out)),
    }
}

/// The record item named `name` (any file).
pub fn root_or_any_record<'m>(checked: &'m Checked, name: &str) -> Option<(usize, &'m Item)> {
    checked.module.items.iter().enumerate().find(|(_, item)| matches!(item, Item::Record(r) if r.name.name == name))
}

fn record_id(checked: &Checked, name: &str) -> Option<RecordId> {
    checked.types.records.iter().position(|r| r.name == name).map(|i| RecordId(i as u32))
}

fn record_of_type(ty: &Type) -> Option<RecordId> {
    match ty {
        Type::Record(id) => Some(*id),
        Type::Ref(inner) => record_of_type(inner),
        _ => None,
    }
}

/// The callee of a call (the parser may leave a stray `Var` node with the callee's span, which resolves to
/// nothing, so calls are looked at first).
fn callee_at(checked: &Checked, offset: usize) -> Option<Found> {
    let module = &checked.module;
    let calls = module.exprs.iter().enumerate().filter_map(|(i, kind)| match kind {
        ExprKind::Call { callee, .. } if in_root(checked, callee.span(), offset) => Some((ExprId(i as u32), callee)),
        _ => None,
    });
    let (id, callee) = calls.min_by_key(|(id, _)| module.span(*id).len())?;
    let span = callee.span();
    match resolution_target(checked, id) {
        Some(target) => Some(Found { target, span }),
        None => builtins::lookup(&callee.name.name)
            .map(|builtin| Found { target: Target::Builtin { builtin: builtin.get(), expr: Some(id) }, span }),
    }
}

/// The variable assigned by `x := e` (the parser may leave a stray, unresolved `Var` node where the target is,
/// as for callees, so assignments are looked at before the smallest expression).
fn assignment_target_at(checked: &Checked, offset: usize) -> Option<Found> {
    let module = &checked.module;
    let assignments = module.exprs.iter().enumerate().filter_map(|(i, kind)| match kind {
        ExprKind::Assign { target, .. } if in_root(checked, target.span(), offset) => Some((ExprId(i as u32), target)),
        _ => None,
    });
    let (id, target) = assignments.min_by_key(|(id, _)| module.span(*id).len())?;
    Some(Found { target: resolution_target(checked, id)?, span: target.span() })
}

/// The smallest expression containing `offset`, refined to the name under the cursor.
fn expression_at(checked: &Checked, offset: usize) -> Option<Found> {
    let module = &checked.module;
    let candidates = module.expr_spans.iter().enumerate().filter(|(_, s)| in_root(checked, **s, offset));
    let (index, _) = candidates.min_by_key(|(i, s)| (s.len(), !is_name(module.expr(ExprId(*i as u32))), *i))?;
    let id = ExprId(index as u32);
    let span = module.span(id);
    let resolved = |fallback: Span| resolution_target(checked, id).map(|target| Found { target, span: fallback });
    match module.expr(id) {
        ExprKind::Var(path) => resolved(path.span()).or(Some(Found { target: Target::Expr(id), span })),
        ExprKind::Global(name) => resolved(name.span),
        ExprKind::Assign { target, .. } if target.span().contains(offset) => resolved(target.span()),
        ExprKind::Field { record, field } | ExprKind::FieldSet { record, field, .. } if field.span.contains(offset) => {
            Some(field_found(record_of_type(checked.types.type_of(*record)), field, Some(id)))
        }
        ExprKind::Record(fields) => {
            let record = record_of_type(checked.types.type_of(id));
            match fields.iter().find(|(name, _)| name.span.contains(offset)) {
                Some((name, _)) => Some(field_found(record, name, None)),
                None => Some(Found { target: Target::Expr(id), span }),
            }
        }
        ExprKind::Error => None,
        _ => Some(Found { target: Target::Expr(id), span }),
    }
}

fn is_name(kind: &ExprKind) -> bool {
    matches!(kind, ExprKind::Var(_) | ExprKind::Global(_) | ExprKind::Call { .. })
}

fn resolution_target(checked: &Checked, id: ExprId) -> Option<Target> {
    Some(match checked.types.resolution(id)? {
        Resolution::Local(local) => Target::Local { local, expr: Some(id) },
        Resolution::Constant(constant) => Target::Constant(constant),
        Resolution::Function(function) => Target::Function(function),
        Resolution::Builtin(builtin) => Target::Builtin { builtin: builtin.get(), expr: Some(id) },
    })
}

/// The `let` (or other binding expression) that declares `local`.
pub fn declaring_expr(checked: &Checked, local: LocalId) -> Option<ExprId> {
    checked.types.declared_local.iter().find(|(_, l)| **l == local).map(|(e, _)| *e)
}

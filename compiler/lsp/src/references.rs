//! Occurrences of a symbol: every place a local, function, constant, kernel, record, field or builtin is named in
//! a checked program (the root file and the modules it opens), from the type checker's resolutions. References,
//! document highlight and rename are all views of this one list.

use skc_core::syntax::ast::{ExprId, ExprKind, Ident, Item, TypeExpr};
use skc_core::types::{ConstantId, FunctionId, LocalId, RecordId, Resolution, Type};
use skc_core::{Checked, Span};

use crate::cursor::{self, Target};

/// A named thing of the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Symbol {
    Local(LocalId),
    Function(FunctionId),
    Constant(ConstantId),
    /// Index in `TypeInfo::kernels`.
    Kernel(usize),
    Record(RecordId),
    Field {
        record: RecordId,
        name: String,
    },
    /// A builtin, by its name (uses only: it has no definition in the source).
    Builtin(&'static str),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Access {
    /// Where it is declared.
    Definition,
    Read,
    /// Assigned (`x := e`, `r.f <- e`) or initialised (a field of a record literal).
    Write,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occurrence {
    /// The name only (`f` of `M.f`), so that a rename replaces exactly this text.
    pub span: Span,
    pub access: Access,
}

/// The symbol named at `offset` of the root file, and the span of that name.
pub fn symbol_at(checked: &Checked, offset: usize) -> Option<(Symbol, Span)> {
    let found = cursor::find(checked, offset)?;
    let symbol = match found.target {
        Target::Local { local, .. } => Symbol::Local(local),
        Target::Function(id) => Symbol::Function(id),
        Target::Constant(id) => Symbol::Constant(id),
        Target::Builtin { builtin, .. } => Symbol::Builtin(builtin.name),
        Target::ItemName(item) => item_symbol(checked, item)?,
        Target::RecordType(item) => item_symbol(checked, item)?,
        Target::Field { record: Some(record), name, .. } => Symbol::Field { record, name },
        Target::Field { record: None, .. } | Target::Module(_) => return None,
        Target::Expr(expr) => match checked.module.expr(expr) {
            // `launch k ...`: the kernel's name is a `Var` without a resolution.
            ExprKind::Var(path) => {
                let kernel = launched_kernel_named(checked, expr)?;
                return Some((Symbol::Kernel(kernel), path.name.span));
            }
            _ => return None,
        },
    };
    let span = match &symbol {
        // A qualified name (`M.f`): the name part.
        Symbol::Function(_) | Symbol::Constant(_) | Symbol::Builtin(_) => name_span_within(checked, found.span),
        _ => found.span,
    };
    Some((symbol, span))
}

/// The symbol that item `item` defines.
pub fn item_symbol(checked: &Checked, item: usize) -> Option<Symbol> {
    let types = &checked.types;
    Some(match checked.module.items.get(item)? {
        Item::Kernel(_) => Symbol::Kernel(types.kernels.iter().position(|k| k.item == item)?),
        Item::Function(_) => Symbol::Function(types.function_of_item(item)?),
        Item::Constant(_) => Symbol::Constant(ConstantId(types.constants.iter().position(|c| c.item == item)? as u32)),
        Item::Record(record) => Symbol::Record(record_named(checked, &record.name.name)?),
        Item::Open(_) => return None,
    })
}

/// `f` of `M.f` when `span` covers a qualified name; `span` itself otherwise.
fn name_span_within(checked: &Checked, span: Span) -> Span {
    let text = checked.sources.snippet(span);
    match text.rfind('.') {
        Some(dot) => Span { start: span.start + dot as u32 + 1, ..span },
        None => span,
    }
}

fn record_named(checked: &Checked, name: &str) -> Option<RecordId> {
    checked.types.records.iter().position(|r| r.name == name).map(|i| RecordId(i as u32))
}

fn record_of_type(ty: &Type) -> Option<RecordId> {
    match ty {
        Type::Record(id) => Some(*id),
        Type::Ref(inner) => record_of_type(inner),
        _ => None,
    }
}

/// The kernel that `expr` names as the first argument of a `launch`.
fn launched_kernel_named(checked: &Checked, expr: ExprId) -> Option<usize> {
    checked.types.launches.iter().find_map(|(call, kernel)| match checked.module.expr(*call) {
        ExprKind::Call { args, .. } if args.first() == Some(&expr) => Some(*kernel),
        _ => None,
    })
}

/// Every occurrence of `symbol` in the program, definitions first, then in source order (by file, then offset).
pub fn occurrences(checked: &Checked, symbol: &Symbol) -> Vec<Occurrence> {
    let mut out = Vec::new();
    definitions(checked, symbol, &mut out);
    in_expressions(checked, symbol, &mut out);
    type_names(checked, symbol, &mut out);
    out.sort_by_key(|o| (o.access != Access::Definition, o.span.file, o.span.start));
    out.dedup_by_key(|o| o.span);
    out
}

fn definitions(checked: &Checked, symbol: &Symbol, out: &mut Vec<Occurrence>) {
    let types = &checked.types;
    let item_name = |item: usize| checked.module.items.get(item).map(|i| i.name().span);
    let span = match symbol {
        Symbol::Local(local) => Some(types.local(*local).span),
        Symbol::Function(id) => item_name(types.function(*id).item),
        Symbol::Constant(id) => item_name(types.constant(*id).item),
        Symbol::Kernel(kernel) => types.kernels.get(*kernel).and_then(|k| item_name(k.item)),
        Symbol::Record(id) => record_item(checked, *id).map(|(_, name)| name.span),
        Symbol::Field { record, name } => record_item(checked, *record).and_then(|(item, _)| {
            let Item::Record(decl) = &checked.module.items[item] else { return None };
            decl.fields.iter().find(|(field, _)| field.name == name.as_str()).map(|(field, _)| field.span)
        }),
        Symbol::Builtin(_) => None,
    };
    out.extend(span.map(|span| Occurrence { span, access: Access::Definition }));
}

/// The item declaring record `id`, and its name.
fn record_item(checked: &Checked, id: RecordId) -> Option<(usize, &Ident)> {
    let name = &checked.types.records.get(id.0 as usize)?.name;
    checked.module.items.iter().enumerate().find_map(|(index, item)| match item {
        Item::Record(record) if record.name.name == name.as_str() => Some((index, &record.name)),
        _ => None,
    })
}

fn in_expressions(checked: &Checked, symbol: &Symbol, out: &mut Vec<Occurrence>) {
    let module = &checked.module;
    let types = &checked.types;
    for (index, kind) in module.exprs.iter().enumerate() {
        let id = ExprId(index as u32);
        let mut push = |span: Span, access: Access| out.push(Occurrence { span, access });
        match kind {
            ExprKind::Var(path) | ExprKind::Call { callee: path, .. } if resolves_to(checked, id, symbol) => {
                push(path.name.span, Access::Read)
            }
            ExprKind::Global(name) if resolves_to(checked, id, symbol) => push(name.span, Access::Read),
            ExprKind::Assign { target, .. } if resolves_to(checked, id, symbol) => {
                push(target.name.span, Access::Write)
            }
            ExprKind::Field { record, field } | ExprKind::FieldSet { record, field, .. }
                if is_field(symbol, record_of_type(types.type_of(*record)), &field.name) =>
            {
                let access = if matches!(kind, ExprKind::FieldSet { .. }) { Access::Write } else { Access::Read };
                push(field.span, access);
            }
            ExprKind::Record(fields) => {
                let record = record_of_type(types.type_of(id));
                for (field, _) in fields.iter().filter(|(field, _)| is_field(symbol, record, &field.name)) {
                    push(field.span, Access::Write);
                }
            }
            _ => {}
        }
    }
    if let Symbol::Kernel(kernel) = symbol {
        for (call, launched) in types.launches.iter() {
            let ExprKind::Call { args, .. } = module.expr(*call) else { continue };
            if let (true, Some(ExprKind::Var(path))) = (launched == kernel, args.first().map(|a| module.expr(*a))) {
                out.push(Occurrence { span: path.name.span, access: Access::Read });
            }
        }
    }
}

fn is_field(symbol: &Symbol, record: Option<RecordId>, field: &str) -> bool {
    matches!(symbol, Symbol::Field { record: wanted, name } if Some(*wanted) == record && name == field)
}

fn resolves_to(checked: &Checked, expr: ExprId, symbol: &Symbol) -> bool {
    match (checked.types.resolution(expr), symbol) {
        (Some(Resolution::Local(a)), Symbol::Local(b)) => a == *b,
        (Some(Resolution::Function(a)), Symbol::Function(b)) => a == *b,
        (Some(Resolution::Constant(a)), Symbol::Constant(b)) => a == *b,
        (Some(Resolution::Builtin(a)), Symbol::Builtin(b)) => a.name == *b,
        _ => false,
    }
}

/// A record's name in type annotations (parameters, results, fields, constants, `let`s and `(e : T)`).
fn type_names(checked: &Checked, symbol: &Symbol, out: &mut Vec<Occurrence>) {
    let Symbol::Record(id) = symbol else { return };
    let name = checked.types.record(*id).name.as_str();
    let mut names = Vec::new();
    for item in &checked.module.items {
        item_type_names(item, &mut names);
    }
    for kind in &checked.module.exprs {
        match kind {
            ExprKind::Let { ty: Some(ty), .. } | ExprKind::Annot { ty, .. } => type_expr_names(ty, &mut names),
            ExprKind::LetArray { elem: Some(ty), .. } => type_expr_names(ty, &mut names),
            _ => {}
        }
    }
    let matching = names.into_iter().filter(|ident| ident.name == name);
    out.extend(matching.map(|ident| Occurrence { span: ident.span, access: Access::Read }));
}

fn item_type_names<'m>(item: &'m Item, out: &mut Vec<&'m Ident>) {
    match item {
        Item::Kernel(k) => k.params.iter().filter_map(|p| p.ty.as_ref()).for_each(|t| type_expr_names(t, out)),
        Item::Function(f) => {
            f.params.iter().filter_map(|p| p.ty.as_ref()).chain(f.ret.as_ref()).for_each(|t| type_expr_names(t, out))
        }
        Item::Constant(c) => c.ty.iter().for_each(|t| type_expr_names(t, out)),
        Item::Record(r) => r.fields.iter().for_each(|(_, t)| type_expr_names(t, out)),
        Item::Open(_) => {}
    }
}

fn type_expr_names<'m>(ty: &'m TypeExpr, out: &mut Vec<&'m Ident>) {
    match ty {
        TypeExpr::Named(name) | TypeExpr::Qualified { name, .. } => out.push(name),
        TypeExpr::Variable(_) => {}
        TypeExpr::Apply { arg, .. } | TypeExpr::QualifiedApply { arg, .. } => type_expr_names(arg, out),
        TypeExpr::Sized { elem, .. } => type_expr_names(elem, out),
        TypeExpr::Function { params, ret } => params.iter().chain([&**ret]).for_each(|t| type_expr_names(t, out)),
        TypeExpr::Tuple(components) => components.iter().for_each(|t| type_expr_names(t, out)),
    }
}

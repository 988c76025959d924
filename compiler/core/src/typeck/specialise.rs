//! The specialised program: each generic function used at several types becomes one copy per instance
//! (`sq__float32`, `sq__int32`), its generic parameters and result annotated with the instance's types, in the
//! place of the generic item; every call names the instance it calls. A generic function used at one type keeps
//! its name and its body (nothing to copy). The copies' expressions are new nodes of the arena with the spans of
//! the originals, so diagnostics point into the generic function's source.

use crate::fxhash::FxHashMap;
use crate::source::Span;
use crate::syntax::ast::{
    for_each_child, map_children, ExprId, ExprKind, Function, Ident, Item, Module, Name, Param, TypeExpr,
};
use crate::types::{FunctionId, Type};

use super::generic::{mentions, InstanceRef, Plan};

/// A program with its generic functions specialised.
pub(crate) struct Specialised {
    pub(crate) module: Module,
    /// For each item of `module`, the item of the written program it comes from.
    pub(crate) origins: Vec<usize>,
    /// For each item of `module` that is an instance of a function used at several types, how a diagnostic
    /// inside it names the instance.
    pub(crate) instance_notes: Vec<Option<String>>,
}

/// Specialises `module` by `plan`; `function_items` gives the item of each function.
pub(crate) fn specialise(module: &Module, plan: &Plan, function_items: &[usize]) -> Specialised {
    let mut out = Specialised { module: module.clone(), origins: Vec::new(), instance_notes: Vec::new() };
    let names = &plan.names;
    let mut copies: FxHashMap<InstanceRef, FxHashMap<ExprId, ExprId>> = FxHashMap::default();
    let mut items = Vec::new();
    let functions: FxHashMap<usize, FunctionId> =
        function_items.iter().enumerate().map(|(f, item)| (*item, FunctionId(f as u32))).collect();
    for (index, item) in module.items.iter().enumerate() {
        let generic = functions.get(&index).copied();
        match (item, generic) {
            (Item::Function(function), Some(f)) if plan.instances[f.0 as usize].len() > 1 => {
                for instance in 0..plan.instances[f.0 as usize].len() {
                    let (copy, map) = instance_copy(&mut out.module, function, plan, (f, instance));
                    copies.insert((f, instance), map);
                    let note = format!("in the instance `{}` {}", copy.name.name, plan.notes[f.0 as usize][instance]);
                    out.instance_notes.push(Some(note));
                    items.push(Item::Function(copy));
                    out.origins.push(index);
                }
            }
            _ => {
                items.push(item.clone());
                out.origins.push(index);
                out.instance_notes.push(None);
            }
        }
    }
    out.module.items = items;
    for (caller, call, callee) in &plan.edges {
        let Some(name) = names.get(callee.0 .0 as usize).filter(|n| !n.is_empty()) else { continue };
        let call = match caller.and_then(|c| copies.get(&c)) {
            Some(map) => map.get(call).copied().unwrap_or(*call),
            None => *call,
        };
        if let Some(ExprKind::Call { callee: path, .. }) = out.module.exprs.get_mut(call.index()) {
            path.name.name = Name::new(&name[callee.1]);
        }
    }
    out
}

/// The copy of `function` for one instance, and the map from the original body's nodes to the copy's.
fn instance_copy(
    module: &mut Module,
    function: &Function,
    plan: &Plan,
    instance: InstanceRef,
) -> (Function, FxHashMap<ExprId, ExprId>) {
    let (f, index) = instance;
    let (params, ret) = &plan.signatures[f.0 as usize];
    let generic = &plan.variables[f.0 as usize];
    let annotate = |written: &Option<TypeExpr>, ty: &Type, span: Span| match written {
        // `'a` names the instance's type: the copy says which, or leaves it to inference.
        Some(written) if super::items::first_type_variable(written).is_some() => {
            type_expr(&plan.instance_type(ty, instance), span, &plan.record_names)
        }
        Some(written) => Some(written.clone()),
        None if mentions(ty, generic) => type_expr(&plan.instance_type(ty, instance), span, &plan.record_names),
        None => None,
    };
    let params = function
        .params
        .iter()
        .zip(params)
        .map(|(p, ty)| Param { ty: annotate(&p.ty, ty, p.name.span), ..p.clone() })
        .collect();
    let ret = annotate(&function.ret, ret, function.name.span);
    let name = plan.names[f.0 as usize][index].clone();
    let (body, map) = copy_subtree(module, function.body);
    let copy = Function {
        name: Ident { name: Name::new(&name), span: function.name.span },
        params,
        ret,
        body,
        span: function.span,
    };
    (copy, map)
}

/// The source form of an instance's parameter type (numbers, and `ref`s and vectors of them).
fn type_expr(ty: &Type, span: Span, records: &[String]) -> Option<TypeExpr> {
    let named = |name: &str| Some(TypeExpr::Named(Ident { name: Name::new(name), span }));
    let apply = |elem: &Type, constructor: &str| {
        Some(TypeExpr::Apply {
            arg: Box::new(type_expr(elem, span, records)?),
            constructor: Ident { name: Name::new(constructor), span },
        })
    };
    match ty {
        Type::Int32 => named("int32"),
        Type::Int64 => named("int64"),
        Type::UInt32 => named("uint32"),
        Type::UInt64 => named("uint64"),
        Type::Float32 => named("float32"),
        Type::Float64 => named("float64"),
        Type::Float16 => named("float16"),
        Type::BFloat16 => named("bfloat16"),
        Type::Bool => named("bool"),
        Type::Unit => named("unit"),
        Type::Ref(e) => apply(e, "ref"),
        Type::Vector(e) => apply(e, "vector"),
        Type::Record(r) => named(records.get(r.0 as usize)?),
        Type::Tuple(components) => {
            Some(TypeExpr::Tuple(components.iter().map(|c| type_expr(c, span, records)).collect::<Option<Vec<_>>>()?))
        }
        _ => None,
    }
}

/// Copies the expression tree under `root` into new nodes (children before parents); returns the copy's root and
/// the map from original nodes to copies.
pub(crate) fn copy_subtree(module: &mut Module, root: ExprId) -> (ExprId, FxHashMap<ExprId, ExprId>) {
    let mut map: FxHashMap<ExprId, ExprId> = FxHashMap::default();
    let mut stack = vec![(root, false)];
    while let Some((id, children_done)) = stack.pop() {
        if map.contains_key(&id) || id.index() >= module.exprs.len() {
            continue;
        }
        if !children_done {
            stack.push((id, true));
            for_each_child(&module.exprs[id.index()], |child| stack.push((child, false)));
            continue;
        }
        let mut kind = module.exprs[id.index()].clone();
        map_children(&mut kind, |child| map.get(&child).copied().unwrap_or(child));
        let span = module.expr_spans[id.index()];
        let copy = module.alloc(kind, span);
        map.insert(id, copy);
    }
    let copied_root = map.get(&root).copied().unwrap_or(root);
    (copied_root, map)
}

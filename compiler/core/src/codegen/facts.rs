//! Facts about the whole module that the emitter needs before it prints anything: how often each local is read
//! (an unread `let` is not declared, so NVRTC has no unused-variable warning to give), which array locals are
//! written through (a vector parameter nobody writes is `const`), and whether records are compared.

use std::collections::{HashMap, HashSet};

use crate::syntax::ast::{ExprId, ExprKind, Module};
use crate::types::{LocalId, Resolution, Type, TypeInfo};

pub struct ModuleFacts {
    /// Number of expressions that refer to each local.
    pub local_uses: HashMap<LocalId, usize>,
    /// Array-typed locals (parameters, `let` aliases) written through, directly or by a function they are passed to.
    pub written: HashSet<LocalId>,
    /// Does the module compare records with `=` or `<>`?
    pub compares_records: bool,
}

impl ModuleFacts {
    pub fn compute(module: &Module, types: &TypeInfo) -> ModuleFacts {
        let aliases = ref_aliases(module, types);
        let mut local_uses = HashMap::new();
        for (expr, resolution) in &types.resolutions {
            if let Resolution::Local(id) = resolution {
                // An `Assign` names its target but does not read it, unless the target is another name for a
                // cell declared elsewhere (`let y = x in y := 5` changes `x`).
                let assign = matches!(module.exprs.get(expr.index()), Some(ExprKind::Assign { .. }));
                if !assign || aliases.contains(id) {
                    *local_uses.entry(*id).or_insert(0) += 1;
                }
            }
        }
        ModuleFacts {
            local_uses,
            written: written_locals(module, types),
            compares_records: compares_records(module, types),
        }
    }

    pub fn is_used(&self, local: LocalId) -> bool {
        self.local_uses.get(&local).copied().unwrap_or(0) > 0
    }
}

/// Locals of type `T ref` bound to an existing cell (`let y = x in`), not to a new one (`let y = ref e in`).
fn ref_aliases(module: &Module, types: &TypeInfo) -> HashSet<LocalId> {
    let mut aliases = HashSet::new();
    for (index, kind) in module.exprs.iter().enumerate() {
        let ExprKind::Let { value, .. } = kind else { continue };
        let Some(local) = types.declared_local.get(&ExprId(index as u32)) else { continue };
        let is_ref = matches!(types.locals.get(local.0 as usize).map(|l| &l.ty), Some(Type::Ref(_)));
        let mut value = *value;
        while let Some(ExprKind::Annot { expr, .. }) = module.exprs.get(value.index()) {
            value = *expr;
        }
        if is_ref && !matches!(module.exprs.get(value.index()), Some(ExprKind::Ref(_))) {
            aliases.insert(*local);
        }
    }
    aliases
}

fn is_pointer(ty: &Type) -> bool {
    matches!(ty, Type::Vector(_) | Type::Array { .. } | Type::ConstArray { .. })
}

/// The locals an array-valued expression may evaluate to.
fn pointer_roots(module: &Module, types: &TypeInfo, e: ExprId, out: &mut Vec<LocalId>) {
    let Some(kind) = module.exprs.get(e.index()) else { return };
    match kind {
        ExprKind::Var(_) => {
            if let Some(Resolution::Local(id)) = types.resolution(e) {
                out.push(id);
            }
        }
        ExprKind::If { then_branch, else_branch, .. } => {
            pointer_roots(module, types, *then_branch, out);
            if let Some(e) = else_branch {
                pointer_roots(module, types, *e, out);
            }
        }
        ExprKind::Seq(_, last) => pointer_roots(module, types, *last, out),
        ExprKind::Let { body, .. } | ExprKind::LetArray { body, .. } | ExprKind::Pragma { body, .. } => {
            pointer_roots(module, types, *body, out)
        }
        ExprKind::Annot { expr, .. } => pointer_roots(module, types, *expr, out),
        ExprKind::Call { args, .. } => {
            // `select c a b` on arrays.
            if matches!(types.resolution(e), Some(Resolution::Builtin(b)) if b.name == "select") {
                for a in args.iter().skip(1) {
                    pointer_roots(module, types, *a, out);
                }
            }
        }
        _ => {}
    }
}

/// The array an assignment target `a.(i)`, `a.(i).f` writes into.
fn place_array(module: &Module, e: ExprId) -> Option<ExprId> {
    match module.exprs.get(e.index())? {
        ExprKind::Index { array, .. } => Some(*array),
        ExprKind::Field { record, .. } => place_array(module, *record),
        _ => None,
    }
}

fn written_locals(module: &Module, types: &TypeInfo) -> HashSet<LocalId> {
    let mut direct: Vec<LocalId> = Vec::new();
    // `implies[l]`: if local `l` is written through, so are these.
    let mut implies: HashMap<LocalId, Vec<LocalId>> = HashMap::new();
    for (index, kind) in module.exprs.iter().enumerate() {
        let e = ExprId(index as u32);
        match kind {
            ExprKind::IndexSet { array, .. } => pointer_roots(module, types, *array, &mut direct),
            ExprKind::FieldSet { record, .. } => {
                if let Some(array) = place_array(module, *record) {
                    pointer_roots(module, types, array, &mut direct);
                }
            }
            ExprKind::Call { args, .. } => match types.resolution(e) {
                Some(Resolution::Builtin(b)) if b.writes_first_arg => {
                    if let Some(first) = args.first() {
                        pointer_roots(module, types, *first, &mut direct);
                    }
                }
                Some(Resolution::Function(f)) => {
                    let Some(info) = types.functions.get(f.0 as usize) else { continue };
                    for (param, arg) in info.params.iter().zip(args.iter().filter(|a| !is_unit_arg(module, types, **a))) {
                        let mut roots = Vec::new();
                        pointer_roots(module, types, *arg, &mut roots);
                        implies.entry(*param).or_default().extend(roots);
                    }
                }
                _ => {}
            },
            ExprKind::Let { value, .. } => {
                if let Some(local) = types.declared_local.get(&e) {
                    if is_pointer(types.type_of(*value)) {
                        let mut roots = Vec::new();
                        pointer_roots(module, types, *value, &mut roots);
                        implies.entry(*local).or_default().extend(roots);
                    }
                }
            }
            _ => {}
        }
    }
    let mut written: HashSet<LocalId> = HashSet::new();
    let mut work = direct;
    while let Some(local) = work.pop() {
        if written.insert(local) {
            if let Some(next) = implies.get(&local) {
                work.extend(next.iter().copied());
            }
        }
    }
    written
}

/// A `()` argument (`f ()`): not passed in C.
pub fn is_unit_arg(module: &Module, types: &TypeInfo, arg: ExprId) -> bool {
    matches!(module.exprs.get(arg.index()), Some(ExprKind::Unit)) || *types.type_of(arg) == Type::Unit
}

fn compares_records(module: &Module, types: &TypeInfo) -> bool {
    module.exprs.iter().any(|kind| match kind {
        ExprKind::Binary { op, lhs, .. } if matches!(op, crate::syntax::ast::BinaryOp::Eq | crate::syntax::ast::BinaryOp::Ne) => {
            matches!(types.type_of(*lhs), Type::Record(_))
        }
        _ => false,
    })
}

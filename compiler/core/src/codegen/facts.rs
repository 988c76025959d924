//! Facts about the whole module that the emitter needs before it prints anything: how often each local is read
//! in the code that is emitted (an unread `let` is not declared, so NVRTC has no unused-variable warning to give;
//! a branch of a constant `if` that never runs reads nothing), which array locals are
//! written through (a vector parameter nobody writes is `const`), and whether records are compared.

use std::collections::{HashMap, HashSet};

use crate::syntax::ast::{BinaryOp, ExprId, ExprKind, Module};
use crate::types::{LocalId, Resolution, Type, TypeInfo};

pub struct ModuleFacts {
    /// Number of expressions that refer to each local.
    pub local_uses: HashMap<LocalId, usize>,
    /// Array-typed locals (parameters, `let` aliases) written through, directly or by a function they are passed to.
    pub written: HashSet<LocalId>,
    /// Does the module compare records with `=` or `<>`?
    pub compares_records: bool,
    /// The alignment in bytes that vector loads and stores need of each array they reach (`crate::vectors`).
    pub vector_alignment: std::collections::BTreeMap<LocalId, u32>,
}

impl ModuleFacts {
    pub fn compute(module: &Module, types: &TypeInfo) -> ModuleFacts {
        let aliases = ref_aliases(module, types);
        let (arrays, stores) = array_stores(module, types);
        // A use in a branch that never runs (a constant `if`) is not emitted, and does not keep a `let` declared.
        let never_run = crate::constant_if::never_run(module, types);
        let mut local_uses = HashMap::new();
        for (expr, resolution) in &types.resolutions {
            if never_run.get(expr.index()).copied().unwrap_or(false) {
                continue;
            }
            if let Resolution::Local(id) = resolution {
                // An `Assign` names its target but does not read it, unless the target is another name for a
                // cell declared elsewhere (`let y = x in y := 5` changes `x`); a store into a shared or local
                // array does not read the array.
                let assign = matches!(module.exprs.get(expr.index()), Some(ExprKind::Assign { .. }));
                let store = stores.contains(expr) && arrays.contains(id);
                if (!assign || aliases.contains(id)) && !store {
                    *local_uses.entry(*id).or_insert(0) += 1;
                }
            }
        }
        ModuleFacts {
            local_uses,
            written: written_locals(module, types),
            compares_records: compares_records(module, types),
            vector_alignment: crate::vectors::alignment::required_alignment(module, types),
        }
    }

    pub fn is_used(&self, local: LocalId) -> bool {
        self.local_uses.get(&local).copied().unwrap_or(0) > 0
    }
}

/// The shared and local arrays (`LetArray` locals), and the array names that stores (`a.(i) <- v`,
/// `a.(i).f <- v`) write into.
fn array_stores(module: &Module, types: &TypeInfo) -> (HashSet<LocalId>, HashSet<ExprId>) {
    let mut arrays = HashSet::new();
    let mut stores = HashSet::new();
    for (index, kind) in module.exprs.iter().enumerate() {
        let target = match kind {
            ExprKind::LetArray { .. } => {
                arrays.extend(types.declared_local.get(&ExprId(index as u32)).copied());
                continue;
            }
            ExprKind::IndexSet { array, .. } => Some(*array),
            ExprKind::FieldSet { record, .. } => place_array(module, *record),
            _ => None,
        };
        if let Some(mut array) = target {
            while let Some(ExprKind::Annot { expr, .. }) = module.exprs.get(array.index()) {
                array = *expr;
            }
            if matches!(module.exprs.get(array.index()), Some(ExprKind::Var(_))) {
                stores.insert(array);
            }
        }
    }
    (arrays, stores)
}

/// Is `e` the name of a shared or local array that nothing reads (so it is not declared, and stores into it
/// are left out)?
pub fn is_unread_array(module: &Module, types: &TypeInfo, facts: &ModuleFacts, mut e: ExprId) -> bool {
    while let Some(ExprKind::Annot { expr, .. }) = module.exprs.get(e.index()) {
        e = *expr;
    }
    match (module.exprs.get(e.index()), types.resolution(e)) {
        (Some(ExprKind::Var(_)), Some(Resolution::Local(id))) => {
            matches!(types.locals.get(id.0 as usize).map(|l| &l.ty), Some(Type::Array { .. }))
                && types.locals.get(id.0 as usize).map(|l| l.param_index.is_none()) == Some(true)
                && !facts.is_used(id)
        }
        _ => false,
    }
}

/// Does the value of a `let` of type `T ref` name an existing cell (its last expression is a variable), rather
/// than make a new one?
pub fn is_cell_alias(module: &Module, mut value: ExprId) -> bool {
    loop {
        match module.exprs.get(value.index()) {
            Some(ExprKind::Annot { expr: next, .. }) | Some(ExprKind::Seq(_, next)) => value = *next,
            Some(ExprKind::Let { body, .. }) | Some(ExprKind::LetArray { body, .. }) => value = *body,
            Some(ExprKind::Var(_)) => return true,
            _ => return false,
        }
    }
}

/// Locals of type `T ref` bound to an existing cell (`let y = x in`), not to a new one (`let y = ref e in`).
fn ref_aliases(module: &Module, types: &TypeInfo) -> HashSet<LocalId> {
    let mut aliases = HashSet::new();
    for (index, kind) in module.exprs.iter().enumerate() {
        let ExprKind::Let { value, .. } = kind else { continue };
        let Some(local) = types.declared_local.get(&ExprId(index as u32)) else { continue };
        let is_ref = matches!(types.locals.get(local.0 as usize).map(|l| &l.ty), Some(Type::Ref(_)));
        if is_ref && is_cell_alias(module, *value) {
            aliases.insert(*local);
        }
    }
    aliases
}

fn is_pointer(ty: &Type) -> bool {
    matches!(ty, Type::Vector(_) | Type::Array { .. } | Type::ConstArray { .. })
}

/// The locals an array-valued expression may evaluate to (every one: a written vector left out would be emitted
/// as read-only).
fn pointer_roots(module: &Module, types: &TypeInfo, e: ExprId, out: &mut Vec<LocalId>) {
    crate::storage::pointer_roots(module, &|e| types.resolution(e), e, out);
}

/// The array an assignment target `a.(i)`, `a.(i).f` writes into.
pub fn place_array(module: &Module, e: ExprId) -> Option<ExprId> {
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
            ExprKind::IndexSet { array, .. } => {
                pointer_roots(module, types, crate::storage::row_owner(module, *array), &mut direct)
            }
            ExprKind::FieldSet { record, .. } => {
                if let Some(array) = place_array(module, *record) {
                    pointer_roots(module, types, crate::storage::row_owner(module, array), &mut direct);
                }
            }
            ExprKind::Call { args, .. } => match types.resolution(e) {
                // A child kernel may write any vector it is given (typeck counts them as written too).
                Some(Resolution::Builtin(b)) if b.params.first() == Some(&crate::builtins::SigType::Kernel) => {
                    for arg in args.iter().skip(4) {
                        pointer_roots(module, types, *arg, &mut direct);
                    }
                }
                Some(Resolution::Builtin(b)) if b.writes_first_arg => {
                    if let Some(first) = args.first() {
                        pointer_roots(module, types, *first, &mut direct);
                    }
                }
                Some(Resolution::Function(f)) => {
                    let Some(info) = types.functions.get(f.0 as usize) else { continue };
                    for (param, arg) in info.params.iter().zip(args.iter().filter(|a| !is_unit_arg(module, types, **a)))
                    {
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
        ExprKind::Binary { op: BinaryOp::Eq | BinaryOp::Ne, lhs, .. } => matches!(types.type_of(*lhs), Type::Record(_)),
        _ => false,
    })
}

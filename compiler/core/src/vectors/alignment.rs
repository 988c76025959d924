//! Which arrays must be aligned beyond their elements' own alignment: those a vector load or store
//! (`load_float4 a i`) reaches, directly, through another name (`let b = a in`, `if`, `select`), or as the
//! argument of a function or a launched kernel whose parameter one reaches. The emitter aligns the shared and
//! local arrays among them (`__align__(16)`); a kernel's vector parameters among them are the pointers the
//! runtime checks at launch, since only the host knows where they point.

use std::collections::BTreeMap;

use crate::storage::pointer_roots;
use crate::syntax::ast::{ExprId, ExprKind, Module};
use crate::types::{LocalId, Resolution, TypeInfo};

use super::VectorKind;

/// The alignment in bytes each variable's storage needs, for the variables that need more than their elements'.
pub fn required_alignment(module: &Module, types: &TypeInfo) -> BTreeMap<LocalId, u32> {
    let mut required = BTreeMap::new();
    let calls: Vec<(ExprId, &[ExprId])> = module
        .exprs
        .iter()
        .enumerate()
        .filter_map(|(i, kind)| match kind {
            ExprKind::Call { args, .. } => Some((ExprId(i as u32), args.as_slice())),
            _ => None,
        })
        .collect();
    for (e, args) in &calls {
        if let (Some(kind), Some(first)) = (vector_access(types, *e), args.first()) {
            require(module, types, *first, kind.size(), &mut required);
        }
    }
    // Parameters pass the requirement on to the arguments bound to them, and names to what they name, until
    // nothing changes (each step only raises a variable's alignment, which is bounded).
    loop {
        let before = required.clone();
        for (e, args) in &calls {
            for (arg, param) in bound_parameters(types, *e, args) {
                if let Some(&align) = required.get(&param) {
                    require(module, types, arg, align, &mut required);
                }
            }
        }
        for (alias, targets) in &types.aliases {
            if let Some(&align) = required.get(alias) {
                for target in targets {
                    raise(&mut required, *target, align);
                }
            }
        }
        if required == before {
            return required;
        }
    }
}

/// The vector type a call to a vector load or store moves.
pub fn vector_access(types: &TypeInfo, call: ExprId) -> Option<VectorKind> {
    let Some(Resolution::Builtin(b)) = types.resolution(call) else { return None };
    VectorKind::accessed_by(b.get())
}

/// The arguments of a call of a function or a `launch` of a kernel, each with the parameter it is bound to.
fn bound_parameters(types: &TypeInfo, call: ExprId, args: &[ExprId]) -> Vec<(ExprId, LocalId)> {
    match types.resolution(call) {
        Some(Resolution::Function(f)) => args.iter().copied().zip(types.function(f).params.iter().copied()).collect(),
        Some(Resolution::Builtin(b)) if b.name == "launch" => {
            let Some(kernel) = types.launches.get(&call).and_then(|k| types.kernels.get(*k)) else { return Vec::new() };
            // `launch k grid block shared args...`
            let passed = args.get(4..).unwrap_or(&[]);
            passed.iter().copied().zip(kernel.params.iter().map(|p| p.local)).collect()
        }
        _ => Vec::new(),
    }
}

fn require(module: &Module, types: &TypeInfo, array: ExprId, align: u32, required: &mut BTreeMap<LocalId, u32>) {
    let mut roots = Vec::new();
    pointer_roots(module, &|e| types.resolution(e), array, &mut roots);
    for root in roots {
        raise(required, root, align);
    }
}

fn raise(required: &mut BTreeMap<LocalId, u32>, local: LocalId, align: u32) {
    let entry = required.entry(local).or_insert(align);
    *entry = (*entry).max(align);
}

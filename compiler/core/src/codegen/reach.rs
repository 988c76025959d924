//! What the translation unit contains: the kernels asked for (every kernel, unless `EmitOptions::only_kernels`
//! names some), the kernels those launch from the device, and the device functions any of them calls, directly
//! or through other functions. A function no emitted kernel reaches is left out (NVRTC would compile it for
//! nothing, and a library of thousands of helpers would cost every kernel that uses three of them). Functions
//! are printed callees first, in source order otherwise, so the output reads as the `.sk` file does.
//!
//! Each body is walked once: the whole computation is linear in the size of the module.

use crate::syntax::ast::{ExprId, ExprKind, Item, Module};
use crate::types::{FunctionId, Resolution, TypeInfo};

/// The kernels and functions to emit, by index in `TypeInfo::kernels` and `TypeInfo::functions`.
pub struct Reach {
    pub kernels: Vec<bool>,
    pub functions: Vec<bool>,
    /// The functions each function calls (by `FunctionId`), in the order first met; empty for unreached ones.
    callees: Vec<Vec<FunctionId>>,
}

/// The functions called and kernels launched in the body under `root`, each once, in the order a depth-first
/// walk that visits the last child first meets them (the order the printed output has always had).
fn references(module: &Module, types: &TypeInfo, root: ExprId) -> (Vec<FunctionId>, Vec<usize>) {
    let (mut functions, mut kernels) = (Vec::new(), Vec::new());
    let mut stack = vec![root];
    while let Some(e) = stack.pop() {
        if e.index() >= module.exprs.len() {
            continue;
        }
        if let Some(Resolution::Function(f)) = types.resolution(e) {
            if !functions.contains(&f) {
                functions.push(f);
            }
        }
        if let Some(&kernel) = types.launches.get(&e) {
            if !kernels.contains(&kernel) {
                kernels.push(kernel);
            }
        }
        match module.exprs[e.index()] {
            // A constant condition: the branch that never runs calls and launches nothing (it is not emitted).
            ExprKind::If { then_branch, else_branch, .. } if types.constant_conditions.get(&e).is_some() => {
                let taken = types.taken_branch(e, then_branch, else_branch);
                stack.extend(taken.flatten());
            }
            _ => stack.extend(module.children(e)),
        }
    }
    (functions, kernels)
}

fn function_body(module: &Module, types: &TypeInfo, id: FunctionId) -> Option<ExprId> {
    match module.items.get(types.functions.get(id.0 as usize)?.item)? {
        Item::Function(f) => Some(f.body),
        _ => None,
    }
}

fn kernel_body(module: &Module, types: &TypeInfo, index: usize) -> Option<ExprId> {
    match module.items.get(types.kernels.get(index)?.item)? {
        Item::Kernel(k) => Some(k.body),
        _ => None,
    }
}

impl Reach {
    /// Everything the kernels named in `only` (all kernels when `None`) need.
    pub fn compute(module: &Module, types: &TypeInfo, only: Option<&[String]>) -> Reach {
        let mut reach = Reach {
            kernels: vec![false; types.kernels.len()],
            functions: vec![false; types.functions.len()],
            callees: vec![Vec::new(); types.functions.len()],
        };
        let mut kernels: Vec<usize> = (0..types.kernels.len())
            .filter(|&i| only.is_none_or(|names| names.iter().any(|n| *n == types.kernels[i].name)))
            .collect();
        let mut functions: Vec<FunctionId> = Vec::new();
        while !kernels.is_empty() || !functions.is_empty() {
            if let Some(kernel) = kernels.pop() {
                if std::mem::replace(&mut reach.kernels[kernel], true) {
                    continue;
                }
                let Some(body) = kernel_body(module, types, kernel) else { continue };
                let (called, launched) = references(module, types, body);
                functions.extend(called);
                kernels.extend(launched);
            } else if let Some(function) = functions.pop() {
                let index = function.0 as usize;
                if index >= reach.functions.len() || std::mem::replace(&mut reach.functions[index], true) {
                    continue;
                }
                let Some(body) = function_body(module, types, function) else { continue };
                let (called, launched) = references(module, types, body);
                functions.extend(called.iter().copied());
                kernels.extend(launched);
                reach.callees[index] = called;
            }
        }
        reach
    }

    /// The reached functions, callees first (source order otherwise), and whether the call graph has a cycle
    /// (then prototypes are printed first; the type checker rejects recursion, so only a program with errors
    /// would have one).
    pub fn function_order(&self, types: &TypeInfo) -> (Vec<FunctionId>, bool) {
        let count = types.functions.len();
        let (mut done, mut active) = (vec![false; count], vec![false; count]);
        let mut order = Vec::new();
        let mut cyclic = false;
        let mut roots: Vec<FunctionId> =
            (0..count).filter(|&i| self.functions[i]).map(|i| FunctionId(i as u32)).collect();
        roots.sort_by_key(|id| types.functions[id.0 as usize].item);
        for root in roots {
            self.visit(root, &mut done, &mut active, &mut order, &mut cyclic);
        }
        (order, cyclic)
    }

    /// Depth first, callees before callers, with an explicit stack (call chains can be thousands deep).
    fn visit(
        &self,
        root: FunctionId,
        done: &mut [bool],
        active: &mut [bool],
        order: &mut Vec<FunctionId>,
        cyclic: &mut bool,
    ) {
        // (function, index of the next callee to visit)
        let mut stack: Vec<(FunctionId, usize)> = vec![(root, 0)];
        while let Some((id, next)) = stack.pop() {
            let index = id.0 as usize;
            if next == 0 {
                if done[index] {
                    continue;
                }
                if active[index] {
                    *cyclic = true;
                    continue;
                }
                active[index] = true;
            }
            match self.callees[index].get(next) {
                Some(&callee) => {
                    stack.push((id, next + 1));
                    stack.push((callee, 0));
                }
                None => {
                    active[index] = false;
                    done[index] = true;
                    order.push(id);
                }
            }
        }
    }
}

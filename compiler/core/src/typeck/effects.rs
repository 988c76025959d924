//! Facts about what bodies do, gathered while checking them: which locals are written through (`a.(i) <- v`,
//! `a.(i).f <- v`, atomics), which locals are passed to which function parameters, and which functions call
//! which. After checking, writes are propagated through calls to a fixpoint (a kernel parameter handed to a
//! function that writes its parameter is written), and cycles in the call graph are reported as recursion.

use crate::diagnostic::Diagnostic;
use crate::fxhash::{FxHashMap, FxHashSet};
use crate::source::Span;
use crate::syntax::ast::{ExprId, ExprKind};
use crate::types::{FunctionId, LocalId, Resolution, Type};

use super::{Checker, Owner};

/// A local passed as argument `param_index` of a call to `callee`.
#[derive(Clone, Debug)]
pub(crate) struct ArgPass {
    pub(crate) callee: FunctionId,
    pub(crate) param_index: usize,
    pub(crate) local: LocalId,
}

/// A call from one device function to another.
#[derive(Clone, Debug)]
pub(crate) struct CallEdge {
    pub(crate) caller: FunctionId,
    pub(crate) callee: FunctionId,
    pub(crate) span: Span,
}

#[derive(Debug, Default)]
pub(crate) struct Effects {
    /// Locals written through (elements or fields).
    pub(crate) written: FxHashSet<LocalId>,
    /// Locals loaded from with an ordered atomic load (memory that others change while the kernel runs).
    pub(crate) loaded_atomically: FxHashSet<LocalId>,
    /// `let b = a in`, `let b = if c then a1 else a2 in`: the locals `b` may name (the locals its value may
    /// evaluate to, see `storage::pointer_roots`).
    pub(crate) aliases: FxHashMap<LocalId, Vec<LocalId>>,
    pub(crate) passes: Vec<ArgPass>,
    pub(crate) calls: Vec<CallEdge>,
}

impl Checker<'_> {
    /// The locals that `expr` may name, through annotations, choices (`if`, `select`) and `let` aliases; with
    /// `through_elements`, also the arrays or records an element or field belongs to.
    pub(crate) fn root_locals(&self, mut expr: ExprId, through_elements: bool) -> impl Iterator<Item = LocalId> {
        loop {
            expr = match self.kind(expr) {
                ExprKind::Index { array, .. } if through_elements => *array,
                ExprKind::Field { record, .. } if through_elements => *record,
                ExprKind::Annot { expr, .. } => *expr,
                _ => break,
            };
        }
        // The common case, a name that is no alias, allocates nothing.
        if let (ExprKind::Var(_), Some(Resolution::Local(local))) = (self.kind(expr), self.info.resolution(expr)) {
            if !self.effects.aliases.contains_key(&local) {
                return Some(local).into_iter().chain(Vec::new());
            }
        }
        let mut direct = Vec::new();
        crate::storage::pointer_roots(self.module, &|e| self.info.resolution(e), expr, &mut direct);
        None.into_iter().chain(self.behind_aliases(direct))
    }

    /// `locals`, each replaced by what it is another name for, transitively. Every alias is followed (a root left
    /// out would hide a write); each local is visited once, so aliases chosen by `if` that share names stay linear.
    fn behind_aliases(&self, mut pending: Vec<LocalId>) -> Vec<LocalId> {
        if pending.iter().all(|l| !self.effects.aliases.contains_key(l)) {
            return pending;
        }
        let mut out = Vec::new();
        let mut seen = crate::fxhash::FxHashSet::default();
        while let Some(local) = pending.pop() {
            if !seen.insert(local) {
                continue;
            }
            match self.effects.aliases.get(&local) {
                Some(names) => pending.extend(names.iter().copied()),
                None => out.push(local),
            }
        }
        out
    }

    /// Records that the arrays or records behind `target` are written.
    pub(crate) fn note_write(&mut self, target: ExprId) {
        for local in self.root_locals(target, true) {
            self.effects.written.insert(local);
        }
    }

    /// Records that the arrays behind `target` are read with an ordered atomic load.
    pub(crate) fn note_atomic_load(&mut self, target: ExprId) {
        for local in self.root_locals(target, true) {
            self.effects.loaded_atomically.insert(local);
        }
    }

    /// Records `let local = value in` when `value` names other locals (so writes through `local` count).
    pub(crate) fn note_alias(&mut self, local: LocalId, value: ExprId) {
        let mut names = Vec::new();
        crate::storage::pointer_roots(self.module, &|e| self.info.resolution(e), value, &mut names);
        names.retain(|&n| n != local);
        if !names.is_empty() {
            self.effects.aliases.insert(local, names);
        }
    }

    /// Records a call to device function `callee` with `args`.
    pub(crate) fn note_call(&mut self, callee: FunctionId, args: &[ExprId], span: Span) {
        if let Owner::Function(caller) = self.ctx.owner {
            self.effects.calls.push(CallEdge { caller, callee, span });
        }
        for (param_index, arg) in args.iter().enumerate() {
            for local in self.root_locals(*arg, false) {
                self.effects.passes.push(ArgPass { callee, param_index, local });
            }
        }
    }

    /// Propagates writes (and ordered atomic loads) through calls until nothing changes, then marks the vector
    /// parameters of kernels and functions.
    pub(crate) fn propagate_writes(&mut self) {
        loop {
            let mut changed = false;
            for pass in &self.effects.passes {
                let callee_param =
                    self.info.functions.get(pass.callee.0 as usize).and_then(|f| f.params.get(pass.param_index));
                if callee_param.is_some_and(|p| self.effects.written.contains(p)) {
                    changed |= self.effects.written.insert(pass.local);
                }
                if callee_param.is_some_and(|p| self.effects.loaded_atomically.contains(p)) {
                    changed |= self.effects.loaded_atomically.insert(pass.local);
                }
            }
            if !changed {
                break;
            }
        }
        for kernel in &mut self.info.kernels {
            for param in &mut kernel.params {
                let is_vector = matches!(self.vars.resolve(&param.ty), Type::Vector(_));
                param.written = is_vector && self.effects.written.contains(&param.local);
                param.loaded_atomically = is_vector && self.effects.loaded_atomically.contains(&param.local);
            }
        }
        for function in &mut self.info.functions {
            let varying = function.params.iter().copied().filter(|local| {
                let is_vector = matches!(self.vars.resolve(&self.info.locals[local.0 as usize].ty), Type::Vector(_));
                is_vector && (self.effects.written.contains(local) || self.effects.loaded_atomically.contains(local))
            });
            function.varying_vector_params = varying.collect();
        }
    }

    /// Reports every cycle of the call graph once (`E0206`).
    pub(crate) fn report_recursion(&mut self) {
        let count = self.info.functions.len();
        let mut callees: Vec<Vec<usize>> = vec![Vec::new(); count];
        for edge in &self.effects.calls {
            if let Some(list) = callees.get_mut(edge.caller.0 as usize) {
                list.push(edge.callee.0 as usize);
            }
        }
        // A function is in a cycle when it calls itself or shares its strongly connected component; the cycle
        // reported is that component (every function it reaches and that reaches it).
        let component = strongly_connected_components(&callees);
        let mut component_size = vec![0usize; count];
        for &c in &component {
            component_size[c] += 1;
        }
        let in_cycle = |f: usize| component_size[component[f]] > 1 || callees[f].contains(&f);
        let mut reported = vec![false; count];
        for f in 0..count {
            if reported[f] || !in_cycle(f) {
                continue;
            }
            let cycle: Vec<usize> = (0..count).filter(|&g| component[g] == component[f]).collect();
            for &g in &cycle {
                reported[g] = true;
            }
            self.report_cycle(&cycle);
        }
    }

    fn report_cycle(&mut self, cycle: &[usize]) {
        let names: Vec<String> =
            cycle.iter().filter_map(|&f| self.info.functions.get(f)).map(|f| format!("`{}`", f.name)).collect();
        let message = match names.as_slice() {
            [one] => format!("recursion is not supported: {one} calls itself"),
            [a, b] => format!("recursion is not supported: {a} and {b} call each other"),
            _ => format!("recursion is not supported: {} call each other in a cycle", names.join(", ")),
        };
        let in_cycle = |f: FunctionId| cycle.contains(&(f.0 as usize));
        let edges: Vec<&CallEdge> =
            self.effects.calls.iter().filter(|e| in_cycle(e.caller) && in_cycle(e.callee)).collect();
        let Some(first) = edges.first() else { return };
        let mut d = Diagnostic::error("E0206", message).primary(first.span, "recursive call");
        for edge in edges.iter().skip(1) {
            let caller = self.info.functions.get(edge.caller.0 as usize).map(|f| f.name.as_str()).unwrap_or("?");
            d = d.secondary(edge.span, format!("`{caller}` calls here"));
        }
        self.diagnostics.push(d.help("GPU device functions cannot recurse; rewrite the computation as a loop"));
    }
}

/// The strongly connected component of each function of the call graph, numbered from 0 (Kosaraju: the order in
/// which a depth-first search finishes, then the components of the reversed graph in reverse of that order). Linear
/// in the graph, where asking every function what it reaches was quadratic in the number of functions; iterative,
/// so a long call chain cannot overflow the stack.
fn strongly_connected_components(callees: &[Vec<usize>]) -> Vec<usize> {
    let count = callees.len();
    let mut callers = vec![Vec::new(); count];
    for (f, list) in callees.iter().enumerate() {
        for &g in list.iter().filter(|&&g| g < count) {
            callers[g].push(f);
        }
    }
    let mut component = vec![usize::MAX; count];
    let mut next_component = 0;
    for &root in finish_order(callees).iter().rev() {
        if component[root] != usize::MAX {
            continue;
        }
        component[root] = next_component;
        let mut stack = vec![root];
        while let Some(f) = stack.pop() {
            for &g in &callers[f] {
                if component[g] == usize::MAX {
                    component[g] = next_component;
                    stack.push(g);
                }
            }
        }
        next_component += 1;
    }
    component
}

/// Every function, in the order a depth-first search over calls finishes with it.
fn finish_order(callees: &[Vec<usize>]) -> Vec<usize> {
    let count = callees.len();
    let mut visited = vec![false; count];
    let mut order = Vec::with_capacity(count);
    // (function, index of the next callee to visit)
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for start in 0..count {
        if visited[start] {
            continue;
        }
        visited[start] = true;
        stack.push((start, 0));
        while let Some((f, next)) = stack.last_mut() {
            let f = *f;
            match callees[f].get(*next) {
                Some(&g) => {
                    *next += 1;
                    if g < count && !visited[g] {
                        visited[g] = true;
                        stack.push((g, 0));
                    }
                }
                None => {
                    order.push(f);
                    stack.pop();
                }
            }
        }
    }
    order
}

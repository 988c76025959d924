//! Generic device functions: which functions are generic, and at which types a program uses them.
//!
//! The checker runs twice (`check_program`). The first run *plans*: it checks function bodies callees first, and
//! after each body generalises the function over the variables of a numeric class (`Numeric`, `Integer`,
//! `Float`) left in its parameters and result, as ML generalises a `let`. A call of a generic function
//! instantiates those variables afresh (as a builtin's signature is) and is recorded. At the end, from the calls
//! outside generic functions and then, transitively, from the calls inside each instance found, the plan lists
//! every function's instances (a tuple of concrete types per generic variable). The second run checks the
//! specialised program (`specialise`) with the ordinary monomorphic rules: every later pass sees plain functions.
//!
//! A function is not generalised (it keeps one type, unified over all its calls, as before) when its signature
//! also holds a variable of another class (a parameter used only as an array, or passed through unchanged), when
//! one of its variables is shared with the signature of a function that is not generic, or when a call reaches it
//! before its body is checked (recursion, which is an error anyway).

use crate::fxhash::FxHashMap;
use crate::syntax::ast::{for_each_child, ExprId, ExprKind, Item, Module};
use crate::types::{FunctionId, Type, TypeVarId};

use super::infer::{with_element, Class};
use super::{Checker, Owner};

/// The first run's facts about generic functions.
#[derive(Debug, Default)]
pub(crate) struct Generics {
    /// Generalise (the planning run) or not (the final run, and every run of a program without generics).
    pub(crate) enabled: bool,
    /// For each function, its generic variables in order of appearance (`None`: not generic).
    schemes: Vec<Option<Vec<TypeVarId>>>,
    /// For each function, whether its body has been checked.
    checked: Vec<bool>,
    /// For each function, whether a call reached it before its body was checked.
    called_early: Vec<bool>,
    /// Every call of a generic function: who calls, where, and the fresh variables of this use.
    calls: Vec<GenericCall>,
}

#[derive(Clone, Debug)]
struct GenericCall {
    owner: Owner,
    call: ExprId,
    callee: FunctionId,
    types: Vec<Type>,
}

/// One use of a generic function: the function and the index of the instance in [`Plan::instances`].
pub(crate) type InstanceRef = (FunctionId, usize);

/// At which types the program uses each generic function, and which instance each call calls.
#[derive(Clone, Debug, Default)]
pub(crate) struct Plan {
    /// For each function, its instances: one concrete type per generic variable.
    pub(crate) instances: Vec<Vec<Vec<Type>>>,
    /// For each function, its generic variables (empty: not generic).
    pub(crate) variables: Vec<Vec<TypeVarId>>,
    /// Calls of generic functions: the calling instance (`None` outside generic functions), the call, the callee.
    pub(crate) edges: Vec<(Option<InstanceRef>, ExprId, InstanceRef)>,
    /// For each generic function, its parameter types and result as the first run left them (with the generic
    /// variables in them), so that the specialised copies can be annotated.
    pub(crate) signatures: Vec<(Vec<Type>, Type)>,
    /// For each function with several instances, the name of each (see [`Plan::name_instances`]).
    pub(crate) names: Vec<Vec<String>>,
    /// For each function with several instances, how a diagnostic names each instance.
    pub(crate) notes: Vec<Vec<String>>,
    /// The name of each record type (instances' annotations may name them).
    pub(crate) record_names: Vec<String>,
}

impl Plan {
    /// Does any function have more than one instance? (Otherwise the program is checked as written.)
    pub(crate) fn specialises(&self) -> bool {
        self.instances.iter().any(|i| i.len() > 1)
    }

    /// `ty` with the generic variables of `f` replaced by the types of its instance `index`.
    pub(crate) fn instance_type(&self, ty: &Type, (f, index): InstanceRef) -> Type {
        let map: Vec<(TypeVarId, Type)> = self.variables[f.0 as usize]
            .iter()
            .copied()
            .zip(self.instances[f.0 as usize][index].iter().cloned())
            .collect();
        substitute(ty, &map)
    }
}

/// `ty` (zonked) with the variables of `map` replaced.
fn substitute(ty: &Type, map: &[(TypeVarId, Type)]) -> Type {
    match ty {
        Type::Var(v) => map.iter().find(|(var, _)| var == v).map(|(_, t)| t.clone()).unwrap_or(Type::Var(*v)),
        Type::Vector(e) | Type::Ref(e) | Type::Array { elem: e, .. } | Type::ConstArray { elem: e, .. } => {
            with_element(ty, substitute(e, map))
        }
        Type::Tuple(components) => Type::Tuple(components.iter().map(|c| substitute(c, map)).collect()),
        other => other.clone(),
    }
}

/// Does `ty` hold no variable and no error?
fn concrete(ty: &Type) -> bool {
    match ty {
        Type::Var(_) | Type::Error => false,
        Type::Vector(e) | Type::Ref(e) | Type::Array { elem: e, .. } | Type::ConstArray { elem: e, .. } => concrete(e),
        Type::Tuple(components) => components.iter().all(concrete),
        _ => true,
    }
}

/// The functions in the order the planning run checks their bodies: callees before callers (by the names their
/// bodies call), otherwise in source order; a cycle (recursion) is broken where it closes.
pub(crate) fn callee_first_order(module: &Module, functions: &FxHashMap<&str, usize>) -> Vec<usize> {
    let mut order = Vec::new();
    let mut state = vec![0u8; module.items.len()]; // 0 new, 1 on the stack, 2 done
    for start in 0..module.items.len() {
        if !matches!(module.items[start], Item::Function(_)) || state[start] != 0 {
            continue;
        }
        let mut stack = vec![(start, called_items(module, start, functions), 0usize)];
        state[start] = 1;
        while let Some((item, callees, next)) = stack.last_mut() {
            if let Some(&callee) = callees.get(*next) {
                *next += 1;
                if state[callee] == 0 {
                    state[callee] = 1;
                    let callees = called_items(module, callee, functions);
                    stack.push((callee, callees, 0));
                }
            } else {
                state[*item] = 2;
                order.push(*item);
                stack.pop();
            }
        }
    }
    order
}

/// The function items that the body of function item `item` calls by name, in order of appearance.
fn called_items(module: &Module, item: usize, functions: &FxHashMap<&str, usize>) -> Vec<usize> {
    let Item::Function(function) = &module.items[item] else { return Vec::new() };
    let (mut out, mut stack) = (Vec::new(), vec![function.body]);
    while let Some(id) = stack.pop() {
        let Some(kind) = module.exprs.get(id.index()) else { continue };
        if let ExprKind::Call { callee, .. } = kind {
            if let Some(&target) = functions.get(callee.name.name.as_str()) {
                if !out.contains(&target) {
                    out.push(target);
                }
            }
        }
        for_each_child(kind, |child| stack.push(child));
    }
    out
}

impl Checker<'_> {
    pub(crate) fn start_generics(&mut self) {
        let count = self.info.functions.len();
        self.generics.schemes = vec![None; count];
        self.generics.checked = vec![false; count];
        self.generics.called_early = vec![false; count];
    }

    /// The types a call of `f` must match: its parameters' types and its result, instantiated afresh if `f` is
    /// generic (and the call recorded for the plan).
    pub(crate) fn call_signature(
        &mut self,
        call: ExprId,
        f: FunctionId,
        params: &[Type],
        ret: Type,
    ) -> (Vec<Type>, Type) {
        if !self.generics.enabled {
            return (params.to_vec(), ret);
        }
        let index = f.0 as usize;
        if !self.generics.checked.get(index).copied().unwrap_or(true) {
            self.generics.called_early[index] = true;
        }
        let Some(Some(variables)) = self.generics.schemes.get(index).cloned() else {
            return (params.to_vec(), ret);
        };
        let map: Vec<(TypeVarId, Type)> = variables
            .iter()
            .map(|v| (*v, self.vars.fresh(self.vars.var_class(*v).unwrap_or(Class::Numeric))))
            .collect();
        let types = map.iter().map(|(_, t)| t.clone()).collect();
        self.generics.calls.push(GenericCall { owner: self.ctx.owner, call, callee: f, types });
        let params = params.iter().map(|p| substitute(&self.vars.zonk(p), &map)).collect();
        (params, substitute(&self.vars.zonk(&ret), &map))
    }

    /// After the body of `f` is checked (planning run): generalises it if it is generic.
    pub(crate) fn generalise(&mut self, f: FunctionId) {
        let index = f.0 as usize;
        if !self.generics.enabled || index >= self.generics.checked.len() {
            return;
        }
        self.generics.checked[index] = true;
        if self.generics.called_early[index] {
            return;
        }
        let signature = self.signature_types(f);
        let mut variables: Vec<TypeVarId> = Vec::new();
        for ty in &signature {
            for v in self.vars.unbound_vars(ty) {
                if !variables.contains(&v) {
                    variables.push(v);
                }
            }
        }
        let scalar = |v: &TypeVarId| self.vars.var_class(*v).is_some_and(|c| c != Class::Array);
        if variables.is_empty() || !variables.iter().all(scalar) || self.shared_with_monomorphic(f, &variables) {
            return;
        }
        self.generics.schemes[index] = Some(variables);
    }

    /// The parameter types and the result of `f` (as inferred so far), result last.
    fn signature_types(&self, f: FunctionId) -> Vec<Type> {
        let Some(info) = self.info.functions.get(f.0 as usize) else { return Vec::new() };
        info.params.iter().map(|p| self.local_type(*p)).chain([info.ret.clone()]).collect()
    }

    /// Does a variable of `variables` occur in the signature of another function that is not generic (whose
    /// calls all share it, so it is not free to vary)?
    fn shared_with_monomorphic(&self, f: FunctionId, variables: &[TypeVarId]) -> bool {
        (0..self.info.functions.len()).filter(|g| *g != f.0 as usize && self.generics.schemes[*g].is_none()).any(|g| {
            self.signature_types(FunctionId(g as u32))
                .iter()
                .any(|ty| self.vars.unbound_vars(ty).iter().any(|v| variables.contains(v)))
        })
    }

    /// The instances the program uses (planning run, after every body is checked).
    pub(crate) fn plan(&self) -> Plan {
        let count = self.info.functions.len();
        let mut plan = Plan {
            instances: vec![Vec::new(); count],
            variables: self.generics.schemes.iter().map(|s| s.clone().unwrap_or_default()).collect(),
            edges: Vec::new(),
            names: Vec::new(),
            notes: Vec::new(),
            record_names: self.info.records.iter().map(|r| r.name.clone()).collect(),
            signatures: (0..count)
                .map(|f| {
                    let mut types = self.signature_types(FunctionId(f as u32));
                    let ret = types.pop().unwrap_or(Type::Error);
                    (types.iter().map(|t| self.vars.zonk(t)).collect(), self.vars.zonk(&ret))
                })
                .collect(),
        };
        let mut inside: Vec<Vec<&GenericCall>> = vec![Vec::new(); count];
        let mut work: std::collections::VecDeque<(Option<InstanceRef>, &GenericCall)> = Default::default();
        for call in &self.generics.calls {
            match call.owner {
                Owner::Function(g) if self.generics.schemes[g.0 as usize].is_some() => inside[g.0 as usize].push(call),
                _ => work.push_back((None, call)),
            }
        }
        let mut unused = (0..count).filter(|f| self.generics.schemes[*f].is_some());
        let mut unknown: Vec<(Option<InstanceRef>, &GenericCall)> = Vec::new();
        loop {
            while let Some((caller, call)) = work.pop_front() {
                let key: Vec<Type> = call.types.iter().map(|t| self.concrete_in(t, caller, &plan)).collect();
                if !key.iter().all(concrete) {
                    // A call whose types are unknown (an error elsewhere) still names an instance, below.
                    unknown.push((caller, call));
                    continue;
                }
                let f = call.callee.0 as usize;
                let index = match plan.instances[f].iter().position(|k| *k == key) {
                    Some(index) => index,
                    None => {
                        plan.instances[f].push(key);
                        let index = plan.instances[f].len() - 1;
                        work.extend(inside[f].iter().map(|c| (Some((call.callee, index)), *c)));
                        index
                    }
                };
                plan.edges.push((caller, call.call, (call.callee, index)));
            }
            // A generic function no call instantiates is checked at its variables' defaults, as before.
            let Some(f) = unused.find(|f| plan.instances[*f].is_empty()) else { break };
            let key = plan.variables[f].iter().map(|v| self.default_of(*v)).collect();
            plan.instances[f].push(key);
            work.extend(inside[f].iter().map(|c| (Some((FunctionId(f as u32), 0)), *c)));
        }
        for (caller, call) in unknown {
            if !plan.instances[call.callee.0 as usize].is_empty() {
                plan.edges.push((caller, call.call, (call.callee, 0)));
            }
        }
        self.name_instances(&mut plan);
        plan
    }

    /// Names the instances of each function that has several: the function's name, `__`, then the types of its
    /// generic variables in order, as diagnostics print them with every run of other characters made one `_`
    /// (`sq__float32`, `pick__float32_shared_256`); a `_` is added while the name is taken by another item.
    fn name_instances(&self, plan: &mut Plan) {
        let mut taken: std::collections::HashSet<String> = self
            .info
            .functions
            .iter()
            .map(|f| f.name.clone())
            .chain(self.items.value_names.iter().map(|n| n.to_string()))
            .collect();
        plan.notes = Vec::new();
        let instances = plan.instances.clone();
        plan.names = instances
            .iter()
            .enumerate()
            .map(|(f, instances)| {
                if instances.len() < 2 {
                    plan.notes.push(Vec::new());
                    return Vec::new();
                }
                let base = &self.info.functions[f].name;
                let notes = (0..instances.len()).map(|index| self.instance_note(plan, (FunctionId(f as u32), index)));
                plan.notes.push(notes.collect());
                let names: Vec<String> = instances
                    .iter()
                    .map(|key| {
                        let parts: Vec<String> = key.iter().map(|t| identifier_part(&self.info.display(t))).collect();
                        let mut name = format!("{base}__{}", parts.join("_"));
                        while taken.contains(&name) {
                            name.push('_');
                        }
                        taken.insert(name.clone());
                        name
                    })
                    .collect();
                names
            })
            .collect();
    }

    /// `ty` in the calling instance `caller`: its generic variables replaced, other variables defaulted.
    fn concrete_in(&self, ty: &Type, caller: Option<InstanceRef>, plan: &Plan) -> Type {
        let ty = self.vars.zonk(ty);
        let ty = match caller {
            Some(caller) => plan.instance_type(&ty, caller),
            None => ty,
        };
        let mut free = Vec::new();
        collect_vars(&ty, &mut free);
        let defaults: Vec<(TypeVarId, Type)> = free.into_iter().map(|v| (v, self.default_of(v))).collect();
        substitute(&ty, &defaults)
    }

    /// "the instance of the generic function `sq` at x : float32": the parameters whose type holds a generic
    /// variable, at the instance's types (the name is added once it is known).
    fn instance_note(&self, plan: &Plan, instance: InstanceRef) -> String {
        let f = instance.0 .0 as usize;
        let function = &self.info.functions[f];
        let typed: Vec<String> = function
            .params
            .iter()
            .zip(&plan.signatures[f].0)
            .filter(|(_, ty)| mentions(ty, &plan.variables[f]))
            .map(|(p, ty)| {
                format!("{} : {}", self.local_type_name(*p), self.info.display(&plan.instance_type(ty, instance)))
            })
            .collect();
        format!("of the generic function `{}` at {}", function.name, typed.join(", "))
    }

    fn local_type_name(&self, local: crate::types::LocalId) -> String {
        self.local_info(local).map(|l| l.name.to_string()).unwrap_or_default()
    }

    fn default_of(&self, v: TypeVarId) -> Type {
        self.vars.var_class(v).and_then(Class::default_type).unwrap_or(Type::Error)
    }
}

fn collect_vars(ty: &Type, out: &mut Vec<TypeVarId>) {
    match ty {
        Type::Var(v) => out.push(*v),
        Type::Vector(e) | Type::Ref(e) | Type::Array { elem: e, .. } | Type::ConstArray { elem: e, .. } => {
            collect_vars(e, out)
        }
        Type::Tuple(components) => components.iter().for_each(|c| collect_vars(c, out)),
        _ => {}
    }
}

/// `text` with every run of characters other than ASCII letters and digits made one `_`, trimmed.
pub(crate) fn identifier_part(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_end_matches('_').to_string()
}

/// Does `ty` hold one of `variables`?
pub(crate) fn mentions(ty: &Type, variables: &[TypeVarId]) -> bool {
    match ty {
        Type::Var(v) => variables.contains(v),
        Type::Vector(e) | Type::Ref(e) | Type::Array { elem: e, .. } | Type::ConstArray { elem: e, .. } => {
            mentions(e, variables)
        }
        Type::Tuple(components) => components.iter().any(|c| mentions(c, variables)),
        _ => false,
    }
}

//! Calls of device functions, analysed in the caller's context (interprocedural, context-sensitive): the callee's
//! body is walked again with the arguments' values and the caller's control flow, so a barrier inside it is checked
//! against the context it runs in. A `ref` or array parameter names the caller's storage while the callee runs (see
//! `cells`), so what the callee writes through it lands in the caller's variable: joined with the control flow of
//! the write, which includes the call's. What the caller's variables hold after the call is what they hold at the
//! end of the body joined with what they held at each `return`. A call in a context met before replays the kept
//! analysis instead (`memo`: the same result, the same contents left in the caller's variables, the same levels
//! and diagnostics).

use std::rc::Rc;

use crate::source::Span;
use crate::syntax::ast::ExprId;
use crate::types::{FunctionId, LocalId};

use super::super::lattice::{Control, DivergenceKind, OriginKind, Uniformity, Value};
use super::super::memo::{CallKey, CallSite, CallSummary};
use super::{refers_to_storage, PlainSuperstep, Walker, MAX_CALL_DEPTH};

/// How an argument is passed to its parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Binding {
    /// By value (scalars, records, vectors: a vector's contents have one level for the whole kernel).
    Value,
    /// A `ref` cell or an array owned by the caller's variable: the parameter names its storage.
    Storage(LocalId),
    /// A `ref` cell made for the call (`f (ref e)`): the callee's writes reach nobody.
    Own,
    /// An array chosen among several (`f (if c then a1 else a2)`).
    Union(Vec<LocalId>),
}

impl Walker<'_> {
    /// The call of `function` with `args` at `span`: its result, after the callee's effects on the caller's
    /// variables.
    pub(super) fn call_function(&mut self, function: FunctionId, args: &[ExprId], span: Span) -> Value {
        let values: Vec<Value> = args.iter().map(|&a| self.expr(a)).collect();
        if self.dead {
            return Value::uniform();
        }
        let control = self.effective_control();
        if self.call_stack.contains(&function) || self.call_stack.len() >= MAX_CALL_DEPTH {
            self.guard_hits += 1;
            return self.facts.value(Uniformity::ThreadVarying, OriginKind::CallResult(function), span, None);
        }
        let Some(body) = self.function_body(function) else { return Value::uniform() };
        let types = self.types;
        let params = &types.function(function).params;
        let bindings = self.bindings(params, args);
        let site = CallSite { function, span, args, module: self.module, params, values: &values, control };
        let key = CallKey::new(function, &values, control.level, (self.reporting, self.in_kernel))
            .map(|key| key.under(self.launch_contract()))
            .filter(|_| self.memoize && replayable(&bindings));
        if let Some(result) = key.and_then(|key| self.replay(key, &site, &bindings)) {
            self.calls_replayed += 1;
            return self.facts.through(result, OriginKind::CallResult(function), span);
        }
        self.calls_analysed += 1;
        let (mark, attempts, guards) = (self.facts.origin_count(), self.report_attempts, self.guard_hits);
        let (entered_mark, depth) = (self.entered.len(), self.call_stack.len());
        let outer_deepest = std::mem::replace(&mut self.deepest, depth + 1);
        self.entered.push(function);
        let result = self.analyse_call(function, body, &site, &bindings);
        self.compact_entered(entered_mark);
        // A result with per-field values is not kept: a replay gives the whole value only, and must give what a new
        // analysis would.
        let kept = self.report_attempts == attempts && self.guard_hits == guards && result.fields.is_none();
        if let Some(key) = key.filter(|_| kept) {
            let start = self.entered_sets.len() as u32;
            self.entered_sets.extend_from_slice(&self.entered[entered_mark..]);
            let entered = ((start, self.entered_sets.len() as u32), self.deepest - depth);
            self.keep(key, mark, result, &site, &bindings, entered);
        }
        self.deepest = self.deepest.max(outer_deepest);
        self.facts.through_keeping_fields(result, OriginKind::CallResult(function), span)
    }

    /// How each argument is passed (empty when every parameter takes a value: the common case allocates
    /// nothing).
    fn bindings(&self, params: &[LocalId], args: &[ExprId]) -> Vec<Binding> {
        if !params.iter().any(|&p| refers_to_storage(&self.types.local(p).ty)) {
            return Vec::new();
        }
        let mut names = Vec::new();
        params
            .iter()
            .zip(args)
            .map(|(&param, &arg)| {
                if !refers_to_storage(&self.types.local(param).ty) {
                    return Binding::Value;
                }
                names.clear();
                crate::storage::pointer_roots(self.module, &|e| self.types.resolution(e), arg, &mut names);
                let mut owners = self.owners_of(&names);
                match owners.len() {
                    0 => Binding::Own,
                    1 => Binding::Storage(owners.remove(0)),
                    _ => Binding::Union(owners),
                }
            })
            .collect()
    }

    /// Keeps the analysis of a call just made, with what it left in the caller's variables, if every chain can be
    /// rebuilt at another call.
    fn keep(
        &mut self,
        key: CallKey,
        mark: usize,
        result: Value,
        site: &CallSite,
        bindings: &[Binding],
        entered: ((u32, u32), usize),
    ) {
        let mut steps = std::mem::take(&mut self.replay_steps);
        let kept = CallSummary::new(&self.facts, mark, result, site, entered, &mut steps);
        let start = self.call_effects.len();
        let mut complete = kept.is_some();
        if let Some(summary) = kept.as_ref() {
            for (k, binding) in bindings.iter().enumerate() {
                if !matches!(binding, Binding::Storage(_) | Binding::Own) {
                    continue;
                }
                let left = self.local(site.params[k]);
                match summary.effect(&self.facts, k, left, site, &mut steps) {
                    Some(effect) => self.call_effects.push(effect),
                    None => complete = false,
                }
            }
        }
        self.replay_steps = steps;
        match kept.filter(|_| complete) {
            Some(mut summary) => {
                summary.effects = (start as u32, self.call_effects.len() as u32);
                self.calls.insert(key, summary);
                self.journal_call(key);
            }
            None => self.call_effects.truncate(start),
        }
    }

    /// Keeps each function entered since `from` once: the log grows with the set of functions, not the calls.
    fn compact_entered(&mut self, from: usize) {
        self.entered[from..].sort_unstable();
        let mut kept = from;
        for i in from..self.entered.len() {
            if kept == from || self.entered[kept - 1] != self.entered[i] {
                self.entered[kept] = self.entered[i];
                kept += 1;
            }
        }
        self.entered.truncate(kept);
    }

    /// A kept analysis of a call in this context, replayed at `site` (its result returned, its effects on the
    /// caller's variables applied), if the guards would not fire here and every chain can be rebuilt.
    fn replay(&mut self, key: CallKey, site: &CallSite, bindings: &[Binding]) -> Option<Value> {
        let summary = *self.calls.get(&key)?;
        let depth = self.call_stack.len();
        let entered = &self.entered_sets[summary.entered.0 as usize..summary.entered.1 as usize];
        if depth + summary.height > MAX_CALL_DEPTH || entered.iter().any(|f| self.call_stack.contains(f)) {
            return None;
        }
        let mut steps = std::mem::take(&mut self.replay_steps);
        let result = summary.replay(&mut self.facts, site, &mut steps);
        let mut left = Vec::new();
        for i in summary.effects.0..summary.effects.1 {
            let effect = self.call_effects[i as usize];
            left.push((effect.param, summary.replay_effect(&effect, &mut self.facts, site, &mut steps)));
        }
        self.replay_steps = steps;
        let result = result?;
        if left.iter().any(|(_, value)| value.is_none()) {
            return None;
        }
        for (param, value) in left {
            if let (Some(Binding::Storage(owner)), Some(value)) = (bindings.get(param as usize), value) {
                let owner = *owner;
                self.set_local(owner, value);
            }
        }
        let entered = &self.entered_sets[summary.entered.0 as usize..summary.entered.1 as usize];
        self.entered.extend_from_slice(entered);
        self.deepest = self.deepest.max(depth + summary.height);
        Some(result)
    }

    /// Analyses the callee's body in the caller's context; returns its result before the `CallResult` step.
    fn analyse_call(&mut self, function: FunctionId, body: ExprId, site: &CallSite, bindings: &[Binding]) -> Value {
        self.warm_up(self.types.function(function).item);
        let frame = self.save_frame();
        let mut by_reference = Vec::new();
        for (k, (&param, &arg)) in site.params.iter().zip(site.args).enumerate() {
            // At its whole level: what the callee sees must be what the memoized call's key holds.
            let value = site.values.get(k).copied().unwrap_or_else(Value::uniform).whole();
            match bindings.get(k).unwrap_or(&Binding::Value) {
                Binding::Value => {
                    let kind = OriginKind::Argument { function, param };
                    let passed = self.facts.through(value, kind, self.module.span(arg));
                    self.own_storage(param, passed);
                }
                Binding::Own => {
                    self.own_storage(param, value);
                    by_reference.push(param);
                }
                Binding::Storage(owner) => {
                    self.name_owner(param, *owner);
                    by_reference.push(param);
                }
                Binding::Union(owners) => {
                    self.name_storage(param, owners.clone(), value, value);
                    by_reference.push(param);
                }
            }
        }
        self.control = self.facts.because_of(site.control, DivergenceKind::Call(function), site.span);
        self.returned = Control::converged();
        self.broke = Control::converged();
        self.continued = Control::converged();
        self.dead = false;
        self.return_value = Value::uniform();
        self.superstep = None;
        self.recording = false;
        self.by_reference = if by_reference.is_empty() { self.assigns_nothing.clone() } else { Rc::new(by_reference) };
        self.returns = None;
        self.loop_exits = None;
        self.call_stack.push(function);
        let body_value = self.expr(body);
        self.call_stack.pop();
        let ended = !std::mem::replace(&mut self.dead, false);
        let returned = self.control_value(self.returned, OriginKind::IfValue, site.span);
        let body_value = if ended { body_value } else { Value::uniform() };
        let result = body_value.join(self.return_value).join(returned);
        // What the caller's variables hold now: the end of the body (if it is reached) joined with every `return`.
        if let Some(at_returns) = self.returns.take() {
            let names = self.by_reference.clone();
            for (&name, at_return) in names.iter().zip(at_returns) {
                let left = if ended { self.local(name).join(at_return) } else { at_return };
                self.set_local(name, left);
            }
        }
        self.restore_frame(frame);
        result
    }

    fn save_frame(&mut self) -> Frame {
        Frame {
            control: self.control,
            returned: self.returned,
            broke: self.broke,
            continued: self.continued,
            dead: self.dead,
            return_value: self.return_value,
            by_reference: self.by_reference.clone(),
            returns: self.returns.take(),
            loop_exits: self.loop_exits.take(),
            warm_heads: std::mem::take(&mut self.warm_heads),
            superstep: self.superstep,
            recording: self.recording,
        }
    }

    fn restore_frame(&mut self, frame: Frame) {
        self.control = frame.control;
        self.returned = frame.returned;
        self.broke = frame.broke;
        self.continued = frame.continued;
        self.dead = frame.dead;
        self.return_value = frame.return_value;
        self.by_reference = frame.by_reference;
        self.returns = frame.returns;
        self.loop_exits = frame.loop_exits;
        self.warm_heads = frame.warm_heads;
        self.superstep = frame.superstep;
        self.recording = frame.recording;
    }
}

/// Can a kept analysis stand for a call passing `bindings`: no cell or array passed to two parameters, none chosen
/// among several?
fn replayable(bindings: &[Binding]) -> bool {
    let mut owners: Vec<LocalId> = Vec::new();
    for binding in bindings {
        match binding {
            Binding::Value | Binding::Own => {}
            Binding::Storage(owner) if owners.contains(owner) => return false,
            Binding::Storage(owner) => owners.push(*owner),
            Binding::Union(_) => return false,
        }
    }
    true
}

/// The caller's state, kept while a callee is analysed.
struct Frame {
    control: Control,
    returned: Control,
    broke: Control,
    continued: Control,
    dead: bool,
    return_value: Value,
    by_reference: Rc<Vec<LocalId>>,
    returns: Option<Vec<Value>>,
    loop_exits: Option<super::LoopExits>,
    warm_heads: crate::fxhash::FxHashMap<ExprId, Vec<Value>>,
    superstep: Option<PlainSuperstep>,
    recording: bool,
}

//! Memoized calls. The walker re-analyses a device function at every call in the caller's context; a function
//! called many times in the same context (generated code calls small helpers thousands of times) was analysed
//! again each time. This module keeps what one analysis of a call produced, so a later call in the same context
//! replays it instead.
//!
//! Why replaying is exact: levels in the analysis depend only on levels (the lattice joins compare levels;
//! explanations only ride along), so the callee's result level, the levels it leaves in the `ref` cells and arrays
//! passed to it, every level it records and whether it reports anything are fixed by the callee, the levels of
//! its arguments (for a cell or an array, the level of its contents), the level of the control flow it is entered
//! in, whether reporting is on and whether a kernel's analysis reaches it: the [`CallKey`] (calls that pass one
//! cell or array to two parameters, or an array chosen among several, are not memoized: how their writes combine
//! depends on more than levels). What does depend on the call site is the explanation chains: the result's and
//! the contents' the call leaves in the caller's cells and arrays ([`Effect`]). Their steps created during the kept
//! analysis stay in the arena of [`Facts`] (never freed while the analysis runs), so the summary only points at
//! them; a replay copies them, giving each step the new call's span or argument span where the kept one had the old
//! call's, and hangs the first step off what the kept one hung off, taken at the new call: an argument, the
//! contents of a cell or array passed by reference, or the control flow (a chain that could hang off two of these
//! at the kept call is not kept). Step for step what a new analysis would create. Analyses that tried to report a
//! diagnostic, or that met the recursion or depth guard, are not kept (their output depends on more than the key),
//! and a replay checks that the guards would not fire at its own depth.

use super::lattice::{Control, Facts, Origin, OriginId, OriginKind, Uniformity, Value};
use crate::contract::LaunchContract;
use crate::source::Span;
use crate::syntax::ast::{ExprId, Module};
use crate::types::{FunctionId, LocalId};

/// The context that decides an analysis of a call (see the module comment).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CallKey {
    function: FunctionId,
    control: Uniformity,
    /// Whether diagnostics are reported, and whether the call is reached from a kernel (both decide what the
    /// analysis records).
    flags: (bool, bool),
    /// The arguments' levels, two bits each.
    args: u128,
    count: u8,
    /// The launch contract of the kernel the call is analysed under (it changes levels and requirements).
    launch: LaunchContract,
}

impl CallKey {
    /// `None` for calls with more arguments than the key holds (never memoized).
    pub fn new(function: FunctionId, args: &[Value], control: Uniformity, flags: (bool, bool)) -> Option<CallKey> {
        if args.len() > 64 {
            return None;
        }
        let packed = args.iter().enumerate().fold(0u128, |acc, (i, v)| acc | (v.level as u128) << (2 * i));
        Some(CallKey { function, control, flags, args: packed, count: args.len() as u8, launch: Default::default() })
    }

    /// The key of the same call analysed under the kernel's launch contract `launch`.
    pub fn under(self, launch: LaunchContract) -> CallKey {
        CallKey { launch, ..self }
    }
}

/// Where a call happens.
pub struct CallSite<'v> {
    pub function: FunctionId,
    pub span: Span,
    pub args: &'v [ExprId],
    pub module: &'v Module,
    pub params: &'v [LocalId],
    /// The arguments' values as the caller computed them (for a cell or an array, its contents).
    pub values: &'v [Value],
    /// The caller's control flow at the call.
    pub control: Control,
}

/// What the first kept step of a chain hangs off (see the module comment).
#[derive(Clone, Copy, Debug)]
enum Hang {
    /// Nothing: the chain starts inside the call.
    Nowhere,
    /// The argument named by the chain's first step, an `Argument` step of the callee.
    ArgumentStep,
    /// The value of argument `k` (the contents of a cell or array passed by reference).
    Value(u8),
    /// The first cause of the caller's control flow.
    Control,
}

/// An explanation chain of a kept analysis, to rebuild at another call.
#[derive(Clone, Copy, Debug)]
struct Chain {
    level: Uniformity,
    /// Its last step.
    top: Option<OriginId>,
    hang: Hang,
}

/// What a kept call leaves in the cell or array passed as parameter `param` (an index).
#[derive(Clone, Copy, Debug)]
pub struct Effect {
    pub param: u32,
    chain: Chain,
}

/// One kept analysis of a call.
#[derive(Clone, Copy, Debug)]
pub struct CallSummary {
    /// The result (before the call's own `CallResult` step).
    result: Chain,
    /// Steps from this index on were created by the kept call.
    mark: usize,
    /// The kept call's span.
    span: Span,
    /// Its effects: a range of the walker's `call_effects`.
    pub effects: (u32, u32),
    /// Every function the analysis entered, the callee included (a range of the walker's `entered_sets`), and
    /// how far the call stack grew above the caller's (for the guards).
    pub entered: (u32, u32),
    pub height: usize,
}

/// The steps of `value`'s chain created since `mark`, newest first, and the older step they hang off.
fn new_steps(facts: &Facts, value: Value, mark: usize, steps: &mut Vec<Origin>) -> Option<OriginId> {
    steps.clear();
    let mut next = value.origin;
    while let Some(id) = next.filter(|id| id.index() >= mark) {
        let origin = *facts.origin(id);
        steps.push(origin);
        next = origin.cause;
    }
    next
}

impl Chain {
    /// What `value`'s chain hangs off at `site`; `None` when that is ambiguous or not something a replay rebuilds.
    fn classify(facts: &Facts, mark: usize, value: Value, site: &CallSite, steps: &mut Vec<Origin>) -> Option<Chain> {
        let chain = |hang| Some(Chain { level: value.level, top: value.origin, hang });
        if value.level == Uniformity::Uniform {
            return chain(Hang::Nowhere);
        }
        let Some(boundary) = new_steps(facts, value, mark, steps) else { return chain(Hang::Nowhere) };
        if let Some(OriginKind::Argument { function, .. }) = steps.last().map(|o| o.kind) {
            if function == site.function {
                return chain(Hang::ArgumentStep);
            }
        }
        let mut candidates = site.values.iter().enumerate().filter(|(_, v)| v.origin == Some(boundary));
        let from_control = facts.first_cause(site.control) == Some(boundary);
        match (candidates.next(), candidates.next(), from_control) {
            (Some((k, _)), None, false) => chain(Hang::Value(u8::try_from(k).ok()?)),
            (None, None, true) => chain(Hang::Control),
            _ => None,
        }
    }

    /// The chain rebuilt at `site`; `None` when the new site lacks what it hangs off.
    fn replay(
        &self,
        mark: usize,
        kept_span: Span,
        facts: &mut Facts,
        site: &CallSite,
        steps: &mut Vec<Origin>,
    ) -> Option<Value> {
        if self.level == Uniformity::Uniform {
            return Some(Value::uniform());
        }
        let kept = Value::new(self.level, self.top);
        let boundary = new_steps(facts, kept, mark, steps);
        let mut cause = match (boundary, self.hang) {
            (None, _) | (_, Hang::Nowhere) => None,
            (Some(_), Hang::ArgumentStep) => match steps.last().map(|o| o.kind) {
                Some(OriginKind::Argument { param, .. }) => {
                    let k = site.params.iter().position(|&p| p == param)?;
                    Some(site.values.get(k)?.origin?)
                }
                _ => return None,
            },
            (Some(_), Hang::Value(k)) => Some(site.values.get(k as usize)?.origin?),
            (Some(_), Hang::Control) => Some(facts.first_cause(site.control)?),
        };
        for origin in steps.iter().rev() {
            let span = match origin.kind {
                OriginKind::Argument { function, param } if function == site.function => {
                    let k = site.params.iter().position(|&p| p == param)?;
                    site.module.span(*site.args.get(k)?)
                }
                // Steps of the call itself at its span (an early `return` in the callee), not inside the callee.
                _ if origin.span == kept_span => site.span,
                _ => origin.span,
            };
            cause = Some(facts.push_origin(Origin { span, cause, ..*origin }));
        }
        Some(Value::new(self.level, cause))
    }
}

impl CallSummary {
    /// Keeps a finished analysis whose result is `result`; `mark` is the step count before the call created
    /// anything. `None` when a chain could not be rebuilt at another call.
    pub fn new(
        facts: &Facts,
        mark: usize,
        result: Value,
        site: &CallSite,
        (entered, height): ((u32, u32), usize),
        steps: &mut Vec<Origin>,
    ) -> Option<Self> {
        let result = Chain::classify(facts, mark, result, site, steps)?;
        Some(CallSummary { result, mark, span: site.span, effects: (0, 0), entered, height })
    }

    /// What the kept call left in the cell or array passed as parameter `param`: `value`.
    pub fn effect(
        &self,
        facts: &Facts,
        param: usize,
        value: Value,
        site: &CallSite,
        steps: &mut Vec<Origin>,
    ) -> Option<Effect> {
        let chain = Chain::classify(facts, self.mark, value, site, steps)?;
        Some(Effect { param: u32::try_from(param).ok()?, chain })
    }

    /// The call's result (before its `CallResult` step) at `site`, its chain rebuilt there; `None` when the chain
    /// cannot be rebuilt there (the caller then analyses the call). `steps` is scratch space.
    pub fn replay(&self, facts: &mut Facts, site: &CallSite, steps: &mut Vec<Origin>) -> Option<Value> {
        self.result.replay(self.mark, self.span, facts, site, steps)
    }

    /// What `effect` leaves in the cell or array passed at `site`, its chain rebuilt there.
    pub fn replay_effect(
        &self,
        effect: &Effect,
        facts: &mut Facts,
        site: &CallSite,
        steps: &mut Vec<Origin>,
    ) -> Option<Value> {
        effect.chain.replay(self.mark, self.span, facts, site, steps)
    }
}

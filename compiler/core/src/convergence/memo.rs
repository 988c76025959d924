//! Memoized calls. The walker re-analyses a device function at every call in the caller's context; a function
//! called many times in the same context (generated code calls small helpers thousands of times) was analysed
//! again each time. This module keeps what one analysis of a call produced, so a later call in the same context
//! replays it instead.
//!
//! Why replaying is exact: levels in the analysis depend only on levels (the lattice joins compare levels;
//! explanations only ride along), so the callee's result level, every level it records and whether it reports
//! anything are fixed by the callee, the levels of its arguments, the level of the control flow it is entered
//! in, whether reporting is on and whether a kernel's analysis reaches it: the [`CallKey`]. What does depend on the call site is the result's
//! explanation chain. Its steps created during the kept analysis stay in the arena of [`Facts`] (never freed
//! while the analysis runs), so the summary only points at them; a replay copies them, giving each step the new
//! call's span or argument span where the kept one had the old call's, and hangs the first step off the new
//! call's argument or control flow where the kept one hung off the old call's: step for step what a new
//! analysis would create. Analyses that tried to report a diagnostic, or that met the recursion or depth guard,
//! are not kept (their output depends on more than the key), and a replay checks that the guards would not fire
//! at its own depth.

use super::lattice::{Control, Facts, Origin, OriginId, OriginKind, Uniformity, Value};
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
}

impl CallKey {
    /// `None` for calls with more arguments than the key holds (never memoized).
    pub fn new(function: FunctionId, args: &[Value], control: Uniformity, flags: (bool, bool)) -> Option<CallKey> {
        if args.len() > 64 {
            return None;
        }
        let packed = args.iter().enumerate().fold(0u128, |acc, (i, v)| acc | (v.level as u128) << (2 * i));
        Some(CallKey { function, control, flags, args: packed, count: args.len() as u8 })
    }
}

/// Where a call happens.
pub struct CallSite<'v> {
    pub function: FunctionId,
    pub span: Span,
    pub args: &'v [ExprId],
    pub module: &'v Module,
    pub params: &'v [LocalId],
    /// The arguments' values as the caller computed them.
    pub values: &'v [Value],
    /// The caller's control flow at the call.
    pub control: Control,
}

/// One kept analysis of a call.
#[derive(Clone, Copy, Debug)]
pub struct CallSummary {
    level: Uniformity,
    /// The last step of the result's chain (before the call's own `CallResult` step).
    top: Option<OriginId>,
    /// Steps from this index on were created by the kept call; the chain's first older step is where it hangs.
    mark: usize,
    /// The kept call's span and the first cause of its control flow.
    span: Span,
    control_cause: Option<OriginId>,
    /// Every function the analysis entered, the callee included (a range of the walker's `entered_sets`), and
    /// how far the call stack grew above the caller's (for the guards).
    pub entered: (u32, u32),
    pub height: usize,
}

impl CallSummary {
    /// Keeps a finished analysis whose result is `result`; `mark` is the step count before the call created
    /// anything.
    pub fn new(facts: &Facts, mark: usize, result: Value, site: &CallSite, entered: (u32, u32), height: usize) -> Self {
        CallSummary {
            level: result.level,
            top: result.origin,
            mark,
            span: site.span,
            control_cause: facts.first_cause(site.control),
            entered,
            height,
        }
    }

    /// The call's result (before its `CallResult` step) at `site`, its chain rebuilt there; `None` when the chain
    /// does not have a shape this module rebuilds (the caller then analyses the call). `steps` is scratch space.
    pub fn replay(&self, facts: &mut Facts, site: &CallSite, steps: &mut Vec<Origin>) -> Option<Value> {
        if self.level == Uniformity::Uniform {
            return Some(Value::uniform());
        }
        steps.clear();
        let mut next = self.top;
        while let Some(id) = next.filter(|id| id.index() >= self.mark) {
            let origin = *facts.origin(id);
            steps.push(origin);
            next = origin.cause;
        }
        // Where the chain hangs: off an argument (its first step says which), off the control flow, or nowhere.
        let mut cause = match (next, steps.last().map(|o| o.kind)) {
            (None, _) => None,
            (Some(_), Some(OriginKind::Argument { function, param })) if function == site.function => {
                let k = site.params.iter().position(|&p| p == param)?;
                Some(site.values.get(k)?.origin?)
            }
            (Some(boundary), _) if Some(boundary) == self.control_cause => Some(facts.first_cause(site.control)?),
            _ => return None,
        };
        for origin in steps.iter().rev() {
            let span = match origin.kind {
                OriginKind::Argument { function, param } if function == site.function => {
                    let k = site.params.iter().position(|&p| p == param)?;
                    site.module.span(*site.args.get(k)?)
                }
                // Steps of the call itself at its span (an early `return` in the callee), not inside the callee.
                _ if origin.span == self.span => site.span,
                _ => origin.span,
            };
            cause = Some(facts.push_origin(Origin { span, cause, ..*origin }));
        }
        Some(Value { level: self.level, origin: cause })
    }
}

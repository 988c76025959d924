//! Builtins, and the checks of the operations that need converged control flow: block barriers and warp
//! collectives (their requirement, E0001 and E0002), the operands of named barriers (E0006), and supersteps
//! (E0001 at their end, E0003, E0004). Every help text suggests only a change that keeps what a correct program
//! means (a program whose control flow is in fact uniform where the analysis could not prove it): splitting a
//! branch around the operation, running a uniform number of iterations with the work guarded, guarding instead of
//! leaving early, or computing a collective in every lane and using its result under the condition.

use crate::builtins::{Builtin, Requirement, ResultUniformity};
use crate::source::Span;
use crate::syntax::ast::{ExprId, ExprKind, UnaryOp};
use crate::types::{ConstValue, Resolution, Type};

use super::super::lattice::{Control, DivergenceKind, Facts, OriginKind, Uniformity, Value};
use super::super::report::{divergence_error, value_divergence_error};
use super::{PlainSuperstep, Walker};

use super::super::fixes::{FixRequest, Link, Scope};

impl Scope {
    fn group(self) -> &'static str {
        match self {
            Scope::Block => "block",
            Scope::Warp => "warp",
        }
    }

    fn uniform_sources(self) -> &'static str {
        match self {
            Scope::Block => "`block_idx_*`, parameters and constants only",
            Scope::Warp => "`warp_id`, `block_idx_*`, parameters and constants only",
        }
    }
}

/// The help of a divergence error: how to make every thread of the group reach `what` without changing what the
/// program computes, for the construct that made control flow diverge (the innermost one that is not a call).
/// `what` names the operation in the sentence, `example` is how it is written in code; `has_result`: it returns a
/// value (a shuffle, a vote), which the fix computes in every lane and uses under the condition.
fn convergence_help(
    scope: Scope,
    what: &str,
    (example, has_result): (&str, bool),
    control: &Control,
    facts: &Facts,
) -> String {
    let mut kind = None;
    let mut next = control.why;
    while let Some(id) = next {
        let divergence = facts.divergence(id);
        if !matches!(divergence.kind, DivergenceKind::Call(_)) {
            kind = Some(divergence.kind);
            break;
        }
        next = divergence.outer;
    }
    let group = scope.group();
    let sources = scope.uniform_sources();
    match (kind, scope) {
        (Some(DivergenceKind::Loop), _) => format!(
            "every thread of the {group} must run {what} the same number of times: iterate a {group}-uniform number \
             of times (bounds computed from {sources}) and guard the work inside the loop with the thread-varying \
             condition"
        ),
        (Some(DivergenceKind::LoopCondition), _) => format!(
            "the condition of a `while` runs again in each iteration, only in the threads still in the loop: take \
             {what} out of the condition (compute it before the loop and at the end of the body, into a variable \
             the condition reads) and make every thread of the {group} run the loop the same number of times (a \
             {group}-uniform condition, computed from {sources}, with the work inside guarded by the \
             thread-varying one)"
        ),
        (Some(DivergenceKind::Return), _) => format!(
            "instead of returning early, guard the work that follows with an `if` that ends before {what}, so every \
             thread of the {group} reaches it"
        ),
        (Some(DivergenceKind::Break | DivergenceKind::Continue), _) => format!(
            "instead of leaving the loop or the iteration early, guard the rest of the iteration's work with an `if` \
             that ends before {what}, so every thread of the {group} reaches it in every iteration"
        ),
        (_, Scope::Block) | (_, Scope::Warp) if !has_result => format!(
            "every thread of the {group} must reach {what}: split the branch around it (`if c then a; {example}; \
             if c then b`, with `c` computed once, before `a`), or make the condition {group}-uniform (computed \
             from {sources})"
        ),
        (_, Scope::Block) => format!(
            "every thread of the block must reach {what}: compute it before the branch, in every thread, and use \
             its result under the condition (`let s = {example} in if c then ... s ...`), or make the condition \
             block-uniform (computed from {sources})"
        ),
        _ => format!(
            "every lane of the warp must execute {what}: compute it before the branch, in every lane, and use its \
             result under the condition (`let s = {example} in if c then ... s ...`), or make the \
             condition warp-uniform (computed from {sources})"
        ),
    }
}

impl Walker<'_> {
    /// What an edit that fixes a divergence error at `op` needs: the constructs that made `control` diverge
    /// (innermost first), the first thread-varying source among them, and the level the operation tolerates.
    fn fix_request(&self, scope: Scope, op: Span, control: &Control, limit: Uniformity) -> FixRequest {
        let mut chain = Vec::new();
        let mut root = None;
        let mut next = control.why;
        while let Some(id) = next {
            let divergence = self.facts.divergence(id);
            chain.push(Link { kind: divergence.kind, span: divergence.span, level: divergence.cause.level });
            if root.is_none() {
                root = self.facts.root(divergence.cause).map(|(_, origin)| (origin.kind, origin.span));
            }
            next = divergence.outer;
        }
        FixRequest::Converge { scope, op, chain, root, limit }
    }

    /// Is `e` a global vector whose contents may change under other threads?
    fn is_written_global(&self, e: Option<ExprId>) -> bool {
        let Some(e) = e else { return false };
        matches!(self.types.type_of(e), Type::Vector(_))
            && self.base_local(e).map(|l| self.local(l).level > Uniformity::Uniform).unwrap_or(true)
    }

    /// Does the lane operand `src` of a shuffle name lane 0 whatever the thread: a constant multiple of 32 (only
    /// its low five bits count)?
    fn names_lane_zero(&self, src: ExprId) -> bool {
        match self.module.expr(src) {
            ExprKind::Int { value, .. } => value & 31 == 0,
            ExprKind::Unary { op: UnaryOp::Neg, operand } | ExprKind::Annot { expr: operand, .. } => {
                self.names_lane_zero(*operand)
            }
            ExprKind::Var(_) | ExprKind::Global(_) => match self.types.resolution(src) {
                Some(Resolution::Constant(c)) => {
                    matches!(self.types.constant(c).value, ConstValue::Int(v) if v & 31 == 0)
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// The builtin's name as the source spells it (`global_idx`, `warp_shuffle_down`, `Gpu.block_barrier`).
    fn written_name(&self, e: ExprId, builtin: &'static Builtin) -> String {
        match self.module.expr(e) {
            ExprKind::Var(path) | ExprKind::Call { callee: path, .. } => path.display(),
            _ => builtin.name.to_string(),
        }
    }

    pub(super) fn builtin(&mut self, builtin: &'static Builtin, e: ExprId, args: &[ExprId], span: Span) -> Value {
        // The join of all arguments, and of all but the first (the indices of a load).
        let (mut joined, mut indices) = (Value::uniform(), Value::uniform());
        // A builtin used as a name (`thread_idx_x`, most uses) has no arguments: no vector for their values.
        let mut values = match args.is_empty() {
            true => Vec::new(),
            false => self.spare_values.pop().unwrap_or_default(),
        };
        for (position, &arg) in args.iter().enumerate() {
            let value = self.expr(arg);
            if position > 0 {
                indices = indices.join(value);
            }
            joined = joined.join(value);
            values.push(value);
        }
        // Most builtins (indices, math) do not depend on control flow: it is computed only for those that do.
        let uses_control = builtin.requirement != Requirement::None
            || builtin.writes_first_arg
            || builtin.result == ResultUniformity::WarpUniformUnderControl;
        let control = if uses_control { self.effective_control() } else { Control::converged() };
        if builtin.requirement != Requirement::None {
            self.check_requirement(builtin, e, span, &control);
        }
        if builtin.warp_uniform_args {
            self.check_warp_uniform_args(builtin, e, args, &values);
        }
        if builtin.writes_first_arg {
            // An atomic on a local array changes its contents like a store of its operands would.
            if let Some(local) = args.first().and_then(|&a| self.base_local(a)) {
                self.write_contents(local, indices, OriginKind::ElementWrite(local), span);
            }
        }
        let result = self.builtin_result(builtin, e, args, span, &control, joined, indices, &values);
        if values.capacity() > 0 {
            self.give_back(values);
        }
        result
    }

    #[allow(clippy::too_many_arguments)]
    fn builtin_result(
        &mut self,
        builtin: &'static Builtin,
        e: ExprId,
        args: &[ExprId],
        span: Span,
        control: &Control,
        joined: Value,
        indices: Value,
        values: &[Value],
    ) -> Value {
        if let Some(value) = self.launch_builtin(builtin, e, span) {
            return value;
        }
        match builtin.result {
            ResultUniformity::Uniform => Value::uniform(),
            // Another block may write a global vector between two threads' loads: only shared memory (and data
            // nobody writes) comes back block-uniform.
            ResultUniformity::BlockUniform if self.is_written_global(args.first().copied()) => joined,
            // Block-uniform only if every thread reads the same element: join the arguments (the index).
            ResultUniformity::BlockUniform => {
                self.facts.value(Uniformity::BlockUniform, OriginKind::Builtin(e), span, None).join(indices)
            }
            ResultUniformity::WarpUniform => {
                self.facts.value(Uniformity::WarpUniform, OriginKind::Builtin(e), span, None)
            }
            ResultUniformity::ThreadVarying => {
                self.facts.value(Uniformity::ThreadVarying, OriginKind::Builtin(e), span, None)
            }
            ResultUniformity::OfArguments => joined,
            ResultUniformity::WarpUniformUnderControl => {
                let level = control.level.max(Uniformity::WarpUniform);
                self.facts.value(level, OriginKind::Builtin(e), span, None)
            }
            // Under the host's promise of whole warps every lane exists: lane `src`'s `v`, as uniform as `v`
            // (at worst warp-uniform when `src` is).
            ResultUniformity::Broadcast if self.whole_warps() => match (values.first(), values.get(1)) {
                (Some(v), _) if v.level <= Uniformity::WarpUniform => *v,
                (_, Some(src)) if src.level <= Uniformity::WarpUniform => {
                    self.facts.value(Uniformity::WarpUniform, OriginKind::Builtin(e), span, None)
                }
                _ => self.facts.value(Uniformity::ThreadVarying, OriginKind::Builtin(e), span, None).join(joined),
            },
            // `shfl v src`: every lane gets lane `src mod 32`'s `v`, which exists for sure only if it is lane 0 (the
            // last warp of a block may be partial, and a missing lane gives an undefined value).
            ResultUniformity::Broadcast if args.get(1).is_some_and(|&src| self.names_lane_zero(src)) => {
                match values.first() {
                    Some(v) if v.level <= Uniformity::WarpUniform => *v,
                    _ => self.facts.value(Uniformity::WarpUniform, OriginKind::Builtin(e), span, None),
                }
            }
            // `shfl_up v d`: every lane gets its own `v` or a lower lane's, which always exists.
            ResultUniformity::OwnOrLowerLane => match values.first() {
                Some(v) if v.level <= Uniformity::WarpUniform => *v,
                _ => self.facts.value(Uniformity::ThreadVarying, OriginKind::Builtin(e), span, None),
            },
            ResultUniformity::Broadcast => {
                self.facts.value(Uniformity::ThreadVarying, OriginKind::Builtin(e), span, None)
            }
        }
    }

    /// A named barrier's id and thread count must be the same in every lane of the warp (E0006): lanes of one
    /// warp that name different barriers or counts would wait on different hardware barriers.
    fn check_warp_uniform_args(&mut self, builtin: &'static Builtin, e: ExprId, args: &[ExprId], values: &[Value]) {
        const ROLES: [&str; 2] = ["barrier id", "thread count"];
        for (position, (&arg, value)) in args.iter().zip(values).enumerate() {
            if value.level <= Uniformity::WarpUniform {
                continue;
            }
            let name = self.written_name(e, builtin);
            let role = ROLES.get(position).copied().unwrap_or("argument");
            let d = value_divergence_error(
                "E0006",
                format!("the {role} of `{name}` may differ between the lanes of a warp"),
                self.module.span(arg),
                format!("this {role} is not warp-uniform"),
                value,
                self.names(),
            )
            .note("Every lane of a warp must name the same barrier and the same thread count.")
            .help("compute it from `warp_id`, constants, parameters or block indices, or broadcast it with `Gpu.shfl v 0`");
            self.report_fixable(d, Some(FixRequest::Broadcast { operand: arg }));
        }
    }

    /// `e` uses `builtin`; its name, as written, is looked up only for a diagnostic.
    fn check_requirement(&mut self, builtin: &'static Builtin, e: ExprId, span: Span, control: &Control) {
        match builtin.requirement {
            Requirement::None => {}
            Requirement::BlockConverged if control.level > self.block_converged_limit() => {
                let name = self.written_name(e, builtin);
                // A barrier with a result (a barrier reduction, `uniform_load`) cannot be split around: its
                // result is used inside the branch.
                let example = format!("{name} ...");
                let has_result = builtin.ret != crate::builtins::SigType::Unit;
                let op = if has_result { (example.as_str(), true) } else { ("Gpu.block_barrier", false) };
                let mut help = convergence_help(Scope::Block, "the barrier", op, control, &self.facts);
                if builtin.name.starts_with("block_barrier_") {
                    // The neutral predicate of the threads outside the branch: false for count and or, true for and.
                    let folded = if builtin.name == "block_barrier_and" { "not c || p" } else { "c && p" };
                    help.push_str(&format!(
                        "; the reduction takes the predicate of every thread of the block, so where only the \
                         branch's threads should count, give the others a neutral one (`{name} ({folded})`)"
                    ));
                }
                let d = divergence_error(
                    "E0001",
                    "Barrier in potentially diverged control flow".into(),
                    span,
                    format!("`{name}` may not be reached by all threads of the block"),
                    control,
                    self.names(),
                )
                .note("This barrier may not be reached by all threads, causing deadlock.")
                .help(help);
                let request = self.fix_request(Scope::Block, span, control, self.block_converged_limit());
                self.report_fixable(d, Some(request));
            }
            Requirement::WarpConverged if control.level > Uniformity::WarpUniform => {
                let name = self.written_name(e, builtin);
                let example = format!("{name} ...");
                let has_result = builtin.ret != crate::builtins::SigType::Unit;
                let op = if has_result { (example.as_str(), true) } else { (name.as_str(), false) };
                let help = convergence_help(Scope::Warp, "the collective", op, control, &self.facts);
                let d = divergence_error(
                    "E0002",
                    format!("Warp collective `{name}` in potentially diverged control flow"),
                    span,
                    format!("`{name}` may not be reached by all threads of the warp"),
                    control,
                    self.names(),
                )
                .note("All threads in a warp must participate together.")
                .help(help);
                let request = self.fix_request(Scope::Warp, span, control, Uniformity::WarpUniform);
                self.report_fixable(d, Some(request));
            }
            Requirement::BlockConverged | Requirement::WarpConverged => {}
        }
    }

    pub(super) fn superstep(&mut self, divergent: bool, body: ExprId, span: Span) -> Value {
        let entry = self.effective_control();
        let limit = self.block_converged_limit();
        if entry.level > limit {
            let help =
                convergence_help(Scope::Block, "the superstep", ("superstep { ... }", false), &entry, &self.facts);
            let d = divergence_error(
                "E0003",
                "Superstep entered from potentially diverged control flow".into(),
                span,
                "this superstep ends with a block barrier that not all threads may reach".into(),
                &entry,
                self.names(),
            )
            .note("`~divergent` allows divergence only inside a superstep, never around it.")
            .help(help);
            let request = self.fix_request(Scope::Block, span, &entry, limit);
            self.report_fixable(d, Some(request));
        }
        let saved = self.superstep;
        self.superstep = if divergent { None } else { Some(PlainSuperstep { span }) };
        self.expr(body);
        self.superstep = saved;
        if self.dead {
            // Every path through the body leaves it: its barrier is never reached.
            return Value::uniform();
        }
        let exit = self.effective_control();
        if exit.level > limit && entry.level <= limit {
            let keyword = Span { end: span.start + "superstep".len() as u32, ..span };
            let help = convergence_help(
                Scope::Block,
                "the end of the superstep",
                ("superstep { ... }", false),
                &exit,
                &self.facts,
            );
            let d = divergence_error(
                "E0001",
                "Barrier in potentially diverged control flow".into(),
                keyword,
                "the barrier at the end of this superstep may not be reached by all threads".into(),
                &exit,
                self.names(),
            )
            .note("This barrier may not be reached by all threads, causing deadlock.")
            .help(help);
            self.report(d);
        }
        Value::uniform()
    }

    /// In a plain superstep, a thread-varying `if` may only guard straight-line code (which compiles to predicated
    /// instructions): no loops, calls of functions, early exits or nested supersteps.
    pub(super) fn check_plain_superstep_branch(
        &mut self,
        e: ExprId,
        cond: &Value,
        cond_span: Span,
        then_branch: ExprId,
        else_branch: Option<ExprId>,
    ) {
        let Some(superstep) = self.superstep else { return };
        if cond.level <= Uniformity::BlockUniform {
            return;
        }
        let straight =
            self.is_straight_line(then_branch) && else_branch.map(|b| self.is_straight_line(b)).unwrap_or(true);
        if straight {
            return;
        }
        let control = self.facts.enter(Control::converged(), DivergenceKind::Branch, cond_span, *cond);
        let d = divergence_error(
            "E0004",
            "Divergent control flow in a superstep not marked `~divergent`".into(),
            self.module.span(e),
            "this branch contains a loop, a function call or an early exit under a thread-varying condition".into(),
            &control,
            self.names(),
        )
        .secondary(superstep.span, "in this superstep")
        .help("if the divergence is intended, write `superstep ~divergent { ... }` (the emitted code is the same)");
        self.report_fixable(d, Some(FixRequest::MarkDivergent { superstep: superstep.span }));
    }

    pub(super) fn check_plain_superstep_loop(&mut self, bounds: &Value, span: Span) {
        let Some(superstep) = self.superstep else { return };
        if bounds.level <= Uniformity::BlockUniform {
            return;
        }
        let control = self.facts.enter(Control::converged(), DivergenceKind::Loop, span, *bounds);
        let d = divergence_error(
            "E0004",
            "Divergent control flow in a superstep not marked `~divergent`".into(),
            span,
            "this loop runs a thread-varying number of iterations".into(),
            &control,
            self.names(),
        )
        .secondary(superstep.span, "in this superstep")
        .help("if the divergence is intended, write `superstep ~divergent { ... }` (the emitted code is the same)");
        self.report_fixable(d, Some(FixRequest::MarkDivergent { superstep: superstep.span }));
    }
}

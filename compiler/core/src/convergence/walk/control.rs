//! Control flow: branches (and the right operands of `&&`, `||`), loops and their fixpoints, early exits.
//!
//! A branch is walked from the state before it, each arm in turn; after it, the locals either arm may change take
//! the join of the arms that can reach the end (an arm that always leaves, by `break`, `continue` or `return`,
//! contributes what it carries to where it lands instead). A loop iterates to a fixpoint with reporting off, then,
//! where its caller reports, runs once more from the fixpoint with reporting on (so each problem is reported once,
//! with its final explanation); where its caller does not report, the last round is already that run. Where its
//! caller reports, every round reports speculatively (`speculation`): the round that finds the fixpoint is that
//! run (a loop whose first round is already the fixpoint, most, is walked once), and what a round that is not the
//! fixpoint reported is undone. A loop met
//! again in the same function body (in a later round of an enclosing loop) starts from its earlier fixpoint head:
//! the state entering it only grows from round to round, so its fixpoint does too, and starting from a point
//! between the entry and the fixpoint reaches the same fixpoint. Each loop thus costs a number of rounds bounded by
//! how often its head rises overall, not by the rounds of the loops around it: nested loops are analysed in
//! polynomial time.

use std::rc::Rc;

use crate::source::Span;
use crate::syntax::ast::{BinaryOp, ExprId, ExprKind};
use crate::types::LocalId;

use super::super::lattice::{Control, DivergenceKind, OriginKind, Uniformity, Value};
use super::{Walker, MAX_LOOP_ROUNDS};

/// What the exits of the loop being analysed carry: the values of the loop's assigned locals at each `break`
/// (joined: where the loop is left), at each `continue` (the next iteration's head), and after the condition of
/// a `while` (where it is left when the condition fails).
pub(in crate::convergence) struct LoopExits {
    names: Rc<Vec<LocalId>>,
    breaks: Carried,
    continues: Carried,
    after_condition: Carried,
}

/// The join of the states carried to one exit in one round; `reached` is false while none was (its buffer is
/// kept from round to round).
#[derive(Default)]
struct Carried {
    values: Vec<Value>,
    reached: bool,
}

impl Carried {
    fn get(&self) -> Option<&[Value]> {
        self.reached.then_some(self.values.as_slice())
    }
}

/// Where a loop is left besides its `break`s: at the head (a `for` when its counter passes the bound, a `while`
/// whose condition changes nothing when it fails), after the condition (a `while` whose condition assigns), or
/// nowhere (`while true`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum LoopExit {
    Head,
    AfterCondition,
    BreakOnly,
}

/// Which exit a state is carried to.
#[derive(Clone, Copy)]
enum Exit {
    Break,
    Continue,
    AfterCondition,
}

impl LoopExits {
    fn new(names: Rc<Vec<LocalId>>) -> LoopExits {
        LoopExits {
            names,
            breaks: Carried::default(),
            continues: Carried::default(),
            after_condition: Carried::default(),
        }
    }

    /// Forgets what the previous round carried.
    fn reset(&mut self) {
        self.breaks.reached = false;
        self.continues.reached = false;
        self.after_condition.reached = false;
    }

    fn exit(&mut self, exit: Exit) -> &mut Carried {
        match exit {
            Exit::Break => &mut self.breaks,
            Exit::Continue => &mut self.continues,
            Exit::AfterCondition => &mut self.after_condition,
        }
    }
}

impl Walker<'_> {
    pub(super) fn snapshot(&mut self, names: &[LocalId]) -> Vec<Value> {
        let mut values = self.spare_values.pop().unwrap_or_default();
        values.extend(names.iter().map(|&l| self.local(l)));
        values
    }

    /// Gives back a vector of values for reuse ([`Walker::snapshot`]).
    pub(super) fn give_back(&mut self, mut values: Vec<Value>) {
        values.clear();
        self.spare_values.push(values);
    }

    pub(super) fn restore(&mut self, names: &[LocalId], values: &[Value]) {
        for (&l, &v) in names.iter().zip(values) {
            self.set_local(l, v);
        }
    }

    // --- branches ----------------------------------------------------------------------------------------------

    pub(super) fn if_(&mut self, e: ExprId, cond: ExprId, then_branch: ExprId, else_branch: Option<ExprId>) -> Value {
        let c = self.expr(cond);
        if self.dead {
            return Value::uniform();
        }
        let was_varying = self.context_levels.get(cond.index()).copied().flatten() == Some(Uniformity::ThreadVarying);
        self.track(cond, &c);
        if c.level == Uniformity::ThreadVarying && !was_varying {
            self.varying_ifs.push(e);
        }
        let cond_span = self.module.span(cond);
        self.check_plain_superstep_branch(e, &c, cond_span, then_branch, else_branch);
        let saved = self.control;
        let control = self.effective_control();
        self.control = self.facts.enter(control, DivergenceKind::Branch, cond_span, c);
        let assigned = self.assigned_locals(e);
        let before = self.snapshot(&assigned);
        let then_value = self.expr(then_branch);
        let then_dead = std::mem::replace(&mut self.dead, false);
        let after_then = (!then_dead).then(|| self.snapshot(&assigned));
        self.restore(&assigned, &before);
        self.give_back(before);
        let else_value = match else_branch {
            Some(b) => self.expr(b),
            None => Value::uniform(),
        };
        let else_dead = std::mem::replace(&mut self.dead, false);
        match after_then {
            Some(after_then) if !else_dead => {
                for (&l, &v) in assigned.iter().zip(&after_then) {
                    let merged = v.join(self.local(l));
                    self.set_local(l, merged);
                }
                self.give_back(after_then);
            }
            Some(after_then) => {
                self.restore(&assigned, &after_then);
                self.give_back(after_then);
            }
            // Only the else branch reaches the end (if any does): its state stands.
            None => {}
        }
        self.dead = then_dead && else_dead;
        self.control = saved;
        let span = self.module.span(e);
        let value_of_if = self.facts.through(c, OriginKind::IfValue, span);
        let mut value = Value::uniform();
        if !then_dead {
            value = then_value;
        }
        if !else_dead {
            value = value.join(else_value);
        }
        value.join(value_of_if)
    }

    /// `a op b`; for `&&` and `||`, `b` runs only in the threads where `a` allows it, like the branch of an `if`.
    #[inline]
    pub(super) fn binary(&mut self, e: ExprId, op: BinaryOp, lhs: ExprId, rhs: ExprId) -> Value {
        let left = self.expr(lhs);
        if !op.is_logical() {
            let joined = left.join(self.expr(rhs));
            return self.launch_binary(e, op, lhs, rhs, joined);
        }
        self.short_circuit(left, lhs, rhs)
    }

    /// The right operand `rhs` of `&&` or `||`, whose left operand `lhs` gave `left`.
    fn short_circuit(&mut self, left: Value, lhs: ExprId, rhs: ExprId) -> Value {
        if self.dead {
            return left;
        }
        let saved = self.control;
        let control = self.effective_control();
        self.control = self.facts.enter(control, DivergenceKind::ShortCircuit, self.module.span(lhs), left);
        let assigned = self.assigned_locals(rhs);
        let before = self.snapshot(&assigned);
        let right = self.expr(rhs);
        let right_dead = std::mem::replace(&mut self.dead, false);
        if right_dead {
            self.restore(&assigned, &before);
        } else {
            for (&l, &old) in assigned.iter().zip(&before) {
                let merged = self.local(l).join(old);
                self.set_local(l, merged);
            }
        }
        self.give_back(before);
        self.control = saved;
        if right_dead {
            left
        } else {
            left.join(right)
        }
    }

    // --- loops -------------------------------------------------------------------------------------------------

    pub(super) fn for_(&mut self, e: ExprId, var_span: Span, start: ExprId, end: ExprId, body: ExprId) -> Value {
        let bounds = self.expr(start).join(self.expr(end));
        if self.dead {
            return Value::uniform();
        }
        let bounds_span = self.module.span(start).to(self.module.span(end));
        self.check_plain_superstep_loop(&bounds, bounds_span);
        let saved = self.control;
        let control = self.effective_control();
        self.control = self.facts.enter(control, DivergenceKind::Loop, bounds_span, bounds);
        if let Some(&counter) = self.types.declared_local.get(&e) {
            let value = self.facts.through(bounds, OriginKind::LoopCounter(counter), var_span);
            self.set_local(counter, value);
        }
        self.fixpoint(e, LoopExit::Head, |walker, _| {
            walker.expr(body);
        });
        self.control = saved;
        Value::uniform()
    }

    pub(super) fn while_(&mut self, e: ExprId, cond: ExprId, body: ExprId) -> Value {
        let cond_span = self.module.span(cond);
        let saved = self.control;
        // `while true`: left only by `break` (or `return`).
        let forever =
            matches!(self.module.expr(crate::storage::strip_annotations(self.module, cond)), ExprKind::Bool(true));
        // Where the condition changes nothing (nearly always), the state after it is the head's.
        let exit = if forever {
            LoopExit::BreakOnly
        } else if self.assigned_locals(cond).is_empty() {
            LoopExit::Head
        } else {
            LoopExit::AfterCondition
        };
        // The condition is evaluated again at each iteration by the threads still in the loop only: from its second
        // evaluation on, it runs under the loop's own divergence (`exit_level`: how the condition varied in the
        // evaluations before), like the body.
        self.fixpoint(e, exit, |walker, exit_level| {
            let entry = walker.control;
            let again = walker.effective_control();
            walker.control = walker.facts.enter(again, DivergenceKind::LoopCondition, cond_span, *exit_level);
            let c = walker.expr(cond);
            walker.control = entry;
            *exit_level = exit_level.join(c);
            if walker.dead {
                return;
            }
            if exit == LoopExit::AfterCondition {
                walker.carry(Exit::AfterCondition);
            }
            walker.check_plain_superstep_loop(&c, cond_span);
            let control = walker.effective_control();
            walker.control = walker.facts.enter(control, DivergenceKind::Loop, cond_span, c);
            walker.expr(body);
        });
        self.control = saved;
        Value::uniform()
    }

    /// Runs a loop body (`round`) until the locals it assigns, the exit taints and the value the round carries from
    /// one round to the next (a `while` condition's level) stop changing, with reporting off; then, if reporting is
    /// on (or the rounds ran out), once more from the fixpoint with reporting on. Where reporting is on, every round
    /// reports speculatively: the round found to be the fixpoint is that last one, and the others are undone. Every
    /// round runs under the control flow at the loop's entry, with the exits taken before it in an enclosing loop
    /// (the threads that left it are not in this loop either). The loop head joins the entry state, the back edge (the end of the body, when reachable) and every `continue`;
    /// the loop is left where `exit` says, joined with every `break`. A loop that no exit leaves (`while true`
    /// without a reachable `break`) makes the code after it unreachable.
    fn fixpoint(&mut self, loop_expr: ExprId, exit: LoopExit, mut round: impl FnMut(&mut Self, &mut Value)) {
        let assigned = self.assigned_locals(loop_expr);
        // Before this loop's own `break` and `continue` taints start afresh: the enclosing loop's stay in force.
        let entry_control = self.effective_control();
        let saved_reporting = self.reporting;
        let saved_broke = std::mem::replace(&mut self.broke, Control::converged());
        let saved_continued = std::mem::replace(&mut self.continued, Control::converged());
        let saved_exits = self.loop_exits.replace(LoopExits::new(assigned.clone()));
        let nested = saved_exits.is_some();
        let mut carried = Value::uniform();
        let mut head = self.snapshot(&assigned);
        if let Some(warm) = self.warm_heads.get(&loop_expr).filter(|w| nested && w.len() == head.len()) {
            for (h, w) in head.iter_mut().zip(warm) {
                *h = h.join(*w);
            }
        }
        // Where reporting is on, every round reports, in case it is the fixpoint (`speculation`); a round that is not
        // has what it reported undone.
        self.reporting = saved_reporting;
        let mut stable = false;
        let mut reported = false;
        for round_number in 0..MAX_LOOP_ROUNDS {
            let before = (self.broke.level, self.returned.level, carried.level);
            let speculation = saved_reporting.then(|| self.begin_speculation());
            self.start_round(&assigned, &head, entry_control);
            round(self, &mut carried);
            let head_rose = self.join_back_edge(&assigned, &mut head);
            if !head_rose && (self.broke.level, self.returned.level, carried.level) == before {
                stable = true;
                if speculation.is_some() {
                    self.keep_speculation();
                    reported = true;
                }
                break;
            }
            if let Some(mark) = speculation {
                self.undo_speculation(mark);
            }
            if round_number + 1 == MAX_LOOP_ROUNDS {
                for value in head.iter_mut().chain(std::iter::once(&mut carried)) {
                    value.level = Uniformity::ThreadVarying;
                }
            }
        }
        if !reported && (saved_reporting || !stable) {
            self.start_round(&assigned, &head, entry_control);
            round(self, &mut carried);
        }
        if nested {
            self.warm_heads.insert(loop_expr, head.clone());
        }
        self.leave_loop(&assigned, exit, head);
        self.broke = saved_broke;
        self.continued = saved_continued;
        self.loop_exits = saved_exits;
    }

    /// The state after the loop (see `LoopExit`), joined with every `break`; unreachable when no exit was
    /// reached.
    fn leave_loop(&mut self, assigned: &[LocalId], exit: LoopExit, head: Vec<Value>) {
        let exits = self.loop_exits.take();
        let breaks = exits.as_ref().and_then(|x| x.breaks.get());
        let after_condition = exits.as_ref().and_then(|x| x.after_condition.get());
        let mut left = match exit {
            LoopExit::Head => Some(head),
            LoopExit::AfterCondition => {
                self.give_back(head);
                after_condition.map(<[Value]>::to_vec)
            }
            LoopExit::BreakOnly => {
                self.give_back(head);
                None
            }
        };
        match (&mut left, breaks) {
            (Some(left), Some(breaks)) => {
                for (l, b) in left.iter_mut().zip(breaks) {
                    *l = l.join(*b);
                }
            }
            (None, Some(breaks)) => left = Some(breaks.to_vec()),
            _ => {}
        }
        self.dead = false;
        match left {
            Some(values) => {
                self.restore(assigned, &values);
                // Given back for reuse, as the snapshots of branches are (`Walker::snapshot`).
                self.give_back(values);
            }
            None => self.dead = true,
        }
    }

    fn start_round(&mut self, assigned: &[LocalId], head: &[Value], control: Control) {
        self.dead = false;
        self.restore(assigned, head);
        self.continued = Control::converged();
        self.control = control;
        if let Some(exits) = self.loop_exits.as_mut() {
            exits.reset();
        }
    }

    /// Joins the back edge (the locals at the end of the body, if it is reachable, and at every `continue`) into
    /// the loop head; says whether any level rose.
    fn join_back_edge(&self, assigned: &[LocalId], head: &mut [Value]) -> bool {
        let continues = self.loop_exits.as_ref().and_then(|x| x.continues.get());
        let mut rose = false;
        for (i, (value, &l)) in head.iter_mut().zip(assigned).enumerate() {
            let mut back = (!self.dead).then(|| self.local(l));
            if let Some(at_continue) = continues.and_then(|c| c.get(i)) {
                back = Some(back.map_or(*at_continue, |b| b.join(*at_continue)));
            }
            if let Some(back) = back {
                let joined = value.join(back);
                rose |= joined.level != value.level;
                *value = joined;
            }
        }
        rose
    }

    /// Joins the current values of the loop's assigned locals into what `exit` carries.
    fn carry(&mut self, exit: Exit) {
        let Some(mut exits) = self.loop_exits.take() else { return };
        let names = exits.names.clone();
        let carried = exits.exit(exit);
        if !carried.reached {
            carried.values.clear();
            carried.values.extend(names.iter().map(|&l| self.local(l)));
            carried.reached = true;
        } else {
            for (value, &l) in carried.values.iter_mut().zip(names.iter()) {
                *value = value.join(self.local(l));
            }
        }
        self.loop_exits = Some(exits);
    }

    // --- exits -------------------------------------------------------------------------------------------------

    pub(super) fn return_(&mut self, value: Option<ExprId>, span: Span) -> Value {
        if let Some(v) = value {
            let v = self.expr(v);
            if self.dead {
                return Value::uniform();
            }
            self.return_value = std::mem::replace(&mut self.return_value, Value::uniform()).join(v);
        }
        self.exit(DivergenceKind::Return, span)
    }

    /// `return`, `break`, `continue`: the rest of the function, loop or iteration is not reached from here (the
    /// state is carried to where the exit lands); taken in diverged control flow, the exit also leaves the rest to
    /// fewer threads.
    pub(super) fn exit(&mut self, kind: DivergenceKind, span: Span) -> Value {
        if self.dead {
            return Value::uniform();
        }
        let control = self.effective_control();
        if control.level > Uniformity::Uniform {
            let taint = self.facts.because_of(control, kind, span);
            match kind {
                DivergenceKind::Return => self.returned = self.returned.join(taint),
                DivergenceKind::Break => self.broke = self.broke.join(taint),
                _ => self.continued = self.continued.join(taint),
            }
        }
        match kind {
            DivergenceKind::Break => self.carry(Exit::Break),
            DivergenceKind::Continue => self.carry(Exit::Continue),
            _ => self.carry_return(),
        }
        self.dead = true;
        Value::uniform()
    }

    /// At a `return` in a call being analysed: the contents of the `ref` and array parameters are what the caller
    /// gets back from this path.
    fn carry_return(&mut self) {
        if self.by_reference.is_empty() {
            return;
        }
        let names = self.by_reference.clone();
        match self.returns.take() {
            None => self.returns = Some(self.snapshot(&names)),
            Some(mut at_returns) => {
                for (value, &l) in at_returns.iter_mut().zip(names.iter()) {
                    *value = value.join(self.local(l));
                }
                self.returns = Some(at_returns);
            }
        }
    }
}

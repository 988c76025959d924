//! Control flow: branches (and the right operands of `&&`, `||`), loops and their fixpoints, early exits.
//!
//! A branch is walked from the state before it, each arm in turn; after it, the locals either arm may change take
//! the join of the arms that can reach the end (an arm that always leaves, by `break`, `continue` or `return`,
//! contributes what it carries to where it lands instead). A loop iterates to a fixpoint with reporting off, then,
//! where its caller reports, runs once more from the fixpoint with reporting on (so each problem is reported once,
//! with its final explanation); where its caller does not report, the last round is already that run. A loop met
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
/// a `while` (where it is left when the condition fails). `None`: no such exit was reached.
pub(in crate::convergence) struct LoopExits {
    names: Rc<Vec<LocalId>>,
    breaks: Option<Vec<Value>>,
    continues: Option<Vec<Value>>,
    after_condition: Option<Vec<Value>>,
}

/// Which exit a state is carried to.
#[derive(Clone, Copy)]
enum Carried {
    Break,
    Continue,
    AfterCondition,
}

/// `into` joined with `values` (the first state carried there is taken as is).
fn join_values(into: &mut Option<Vec<Value>>, values: Vec<Value>) {
    match into {
        None => *into = Some(values),
        Some(old) => {
            for (o, v) in old.iter_mut().zip(values) {
                *o = o.join(v);
            }
        }
    }
}

impl Walker<'_> {
    pub(super) fn snapshot(&self, names: &[LocalId]) -> Vec<Value> {
        names.iter().map(|&l| self.local(l)).collect()
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
        let else_value = match else_branch {
            Some(b) => self.expr(b),
            None => Value::uniform(),
        };
        let else_dead = std::mem::replace(&mut self.dead, false);
        match after_then {
            Some(after_then) if !else_dead => {
                for (&l, v) in assigned.iter().zip(after_then) {
                    let merged = v.join(self.local(l));
                    self.set_local(l, merged);
                }
            }
            Some(after_then) => self.restore(&assigned, &after_then),
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
    pub(super) fn binary(&mut self, op: BinaryOp, lhs: ExprId, rhs: ExprId) -> Value {
        let left = self.expr(lhs);
        if !op.is_logical() {
            return left.join(self.expr(rhs));
        }
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
            for (&l, old) in assigned.iter().zip(before) {
                let merged = self.local(l).join(old);
                self.set_local(l, merged);
            }
        }
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
        self.fixpoint(e, false, |walker| {
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
        self.fixpoint(e, true, |walker| {
            let c = walker.expr(cond);
            if walker.dead {
                return;
            }
            if !forever {
                walker.carry(Carried::AfterCondition);
            }
            walker.check_plain_superstep_loop(&c, cond_span);
            let control = walker.effective_control();
            walker.control = walker.facts.enter(control, DivergenceKind::Loop, cond_span, c);
            walker.expr(body);
        });
        self.control = saved;
        Value::uniform()
    }

    /// Runs a loop body (`round`) until the locals it assigns and the exit taints stop changing, with reporting
    /// off; then, if reporting is on (or the rounds ran out), once more from the fixpoint with reporting on. The
    /// loop head joins the entry state, the back edge (the end of the body, when reachable) and every `continue`;
    /// the loop is left with the head's state (`for`) or the state after the condition (`while`), joined with
    /// every `break`. A loop that no exit leaves (`while true` without a reachable `break`) makes the code after
    /// it unreachable.
    fn fixpoint(&mut self, loop_expr: ExprId, is_while: bool, mut round: impl FnMut(&mut Self)) {
        let assigned = self.assigned_locals(loop_expr);
        let saved_reporting = self.reporting;
        let saved_broke = std::mem::replace(&mut self.broke, Control::converged());
        let saved_continued = std::mem::replace(&mut self.continued, Control::converged());
        let saved_exits = self.loop_exits.take();
        let nested = saved_exits.is_some();
        let saved_control = self.control;
        let mut head = self.snapshot(&assigned);
        if let Some(warm) = self.warm_heads.get(&loop_expr).filter(|w| nested && w.len() == head.len()) {
            for (h, w) in head.iter_mut().zip(warm) {
                *h = h.join(*w);
            }
        }
        self.reporting = false;
        let mut stable = false;
        for round_number in 0..MAX_LOOP_ROUNDS {
            let exits_before = (self.broke.level, self.returned.level);
            self.start_round(&assigned, &head, saved_control);
            round(self);
            let head_rose = self.join_back_edge(&assigned, &mut head);
            if !head_rose && (self.broke.level, self.returned.level) == exits_before {
                stable = true;
                break;
            }
            if round_number + 1 == MAX_LOOP_ROUNDS {
                for value in &mut head {
                    value.level = Uniformity::ThreadVarying;
                }
            }
        }
        self.reporting = saved_reporting;
        if saved_reporting || !stable {
            self.start_round(&assigned, &head, saved_control);
            round(self);
        }
        let exits = self.loop_exits.take();
        let (breaks, after_condition) = exits.map(|x| (x.breaks, x.after_condition)).unwrap_or((None, None));
        let mut left = if is_while { after_condition } else { Some(head.clone()) };
        if let Some(breaks) = breaks {
            join_values(&mut left, breaks);
        }
        self.dead = false;
        match &left {
            Some(values) => self.restore(&assigned, values),
            None => self.dead = true,
        }
        if nested {
            self.warm_heads.insert(loop_expr, head);
        }
        self.broke = saved_broke;
        self.continued = saved_continued;
        self.loop_exits = saved_exits;
    }

    fn start_round(&mut self, assigned: &Rc<Vec<LocalId>>, head: &[Value], control: Control) {
        self.dead = false;
        self.restore(assigned, head);
        self.continued = Control::converged();
        self.control = control;
        self.loop_exits =
            Some(LoopExits { names: assigned.clone(), breaks: None, continues: None, after_condition: None });
    }

    /// Joins the back edge (the locals at the end of the body, if it is reachable, and at every `continue`) into
    /// the loop head; says whether any level rose.
    fn join_back_edge(&self, assigned: &[LocalId], head: &mut [Value]) -> bool {
        let continues = self.loop_exits.as_ref().and_then(|x| x.continues.as_ref());
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
    fn carry(&mut self, exit: Carried) {
        let Some(names) = self.loop_exits.as_ref().map(|x| x.names.clone()) else { return };
        let now = self.snapshot(&names);
        let Some(exits) = self.loop_exits.as_mut() else { return };
        let into = match exit {
            Carried::Break => &mut exits.breaks,
            Carried::Continue => &mut exits.continues,
            Carried::AfterCondition => &mut exits.after_condition,
        };
        join_values(into, now);
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
            DivergenceKind::Break => self.carry(Carried::Break),
            DivergenceKind::Continue => self.carry(Carried::Continue),
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
        let now = self.snapshot(&names);
        join_values(&mut self.returns, now);
    }
}

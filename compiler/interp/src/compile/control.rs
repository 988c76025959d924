//! Control flow: `if` (with and without a value), `for` (bounds evaluated once, inclusive, no overflow past the
//! end bound), `while`, `break`, `continue`, `return`, and `superstep` (its body, then a block barrier).

use skc_core::syntax::ast::{BinaryOp, ExprId, ExprKind};
use skc_core::types::Type;

use super::expr::{comparison, integer};
use super::function::{FnCompiler, LoopLabels};
use crate::code::{CmpOp, Instr, IntOp, LoopCounter, Reg, SyncOp};
use crate::value::Scalar;

impl FnCompiler<'_, '_> {
    pub fn if_expr(
        &mut self,
        e: ExprId,
        cond: ExprId,
        then_branch: ExprId,
        else_branch: Option<ExprId>,
        dst: Option<Reg>,
    ) -> Reg {
        let words = if else_branch.is_some() { self.layout.slots_of(e) } else { 0 };
        let dst = match (words, dst) {
            (0, _) => None,
            (_, Some(d)) => Some(d),
            (w, None) => Some(self.alloc(w)),
        };
        if let Some(taken) = self.layout.types.taken_branch(e, then_branch, else_branch) {
            // A compile-time constant condition: only the branch that runs is compiled, as only it is emitted
            // as CUDA C (`TypeInfo::constant_conditions`).
            if let Some(branch) = taken {
                self.branch(branch, dst);
            }
            return dst.unwrap_or(self.zero);
        }
        let to_else = self.jump_unless(cond, e);
        self.branch(then_branch, dst);
        match else_branch {
            Some(other) => {
                let to_end = self.emit(Instr::Jump { to: 0 }, e);
                let here = self.here();
                self.patch(to_else, here);
                self.branch(other, dst);
                let end = self.here();
                self.patch(to_end, end);
            }
            None => {
                let end = self.here();
                self.patch(to_else, end);
            }
        }
        dst.unwrap_or(self.zero)
    }

    fn branch(&mut self, e: ExprId, dst: Option<Reg>) {
        let mark = self.mark();
        match dst {
            Some(d) => self.value_into(e, d),
            None => {
                self.value(e);
            }
        }
        self.release(mark);
    }

    /// `for i = a to b` (or `downto`): `a` then `b` evaluated once; the body runs for `i` from `a` to `b`
    /// inclusive, and the counter never steps past `b` (so `b` = the type's maximum ends the loop).
    pub fn for_loop(&mut self, e: ExprId, start: ExprId, end: ExprId, downto: bool, body: ExprId) {
        let local = self.layout.types.declared_local.get(&e).copied();
        let ty = local.map(|l| self.layout.local_ty(l).clone()).unwrap_or(Type::Int32);
        let scalar = Scalar::of(&ty).filter(|s| s.is_integer()).unwrap_or(Scalar::Int32);
        let counter = self.alloc(1);
        let last = self.alloc(1);
        let test = self.alloc(1);
        let iter = self.alloc(1);
        self.value_into(start, counter);
        let mark = self.mark();
        self.value_into(end, last);
        self.release(mark);
        if let Some(local) = local {
            self.locals.insert(local, counter);
        }
        let one = self.constant(e, 1, None);
        let beyond = if downto { BinaryOp::Lt } else { BinaryOp::Gt };
        self.emit(comparison(beyond, scalar, test, counter, last), e);
        let skip = self.emit(Instr::JumpIf { cond: test, to: 0 }, e);
        let zero = self.zero;
        self.emit(Instr::Move { dst: iter, src: zero }, e);
        let head = self.here();
        self.loops.push(LoopLabels::default());
        self.iterations.push(LoopCounter { reg: iter, head });
        let mark = self.mark();
        self.value(body);
        self.release(mark);
        self.iterations.pop();
        let labels = self.loops.pop().unwrap_or_default();
        let next = self.here();
        for at in labels.continues {
            self.patch(at, next);
        }
        let mut exits = vec![skip];
        if scalar == Scalar::Int32 {
            self.emit(Instr::ForI32 { counter, last, down: downto, iter, to: head }, e);
        } else {
            self.emit(comparison(BinaryOp::Eq, scalar, test, counter, last), e);
            exits.push(self.emit(Instr::JumpIf { cond: test, to: 0 }, e));
            let step = if downto { IntOp::Sub } else { IntOp::Add };
            self.emit(integer(step, scalar, counter, counter, one), e);
            self.emit(Instr::Loop { to: head, iter }, e);
        }
        let exit = self.here();
        for at in labels.breaks.into_iter().chain(exits) {
            self.patch(at, exit);
        }
    }

    /// Evaluates `cond` and jumps (to a place patched later) when it is false; returns the jump. An int32
    /// comparison and its jump are one instruction.
    fn jump_unless(&mut self, cond: ExprId, e: ExprId) -> usize {
        let mut c = cond;
        while let ExprKind::Annot { expr, .. } = self.layout.module.expr(c) {
            c = *expr;
        }
        let mark = self.mark();
        let jump = match self.layout.module.expr(c) {
            ExprKind::Binary { op, lhs, rhs } if op.is_comparison() && *self.layout.ty(*lhs) == Type::Int32 => {
                self.nodes += 1;
                let regs = self.operands(&[*lhs, *rhs]);
                let op = match op {
                    BinaryOp::Eq => CmpOp::Eq,
                    BinaryOp::Ne => CmpOp::Ne,
                    BinaryOp::Lt => CmpOp::Lt,
                    BinaryOp::Le => CmpOp::Le,
                    BinaryOp::Gt => CmpOp::Gt,
                    _ => CmpOp::Ge,
                };
                self.emit(Instr::BranchI32 { op, a: regs[0], b: regs[1], to: 0 }, c)
            }
            _ => {
                let value = self.value(cond);
                self.emit(Instr::JumpIfNot { cond: value, to: 0 }, e)
            }
        };
        self.release(mark);
        jump
    }

    pub fn while_loop(&mut self, e: ExprId, cond: ExprId, body: ExprId) {
        // The condition belongs to the iteration it starts: its barriers and collectives count iterations too.
        let iter = self.alloc(1);
        let zero = self.zero;
        self.emit(Instr::Move { dst: iter, src: zero }, e);
        let head = self.here();
        self.iterations.push(LoopCounter { reg: iter, head });
        let exit_jump = self.jump_unless(cond, e);
        self.loops.push(LoopLabels::default());
        let mark = self.mark();
        self.value(body);
        self.release(mark);
        let labels = self.loops.pop().unwrap_or_default();
        self.iterations.pop();
        // `continue` goes through the back edge, which counts the iteration.
        let back_edge = self.emit(Instr::Loop { to: head, iter }, e) as u32;
        let exit = self.here();
        for at in labels.continues {
            self.patch(at, back_edge);
        }
        for at in labels.breaks.into_iter().chain([exit_jump]) {
            self.patch(at, exit);
        }
    }

    /// `break` (`is_break`) or `continue`: a jump patched when the loop is finished.
    pub fn leave_loop(&mut self, e: ExprId, is_break: bool) {
        let at = self.emit(Instr::Jump { to: 0 }, e);
        match self.loops.last_mut() {
            Some(labels) if is_break => labels.breaks.push(at),
            Some(labels) => labels.continues.push(at),
            None => {
                self.code.instrs.pop();
                self.code.sites.pop();
                self.code.weights.pop();
                self.trap_message("`break` or `continue` outside a loop".into(), e);
            }
        }
    }

    pub fn return_from(&mut self, e: ExprId, value: Option<ExprId>) {
        if self.in_kernel {
            if let Some(v) = value {
                self.discard(v);
            }
            self.emit(Instr::Exit, e);
            return;
        }
        let src = match value {
            Some(v) => self.value(v),
            None => self.zero,
        };
        let n = self.ret_words;
        self.emit(Instr::Ret { src, n }, e);
    }

    /// `superstep { body }`: the body, then a block barrier (the superstep is its program point).
    pub fn superstep(&mut self, e: ExprId, body: ExprId) {
        self.discard(body);
        let zero = self.zero;
        self.emit(Instr::Sync { op: SyncOp::BlockBarrier, dst: zero, a: zero, b: zero, c: zero }, e);
    }
}

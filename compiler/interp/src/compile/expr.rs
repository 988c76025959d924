//! Expressions: the dispatcher ([`FnCompiler::value_to`], one helper per kind), literals, names, operators,
//! `let`, records and operands evaluated left to right.

use skc_core::syntax::ast::{BinaryOp, Binder, ExprId, ExprKind, LetKind, UnaryOp as AstUnary};
use skc_core::types::{Mutability, Resolution, Type};

use super::function::FnCompiler;
use crate::code::{CmpOp, FloatOp, HalfOp, Instr, IntOp, MathOp, Reg, UnaryOp};
use crate::value::Scalar;

impl FnCompiler<'_, '_> {
    /// Compiles `e` for its value; returns the register holding it (valid until the caller releases registers
    /// below it).
    pub fn value(&mut self, e: ExprId) -> Reg {
        self.value_to(e, None)
    }

    /// Compiles `e` with its value delivered to `dst`.
    pub fn value_into(&mut self, e: ExprId, dst: Reg) {
        self.value_to(e, Some(dst));
    }

    /// Compiles `e` for its effects only.
    pub fn discard(&mut self, e: ExprId) {
        let mark = self.mark();
        self.value(e);
        self.release(mark);
    }

    /// The dispatcher: the value of `e` in `dst` if given (else wherever is cheapest). `let` and `;` chains are
    /// walked in a loop, not by recursion: they nest to the right and can be thousands deep.
    pub fn value_to(&mut self, mut e: ExprId, dst: Option<Reg>) -> Reg {
        let module = self.layout.module;
        loop {
            self.nodes += 1;
            match module.expr(e) {
                ExprKind::Seq(first, rest) => {
                    self.discard(*first);
                    e = *rest;
                }
                ExprKind::Let { binder, kind, value, body, .. } => {
                    self.bind_let(e, binder, *kind, *value);
                    e = *body;
                }
                ExprKind::LetArray { body, .. } => {
                    self.bind_array(e);
                    e = *body;
                }
                ExprKind::Annot { expr, .. } => e = *expr,
                ExprKind::Pragma { body, .. } => e = *body,
                _ => return self.value_of_kind(e, dst),
            }
        }
    }

    fn value_of_kind(&mut self, e: ExprId, dst: Option<Reg>) -> Reg {
        let module = self.layout.module;
        match module.expr(e) {
            ExprKind::Int { value, .. } => self.int_literal(e, *value, dst),
            ExprKind::Float { value, .. } => {
                let bits = super::layout::float_literal_bits(*value, self.layout.ty(e));
                self.constant(e, bits, dst)
            }
            ExprKind::Bool(b) => self.constant(e, *b as u64, dst),
            // Only `printf`'s format, which the `printf` instruction carries (the checker rejects any other).
            ExprKind::Unit | ExprKind::Str => self.zero,
            ExprKind::Var(_) | ExprKind::Global(_) => self.name(e, dst),
            ExprKind::Call { args, .. } => self.call(e, args, dst),
            ExprKind::Unary { op, operand } => self.unary(e, *op, *operand, dst),
            ExprKind::Binary { op, lhs, rhs } => self.binary(e, *op, *lhs, *rhs, dst),
            ExprKind::Ref(inner) => self.new_cell(e, *inner, dst),
            ExprKind::Assign { value, .. } => {
                self.assign(e, *value);
                self.zero
            }
            ExprKind::If { cond, then_branch, else_branch } => self.if_expr(e, *cond, *then_branch, *else_branch, dst),
            ExprKind::For { start, end, downto, body, .. } => {
                self.for_loop(e, *start, *end, *downto, *body);
                self.zero
            }
            ExprKind::While { cond, body } => {
                self.while_loop(e, *cond, *body);
                self.zero
            }
            ExprKind::Index { array, index } => self.load(e, *array, *index, dst),
            ExprKind::IndexSet { array, index, value } => {
                self.store(e, *array, *index, *value);
                self.zero
            }
            ExprKind::Field { record, field } => self.field(e, *record, &field.name, dst),
            ExprKind::FieldSet { record, field, value } => {
                self.field_set(e, *record, &field.name, *value);
                self.zero
            }
            ExprKind::Record(fields) => self.record(e, fields, dst),
            ExprKind::Superstep { body, .. } => {
                self.superstep(e, *body);
                self.zero
            }
            ExprKind::Return(value) => {
                self.return_from(e, *value);
                self.zero
            }
            ExprKind::Break => {
                self.leave_loop(e, true);
                self.zero
            }
            ExprKind::Continue => {
                self.leave_loop(e, false);
                self.zero
            }
            ExprKind::ArrayLit(_) => {
                self.trap_message("an array literal outside a constant".into(), e);
                self.zero
            }
            // The type checker makes every tuple a record literal: none is left to run.
            ExprKind::Tuple(_) | ExprKind::Error => {
                self.trap_message("a syntax error".into(), e);
                self.zero
            }
            // Walked by `value_to`.
            ExprKind::Seq(..)
            | ExprKind::Let { .. }
            | ExprKind::LetArray { .. }
            | ExprKind::Annot { .. }
            | ExprKind::Pragma { .. } => self.value_to(e, dst),
        }
    }

    /// `bits` in `dst` (or its register of the constant pool).
    pub fn constant(&mut self, e: ExprId, bits: u64, dst: Option<Reg>) -> Reg {
        if let Some(&r) = self.pool.get(&bits) {
            return self.deliver(e, r, 1, dst);
        }
        let dst = dst.unwrap_or_else(|| self.alloc(1));
        self.emit(Instr::Const { dst, bits }, e);
        dst
    }

    fn int_literal(&mut self, e: ExprId, value: u64, dst: Option<Reg>) -> Reg {
        let bits = super::layout::int_literal_bits(value, self.layout.ty(e));
        self.constant(e, bits, dst)
    }

    /// Moves `words` words into `dst` if given; returns where the value is.
    pub fn deliver(&mut self, e: ExprId, src: Reg, words: u32, dst: Option<Reg>) -> Reg {
        match dst {
            Some(d) if d != src && words > 0 => {
                let instr =
                    if words == 1 { Instr::Move { dst: d, src } } else { Instr::MoveN { dst: d, src, n: words } };
                self.emit(instr, e);
                d
            }
            Some(d) if words > 0 => d,
            _ => src,
        }
    }

    /// A variable, constant or builtin named without arguments.
    fn name(&mut self, e: ExprId, dst: Option<Reg>) -> Reg {
        let words = self.layout.slots_of(e);
        match self.layout.types.resolution(e) {
            Some(Resolution::Local(id)) => match self.locals.get(&id).copied() {
                Some(r) => self.deliver(e, r, words, dst),
                None if words == 0 => self.zero,
                None => {
                    self.trap_message(format!("the variable `{}` has no value", self.layout.types.local(id).name), e);
                    self.zero
                }
            },
            Some(Resolution::Constant(id)) => {
                let bits = self.layout.constant(id);
                self.constant(e, bits, dst)
            }
            Some(Resolution::Builtin(b)) => self.builtin(e, b.get(), &[], dst),
            Some(Resolution::Function(id)) => self.call_function(e, id, &[], dst),
            None => {
                // `[%global name]` that name resolution left out: the constant with that name.
                let found = match self.layout.module.expr(e) {
                    ExprKind::Global(ident) => self.layout.types.constants.iter().position(|c| c.name == ident.name),
                    _ => None,
                };
                match found {
                    Some(i) => {
                        let bits = self.layout.constant(skc_core::types::ConstantId(i as u32));
                        self.constant(e, bits, dst)
                    }
                    None => {
                        self.trap_message("an unresolved name".into(), e);
                        self.zero
                    }
                }
            }
        }
    }

    /// The operands' registers, evaluated left to right. An operand read straight from a mutable variable is
    /// copied first when a later operand may assign a variable.
    pub fn operands(&mut self, es: &[ExprId]) -> Vec<Reg> {
        let mut regs: Vec<Reg> = Vec::with_capacity(es.len());
        let mut copied = vec![false; es.len()];
        for (i, &e) in es.iter().enumerate() {
            if i > 0 && self.layout.has_assign(e) {
                for j in 0..i {
                    if !copied[j] && self.layout.borrows_mutable(es[j]) {
                        let words = self.layout.slots_of(es[j]);
                        let temp = self.alloc(words.max(1));
                        regs[j] = self.deliver(es[j], regs[j], words, Some(temp));
                        copied[j] = true;
                    }
                }
            }
            let r = self.value(e);
            regs.push(r);
        }
        regs
    }

    // --- let ---------------------------------------------------------------------------------------------

    fn bind_let(&mut self, e: ExprId, binder: &Binder, kind: LetKind, value: ExprId) {
        let local = self.layout.types.declared_local.get(&e).copied();
        let (Binder::Name(_), Some(local)) = (binder, local) else {
            self.discard(value);
            return;
        };
        let words = self.slots(self.layout.local_ty(local));
        let mark = self.mark();
        let r = self.value(value);
        let fresh = r >= mark;
        let alias_ok = kind == LetKind::Immutable && !self.layout.borrows_mutable(value);
        let reg = if fresh || alias_ok || words == 0 {
            r
        } else {
            let own = self.alloc(words);
            self.deliver(e, r, words, Some(own))
        };
        self.locals.insert(local, reg);
    }

    // --- operators -------------------------------------------------------------------------------------------

    fn unary(&mut self, e: ExprId, op: AstUnary, operand: ExprId, dst: Option<Reg>) -> Reg {
        if op == AstUnary::Deref {
            let cell = self.value(operand);
            let words = self.layout.slots_of(e);
            let dst = dst.unwrap_or_else(|| self.alloc(words.max(1)));
            let (zero, n) = (self.zero, words as u16);
            self.emit(Instr::Load { dst, arr: cell, idx: zero, idx_ty: Scalar::Int32, stride: n, offset: 0, n }, e);
            return dst;
        }
        if let Some(pair) = skc_core::vectors::packed_half_of(self.layout.ty(operand)) {
            return self.packed_half_negation(e, pair, operand, dst);
        }
        let a = self.value(operand);
        let dst = dst.unwrap_or_else(|| self.alloc(1));
        let ty = Scalar::of(self.layout.ty(operand)).unwrap_or(Scalar::Int32);
        let instr = match (op, ty) {
            (AstUnary::Not, _) => Instr::Unary { op: UnaryOp::Not, dst, a },
            (AstUnary::Neg | AstUnary::FNeg, Scalar::Float32) => Instr::Math32 { op: MathOp::Neg, dst, a },
            (AstUnary::Neg | AstUnary::FNeg, Scalar::Float64) => Instr::Math64 { op: MathOp::Neg, dst, a },
            (AstUnary::Neg | AstUnary::FNeg, half @ (Scalar::Float16 | Scalar::BFloat16)) => {
                Instr::Half { format: half.half_format().expect("a 16-bit float"), op: HalfOp::Neg, dst, a, b: a }
            }
            // 0 - a: the negation of a signed minimum overflows.
            (AstUnary::Neg | AstUnary::FNeg, int) => integer(IntOp::Sub, int, dst, self.zero, a),
            (AstUnary::Lnot, Scalar::Int64 | Scalar::UInt64) => Instr::Unary { op: UnaryOp::Lnot64, dst, a },
            (AstUnary::Lnot, _) => Instr::Unary { op: UnaryOp::Lnot32, dst, a },
            (AstUnary::Deref, _) => unreachable!("handled above"),
        };
        self.emit(instr, e);
        dst
    }

    /// `-. p` on a 16-bit pair: the scalar negation (the sign bit flipped) on each lane.
    fn packed_half_negation(
        &mut self,
        e: ExprId,
        pair: skc_core::vectors::VectorKind,
        operand: ExprId,
        dst: Option<Reg>,
    ) -> Reg {
        let format = pair.component().half_format().expect("a 16-bit pair");
        let a = self.operands(&[operand])[0];
        let dst = dst.unwrap_or_else(|| self.alloc(2));
        // Both lanes are computed before either is written: `dst` may be the operand's register.
        let temp = self.alloc(2);
        for lane in 0..2 {
            let instr = Instr::Half { format, op: HalfOp::Neg, dst: temp + lane, a: a + lane, b: a + lane };
            self.emit(instr, e);
        }
        self.deliver(e, temp, 2, Some(dst))
    }

    fn binary(&mut self, e: ExprId, op: BinaryOp, lhs: ExprId, rhs: ExprId, dst: Option<Reg>) -> Reg {
        if op.is_logical() {
            return self.short_circuit(e, op, lhs, rhs, dst);
        }
        let ty = self.layout.ty(lhs);
        if let (Type::Record(_), BinaryOp::Eq | BinaryOp::Ne) = (ty, op) {
            return self.record_equality(e, op, lhs, rhs, dst);
        }
        if let Some(pair) = skc_core::vectors::packed_half_of(ty) {
            return self.packed_half_arithmetic(e, op, pair, (lhs, rhs), dst);
        }
        let regs = self.operands(&[lhs, rhs]);
        let (a, b) = (regs[0], regs[1]);
        let dst = dst.unwrap_or_else(|| self.alloc(1));
        let scalar = Scalar::of(ty).unwrap_or(Scalar::Int32);
        let instr =
            if op.is_comparison() { comparison(op, scalar, dst, a, b) } else { arithmetic(op, scalar, dst, a, b) };
        self.emit(instr, e);
        dst
    }

    /// `+. -. *. /.` on a 16-bit pair (`float16x2`: two words): the scalar operation on each lane, as the f16x2
    /// and bf16x2 instructions (and the prelude's per-lane division) compute it.
    fn packed_half_arithmetic(
        &mut self,
        e: ExprId,
        op: BinaryOp,
        pair: skc_core::vectors::VectorKind,
        (lhs, rhs): (ExprId, ExprId),
        dst: Option<Reg>,
    ) -> Reg {
        let scalar = Scalar::of(&pair.component()).unwrap_or(Scalar::Float16);
        let regs = self.operands(&[lhs, rhs]);
        let dst = dst.unwrap_or_else(|| self.alloc(2));
        // Both lanes are computed before either is written: `dst` may be an operand's register.
        let temp = self.alloc(2);
        for lane in 0..2 {
            self.emit(arithmetic(op, scalar, temp + lane, regs[0] + lane, regs[1] + lane), e);
        }
        self.deliver(e, temp, 2, Some(dst))
    }

    /// `a && b`, `a || b`: `b` runs only when `a` does not decide.
    fn short_circuit(&mut self, e: ExprId, op: BinaryOp, lhs: ExprId, rhs: ExprId, dst: Option<Reg>) -> Reg {
        let result = self.alloc(1);
        self.value_into(lhs, result);
        let jump = if op == BinaryOp::And {
            self.emit(Instr::JumpIfNot { cond: result, to: 0 }, e)
        } else {
            self.emit(Instr::JumpIf { cond: result, to: 0 }, e)
        };
        let mark = self.mark();
        self.value_into(rhs, result);
        self.release(mark);
        let end = self.here();
        self.patch(jump, end);
        self.deliver(e, result, 1, dst)
    }

    /// `=` / `<>` on records: every word compared with its own type.
    fn record_equality(&mut self, e: ExprId, op: BinaryOp, lhs: ExprId, rhs: ExprId, dst: Option<Reg>) -> Reg {
        let leaves =
            crate::value::ValueType::of(self.layout.ty(lhs), self.layout.types).map(|t| t.leaves()).unwrap_or_default();
        let regs = self.operands(&[lhs, rhs]);
        let dst = dst.unwrap_or_else(|| self.alloc(1));
        let each = self.alloc(1);
        self.emit(Instr::Const { dst, bits: 1 }, e);
        for (i, leaf) in leaves.iter().enumerate() {
            let i = i as u32;
            self.emit(comparison(BinaryOp::Eq, *leaf, each, regs[0] + i, regs[1] + i), e);
            self.emit(Instr::U32 { op: IntOp::And, dst, a: dst, b: each }, e);
        }
        if op == BinaryOp::Ne {
            self.emit(Instr::Unary { op: UnaryOp::Not, dst, a: dst }, e);
        }
        dst
    }

    // --- records -------------------------------------------------------------------------------------------

    /// `{ f = e; ... }`: fields evaluated in source order into a new record (then moved to `dst`: a field may
    /// read the variable being assigned).
    fn record(&mut self, e: ExprId, fields: &[(skc_core::syntax::ast::Ident, ExprId)], dst: Option<Reg>) -> Reg {
        let ty = self.layout.ty(e);
        let words = self.slots(ty);
        let temp = self.alloc(words.max(1));
        for (name, value) in fields {
            let (offset, _, _) = self.field_layout(ty, &name.name);
            let mark = self.mark();
            self.value_into(*value, temp + offset);
            self.release(mark);
        }
        self.deliver(e, temp, words, dst)
    }

    /// (offset in words, words, type) of field `name` of the record type `ty`.
    pub fn field_layout(&self, ty: &Type, name: &str) -> (u32, u32, Type) {
        let types = self.layout.types;
        let Type::Record(id) = ty else { return (0, 1, Type::Error) };
        let Some(info) = types.records.get(id.0 as usize) else { return (0, 1, Type::Error) };
        let mut offset = 0;
        for (field, field_ty) in &info.fields {
            let words = self.slots(field_ty);
            if field == name {
                return (offset, words, field_ty.clone());
            }
            offset += words;
        }
        (0, 1, Type::Error)
    }

    // --- assignment ----------------------------------------------------------------------------------------

    /// `x := v`: a mutable variable's registers, or the contents of a `ref` cell.
    fn assign(&mut self, e: ExprId, value: ExprId) {
        let Some(Resolution::Local(id)) = self.layout.types.resolution(e) else {
            self.discard(value);
            return;
        };
        let info = self.layout.types.local(id);
        let Some(reg) = self.locals.get(&id).copied() else {
            self.discard(value);
            return;
        };
        match (&info.ty, info.mutability) {
            (Type::Ref(inner), _) => {
                let words = self.slots(inner) as u16;
                let v = self.value(value);
                let zero = self.zero;
                self.emit(
                    Instr::Store {
                        src: v,
                        arr: reg,
                        idx: zero,
                        idx_ty: Scalar::Int32,
                        stride: words,
                        offset: 0,
                        n: words,
                    },
                    e,
                );
            }
            (ty, Mutability::Mutable) => {
                let words = self.slots(ty);
                let mark = self.mark();
                if writes_result_last(self.layout.module.expr(value)) {
                    self.value_into(value, reg);
                } else {
                    let v = self.value(value);
                    self.deliver(e, v, words, Some(reg));
                }
                self.release(mark);
            }
            _ => self.discard(value),
        }
    }
}

/// Does compiling this expression into a destination write the destination only after reading every operand
/// (one final instruction)? Then `x := e` may target `x` directly.
fn writes_result_last(kind: &ExprKind) -> bool {
    match kind {
        ExprKind::Binary { op, .. } => !op.is_logical(),
        ExprKind::Unary { .. } | ExprKind::Int { .. } | ExprKind::Float { .. } | ExprKind::Bool(_) => true,
        ExprKind::Index { .. } | ExprKind::Var(_) | ExprKind::Call { .. } => true,
        _ => false,
    }
}

pub fn comparison(op: BinaryOp, ty: Scalar, dst: Reg, a: Reg, b: Reg) -> Instr {
    let op = match op {
        BinaryOp::Eq => CmpOp::Eq,
        BinaryOp::Ne => CmpOp::Ne,
        BinaryOp::Lt => CmpOp::Lt,
        BinaryOp::Le => CmpOp::Le,
        BinaryOp::Gt => CmpOp::Gt,
        _ => CmpOp::Ge,
    };
    if ty == Scalar::Int32 {
        Instr::CmpI32 { op, dst, a, b }
    } else {
        Instr::Cmp { ty, op, dst, a, b }
    }
}

fn arithmetic(op: BinaryOp, ty: Scalar, dst: Reg, a: Reg, b: Reg) -> Instr {
    if let Some(format) = ty.half_format() {
        // `typeck` allows only these four operators on the 16-bit floats and their pairs.
        let op = match op {
            BinaryOp::Add | BinaryOp::FAdd => HalfOp::Add,
            BinaryOp::Sub | BinaryOp::FSub => HalfOp::Sub,
            BinaryOp::Mul | BinaryOp::FMul => HalfOp::Mul,
            _ => HalfOp::Div,
        };
        return Instr::Half { format, op, dst, a, b };
    }
    if ty.is_float() {
        let op = match op {
            BinaryOp::Add | BinaryOp::FAdd => FloatOp::Add,
            BinaryOp::Sub | BinaryOp::FSub => FloatOp::Sub,
            BinaryOp::Mul | BinaryOp::FMul => FloatOp::Mul,
            BinaryOp::Div | BinaryOp::FDiv => FloatOp::Div,
            BinaryOp::Pow => FloatOp::Pow,
            _ => FloatOp::Rem,
        };
        return if ty == Scalar::Float32 { Instr::F32 { op, dst, a, b } } else { Instr::F64 { op, dst, a, b } };
    }
    let op = match op {
        BinaryOp::Add | BinaryOp::FAdd => IntOp::Add,
        BinaryOp::Sub | BinaryOp::FSub => IntOp::Sub,
        BinaryOp::Mul | BinaryOp::FMul => IntOp::Mul,
        BinaryOp::Div | BinaryOp::FDiv | BinaryOp::Pow => IntOp::Div,
        BinaryOp::Mod => IntOp::Rem,
        BinaryOp::Land => IntOp::And,
        BinaryOp::Lor => IntOp::Or,
        BinaryOp::Lxor => IntOp::Xor,
        BinaryOp::Lsl => IntOp::Shl,
        BinaryOp::Lsr => IntOp::Lsr,
        _ => IntOp::Asr,
    };
    integer(op, ty, dst, a, b)
}

/// The integer instruction of `op` for type `ty`.
pub fn integer(op: IntOp, ty: Scalar, dst: Reg, a: Reg, b: Reg) -> Instr {
    match ty {
        Scalar::Int64 => Instr::I64 { op, dst, a, b },
        Scalar::UInt64 => Instr::U64 { op, dst, a, b },
        Scalar::UInt32 | Scalar::Bool => Instr::U32 { op, dst, a, b },
        _ => Instr::I32 { op, dst, a, b },
    }
}

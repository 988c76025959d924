//! The per-expression rules: [`Checker::check_expr`] dispatches on every `ExprKind` (no wildcard arm, so a new
//! kind cannot slip past the checker) to one helper each. This file holds the dispatcher, literals, operators and
//! control flow; bindings, element and field access, and calls have their own files.

use std::sync::Arc;

use crate::diagnostic::Diagnostic;
use crate::syntax::ast::{BinaryOp, ExprId, ExprKind, FloatSuffix, IntSuffix, TypeExpr, UnaryOp};
use crate::types::{Mutability, Resolution, Type};

use super::infer::Class;
use super::report::Because;
use super::{Checker, Deferred, MAX_DEPTH};

impl<'a> Checker<'a> {
    /// Infers the type of expression `id` (recording it, and the types of its sub-expressions).
    pub(crate) fn check_expr(&mut self, id: ExprId) -> Type {
        if self.depth >= MAX_DEPTH {
            self.report_too_deep(id);
            self.set_type(id, Type::Error);
            self.mark_final_check(id);
            if let ExprKind::Assign { .. } = self.kind(id) {
                self.checked_assigns.push(id);
            }
            return Type::Error;
        }
        self.depth += 1;
        let ty = self.check_expr_kind(id);
        self.depth -= 1;
        self.set_type(id, ty.clone());
        ty
    }

    /// [`Checker::check_expr`] of an expression whose type is about to be unified with `expected`. An unsuffixed
    /// literal whose class admits `expected`, a number, takes that type at once: the fresh variable of its class
    /// that it would get would only be bound to it by that unification.
    pub(crate) fn check_expr_expecting(&mut self, id: ExprId, expected: &Type) -> Type {
        let class = match self.kind(id) {
            ExprKind::Int { suffix: None, .. } => Class::Integer,
            ExprKind::Float { suffix: None, .. } => Class::Float,
            _ => return self.check_expr(id),
        };
        let expected = self.vars.resolve_ref(expected);
        if self.depth >= MAX_DEPTH || !class.admits_number(expected) {
            return self.check_expr(id);
        }
        let ty = expected.clone();
        self.set_type(id, ty.clone());
        if let ExprKind::Float { value, .. } = self.kind(id) {
            self.mark_float_literal(id, *value);
        }
        ty
    }

    fn check_expr_kind(&mut self, id: ExprId) -> Type {
        match self.kind(id) {
            ExprKind::Int { suffix, .. } => self.check_int(*suffix),
            ExprKind::Float { suffix, value } => {
                self.mark_float_literal(id, *value);
                self.check_float(*suffix)
            }
            ExprKind::Bool(_) => Type::Bool,
            ExprKind::Str => self.check_string_literal(id),
            ExprKind::Unit => Type::Unit,
            ExprKind::Var(path) => self.check_var(id, path),
            ExprKind::Global(name) => self.check_global(id, name),
            ExprKind::Call { callee, args } => self.check_call(id, callee, args),
            ExprKind::Unary { op, operand } => self.check_unary(*op, *operand),
            ExprKind::Binary { op, lhs, rhs } => self.check_binary(*op, *lhs, *rhs),
            ExprKind::Let { binder, ty, kind, value, body } => {
                self.check_let(id, binder, ty.as_deref(), *kind, *value, *body)
            }
            ExprKind::Ref(inner) => {
                let contents = self.check_expr(*inner);
                self.apply_cell_rule(*inner, &contents, super::cells::CellRule::CellContents);
                Type::Ref(Arc::new(contents))
            }
            ExprKind::LetArray { name, elem, space, size, body } => {
                self.check_let_array(id, name, elem.as_deref(), *space, *size, *body)
            }
            ExprKind::Assign { target, value } => self.check_assign(id, target, *value),
            ExprKind::If { cond, then_branch, else_branch } => {
                let ty = self.check_if(*cond, *then_branch, *else_branch);
                if self.may_be_constant(*cond, 0) {
                    self.mark_final_check(id);
                }
                ty
            }
            ExprKind::For { var, start, end, body, .. } => self.check_for(id, var, *start, *end, *body),
            ExprKind::While { cond, body } => self.check_while(*cond, *body),
            ExprKind::Seq(..) => self.check_seq(id),
            ExprKind::Index { array, index } => self.check_index(*array, *index),
            ExprKind::IndexSet { array, index, value } => self.check_index_set(*array, *index, *value),
            ExprKind::Field { record, field } => self.check_field(*record, field),
            ExprKind::FieldSet { record, field, value } => self.check_field_set(*record, field, *value),
            ExprKind::Record(fields) => self.check_record_literal(id, fields),
            ExprKind::Tuple(components) => {
                self.mark_final_check(id);
                self.check_tuple(components)
            }
            ExprKind::ArrayLit(items) => self.check_array_literal(id, items),
            ExprKind::Superstep { body, .. } => self.check_superstep(*body),
            ExprKind::Annot { expr, ty } => self.check_annot(*expr, ty),
            ExprKind::Pragma { body, .. } => self.check_expr(*body),
            ExprKind::Return(value) => self.check_return(id, *value),
            ExprKind::Break => self.check_loop_exit(id, "break"),
            ExprKind::Continue => self.check_loop_exit(id, "continue"),
            ExprKind::Error => Type::Error,
        }
    }

    fn report_too_deep(&mut self, id: ExprId) {
        if !self.too_deep_reported {
            self.too_deep_reported = true;
            let d = Diagnostic::error("E0104", "expression nested too deeply")
                .primary(self.span(id), format!("more than {MAX_DEPTH} levels of nesting here"));
            self.diagnostics.push(d);
        }
    }

    fn check_int(&mut self, suffix: Option<IntSuffix>) -> Type {
        match suffix {
            None => self.vars.fresh(Class::Integer),
            Some(IntSuffix::L32) => Type::Int32,
            Some(IntSuffix::L64) => Type::Int64,
            Some(IntSuffix::U32) => Type::UInt32,
            Some(IntSuffix::U64) => Type::UInt64,
        }
    }

    fn check_float(&mut self, suffix: Option<FloatSuffix>) -> Type {
        match suffix {
            None => self.vars.fresh(Class::Float),
            Some(FloatSuffix::F32) => Type::Float32,
            Some(FloatSuffix::F64) => Type::Float64,
            Some(FloatSuffix::F16) => Type::Float16,
        }
    }

    fn check_unary(&mut self, op: UnaryOp, operand: ExprId) -> Type {
        if op == UnaryOp::Deref {
            return self.check_deref(operand);
        }
        let found = self.check_expr(operand);
        if matches!(op, UnaryOp::Neg | UnaryOp::FNeg)
            && crate::vectors::packed_half_of(self.vars.resolve_ref(&found)).is_some()
        {
            // A 16-bit pair negates lane by lane.
            return found;
        }
        let class = match op {
            UnaryOp::Neg => Some(Class::Numeric),
            UnaryOp::FNeg => Some(Class::Float),
            UnaryOp::Lnot => Some(Class::Integer),
            UnaryOp::Not | UnaryOp::Deref => None,
        };
        if class.is_some_and(|class| class.admits_number(self.vars.resolve_ref(&found))) {
            // A number of the class already: a fresh variable of the class would only be bound to it.
            return found;
        }
        let expected = match op {
            UnaryOp::Neg => self.vars.fresh(Class::Numeric),
            UnaryOp::FNeg => self.vars.fresh(Class::Float),
            UnaryOp::Lnot => self.vars.fresh(Class::Integer),
            UnaryOp::Not | UnaryOp::Deref => Type::Bool,
        };
        if self.expect_type(operand, &found, &expected) {
            found
        } else {
            Type::Error
        }
    }

    /// `!r`: the content of a `ref` cell. A `mut` variable is read without `!`.
    fn check_deref(&mut self, operand: ExprId) -> Type {
        let found = self.check_expr(operand);
        if let Some(Resolution::Local(local)) = self.info.resolution(operand) {
            let mutable = self.local_info(local).is_some_and(|l| l.mutability == Mutability::Mutable);
            if mutable && !matches!(self.vars.resolve_ref(&found), Type::Ref(_)) {
                let text = self.snippet(operand).to_string();
                let why = Because::help(format!("`{text}` is a `mut` variable: read it as `{text}`, without `!`"));
                let cell = Type::Ref(Arc::new(found.clone()));
                self.expect_type_because(operand, &found, &cell, why);
                return found;
            }
        }
        // Already a cell: its content, as a fresh variable unified with the cell's type would become.
        if let Type::Ref(content) = self.vars.resolve_ref(&found) {
            return Type::clone(content);
        }
        let inner = self.vars.fresh(Class::Any);
        if self.expect_type(operand, &found, &Type::Ref(Arc::new(inner.clone()))) {
            inner
        } else {
            Type::Error
        }
    }

    fn check_binary(&mut self, op: BinaryOp, lhs: ExprId, rhs: ExprId) -> Type {
        use BinaryOp::*;
        let left = self.check_expr(lhs);
        // The right operand is demanded to have the left's type when that is a number the operator takes (the
        // operand type below is then the left's): a literal on the right takes it at once.
        let right = match binary_operand_class(op) {
            Some(class) if class.admits_number(self.vars.resolve_ref(&left)) => self.check_expr_expecting(rhs, &left),
            _ => self.check_expr(rhs),
        };
        if matches!(op, Add | Sub | Mul | Div | FAdd | FSub | FMul | FDiv) {
            if let Some(ty) = self.packed_half_operands((lhs, &left), (rhs, &right)) {
                return ty;
            }
        }
        match op {
            Add | Sub | Mul | Div => self.check_arithmetic(op, Class::Numeric, (lhs, left), (rhs, right)),
            FAdd | FSub | FMul | FDiv => self.check_arithmetic(op, Class::Float, (lhs, left), (rhs, right)),
            Pow => {
                let operand = self.check_arithmetic(op, Class::Float, (lhs, left), (rhs, right));
                let what = super::half::HalfUse::Power { operand: operand.clone() };
                self.defer_half_check(lhs, what);
                operand
            }
            Mod | Land | Lor | Lxor => self.check_arithmetic(op, Class::Integer, (lhs, left), (rhs, right)),
            Lsl | Lsr | Asr => self.check_shift((lhs, left), (rhs, right)),
            Eq | Ne | Lt | Le | Gt | Ge => self.check_comparison((lhs, left), (rhs, right)),
            And | Or => {
                self.expect_type(lhs, &left, &Type::Bool);
                self.expect_type(rhs, &right, &Type::Bool);
                Type::Bool
            }
        }
    }

    /// `a +. b`, `a -. b`, `a *. b`, `a /. b` on a 16-bit pair (`float16x2`, `bfloat16x2`: the one vector type with
    /// arithmetic, lane by lane): when either operand is known to be one, the other must be the same pair, which
    /// is the result. `None` (the scalar rules apply) otherwise.
    pub(crate) fn packed_half_operands(&mut self, lhs: (ExprId, &Type), rhs: (ExprId, &Type)) -> Option<Type> {
        let (known, other) = if crate::vectors::packed_half_of(self.vars.resolve_ref(lhs.1)).is_some() {
            (lhs, rhs)
        } else if crate::vectors::packed_half_of(self.vars.resolve_ref(rhs.1)).is_some() {
            (rhs, lhs)
        } else {
            return None;
        };
        let why = Because::describing(self.span(known.0), "this is ", known.1);
        Some(if self.expect_type_because(other.0, other.1, known.1, why) { known.1.clone() } else { Type::Error })
    }

    /// Both operands of the same type, of class `class`; the result has that type.
    fn check_arithmetic(&mut self, op: BinaryOp, class: Class, lhs: (ExprId, Type), rhs: (ExprId, Type)) -> Type {
        let known = self.vars.resolve_ref(&lhs.1);
        let operand = if class.admits_number(known) {
            // The left operand is a number of the class already: it is the operand type (a fresh variable of the
            // class would only be bound to it).
            known.clone()
        } else {
            let operand = self.vars.fresh(class);
            if !self.expect_type_because(lhs.0, &lhs.1, &operand, self.operator_hint(op, &lhs.1)) {
                // One report per operator: the right operand is not checked against a left one already wrong.
                self.vars.unify(&operand, &rhs.1);
                return Type::Error;
            }
            operand
        };
        let why = Because::describing(self.span(lhs.0), "this is ", &lhs.1);
        if self.expect_type_because(rhs.0, &rhs.1, &operand, why) {
            operand
        } else {
            Type::Error
        }
    }

    /// For `+.` on integers or `mod` on floats: the operator that fits.
    fn operator_hint(&self, op: BinaryOp, operand: &Type) -> Because<'static> {
        let operand = self.vars.resolve(operand);
        let integer_version = match op {
            BinaryOp::FAdd => "+",
            BinaryOp::FSub => "-",
            BinaryOp::FMul => "*",
            BinaryOp::FDiv => "/",
            _ => "",
        };
        if !integer_version.is_empty() && (operand.is_integer() || self.vars.class_of(&operand) == Some(Class::Integer))
        {
            return Because::help(format!("`{}` is for floats; use `{integer_version}` for integers", op.symbol()));
        }
        if op == BinaryOp::Mod && operand.is_float() {
            return Because::help("`mod` is for integers; use `fmod` for floats");
        }
        Because::default()
    }

    fn check_shift(&mut self, lhs: (ExprId, Type), rhs: (ExprId, Type)) -> Type {
        let value = self.vars.fresh(Class::Integer);
        let amount = self.vars.fresh(Class::Integer);
        let left_ok = self.expect_type(lhs.0, &lhs.1, &value);
        self.expect_type(rhs.0, &rhs.1, &amount);
        if left_ok {
            value
        } else {
            Type::Error
        }
    }

    fn check_comparison(&mut self, lhs: (ExprId, Type), rhs: (ExprId, Type)) -> Type {
        let why = Because::describing(self.span(lhs.0), "this is ", &lhs.1);
        self.expect_type_because(rhs.0, &rhs.1, &lhs.1, why);
        self.deferred.push(Deferred::Comparable { ty: lhs.1, expr: lhs.0 });
        Type::Bool
    }

    fn check_if(&mut self, cond: ExprId, then_branch: ExprId, else_branch: Option<ExprId>) -> Type {
        let cond_ty = self.check_expr(cond);
        self.expect_type(cond, &cond_ty, &Type::Bool);
        let then_ty = self.check_expr(then_branch);
        let Some(else_branch) = else_branch else {
            let tail = self.tail(then_branch);
            let why = Because::help("an `if` without `else` has type unit; add an `else` branch to produce a value");
            self.expect_type_because(tail, &then_ty, &Type::Unit, why);
            return Type::Unit;
        };
        let else_ty = self.check_expr_expecting(else_branch, &then_ty);
        let why = Because::describing(self.span(then_branch), "the `then` branch is ", &then_ty);
        let tail = self.tail(else_branch);
        if self.expect_type_because(tail, &else_ty, &then_ty, why) {
            then_ty
        } else {
            Type::Error
        }
    }

    fn check_while(&mut self, cond: ExprId, body: ExprId) -> Type {
        let cond_ty = self.check_expr(cond);
        self.expect_type(cond, &cond_ty, &Type::Bool);
        self.check_loop_body(body);
        Type::Unit
    }

    /// A loop body: checked one loop deeper, and must be unit.
    pub(crate) fn check_loop_body(&mut self, body: ExprId) {
        self.ctx.loop_depth += 1;
        let ty = self.check_expr(body);
        self.ctx.loop_depth -= 1;
        let tail = self.tail(body);
        self.expect_type_because(tail, &ty, &Type::Unit, Because::help("a loop body must have type unit"));
    }

    /// `e1; e2; ...`: walked as a list (a long sequence is a deep chain of `Seq` nodes, nested either way); every
    /// value but the last is discarded.
    fn check_seq(&mut self, id: ExprId) -> Type {
        // The statements and `Seq` nodes go on stacks shared by all sequences: a nested sequence (checked below)
        // pushes above this one's part and truncates back, so a sequence allocates nothing of its own.
        let (statements_base, nodes_base) = (self.seq_statements.len(), self.seq_nodes.len());
        self.flatten_seq(id);
        let statement_count = self.seq_statements.len() - statements_base;
        if statement_count == 0 {
            self.seq_nodes.truncate(nodes_base);
            return Type::Error;
        }
        for index in statements_base..statements_base + statement_count - 1 {
            let statement = self.seq_statements[index];
            self.check_expr(statement);
            self.deferred.push(Deferred::Discarded { expr: statement });
        }
        let ty = self.check_expr(self.seq_statements[statements_base + statement_count - 1]);
        self.seq_statements.truncate(statements_base);
        // Children were pushed after their parents: in reverse, each node's `rest` is typed before it.
        while self.seq_nodes.len() > nodes_base {
            let (node, rest) = self.seq_nodes.pop().expect("above the base");
            let rest_ty = self.type_of(rest);
            self.set_type(node, rest_ty);
        }
        ty
    }

    /// Pushes the statements of the sequence `id` (in order) and its `Seq` nodes (parents first).
    fn flatten_seq(&mut self, id: ExprId) {
        let mut stack = std::mem::take(&mut self.seq_pending);
        stack.push(id);
        while let Some(node) = stack.pop() {
            match self.kind(node) {
                ExprKind::Seq(first, rest) => {
                    self.seq_nodes.push((node, *rest));
                    stack.extend([*rest, *first]);
                }
                _ => self.seq_statements.push(node),
            }
        }
        self.seq_pending = stack;
    }

    fn check_superstep(&mut self, body: ExprId) -> Type {
        let ty = self.check_expr(body);
        let tail = self.tail(body);
        self.expect_type_because(tail, &ty, &Type::Unit, Because::help("a superstep's body must have type unit"));
        Type::Unit
    }

    fn check_annot(&mut self, expr: ExprId, ty: &TypeExpr) -> Type {
        let found = self.check_expr(expr);
        let expected = self.lower_type(ty);
        let why = Because::of(ty.span(), "expected because of this annotation");
        if self.expect_type_because(expr, &found, &expected, why) {
            expected
        } else {
            Type::Error
        }
    }

    fn check_return(&mut self, id: ExprId, value: Option<ExprId>) -> Type {
        let expected = self.ctx.return_type.clone();
        let why = match (self.ctx.return_annotation, self.ctx.owner) {
            (Some(span), _) => Because::of(span, "return type declared here"),
            (None, super::Owner::Kernel(_)) => Because::help("a kernel returns no value: write `return`"),
            (None, _) => Because::default(),
        };
        match value {
            Some(value) => {
                let found = self.check_expr(value);
                self.expect_type_because(value, &found, &expected, why);
            }
            None => {
                self.expect_type_because(id, &Type::Unit, &expected, why);
            }
        }
        self.vars.fresh(Class::Any)
    }

    fn check_loop_exit(&mut self, id: ExprId, keyword: &str) -> Type {
        if self.ctx.loop_depth == 0 {
            let d = Diagnostic::error("E0213", format!("`{keyword}` outside a loop"))
                .primary(self.span(id), format!("`{keyword}` must be inside a `for` or `while` loop"));
            self.diagnostics.push(d);
        }
        self.vars.fresh(Class::Any)
    }
}

/// The class of the operands of `op` when both must have one type of that class (arithmetic; comparisons, which
/// take any number or bool: `Numeric` for the numbers); `None` for the others (shifts, `&&`, `||`).
fn binary_operand_class(op: BinaryOp) -> Option<Class> {
    use BinaryOp::*;
    match op {
        Add | Sub | Mul | Div | Eq | Ne | Lt | Le | Gt | Ge => Some(Class::Numeric),
        FAdd | FSub | FMul | FDiv | Pow => Some(Class::Float),
        Mod | Land | Lor | Lxor => Some(Class::Integer),
        Lsl | Lsr | Asr | And | Or => None,
    }
}

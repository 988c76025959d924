//! Lowering of expressions that have a C expression form: literals, names, operators, calls through the builtin
//! templates, indexing, fields, record literals, and `if` as `c ? a : b` when both branches are pure. Anything
//! else (a `let`, a loop, an `if` with effects) is lowered as statements by `stmt.rs`, and its value, if any, is
//! read back from a temporary.

use crate::builtins::Builtin;
use crate::codegen::ctypes::{bool_literal, float_literal, int_literal};
use crate::codegen::facts::is_unit_arg;
use crate::codegen::lower::{prec, Access, CExpr, Dest, FnLowering, Operand};
use crate::syntax::ast::{BinaryOp, ExprId, ExprKind, UnaryOp};
use crate::types::{Mutability, Resolution, Type};

impl FnLowering<'_, '_> {
    /// Lowers `e` for its value; statements it needs are emitted first.
    pub fn lower_expr(&mut self, e: ExprId) -> CExpr {
        if let Some(Some(taken)) = self.g.folded_if(e) {
            // The condition is a compile-time constant: only the branch that runs is emitted.
            return self.lower_expr(taken);
        }
        let kind = self.g.kind(e).clone();
        match kind {
            ExprKind::Int { value, .. } => self.int_literal(e, value),
            ExprKind::Float { value, .. } => CExpr::new(float_literal(value, self.g.ty(e)), literal_prec(value)),
            ExprKind::Bool(b) => CExpr::constant(bool_literal(b)),
            ExprKind::Unit => CExpr::unit(),
            // Only `printf`'s format, which `lower_printf` reads from the source (the checker rejects any other).
            ExprKind::Str => CExpr::unit(),
            ExprKind::Var(_) | ExprKind::Global(_) => self.lower_name(e),
            ExprKind::Unary { op, operand } => self.lower_unary(e, op, operand),
            ExprKind::Binary { op, lhs, rhs } => self.lower_binary(e, op, lhs, rhs),
            ExprKind::Call { ref args, .. } => self.lower_call(e, args),
            ExprKind::Index { array, index } => {
                let ops = self.lower_operands(&[Operand::value(array), Operand::value(index)]);
                CExpr::new(format!("{}[{}]", ops[0].at(prec::PRIMARY), ops[1].text), prec::PRIMARY)
                    .with_parts(&[&ops[0], &ops[1]])
                    .reading(Access::MEMORY)
            }
            ExprKind::Field { record, ref field } => {
                let r = self.lower_expr(record);
                let name = self.g.field_name(self.g.ty(record), &field.name);
                // A field of a local record changes when the record's fields are assigned.
                let local = matches!(self.g.kind(self.g.strip_annot(record)), ExprKind::Var(_));
                let reads = if local { Access::LOCALS } else { Access::NONE };
                CExpr::new(format!("{}.{}", r.at(prec::PRIMARY), name), prec::PRIMARY).with_parts(&[&r]).reading(reads)
            }
            ExprKind::Record(ref fields) => self.lower_record(e, fields),
            ExprKind::Annot { expr, .. } | ExprKind::Ref(expr) => self.lower_expr(expr),
            ExprKind::If { cond, then_branch, else_branch: Some(else_branch) }
                if self.g.is_conditional_expression(e) =>
            {
                self.lower_conditional(e, cond, then_branch, else_branch)
            }
            ExprKind::Let { body, .. } | ExprKind::LetArray { body, .. } => {
                self.lower_binding(e);
                self.lower_expr(body)
            }
            ExprKind::Seq(first, rest) => {
                self.lower_to(first, Dest::Discard);
                self.lower_expr(rest)
            }
            ExprKind::ArrayLit(ref items) => {
                let ops: Vec<Operand> = items.iter().map(|i| Operand::value(*i)).collect();
                let values = self.lower_initializer_operands(&ops);
                let texts: Vec<String> = values.iter().map(|v| v.text.clone()).collect();
                let parts: Vec<&CExpr> = values.iter().collect();
                CExpr::new(format!("{{{}}}", texts.join(", ")), prec::PRIMARY).with_parts(&parts)
            }
            ExprKind::Return(_) | ExprKind::Break | ExprKind::Continue => {
                self.lower_to(e, Dest::Discard);
                // Never reached; a value of the right type keeps the C well-formed.
                CExpr::constant(self.g.ctypes.default_value(self.g.ty(e)))
            }
            // The type checker rewrites every tuple into a record; none reaches here.
            ExprKind::Tuple(_) | ExprKind::Error => {
                CExpr::constant(format!("{} /* error */", self.g.ctypes.default_value(self.g.ty(e))))
            }
            // No wildcard: a new kind of expression must be placed on one side or the other.
            ExprKind::If { .. }
            | ExprKind::For { .. }
            | ExprKind::While { .. }
            | ExprKind::Superstep { .. }
            | ExprKind::Pragma { .. }
            | ExprKind::Assign { .. }
            | ExprKind::IndexSet { .. }
            | ExprKind::FieldSet { .. } => self.lower_as_statements(e),
        }
    }

    /// An expression with no C expression form: statements, with the value in a temporary.
    fn lower_as_statements(&mut self, e: ExprId) -> CExpr {
        if matches!(self.g.ty(e), Type::Unit) {
            self.lower_to(e, Dest::Discard);
            return CExpr::unit();
        }
        let temp = self.declare_temporary(e);
        self.lower_to(e, Dest::Assign(temp.clone()));
        CExpr::constant(temp)
    }

    fn int_literal(&self, e: ExprId, bits: u64) -> CExpr {
        let hex = self.g.span(e).map(|s| self.g.sources_snippet(s)).map(|t| t.starts_with("0x") || t.starts_with("0X"));
        let text = int_literal(bits, self.g.ty(e), hex.unwrap_or(false));
        let p = if text.starts_with('-') { prec::UNARY } else { prec::PRIMARY };
        CExpr::new(text, p)
    }

    /// A variable, a constant, or a builtin used without arguments (`thread_idx_x`, `Gpu.block_barrier`).
    fn lower_name(&mut self, e: ExprId) -> CExpr {
        match self.g.types.resolution(e) {
            Some(Resolution::Local(id)) => {
                let ty = self.local_type(id);
                if ty == Type::Unit {
                    return CExpr::unit();
                }
                let name = self.local_name(id);
                // The identity of an array or of a `ref` cell never changes; the value of a mutable scalar can.
                let stable =
                    matches!(ty, Type::Vector(_) | Type::Array { .. } | Type::ConstArray { .. } | Type::Ref(_))
                        || self.local_mutability(id) == Mutability::Immutable;
                let reads = if stable { Access::NONE } else { Access::LOCALS };
                CExpr::new(name, prec::PRIMARY).reading(reads)
            }
            Some(Resolution::Constant(id)) => {
                self.g.used_constants.borrow_mut().insert(id.0);
                let name = self.g.constant_names.get(id.0 as usize).cloned().unwrap_or_else(|| "0".into());
                CExpr::constant(name)
            }
            Some(Resolution::Builtin(b)) => self.apply_builtin(e, b.get(), Vec::new()),
            Some(Resolution::Function(id)) => {
                // A function named without arguments: a call with none.
                let name = self.g.function_names.get(id.0 as usize).cloned().unwrap_or_else(|| "f".into());
                self.finish_call(e, function_call(format!("{name}()"), false))
            }
            None => {
                // `[%global name]` not in the resolution table: find the constant by name.
                if let ExprKind::Global(ident) = self.g.kind(e) {
                    if let Some(i) = self.g.types.constants.iter().position(|c| c.name == ident.name) {
                        self.g.used_constants.borrow_mut().insert(i as u32);
                        return CExpr::constant(self.g.constant_names[i].clone());
                    }
                }
                CExpr::constant(format!("{} /* unresolved */", self.g.ctypes.default_value(self.g.ty(e))))
            }
        }
    }

    fn lower_unary(&mut self, e: ExprId, op: UnaryOp, operand: ExprId) -> CExpr {
        if matches!(op, UnaryOp::Neg | UnaryOp::FNeg) {
            if let Some(literal) = self.negated_literal(e, operand) {
                return literal;
            }
        }
        let value = self.lower_expr(operand);
        let symbol = match op {
            UnaryOp::Neg | UnaryOp::FNeg => "-",
            UnaryOp::Not => "!",
            UnaryOp::Lnot => "~",
            UnaryOp::Deref => return value.reading(Access::LOCALS),
        };
        let mut inner = value.at(prec::UNARY);
        if symbol == "-" && inner.starts_with('-') {
            inner = format!("({inner})");
        }
        CExpr::new(format!("{symbol}{inner}"), prec::UNARY).with_parts(&[&value])
    }

    /// `-5`, `-2.5` as one literal (and `-2147483648` without overflow).
    fn negated_literal(&self, e: ExprId, operand: ExprId) -> Option<CExpr> {
        let operand = self.g.strip_annot(operand);
        let ty = self.g.ty(e);
        let text = match *self.g.kind(operand) {
            ExprKind::Int { value, .. } => match ty {
                Type::Int64 | Type::UInt64 => int_literal((value as i64).wrapping_neg() as u64, ty, false),
                Type::Float32 | Type::Float64 | Type::Float16 | Type::BFloat16 => float_literal(-(value as f64), ty),
                _ => int_literal((value as u32 as i32).wrapping_neg() as u32 as u64, ty, false),
            },
            ExprKind::Float { value, .. } => float_literal(-value, ty),
            _ => return None,
        };
        let p = if text.starts_with('-') { prec::UNARY } else { prec::PRIMARY };
        Some(CExpr::new(text, p))
    }

    fn lower_binary(&mut self, e: ExprId, op: BinaryOp, lhs: ExprId, rhs: ExprId) -> CExpr {
        if matches!(op, BinaryOp::And | BinaryOp::Or) {
            return self.lower_short_circuit(e, op, lhs, rhs);
        }
        let ops = self.lower_operands(&[Operand::value(lhs), Operand::value(rhs)]);
        let (l, r) = (&ops[0], &ops[1]);
        let ty = self.g.ty(lhs).clone();
        let f = if ty == Type::Float32 { "f" } else { "" };
        use BinaryOp::*;
        let (symbol, level) = match op {
            Add | FAdd => ("+", prec::ADD),
            Sub | FSub => ("-", prec::ADD),
            Mul | FMul => ("*", prec::MUL),
            Div | FDiv => ("/", prec::MUL),
            Mod if ty.is_float() => return call_text(format!("fmod{f}"), &[l, r]),
            Mod => ("%", prec::MUL),
            Pow => return call_text(format!("pow{f}"), &[l, r]),
            Land => ("&", prec::BAND),
            Lor => ("|", prec::BOR),
            Lxor => ("^", prec::BXOR),
            Lsl => ("<<", prec::SHIFT),
            Lsr | Asr => return self.shift_right(op, &ty, l, r),
            Eq => ("==", prec::EQ),
            Ne => ("!=", prec::EQ),
            Lt => ("<", prec::REL),
            Le => ("<=", prec::REL),
            Gt => (">", prec::REL),
            Ge => (">=", prec::REL),
            // Handled above (they short-circuit).
            And => ("&&", prec::LAND),
            Or => ("||", prec::LOR),
        };
        binary_text(symbol, level, l, r)
    }

    /// `lsr` shifts the bits as unsigned, `asr` as signed, whatever the operand's own signedness.
    fn shift_right(&self, op: BinaryOp, ty: &Type, l: &CExpr, r: &CExpr) -> CExpr {
        let (signed, unsigned) = match ty {
            Type::Int64 | Type::UInt64 => ("long long", "unsigned long long"),
            _ => ("int", "unsigned int"),
        };
        let is_unsigned = matches!(ty, Type::UInt32 | Type::UInt64);
        let plain = binary_text(">>", prec::SHIFT, l, r);
        match (op, is_unsigned) {
            (BinaryOp::Lsr, true) | (BinaryOp::Asr, false) => plain,
            (BinaryOp::Lsr, false) => {
                let text = format!("({signed})(({unsigned}){} >> {})", l.at(prec::UNARY), r.at(prec::SHIFT + 1));
                CExpr::new(text, prec::UNARY).with_parts(&[l, r])
            }
            _ => {
                let text = format!("({unsigned})(({signed}){} >> {})", l.at(prec::UNARY), r.at(prec::SHIFT + 1));
                CExpr::new(text, prec::UNARY).with_parts(&[l, r])
            }
        }
    }

    /// `a && b`, `a || b`: `b` runs only when needed, as in `.sk`. If `b` needs statements, they go under an `if`.
    fn lower_short_circuit(&mut self, e: ExprId, op: BinaryOp, lhs: ExprId, rhs: ExprId) -> CExpr {
        let (symbol, level) = if op == BinaryOp::And { ("&&", prec::LAND) } else { ("||", prec::LOR) };
        let l = self.lower_expr(lhs);
        let (stmts, r) = self.in_block(|s| s.lower_expr(rhs));
        if stmts.is_empty() {
            return binary_text(symbol, level, &l, &r);
        }
        let temp = self.names.temporary("tmp");
        self.emit_simple(format!("bool {temp} = {};", l.text), self.g.span(e));
        let mut body = stmts;
        body.push(crate::codegen::output::Stmt::simple(format!("{temp} = {};", r.text), self.g.span(rhs)));
        let cond = if op == BinaryOp::And { temp.clone() } else { format!("!{temp}") };
        self.emit_kind(
            crate::codegen::output::StmtKind::If { cond, then_body: body, else_body: Vec::new() },
            self.g.span(rhs),
        );
        CExpr::constant(temp)
    }

    /// `c ? a : b` for an `if` whose parts are pure and simple (so nothing is evaluated that `.sk` would not).
    fn lower_conditional(&mut self, e: ExprId, cond: ExprId, then_branch: ExprId, else_branch: ExprId) -> CExpr {
        let c = self.lower_expr(cond);
        let (then_stmts, a) = self.in_block(|s| s.lower_expr(then_branch));
        let (else_stmts, b) = self.in_block(|s| s.lower_expr(else_branch));
        if then_stmts.is_empty() && else_stmts.is_empty() {
            // A conditional inside a conditional reads better parenthesised.
            let text = format!("{} ? {} : {}", c.at(prec::LOR), a.at(prec::COND + 1), b.at(prec::COND + 1));
            return CExpr::new(text, prec::COND).with_parts(&[&c, &a, &b]);
        }
        // Not expected for pure simple branches; keep the statements under their branch.
        let temp = self.declare_temporary(e);
        let mut then_body = then_stmts;
        then_body.push(crate::codegen::output::Stmt::simple(format!("{temp} = {};", a.text), self.g.span(then_branch)));
        let mut else_body = else_stmts;
        else_body.push(crate::codegen::output::Stmt::simple(format!("{temp} = {};", b.text), self.g.span(else_branch)));
        self.emit_kind(crate::codegen::output::StmtKind::If { cond: c.text, then_body, else_body }, self.g.span(e));
        CExpr::constant(temp)
    }

    fn lower_record(&mut self, e: ExprId, fields: &[(crate::syntax::ast::Ident, ExprId)]) -> CExpr {
        let ops: Vec<Operand> = fields.iter().map(|(_, v)| Operand::value(*v)).collect();
        let values = self.lower_initializer_operands(&ops);
        let ty = self.g.ty(e).clone();
        let record_name = self.c_type(&ty);
        let declared: Vec<String> = match &ty {
            Type::Record(id) => {
                self.g.types.records.get(id.0 as usize).map(|r| r.fields.iter().map(|f| f.0.clone()).collect())
            }
            _ => None,
        }
        .unwrap_or_else(|| fields.iter().map(|(f, _)| f.name.to_string()).collect());
        // C++ aggregate initialisation takes the fields in declaration order.
        let mut texts = Vec::new();
        for name in &declared {
            match fields.iter().position(|(f, _)| &f.name == name) {
                Some(i) => texts.push(values[i].text.clone()),
                None => texts.push("{}".into()),
            }
        }
        let parts: Vec<&CExpr> = values.iter().collect();
        CExpr::new(format!("{record_name}{{{}}}", texts.join(", ")), prec::PRIMARY).with_parts(&parts)
    }

    // --- calls ----------------------------------------------------------------------------------------------

    fn lower_call(&mut self, e: ExprId, args: &[ExprId]) -> CExpr {
        match self.g.types.resolution(e) {
            Some(Resolution::Builtin(b)) if b.params.first() == Some(&crate::builtins::SigType::Kernel) => {
                self.lower_launch(e, args)
            }
            Some(Resolution::Builtin(b)) if b.params.first() == Some(&crate::builtins::SigType::Format) => {
                self.lower_printf(e, args)
            }
            Some(Resolution::Builtin(b)) => {
                let values = self.lower_call_args(args, None);
                self.apply_builtin(e, b.get(), values)
            }
            Some(Resolution::Function(id)) => {
                let name = self.g.function_names.get(id.0 as usize).cloned().unwrap_or_else(|| "f".into());
                let values = self.lower_call_args(args, Some(id));
                let texts: Vec<String> = values.iter().filter(|v| !v.is_unit()).map(|v| v.text.clone()).collect();
                let parts: Vec<&CExpr> = values.iter().collect();
                let call =
                    function_call(format!("{name}({})", texts.join(", ")), self.has_ref_params(id)).with_parts(&parts);
                self.finish_call(e, call)
            }
            _ => {
                // Not resolved (cannot happen in a well-typed program): evaluate the arguments for their effects.
                for a in args {
                    self.lower_to(*a, Dest::Discard);
                }
                CExpr::constant(format!("{} /* unresolved call */", self.g.ctypes.default_value(self.g.ty(e))))
            }
        }
    }

    /// `launch k grid block shared_bytes args...`: a fire-and-forget device-side launch, then this thread's launch
    /// status. The comma expression keeps the launch and the status read together, in this order.
    fn lower_launch(&mut self, e: ExprId, args: &[ExprId]) -> CExpr {
        let kernel = self.g.types.launches.get(&e).copied();
        let symbol = kernel.and_then(|k| self.g.kernel_names.get(k).cloned());
        let (Some(symbol), Some(launch_args)) = (symbol, args.get(1..)) else {
            return CExpr::constant("0 /* unresolved launch */".to_string());
        };
        let values = self.lower_call_args(launch_args, None);
        let [grid, block, shared, rest @ ..] = values.as_slice() else {
            return CExpr::constant("0 /* unresolved launch */".to_string());
        };
        let passed: Vec<&str> = rest.iter().filter(|v| !v.is_unit()).map(|v| v.text.as_str()).collect();
        let text = format!(
            "({symbol}<<<dim3({}), dim3({}), (size_t)({}), cudaStreamFireAndForget>>>({}), skc_launch_status())",
            grid.text,
            block.text,
            shared.text,
            passed.join(", ")
        );
        let parts: Vec<&CExpr> = values.iter().collect();
        let call = CExpr::new(text, prec::PRIMARY)
            .with_parts(&parts)
            .reading(Access::MEMORY)
            .writing(Access::MEMORY)
            .syncing(true);
        self.finish_call(e, call)
    }

    fn has_ref_params(&self, f: crate::types::FunctionId) -> bool {
        self.g
            .types
            .functions
            .get(f.0 as usize)
            .map(|info| info.params.iter().any(|p| matches!(self.local_type(*p), Type::Ref(_))))
            == Some(true)
    }

    /// A call whose result is unit is a statement; otherwise the call is the value.
    fn finish_call(&mut self, e: ExprId, call: CExpr) -> CExpr {
        if matches!(self.g.ty(e), Type::Unit) {
            self.emit_simple(format!("{};", call.text), self.g.span(e));
            return CExpr::unit();
        }
        call
    }

    /// Lowers the arguments of a call in order; `()` arguments are evaluated but not passed. An argument bound to a
    /// `ref` parameter must be a variable: anything else is first stored in a temporary.
    pub(super) fn lower_call_args(
        &mut self,
        args: &[ExprId],
        function: Option<crate::types::FunctionId>,
    ) -> Vec<CExpr> {
        let passed: Vec<ExprId> =
            args.iter().copied().filter(|a| !is_unit_arg(self.g.module, self.g.types, *a)).collect();
        for a in args.iter().filter(|a| is_unit_arg(self.g.module, self.g.types, **a)) {
            if !matches!(self.g.kind(*a), crate::syntax::ast::ExprKind::Unit) {
                self.lower_to(*a, Dest::Discard);
            }
        }
        let ops: Vec<Operand> = passed.iter().map(|a| Operand::value(*a)).collect();
        let mut values = self.lower_operands(&ops);
        if let Some(f) = function.and_then(|f| self.g.types.functions.get(f.0 as usize)) {
            let params: Vec<_> = f.params.iter().map(|p| self.local_type(*p)).filter(|t| *t != Type::Unit).collect();
            for (i, param) in params.iter().enumerate() {
                let is_variable =
                    passed.get(i).map(|a| matches!(self.g.kind(self.g.strip_annot(*a)), ExprKind::Var(_)));
                if let (Type::Ref(contents), Some(false)) = (param, is_variable) {
                    let name = self.names.temporary("cell");
                    let inner = self.c_type(contents);
                    self.emit_simple(format!("{inner} {name} = {};", values[i].text), self.g.span(passed[i]));
                    values[i] = CExpr::constant(name);
                }
            }
        }
        values
    }

    /// The block's size along an axis as a literal, where the kernel's launch contract fixes it (`[@block_size N]`:
    /// `(N, 1, 1)`; `[@block_1d]`: 1 along y and z), so ptxas sees it; the launchers check the contract.
    fn block_dim_constant(&self, b: &Builtin) -> Option<String> {
        match b.name {
            "block_dim_x" => self.launch.block_size.map(|n| n.to_string()),
            "block_dim_y" | "block_dim_z" if self.launch.is_one_dimensional() => Some("1".into()),
            _ => None,
        }
    }

    /// A builtin's CUDA template with the arguments substituted. Effectful builtins with unit results become
    /// statements here.
    pub fn apply_builtin(&mut self, e: ExprId, b: &'static Builtin, args: Vec<CExpr>) -> CExpr {
        if let Some(literal) = self.block_dim_constant(b) {
            return CExpr::new(literal, prec::PRIMARY);
        }
        if let Some(constant) = b.value {
            // A named float constant: its value as a literal of the use's type (`(1.0f / 0.0f)`, `3.4028235e38f`).
            let ty = self.g.ty(e);
            let value = constant.value(*ty == Type::Float32);
            return CExpr::new(float_literal(value, ty), literal_prec(value));
        }
        if b.name == "ignore" && args.iter().all(|a| a.text.is_empty()) {
            // `ignore ()`, or of a unit-valued call already emitted as a statement: nothing is left to discard.
            return CExpr::unit();
        }
        let mut args = args;
        if b.name == "select" && args.len() == 3 {
            // Both operands are evaluated (a predicated select, not a branch): anything with an effect runs first,
            // in every lane, before the choice.
            if let ExprKind::Call { args: sources, .. } = self.g.kind(e).clone() {
                for (arg, source) in args.iter_mut().zip(sources).skip(1) {
                    if arg.is_effectful() {
                        *arg = self.spill(arg.clone(), source);
                    }
                }
            }
        }
        let mut cuda = integer_template(b.cuda, self.g.ty(e).is_integer());
        if let Some(template) = self.is_half_call(e).then(|| half_template(b.name)).flatten() {
            cuda = std::borrow::Cow::Borrowed(template);
        }
        let atomic_helper = cuda.starts_with("skc_atomic_").then(|| cuda.split(['(', '<']).next().unwrap_or(""));
        if let Some(helper) = cuda.strip_suffix("({0})").or_else(|| cuda.strip_suffix("({0}, {1})")).or(atomic_helper) {
            if helper.starts_with("skc_") {
                let ty = self.c_type(self.g.ty(e));
                self.g.helper_overloads.borrow_mut().insert((helper.to_string(), ty));
            }
        }
        if self.is_half_call(e) {
            args = self.half_call_args(e, b, args);
        }
        if let Some(intrinsic) = self.float_to_integer_intrinsic(e, b) {
            // A float to an integer: CUDA's conversion intrinsic (`cvt.rzi`, saturating, NaN to 0), where the C
            // cast would be undefined for a value out of the type's range.
            let text = format!("{intrinsic}({})", args.first().map(|a| a.text.as_str()).unwrap_or("0"));
            return CExpr::new(text, prec::PRIMARY).with_parts(&args.iter().collect::<Vec<_>>());
        }
        let float = args_float_kind(self, e);
        let template = match cuda.contains("{location}") {
            true => cuda.replace("{location}", &self.source_location(e)),
            false => cuda.to_string(),
        };
        let text = substitute(&template, &args, float);
        let parts: Vec<&CExpr> = args.iter().collect();
        let (reads, writes, sync) = builtin_effects(b);
        let value = CExpr::new(text, prec::PRIMARY).with_parts(&parts).reading(reads).writing(writes).syncing(sync);
        if matches!(self.g.ty(e), Type::Unit) || b.ret == crate::builtins::SigType::Unit {
            self.emit_simple(format!("{};", value.text), self.g.span(e));
            return CExpr::unit();
        }
        value
    }
}

impl FnLowering<'_, '_> {
    /// `"x > 0", "k.sk", 12` for `assert (x > 0)` on line 12 of k.sk: the first argument's source text, the file
    /// and the line of the call, as C literals (with no braces, which the template substitution would read).
    fn source_location(&self, e: ExprId) -> String {
        let literal = |text: &str| {
            let escaped: String = text
                .chars()
                .map(|c| match c {
                    '\\' => "\\\\".to_string(),
                    '"' => "\\\"".to_string(),
                    '{' => "(".to_string(),
                    '}' => ")".to_string(),
                    c if c.is_control() => " ".to_string(),
                    c => c.to_string(),
                })
                .collect();
            format!("\"{escaped}\"")
        };
        let condition = match self.g.kind(e) {
            ExprKind::Call { args, .. } => args.first().and_then(|a| self.g.span(*a)),
            _ => None,
        };
        let condition = condition.map(|span| self.g.sources_snippet(span)).unwrap_or("");
        let file = self.g.span(e).and_then(|span| Some((span, self.g.sources.files().nth(span.file.0 as usize)?.1)));
        let (file, line) = match file {
            Some((span, file)) => (file.name.as_str(), file.line_col(span.start as usize).0 + 1),
            None => ("", 0),
        };
        format!("{}, {}, {line}", literal(condition), literal(file))
    }

    /// Does a builtin call take or give a 16-bit float or pair (`typeck::half` allows only conversions, `abs`,
    /// `min`, `max`, `fma`, `select`, `atomic_add` and the pairs' construction, loads and stores there)?
    fn is_half_call(&self, e: ExprId) -> bool {
        let ExprKind::Call { args, .. } = self.g.kind(e) else { return false };
        let half = |ty: &Type| ty.is_half() || crate::vectors::packed_half_of(ty).is_some();
        half(self.g.ty(e)) || args.iter().any(|a| half(self.g.ty(*a)))
    }

    /// A conversion from a 16-bit float converts its float32 value (exact): `((double)((float)(h)))`,
    /// `__float2int_rz((float)(h))`, `skc_to_bfloat16((float)(h))`. Other builtins take the struct itself.
    fn half_call_args(&self, e: ExprId, b: &Builtin, args: Vec<CExpr>) -> Vec<CExpr> {
        let ExprKind::Call { args: sources, .. } = self.g.kind(e) else { return args };
        // `float32`'s own template is the cast to float.
        let conversion = matches!(b.name, "float64" | "int32" | "int64" | "uint32" | "uint64" | "float16" | "bfloat16");
        if !conversion {
            return args;
        }
        args.into_iter()
            .zip(sources.iter())
            .map(|(arg, source)| {
                if self.g.ty(*source).is_half() {
                    let text = format!("(float)({})", arg.text);
                    CExpr::new(text, prec::UNARY).with_parts(&[&arg])
                } else {
                    arg
                }
            })
            .collect()
    }

    /// For `int32 x`, `uint64 x`... of a float `x`: the CUDA intrinsic that converts it (`__float2int_rz`).
    fn float_to_integer_intrinsic(&self, e: ExprId, b: &Builtin) -> Option<&'static str> {
        let ExprKind::Call { args, .. } = self.g.kind(e) else { return None };
        let from = self.g.ty(*args.first()?);
        if !matches!(b.name, "int32" | "int64" | "uint32" | "uint64") || !from.is_float() {
            return None;
        }
        Some(float_to_integer_intrinsic(from, self.g.ty(e)))
    }
}

/// The prelude's overload of a float builtin for the 16-bit floats, where its own template names a float32 or
/// float64 function (`fmaf`).
fn half_template(name: &str) -> Option<&'static str> {
    Some(match name {
        "fma" => "skc_fma({0}, {1}, {2})",
        "fabs" => "skc_abs({0})",
        "fmin" => "skc_min({0}, {1})",
        "fmax" => "skc_max({0}, {1})",
        _ => return None,
    })
}

/// CUDA's round-toward-zero conversion from a float type to an integer type.
pub fn float_to_integer_intrinsic(from: &Type, to: &Type) -> &'static str {
    match (from, to) {
        // A 16-bit float is converted from its float32 value (exact).
        (Type::Float32 | Type::Float16 | Type::BFloat16, Type::UInt32) => "__float2uint_rz",
        (Type::Float32 | Type::Float16 | Type::BFloat16, Type::Int64) => "__float2ll_rz",
        (Type::Float32 | Type::Float16 | Type::BFloat16, Type::UInt64) => "__float2ull_rz",
        (Type::Float32 | Type::Float16 | Type::BFloat16, _) => "__float2int_rz",
        (_, Type::UInt32) => "__double2uint_rz",
        (_, Type::Int64) => "__double2ll_rz",
        (_, Type::UInt64) => "__double2ull_rz",
        _ => "__double2int_rz",
    }
}

impl crate::codegen::lower::Globals<'_> {
    pub fn sources_snippet(&self, span: crate::source::Span) -> &str {
        if (span.file.0 as usize) < self.sources.files().count() {
            self.sources.snippet(span)
        } else {
            ""
        }
    }
}

fn literal_prec(value: f64) -> u8 {
    if value.is_sign_negative() && !value.is_nan() {
        prec::UNARY
    } else {
        prec::PRIMARY
    }
}

/// A builtin's template with `{i}` expanded: `skc_i` for a call on integers (`{i}pow{f}` -> `skc_ipow{f}`, whose
/// `{f}` then expands to nothing), nothing otherwise.
fn integer_template(template: &'static str, integer: bool) -> std::borrow::Cow<'static, str> {
    match (template.contains("{i}"), integer) {
        (false, _) => std::borrow::Cow::Borrowed(template),
        (true, true) => std::borrow::Cow::Owned(template.replace("{i}", "skc_i").replace("{f}", "")),
        (true, false) => std::borrow::Cow::Owned(template.replace("{i}", "")),
    }
}

/// Is the float type of a builtin call float32 (`{f}` = `f`)? Taken from the first float argument, else the result.
fn args_float_kind(l: &FnLowering, e: ExprId) -> bool {
    if let ExprKind::Call { args, .. } = l.g.kind(e) {
        if let Some(t) = args.iter().map(|a| l.g.ty(*a)).find(|t| t.is_float()) {
            return *t == Type::Float32;
        }
    }
    *l.g.ty(e) == Type::Float32
}

/// Substitutes `{0}`.. (parenthesised as the context needs), `{mask}` and `{f}` into a CUDA template.
pub fn substitute(template: &str, args: &[CExpr], float32: bool) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| open + c) else { break };
        out.push_str(&rest[..open]);
        let key = &rest[open + 1..close];
        let before = rest[..open].trim_end().chars().last().or_else(|| out.trim_end().chars().last());
        let after = rest[close + 1..].trim_start().chars().next();
        match key {
            "mask" => out.push_str("skc_warp_mask()"),
            "f" => {
                if float32 {
                    out.push('f')
                }
            }
            _ => match key.parse::<usize>().ok().and_then(|i| args.get(i)) {
                Some(arg) => out.push_str(&arg.at(context_prec(before, after))),
                None => out.push('0'),
            },
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// How tightly an argument must bind where it is substituted.
fn context_prec(before: Option<char>, after: Option<char>) -> u8 {
    match (before, after) {
        (Some('(' | ',' | '['), Some(')' | ',' | ']')) => prec::ASSIGN,
        (_, Some('?')) => prec::LOR,
        (Some('?'), _) => prec::ASSIGN,
        (Some(':'), _) => prec::COND,
        _ => prec::PRIMARY,
    }
}

/// `l op r` for a left-associative operator at `level`, parenthesising operands as C needs (and, for
/// readability, any shift, bitwise, comparison or logical operand of a different operator).
pub fn binary_text(symbol: &str, level: u8, l: &CExpr, r: &CExpr) -> CExpr {
    // `&&` and `||` are associative: `a && (b && c)` is `a && b && c`, evaluated in the same order.
    let right_min = if matches!(level, prec::LAND | prec::LOR) { level } else { level + 1 };
    let text = format!("{} {symbol} {}", operand_text(l, level, level), operand_text(r, level, right_min));
    CExpr::new(text, level).with_parts(&[l, r])
}

/// An operand of a binary operator at `level`: parenthesised if C needs it, and also, for the reader, a shift or
/// bitwise operand of another operator, `&&` under `||`, and a comparison compared again.
fn operand_text(x: &CExpr, level: u8, min: u8) -> String {
    let bitwise = |p: u8| matches!(p, prec::SHIFT | prec::BAND | prec::BXOR | prec::BOR);
    let comparison = |p: u8| matches!(p, prec::REL | prec::EQ);
    let arithmetic = |p: u8| matches!(p, prec::ADD | prec::MUL);
    let confusing = x.prec != level
        && (bitwise(x.prec)
            || (arithmetic(x.prec) && bitwise(level))
            || (x.prec == prec::LAND && level == prec::LOR)
            || (comparison(x.prec) && (comparison(level) || bitwise(level))));
    if confusing {
        format!("({})", x.text)
    } else {
        x.at(min)
    }
}

fn call_text(name: String, args: &[&CExpr]) -> CExpr {
    let texts: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
    CExpr::new(format!("{name}({})", texts.join(", ")), prec::PRIMARY).with_parts(args)
}

/// A call of a device function: it may read and write memory, and contain barriers or collectives; it reaches the
/// caller's locals only through `ref` parameters.
fn function_call(text: String, has_ref_params: bool) -> CExpr {
    let access = if has_ref_params { Access::ALL } else { Access::MEMORY };
    CExpr::new(text, prec::PRIMARY).reading(access).writing(access).syncing(true)
}

/// What a builtin call reads, writes, and whether it synchronises (beyond its arguments).
fn builtin_effects(b: &Builtin) -> (Access, Access, bool) {
    use crate::builtins::{Requirement, SigType};
    if b.requirement == Requirement::BlockConverged || b.orders_memory {
        // A barrier orders memory between the threads of the block; ordered atomics, named barriers and launches
        // order memory too (or reach it through a child kernel): each stays in place, between the accesses around it.
        return (Access::MEMORY, Access::MEMORY, true);
    }
    let mut reads = Access::NONE;
    let mut writes = Access::NONE;
    if b.writes_first_arg {
        reads = Access::MEMORY;
        writes = Access::MEMORY;
    }
    if b.ret == SigType::Unit {
        // Fences, sleeps, warp barriers: ordered with memory accesses.
        writes = Access::MEMORY;
    }
    // Collectives, and `activemask` (whose value depends on which lanes run it), must stay where they are.
    let sync = b.requirement == Requirement::WarpConverged
        || b.result == crate::builtins::ResultUniformity::WarpUniformUnderControl;
    (reads, writes, sync)
}

//! Lowering of expressions as statements: `let` (declarations, shared and local arrays), sequences, `if` with
//! and without a value, `for` (inclusive, end bound evaluated once, never overflowing the counter: see
//! [`FnLowering::lower_for`]), `while`, `break`, `continue`, `return`,
//! assignments, supersteps (`{ body } __syncthreads();`) and `pragma`. A value that a construct produces is
//! delivered to a [`Dest`]: discarded, assigned to a variable, or returned.

use crate::codegen::lower::{prec, CExpr, Dest, FnLowering, Operand};
use crate::codegen::output::{Stmt, StmtKind};
use crate::source::Span;
use crate::syntax::ast::{BinaryOp, Binder, ExprId, ExprKind, MemorySpace};
use crate::types::{ArraySize, LocalId, Resolution, Type};

/// Loops with constant bounds and at most this many iterations are unrolled fully (`#pragma unroll`); longer
/// ones are left to NVRTC's own unrolling, which does not blow up code size.
const MAX_FULL_UNROLL: i64 = 64;

/// The shape of an assignment target `x`, `a.(i)`, `r.f`, `a.(i).f`, over lowered operands.
enum Place {
    Operand(usize),
    Index(usize, usize),
    Field(Box<Place>, String),
}

impl Place {
    fn render(&self, values: &[CExpr]) -> String {
        match self {
            Place::Operand(i) => values[*i].at(prec::PRIMARY),
            Place::Index(a, i) => format!("{}[{}]", values[*a].at(prec::PRIMARY), values[*i].text),
            Place::Field(inner, field) => format!("{}.{field}", inner.render(values)),
        }
    }
}

impl FnLowering<'_, '_> {
    /// Lowers `e` as statements, delivering its value to `dest`.
    pub fn lower_to(&mut self, e: ExprId, dest: Dest) {
        let kind = self.g.kind(e).clone();
        match kind {
            ExprKind::Seq(first, rest) => {
                self.lower_to(first, Dest::Discard);
                self.lower_to(rest, dest);
            }
            ExprKind::Let { body, .. } | ExprKind::LetArray { body, .. } => {
                self.lower_binding(e);
                self.lower_to(body, dest);
            }
            ExprKind::If { cond, then_branch, else_branch } => {
                if let Some(taken) = self.g.folded_if(e) {
                    // The condition is a compile-time constant: the branch that runs, in the enclosing block (its
                    // names stay taken there), and nothing of the other.
                    if let Some(branch) = taken {
                        let branch_dest = if else_branch.is_some() { dest } else { Dest::Discard };
                        self.lower_to(branch, branch_dest);
                    }
                } else if !matches!(dest, Dest::Discard) && self.g.is_conditional_expression(e) {
                    let value = self.lower_expr(e);
                    self.deliver(e, value, dest);
                } else {
                    self.lower_if(e, cond, then_branch, else_branch, dest);
                }
            }
            ExprKind::For { start, end, downto, body, .. } => self.lower_for(e, start, end, downto, body),
            ExprKind::While { cond, body } => self.lower_while(e, cond, body),
            ExprKind::Superstep { name, divergent, body } => {
                self.lower_superstep(e, name.map(|n| n.name.to_string()), divergent, body)
            }
            ExprKind::Pragma { options, body } => self.lower_pragma(e, &options, body, dest),
            ExprKind::Annot { expr, .. } => self.lower_to(expr, dest),
            ExprKind::Return(value) => self.lower_return(e, value),
            ExprKind::Break => self.emit_simple("break;", self.g.span(e)),
            ExprKind::Continue => {
                if let Some(Some(exit)) = self.loop_exits.last().cloned() {
                    self.emit_simple(exit, self.g.span(e));
                }
                self.emit_simple("continue;", self.g.span(e))
            }
            ExprKind::Assign { value, .. } => self.lower_assign(e, value),
            ExprKind::IndexSet { array, index, value } if self.is_unread_array(array) => {
                // Nothing reads this array: only the effects of the index and the value remain.
                self.lower_to(index, Dest::Discard);
                self.lower_to(value, Dest::Discard);
            }
            ExprKind::FieldSet { record, value, .. } if self.stores_into_unread_array(record) => {
                let mut ops = Vec::new();
                self.place_of(record, &mut ops);
                for op in ops.into_iter().skip(1) {
                    self.lower_to(op.expr, Dest::Discard);
                }
                self.lower_to(value, Dest::Discard);
            }
            ExprKind::IndexSet { array, index, value } => {
                let ops = self.lower_operands(&[Operand::value(array), Operand::value(index), Operand::value(value)]);
                if !ops[2].is_unit() {
                    let text = format!("{}[{}] = {};", ops[0].at(prec::PRIMARY), ops[1].text, ops[2].text);
                    self.emit_simple(text, self.g.span(e));
                }
            }
            ExprKind::FieldSet { record, field, value } => {
                let mut ops = Vec::new();
                let target = self.place_of(record, &mut ops);
                let target = Place::Field(Box::new(target), self.g.field_name(self.g.ty(record), &field.name));
                ops.push(Operand::value(value));
                let values = self.lower_operands(&ops);
                let text = format!("{} = {};", target.render(&values), values[values.len() - 1].text);
                self.emit_simple(text, self.g.span(e));
            }
            // Expressions with a C expression form (no wildcard: `lower_expr` sends statement kinds back here).
            ExprKind::Int { .. }
            | ExprKind::Float { .. }
            | ExprKind::Bool(_)
            | ExprKind::Str
            | ExprKind::Unit
            | ExprKind::Var(_)
            | ExprKind::Global(_)
            | ExprKind::Call { .. }
            | ExprKind::Unary { .. }
            | ExprKind::Binary { .. }
            | ExprKind::Ref(_)
            | ExprKind::Index { .. }
            | ExprKind::Field { .. }
            | ExprKind::Record(_)
            | ExprKind::ArrayLit(_)
            | ExprKind::Tuple(_)
            | ExprKind::Error => {
                let value = self.lower_expr(e);
                self.deliver(e, value, dest);
            }
        }
    }

    /// Sends a value to its destination.
    fn deliver(&mut self, e: ExprId, value: CExpr, dest: Dest) {
        let origin = self.g.span(e);
        match dest {
            _ if value.is_unit() => {}
            Dest::Assign(target) => self.emit_simple(format!("{target} = {};", value.text), origin),
            Dest::Return if self.returns_value => self.emit_simple(format!("return {};", value.text), origin),
            Dest::Discard | Dest::Return => {
                if value.is_effectful() {
                    self.emit_simple(format!("{};", value.text), origin);
                } else {
                    // Evaluated for nothing, as written; `(void)` keeps the names it reads used.
                    self.emit_simple(format!("(void){};", value.at(prec::UNARY)), origin);
                }
            }
        }
    }

    fn is_unread_array(&self, array: ExprId) -> bool {
        crate::codegen::facts::is_unread_array(self.g.module, self.g.types, self.g.facts, array)
    }

    /// Is `record` an element of an array nothing reads, or a field of one (`a.(i).f <- v`, `a.(i).f.g <- v`)?
    fn stores_into_unread_array(&self, record: ExprId) -> bool {
        crate::codegen::facts::place_array(self.g.module, self.g.strip_annot(record))
            .is_some_and(|array| self.is_unread_array(array))
    }

    fn place_of(&self, e: ExprId, ops: &mut Vec<Operand>) -> Place {
        let e = self.g.strip_annot(e);
        match self.g.kind(e) {
            ExprKind::Var(_) => {
                ops.push(Operand::place(e));
                Place::Operand(ops.len() - 1)
            }
            ExprKind::Index { array, index } => {
                ops.push(Operand::value(*array));
                ops.push(Operand::value(*index));
                Place::Index(ops.len() - 2, ops.len() - 1)
            }
            ExprKind::Field { record, field } => {
                let inner = self.place_of(*record, ops);
                Place::Field(Box::new(inner), self.g.field_name(self.g.ty(*record), &field.name))
            }
            _ => {
                ops.push(Operand::value(e));
                Place::Operand(ops.len() - 1)
            }
        }
    }

    // --- bindings -------------------------------------------------------------------------------------------

    /// Declares what a `Let` or `LetArray` binds (the body is lowered by the caller).
    pub fn lower_binding(&mut self, e: ExprId) {
        match self.g.kind(e).clone() {
            ExprKind::Let { binder, value, .. } => self.lower_let(e, &binder, value),
            ExprKind::LetArray { space, .. } => self.lower_let_array(e, space),
            _ => {}
        }
    }

    fn lower_let(&mut self, e: ExprId, binder: &Binder, value: ExprId) {
        let local = self.g.types.declared_local.get(&e).copied();
        let id = match (binder, local) {
            (Binder::Name(_), Some(id)) if self.g.facts.is_used(id) && self.local_type(id) != Type::Unit => id,
            _ => {
                // `_`, `()`, or a variable never read: only the effects of the value remain.
                self.lower_to(value, Dest::Discard);
                return;
            }
        };
        let origin = self.g.span(e);
        let decl_type = self.let_declared_type(id, value);
        if self.g.is_simple_tail(value) || decl_type.ends_with('&') {
            let v = self.lower_expr(value);
            let name = self.declare_local(id);
            self.emit_simple(format!("{decl_type} {name} = {};", v.text), origin);
        } else {
            let name = self.declare_local(id);
            self.emit_simple(format!("{decl_type} {name};"), origin);
            self.lower_to(value, Dest::Assign(name));
        }
    }

    /// The C type a `let` declares: the contents of a new `ref` cell, a reference for an alias of a cell, a
    /// pointer to const for an array nobody writes through.
    fn let_declared_type(&self, id: LocalId, value: ExprId) -> String {
        let mut ty = self.local_type(id);
        if matches!(ty, Type::Var(_) | Type::Error) {
            ty = self.g.ty(value).clone();
        }
        match &ty {
            Type::Ref(inner) => {
                // `let y = x in` names the cell `x`; anything else (`ref e`, `f (); ref e`) makes a new one.
                let alias = crate::codegen::facts::is_cell_alias(self.g.module, value);
                if !alias {
                    self.c_type(inner)
                } else {
                    format!("{}&", self.c_type(inner))
                }
            }
            Type::Vector(elem) | Type::Array { elem, .. } if self.g.facts.written.contains(&id) => {
                format!("{}*", self.c_type(elem))
            }
            Type::Vector(elem) | Type::Array { elem, .. } | Type::ConstArray { elem, .. } => {
                format!("const {}*", self.c_type(elem))
            }
            other => self.c_type(other),
        }
    }

    fn lower_let_array(&mut self, e: ExprId, space: MemorySpace) {
        let Some(id) = self.g.types.declared_local.get(&e).copied() else { return };
        if !self.g.facts.is_used(id) {
            return;
        }
        let origin = self.g.span(e);
        let ty = self.local_type(id);
        let (elem, space, size) = match &ty {
            Type::Array { space, size, .. } => (self.c_type(ty.innermost_element()), *space, *size),
            _ => ("int".to_string(), space, ArraySize::Const(1)),
        };
        let name = self.declare_local(id);
        let length = format!("{}{}", self.array_length(e, size), self.row_lengths(e, &ty));
        // Vector loads and stores of this array (`load_float4`) need its base aligned to the vector's size.
        let align = match self.g.facts.vector_alignment.get(&id) {
            Some(n) => format!("__align__({n}) "),
            None => String::new(),
        };
        match (space, size) {
            (MemorySpace::Shared, ArraySize::Const(_)) => {
                self.emit_simple(format!("__shared__ {align}{elem} {name}[{length};"), origin)
            }
            (MemorySpace::Shared, ArraySize::Dynamic) => {
                self.emit_simple("extern __shared__ __align__(16) unsigned char skc_dynamic_shared[];", origin);
                self.emit_simple(format!("{elem}* {name} = reinterpret_cast<{elem}*>(skc_dynamic_shared);"), origin);
            }
            (MemorySpace::Local, ArraySize::Const(_)) => {
                self.emit_simple(format!("{align}{elem} {name}[{length};"), origin)
            }
            (MemorySpace::Local, ArraySize::Dynamic) => {
                self.emit_simple(format!("{elem} {name}[1]; // a local array needs a constant size"), origin)
            }
        }
    }

    /// The sizes after the first of a multi-dimensional array, each in brackets as `array_length` writes it
    /// (`][TILE + 1]`, closing the first size's bracket); `]` for a one-dimensional array. The emitted C declares a
    /// C array of rows, `float t[16][17]`, so `t.(y).(x)` is `t[y][x]`, with C's own row-major arithmetic.
    fn row_lengths(&mut self, e: ExprId, ty: &Type) -> String {
        let mut out = String::from("]");
        let ExprKind::LetArray { elem: Some(written), .. } = self.g.kind(e) else { return out };
        let mut written: &crate::syntax::ast::TypeExpr = written;
        let mut sizes = Vec::new();
        while let crate::syntax::ast::TypeExpr::Sized { elem, size, .. } = written {
            sizes.push(*size);
            written = elem;
        }
        let dimensions = ty.array_dimensions();
        for (size, dimension) in sizes.into_iter().zip(dimensions.into_iter().skip(1)) {
            out.push_str(&format!("[{}]", self.size_text(size, dimension)));
        }
        out
    }

    /// The length of a fixed-size array as written (`tile * (tile + 1)`) when it is made of literals and
    /// constants, else the value the type checker computed.
    fn array_length(&mut self, e: ExprId, size: ArraySize) -> String {
        let n = match size {
            ArraySize::Const(n) => n.max(1),
            ArraySize::Dynamic => 1,
        };
        let ExprKind::LetArray { size: size_expr, .. } = *self.g.kind(e) else { return n.to_string() };
        self.size_text(size_expr, size)
    }

    /// A constant size as written when it is made of literals and constants, else its value.
    fn size_text(&mut self, size_expr: ExprId, size: ArraySize) -> String {
        let n = match size {
            ArraySize::Const(n) => n.max(1),
            ArraySize::Dynamic => 1,
        };
        let is_literal = matches!(self.g.kind(self.g.strip_annot(size_expr)), ExprKind::Int { .. });
        if n > 0 && !is_literal && self.g.is_compile_time_constant(size_expr) && self.g.ty(size_expr).is_integer() {
            return self.lower_expr(size_expr).text;
        }
        n.to_string()
    }

    // --- control flow ---------------------------------------------------------------------------------------

    fn lower_if(&mut self, e: ExprId, cond: ExprId, then_branch: ExprId, else_branch: Option<ExprId>, dest: Dest) {
        let c = self.lower_expr(cond);
        let branch_dest = if else_branch.is_some() { dest } else { Dest::Discard };
        let (then_body, ()) = self.in_block(|s| s.lower_to(then_branch, branch_dest.clone()));
        let else_body = match else_branch {
            Some(b) => self.in_block(|s| s.lower_to(b, branch_dest)).0,
            None => Vec::new(),
        };
        self.emit_kind(StmtKind::If { cond: c.text, then_body, else_body }, self.g.span(e));
    }

    /// `for i = a to b`: `i` takes every value from `a` to `b` (`b - a + 1` iterations, none when `a > b`), so the
    /// counter must not step past `b` after the last one: that would overflow when `b` is the type's largest value
    /// (signed overflow is undefined in C; the unsigned counter wraps and the loop never ends). Where `b` may be
    /// that value, the last iteration leaves by `if (i == i_end) break;` before `i++` (and a `continue` does the
    /// same first); where it cannot (a constant below it, or `n - c` in a signed type, whose overflow the language
    /// leaves undefined), the loop is the plain `for (...; i <= i_end; i++)`. `downto` mirrors this at the
    /// smallest value (`downto 0u` included).
    fn lower_for(&mut self, e: ExprId, start: ExprId, end: ExprId, downto: bool, body: ExprId) {
        let origin = self.g.span(e);
        let local = self.g.types.declared_local.get(&e).copied();
        let ty = local.map(|id| self.local_type(id)).unwrap_or(Type::Int32);
        let pragma = self.pending_pragma.take().or_else(|| self.full_unroll(start, end, downto, &ty));
        let bounds = self.lower_operands(&[Operand::value(start), Operand::value(end)]);
        let c_ty = if ty.is_integer() { self.c_type(&ty) } else { "int".to_string() };
        // OCaml evaluates the end bound once, before the first iteration.
        let end_text = if bounds[1].is_stable() {
            bounds[1].text.clone()
        } else {
            let source = local.and_then(|id| self.g.local_info(id)).map(|l| l.name.clone()).unwrap_or("i".into());
            let end_name = self.names.fresh(&format!("{source}_end"));
            self.emit_simple(format!("{c_ty} {end_name} = {};", bounds[1].text), self.g.span(end));
            end_name
        };
        // The loop variable lives in the `for` statement: its name is free again after the loop.
        self.names.enter_scope();
        let name = match local {
            Some(id) => self.declare_local(id),
            None => self.names.fresh("i"),
        };
        let (compare, step) = if downto { (">=", "--") } else { ("<=", "++") };
        let end_operand = CExpr::new(end_text, if bounds[1].is_stable() { bounds[1].prec } else { prec::PRIMARY });
        let extreme = self.bound_is_extreme(end, downto, &ty);
        // Where the end bound is the extreme value itself, `i <= i_end` always holds (and NVRTC warns about an
        // unsigned `i >= 0u`): the break alone ends the loop.
        let condition = match extreme {
            Some(true) => String::new(),
            _ => format!(" {name} {compare} {}", end_operand.at(prec::REL + 1)),
        };
        let header = format!("for ({c_ty} {name} = {};{condition}; {name}{step})", bounds[0].text);
        let exit = (extreme != Some(false)).then(|| format!("if ({name} == {}) break;", end_operand.at(prec::EQ + 1)));
        self.loop_exits.push(exit.clone());
        let (mut body, ()) = self.in_block(|s| s.lower_to(body, Dest::Discard));
        self.loop_exits.pop();
        let ends_in_jump = matches!(body.last().map(|s| &s.kind), Some(StmtKind::Simple(text))
            if text.starts_with("return") || text == "break;" || text == "continue;");
        if let (Some(exit), false) = (exit, ends_in_jump) {
            body.push(Stmt::simple(exit, origin));
        }
        self.names.leave_scope();
        self.emit_kind(StmtKind::Loop { pragma, header, body }, origin);
    }

    /// Is a loop's end bound the extreme value of its type (the largest for `to`, the smallest for `downto`)?
    /// `Some(true)` or `Some(false)` when known, `None` when it may be.
    fn bound_is_extreme(&self, end: ExprId, downto: bool, ty: &Type) -> Option<bool> {
        let (min, max): (i128, i128) = match ty {
            Type::Int64 => (i64::MIN.into(), i64::MAX.into()),
            Type::UInt32 => (0, u32::MAX.into()),
            Type::UInt64 => (0, u64::MAX.into()),
            _ => (i32::MIN.into(), i32::MAX.into()),
        };
        let extreme = if downto { min } else { max };
        if let Some(value) = self.constant_in_type(end, ty) {
            return Some(value == extreme);
        }
        // `n - c` (`n + c` for downto) with a positive constant `c`, in a signed type: below the largest value
        // unless it overflowed, which the language leaves undefined.
        let signed = matches!(ty, Type::Int32 | Type::Int64);
        let away = if downto { BinaryOp::Add } else { BinaryOp::Sub };
        match self.g.kind(self.g.strip_annot(end)) {
            ExprKind::Binary { op, rhs, .. } if signed && *op == away => {
                self.g.constant_int(*rhs).filter(|c| *c > 0).map(|_| false)
            }
            _ => None,
        }
    }

    /// The value of a compile-time constant integer read as type `ty` (`4294967295u` is not -1).
    fn constant_in_type(&self, e: ExprId, ty: &Type) -> Option<i128> {
        if !self.g.is_compile_time_constant(e) {
            return None;
        }
        let bits = self.g.constant_int(e)?;
        Some(match ty {
            Type::Int64 => bits.into(),
            Type::UInt32 => (bits as u32).into(),
            Type::UInt64 => (bits as u64).into(),
            _ => (bits as i32).into(),
        })
    }

    /// `#pragma unroll` for a loop with compile-time constant bounds and at most `MAX_FULL_UNROLL` iterations.
    fn full_unroll(&self, start: ExprId, end: ExprId, downto: bool, ty: &Type) -> Option<String> {
        let (first, last) = (self.constant_in_type(start, ty)?, self.constant_in_type(end, ty)?);
        let trips = if downto { first - last } else { last - first } + 1;
        (1..=i128::from(MAX_FULL_UNROLL)).contains(&trips).then(|| "#pragma unroll".to_string())
    }

    fn lower_while(&mut self, e: ExprId, cond: ExprId, body: ExprId) {
        let pragma = self.pending_pragma.take();
        // The condition is lowered inside the body's block: if it needs statements, they run at the start of
        // every iteration (`while (true) { ...; if (!c) break; body }`).
        let (body, header) = self.in_block(|s| {
            let (cond_stmts, c) = s.in_scratch(|s| s.lower_expr(cond));
            if cond_stmts.is_empty() {
                s.lower_to(body, Dest::Discard);
                return format!("while ({})", c.text);
            }
            for stmt in cond_stmts {
                s.emit(stmt);
            }
            s.emit_simple(format!("if (!{}) break;", c.at(prec::UNARY)), s.g.span(cond));
            s.lower_to(body, Dest::Discard);
            "while (true)".to_string()
        });
        self.emit_kind(StmtKind::Loop { pragma, header, body }, self.g.span(e));
    }

    fn lower_superstep(&mut self, e: ExprId, name: Option<String>, divergent: bool, body: ExprId) {
        let origin = self.g.span(e);
        let mut comment = match name {
            Some(n) => format!("superstep `{n}`"),
            None => "superstep".to_string(),
        };
        if divergent {
            comment.push_str(" (divergent)");
        }
        let (stmts, ()) = self.in_block(|s| s.lower_to(body, Dest::Discard));
        self.emit_kind(StmtKind::Block { comment: Some(comment), body: stmts }, origin);
        // The implicit barrier belongs to the end of the superstep.
        let end = origin.map(|s| Span { start: s.end.saturating_sub(1).max(s.start), ..s });
        self.emit_simple("__syncthreads();", end);
    }

    fn lower_pragma(&mut self, e: ExprId, options: &[String], body: ExprId, dest: Dest) {
        let mut pragma = None;
        for option in options {
            let words: Vec<&str> = option.split_whitespace().collect();
            match words.as_slice() {
                ["unroll"] => pragma = Some("#pragma unroll".to_string()),
                ["unroll", n] if n.parse::<u32>().is_ok() => pragma = Some(format!("#pragma unroll {n}")),
                ["nounroll"] => pragma = Some("#pragma unroll 1".to_string()),
                _ => {
                    let text = option.replace(['\n', '\r'], " ");
                    self.emit(Stmt {
                        kind: StmtKind::Comment(format!(
                            "pragma \"{text}\" ignored: skc knows \"unroll\" and \"unroll N\""
                        )),
                        origin: self.g.span(e),
                    });
                }
            }
        }
        if pragma.is_some() {
            self.pending_pragma = pragma;
        }
        self.lower_to(body, dest);
        self.pending_pragma = None;
    }

    fn lower_return(&mut self, e: ExprId, value: Option<ExprId>) {
        match value {
            Some(v) if self.returns_value => self.lower_to(v, Dest::Return),
            Some(v) => {
                self.lower_to(v, Dest::Discard);
                self.emit_simple("return;", self.g.span(e));
            }
            None => self.emit_simple("return;", self.g.span(e)),
        }
    }

    fn lower_assign(&mut self, e: ExprId, value: ExprId) {
        let Some(Resolution::Local(id)) = self.g.types.resolution(e) else {
            self.lower_to(value, Dest::Discard);
            return;
        };
        let Some(name) = self.locals.get(&id).cloned() else {
            // A variable that is never read was not declared: only the effects of the value remain.
            self.lower_to(value, Dest::Discard);
            return;
        };
        if self.g.is_simple(value) {
            let v = self.lower_expr(value);
            if !v.is_unit() {
                self.emit_simple(format!("{name} = {};", v.text), self.g.span(e));
            }
        } else {
            self.lower_to(value, Dest::Assign(name));
        }
    }
}

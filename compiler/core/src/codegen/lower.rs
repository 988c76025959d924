//! The state of lowering one function or kernel body from the `.sk` expression language to C statements, and the
//! rule that keeps evaluation order: operands are lowered left to right; when an operand needs statements (a
//! lifted `if`, a `let`), or when C would leave the order of effects unspecified (two calls in one expression),
//! the earlier operands whose value could change are first copied into temporaries. Every `.sk` expression is
//! lowered exactly once, so a barrier or a collective is never duplicated, dropped or moved across a branch.

use std::collections::HashMap;

use crate::builtins::{Builtin, Requirement, ResultUniformity, SigType};
use crate::codegen::ctypes::CTypes;
use crate::codegen::facts::ModuleFacts;
use crate::codegen::names::NameAllocator;
use crate::codegen::output::{Stmt, StmtKind};
use crate::source::{SourceMap, Span};
use crate::syntax::ast::{ExprId, ExprKind, Module};
use crate::types::{LocalId, Mutability, Resolution, Type, TypeInfo};

/// C operator precedence levels (higher binds tighter).
pub mod prec {
    pub const ASSIGN: u8 = 2;
    pub const COND: u8 = 3;
    pub const LOR: u8 = 4;
    pub const LAND: u8 = 5;
    pub const BOR: u8 = 6;
    pub const BXOR: u8 = 7;
    pub const BAND: u8 = 8;
    pub const EQ: u8 = 9;
    pub const REL: u8 = 10;
    pub const SHIFT: u8 = 11;
    pub const ADD: u8 = 12;
    pub const MUL: u8 = 13;
    pub const UNARY: u8 = 15;
    pub const PRIMARY: u8 = 16;
}

/// Mutable state an expression reads or writes: scalar locals (mutable variables, `ref` cells) or memory
/// (arrays, vectors, record fields).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Access {
    pub locals: bool,
    pub memory: bool,
}

impl Access {
    pub const NONE: Access = Access { locals: false, memory: false };
    pub const LOCALS: Access = Access { locals: true, memory: false };
    pub const MEMORY: Access = Access { locals: false, memory: true };
    pub const ALL: Access = Access { locals: true, memory: true };

    pub fn any(self) -> bool {
        self.locals || self.memory
    }
    pub fn union(self, other: Access) -> Access {
        Access { locals: self.locals || other.locals, memory: self.memory || other.memory }
    }
    pub fn meets(self, other: Access) -> bool {
        (self.locals && other.locals) || (self.memory && other.memory)
    }
}

/// A lowered expression: C text and what the sequencing rule needs to know about it.
#[derive(Clone, Debug)]
pub struct CExpr {
    pub text: String,
    pub prec: u8,
    /// Mutable state its value depends on.
    pub reads: Access,
    /// State that evaluating it changes (an atomic, an assignment inside a call).
    pub writes: Access,
    /// It is a barrier, a warp collective or a call that may contain one: never dropped or duplicated.
    pub sync: bool,
}

impl CExpr {
    /// An expression that reads no mutable state and has no effect.
    pub fn new(text: impl Into<String>, prec: u8) -> CExpr {
        CExpr { text: text.into(), prec, reads: Access::NONE, writes: Access::NONE, sync: false }
    }

    /// A literal, a constant, a temporary: primary and stable.
    pub fn constant(text: impl Into<String>) -> CExpr {
        CExpr::new(text, prec::PRIMARY)
    }

    /// The value of a unit expression: nothing.
    pub fn unit() -> CExpr {
        CExpr::constant("")
    }

    pub fn reading(mut self, access: Access) -> CExpr {
        self.reads = self.reads.union(access);
        self
    }

    pub fn writing(mut self, access: Access) -> CExpr {
        self.writes = self.writes.union(access);
        self
    }

    pub fn syncing(mut self, sync: bool) -> CExpr {
        self.sync |= sync;
        self
    }

    /// Takes on the reads and effects of its operands.
    pub fn with_parts(mut self, parts: &[&CExpr]) -> CExpr {
        for p in parts {
            self.reads = self.reads.union(p.reads);
            self.writes = self.writes.union(p.writes);
            self.sync |= p.sync;
        }
        self
    }

    pub fn is_unit(&self) -> bool {
        self.text.is_empty()
    }

    /// Its value cannot be changed by other code, and evaluating it has no effect.
    pub fn is_stable(&self) -> bool {
        !self.reads.any() && !self.writes.any() && !self.sync
    }

    /// Evaluating it does something (so it is kept even when its value is not used).
    pub fn is_effectful(&self) -> bool {
        self.writes.any() || self.sync
    }

    /// Must `self` be evaluated before `later` for their results to be those of source order?
    pub fn conflicts_with(&self, later: &CExpr) -> bool {
        self.writes.meets(later.reads.union(later.writes)) || self.reads.meets(later.writes)
    }

    /// The text, parenthesised unless it binds at least as tightly as `min`.
    pub fn at(&self, min: u8) -> String {
        if self.prec >= min {
            self.text.clone()
        } else {
            format!("({})", self.text)
        }
    }
}

/// Where the value of an expression lowered as statements goes.
#[derive(Clone, Debug)]
pub enum Dest {
    /// Nowhere: only its effects matter.
    Discard,
    /// Assigned to this C variable.
    Assign(String),
    /// Returned from the enclosing device function.
    Return,
}

/// What every function lowering reads: the module, its analyses, and the names of global items.
pub struct Globals<'a> {
    pub module: &'a Module,
    pub types: &'a TypeInfo,
    pub sources: &'a SourceMap,
    pub facts: &'a ModuleFacts,
    pub ctypes: CTypes<'a>,
    /// C names of functions, by `FunctionId`.
    pub function_names: Vec<String>,
    /// C names (symbols) of kernels, by index in `TypeInfo::kernels`.
    pub kernel_names: Vec<String>,
    /// C names of constants, by `ConstantId`.
    pub constant_names: Vec<String>,
    /// C names of each record's fields, by `RecordId`, in declaration order.
    pub record_fields: Vec<Vec<String>>,
    /// The allocator holding every global name (locals start from a copy of it).
    pub global_names: NameAllocator,
    /// (helper, C argument type) of each overloaded prelude helper call (`skc_min` on `int`).
    pub helper_overloads: std::cell::RefCell<std::collections::BTreeSet<(String, String)>>,
    /// Constants the emitted code reads (the others are left out: NVRTC warns about unread constants).
    pub used_constants: std::cell::RefCell<std::collections::HashSet<u32>>,
    /// Launch bounds the emit options give kernels by name (`EmitOptions::launch_bounds`).
    pub launch_bounds: &'a [super::KernelBounds],
}

impl Globals<'_> {
    pub fn kind(&self, e: ExprId) -> &ExprKind {
        self.module.exprs.get(e.index()).unwrap_or(&ExprKind::Error)
    }

    pub fn span(&self, e: ExprId) -> Option<Span> {
        self.module.expr_spans.get(e.index()).copied()
    }

    pub fn ty(&self, e: ExprId) -> &Type {
        self.types.type_of(e)
    }

    pub fn local_info(&self, id: LocalId) -> Option<&crate::types::LocalInfo> {
        self.types.locals.get(id.0 as usize)
    }

    pub fn builtin(&self, e: ExprId) -> Option<&'static Builtin> {
        self.types.builtin(e)
    }

    /// The C name of field `field` of the record type `ty`.
    pub fn field_name(&self, ty: &Type, field: &str) -> String {
        if let Type::Record(id) = ty {
            if let (Some(info), Some(names)) =
                (self.types.records.get(id.0 as usize), self.record_fields.get(id.0 as usize))
            {
                if let Some(i) = info.fields.iter().position(|(f, _)| f == field) {
                    if let Some(name) = names.get(i) {
                        return name.clone();
                    }
                }
            }
        }
        crate::codegen::names::sanitize(field, &Default::default())
    }

    /// Without `(e : T)` wrappers.
    pub fn strip_annot(&self, mut e: ExprId) -> ExprId {
        while let ExprKind::Annot { expr, .. } = self.kind(e) {
            e = *expr;
        }
        e
    }

    /// Can `e` be lowered to a C expression with no statements (it contains no `let`, loop, sequence, assignment
    /// or `if` that is not a pure conditional expression)? Effect ordering may still add temporaries.
    pub fn is_simple(&self, e: ExprId) -> bool {
        match self.kind(e) {
            ExprKind::Int { .. }
            | ExprKind::Float { .. }
            | ExprKind::Bool(_)
            | ExprKind::Unit
            | ExprKind::Var(_)
            | ExprKind::Global(_) => true,
            ExprKind::Unary { operand, .. } => self.is_simple(*operand),
            ExprKind::Binary { lhs, rhs, .. } => self.is_simple(*lhs) && self.is_simple(*rhs),
            ExprKind::Call { args, .. } => *self.ty(e) != Type::Unit && args.iter().all(|a| self.is_simple(*a)),
            ExprKind::Index { array, index } => self.is_simple(*array) && self.is_simple(*index),
            ExprKind::Field { record, .. } => self.is_simple(*record),
            ExprKind::Annot { expr, .. } | ExprKind::Ref(expr) => self.is_simple(*expr),
            ExprKind::Record(fields) => fields.iter().all(|(_, v)| self.is_simple(*v)),
            ExprKind::If { .. } => match self.folded_if(e) {
                Some(Some(taken)) => self.is_simple(taken),
                Some(None) => true,
                None => self.is_conditional_expression(e),
            },
            _ => false,
        }
    }

    /// Is `e` simple once its leading `let`s and sequence elements are emitted as statements
    /// (`let t = a * 2 in t + 1`)?
    pub fn is_simple_tail(&self, e: ExprId) -> bool {
        match self.kind(e) {
            ExprKind::Let { body, .. } | ExprKind::LetArray { body, .. } => self.is_simple_tail(*body),
            ExprKind::Seq(_, rest) => self.is_simple_tail(*rest),
            ExprKind::Annot { expr, .. } => self.is_simple_tail(*expr),
            _ => self.is_simple(e),
        }
    }

    /// The branch of the `if` `e` that alone is emitted, its condition being a compile-time constant
    /// (`TypeInfo::constant_conditions`): `Some(Some(branch))`, `Some(None)` for a false condition without `else`,
    /// `None` for an `if` whose condition is known only at run time (or an expression that is no `if`).
    pub fn folded_if(&self, e: ExprId) -> Option<Option<ExprId>> {
        let ExprKind::If { then_branch, else_branch, .. } = self.kind(e) else { return None };
        self.types.taken_branch(e, *then_branch, *else_branch)
    }

    /// Is `e` an `if` with an `else`, a value, and pure simple parts, so that C's `c ? a : b` says the same?
    pub fn is_conditional_expression(&self, e: ExprId) -> bool {
        match self.kind(e) {
            ExprKind::If { cond, then_branch, else_branch: Some(else_branch) } => {
                !matches!(self.ty(e), Type::Unit | Type::Error)
                    && [*cond, *then_branch, *else_branch].iter().all(|p| self.is_simple(*p) && self.is_pure(*p))
            }
            _ => false,
        }
    }

    /// Is `e` a record-valued conditional that C prints as `c ? a : b` (an `if` value or `select`)? As an operand
    /// it is bound to a temporary first (`lower_operands`): NVRTC 13.0 crashes (a segmentation fault in its front
    /// end) on a conditional of class prvalues, one with a non-constant member, inside a braced initialiser
    /// (`b{1.0f, c ? a{0, v} : a{1, 2}}`), and a record literal's fields are exactly that.
    pub fn is_record_conditional(&self, e: ExprId) -> bool {
        if !matches!(self.ty(e), Type::Record(_)) {
            return false;
        }
        match self.kind(e) {
            ExprKind::Annot { expr, .. } => self.is_record_conditional(*expr),
            ExprKind::Let { body, .. } | ExprKind::LetArray { body, .. } => self.is_record_conditional(*body),
            ExprKind::Seq(_, rest) => self.is_record_conditional(*rest),
            ExprKind::If { .. } => self.is_conditional_expression(e),
            ExprKind::Call { .. } => self.builtin(e).is_some_and(|b| b.cuda.contains('?')),
            _ => false,
        }
    }

    /// Does evaluating `e` have no effect (no call, atomic, collective, barrier, assignment)?
    pub fn is_pure(&self, e: ExprId) -> bool {
        match self.kind(e) {
            ExprKind::Int { .. }
            | ExprKind::Float { .. }
            | ExprKind::Bool(_)
            | ExprKind::Unit
            | ExprKind::Global(_) => true,
            ExprKind::Var(_) => self.builtin(e).map(builtin_is_pure).unwrap_or(true),
            ExprKind::Unary { operand, .. } => self.is_pure(*operand),
            ExprKind::Binary { lhs, rhs, .. } => self.is_pure(*lhs) && self.is_pure(*rhs),
            ExprKind::Call { args, .. } => {
                self.builtin(e).map(builtin_is_pure).unwrap_or(false) && args.iter().all(|a| self.is_pure(*a))
            }
            ExprKind::Index { array, index } => self.is_pure(*array) && self.is_pure(*index),
            ExprKind::Field { record, .. } => self.is_pure(*record),
            ExprKind::Annot { expr, .. } | ExprKind::Ref(expr) => self.is_pure(*expr),
            ExprKind::Record(fields) => fields.iter().all(|(_, v)| self.is_pure(*v)),
            ExprKind::If { .. } if self.folded_if(e).is_some() => {
                self.folded_if(e).flatten().is_none_or(|b| self.is_pure(b))
            }
            ExprKind::If { cond, then_branch, else_branch } => {
                self.is_pure(*cond)
                    && self.is_pure(*then_branch)
                    && else_branch.map(|x| self.is_pure(x)).unwrap_or(true)
            }
            _ => false,
        }
    }

    /// Is `e` a compile-time constant (literals and constants combined by operators)?
    pub fn is_compile_time_constant(&self, e: ExprId) -> bool {
        match self.kind(e) {
            ExprKind::Int { .. } | ExprKind::Float { .. } | ExprKind::Bool(_) | ExprKind::Global(_) => true,
            ExprKind::Var(_) => match self.types.resolution(e) {
                Some(Resolution::Constant(_)) => true,
                Some(Resolution::Builtin(b)) => b.name == "warp_size",
                _ => false,
            },
            ExprKind::Unary { operand, .. } => self.is_compile_time_constant(*operand),
            ExprKind::Binary { lhs, rhs, .. } => {
                self.is_compile_time_constant(*lhs) && self.is_compile_time_constant(*rhs)
            }
            ExprKind::Annot { expr, .. } => self.is_compile_time_constant(*expr),
            _ => false,
        }
    }
}

impl Globals<'_> {
    /// The value of an integer compile-time constant expression (literals, constants, `+ - * / mod`, negation).
    pub fn constant_int(&self, e: ExprId) -> Option<i64> {
        use crate::syntax::ast::{BinaryOp, UnaryOp};
        match self.kind(e) {
            ExprKind::Int { value, .. } => Some(match self.ty(e) {
                Type::Int64 | Type::UInt64 => *value as i64,
                _ => *value as u32 as i32 as i64,
            }),
            ExprKind::Var(_) | ExprKind::Global(_) => match self.types.resolution(e) {
                Some(Resolution::Builtin(b)) if b.name == "warp_size" => Some(32),
                Some(Resolution::Constant(id)) => match self.types.constants.get(id.0 as usize)?.value {
                    crate::types::ConstValue::Int(v) => Some(v),
                    _ => None,
                },
                _ => {
                    let ExprKind::Global(name) = self.kind(e) else { return None };
                    match self.types.constants.iter().find(|c| c.name == name.name)?.value {
                        crate::types::ConstValue::Int(v) => Some(v),
                        _ => None,
                    }
                }
            },
            ExprKind::Unary { op: UnaryOp::Neg, operand } => self.constant_int(*operand)?.checked_neg(),
            ExprKind::Binary { op, lhs, rhs } => {
                let (l, r) = (self.constant_int(*lhs)?, self.constant_int(*rhs)?);
                match op {
                    BinaryOp::Add => l.checked_add(r),
                    BinaryOp::Sub => l.checked_sub(r),
                    BinaryOp::Mul => l.checked_mul(r),
                    BinaryOp::Div => l.checked_div(r),
                    BinaryOp::Mod => l.checked_rem(r),
                    _ => None,
                }
            }
            ExprKind::Annot { expr, .. } => self.constant_int(*expr),
            _ => None,
        }
    }
}

/// A builtin whose call has no effect and whose value depends only on its arguments and the thread's position.
pub fn builtin_is_pure(b: &Builtin) -> bool {
    b.requirement == Requirement::None
        && !b.writes_first_arg
        && !b.orders_memory
        && b.ret != SigType::Unit
        && b.result != ResultUniformity::WarpUniformUnderControl
}

/// An operand of a C construct whose operands must be evaluated in source order.
#[derive(Clone, Copy, Debug)]
pub struct Operand {
    pub expr: ExprId,
    /// May it be copied into a temporary? Not the variable an assignment writes to.
    pub spillable: bool,
}

impl Operand {
    pub fn value(expr: ExprId) -> Operand {
        Operand { expr, spillable: true }
    }
    pub fn place(expr: ExprId) -> Operand {
        Operand { expr, spillable: false }
    }
}

/// Lowers one function or kernel body.
pub struct FnLowering<'g, 'a> {
    pub g: &'g Globals<'a>,
    pub names: NameAllocator,
    pub locals: HashMap<LocalId, String>,
    /// Statement blocks being built, innermost last.
    blocks: Vec<Vec<Stmt>>,
    /// `#pragma` text for the next loop emitted (from `pragma [...] e`).
    pub pending_pragma: Option<String>,
    /// Does the function return a value (`return e;` rather than `return;`)?
    pub returns_value: bool,
    /// For each loop being lowered, innermost last: what a `continue` of it must do first (a `for` loop whose
    /// last iteration ends with `if (i == i_end) break;` leaves there, not through `i++`).
    pub loop_exits: Vec<Option<String>>,
    /// The launch contract of the kernel whose body this is (empty in device functions, which kernels share):
    /// under an exact block size `block_dim_x` is emitted as the constant.
    pub launch: crate::contract::LaunchContract,
}

impl<'g, 'a> FnLowering<'g, 'a> {
    pub fn new(g: &'g Globals<'a>, returns_value: bool) -> Self {
        FnLowering {
            g,
            names: g.global_names.child(),
            locals: HashMap::new(),
            blocks: vec![Vec::new()],
            pending_pragma: None,
            returns_value,
            loop_exits: Vec::new(),
            launch: Default::default(),
        }
    }

    // --- statements -------------------------------------------------------------------------------------

    pub fn emit(&mut self, stmt: Stmt) {
        if let Some(block) = self.blocks.last_mut() {
            block.push(stmt);
        }
    }

    pub fn emit_simple(&mut self, text: impl Into<String>, origin: Option<Span>) {
        self.emit(Stmt::simple(text, origin));
    }

    pub fn emit_kind(&mut self, kind: StmtKind, origin: Option<Span>) {
        self.emit(Stmt { kind, origin });
    }

    fn block_len(&self) -> usize {
        self.blocks.last().map(Vec::len).unwrap_or(0)
    }

    fn insert_at(&mut self, index: usize, stmts: Vec<Stmt>) {
        if let Some(block) = self.blocks.last_mut() {
            let index = index.min(block.len());
            block.splice(index..index, stmts);
        }
    }

    /// Runs `f` with a fresh statement block that becomes a C block (`{ ... }`): the names it declares are free
    /// again afterwards.
    pub fn in_block<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> (Vec<Stmt>, R) {
        self.names.enter_scope();
        let result = self.in_scratch(f);
        self.names.leave_scope();
        result
    }

    /// Runs `f` with a fresh statement block whose statements the caller will place in the current C block (or
    /// in one that is still being built): its names stay taken.
    pub fn in_scratch<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> (Vec<Stmt>, R) {
        self.blocks.push(Vec::new());
        let result = f(self);
        let stmts = self.blocks.pop().unwrap_or_default();
        (stmts, result)
    }

    /// The statements of the whole body (after lowering).
    pub fn finish(mut self) -> Vec<Stmt> {
        self.blocks.drain(..).next().unwrap_or_default()
    }

    // --- names --------------------------------------------------------------------------------------------

    /// The C name of a local (declaring it on first sight).
    pub fn local_name(&mut self, id: LocalId) -> String {
        if let Some(name) = self.locals.get(&id) {
            return name.clone();
        }
        self.declare_local(id)
    }

    /// A fresh C name for a local being declared.
    pub fn declare_local(&mut self, id: LocalId) -> String {
        let source = self.g.local_info(id).map(|l| l.name.clone()).unwrap_or_else(|| "v".into());
        // The value a tuple pattern destructures: `tuple`, `tuple_1`...; the value a `match` tests: `matched`.
        let source = if source.starts_with(crate::syntax::TUPLE_VALUE_PREFIX) {
            "tuple".into()
        } else if source.starts_with(crate::syntax::MATCH_VALUE_PREFIX) {
            "matched".into()
        } else {
            source
        };
        let name = self.names.fresh(&source);
        self.locals.insert(id, name.clone());
        name
    }

    pub fn local_type(&self, id: LocalId) -> Type {
        self.g.local_info(id).map(|l| l.ty.clone()).unwrap_or(Type::Error)
    }

    pub fn local_mutability(&self, id: LocalId) -> Mutability {
        self.g.local_info(id).map(|l| l.mutability).unwrap_or(Mutability::Mutable)
    }

    pub fn c_type(&self, ty: &Type) -> String {
        self.g.ctypes.c_type(ty)
    }

    // --- temporaries and sequencing ------------------------------------------------------------------------

    /// `T tmpN = value;` as a statement (not emitted), and the temporary.
    fn spill_statement(&mut self, value: &CExpr, ty: &Type, origin: Option<Span>) -> (Stmt, CExpr) {
        let name = self.names.temporary("tmp");
        let c_ty = match ty {
            Type::Vector(_) | Type::Array { .. } | Type::ConstArray { .. } | Type::Ref(_) => "auto".to_string(),
            other => self.c_type(other),
        };
        (Stmt::simple(format!("{c_ty} {name} = {};", value.text), origin), CExpr::constant(name))
    }

    /// Copies `value` (of expression `e`) into a new temporary now; returns the temporary.
    pub fn spill(&mut self, value: CExpr, e: ExprId) -> CExpr {
        if value.is_stable() || value.is_unit() {
            return value;
        }
        let ty = self.g.ty(e).clone();
        let (stmt, temp) = self.spill_statement(&value, &ty, self.g.span(e));
        self.emit(stmt);
        temp
    }

    /// Declares an uninitialised temporary for the value of `e` (to be assigned by lowered statements).
    pub fn declare_temporary(&mut self, e: ExprId) -> String {
        let ty = self.g.ty(e).clone();
        let name = self.names.temporary("tmp");
        let c_ty = match &ty {
            Type::Vector(elem) | Type::Array { elem, .. } | Type::ConstArray { elem, .. } => {
                format!("const {}*", self.c_type(elem))
            }
            other => self.c_type(other),
        };
        self.emit_simple(format!("{c_ty} {name};"), self.g.span(e));
        name
    }

    /// Lowers operands in source order, keeping that order in C (see the module comment).
    pub fn lower_operands(&mut self, operands: &[Operand]) -> Vec<CExpr> {
        self.lower_operands_in(operands, false)
    }

    /// [`FnLowering::lower_operands`] for the elements of a braced initialiser (`T{a, b}`, `{a, b}`): a
    /// record-valued conditional among them is bound to a temporary (see `Globals::is_record_conditional`).
    pub fn lower_initializer_operands(&mut self, operands: &[Operand]) -> Vec<CExpr> {
        self.lower_operands_in(operands, true)
    }

    fn lower_operands_in(&mut self, operands: &[Operand], braced: bool) -> Vec<CExpr> {
        let mut results: Vec<CExpr> = Vec::with_capacity(operands.len());
        for (i, op) in operands.iter().enumerate() {
            let mark = self.block_len();
            let mut value = self.lower_expr(op.expr);
            if braced && op.spillable && self.g.is_record_conditional(op.expr) {
                // See `Globals::is_record_conditional`: a statement now, so earlier operands are captured below.
                let ty = self.g.ty(op.expr).clone();
                let (stmt, temp) = self.spill_statement(&value, &ty, self.g.span(op.expr));
                self.emit(stmt);
                value = temp;
            }
            if self.block_len() > mark {
                // Statements now run before the final expression: capture earlier operands first.
                let mut captured = Vec::new();
                for (j, earlier) in results.iter_mut().enumerate().take(i) {
                    if operands[j].spillable && !earlier.is_stable() && !earlier.is_unit() {
                        let ty = self.g.ty(operands[j].expr).clone();
                        let (stmt, temp) = self.spill_statement(earlier, &ty, self.g.span(operands[j].expr));
                        captured.push(stmt);
                        *earlier = temp;
                    }
                }
                self.insert_at(mark, captured);
            }
            results.push(value);
        }
        // C does not order the evaluation of operands: an operand whose effect another operand would observe
        // (or whose value another operand's effect would change) is evaluated first, into a temporary.
        let conflicting: Vec<usize> = (0..results.len())
            .filter(|&i| operands[i].spillable && !results[i].is_unit())
            .filter(|&i| results[i + 1..].iter().any(|later| results[i].conflicts_with(later)))
            .collect();
        for i in conflicting {
            let value = results[i].clone();
            results[i] = self.spill(value, operands[i].expr);
        }
        results
    }
}

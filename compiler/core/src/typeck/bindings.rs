//! Rules for the forms that declare or assign locals: `let` (immutable, `mut`, `ref`, `_`, `()`), shared and
//! local arrays (`LetArray`, with the classification of their size as constant or dynamic), `for` counters, and
//! `x := e`.

use std::sync::Arc;

use crate::diagnostic::Diagnostic;
use crate::source::Span;
use crate::syntax::ast::{
    BinaryOp, Binder, ExprId, ExprKind, Ident, Item, LetKind, MemorySpace, Path, TypeExpr, UnaryOp,
};
use crate::types::{ArraySize, Mutability, Resolution, Type};

use super::consts::EvalError;
use super::infer::Class;
use super::report::{Because, Reason};
use super::scope::{Named, ValueItem};
use super::{Checker, Owner};

/// Most nodes a dynamic-size expression may have (defence against huge inputs).
const MAX_SIZE_NODES: usize = 10_000;

impl<'a> Checker<'a> {
    pub(crate) fn check_let(
        &mut self,
        id: ExprId,
        binder: &'a Binder,
        annotation: Option<&TypeExpr>,
        kind: LetKind,
        value: ExprId,
        body: ExprId,
    ) -> Type {
        let found = self.check_expr(value);
        let destructured = matches!(binder, Binder::Name(n) if n.name.starts_with(crate::syntax::TUPLE_VALUE_PREFIX));
        let matched = matches!(binder, Binder::Name(n) if n.name.starts_with(crate::syntax::MATCH_VALUE_PREFIX));
        let declared = match annotation {
            Some(annotation) => {
                let expected = self.lower_type(annotation);
                let why = match (destructured, matched) {
                    // The annotation of the value a tuple pattern destructures is the pattern's (`_ * _`).
                    (true, _) => Because::of(binder.span(), "expected because of this tuple pattern"),
                    // A matched value's is its first constructor's type, at that pattern.
                    (_, true) => Because::of(annotation.span(), "expected because of this pattern"),
                    _ => Because::of(annotation.span(), "expected because of this annotation"),
                };
                let matches = self.expect_type_because(value, &found, &expected, why);
                // A value that does not match a tuple pattern leaves its components unknown: errors, not E0209s.
                if destructured && !matches {
                    Type::Error
                } else {
                    expected
                }
            }
            None => found,
        };
        let declared = match binder {
            Binder::Name(name) if name.name == crate::syntax::RECORD_UPDATE_COPY => {
                self.record_update_base(value, declared)
            }
            _ => declared,
        };
        match binder {
            Binder::Name(name) => self.bind_local(id, name, declared, kind, value, body),
            Binder::Wildcard(_) => self.check_expr(body),
            Binder::Unit(span) => {
                let why = Because::of(*span, "`()` only matches unit");
                self.expect_type_because(value, &declared, &Type::Unit, why);
                self.check_expr(body)
            }
        }
    }

    /// The base of a record update (`{ base with ... }`, whose copy the parser binds): a record, or a type not
    /// yet known that a field will decide; anything else is E0208, once, and the copy is `Type::Error` so that
    /// its field assignments and its use add nothing.
    fn record_update_base(&mut self, base: ExprId, ty: Type) -> Type {
        let resolved = self.vars.resolve(&ty);
        let open = matches!(resolved, Type::Var(_)) && self.vars.class_of(&ty) == Some(Class::Any);
        if open || matches!(resolved, Type::Record(_) | Type::Error) {
            return ty;
        }
        let shown = self.describe(&resolved);
        let help = match resolved {
            Type::Ref(_) => "this is a `ref` cell: update the record it holds, `{ !r with f = v }`",
            _ => "write `{ r with f = v }` with `r` a value of a record type",
        };
        let d = Diagnostic::error("E0208", format!("a record update needs a record, not {shown}"))
            .primary(self.span(base), format!("this is {shown}"))
            .help(help);
        self.diagnostics.push(d);
        Type::Error
    }

    fn bind_local(
        &mut self,
        id: ExprId,
        name: &'a Ident,
        ty: Type,
        kind: LetKind,
        value: ExprId,
        body: ExprId,
    ) -> Type {
        let mutability = match (kind, self.kind(value)) {
            (LetKind::Mutable, _) => Mutability::Mutable,
            (LetKind::Immutable, ExprKind::Ref(_)) => Mutability::RefCell,
            (LetKind::Immutable, _) => Mutability::Immutable,
        };
        let local = self.new_local(&name.name, ty.clone(), mutability, name.span, None);
        self.info.declared_local.insert(id, local);
        match mutability {
            Mutability::Immutable => {
                self.note_alias(local, value);
                self.check_named_cell(value, &ty);
            }
            Mutability::Mutable => self.apply_cell_rule(value, &ty, super::cells::CellRule::MutableContents(local)),
            Mutability::RefCell => {}
        }
        self.check_in_scope(&name.name, local, body)
    }

    /// `let%shared (t : T) = n in`, `let%local`, `let t = create_array n Shared in`.
    pub(crate) fn check_let_array(
        &mut self,
        id: ExprId,
        name: &'a Ident,
        elem: Option<&TypeExpr>,
        space: MemorySpace,
        size: ExprId,
        body: ExprId,
    ) -> Type {
        let elem = match elem {
            Some(ty) => rows_in(self.lower_element_type(ty), space),
            None => self.vars.fresh(Class::Any),
        };
        let size_ty = self.check_expr(size);
        let integer = self.vars.fresh(Class::Integer);
        let size = if space == MemorySpace::Shared && matches!(self.kind(size), ExprKind::Unit) {
            ArraySize::Const(self.default_shared_slots())
        } else if !self.expect_type(size, &size_ty, &integer) {
            ArraySize::Const(1)
        } else if matches!(elem, Type::Array { .. }) {
            self.outer_dimension(size)
        } else {
            self.array_size(size, space, &elem, name.span)
        };
        let ty = Type::Array { elem: Arc::new(elem), space, size };
        let local = self.new_local(&name.name, ty, Mutability::Immutable, name.span, None);
        self.info.declared_local.insert(id, local);
        self.check_in_scope(&name.name, local, body)
    }

    /// The outer size of a multi-dimensional array: a compile-time constant, as its other sizes are (the emitted
    /// C declares `T t[N][M]`, and only static shared memory has such a type).
    fn outer_dimension(&mut self, size: ExprId) -> ArraySize {
        match self.eval_const(size) {
            Ok(value) => self.positive_size(size, &value),
            Err(error) => {
                let help = "every size of a multi-dimensional array is a compile-time constant";
                self.report_size_error(size, error, Some(help));
                ArraySize::Const(1)
            }
        }
    }

    /// The size of Sarek's `let%shared (t : T) = () in`, one slot per thread of the block: the kernel's
    /// `[@launch_bounds MAX_THREADS]` (the runtime refuses a larger block), else the most threads a block can have
    /// on any target. A static size, so the array is ordinary `__shared__` memory that `limits` counts; a
    /// function's array (no launch bounds of its own) gets the most.
    fn default_shared_slots(&self) -> u32 {
        let most = crate::target::MAX_THREADS_PER_BLOCK as u32;
        let Owner::Kernel(k) = self.ctx.owner else { return most };
        let item = self.info.kernels.get(k).and_then(|info| self.module.items.get(info.item));
        match item {
            Some(Item::Kernel(kernel)) => kernel.launch_bounds.map_or(most, |b| b.max_threads.clamp(1, most)),
            _ => most,
        }
    }

    /// A constant size, or (shared arrays in kernels only) a size computed from the kernel's scalar parameters.
    fn array_size(&mut self, size: ExprId, space: MemorySpace, elem: &Type, declared: Span) -> ArraySize {
        let culprit = match self.eval_const(size) {
            Ok(value) => return self.positive_size(size, &value),
            Err(EvalError::NotConstant(culprit)) => culprit,
            Err(error) => {
                self.report_size_error(size, error, None);
                return ArraySize::Const(1);
            }
        };
        let kernel = match self.ctx.owner {
            Owner::Kernel(k) if space == MemorySpace::Shared && self.is_launch_time_size(size) => k,
            _ => {
                let help = self.size_help(space);
                self.report_size_error(size, EvalError::NotConstant(culprit), help);
                return ArraySize::Const(1);
            }
        };
        if let Some(first) = self.ctx.dynamic_shared {
            let d = Diagnostic::error("E0203", "a kernel can have only one dynamic shared array")
                .primary(self.span(size), "a second size known only at launch")
                .secondary(first, "the first dynamic shared array")
                .help("give this array a constant size, or carve both out of one dynamic array");
            self.diagnostics.push(d);
            return ArraySize::Const(1);
        }
        self.ctx.dynamic_shared = Some(declared);
        if let Some(info) = self.info.kernels.get_mut(kernel) {
            info.dynamic_shared = Some(elem.clone());
        }
        ArraySize::Dynamic
    }

    fn size_help(&self, space: MemorySpace) -> Option<&'static str> {
        match (space, self.ctx.owner) {
            (MemorySpace::Local, _) => Some("a local array needs a constant size; use a top-level constant"),
            (MemorySpace::Shared, Owner::Kernel(_)) => {
                Some("a shared array's size may use only literals, constants and the kernel's scalar parameters")
            }
            (MemorySpace::Shared, _) => Some("a shared array outside a kernel needs a constant size"),
        }
    }

    /// Is `size` made only of literals, constants and the current kernel's parameters (known at launch)?
    fn is_launch_time_size(&self, size: ExprId) -> bool {
        let mut stack = vec![size];
        let mut visited = 0;
        while let Some(id) = stack.pop() {
            visited += 1;
            if visited > MAX_SIZE_NODES {
                return false;
            }
            match self.kind(id) {
                ExprKind::Int { .. } => {}
                ExprKind::Var(_) | ExprKind::Global(_) if self.is_launch_time_name(id) => {}
                ExprKind::Binary { op, lhs, rhs }
                    if !op.is_comparison() && !op.is_logical() && *op != BinaryOp::Pow =>
                {
                    stack.extend([*lhs, *rhs]);
                }
                ExprKind::Unary { op: UnaryOp::Neg, operand } => stack.push(*operand),
                ExprKind::Annot { expr, .. } => stack.push(*expr),
                _ => return false,
            }
        }
        true
    }

    fn is_launch_time_name(&self, id: ExprId) -> bool {
        match self.info.resolution(id) {
            Some(Resolution::Constant(_)) => true,
            Some(Resolution::Local(local)) => {
                let Owner::Kernel(k) = self.ctx.owner else {
                    return false;
                };
                self.info.kernels.get(k).is_some_and(|kernel| kernel.params.iter().any(|p| p.local == local))
            }
            _ => false,
        }
    }

    pub(crate) fn check_for(&mut self, id: ExprId, var: &'a Ident, start: ExprId, end: ExprId, body: ExprId) -> Type {
        let start_ty = self.check_expr(start);
        let (counter, start_ok) =
            if self.vars.class_of(&start_ty) == Some(Class::Integer) || self.vars.resolve_ref(&start_ty).is_integer() {
                // An integer or a variable of that class (a literal): the counter has its type, to which a fresh
                // integer variable would only be bound.
                (start_ty.clone(), true)
            } else {
                let counter = self.vars.fresh(Class::Integer);
                let start_ok = self.expect_type(start, &start_ty, &counter);
                (counter, start_ok)
            };
        let end_ty = self.check_expr(end);
        if start_ok {
            let why = Because::describing(self.span(start), "the first bound is ", &counter);
            self.expect_type_because(end, &end_ty, &counter, why);
        } else {
            self.vars.unify(&end_ty, &counter);
        }
        let local = self.new_local(&var.name, counter, Mutability::Immutable, var.span, None);
        self.info.declared_local.insert(id, local);
        self.scopes.push();
        self.scopes.declare(&var.name, local);
        self.check_loop_body(body);
        self.scopes.pop();
        Type::Unit
    }

    /// `x := e` on a `mut` variable or a `ref` cell.
    pub(crate) fn check_assign(&mut self, id: ExprId, target: &Path, value: ExprId) -> Type {
        self.checked_assigns.push(id);
        let found = self.check_expr(value);
        let Some(named) = self.resolve_path(target, id) else {
            return Type::Unit;
        };
        let what = match named {
            Named::Local(local) => {
                self.assign_local(local, target, value, &found);
                return Type::Unit;
            }
            Named::Item(ValueItem::Constant(_)) => "it is a constant",
            Named::Item(ValueItem::Function(_)) => "it is a function",
            Named::Item(ValueItem::Kernel(_)) => "it is a kernel",
            Named::Builtin(_) => "it is a builtin",
        };
        self.report_not_assignable(target, what, None);
        Type::Unit
    }

    fn assign_local(&mut self, local: crate::types::LocalId, target: &Path, value: ExprId, found: &Type) {
        let Some(info) = self.local_info(local) else {
            return;
        };
        let (declared_at, mutability, ty) = (info.span, info.mutability, info.ty.clone());
        let why = Because::of(declared_at, Reason::Declared(target.name.name.clone()));
        match (mutability, self.vars.resolve(&ty)) {
            (Mutability::Mutable, _) => {
                self.expect_type_because(value, found, &ty, why);
            }
            (_, Type::Ref(inner)) => {
                self.expect_type_because(value, found, &inner, why);
            }
            (_, Type::Error) => {}
            (Mutability::RefCell | Mutability::Immutable, _) => {
                let help = format!("declare it with `let {} = mut ... in`", target.name.name);
                self.report_not_assignable(target, "it is immutable", Some((declared_at, help)));
            }
        }
    }

    fn report_not_assignable(&mut self, target: &Path, what: &str, declared: Option<(Span, String)>) {
        let mut d = Diagnostic::error("E0204", format!("cannot assign to `{}`: {what}", target.display()))
            .primary(target.span(), "cannot be assigned");
        if let Some((span, help)) = declared {
            d = d.secondary(span, "declared here").help(help);
        }
        self.diagnostics.push(d);
    }
}

/// The element type of an array declared in `space`: the rows of a multi-dimensional array (`T[N]` types from the
/// declaration's sizes) live in the same memory as the array.
fn rows_in(elem: Type, space: MemorySpace) -> Type {
    match elem {
        Type::Array { elem, size, .. } => {
            let inner = rows_in(Type::clone(&elem), space);
            Type::Array { elem: Arc::new(inner), space, size }
        }
        other => other,
    }
}

//! Memory and record accesses: `a.(i)`, `a.(i) <- v`, `r.f`, `r.f <- v` (on a variable or an element,
//! `a.(i).f.g <- v`), `ref e`, and the arrays `let%shared` / `let%local` declare.

use skc_core::syntax::ast::{ExprId, ExprKind, MemorySpace};
use skc_core::types::{ArraySize, Type};

use super::function::FnCompiler;
use super::layout::stored_words;
use crate::code::{HandleBase, Instr, Reg};
use crate::value::{Scalar, ValueType};

/// Where a record field lives: in registers, or in an element of an array.
enum Place {
    Regs(Reg),
    Element { arr: Reg, idx: Reg, idx_ty: Scalar, stride: u16, offset: u16 },
}

impl FnCompiler<'_, '_> {
    /// Words of an element of the array or vector `array` has.
    fn element_words(&self, array: ExprId) -> u32 {
        match self.layout.ty(array).element() {
            Some(elem) => self.slots(elem),
            None => 1,
        }
    }

    /// `a.(i)` where the element is a row of the multi-dimensional array `a`: the row's handle.
    fn row(&mut self, e: ExprId, array: ExprId, index: ExprId, dst: Option<Reg>) -> Reg {
        let regs = self.operands(&[array, index]);
        let row_ty = self.layout.ty(e);
        let stride = stored_words(row_ty, self.layout.types);
        let len = match row_ty {
            Type::Array { size: ArraySize::Const(n), .. } => *n,
            _ => 0,
        };
        let dst = dst.unwrap_or_else(|| self.alloc(1));
        let idx_ty = self.index_type(index);
        self.emit(Instr::Row { dst, arr: regs[0], idx: regs[1], idx_ty, stride, len }, e);
        dst
    }

    fn index_type(&self, index: ExprId) -> Scalar {
        Scalar::of(self.layout.ty(index)).filter(|s| s.is_integer()).unwrap_or(Scalar::Int32)
    }

    pub fn load(&mut self, e: ExprId, array: ExprId, index: ExprId, dst: Option<Reg>) -> Reg {
        if matches!(self.layout.ty(e), Type::Array { .. }) {
            return self.row(e, array, index, dst);
        }
        let regs = self.operands(&[array, index]);
        let stride = self.element_words(array) as u16;
        let dst = dst.unwrap_or_else(|| self.alloc(stride.max(1) as u32));
        let idx_ty = self.index_type(index);
        self.emit(Instr::Load { dst, arr: regs[0], idx: regs[1], idx_ty, stride, offset: 0, n: stride }, e);
        dst
    }

    pub fn store(&mut self, e: ExprId, array: ExprId, index: ExprId, value: ExprId) {
        let mark = self.mark();
        let regs = self.operands(&[array, index, value]);
        let stride = self.element_words(array) as u16;
        let idx_ty = self.index_type(index);
        self.emit(Instr::Store { src: regs[2], arr: regs[0], idx: regs[1], idx_ty, stride, offset: 0, n: stride }, e);
        self.release(mark);
    }

    /// The place of `e` when it is a variable, an element or a field of one; `None` for any other value.
    fn place(&mut self, e: ExprId, later: Option<ExprId>) -> Option<Place> {
        let module = self.layout.module;
        if matches!(module.expr(e), ExprKind::Index { .. } | ExprKind::Field { .. }) {
            self.nodes += 1;
        }
        match module.expr(e) {
            ExprKind::Annot { expr, .. } => self.place(*expr, later),
            ExprKind::Var(_) if self.slots(self.layout.ty(e)) > 1 || matches!(self.layout.ty(e), Type::Record(_)) => {
                Some(Place::Regs(self.value(e)))
            }
            ExprKind::Index { array, index } => {
                let mut operands = vec![*array, *index];
                operands.extend(later);
                let regs = self.operands(&operands[..2]);
                // A later operand that assigns the index variable must not change which element is meant.
                let idx = match later {
                    Some(v) if self.layout.has_assign(v) && self.layout.borrows_mutable(*index) => {
                        let temp = self.alloc(1);
                        self.deliver(e, regs[1], 1, Some(temp))
                    }
                    _ => regs[1],
                };
                let stride = self.element_words(*array) as u16;
                Some(Place::Element { arr: regs[0], idx, idx_ty: self.index_type(*index), stride, offset: 0 })
            }
            ExprKind::Field { record, field } => {
                let (offset, _, _) = self.field_layout(self.layout.ty(*record), &field.name);
                match self.place(*record, later)? {
                    Place::Regs(r) => Some(Place::Regs(r + offset)),
                    Place::Element { arr, idx, idx_ty, stride, offset: o } => {
                        Some(Place::Element { arr, idx, idx_ty, stride, offset: o + offset as u16 })
                    }
                }
            }
            _ => None,
        }
    }

    /// `r.f`.
    pub fn field(&mut self, e: ExprId, record: ExprId, name: &str, dst: Option<Reg>) -> Reg {
        let (offset, words, _) = self.field_layout(self.layout.ty(record), name);
        match self.place(record, None) {
            Some(Place::Element { arr, idx, idx_ty, stride, offset: o }) => {
                let dst = dst.unwrap_or_else(|| self.alloc(words.max(1)));
                let (offset, n) = (o + offset as u16, words as u16);
                self.emit(Instr::Load { dst, arr, idx, idx_ty, stride, offset, n }, e);
                dst
            }
            Some(Place::Regs(r)) => self.deliver(e, r + offset, words, dst),
            None => {
                let r = self.value(record);
                self.deliver(e, r + offset, words, dst)
            }
        }
    }

    /// `r.f <- v`: the place first, then the value.
    pub fn field_set(&mut self, e: ExprId, record: ExprId, name: &str, value: ExprId) {
        let (offset, words, _) = self.field_layout(self.layout.ty(record), name);
        let mark = self.mark();
        match self.place(record, Some(value)) {
            Some(Place::Element { arr, idx, idx_ty, stride, offset: o }) => {
                let v = self.value(value);
                let (offset, n) = (o + offset as u16, words as u16);
                self.emit(Instr::Store { src: v, arr, idx, idx_ty, stride, offset, n }, e);
            }
            Some(Place::Regs(r)) => {
                let v = self.value(value);
                self.deliver(e, v, words, Some(r + offset));
            }
            None => self.discard(value),
        }
        self.release(mark);
    }

    /// `ref e`: a new cell in the frame's local memory, holding the value of `e`.
    pub fn new_cell(&mut self, e: ExprId, inner: ExprId, dst: Option<Reg>) -> Reg {
        let words = self.layout.slots_of(inner);
        let offset = self.alloc_local(words.max(1));
        let src = self.value(inner);
        let dst = dst.unwrap_or_else(|| self.alloc(1));
        self.emit(Instr::NewCell { dst, offset, src, n: words }, e);
        dst
    }

    /// `let%shared` / `let%local`: the array's handle in the local's register.
    pub fn bind_array(&mut self, e: ExprId) {
        let module = self.layout.module;
        let ExprKind::LetArray { space, size, .. } = module.expr(e) else { return };
        let Some(local) = self.layout.types.declared_local.get(&e).copied() else { return };
        let Type::Array { elem, size: array_size, .. } = self.layout.local_ty(local) else { return };
        let elem_words = stored_words(elem, self.layout.types);
        let dst = self.alloc(1);
        match (space, array_size) {
            (MemorySpace::Shared, ArraySize::Const(n)) => {
                let offset = self.layout.shared_offsets.get(&e).copied().unwrap_or(0);
                self.emit(Instr::Handle { base: HandleBase::Shared, dst, offset, len: *n }, e);
            }
            (MemorySpace::Shared, ArraySize::Dynamic) => {
                let mark = self.mark();
                let count = self.value(*size);
                let count_ty = self.index_type(*size);
                let elem_bytes = ValueType::of(elem, self.layout.types).map(|t| t.c_size_align().0).unwrap_or(4);
                let elem_bytes = elem_bytes as u32;
                self.emit(Instr::DynamicShared { dst, count, count_ty, elem_words, elem_bytes }, *size);
                self.release(mark);
            }
            (MemorySpace::Local, ArraySize::Const(n)) => {
                let offset = self.alloc_local(n * elem_words);
                self.emit(Instr::Handle { base: HandleBase::Local, dst, offset, len: *n }, e);
            }
            (MemorySpace::Local, ArraySize::Dynamic) => {
                self.trap_message("a local array without a constant size".into(), e);
            }
        }
        self.locals.insert(local, dst);
    }
}

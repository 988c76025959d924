//! Inference variables and unification. Types under inference are ordinary [`Type`]s that may contain
//! `Type::Var`; this table says, for every variable, either the class of types it may still become or the type it
//! was bound to. Unification is monomorphic (generalising functions is `generic`'s, which instantiates their
//! variables at each call): every variable ends up as one concrete type, either through a constraint or through
//! defaulting by class at the end of checking.
//!
//! A value indexed before its type is known gets the class `Array` (with an element type kept beside it): it
//! becomes whichever array it is used as (a vector, a shared or local array, a constant array), and a vector if
//! nothing decides, as untyped kernel parameters do.

use std::sync::Arc;

use crate::builtins::TypeClass;
use crate::types::{Type, TypeVarId};

/// Which types an unbound variable may still become.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// Anything (an unannotated parameter, the element of an unannotated array, the value of `return`).
    Any,
    /// int32, int64, uint32, uint64, float32, float64.
    Numeric,
    /// int32, int64, uint32, uint64 (an unsuffixed integer literal).
    Integer,
    /// float32, float64 (an unsuffixed float literal).
    Float,
    /// Some array (vector, shared, local or constant) whose element type is recorded in the table.
    Array,
}

impl Class {
    /// The class of a generic slot in a builtin's signature.
    pub(crate) fn of_builtin(class: TypeClass) -> Class {
        match class {
            // An exact class is its one type, which `calls` puts in the slot without a variable.
            TypeClass::Numeric
            | TypeClass::AtomicWord
            | TypeClass::ExactInt32
            | TypeClass::ExactInt64
            | TypeClass::ExactFloat32
            | TypeClass::ExactFloat64
            | TypeClass::ExactFloat16
            | TypeClass::ExactBFloat16
            | TypeClass::ExactFloat16x2
            | TypeClass::ExactBFloat16x2 => Class::Numeric,
            TypeClass::Integer => Class::Integer,
            TypeClass::Float => Class::Float,
            TypeClass::Any => Class::Any,
        }
    }

    fn admits(self, ty: &Type) -> bool {
        match self {
            Class::Any => true,
            Class::Numeric => ty.is_numeric(),
            Class::Integer => ty.is_integer(),
            Class::Float => ty.is_float(),
            Class::Array => ty.element().is_some(),
        }
    }

    /// Is `ty` a number (a type without variables) of this class? Then a fresh variable of the class unified with
    /// it would only be bound to it, and the number can stand for the variable.
    pub(crate) fn admits_number(self, ty: &Type) -> bool {
        ty.is_numeric() && self.admits(ty)
    }

    /// The classes both admit, if any.
    fn meet(self, other: Class) -> Option<Class> {
        match (self, other) {
            (Class::Any, c) | (c, Class::Any) => Some(c),
            (a, b) if a == b => Some(a),
            (Class::Array, _) | (_, Class::Array) => None,
            (Class::Numeric, c) | (c, Class::Numeric) => Some(c),
            _ => None,
        }
    }

    /// How a diagnostic names a variable of this class (`expected an integer, found float32`).
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Class::Any => "_",
            Class::Numeric => "a number",
            Class::Integer => "an integer",
            Class::Float => "a float",
            Class::Array => "an array",
        }
    }

    /// The type an unconstrained variable of this class becomes; `None` for `Any` (which cannot be guessed) and
    /// `Array` (a vector of its element, see [`VarTable::default_all`]).
    pub(crate) fn default_type(self) -> Option<Type> {
        match self {
            Class::Any | Class::Array => None,
            Class::Numeric | Class::Integer => Some(Type::Int32),
            Class::Float => Some(Type::Float32),
        }
    }
}

#[derive(Clone, Debug)]
enum Slot {
    Unbound(Class),
    Bound(Type),
}

/// Every inference variable created while checking one module.
#[derive(Debug, Default)]
pub(crate) struct VarTable {
    slots: Vec<Slot>,
    /// The element type of each variable of class `Array` (indexed by variable; `None` for the others).
    elems: Vec<Option<Type>>,
    /// While [`VarTable::unify_or_undo`] runs (`trailing`): the previous content of every slot it overwrote.
    trail: Vec<(u32, Slot)>,
    trailing: bool,
    /// For each unbound variable, how many variables resolve to it (itself included): when two variables are
    /// unified, the smaller class is bound to the larger one, so that binding chains stay logarithmic. Binding
    /// the older variable to the newer every time made a constant array of n literals a chain of n variables,
    /// walked for every element (quadratic). A balance hint only: an undone unification leaves it as it is.
    sizes: Vec<u32>,
}

/// How deep `occurs` looks before it assumes a cycle (types are shallow; this is defence only).
const MAX_OCCURS_DEPTH: u32 = 64;

/// What `Type::Error` resolves to when a variable is unknown.
const ERROR: &Type = &Type::Error;

impl VarTable {
    /// An empty table with room for `capacity` variables.
    pub(crate) fn with_capacity(capacity: usize) -> VarTable {
        VarTable {
            slots: Vec::with_capacity(capacity),
            elems: Vec::with_capacity(capacity),
            sizes: Vec::with_capacity(capacity),
            ..VarTable::default()
        }
    }

    pub(crate) fn fresh(&mut self, class: Class) -> Type {
        if class == Class::Array {
            let elem = self.fresh(Class::Any);
            return self.fresh_array(elem);
        }
        self.push_slot(Slot::Unbound(class), None)
    }

    /// A variable for "some array of `elem`".
    pub(crate) fn fresh_array(&mut self, elem: Type) -> Type {
        self.push_slot(Slot::Unbound(Class::Array), Some(elem))
    }

    fn push_slot(&mut self, slot: Slot, elem: Option<Type>) -> Type {
        self.slots.push(slot);
        self.elems.push(elem);
        self.sizes.push(1);
        Type::Var(TypeVarId(self.slots.len() as u32 - 1))
    }

    fn elem(&self, var: TypeVarId) -> Option<&Type> {
        self.elems.get(var.0 as usize).and_then(Option::as_ref)
    }

    /// The element type of `ty` if it is (bound to) an unbound variable of class `Array`.
    pub(crate) fn array_element(&self, ty: &Type) -> Option<Type> {
        match self.resolve_ref(ty) {
            Type::Var(v) if self.var_class(*v) == Some(Class::Array) => self.elem(*v).cloned(),
            _ => None,
        }
    }

    /// How many variables were created.
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    fn slot(&self, var: TypeVarId) -> Option<&Slot> {
        self.slots.get(var.0 as usize)
    }

    /// Overwrites a slot, remembering the old content while a [`VarTable::unify_or_undo`] runs.
    fn set_slot(&mut self, index: usize, slot: Slot) {
        let old = std::mem::replace(&mut self.slots[index], slot);
        if self.trailing {
            self.trail.push((index as u32, old));
        }
    }

    /// Follows bound variables until a type that is not a bound variable.
    pub(crate) fn resolve(&self, ty: &Type) -> Type {
        self.resolve_ref(ty).clone()
    }

    /// [`VarTable::resolve`] without the copy.
    pub(crate) fn resolve_ref<'t>(&'t self, ty: &'t Type) -> &'t Type {
        let mut current = ty;
        while let Type::Var(v) = current {
            match self.slot(*v) {
                Some(Slot::Bound(t)) => current = t,
                Some(Slot::Unbound(_)) => return current,
                None => return ERROR,
            }
        }
        current
    }

    /// The class of `ty` if it is (bound to) an unbound variable.
    pub(crate) fn class_of(&self, ty: &Type) -> Option<Class> {
        match self.resolve_ref(ty) {
            Type::Var(v) => self.var_class(*v),
            _ => None,
        }
    }

    /// `ty` with every bound variable replaced by its binding, recursively.
    pub(crate) fn zonk(&self, ty: &Type) -> Type {
        let resolved = self.resolve_ref(ty);
        self.zonk_inner(resolved).unwrap_or_else(|| resolved.clone())
    }

    /// The zonked form of a resolved type, or `None` when zonking changes nothing (so nothing is rebuilt).
    fn zonk_inner(&self, ty: &Type) -> Option<Type> {
        if let Type::Tuple(components) = ty {
            let zonked: Vec<Option<Type>> = components.iter().map(|c| self.zonk_component(c)).collect();
            if zonked.iter().all(Option::is_none) {
                return None;
            }
            let rebuilt = zonked.into_iter().zip(components.iter()).map(|(z, c)| z.unwrap_or_else(|| c.clone()));
            return Some(Type::Tuple(rebuilt.collect()));
        }
        let elem = match ty {
            Type::Vector(e) | Type::Ref(e) | Type::Array { elem: e, .. } | Type::ConstArray { elem: e, .. } => e,
            _ => return None,
        };
        let resolved = self.resolve_ref(elem);
        let zonked = match self.zonk_inner(resolved) {
            Some(zonked) => zonked,
            None if std::ptr::eq(resolved, &**elem) => return None,
            None => resolved.clone(),
        };
        Some(with_element(ty, zonked))
    }

    /// A tuple's component zonked, or `None` when zonking changes nothing.
    fn zonk_component(&self, component: &Type) -> Option<Type> {
        let resolved = self.resolve_ref(component);
        match self.zonk_inner(resolved) {
            Some(zonked) => Some(zonked),
            None if std::ptr::eq(resolved, component) => None,
            None => Some(resolved.clone()),
        }
    }

    /// The unbound variables in `ty`, in order of appearance.
    pub(crate) fn unbound_vars(&self, ty: &Type) -> Vec<TypeVarId> {
        let mut out = Vec::new();
        if is_scalar(self.resolve_ref(ty)) {
            return out;
        }
        self.collect_unbound(&self.zonk(ty), &mut out);
        out
    }

    fn collect_unbound(&self, ty: &Type, out: &mut Vec<TypeVarId>) {
        match ty {
            Type::Var(v) if out.contains(v) => {}
            Type::Var(v) => {
                out.push(*v);
                if let Some(elem) = self.elem(*v) {
                    self.collect_unbound(&self.zonk(elem), out);
                }
            }
            Type::Vector(e) | Type::Ref(e) => self.collect_unbound(e, out),
            Type::Array { elem, .. } | Type::ConstArray { elem, .. } => self.collect_unbound(elem, out),
            Type::Tuple(components) => components.iter().for_each(|c| self.collect_unbound(c, out)),
            _ => {}
        }
    }

    pub(crate) fn var_class(&self, var: TypeVarId) -> Option<Class> {
        match self.slot(var) {
            Some(Slot::Unbound(c)) => Some(*c),
            _ => None,
        }
    }

    /// Binds an unbound variable without any check (defaulting, error recovery).
    pub(crate) fn force_bind(&mut self, var: TypeVarId, ty: Type) {
        if let Some(Slot::Unbound(_)) = self.slots.get(var.0 as usize) {
            self.set_slot(var.0 as usize, Slot::Bound(ty));
        }
    }

    /// Binds every still-unbound variable to its class's default: `Any` variables become `any_default`,
    /// `Array` variables vectors of their element.
    pub(crate) fn default_all(&mut self, any_default: Type) {
        for (index, slot) in self.slots.iter_mut().enumerate() {
            if let Slot::Unbound(class) = slot {
                let ty = match class {
                    Class::Array => {
                        let elem = self.elems[index].clone().unwrap_or_else(|| any_default.clone());
                        Type::Vector(Arc::new(elem))
                    }
                    _ => class.default_type().unwrap_or_else(|| any_default.clone()),
                };
                *slot = Slot::Bound(ty);
            }
        }
    }

    fn occurs(&self, var: TypeVarId, ty: &Type, depth: u32) -> bool {
        if depth > MAX_OCCURS_DEPTH {
            return true;
        }
        match self.resolve_ref(ty) {
            Type::Var(v) if *v == var => true,
            Type::Var(v) => self.elem(*v).is_some_and(|e| self.occurs(var, e, depth + 1)),
            Type::Vector(e) | Type::Ref(e) => self.occurs(var, e, depth + 1),
            Type::Array { elem, .. } | Type::ConstArray { elem, .. } => self.occurs(var, elem, depth + 1),
            Type::Tuple(components) => components.iter().any(|c| self.occurs(var, c, depth + 1)),
            _ => false,
        }
    }

    /// Makes `a` and `b` the same type. `Type::Error` unifies with anything (and absorbs variables), so an earlier
    /// error never causes another. Array sizes and memory spaces are not part of an array's identity (a device
    /// function taking an array accepts shared and local arrays of any size, as a C pointer does).
    pub(crate) fn unify(&mut self, a: &Type, b: &Type) -> bool {
        let (a, b) = (self.resolve_ref(a), self.resolve_ref(b));
        // The common cases first, without copies: two variables, a variable and a scalar, two equal scalars.
        if let (Type::Var(x), Type::Var(y)) = (a, b) {
            let (x, y) = (*x, *y);
            return self.unify_vars(x, y);
        }
        if let Some(case) = ScalarCase::of(a, b) {
            return self.unify_scalar_case(case);
        }
        // Copies are cheap (element types are shared), and free the table for the bindings below.
        let (a, b) = (a.clone(), b.clone());
        match (a, b) {
            (Type::Error, Type::Var(v)) | (Type::Var(v), Type::Error) => {
                self.force_bind(v, Type::Error);
                true
            }
            (Type::Error, _) | (_, Type::Error) => true,
            (Type::Var(x), Type::Var(y)) => self.unify_vars(x, y),
            (Type::Var(v), t) | (t, Type::Var(v)) => self.bind_checked(v, t),
            (Type::Vector(x), Type::Vector(y)) | (Type::Ref(x), Type::Ref(y)) => self.unify(&x, &y),
            (Type::Array { elem: x, .. }, Type::Array { elem: y, .. }) => self.unify(&x, &y),
            (Type::ConstArray { elem: x, .. }, Type::ConstArray { elem: y, .. }) => self.unify(&x, &y),
            (Type::Tuple(x), Type::Tuple(y)) => {
                // Every component, even after a mismatch, so that each binds what it can.
                x.len() == y.len() && x.iter().zip(y.iter()).fold(true, |all, (x, y)| self.unify(x, y) && all)
            }
            (x, y) => x == y,
        }
    }

    /// [`VarTable::unify`], but a failed attempt leaves the table as it found it (callers word their diagnostic
    /// in the state before the attempt, then repeat it with `unify` so that its partial bindings stay).
    #[inline]
    pub(crate) fn unify_or_undo(&mut self, a: &Type, b: &Type) -> bool {
        // Two equal scalars (a loop body's unit, a condition's bool, most operands): nothing to bind or undo.
        // A variable and a scalar: one binding, made only if it succeeds, so nothing to undo either.
        if let Some(case) = ScalarCase::of(self.resolve_ref(a), self.resolve_ref(b)) {
            return self.unify_scalar_case(case);
        }
        self.unify_with_trail(a, b)
    }

    /// Unifies the two types of `case` (one binding at most, made only if it succeeds).
    #[inline]
    fn unify_scalar_case(&mut self, case: ScalarCase) -> bool {
        match case {
            ScalarCase::Same => true,
            ScalarCase::Bind(v, t) => self.bind_scalar(v, t),
        }
    }

    /// [`VarTable::unify_or_undo`] past its inline test.
    #[inline(never)]
    fn unify_with_trail(&mut self, a: &Type, b: &Type) -> bool {
        self.trail.clear();
        self.trailing = true;
        let unified = self.unify(a, b);
        self.trailing = false;
        if !unified {
            while let Some((index, old)) = self.trail.pop() {
                self.slots[index as usize] = old;
            }
        }
        unified
    }

    /// Would `a` and `b` unify? (Tries on a copy; used only to word diagnostics.)
    pub(crate) fn clone_unifies(&self, a: &Type, b: &Type) -> bool {
        let mut copy = VarTable { slots: self.slots.clone(), elems: self.elems.clone(), ..VarTable::default() };
        copy.unify(a, b)
    }

    fn size(&self, var: TypeVarId) -> u32 {
        self.sizes.get(var.0 as usize).copied().unwrap_or(1)
    }

    fn unify_vars(&mut self, x: TypeVarId, y: TypeVarId) -> bool {
        if x == y {
            return true;
        }
        let (Some(cx), Some(cy)) = (self.var_class(x), self.var_class(y)) else {
            return false;
        };
        let Some(class) = cx.meet(cy) else {
            return false;
        };
        match (cx, cy) {
            (Class::Array, Class::Array) => {
                let (ex, ey) = (self.elem(x).cloned(), self.elem(y).cloned());
                if self.occurs(x, &Type::Var(y), 0) || self.occurs(y, &Type::Var(x), 0) {
                    return false;
                }
                self.force_bind(x, Type::Var(y));
                match (ex, ey) {
                    (Some(ex), Some(ey)) => self.unify(&ex, &ey),
                    _ => true,
                }
            }
            (Class::Array, _) => {
                if self.occurs(y, &Type::Var(x), 0) {
                    return false;
                }
                self.force_bind(y, Type::Var(x));
                true
            }
            _ => {
                // An `Array` variable stays the root: its element type is kept under it (`elems`).
                let (size_x, size_y) = (self.size(x), self.size(y));
                let swap = size_x > size_y && cy != Class::Array;
                let (child, root) = if swap { (y, x) } else { (x, y) };
                if self.occurs(child, &Type::Var(root), 0) {
                    return false;
                }
                self.set_slot(root.0 as usize, Slot::Unbound(class));
                self.force_bind(child, Type::Var(root));
                let joined = size_x.saturating_add(size_y);
                if let Some(slot) = self.sizes.get_mut(root.0 as usize) {
                    *slot = joined;
                }
                true
            }
        }
    }

    /// [`VarTable::bind_checked`] for a type without elements or variables: no occurrence to look for, and no
    /// element to unify (a scalar is never an array, so an `Array` variable does not admit it).
    fn bind_scalar(&mut self, var: TypeVarId, ty: Type) -> bool {
        match self.var_class(var) {
            Some(class) if class.admits(&ty) => {
                self.force_bind(var, ty);
                true
            }
            _ => false,
        }
    }

    fn bind_checked(&mut self, var: TypeVarId, ty: Type) -> bool {
        let Some(class) = self.var_class(var) else {
            return false;
        };
        if !class.admits(&ty) || self.occurs(var, &ty, 0) {
            return false;
        }
        let elem = self.elem(var).cloned();
        let actual = ty.element().cloned();
        self.force_bind(var, ty);
        match (elem, actual) {
            (Some(elem), Some(actual)) => self.unify(&elem, &actual),
            _ => true,
        }
    }
}

/// A type without element types or variables: equal ones unify without consulting the table.
fn is_scalar(ty: &Type) -> bool {
    use Type::*;
    matches!(ty, Int32 | Int64 | UInt32 | UInt64 | Float32 | Float64 | Bool | Unit | Record(_))
}

/// Two resolved types of which one is a scalar and the other the same scalar or a variable: the cases unification
/// answers without copies or an undo trail.
enum ScalarCase {
    Same,
    /// Bind the variable to the scalar.
    Bind(TypeVarId, Type),
}

impl ScalarCase {
    #[inline]
    fn of(a: &Type, b: &Type) -> Option<ScalarCase> {
        match (a, b) {
            (Type::Var(v), t) | (t, Type::Var(v)) if is_scalar(t) => Some(ScalarCase::Bind(*v, t.clone())),
            _ if is_scalar(a) && same_scalar(a, b) => Some(ScalarCase::Same),
            _ => None,
        }
    }
}

/// `a == b` for a scalar `a`, inline (the derived equality is a call).
#[inline]
fn same_scalar(a: &Type, b: &Type) -> bool {
    match (a, b) {
        (Type::Record(x), Type::Record(y)) => x == y,
        _ => std::mem::discriminant(a) == std::mem::discriminant(b),
    }
}

/// `container` (a vector, ref or array type) with its element type replaced.
pub(crate) fn with_element(container: &Type, elem: Type) -> Type {
    let elem = Arc::new(elem);
    match container {
        Type::Vector(_) => Type::Vector(elem),
        Type::Ref(_) => Type::Ref(elem),
        Type::Array { space, size, .. } => Type::Array { elem, space: *space, size: *size },
        Type::ConstArray { size, .. } => Type::ConstArray { elem, size: *size },
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_meet_and_default() {
        let mut vars = VarTable::default();
        let n = vars.fresh(Class::Numeric);
        let i = vars.fresh(Class::Integer);
        assert!(vars.unify(&n, &i));
        assert_eq!(vars.class_of(&n), Some(Class::Integer));
        let f = vars.fresh(Class::Float);
        assert!(!vars.unify(&n, &f));
        vars.default_all(Type::Unit);
        assert_eq!(vars.zonk(&n), Type::Int32);
        assert_eq!(vars.zonk(&f), Type::Float32);
    }

    #[test]
    fn occurs_check_and_error_absorption() {
        let mut vars = VarTable::default();
        let a = vars.fresh(Class::Any);
        assert!(!vars.unify(&a, &Type::Vector(Arc::new(a.clone()))));
        assert!(vars.unify(&a, &Type::Error));
        assert_eq!(vars.zonk(&a), Type::Error);
        let i = vars.fresh(Class::Integer);
        assert!(!vars.unify(&i, &Type::Bool));
        assert!(vars.unify(&Type::Vector(Arc::new(i.clone())), &Type::Vector(Arc::new(Type::Int64))));
        assert_eq!(vars.zonk(&i), Type::Int64);
    }

    #[test]
    fn array_variables_become_the_array_they_meet_or_vectors() {
        let mut vars = VarTable::default();
        let elem = vars.fresh(Class::Any);
        let some_array = vars.fresh_array(elem.clone());
        assert!(!vars.unify(&some_array, &Type::Int32));
        let shared = Type::Array {
            elem: Arc::new(Type::Float32),
            space: crate::syntax::ast::MemorySpace::Shared,
            size: crate::types::ArraySize::Const(8),
        };
        assert!(vars.unify(&some_array, &shared));
        assert_eq!(vars.zonk(&elem), Type::Float32);
        let other_elem = vars.fresh(Class::Integer);
        let other = vars.fresh_array(other_elem.clone());
        let any = vars.fresh(Class::Any);
        assert!(vars.unify(&any, &other));
        vars.default_all(Type::Unit);
        assert_eq!(vars.zonk(&any), Type::Vector(Arc::new(Type::Int32)));
    }
}

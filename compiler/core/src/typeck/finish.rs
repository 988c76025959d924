//! The last phase: report recursion and the locals whose type could not be inferred (`E0209`), default the
//! remaining variables by class, propagate writes through calls, run the checks that need final types
//! (comparison operands, discarded values, writes to constant arrays, kernel parameter types), and substitute
//! every variable in the result.

use std::sync::Arc;

use crate::diagnostic::Diagnostic;
use crate::fxhash::FxHashMap;
use crate::syntax::ast::{ExprId, ExprKind};
use crate::types::{Resolution, Type, TypeInfo};

use super::infer::VarTable;
use super::{Checker, Deferred};

impl Checker<'_> {
    pub(crate) fn finish(mut self) -> (TypeInfo, Vec<crate::diagnostic::Diagnostic>) {
        self.report_recursion();
        self.report_uninferred_locals();
        self.vars.default_all(Type::Unit);
        self.propagate_writes();
        self.run_deferred();
        self.check_returned_cells();
        self.check_kernel_params();
        self.check_stored_types();
        // One pass over the flags lists the expressions both steps look at: those marked for a final check and
        // those never checked (the orphans, which may be of any kind).
        let candidates: Vec<ExprId> = (self.typed.iter().zip(&self.final_checks).enumerate())
            .filter(|(_, (typed, marked))| !**typed || **marked)
            .map(|(index, _)| ExprId(index as u32))
            .collect();
        self.check_final_expressions(&candidates);
        let orphans: Vec<ExprId> = candidates.into_iter().filter(|id| !self.is_typed(*id)).collect();
        self.type_orphans(&orphans);
        self.substitute_all();
        self.check_dimensions();
        self.export_aliases();
        (self.info, self.diagnostics)
    }

    /// `E0209` for each local whose type still holds an unconstrained variable (reported once per variable).
    /// A function nothing names (no call, so no instance and nothing emitted) may leave its parameters' types
    /// open, as a generic `let first x = x` does: they are fixed to `int32` quietly first, so it checks.
    fn report_uninferred_locals(&mut self) {
        self.fix_unused_generic_params();
        let quiet: Vec<crate::types::LocalId> = (self.anonymous_values.iter())
            .filter_map(|f| self.info.functions.get(f.0 as usize))
            .flat_map(|f| f.params.iter().copied())
            .collect();
        for index in 0..self.info.locals.len() {
            if quiet.contains(&crate::types::LocalId(index as u32)) {
                continue;
            }
            let local = &self.info.locals[index];
            if self.holds_no_unbound_variable(&local.ty) {
                continue; // most locals: a scalar, or an array or cell of scalars
            }
            let unbound: Vec<_> = self
                .vars
                .unbound_vars(&local.ty)
                .into_iter()
                .filter(|v| self.vars.var_class(*v) == Some(super::infer::Class::Any))
                .collect();
            if unbound.is_empty() {
                continue;
            }
            let d = Diagnostic::error("E0209", format!("cannot infer the type of `{}`", local.name))
                .primary(local.span, "type unknown")
                .help(format!("annotate it: `({} : float32)`", local.name));
            self.diagnostics.push(d);
            for var in unbound {
                self.vars.force_bind(var, Type::Error);
            }
        }
    }

    /// Is `ty` (resolved) a scalar, or a vector, array or cell whose element resolves to one? Then it holds no
    /// unbound variable, and `unbound_vars` (which copies it) need not look.
    fn holds_no_unbound_variable(&self, ty: &Type) -> bool {
        match self.vars.resolve_ref(ty) {
            Type::Vector(elem) | Type::Ref(elem) | Type::Array { elem, .. } | Type::ConstArray { elem, .. } => {
                is_leaf(self.vars.resolve_ref(elem))
            }
            resolved => is_leaf(resolved),
        }
    }

    fn fix_unused_generic_params(&mut self) {
        // A function is named where an expression resolves to it (`resolve_path` marks it).
        let mut named = std::mem::take(&mut self.named_functions);
        named.resize(self.info.functions.len(), false);
        let unused = self.info.functions.iter().zip(&named).filter(|(_, named)| !**named);
        let params: Vec<crate::types::LocalId> = unused.flat_map(|(f, _)| f.params.iter().copied()).collect();
        for param in params {
            let ty = self.info.locals[param.0 as usize].ty.clone();
            for var in self.vars.unbound_vars(&ty) {
                if self.vars.var_class(var) == Some(super::infer::Class::Any) {
                    self.vars.force_bind(var, Type::Int32);
                }
            }
        }
    }

    fn run_deferred(&mut self) {
        let instances = std::mem::take(&mut self.deferred_instances);
        let deferred_checks = std::mem::take(&mut self.deferred);
        for (index, deferred) in deferred_checks.iter().enumerate() {
            let before = self.diagnostics.len();
            self.run_one_deferred(deferred);
            if let Some((_, note)) = instances.iter().find(|(range, _)| range.contains(&index)) {
                for d in &mut self.diagnostics[before..] {
                    d.notes.push(note.clone());
                }
            }
        }
    }

    fn run_one_deferred(&mut self, deferred: &Deferred) {
        match deferred {
            Deferred::Comparable { ty, expr } => self.check_comparable(ty, *expr),
            Deferred::Discarded { expr } => self.check_discarded(*expr),
            Deferred::Written { ty, expr } => {
                if matches!(self.vars.resolve_ref(ty), Type::ConstArray { .. }) {
                    self.report_constant_array_write(*expr);
                }
            }
            Deferred::Cell { expr, ty, rule } => self.finish_cell_rule(*expr, ty, *rule),
            Deferred::Half { expr, what } => self.finish_half_check(*expr, what),
        }
    }

    fn check_comparable(&mut self, ty: &Type, expr: crate::syntax::ast::ExprId) {
        // The types that pass are scalars, which resolving shows; zonking (a copy) is left to the report.
        let resolved = self.vars.resolve_ref(ty);
        if resolved.is_numeric() || matches!(resolved, Type::Bool | Type::Error) {
            return;
        }
        let ty = self.vars.zonk(ty);
        let shown = self.info.display(&ty);
        let d = Diagnostic::error("E0201", format!("mismatched types: expected a number or bool, found {shown}"))
            .primary(self.span(expr), format!("cannot compare values of type {shown}"));
        self.diagnostics.push(d);
    }

    fn check_discarded(&mut self, expr: crate::syntax::ast::ExprId) {
        // As in `check_comparable`: the types that pass are scalars, read in place.
        // An expression not checked has `Type::Error`, and passes.
        let passes = match self.types.get(expr.index()) {
            Some(ty) => matches!(self.vars.resolve_ref(ty), Type::Unit | Type::Error),
            None => true,
        };
        if passes {
            return;
        }
        let ty = self.vars.zonk(&self.type_of(expr));
        let shown = self.info.display(&ty);
        let d = Diagnostic::warning("W0003", "this value is discarded")
            .primary(self.span(expr), format!("this is {shown}, not unit"))
            .help("bind it with `let _ = ... in` if discarding it is intended");
        self.diagnostics.push(d);
    }

    /// Keeps, in `TypeInfo::aliases`, the aliases of locals that refer to storage (arrays, vectors, `ref` cells).
    fn export_aliases(&mut self) {
        let aliases = std::mem::take(&mut self.effects.aliases);
        for (local, names) in aliases {
            let refers = matches!(
                self.info.locals.get(local.0 as usize).map(|l| &l.ty),
                Some(Type::Vector(_) | Type::Array { .. } | Type::Ref(_))
            );
            if refers {
                self.info.aliases.insert(local, names);
            }
        }
    }

    /// `E0214` for kernel parameters that are not scalars, records or vectors of those.
    fn check_kernel_params(&mut self) {
        let mut found = Vec::new();
        for kernel in &self.info.kernels {
            for param in &kernel.params {
                let ty = self.vars.zonk(&param.ty);
                if !is_kernel_param_type(&ty) {
                    let span = self.local_info(param.local).map(|l| l.span).unwrap_or_default();
                    found.push((param.name.clone(), ty, span));
                }
            }
        }
        for (name, ty, span) in found {
            let shown = self.info.display(&ty);
            let d = Diagnostic::error("E0214", format!("kernel parameter `{name}` cannot have type {shown}"))
                .primary(span, format!("this is {shown}"))
                .help("kernel parameters are scalars, records or vectors (`float32 vector`)");
            self.diagnostics.push(d);
        }
    }

    /// Types, without diagnostics, the expressions no rule visited: the parser replaces `a.(i)`, `r.f` and `x`
    /// by `a.(i) <- v`, `r.f <- v` and `x := v` but keeps the originals in the arena, where a hover may find them.
    fn type_orphans(&mut self, orphans: &[ExprId]) {
        // The assignments by the span of their target, built at the first orphan name (most modules have none).
        let mut assign_targets: Option<FxHashMap<crate::source::Span, ExprId>> = None;
        for &id in orphans {
            let ty = match self.kind(id) {
                ExprKind::Index { array, .. } => {
                    let array_ty = self.types.get(array.index()).unwrap_or(&Type::Error);
                    self.vars.resolve_ref(array_ty).element().cloned()
                }
                ExprKind::Field { record, field } => self.quiet_field_type(*record, &field.name),
                ExprKind::Var(path) => {
                    let targets = assign_targets.get_or_insert_with(|| self.assignments_by_target(orphans));
                    targets.get(&path.span()).and_then(|a| self.info.resolution(*a)).map(|r| match r {
                        Resolution::Local(l) => self.local_type(l),
                        _ => Type::Error,
                    })
                }
                _ => None,
            };
            self.set_type(id, ty.unwrap_or(Type::Error));
        }
    }

    /// Every assignment of the module by the span of its target (the last in the arena where two share one):
    /// those checked (`checked_assigns`) and those never checked (among `orphans`), without a pass over the arena.
    fn assignments_by_target(&self, orphans: &[ExprId]) -> FxHashMap<crate::source::Span, ExprId> {
        let mut assigns = self.checked_assigns.clone();
        assigns.extend(orphans.iter().filter(|id| matches!(self.kind(**id), ExprKind::Assign { .. })));
        assigns.sort_unstable();
        assigns.dedup();
        let mut targets = FxHashMap::default();
        targets.reserve(assigns.len());
        for id in assigns {
            if let ExprKind::Assign { target, .. } = self.kind(id) {
                targets.insert(target.span(), id);
            }
        }
        targets
    }

    fn quiet_field_type(&self, record: ExprId, field: &str) -> Option<Type> {
        let Type::Record(id) = self.vars.resolve(&self.type_of(record)) else { return None };
        let info = self.info.records.get(id.0 as usize)?;
        info.fields.iter().find(|(name, _)| name == field).map(|(_, ty)| ty.clone())
    }

    /// The checks and records of single expressions that need their final types, in one pass over the arena:
    /// a tuple's components (`check_tuple_components`), a float literal's value (`check_float_literal`), an `if`
    /// whose condition is a compile-time constant (`record_constant_condition`, before the types are substituted:
    /// constant evaluation reads them through the variable table).
    /// `candidates`: the marked expressions and those never checked (which `type_orphans` types next), the only
    /// ones that can be one of these; the others are passed over without reading their kind.
    fn check_final_expressions(&mut self, candidates: &[ExprId]) {
        for &id in candidates {
            match self.kind(id) {
                ExprKind::Tuple(components) => self.check_tuple_components(id, components),
                ExprKind::Float { value, .. } => self.check_float_literal(id, *value),
                ExprKind::If { cond, .. } => self.record_constant_condition(id, *cond),
                _ => {}
            }
        }
    }

    /// Records the condition of `if_expr` if it is a compile-time constant (`TypeInfo::constant_conditions`).
    fn record_constant_condition(&mut self, if_expr: ExprId, cond: ExprId) {
        if let Ok(crate::types::ConstValue::Bool(value)) = self.eval_const(cond) {
            self.info.constant_conditions.insert(if_expr, value);
        }
    }

    /// Replaces every variable in the result by its (defaulted) type.
    fn substitute_all(&mut self) {
        let mut finals = FinalTypes::new(&self.vars);
        // In place: only the types that hold variables are replaced; the rest (most of them: scalars) are left as
        // they are, and the vector becomes `expr_types`.
        let mut types = std::mem::take(&mut self.types);
        for ty in &mut types {
            if contains_var(ty) {
                let final_type = finals.get(ty);
                super::drop_type(std::mem::replace(ty, final_type));
            }
        }
        self.info.expr_types = types;
        let mut final_type = |ty: &Type| finals.get(ty);
        for local in &mut self.info.locals {
            let ty = final_type(&local.ty);
            super::drop_type(std::mem::replace(&mut local.ty, ty));
        }
        for function in &mut self.info.functions {
            function.ret = final_type(&function.ret);
        }
        for kernel in &mut self.info.kernels {
            for param in &mut kernel.params {
                param.ty = final_type(&param.ty);
            }
            kernel.dynamic_shared = kernel.dynamic_shared.as_ref().map(&mut final_type);
        }
        for constant in &mut self.info.constants {
            constant.ty = final_type(&constant.ty);
        }
    }
}

/// Final types, remembered per variable: most expression types are a variable, many expressions share one (every
/// use of a local has the local's type), and a vector type would be rebuilt at each. Array and cell types that
/// hold variables are remembered by their shared element (every use of a `ref` local holds the same one).
struct FinalTypes<'v> {
    vars: &'v VarTable,
    of_var: Vec<Option<Type>>,
    of_element: FxHashMap<*const Type, (Type, Type)>,
}

impl<'v> FinalTypes<'v> {
    fn new(vars: &'v VarTable) -> FinalTypes<'v> {
        let mut of_var = Vec::new();
        of_var.resize_with(vars.len(), || None);
        FinalTypes { vars, of_var, of_element: FxHashMap::default() }
    }

    #[inline]
    fn get(&mut self, ty: &Type) -> Type {
        match ty {
            Type::Var(var) => self.of_var(var.0 as usize, ty),
            Type::Vector(e) | Type::Ref(e) | Type::Array { elem: e, .. } | Type::ConstArray { elem: e, .. }
                if contains_var(e) =>
            {
                self.of_element(Arc::as_ptr(e), ty)
            }
            Type::Tuple(_) if contains_var(ty) => final_type(self.vars, ty),
            _ => ty.clone(),
        }
    }

    fn of_element(&mut self, element: *const Type, ty: &Type) -> Type {
        // The same element under another constructor (a vector and a cell of one type) is another entry's.
        if let Some((original, known)) = self.of_element.get(&element) {
            if original == ty {
                return known.clone();
            }
        }
        let computed = final_type(self.vars, ty);
        self.of_element.insert(element, (ty.clone(), computed.clone()));
        computed
    }

    #[inline]
    fn of_var(&mut self, index: usize, ty: &Type) -> Type {
        // A variable bound to a scalar (most of them) is answered without the cache: the scalar is rebuilt in
        // place, where a cached answer is cloned into the cache and out of it.
        if let Some(scalar) = leaf_copy(self.vars.resolve_ref(ty)) {
            return scalar;
        }
        if let Some(Some(known)) = self.of_var.get(index) {
            return known.clone();
        }
        let computed = final_type(self.vars, ty);
        if let Some(slot) = self.of_var.get_mut(index) {
            *slot = Some(computed.clone());
        }
        computed
    }
}

/// A copy of `ty` if it holds no other type (a scalar, a record, `Type::Error`), made without a call; `None` for
/// the rest (variables, constructed types).
#[inline]
fn leaf_copy(ty: &Type) -> Option<Type> {
    Some(match ty {
        Type::Int32 => Type::Int32,
        Type::Int64 => Type::Int64,
        Type::UInt32 => Type::UInt32,
        Type::UInt64 => Type::UInt64,
        Type::Float32 => Type::Float32,
        Type::Float64 => Type::Float64,
        Type::Float16 => Type::Float16,
        Type::BFloat16 => Type::BFloat16,
        Type::Bool => Type::Bool,
        Type::Unit => Type::Unit,
        Type::Record(id) => Type::Record(*id),
        Type::Error => Type::Error,
        Type::Vector(_)
        | Type::Array { .. }
        | Type::ConstArray { .. }
        | Type::Ref(_)
        | Type::Tuple(_)
        | Type::Var(_) => return None,
    })
}

/// `ty` with its variables substituted (and any left, none should be, made `Type::Error`); most types are
/// scalars, which need nothing rebuilt.
fn final_type(vars: &VarTable, ty: &Type) -> Type {
    match vars.resolve_ref(ty) {
        Type::Var(_) => Type::Error,
        resolved if !contains_var(resolved) => resolved.clone(),
        _ => strip_vars(vars.zonk(ty)),
    }
}

/// A type that holds no other type and is not a variable (a scalar, a record, `Type::Error`).
fn is_leaf(ty: &Type) -> bool {
    !matches!(
        ty,
        Type::Vector(_) | Type::Array { .. } | Type::ConstArray { .. } | Type::Ref(_) | Type::Tuple(_) | Type::Var(_)
    )
}

fn is_scalar_or_record(ty: &Type) -> bool {
    ty.is_numeric() || matches!(ty, Type::Bool | Type::Record(_) | Type::Error)
}

fn is_kernel_param_type(ty: &Type) -> bool {
    match ty {
        Type::Vector(elem) => is_scalar_or_record(elem),
        other => is_scalar_or_record(other),
    }
}

/// Defence: a variable left after defaulting (none should be) becomes `Type::Error`.
fn strip_vars(ty: Type) -> Type {
    if !contains_var(&ty) {
        return ty;
    }
    match ty {
        Type::Var(_) => Type::Error,
        Type::Vector(e) => Type::Vector(Arc::new(strip_vars(Type::clone(&e)))),
        Type::Ref(e) => Type::Ref(Arc::new(strip_vars(Type::clone(&e)))),
        Type::Array { elem, space, size } => {
            Type::Array { elem: Arc::new(strip_vars(Type::clone(&elem))), space, size }
        }
        Type::ConstArray { elem, size } => Type::ConstArray { elem: Arc::new(strip_vars(Type::clone(&elem))), size },
        Type::Tuple(components) => Type::Tuple(components.iter().map(|c| strip_vars(c.clone())).collect()),
        other => other,
    }
}

/// Does `ty` hold a type variable? Inlined for the common answers (a variable, a scalar): it is asked of every
/// expression's type.
#[inline]
fn contains_var(ty: &Type) -> bool {
    match ty {
        Type::Var(_) => true,
        Type::Vector(_) | Type::Ref(_) | Type::Array { .. } | Type::ConstArray { .. } | Type::Tuple(_) => {
            constructed_contains_var(ty)
        }
        _ => false,
    }
}

/// [`contains_var`] of a type built from others.
fn constructed_contains_var(ty: &Type) -> bool {
    match ty {
        Type::Vector(e) | Type::Ref(e) | Type::Array { elem: e, .. } | Type::ConstArray { elem: e, .. } => {
            contains_var(e)
        }
        Type::Tuple(components) => components.iter().any(contains_var),
        _ => contains_var(ty),
    }
}

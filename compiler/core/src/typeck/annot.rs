//! Types as written (`TypeExpr`) lowered to [`Type`]: scalar names and their aliases, record names, the postfix
//! constructors `vector`, `ref` and `array`, and sized local arrays `T[N]` whose size is a constant.

use std::sync::Arc;

use crate::diagnostic::Diagnostic;
use crate::syntax::ast::{ExprId, Ident, MemorySpace, Name, TypeExpr};
use crate::types::{ArraySize, ConstValue, Type};

use super::consts::EvalError;
use super::infer::Class;
use super::scope::is_bogus_name;
use super::Checker;

/// Scalar type names, with the aliases Sarek code uses.
pub(crate) const SCALAR_TYPES: &[(&str, Type)] = &[
    ("int32", Type::Int32),
    ("int", Type::Int32),
    ("int64", Type::Int64),
    ("uint32", Type::UInt32),
    ("uint64", Type::UInt64),
    ("float32", Type::Float32),
    ("float", Type::Float32),
    ("float64", Type::Float64),
    ("float16", Type::Float16),
    ("bfloat16", Type::BFloat16),
    ("bool", Type::Bool),
    ("unit", Type::Unit),
];

const CONSTRUCTORS: &[&str] = &["vector", "ref", "array"];

impl Checker<'_> {
    /// The type a type expression denotes; unknown names are reported and become `Type::Error`.
    pub(crate) fn lower_type(&mut self, ty: &TypeExpr) -> Type {
        match ty {
            TypeExpr::Named(name) => self.named_type(name),
            TypeExpr::Qualified { module, name } => self.qualified_type(module, name),
            TypeExpr::Variable(name) => self.type_variable(name),
            TypeExpr::Apply { arg, constructor } => {
                let inner = self.lower_type(arg);
                self.apply_constructor(inner, constructor)
            }
            TypeExpr::QualifiedApply { arg, module, constructor } => self.kirc_type(arg, module, constructor),
            TypeExpr::Sized { elem, size, .. } => {
                let elem = self.lower_type(elem);
                let size = self.constant_array_size(*size);
                Type::Array { elem: Arc::new(elem), space: MemorySpace::Local, size }
            }
            TypeExpr::Tuple(components) => {
                self.made_tuples = true;
                Type::Tuple(components.iter().map(|c| self.lower_component(c)).collect())
            }
            TypeExpr::Function { .. } => {
                let d = Diagnostic::error("E0233", "a function type where a value's type is expected")
                    .primary(ty.span(), "only a device function's parameter can be a function")
                    .note("a function is passed to a device function and called there; it is not a value a kernel receives, a variable holds or a function returns");
                self.diagnostics.push(d);
                Type::Error
            }
        }
    }

    /// A tuple type's component: E0219 for one that is not stored by value (an array, a vector, a `ref`, `unit`).
    fn lower_component(&mut self, ty: &TypeExpr) -> Type {
        let lowered = self.lower_type(ty);
        if !super::tuples::is_stored_by_value(&lowered) {
            let shown = self.info.display(&lowered);
            let d = Diagnostic::error("E0219", format!("a tuple's component cannot have type {shown}"))
                .primary(ty.span(), "this type has no representation in memory")
                .note("a tuple's components are scalars, records and tuples, stored by value");
            self.diagnostics.push(d);
            return Type::Error;
        }
        lowered
    }

    /// The element type of an array declaration: `float32`, or Sarek's `float32 array`.
    pub(crate) fn lower_element_type(&mut self, ty: &TypeExpr) -> Type {
        match ty {
            TypeExpr::Apply { arg, constructor } if constructor.name == "array" => self.lower_type(arg),
            other => self.lower_type(other),
        }
    }

    fn named_type(&mut self, name: &Ident) -> Type {
        // `_`: a type left to inference (a tuple pattern's annotation is `_ * _`).
        if name.name == "_" {
            return self.vars.fresh(Class::Any);
        }
        if let Some((_, ty)) = SCALAR_TYPES.iter().find(|(n, _)| *n == name.name) {
            return ty.clone();
        }
        if let Some(record) = self.items.record(&name.name) {
            return Type::Record(record);
        }
        if !is_bogus_name(&name.name) {
            let records: Vec<String> = self.items.records.keys().map(Name::to_string).collect();
            let candidates = SCALAR_TYPES.iter().map(|(n, _)| *n).chain(records.iter().map(String::as_str));
            let mut d = Diagnostic::error("E0200", format!("unknown type `{}`", name.name))
                .primary(name.span, "not a type in scope");
            if let Some(s) = self.closest(&name.name, candidates) {
                d = d.help(format!("did you mean `{s}`?"));
            }
            self.diagnostics.push(d);
        }
        Type::Error
    }

    /// `'a`: the type this name stands for in the current signature and body, a fresh variable at its first
    /// occurrence (the body may fix it, as in OCaml; if it does not, the function is generic over it). Outside
    /// a function or kernel (a record field, a constant) it is E0205.
    fn type_variable(&mut self, name: &Ident) -> Type {
        let Some(scope) = &self.type_variables else {
            let d = Diagnostic::error("E0205", "a type variable here is not supported")
                .primary(name.span, "a type variable")
                .help("type variables name the types of a device function's parameters and result");
            self.diagnostics.push(d);
            return Type::Error;
        };
        if let Some((_, ty)) = scope.iter().find(|(n, _)| *n == name.name) {
            return ty.clone();
        }
        let ty = self.vars.fresh(Class::Any);
        if let Some(scope) = &mut self.type_variables {
            scope.push((name.name.clone(), ty.clone()));
        }
        ty
    }

    /// `M.t`: the record `t` defined in the file of module `M`, which the program opens (E0217 otherwise, as for
    /// a qualified value); E0200 if that file defines no record `t`.
    fn qualified_type(&mut self, module: &Ident, name: &Ident) -> Type {
        if is_bogus_name(&module.name) || is_bogus_name(&name.name) || !self.check_opened(module) {
            return Type::Error;
        }
        let shown = format!("{}.{}", module.name, name.name);
        let Some(&(record, defined)) = self.items.records.get(name.name.as_str()) else {
            let mut d = Diagnostic::error("E0200", format!("unknown type `{shown}`")).primary(
                module.span.to(name.span),
                format!("module `{}` defines no record `{}`", module.name, name.name),
            );
            let in_module: Vec<String> = self
                .items
                .records
                .iter()
                .filter(|(_, (_, span))| self.is_in_module_file(*span, &module.name))
                .map(|(n, _)| n.to_string())
                .collect();
            if let Some(s) = self.closest(&name.name, in_module.iter().map(String::as_str)) {
                d = d.help(format!("did you mean `{}.{s}`?", module.name));
            }
            self.diagnostics.push(d);
            return Type::Error;
        };
        if !self.is_in_module_file(defined, &module.name) {
            let file = self.sources.file(defined.file).name.clone();
            let d = Diagnostic::error("E0200", format!("unknown type `{shown}`"))
                .primary(
                    module.span.to(name.span),
                    format!("module `{}` defines no record `{}`", module.name, name.name),
                )
                .secondary(defined, format!("`{}` is defined here, in {file}", name.name))
                .help(format!("write `{}` without the qualifier", name.name));
            self.diagnostics.push(d);
        }
        Type::Record(record)
    }

    /// A type constructor qualified by a module: older Kirc code's global vector, `T Arr.t Global.t`, is
    /// `T vector`; any other is E0200.
    fn kirc_type(&mut self, arg: &TypeExpr, module: &Ident, constructor: &Ident) -> Type {
        let is = |m: &Ident, c: &Ident, module: &str| m.name == module && c.name == "t";
        if let TypeExpr::QualifiedApply { arg: element, module: inner, constructor: array } = arg {
            if is(module, constructor, "Global") && is(inner, array, "Arr") {
                return Type::Vector(Arc::new(self.lower_type(element)));
            }
        }
        let written = format!("{}.{}", module.name, constructor.name);
        let d = Diagnostic::error("E0200", format!("unknown type constructor `{written}`"))
            .primary(module.span.to(constructor.span), "not a type constructor of skc")
            .help(
                "skc's type constructors are `vector`, `ref` and `array`; older Kirc code's global array \
                 `T Arr.t Global.t` is read as `T vector`",
            );
        self.diagnostics.push(d);
        Type::Error
    }

    fn apply_constructor(&mut self, inner: Type, constructor: &Ident) -> Type {
        let elem = Arc::new(inner);
        match constructor.name.as_str() {
            "vector" => Type::Vector(elem),
            "ref" => Type::Ref(elem),
            // An array of unknown size and space: a device function's parameter (any shared or local array).
            "array" => Type::Array { elem, space: MemorySpace::Local, size: ArraySize::Dynamic },
            other => {
                if !is_bogus_name(other) {
                    let mut d = Diagnostic::error("E0200", format!("unknown type constructor `{other}`"))
                        .primary(constructor.span, "expected `vector`, `ref` or `array`");
                    if let Some(s) = self.closest(other, CONSTRUCTORS.iter().copied()) {
                        d = d.help(format!("did you mean `{s}`?"));
                    }
                    self.diagnostics.push(d);
                }
                Type::Error
            }
        }
    }

    /// The size `N` of `T[N]`: a positive compile-time constant (`E0203` otherwise).
    fn constant_array_size(&mut self, size: ExprId) -> ArraySize {
        let ty = self.check_expr(size);
        let integer = self.vars.fresh(Class::Integer);
        if !self.expect_type(size, &ty, &integer) {
            return ArraySize::Const(1);
        }
        match self.eval_const(size) {
            Ok(value) => self.positive_size(size, &value),
            Err(error) => {
                self.report_size_error(size, error, None);
                ArraySize::Const(1)
            }
        }
    }

    /// A constant array size, checked to be positive and to fit 32 bits.
    pub(crate) fn positive_size(&mut self, size: ExprId, value: &ConstValue) -> ArraySize {
        if let ConstValue::Int(n) = value {
            if *n > 0 && *n <= u32::MAX as i64 {
                return ArraySize::Const(*n as u32);
            }
        }
        let shown = match value {
            ConstValue::Int(n) => n.to_string(),
            _ => "not an integer".to_string(),
        };
        self.diagnostics.push(
            Diagnostic::error("E0203", "array size must be a positive integer")
                .primary(self.span(size), format!("this is {shown}")),
        );
        ArraySize::Const(1)
    }

    /// `E0203` for a size that is not a usable compile-time constant (nothing for a poisoned one).
    pub(crate) fn report_size_error(&mut self, size: ExprId, error: EvalError, help: Option<&str>) {
        let mut d = match error {
            EvalError::Poisoned => return,
            EvalError::Invalid(part, why) => Diagnostic::error("E0203", "array size must be a compile-time constant")
                .primary(self.span(size), "cannot be computed")
                .secondary(self.span(part), why),
            EvalError::NotConstant(part) => {
                let d = Diagnostic::error("E0203", "array size must be a compile-time constant")
                    .primary(self.span(size), "not known at compile time");
                if self.span(part) != self.span(size) {
                    d.secondary(self.span(part), "this is not a constant")
                } else {
                    d
                }
            }
        };
        if let Some(help) = help {
            d = d.help(help);
        }
        self.diagnostics.push(d);
    }
}

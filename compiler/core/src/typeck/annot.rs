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
    ("bool", Type::Bool),
    ("unit", Type::Unit),
];

const CONSTRUCTORS: &[&str] = &["vector", "ref", "array"];

impl Checker<'_> {
    /// The type a type expression denotes; unknown names are reported and become `Type::Error`.
    pub(crate) fn lower_type(&mut self, ty: &TypeExpr) -> Type {
        match ty {
            TypeExpr::Named(name) => self.named_type(name),
            TypeExpr::Apply { arg, constructor } => {
                let inner = self.lower_type(arg);
                self.apply_constructor(inner, constructor)
            }
            TypeExpr::Sized { elem, size, .. } => {
                let elem = self.lower_type(elem);
                let size = self.constant_array_size(*size);
                Type::Array { elem: Arc::new(elem), space: MemorySpace::Local, size }
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

    /// The element type of an array declaration: `float32`, or Sarek's `float32 array`.
    pub(crate) fn lower_element_type(&mut self, ty: &TypeExpr) -> Type {
        match ty {
            TypeExpr::Apply { arg, constructor } if constructor.name == "array" => self.lower_type(arg),
            other => self.lower_type(other),
        }
    }

    fn named_type(&mut self, name: &Ident) -> Type {
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

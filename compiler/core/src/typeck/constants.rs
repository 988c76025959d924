//! The constants phase: top-level constants are checked and evaluated before any function or kernel, in
//! dependency order (so a constant may use one defined below it; a cycle is `E0212`), with their type variables
//! defaulted at once, so that bodies see them with final types and values. `-D NAME=VALUE` overrides replace a
//! constant's value right after it is evaluated, so constants computed from it see the override (`E0215` when the
//! name or the value is wrong).

use std::sync::Arc;

use crate::diagnostic::Diagnostic;
use crate::source::Span;
use crate::syntax::ast::{Constant, ExprId, ExprKind, Item, TypeExpr};
use crate::types::{ConstantId, Type};

use super::consts::{parse_define, EvalError};
use super::report::Because;
use super::scope::{is_bogus_name, ValueItem};
use super::{BodyContext, Checker, Owner};

/// Most expressions walked when looking for a constant's dependencies (defence against huge inputs).
const MAX_WALK: usize = 100_000;

impl<'a> Checker<'a> {
    /// Checks and evaluates every constant, dependencies first.
    pub(crate) fn check_constants(&mut self) {
        for c in self.constant_order() {
            self.check_constant(c);
        }
        self.ctx = BodyContext::top_level();
    }

    fn constant_item(&self, c: ConstantId) -> Option<&'a Constant> {
        let item = self.info.constants.get(c.0 as usize)?.item;
        let module = self.module;
        match module.items.get(item) {
            Some(Item::Constant(constant)) => Some(constant),
            _ => None,
        }
    }

    /// The constants that constant `c`'s value names.
    fn constant_dependencies(&self, c: ConstantId) -> Vec<ConstantId> {
        let Some(constant) = self.constant_item(c) else {
            return Vec::new();
        };
        let mut deps = Vec::new();
        let mut stack = vec![constant.value];
        let mut walked = 0;
        while let Some(id) = stack.pop() {
            walked += 1;
            if walked > MAX_WALK || id.index() >= self.module.exprs.len() {
                break;
            }
            let name = match self.kind(id) {
                ExprKind::Var(path)
                    if path
                        .module
                        .as_ref()
                        .is_none_or(|m| !crate::builtins::BUILTIN_MODULES.contains(&m.name.as_str())) =>
                {
                    Some(&path.name.name)
                }
                ExprKind::Global(name) => Some(&name.name),
                _ => None,
            };
            if let Some(ValueItem::Constant(dep)) = name.and_then(|n| self.items.value(n)) {
                deps.push(dep);
            }
            self.module.push_children(id, &mut stack);
        }
        deps
    }

    /// A dependency order of the constants (depth-first, without recursion); cycles are reported.
    fn constant_order(&mut self) -> Vec<ConstantId> {
        let count = self.info.constants.len();
        let mut state = vec![0u8; count]; // 0: not visited, 1: in progress, 2: done
        let mut order = Vec::new();
        for root in 0..count {
            if state[root] != 0 {
                continue;
            }
            state[root] = 1;
            let mut stack = vec![(root, self.constant_dependencies(ConstantId(root as u32)), 0usize)];
            while let Some((current, deps, next)) = stack.last_mut() {
                let Some(dep) = deps.get(*next).map(|d| d.0 as usize) else {
                    state[*current] = 2;
                    order.push(ConstantId(*current as u32));
                    stack.pop();
                    continue;
                };
                *next += 1;
                match state.get(dep) {
                    Some(0) => {
                        state[dep] = 1;
                        stack.push((dep, self.constant_dependencies(ConstantId(dep as u32)), 0));
                    }
                    Some(1) => {
                        let on_cycle: Vec<usize> = stack.iter().map(|(c, _, _)| *c).skip_while(|c| *c != dep).collect();
                        self.report_constant_cycle(dep, &on_cycle);
                    }
                    _ => {}
                }
            }
        }
        order
    }

    fn report_constant_cycle(&mut self, start: usize, on_cycle: &[usize]) {
        for &c in on_cycle {
            if let Some(failed) = self.failed_constants.get_mut(c) {
                *failed = true;
            }
        }
        let Some(constant) = self.constant_item(ConstantId(start as u32)) else {
            return;
        };
        let name = constant.name.clone();
        self.diagnostics.push(
            Diagnostic::error("E0212", format!("the constant `{}` is defined in terms of itself", name.name))
                .primary(name.span, "its value depends on itself")
                .help("a constant's value must be computable from literals and other constants"),
        );
    }

    fn check_constant(&mut self, c: ConstantId) {
        if self.failed_constants.get(c.0 as usize).copied().unwrap_or(true) {
            return;
        }
        let Some(constant) = self.constant_item(c) else {
            return;
        };
        let ctx = BodyContext { owner: Owner::Constant(c), ..BodyContext::top_level() };
        self.ctx = ctx;
        self.scopes.clear();
        let before = self.error_count();
        self.array_literal_root = Some(constant.value);
        let found = self.check_expr(constant.value);
        self.array_literal_root = None;
        let ty = match &constant.ty {
            Some(annotation) => self.constant_annotation(constant.value, &found, annotation),
            None => found,
        };
        self.vars.default_all(Type::Error);
        let ty = self.vars.zonk(&ty);
        if self.error_count() == before && is_unit_constant(&ty) {
            self.report_unit_constant(constant, &ty);
        }
        if let Some(info) = self.info.constants.get_mut(c.0 as usize) {
            info.ty = ty;
        }
        if self.error_count() > before {
            self.failed_constants[c.0 as usize] = true;
        } else {
            self.evaluate_constant(c, constant);
        }
        self.apply_define(c);
    }

    fn report_unit_constant(&mut self, constant: &Constant, ty: &Type) {
        let shown = self.info.display(ty);
        self.diagnostics.push(
            Diagnostic::error("E0219", format!("the constant `{}` has type {shown}", constant.name.name))
                .primary(constant.name.span, "this type has no representation in memory")
                .note("`unit` is a value with nothing to store: a constant (or a constant array) cannot hold it"),
        );
    }

    /// The declared type of a constant; `T array` on an array literal means a constant array.
    fn constant_annotation(&mut self, value: ExprId, found: &Type, annotation: &TypeExpr) -> Type {
        let expected = match (annotation, self.vars.resolve(found)) {
            (TypeExpr::Apply { arg, constructor }, Type::ConstArray { size, .. }) if constructor.name == "array" => {
                Type::ConstArray { elem: Arc::new(self.lower_type(arg)), size }
            }
            _ => self.lower_type(annotation),
        };
        let why = Because::of(annotation.span(), "expected because of this annotation");
        self.expect_type_because(value, found, &expected, why);
        expected
    }

    fn evaluate_constant(&mut self, c: ConstantId, constant: &Constant) {
        let index = c.0 as usize;
        match self.eval_const(constant.value) {
            Ok(value) => {
                self.info.constants[index].value = value;
                self.evaluated_constants[index] = true;
            }
            Err(error) => {
                self.failed_constants[index] = true;
                self.report_not_computable(error, constant);
            }
        }
    }

    fn report_not_computable(&mut self, error: EvalError, constant: &Constant) {
        let (part, label) = match error {
            EvalError::Poisoned => return,
            EvalError::NotConstant(part) => (part, "not computable at compile time"),
            EvalError::Invalid(part, why) => (part, why),
        };
        self.diagnostics.push(
            Diagnostic::error("E0212", "constant must be computable at compile time")
                .primary(self.span(part), label)
                .secondary(constant.name.span, "in the value of this constant")
                .help("constants are made of literals, arithmetic, other constants, `select` and conversions"),
        );
    }

    /// Applies `-D NAME=VALUE` to constant `c` if it is named.
    fn apply_define(&mut self, c: ConstantId) {
        let index = c.0 as usize;
        let Some(info) = self.info.constants.get(index) else {
            return;
        };
        let (name, ty) = (info.name.clone(), info.ty.clone());
        if self.items.value(&name) != Some(ValueItem::Constant(c)) || ty == Type::Error {
            return;
        }
        let options = self.options;
        for (_, text) in options.defines.iter().filter(|(n, _)| *n == name) {
            match parse_define(text, &ty) {
                Ok(value) => {
                    self.info.constants[index].value = value;
                    self.evaluated_constants[index] = true;
                    self.failed_constants[index] = false;
                }
                Err(why) => self.report_bad_define(c, &name, text, &ty, &why),
            }
        }
    }

    fn report_bad_define(&mut self, c: ConstantId, name: &str, text: &str, ty: &Type, why: &str) {
        let span = self.constant_item(c).map(|k| k.name.span).unwrap_or_default();
        let shown = self.info.display(ty);
        let mut d = Diagnostic::error("E0215", format!("invalid value in `-D {name}={text}`"))
            .primary(span, format!("this constant has type {shown}"));
        if let Some((_, value)) = self.define_spans(name, text) {
            d = d.secondary(value, "this value does not fit it");
        }
        self.diagnostics.push(d.note(why.to_string()));
    }

    /// Where `-D name=text` sits in the command-line pseudo-file (see [`command_line_source`]): the name's span
    /// and the value's. `None` when the driver added no such file (a direct call of the type checker).
    fn define_spans(&self, name: &str, text: &str) -> Option<(Span, Span)> {
        let file = self.sources.find(COMMAND_LINE)?;
        let mut offset = 0;
        for (n, t) in &self.options.defines {
            let name_start = offset + "-D ".len();
            let value_start = name_start + n.len() + 1;
            if n == name && t == text {
                return Some((
                    Span::new(file, name_start, name_start + n.len()),
                    Span::new(file, value_start, value_start + t.len()),
                ));
            }
            offset = value_start + t.len() + 1;
        }
        None
    }

    /// `E0215` for every `-D NAME=VALUE` that names no constant.
    pub(crate) fn apply_unknown_defines(&mut self) {
        let options = self.options;
        for (name, text) in &options.defines {
            let what = match self.items.value(name) {
                Some(ValueItem::Constant(_)) => continue,
                Some(_) => format!("`{name}` is not a constant"),
                None => format!("there is no constant `{name}`"),
            };
            let constants: Vec<&str> =
                self.info.constants.iter().map(|c| c.name.as_str()).filter(|n| !is_bogus_name(n)).collect();
            // The definition comes from the command line: pointed at there when the driver says how it read
            // (`<command line>:1:4`), else at the start of the root file.
            let (span, label) = match self.define_spans(name, text) {
                Some((span, _)) => (span, "given on the command line".to_string()),
                None => (Span::default(), format!("from `-D {name}={text}` on the command line")),
            };
            let mut d = Diagnostic::error("E0215", format!("cannot override `{name}`: {what}"))
                .primary(span, label)
                .note("`-D NAME=VALUE` replaces the value of a top-level constant");
            if let Some(s) = self.closest(name, constants) {
                d = d.help(format!("did you mean `{s}`?"));
            }
            self.diagnostics.push(d);
        }
    }
}

/// `unit`, or an array of it: a constant with nothing to store (E0219, as an array or a field of `unit` is).
fn is_unit_constant(ty: &Type) -> bool {
    matches!(ty, Type::Unit) || matches!(ty, Type::ConstArray { elem, .. } if **elem == Type::Unit)
}

/// The name of the pseudo-file that holds the command line's `-D` definitions, so a diagnostic about one can
/// point at it (`<command line>:2:4`) instead of into a source file.
pub const COMMAND_LINE: &str = "<command line>";

/// The text of that pseudo-file: one `-D NAME=VALUE` per line, in order.
pub fn command_line_source(defines: &[(String, String)]) -> String {
    defines.iter().map(|(name, value)| format!("-D {name}={value}\n")).collect()
}

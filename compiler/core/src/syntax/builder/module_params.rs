//! A module's parameters as the parser reads them: `[@param]` on a `type` abbreviation (a type parameter), on a
//! constant with a written type (a value parameter) or on a device function (a function parameter), recorded in
//! `Module::params`; and the arguments and alias of an `open`. What they mean is `crate::instances`'s.

use super::{Attribute, Builder};
use crate::diagnostic::Diagnostic;
use crate::syntax::ast::{ExprId, Ident, Item, ModuleParam, ModuleParamKind, Open, OpenArgument, TypeExpr};
use crate::syntax::lexer::Lexeme;

impl Builder<'_> {
    /// Is one of `attributes` `[@param]`?
    pub(super) fn has_param_attribute(&self, attributes: &[Attribute]) -> bool {
        attributes.iter().any(|a| &self.text[a.name.range()] == "param")
    }

    /// `[@param]` on the item just pushed (a constant or a function): records the parameter, or E0240 for a
    /// constant without a written type or a kernel.
    pub(super) fn declare_value_or_function_param(&mut self, attributes: &[Attribute]) {
        let Some(attribute) = attributes.iter().find(|a| &self.text[a.name.range()] == "param") else { return };
        let span = attribute.name;
        let kind = match self.module.items.last() {
            Some(Item::Constant(c)) if c.ty.is_some() => Some((c.name.clone(), ModuleParamKind::Value)),
            Some(Item::Constant(c)) => {
                let d =
                    Diagnostic::error("E0240", format!("the value parameter `{}` has no written type", c.name.name))
                        .primary(c.name.span, "a parameter's type must be written")
                        .secondary(span, "a parameter because of this attribute")
                        .help(format!("write its type: `let[@param] {} : int32 = ...`", c.name.name));
                self.diagnostics.push(d);
                None
            }
            Some(Item::Function(f)) => Some((f.name.clone(), ModuleParamKind::Function)),
            _ => {
                let d = Diagnostic::error("E0240", "`[@param]` on an item that cannot be a parameter")
                    .primary(span, "only a type, a constant or a device function can be a module's parameter");
                self.diagnostics.push(d);
                None
            }
        };
        if let Some((name, kind)) = kind {
            self.module.params.push(ModuleParam { name, kind });
        }
    }

    /// `type[@param] name = T`: a type parameter with default `T`.
    pub(super) fn type_param(&mut self, name: Lexeme, ty: TypeExpr) {
        let name = self.ident(name);
        self.module.params.push(ModuleParam { name, kind: ModuleParamKind::Type(ty) });
    }

    /// `[@...]` after `type` on a record or variant: none is known there (W0002).
    pub(super) fn type_attributes(&mut self, attributes: &[Attribute]) {
        for attribute in attributes {
            let d = Diagnostic::warning(
                "W0002",
                format!("unknown attribute `{}` is ignored", &self.text[attribute.name.range()]),
            )
            .primary(attribute.name, "only a type abbreviation takes `[@param]`");
            self.diagnostics.push(d);
        }
    }

    pub fn open_arguments(&mut self, first: (Lexeme, ExprId), rest: Vec<(Lexeme, ExprId)>) -> Vec<(Lexeme, ExprId)> {
        let mut all = vec![first];
        all.extend(rest);
        all
    }

    /// `open M`, `open M (name = value, ...)`, `open M ... as A`.
    pub fn open(&mut self, module: Lexeme, args: Option<Vec<(Lexeme, ExprId)>>, alias: Option<Lexeme>, l: u32, r: u32) {
        let span = self.span(l, r);
        let module = self.ident(module);
        let args: Vec<OpenArgument> = args
            .unwrap_or_default()
            .into_iter()
            .map(|(name, value)| OpenArgument { name: self.ident(name), value })
            .collect();
        let alias: Option<Ident> = alias.map(|a| self.ident(a));
        self.module.items.push(Item::Open(Open { module, span, args, alias }));
    }
}

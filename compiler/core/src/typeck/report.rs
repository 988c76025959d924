//! The wording of type mismatches (`E0201`): how types under inference are named, where the labels go, and the
//! hints that fix the common cases (a float literal where an integer was written, a missing conversion, a `ref`
//! cell read without `!`).

use std::borrow::Cow;

use crate::diagnostic::Diagnostic;
use crate::source::Span;
use crate::syntax::ast::{ExprId, ExprKind, Name};
use crate::types::{LocalId, Type};

use super::Checker;

/// Why an expression was expected to have some type: a label on the cause, and optionally a hint. Built on every
/// check but read only when one fails, so it holds what the words are made of, not the words (a type it describes
/// is borrowed: a copy and a drop per check otherwise).
#[derive(Clone, Debug, Default)]
pub(crate) struct Because<'t> {
    pub(crate) cause: Option<(Span, Reason<'t>)>,
    pub(crate) help: Option<Cow<'static, str>>,
}

/// The text of a cause label, worded when a diagnostic needs it.
#[derive(Clone, Debug)]
pub(crate) enum Reason<'t> {
    Text(Cow<'static, str>),
    /// `prefix` followed by how the checker describes `ty` (`the first bound is an integer`).
    Describe(&'static str, &'t Type),
    /// "`x` is declared here".
    Declared(Name),
    /// "parameter `x` is declared here".
    Parameter(LocalId),
}

impl From<&'static str> for Reason<'_> {
    fn from(text: &'static str) -> Self {
        Reason::Text(Cow::Borrowed(text))
    }
}

impl From<String> for Reason<'_> {
    fn from(text: String) -> Self {
        Reason::Text(Cow::Owned(text))
    }
}

impl<'t> Because<'t> {
    pub(crate) fn of(span: Span, why: impl Into<Reason<'t>>) -> Because<'t> {
        Because { cause: Some((span, why.into())), help: None }
    }

    /// A cause labelled `prefix` and the description of `ty` as it is when the check is made.
    pub(crate) fn describing(span: Span, prefix: &'static str, ty: &'t Type) -> Because<'t> {
        Because::of(span, Reason::Describe(prefix, ty))
    }

    pub(crate) fn help(help: impl Into<Cow<'static, str>>) -> Because<'t> {
        Because { cause: None, help: Some(help.into()) }
    }

    /// Drops a reason not needed (the check passed), testing inline whether it owns anything: most own nothing,
    /// and the drop glue of `Because` is a call made for every check.
    #[inline(always)]
    fn discard(self) {
        // Every reason by name, so that a reason added to `Reason` is placed on one side or the other.
        let cause_owns = match &self.cause {
            Some((_, Reason::Text(Cow::Owned(_)) | Reason::Declared(_))) => true,
            Some((_, Reason::Text(Cow::Borrowed(_)) | Reason::Describe(..) | Reason::Parameter(_))) | None => false,
        };
        let owns_text = cause_owns || matches!(self.help, Some(Cow::Owned(_)));
        if owns_text {
            drop(self);
        } else {
            std::mem::forget(self);
        }
    }
}

impl Checker<'_> {
    /// How a diagnostic names `ty` now: a class for an unbound variable, else the source form.
    pub(crate) fn describe(&self, ty: &Type) -> String {
        if let Some(class) = self.vars.class_of(ty) {
            return class.describe().to_string();
        }
        let unknown = |inner: &Type| self.vars.class_of(inner).is_some();
        match self.vars.zonk(ty) {
            Type::Ref(inner) if unknown(&inner) => "a `ref` cell".to_string(),
            Type::Vector(inner) if unknown(&inner) => "a vector".to_string(),
            zonked => self.info.display(&zonked),
        }
    }

    fn word(&self, reason: Reason<'_>) -> String {
        match reason {
            Reason::Text(text) => text.into_owned(),
            Reason::Describe(prefix, ty) => format!("{prefix}{}", self.describe(ty)),
            Reason::Declared(name) => format!("`{name}` is declared here"),
            Reason::Parameter(local) => {
                let name = self.local_info(local).map(|l| l.name.as_str()).unwrap_or_default();
                format!("parameter `{name}` is declared here")
            }
        }
    }

    /// Unifies `found` (the type of `expr`) with `expected`; on failure reports `E0201` and returns false.
    pub(crate) fn expect_type(&mut self, expr: ExprId, found: &Type, expected: &Type) -> bool {
        self.expect_type_because(expr, found, expected, Because::default())
    }

    /// Inlined, so that building and dropping `why` (read only on a failure) folds away at most call sites.
    #[inline]
    pub(crate) fn expect_type_because(
        &mut self,
        expr: ExprId,
        found: &Type,
        expected: &Type,
        why: Because<'_>,
    ) -> bool {
        if self.vars.unify_or_undo(expected, found) {
            why.discard();
            return true;
        }
        self.report_mismatch(expr, found, expected, why)
    }

    /// `E0201` for a failed [`Checker::expect_type_because`]; returns false.
    #[inline(never)]
    fn report_mismatch(&mut self, expr: ExprId, found: &Type, expected: &Type, why: Because<'_>) -> bool {
        // The cause is worded as things stood when the demand was made; then the failed attempt is repeated, so
        // its partial bindings are what the rest of the checker sees.
        let cause = why.cause.map(|(span, reason)| (span, self.word(reason)));
        self.vars.unify(expected, found);
        let expected_text = self.describe(expected);
        let found_text = self.describe(found);
        let mut d =
            Diagnostic::error("E0201", format!("mismatched types: expected {expected_text}, found {found_text}"))
                .primary(self.span(expr), format!("this is {found_text}"));
        if let Some((span, label)) = cause {
            d = d.secondary(span, label);
        }
        if let Some(help) = why.help.map(Cow::into_owned).or_else(|| self.mismatch_help(expr, found, expected)) {
            d = d.help(help);
        }
        self.diagnostics.push(d);
        false
    }

    /// A hint for the usual causes of a mismatch.
    fn mismatch_help(&self, expr: ExprId, found: &Type, expected: &Type) -> Option<String> {
        let found = self.vars.zonk(found);
        let expected_resolved = self.vars.zonk(expected);
        if let Type::Ref(inner) = &found {
            if self.vars.clone_unifies(inner, &expected_resolved) {
                let text = self.snippet(expr);
                return Some(format!("this is a `ref` cell: read its value with `!{text}`"));
            }
        }
        if let Some(help) = self.literal_help(expr, &expected_resolved) {
            return Some(help);
        }
        let class = self.vars.class_of(&expected_resolved);
        let target = match (&expected_resolved, class) {
            (t, _) if t.is_numeric() => Some(self.info.display(t)),
            (_, Some(super::infer::Class::Float)) => Some("float32".to_string()),
            _ => None,
        };
        if found.is_numeric() {
            if let Some(target) = target {
                let text = self.snippet(expr);
                return Some(format!("convert it: `{target} ({text})`"));
            }
        }
        None
    }

    /// For a literal of the wrong kind: how to write one of the expected type.
    fn literal_help(&self, expr: ExprId, expected: &Type) -> Option<String> {
        let wants_float = expected.is_float() || self.vars.class_of(expected) == Some(super::infer::Class::Float);
        match self.kind(expr) {
            ExprKind::Int { value, .. } if wants_float => {
                let written = match expected {
                    Type::Float64 => format!("{value}.0d"),
                    Type::Float16 => format!("{value}.0h"),
                    Type::BFloat16 => format!("bfloat16 {value}.0"),
                    _ => format!("{value}.0"),
                };
                Some(format!("write a float literal: `{written}`"))
            }
            ExprKind::Int { value, .. } if expected.is_integer() => {
                let suffix = integer_suffix(expected);
                Some(format!("write `{value}{suffix}` for a literal of type {}", self.info.display(expected)))
            }
            ExprKind::Float { .. } if expected.is_float() => {
                let text = self.snippet(expr);
                let digits = text.trim_end_matches(['f', 'd', 'h']);
                let written = match expected {
                    Type::Float64 => format!("{digits}d"),
                    Type::Float16 => format!("{digits}h"),
                    // bfloat16 has no suffix: an unsuffixed literal takes the type, or a conversion gives it.
                    Type::BFloat16 => format!("bfloat16 {digits}"),
                    _ => format!("{digits}f"),
                };
                Some(format!("write `{written}` for a literal of type {}", self.info.display(expected)))
            }
            _ => None,
        }
    }
}

fn integer_suffix(ty: &Type) -> &'static str {
    match ty {
        Type::Int64 => "L",
        Type::UInt32 => "u",
        Type::UInt64 => "UL",
        _ => "l",
    }
}

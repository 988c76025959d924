//! `printf format args...`: the format is a string literal (E0225 otherwise, and for a string literal anywhere
//! else), its conversions are well formed (E0225), there is one argument per conversion (E0202) and each
//! argument's type is one its conversion prints (E0201, labelled on the argument and on the conversion).

use crate::diagnostic::Diagnostic;
use crate::printf_format::{self, Conversion, Piece, PrintfArg};
use crate::source::Span;
use crate::syntax::ast::{ExprId, ExprKind, Path};
use crate::types::Type;

use super::Checker;

/// The `printf` argument type of a scalar type (`None` for any other type).
pub fn printf_arg(ty: &Type) -> Option<PrintfArg> {
    match ty {
        Type::Int32 => Some(PrintfArg::Int32),
        Type::UInt32 => Some(PrintfArg::UInt32),
        Type::Int64 => Some(PrintfArg::Int64),
        Type::UInt64 => Some(PrintfArg::UInt64),
        Type::Float32 => Some(PrintfArg::Float32),
        Type::Float64 => Some(PrintfArg::Float64),
        _ => None,
    }
}

/// The one type a conversion prints when it prints only one (`%d`: int32), to infer an argument's type from.
fn only_accepted(c: &Conversion) -> Option<Type> {
    let all = [Type::Int32, Type::UInt32, Type::Int64, Type::UInt64, Type::Float32, Type::Float64];
    let accepted: Vec<Type> = all.into_iter().filter(|t| printf_arg(t).is_some_and(|a| c.accepts(a))).collect();
    match accepted.as_slice() {
        [only] => Some(only.clone()),
        _ => None,
    }
}

impl Checker<'_> {
    pub(crate) fn check_printf(&mut self, id: ExprId, callee: &Path, args: &[ExprId]) -> Type {
        let Some((&format, values)) = args.split_first() else {
            let d =
                Diagnostic::error("E0202", format!("`{}` takes a format string and its arguments", callee.display()))
                    .primary(callee.span(), "expected a string literal after this")
                    .help(format!("write `{} \"x=%d\\n\" x`", callee.display()));
            self.diagnostics.push(d);
            return Type::Unit;
        };
        if matches!(self.kind(format), ExprKind::Str) {
            self.set_type(format, Type::Unit);
        } else {
            // Typed like any argument (its own errors reported), then E0225 for not being a literal.
            self.check_expr(format);
        }
        let found: Vec<Type> = values.iter().map(|v| self.check_expr(*v)).collect();
        let Some(conversions) = self.printf_conversions(format) else { return Type::Unit };
        if conversions.len() != values.len() {
            self.report_printf_count(id, format, &conversions, values);
            return Type::Unit;
        }
        for ((c, &value), found) in conversions.iter().zip(values).zip(&found) {
            self.check_printf_argument(format, c, value, found);
        }
        Type::Unit
    }

    /// The conversions of `printf`'s format, or `None` after reporting why it has none to read.
    fn printf_conversions(&mut self, format: ExprId) -> Option<Vec<Conversion>> {
        if !matches!(self.kind(format), ExprKind::Str) {
            let d = Diagnostic::error("E0225", "the format of `printf` must be a string literal")
                .primary(self.span(format), "this is not a string literal")
                .help("write the format in the call: `printf \"x=%d\\n\" x`");
            self.diagnostics.push(d);
            return None;
        }
        let span = self.span(format);
        match printf_format::parse(self.snippet(format)) {
            Ok(pieces) => Some(
                pieces
                    .into_iter()
                    .filter_map(|p| match p {
                        Piece::Conversion(c) => Some(c),
                        Piece::Text(_) => None,
                    })
                    .collect(),
            ),
            Err(e) => {
                let d = Diagnostic::error("E0225", e.message).primary(inner_span(span, &e.range), e.label);
                self.diagnostics.push(d);
                None
            }
        }
    }

    fn check_printf_argument(&mut self, format: ExprId, c: &Conversion, value: ExprId, found: &Type) {
        let resolved = self.vars.resolve(found);
        if matches!(resolved, Type::Error) {
            return;
        }
        if matches!(resolved, Type::Var(_)) {
            if let Some(expected) = only_accepted(c) {
                if self.vars.unify_or_undo(&expected, found) {
                    return;
                }
            } else {
                return;
            }
        }
        if printf_arg(&resolved).is_some_and(|a| c.accepts(a)) {
            return;
        }
        let found_text = self.describe(found);
        let d = Diagnostic::error(
            "E0201",
            format!("mismatched types: `{}` prints {}, found {found_text}", c.written, c.expected()),
        )
        .primary(self.span(value), format!("this is {found_text}"))
        .secondary(inner_span(self.span(format), &c.range), format!("this conversion prints {}", c.expected()));
        self.diagnostics.push(d);
    }

    fn report_printf_count(&mut self, id: ExprId, format: ExprId, conversions: &[Conversion], values: &[ExprId]) {
        let given = values.len();
        let wanted = conversions.len();
        let message = format!(
            "the format has {wanted} conversion{} but {given} argument{} given",
            if wanted == 1 { "" } else { "s" },
            if given == 1 { " is" } else { "s are" }
        );
        let d = Diagnostic::error("E0202", message);
        let d = match (conversions.get(given), values.get(wanted)) {
            (Some(c), _) => d
                .primary(inner_span(self.span(format), &c.range), "no argument for this conversion")
                .secondary(self.span(id), "in this call"),
            (None, Some(&extra)) => d
                .primary(self.span(extra), "no conversion for this argument")
                .secondary(self.span(format), "the format"),
            (None, None) => d.primary(self.span(id), "here"),
        };
        self.diagnostics.push(d);
    }

    /// A string literal anywhere but as `printf`'s format.
    pub(crate) fn check_string_literal(&mut self, id: ExprId) -> Type {
        let d = Diagnostic::error("E0225", "a string literal is only allowed as the format of `printf`")
            .primary(self.span(id), "a kernel has no string values");
        self.diagnostics.push(d);
        Type::Error
    }
}

/// The span of bytes `range` of the literal at `literal`.
fn inner_span(literal: Span, range: &std::ops::Range<usize>) -> Span {
    let start = (literal.start as usize + range.start).min(literal.end as usize);
    let end = (literal.start as usize + range.end).min(literal.end as usize);
    Span::new(literal.file, start, end)
}

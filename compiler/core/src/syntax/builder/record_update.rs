//! OCaml's functional record update, `{ p with x = v; y = w }`, desugared as it is parsed into
//! `let {with} = mut p in {with}.x <- v; {with}.y <- w; {with}`: a copy of `p` with the named fields replaced.
//! The record's other fields need not be known here, so the type checker sees only forms it already checks: an
//! unknown field or a value of the wrong type are its usual E0208 and E0201; a base that is not a record is one
//! E0208 at the base (the checker knows the copy's name, `typeck::bindings`). A field given twice is reported
//! here (E0208), as a record literal's is.
//!
//! The copy is a variable no program can name (`{` cannot start a name), bound where the form is written; `p`
//! is evaluated first, then the new fields' values in the order written.

use crate::diagnostic::Diagnostic;
use crate::syntax::ast::{Binder, ExprKind, Ident, LetKind, Name, Path};
use crate::syntax::lexer::Lexeme;

use super::{Builder, ExprId};

/// The name of the copy: not a name a program can write, and one that is never reported as unknown. The type
/// checker knows it, to report a base that is not a record once, as the form's error.
pub const COPY_NAME: &str = "{with}";

impl Builder<'_> {
    /// `{ base with fields; last }`.
    pub fn record_update(
        &mut self,
        base: ExprId,
        with: Lexeme,
        mut fields: Vec<(Lexeme, ExprId)>,
        last: (Lexeme, ExprId),
        l: u32,
        r: u32,
    ) -> ExprId {
        fields.push(last);
        let fields: Vec<(Ident, ExprId)> = fields.into_iter().map(|(name, value)| (self.ident(name), value)).collect();
        self.report_fields_given_twice(&fields);
        // The copy's name is written over `base with`, where an error about the base (not a record) points.
        let copy_span = self.module.span(base).to(self.lexeme_span(with));
        let copy = || Ident { name: Name::new(COPY_NAME), span: copy_span };
        let mut body = self.module.alloc(ExprKind::Var(Path { module: None, name: copy() }), copy_span);
        for (field, value) in fields.into_iter().rev() {
            let record = self.module.alloc(ExprKind::Var(Path { module: None, name: copy() }), copy_span);
            let span = field.span.to(self.module.span(value));
            let set = self.module.alloc(ExprKind::FieldSet { record, field, value }, span);
            body = self.seq(set, body);
        }
        let binder = Binder::Name(Ident { name: Name::new(COPY_NAME), span: self.lexeme_span(with) });
        self.alloc(ExprKind::Let { binder, ty: None, kind: LetKind::Mutable, value: base, body }, l, r)
    }

    /// E0208 for each field named again after its first.
    fn report_fields_given_twice(&mut self, fields: &[(Ident, ExprId)]) {
        for (i, (name, _)) in fields.iter().enumerate() {
            if let Some((first, _)) = fields[..i].iter().find(|(earlier, _)| earlier.name == name.name) {
                let d = Diagnostic::error("E0208", format!("the field `{}` is given twice", name.name))
                    .primary(name.span, "given again here")
                    .secondary(first.span, "first given here");
                self.diagnostics.push(d);
            }
        }
    }
}

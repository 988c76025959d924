//! Tuples as they are parsed: `(a, b)` is an `ExprKind::Tuple` and `float32 * int32` a `TypeExpr::Tuple` (the type
//! checker makes each tuple type an anonymous record), and a tuple pattern is desugared at once:
//! `let (x, (y, z)) = value in body` becomes
//! `let {tuple0} = (value : _ * _) in let x = {tuple0}._0 in let {tuple1} = {tuple0}._1 in let y = {tuple1}._0 in
//! let z = {tuple1}._1 in body`, so later passes see only `let`s of names and field reads. The hidden names
//! cannot be written by a program (`{` cannot start a name) and are numbered, so a nested pattern's never
//! shadows an outer one's; the annotation `_ * _` (a pattern's own annotation if it has one) gives the value its
//! number of components before the fields are read.

use crate::syntax::ast::{Binder, ExprKind, Ident, LetKind, Name, Path, TypeExpr};

use super::{Builder, ExprId};

/// How the hidden variables of tuple patterns begin (`{tuple0}`): the emitter names them `tuple` in C.
pub const TUPLE_VALUE_PREFIX: &str = "{tuple";

/// A tuple pattern's components, each with its own annotation.
pub type TupleComponents = Vec<(Binder, Option<Box<TypeExpr>>)>;

impl Builder<'_> {
    /// `(a, b, ...)`: a tuple; also kept as the sizes of a multi-dimensional array (`let_array_extension`).
    pub fn tuple(&mut self, first: ExprId, rest: Vec<ExprId>, l: u32, r: u32) -> ExprId {
        let mut components = vec![first];
        components.extend(rest);
        let id = self.alloc(ExprKind::Tuple(components.clone()), l, r);
        self.pending_tuples.push((id, components));
        id
    }

    /// `float32 * int32 * ...`; `first` and `rest` come boxed from the grammar's type rules.
    #[allow(clippy::boxed_local, clippy::vec_box)]
    pub fn tuple_type(&mut self, first: Box<TypeExpr>, rest: Vec<Box<TypeExpr>>) -> Box<TypeExpr> {
        Box::new(TypeExpr::Tuple(std::iter::once(*first).chain(rest.into_iter().map(|t| *t)).collect()))
    }

    /// `(a, (b, c))` after `let`: a wildcard binder standing for the pattern (its span is the key), whose
    /// components `let_` binds (`let_tuple`).
    pub fn tuple_binder(
        &mut self,
        first: (Binder, Option<Box<TypeExpr>>),
        rest: Vec<(Binder, Option<Box<TypeExpr>>)>,
        l: u32,
        r: u32,
    ) -> (Binder, Option<Box<TypeExpr>>) {
        let span = self.span(l, r);
        let mut components = vec![first];
        components.extend(rest);
        self.tuple_binders.push((span, components));
        (Binder::Wildcard(span), None)
    }

    /// The components of the tuple pattern `binder` stands for, if it is one.
    pub(super) fn take_tuple_pattern(&mut self, binder: &Binder) -> Option<TupleComponents> {
        let Binder::Wildcard(span) = binder else { return None };
        let at = self.tuple_binders.iter().rposition(|(s, _)| s == span)?;
        Some(self.tuple_binders.swap_remove(at).1)
    }

    /// `let (components) [: ty] = value in body`, from `l` to `r`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn let_tuple(
        &mut self,
        pattern: crate::source::Span,
        components: TupleComponents,
        ty: Option<Box<TypeExpr>>,
        value: ExprId,
        body: ExprId,
        l: u32,
        r: u32,
    ) -> ExprId {
        let hidden = Ident { name: Name::new(&format!("{TUPLE_VALUE_PREFIX}{}}}", self.tuple_names)), span: pattern };
        self.tuple_names += 1;
        let holes = components.iter().map(|(b, _)| TypeExpr::Named(Ident { name: Name::new("_"), span: b.span() }));
        let ty = ty.unwrap_or_else(|| Box::new(TypeExpr::Tuple(holes.collect())));
        // The components' `let`s, built inside out; each from its binder to the end of the form.
        let mut rest = body;
        for (index, (binder, component_ty)) in components.into_iter().enumerate().rev() {
            let start = binder.span().start;
            let record = self.module.alloc(ExprKind::Var(Path { module: None, name: hidden.clone() }), binder.span());
            let field = Ident { name: Name::new(&format!("_{index}")), span: binder.span() };
            let projection = self.module.alloc(ExprKind::Field { record, field }, binder.span());
            rest = match self.take_tuple_pattern(&binder) {
                Some(inner) => self.let_tuple(binder.span(), inner, component_ty, projection, rest, start, r),
                None => {
                    let kind = ExprKind::Let {
                        binder,
                        ty: component_ty,
                        kind: LetKind::Immutable,
                        value: projection,
                        body: rest,
                    };
                    self.alloc(kind, start, r)
                }
            };
        }
        let kind =
            ExprKind::Let { binder: Binder::Name(hidden), ty: Some(ty), kind: LetKind::Immutable, value, body: rest };
        self.alloc(kind, l, r)
    }
}

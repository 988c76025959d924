//! The AST builder the grammar's actions call: it allocates nodes in the module's arena, turns literals and
//! names into values, desugars Sarek's forms into the native ones (`let%superstep`, `create_array`,
//! `let open`, tuple patterns, variant types and `match`), reads attributes, and reports what the grammar accepts but the language does not
//! (E0205 for recursion and unknown extensions; E0102 for literals; E0105 for assignments). Local functions are
//! recorded for `syntax::lift`.

use lalrpop_util::ErrorRecovery;

use crate::diagnostic::Diagnostic;
use crate::source::{FileId, Span};
use crate::syntax::ast::*;
use crate::syntax::lexer::Lexeme;
use crate::syntax::lift::LocalFunction;
use crate::syntax::literals;
use crate::syntax::operators::{self, Chain, Operator};

mod launch_contract;
mod module_params;
mod parts;
mod record_update;
mod tuples;
mod variants;
use launch_contract::is_contract_attribute;
pub(crate) use parts::Part;
pub use record_update::COPY_NAME as RECORD_UPDATE_COPY;
pub use tuples::TUPLE_VALUE_PREFIX;
pub use variants::{Arm, ConstructorCase, Pattern, PatternAlternative, MATCH_VALUE_PREFIX};

/// Parameters as written; `written` is set by `()` too (`let f () = ...` is a function without parameters).
#[derive(Default)]
pub struct ParamList {
    pub params: Vec<Param>,
    pub written: bool,
    /// The first parameter's span (where a local function is reported).
    pub first: Option<Span>,
}

/// `[@name payload]` or `[@@name payload]`.
pub struct Attribute {
    pub name: Span,
    pub payload: Vec<Lexeme>,
}

/// What follows `let` and its attributes at top level.
pub enum LetItemBody {
    Value(Lexeme, Option<Box<TypeExpr>>, ExprId),
    Function(Lexeme, ParamList, Option<Box<TypeExpr>>, ExprId),
    Kernel(Lexeme, (ParamList, ExprId)),
    /// Already reported (an unsupported form).
    Error,
}

/// The value of a local `let`.
pub enum LetValue {
    Plain(ExprId),
    /// `fun params -> body`: `let f = fun x -> e in` is the local function `let f x = e in`.
    Function(ParamList, ExprId),
    Mutable(ExprId),
    CreateArray(ExprId, Lexeme),
}

/// A local `let` up to its `in`.
pub struct LetHead {
    binder: Binder,
    ty: Option<Box<TypeExpr>>,
    value: LetValue,
    /// The parameters of a local function (`let f x = e in`), lifted to the top level by `syntax::lift`.
    function: Option<ParamList>,
}

pub type Recovery = ErrorRecovery<u32, Lexeme, ()>;

pub struct Builder<'s> {
    text: &'s str,
    file: FileId,
    pub module: &'s mut Module,
    pub diagnostics: Vec<Diagnostic>,
    /// Errors in attributes of items that parsed well.
    pub attribute_errors: Vec<Diagnostic>,
    /// Where the parser recovered, in order; worded by `syntax::errors`.
    pub recoveries: Vec<Recovery>,
    default_kernel_name: String,
    bare_kernels: u32,
    /// Integer literals that fit only when negated (`2147483648` in `-2147483648`): reported unless a unary
    /// minus claims them.
    pending_literals: Vec<(ExprId, Diagnostic)>,
    /// Memory for operator chains, kept between chains.
    operators: operators::Scratch,
    /// Local functions (`let f x = e in rest`), in the order they were parsed: `syntax::lift` makes each a
    /// top-level function.
    local_functions: Vec<LocalFunction>,
    /// Tuples (`(16, 17)`) and their components, by their node: the sizes of a multi-dimensional array take
    /// theirs (`let_array_extension`).
    pending_tuples: Vec<(ExprId, Vec<ExprId>)>,
    /// Tuple patterns (`let (a, b) = ...`) by their span, which the wildcard binder standing for each carries.
    tuple_binders: Vec<(Span, tuples::TupleComponents)>,
    /// How many hidden variables tuple patterns have bound (each gets its own name).
    tuple_names: u32,
    /// The variant types the file declared so far, whose constructors expressions and patterns name.
    variants: Vec<variants::Variant>,
    /// How many hidden variables `match`es have bound (each gets its own name).
    match_names: u32,
    /// Whether a record declared earlier in the file was looked up (a variant's payload): a part of a file
    /// parsed on its own (`syntax::split`) could not have seen one declared in an earlier part.
    looked_up_records: std::cell::Cell<bool>,
}

impl<'s> Builder<'s> {
    pub fn new(text: &'s str, file: FileId, module: &'s mut Module, default_kernel_name: &str) -> Builder<'s> {
        Builder {
            text,
            file,
            module,
            diagnostics: Vec::new(),
            attribute_errors: Vec::new(),
            recoveries: Vec::new(),
            default_kernel_name: default_kernel_name.to_string(),
            bare_kernels: 0,
            pending_literals: Vec::new(),
            operators: operators::Scratch::default(),
            local_functions: Vec::new(),
            pending_tuples: Vec::new(),
            tuple_binders: Vec::new(),
            tuple_names: 0,
            variants: Vec::new(),
            match_names: 0,
            looked_up_records: std::cell::Cell::new(false),
        }
    }

    /// Diagnostics of the actions, with the literals no minus claimed.
    pub fn finish(mut self) -> (Vec<Diagnostic>, Vec<Recovery>, Vec<LocalFunction>) {
        for (id, d) in std::mem::take(&mut self.pending_literals) {
            self.module.exprs[id.index()] = ExprKind::Error;
            self.diagnostics.push(d);
        }
        self.diagnostics.append(&mut self.attribute_errors);
        (self.diagnostics, self.recoveries, self.local_functions)
    }

    // --- spans and names --------------------------------------------------------------------------------

    fn span(&self, l: u32, r: u32) -> Span {
        Span { file: self.file, start: l, end: r.max(l) }
    }

    fn lexeme_span(&self, lexeme: Lexeme) -> Span {
        self.span(lexeme.start, lexeme.end)
    }

    fn text_of(&self, lexeme: Lexeme) -> &'s str {
        &self.text[lexeme.start as usize..lexeme.end as usize]
    }

    fn ident(&self, lexeme: Lexeme) -> Ident {
        Ident { name: Name::new(self.text_of(lexeme)), span: self.lexeme_span(lexeme) }
    }

    fn alloc(&mut self, kind: ExprKind, l: u32, r: u32) -> ExprId {
        let span = self.span(l, r);
        self.module.alloc(kind, span)
    }

    fn unsupported(&mut self, span: Span, what: &str, help: &str) {
        self.diagnostics
            .push(Diagnostic::error("E0205", format!("{what} is not supported")).primary(span, what).help(help));
    }

    pub fn push<T>(&mut self, mut list: Vec<T>, last: T) -> Vec<T> {
        list.push(last);
        list
    }

    /// A statement or item the parser skipped: the error is worded after parsing.
    pub fn recovered(&mut self, recovery: Recovery) {
        self.recoveries.push(recovery);
    }

    pub fn error_statement(&mut self, recovery: Recovery, l: u32, r: u32) -> ExprId {
        self.recovered(recovery);
        self.alloc(ExprKind::Error, l.min(r), r.max(l))
    }

    // --- literals and names -----------------------------------------------------------------------------

    pub fn int(&mut self, lexeme: Lexeme) -> ExprId {
        let span = self.lexeme_span(lexeme);
        match literals::int(self.text_of(lexeme)) {
            literals::IntLiteral::Fits(kind) => self.module.alloc(kind, span),
            literals::IntLiteral::OnlyNegated(kind) => {
                let id = self.module.alloc(kind, span);
                self.pending_literals.push((id, literals::out_of_range(span)));
                id
            }
            literals::IntLiteral::OutOfRange => {
                self.diagnostics.push(literals::out_of_range(span));
                self.module.alloc(ExprKind::Error, span)
            }
        }
    }

    pub fn float(&mut self, lexeme: Lexeme) -> ExprId {
        let span = self.lexeme_span(lexeme);
        let kind = literals::float(self.text_of(lexeme)).unwrap_or_else(|| {
            self.diagnostics.push(Diagnostic::error("E0102", "invalid float literal").primary(span, "here"));
            ExprKind::Error
        });
        self.module.alloc(kind, span)
    }

    pub fn bool(&mut self, value: bool, l: u32, r: u32) -> ExprId {
        self.alloc(ExprKind::Bool(value), l, r)
    }

    /// A string literal: its text is its span's (read by `printf`, the one builtin that takes one).
    pub fn string(&mut self, lexeme: Lexeme) -> ExprId {
        let span = self.lexeme_span(lexeme);
        self.module.alloc(ExprKind::Str, span)
    }

    pub fn unit(&mut self, l: u32, r: u32) -> ExprId {
        self.alloc(ExprKind::Unit, l, r)
    }

    pub fn var(&mut self, (module, name): (Option<Lexeme>, Lexeme)) -> ExprId {
        let path = self.path(module, name);
        let span = path.span();
        self.module.alloc(ExprKind::Var(path), span)
    }

    fn path(&self, module: Option<Lexeme>, name: Lexeme) -> Path {
        Path { module: module.map(|m| Box::new(self.ident(m))), name: self.ident(name) }
    }

    pub fn global(&mut self, extension: Lexeme, name: Lexeme, l: u32, r: u32) -> ExprId {
        if self.text_of(extension) != "global" {
            let span = self.lexeme_span(extension);
            self.unsupported(span, "this extension inside an expression", "`[%global name]` names a constant");
            return self.alloc(ExprKind::Error, l, r);
        }
        let name = self.ident(name);
        self.alloc(ExprKind::Global(name), l, r)
    }

    // --- operators --------------------------------------------------------------------------------------

    pub fn binary(&mut self, op: BinaryOp, lhs: ExprId, rhs: ExprId, l: u32, r: u32) -> ExprId {
        self.alloc(ExprKind::Binary { op, lhs, rhs }, l, r)
    }

    pub fn unary(&mut self, op: UnaryOp, operand: ExprId, l: u32, r: u32) -> ExprId {
        if op == UnaryOp::Neg {
            // `-2147483648`: the magnitude of a negated literal may be one past the positive maximum.
            self.pending_literals.retain(|(id, _)| *id != operand);
        }
        self.alloc(ExprKind::Unary { op, operand }, l, r)
    }

    /// `target <- value` (`store`) or `target := value`.
    fn assign(&mut self, store: bool, target: ExprId, value: ExprId, l: u32, r: u32) -> ExprId {
        let kind = match (store, self.module.expr(target).clone()) {
            (true, ExprKind::Index { array, index }) => ExprKind::IndexSet { array, index, value },
            (true, ExprKind::Field { record, field }) => ExprKind::FieldSet { record, field, value },
            (false, ExprKind::Var(path)) => ExprKind::Assign { target: path, value },
            (_, ExprKind::Error) => ExprKind::Error,
            (true, _) => {
                let d = Diagnostic::error("E0105", "`<-` needs an array element or a record field on its left")
                    .primary(self.module.span(target), "not `a.(i)` or `r.f`")
                    .help("write `a.(i) <- v`; to change a variable use `x := v`");
                self.diagnostics.push(d);
                ExprKind::Error
            }
            (false, _) => {
                let d = Diagnostic::error("E0105", "`:=` needs a variable on its left")
                    .primary(self.module.span(target), "not a variable")
                    .help("declare it with `let x = mut e in` or `let x = ref e in`, then write `x := v`");
                self.diagnostics.push(d);
                ExprKind::Error
            }
        };
        self.alloc(kind, l, r)
    }

    // --- operator chains (`syntax::operators`) ---------------------------------------------------------

    /// `lhs op rhs`, where `lhs` spans `lhs_start..lhs_end` and `rhs` spans `rhs_start..rhs_end`.
    #[allow(clippy::too_many_arguments)]
    pub fn chain(
        &mut self,
        lhs: Chain,
        lhs_start: u32,
        lhs_end: u32,
        op: Operator,
        rhs: Chain,
        rhs_start: u32,
        rhs_end: u32,
    ) -> Chain {
        self.operators.binary(lhs, lhs_start, lhs_end, op, rhs, rhs_start, rhs_end)
    }

    /// Prefix operator `op` at `start` before `operand`, which spans `operand_start..end`.
    pub fn prefixed(&mut self, start: u32, op: UnaryOp, operand_start: u32, operand: Chain, end: u32) -> Chain {
        self.operators.prefixed(start, op, operand_start, operand, end)
    }

    /// The tree of an operator chain.
    pub fn expression(&mut self, chain: Chain) -> ExprId {
        if let Chain::Operand(expr) = chain {
            return expr;
        }
        let mut operators = std::mem::take(&mut self.operators);
        let root = operators.resolve(chain, self);
        self.operators = operators;
        root
    }

    // --- applications and postfixes ---------------------------------------------------------------------

    pub fn call(&mut self, (module, name): (Option<Lexeme>, Lexeme), args: Vec<ExprId>, l: u32, r: u32) -> ExprId {
        let callee = self.path(module, name);
        self.alloc(ExprKind::Call { callee, args }, l, r)
    }

    pub fn reference(&mut self, operand: ExprId, l: u32, r: u32) -> ExprId {
        self.alloc(ExprKind::Ref(operand), l, r)
    }

    pub fn index(&mut self, array: ExprId, index: ExprId, l: u32, r: u32) -> ExprId {
        self.alloc(ExprKind::Index { array, index }, l, r)
    }

    /// `a.(i, j)`: the same as `a.(i).(j)`, each partial access spanning the whole form.
    pub fn index_all(&mut self, array: ExprId, first: ExprId, rest: Vec<ExprId>, l: u32, r: u32) -> ExprId {
        let mut e = self.index(array, first, l, r);
        for index in rest {
            e = self.index(e, index, l, r);
        }
        e
    }

    pub fn field(&mut self, record: ExprId, field: Lexeme, l: u32, r: u32) -> ExprId {
        let field = self.ident(field);
        self.alloc(ExprKind::Field { record, field }, l, r)
    }

    pub fn annotation(&mut self, expr: ExprId, ty: Box<TypeExpr>, l: u32, r: u32) -> ExprId {
        self.alloc(ExprKind::Annot { expr, ty }, l, r)
    }

    /// The components of the tuple `id` stands for, if it is one nothing has taken yet.
    fn take_tuple(&mut self, id: ExprId) -> Option<Vec<ExprId>> {
        let at = self.pending_tuples.iter().rposition(|(t, _)| *t == id)?;
        Some(self.pending_tuples.swap_remove(at).1)
    }

    pub fn array_literal(&mut self, items: Vec<ExprId>, l: u32, r: u32) -> ExprId {
        self.alloc(ExprKind::ArrayLit(items), l, r)
    }

    /// `let module M = struct type ... end in` before `fun` in `[%kernel`: its records are already top-level
    /// items; only the words `module` and `struct` are left to check.
    pub fn local_module(&mut self, keyword: Lexeme, module: Lexeme, structure: Lexeme, end: Lexeme) {
        let _ = module;
        if self.text_of(keyword) != "module" || self.text_of(structure) != "struct" {
            let span = self.lexeme_span(keyword).to(self.lexeme_span(end));
            self.unsupported(span, "this form before `fun`", "write `let module M = struct type ... end in`");
        }
    }

    /// `{ x; ... }`: OCaml's field punning, the field `x` given the value of the variable `x`.
    pub fn punned_field(&mut self, name: Lexeme) -> (Lexeme, ExprId) {
        let value = self.var((None, name));
        (name, value)
    }

    pub fn record_literal(&mut self, fields: Vec<(Lexeme, ExprId)>, l: u32, r: u32) -> ExprId {
        let fields = fields.into_iter().map(|(name, value)| (self.ident(name), value)).collect();
        self.alloc(ExprKind::Record(fields), l, r)
    }

    // --- control flow -----------------------------------------------------------------------------------

    /// Sequences nest to the right (`a; (b; c)`) so walkers can follow the spine in a loop.
    pub fn seq(&mut self, first: ExprId, rest: ExprId) -> ExprId {
        let span = self.module.span(first).to(self.module.span(rest));
        self.module.alloc(ExprKind::Seq(first, rest), span)
    }

    pub fn if_(&mut self, cond: ExprId, then_branch: ExprId, else_branch: Option<ExprId>, l: u32, r: u32) -> ExprId {
        self.alloc(ExprKind::If { cond, then_branch, else_branch }, l, r)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn for_loop(
        &mut self,
        var: Lexeme,
        start: ExprId,
        downto: bool,
        end: ExprId,
        body: ExprId,
        l: u32,
        r: u32,
    ) -> ExprId {
        let var = self.ident(var);
        self.alloc(ExprKind::For { var, start, end, downto, body }, l, r)
    }

    pub fn while_loop(&mut self, cond: ExprId, body: ExprId, l: u32, r: u32) -> ExprId {
        self.alloc(ExprKind::While { cond, body }, l, r)
    }

    pub fn return_(&mut self, value: Option<ExprId>, l: u32, r: u32) -> ExprId {
        self.alloc(ExprKind::Return(value), l, r)
    }

    pub fn break_(&mut self, l: u32, r: u32) -> ExprId {
        self.alloc(ExprKind::Break, l, r)
    }

    pub fn continue_(&mut self, l: u32, r: u32) -> ExprId {
        self.alloc(ExprKind::Continue, l, r)
    }

    pub fn pragma(&mut self, options: Vec<Lexeme>, body: ExprId, l: u32, r: u32) -> ExprId {
        let options = options.into_iter().map(|o| self.text_of(o).trim_matches('"').to_string()).collect();
        self.alloc(ExprKind::Pragma { options, body }, l, r)
    }

    /// `superstep ~divergent { body }`.
    pub fn superstep(
        &mut self,
        attributes: Vec<Lexeme>,
        body: Option<ExprId>,
        close: Lexeme,
        l: u32,
        r: u32,
    ) -> ExprId {
        let mut divergent = false;
        for attribute in attributes {
            let attribute = self.ident(attribute);
            divergent |= self.superstep_attribute(attribute.name.as_str(), attribute.span);
        }
        let body = body.unwrap_or_else(|| self.alloc(ExprKind::Unit, close.start, close.end));
        self.alloc(ExprKind::Superstep { name: None, divergent, body }, l, r)
    }

    /// Whether the attribute is `divergent`; anything else is an error (never silently ignored).
    fn superstep_attribute(&mut self, name: &str, span: Span) -> bool {
        if name == "divergent" {
            return true;
        }
        let d = Diagnostic::error("E0005", format!("unknown superstep attribute `{name}`"))
            .primary(span, "not a superstep attribute")
            .help("the only superstep attribute is `divergent`");
        self.diagnostics.push(d);
        false
    }

    // --- let forms --------------------------------------------------------------------------------------

    pub fn binder(&mut self, name: Lexeme) -> (Binder, Option<Box<TypeExpr>>) {
        let ident = self.ident(name);
        if ident.name == "_" {
            return (Binder::Wildcard(ident.span), None);
        }
        (Binder::Name(ident), None)
    }

    pub fn unit_binder(&mut self, l: u32, r: u32) -> (Binder, Option<Box<TypeExpr>>) {
        (Binder::Unit(self.span(l, r)), None)
    }

    pub fn annotated_binder(
        &mut self,
        (binder, inner): (Binder, Option<Box<TypeExpr>>),
        ty: Option<Box<TypeExpr>>,
    ) -> (Binder, Option<Box<TypeExpr>>) {
        (binder, ty.or(inner))
    }

    /// `let [rec] binder [params] [: T] = value`: recursion is reported (E0205) and the binding kept without
    /// its parameters; a local function (parameters, no `rec`) is kept for `syntax::lift`.
    pub fn let_head(
        &mut self,
        rec: Option<Lexeme>,
        (binder, binder_ty): (Binder, Option<Box<TypeExpr>>),
        params: Option<ParamList>,
        ty: Option<Box<TypeExpr>>,
        value: LetValue,
    ) -> Box<LetHead> {
        let params = params.filter(|p| p.written);
        let (params, value) = self.fun_as_parameters(params, ty.is_some(), value);
        if let Some(rec) = rec {
            let span = self.lexeme_span(rec);
            self.unsupported(span, "recursion", "GPU code cannot recurse here; write a loop");
            return Box::new(LetHead { binder, ty: binder_ty.or(ty), value, function: None });
        }
        let Some(params) = params else {
            return Box::new(LetHead { binder, ty: binder_ty.or(ty), value, function: None });
        };
        let plain = matches!(value, LetValue::Plain(_)) && matches!(binder, Binder::Name(_)) && binder_ty.is_none();
        if !plain {
            let first = params.first.unwrap_or(binder.span());
            self.unsupported(first, "a local function of this form", "write `let f params = body in`");
            return Box::new(LetHead { binder, ty: binder_ty.or(ty), value, function: None });
        }
        // The annotation after the parameters is the function's result type.
        Box::new(LetHead { binder, ty, value, function: Some(params) })
    }

    /// `let f [params] = fun more -> body`: the local function `let f params more = body` (as OCaml reads it).
    /// With an annotation before `=`, which would read as the result's type, it is E0205.
    fn fun_as_parameters(
        &mut self,
        params: Option<ParamList>,
        annotated: bool,
        value: LetValue,
    ) -> (Option<ParamList>, LetValue) {
        let LetValue::Function(more, body) = value else { return (params, value) };
        if annotated {
            let span = more.first.unwrap_or(self.module.span(body));
            self.unsupported(span, "an annotated `let` of a `fun`", "write `let f (x : T) : R = body in`");
            return (params, LetValue::Plain(body));
        }
        let mut all = params.unwrap_or_default();
        all.first = all.first.or(more.first);
        all.written = true;
        all.params.extend(more.params);
        (Some(all), LetValue::Plain(body))
    }

    /// `head` comes boxed from the grammar, whose every stack slot is as wide as its widest symbol.
    #[allow(clippy::boxed_local)]
    pub fn let_(&mut self, head: Box<LetHead>, body: ExprId, l: u32, r: u32) -> ExprId {
        let LetHead { binder, ty, value, function } = *head;
        if let (Some(params), Binder::Name(name), LetValue::Plain(function_body)) = (function, &binder, &value) {
            return self.local_function(name.clone(), params, ty, *function_body, body, l, r);
        }
        let (kind, value) = match value {
            LetValue::Plain(value) => (LetKind::Immutable, value),
            LetValue::Mutable(value) => (LetKind::Mutable, value),
            LetValue::Function(_, value) => (LetKind::Immutable, value),
            LetValue::CreateArray(size, space) => return self.create_array(binder, ty, size, space, body, l, r),
        };
        if let Some(components) = self.take_tuple_pattern(&binder) {
            if kind == LetKind::Mutable {
                let what = "a mutable tuple pattern";
                self.unsupported(binder.span(), what, "bind the components, then copy each into a `mut` variable");
            }
            return self.let_tuple(binder.span(), components, ty, value, body, l, r);
        }
        self.alloc(ExprKind::Let { binder, ty, kind, value, body }, l, r)
    }

    /// `let f params = function_body in body`: a `let` that binds `f` to `()` for now, recorded for
    /// `syntax::lift`, which makes `f` a top-level function and its calls in `body` calls of it.
    #[allow(clippy::too_many_arguments)]
    fn local_function(
        &mut self,
        name: Ident,
        params: ParamList,
        ret: Option<Box<TypeExpr>>,
        function_body: ExprId,
        body: ExprId,
        l: u32,
        r: u32,
    ) -> ExprId {
        let placeholder = self.module.alloc(ExprKind::Unit, name.span);
        let binder = Binder::Name(name.clone());
        let kind = ExprKind::Let { binder, ty: None, kind: LetKind::Immutable, value: placeholder, body };
        let let_expr = self.alloc(kind, l, r);
        let span = self.module.span(let_expr);
        let ret = ret.map(|t| *t);
        self.local_functions.push(LocalFunction {
            let_expr,
            name,
            params: params.params,
            ret,
            body: function_body,
            span,
            anonymous: false,
        });
        let_expr
    }

    /// `(fun params -> body)`: a local function named after its line (`fun_12`) whose `let` is the expression
    /// itself, `let fun_12 params = body in fun_12`. `syntax::lift` lifts it; passed as an argument it names the
    /// lifted function (a device function's function parameter then takes it), anywhere else it is E0233.
    pub fn anonymous_function(&mut self, params: ParamList, body: ExprId, l: u32, r: u32) -> ExprId {
        let span = self.span(l, r);
        let line = self.text[..(l as usize).min(self.text.len())].matches('\n').count() + 1;
        let name = Ident { name: Name::new(&format!("fun_{line}")), span };
        let placeholder = self.module.alloc(ExprKind::Unit, span);
        let rest = self.module.alloc(ExprKind::Var(Path { module: None, name: name.clone() }), span);
        let binder = Binder::Name(name.clone());
        let kind = ExprKind::Let { binder, ty: None, kind: LetKind::Immutable, value: placeholder, body: rest };
        let let_expr = self.alloc(kind, l, r);
        self.local_functions.push(LocalFunction {
            let_expr,
            name,
            params: params.params,
            ret: None,
            body,
            span,
            anonymous: true,
        });
        let_expr
    }

    /// `let a = create_array n Shared in` (Sarek): a shared or local array.
    #[allow(clippy::too_many_arguments)]
    fn create_array(
        &mut self,
        binder: Binder,
        ty: Option<Box<TypeExpr>>,
        size: ExprId,
        space: Lexeme,
        body: ExprId,
        l: u32,
        r: u32,
    ) -> ExprId {
        let space = match self.text_of(space) {
            "Shared" => MemorySpace::Shared,
            "Local" => MemorySpace::Local,
            other => {
                let d = Diagnostic::error("E0100", format!("expected `Shared` or `Local`, found `{other}`"))
                    .primary(self.lexeme_span(space), "expected `Shared` or `Local`");
                self.diagnostics.push(d);
                MemorySpace::Local
            }
        };
        let name = binder.name().cloned().unwrap_or(Ident { name: "_".into(), span: binder.span() });
        let elem = ty.map(|t| match *t {
            TypeExpr::Apply { arg, constructor } if constructor.name == "array" => arg,
            other => Box::new(other),
        });
        self.alloc(ExprKind::LetArray { name, elem, space, size, body }, l, r)
    }

    /// `let%shared (t : T) = n in`, `let%local (t : T) = n in`; other extensions are E0205.
    pub fn let_array_extension(
        &mut self,
        extension: Lexeme,
        (binder, ty): (Binder, Option<Box<TypeExpr>>),
        size: ExprId,
        body: ExprId,
        l: u32,
        r: u32,
    ) -> ExprId {
        let space = match self.text_of(extension) {
            "shared" => MemorySpace::Shared,
            "local" => MemorySpace::Local,
            other => {
                let what = format!("the extension `let%{other}`");
                let span = self.lexeme_span(extension);
                self.unsupported(span, &what, "known: `let%shared`, `let%local`, `let%superstep`");
                return self.alloc(ExprKind::Error, l, r);
            }
        };
        let name = binder.name().cloned().unwrap_or(Ident { name: "_".into(), span: binder.span() });
        let (elem, size) = match self.take_tuple(size) {
            Some(sizes) => match self.multi_dimensional(ty, sizes, name.span) {
                Some(dims) => dims,
                None => return self.alloc(ExprKind::Error, l, r),
            },
            None => (ty, size),
        };
        self.alloc(ExprKind::LetArray { name, elem, space, size, body }, l, r)
    }

    /// `let%shared (t : T) = (n1, n2, ...) in`: an array of `n1` rows of type `T[n2]...`, so the element type
    /// carries the inner dimensions and the array's size is the outer one.
    fn multi_dimensional(
        &mut self,
        ty: Option<Box<TypeExpr>>,
        sizes: Vec<ExprId>,
        name: Span,
    ) -> Option<(Option<Box<TypeExpr>>, ExprId)> {
        let Some(mut elem) = ty else {
            self.unsupported(
                name,
                "a multi-dimensional array without an element type",
                "write its element type: `let%shared (t : float32) = (16, 17) in`",
            );
            return None;
        };
        for &size in sizes[1..].iter().rev() {
            let span = self.module.expr_spans[size.index()];
            elem = Box::new(TypeExpr::Sized { elem, size, span });
        }
        Some((Some(elem), sizes[0]))
    }

    /// `let%superstep[@divergent] name = step in rest` is `superstep ~divergent { step }; rest` (and
    /// `superstep ~divergent { step }` when nothing follows `in` before a closing token).
    #[allow(clippy::too_many_arguments)]
    pub fn let_superstep(
        &mut self,
        attributes: Vec<Attribute>,
        name: Lexeme,
        step: ExprId,
        step_end: u32,
        rest: Option<ExprId>,
        l: u32,
        r: u32,
    ) -> ExprId {
        let mut divergent = false;
        for attribute in &attributes {
            let text = &self.text[attribute.name.range()];
            divergent |= self.superstep_attribute(text, attribute.name);
        }
        let name = Some(self.ident(name));
        let step = self.alloc(ExprKind::Superstep { name, divergent, body: step }, l, step_end);
        match rest {
            Some(rest) => self.alloc(ExprKind::Seq(step, rest), l, r),
            None => step,
        }
    }

    /// `let open Std in body`: builtin modules are always open; other modules must be opened at top level.
    pub fn let_open(&mut self, module: Lexeme, body: ExprId) -> ExprId {
        self.open_module(module);
        body
    }

    /// `let open M in` (in an expression, or before `fun` in `[%kernel`): a user module is opened for the whole
    /// file; the builtin namespaces need nothing.
    pub fn open_module(&mut self, module: Lexeme) {
        let module = self.ident(module);
        if !crate::builtins::BUILTIN_MODULES.contains(&module.name.as_str()) {
            let span = module.span;
            self.module.items.push(Item::Open(Open { module, span, args: Vec::new(), alias: None }));
        }
    }

    // --- types ------------------------------------------------------------------------------------------

    pub fn named_type(&mut self, name: Lexeme) -> Box<TypeExpr> {
        Box::new(TypeExpr::Named(self.ident(name)))
    }

    pub fn qualified_type(&mut self, module: Lexeme, name: Lexeme) -> Box<TypeExpr> {
        Box::new(TypeExpr::Qualified { module: self.ident(module), name: self.ident(name) })
    }

    pub fn type_variable(&mut self, name: Lexeme) -> Box<TypeExpr> {
        Box::new(TypeExpr::Variable(self.ident(name)))
    }

    pub fn applied_type(&mut self, arg: Box<TypeExpr>, constructor: Lexeme) -> Box<TypeExpr> {
        Box::new(TypeExpr::Apply { arg, constructor: self.ident(constructor) })
    }

    pub fn qualified_applied_type(&mut self, arg: Box<TypeExpr>, module: Lexeme, constructor: Lexeme) -> Box<TypeExpr> {
        Box::new(TypeExpr::QualifiedApply { arg, module: self.ident(module), constructor: self.ident(constructor) })
    }

    pub fn sized_type(&mut self, elem: Box<TypeExpr>, size: ExprId, close: Lexeme) -> Box<TypeExpr> {
        let span = elem.span().to(self.lexeme_span(close));
        Box::new(TypeExpr::Sized { elem, size, span })
    }

    /// `first` and `rest` come boxed from the grammar's type rules.
    #[allow(clippy::boxed_local, clippy::vec_box)]
    pub fn function_type(&mut self, first: Box<TypeExpr>, rest: Vec<Box<TypeExpr>>) -> Box<TypeExpr> {
        let mut params: Vec<TypeExpr> = std::iter::once(*first).chain(rest.into_iter().map(|t| *t)).collect();
        let ret = Box::new(params.pop().expect("a function type has a result"));
        Box::new(TypeExpr::Function { params, ret })
    }

    // --- parameters -------------------------------------------------------------------------------------

    pub fn param(&mut self, mut list: ParamList, name: Lexeme) -> ParamList {
        let name = self.ident(name);
        list.first = list.first.or(Some(name.span));
        list.written = true;
        list.params.push(Param { span: name.span, name, ty: None });
        list
    }

    pub fn param_in_parentheses(
        &mut self,
        mut list: ParamList,
        name: Lexeme,
        ty: Option<Box<TypeExpr>>,
        l: u32,
        r: u32,
    ) -> ParamList {
        let span = self.span(l, r);
        list.first = list.first.or(Some(span));
        list.written = true;
        list.params.push(Param { name: self.ident(name), ty: ty.map(|t| *t), span });
        list
    }

    pub fn unit_param(&mut self, mut list: ParamList, l: u32, r: u32) -> ParamList {
        list.first = list.first.or(Some(self.span(l, r)));
        list.written = true;
        list
    }

    // --- items ------------------------------------------------------------------------------------------

    pub fn attribute(&mut self, open: Lexeme, (l, r): (u32, u32), payload: Vec<Lexeme>, close: Lexeme) -> Attribute {
        let _ = (open, close);
        Attribute { name: self.span(l, r), payload }
    }

    pub fn mutable_field(&mut self, word: Lexeme, name: Lexeme, ty: Box<TypeExpr>) -> (Lexeme, Box<TypeExpr>) {
        if self.text_of(word) != "mutable" {
            let d = Diagnostic::error("E0100", format!("expected `:`, found `{}`", self.text_of(name)))
                .primary(self.lexeme_span(name), "expected `:`");
            self.diagnostics.push(d);
        }
        (name, ty)
    }

    pub fn unsupported_rec(&mut self, rec: Lexeme, item: LetItemBody) -> LetItemBody {
        let span = self.lexeme_span(rec);
        self.unsupported(span, "recursion", "GPU device functions cannot recurse here; write a loop");
        item
    }

    /// `let%ext ...` at top level: reported, and the item skipped.
    pub fn unsupported_item_extension(&mut self, percent: Lexeme, skipped: Recovery) -> LetItemBody {
        let _ = skipped;
        let span = self.lexeme_span(percent);
        self.unsupported(span, "this extension at top level", "use `let name = [%kernel fun ... -> ...]`");
        LetItemBody::Error
    }

    /// Sarek's kernel factory, `let f () = [%kernel fun ... -> ...]`: the kernel `f`. A factory with parameters
    /// other than `()` (a kernel built from host values) is not supported.
    pub fn kernel_factory(&mut self, name: Lexeme, params: ParamList, kernel: (ParamList, ExprId)) -> LetItemBody {
        match params.params.first() {
            Some(param) => {
                let span = param.span;
                self.unsupported(span, "a kernel factory with parameters", "pass the values as kernel parameters");
                LetItemBody::Error
            }
            None => LetItemBody::Kernel(name, kernel),
        }
    }

    /// `let%kernel f params = body` (Sarek's PPX README): the kernel `f`; another `let%ext` item is not supported.
    pub fn item_extension(
        &mut self,
        percent: Lexeme,
        extension: Lexeme,
        name: Lexeme,
        params: ParamList,
        body: ExprId,
    ) -> LetItemBody {
        if self.text_of(extension) == "kernel" {
            return LetItemBody::Kernel(name, (params, body));
        }
        let span = self.lexeme_span(percent);
        self.unsupported(span, "this extension at top level", "use `let name = [%kernel fun ... -> ...]`");
        LetItemBody::Error
    }

    pub fn let_item(
        &mut self,
        attributes: Vec<Attribute>,
        body: LetItemBody,
        item_attributes: Vec<Attribute>,
        l: u32,
        r: u32,
    ) {
        self.trailing_item_attributes(&item_attributes);
        let launch_bounds = self.let_item_attributes(&attributes);
        let contract = self.launch_contract(&attributes, launch_bounds);
        let span = self.span(l, r);
        let item = match body {
            LetItemBody::Value(name, ty, value) => {
                Item::Constant(Constant { name: self.ident(name), ty: ty.map(|t| *t), value, span })
            }
            LetItemBody::Function(name, params, ret, body) => Item::Function(Function {
                name: self.ident(name),
                params: params.params,
                ret: ret.map(|t| *t),
                body,
                span,
            }),
            LetItemBody::Kernel(name, (params, body)) => {
                let name = self.ident(name);
                let contract = contract.map(|(c, _)| c).unwrap_or_default();
                let kernel = Kernel { name, params: params.params, body, span, launch_bounds, contract };
                self.module.items.push(Item::Kernel(kernel));
                self.declare_value_or_function_param(&attributes);
                return;
            }
            LetItemBody::Error => return,
        };
        self.module.items.push(item);
        self.declare_value_or_function_param(&attributes);
        if let Some((_, contract_span)) = contract {
            self.attribute_errors.push(
                Diagnostic::error("E0107", "a launch contract applies to kernels only")
                    .primary(contract_span, "this item is not a kernel"),
            );
        }
        if let Some(bounds) = launch_bounds {
            self.attribute_errors.push(
                Diagnostic::error("E0106", "`launch_bounds` applies to kernels only")
                    .primary(bounds.span, "this item is not a kernel"),
            );
        }
    }

    /// Attributes accepted on `let` items: `[@sarek.module]` (a device function), `[@inline]`-style hints,
    /// `[@constant_memory]` (a constant array whose reads never fold, read by codegen),
    /// `[@launch_bounds ...]` (kept for a kernel the item defines) and `[@allow CODE ...]` (silences those
    /// warnings inside the item).
    fn let_item_attributes(&mut self, attributes: &[Attribute]) -> Option<LaunchBounds> {
        let mut bounds = None;
        for attribute in attributes {
            let name = &self.text[attribute.name.range()];
            match name {
                "launch_bounds" => bounds = self.launch_bounds(attribute).or(bounds),
                "allow" => self.allow(attribute),
                "sarek.module" | "sarek.kernel" | "inline" | "noinline" | "device" | "constant_memory" | "param" => {}
                name if is_contract_attribute(name) => {}
                _ => self.unknown_attribute(attribute),
            }
        }
        bounds
    }

    /// OCaml's item attributes after a `let` item (`[@@warning "-33"]`): OCaml's compiler warnings mean nothing to
    /// skc, so `warning` and Sarek's markers are accepted and ignored; any other is W0002.
    /// `type name = T`: OCaml's abbreviation of a type, as Sarek's host code writes `type float32 = float`. One
    /// that names a builtin scalar type by an equal one (`float32` and `float`, `int32` and `int`) says nothing
    /// new and is accepted; any other is E0205 (skc has no type abbreviations).
    /// `ty` comes boxed from the grammar's type rules.
    #[allow(clippy::boxed_local)]
    pub fn type_abbreviation(&mut self, attributes: Vec<Attribute>, name: Lexeme, ty: Box<TypeExpr>, l: u32, r: u32) {
        if self.has_param_attribute(&attributes) {
            return self.type_param(name, *ty);
        }
        self.type_attributes(&attributes);
        let scalar = |n: &str| crate::typeck::SCALAR_TYPES.iter().find(|(s, _)| *s == n).map(|(_, t)| t.clone());
        let agrees = match (&*ty, scalar(self.text_of(name))) {
            (TypeExpr::Named(target), Some(own)) => scalar(&target.name) == Some(own),
            _ => false,
        };
        if !agrees {
            let span = self.span(l, r);
            self.unsupported(span, "a type abbreviation", "write the type itself where it is used");
        }
    }

    /// Sarek's `[%%kernel let name params = body]`: the kernel `name` (a constant there is E0205).
    pub fn structure_kernel(&mut self, attributes: Vec<Attribute>, body: LetItemBody, l: u32, r: u32) {
        let body = match body {
            LetItemBody::Function(name, params, _, body) => LetItemBody::Kernel(name, (params, body)),
            LetItemBody::Value(name, _, _) => {
                let span = self.lexeme_span(name);
                self.unsupported(
                    span,
                    "a constant inside `[%%kernel ...]`",
                    "write `[%%kernel let name params = body]`",
                );
                LetItemBody::Error
            }
            other => other,
        };
        self.let_item(attributes, body, Vec::new(), l, r);
    }

    /// A floating attribute between items (`[@@@warning "-32"]`): OCaml's warning settings are ignored, any other
    /// attribute with W0002.
    pub fn floating_attribute(&mut self, attribute: Attribute) {
        self.trailing_item_attributes(std::slice::from_ref(&attribute));
    }

    fn trailing_item_attributes(&mut self, attributes: &[Attribute]) {
        for attribute in attributes {
            match &self.text[attribute.name.range()] {
                "warning" | "ocaml.warning" | "sarek.kernel" | "sarek.module" => {}
                _ => self.unknown_attribute(attribute),
            }
        }
    }

    fn unknown_attribute(&mut self, attribute: &Attribute) {
        let name = &self.text[attribute.name.range()];
        self.diagnostics.push(
            Diagnostic::warning("W0002", format!("unknown attribute `{name}` is ignored"))
                .primary(attribute.name, "not an attribute skc knows"),
        );
    }

    /// `[@launch_bounds MAX_THREADS]` or `[@launch_bounds MAX_THREADS MIN_BLOCKS]`: positive integer literals
    /// (E0106 otherwise).
    fn launch_bounds(&mut self, attribute: &Attribute) -> Option<LaunchBounds> {
        let mut numbers = Vec::new();
        let mut bad = None;
        for &word in &attribute.payload {
            let value = match literals::int(self.text_of(word)) {
                literals::IntLiteral::Fits(ExprKind::Int { value, .. })
                    if word.token == crate::syntax::lexer::Token::Int =>
                {
                    u32::try_from(value).ok().filter(|&v| v > 0)
                }
                _ => None,
            };
            match value {
                Some(n) => numbers.push(n),
                None => bad = bad.or(Some(self.lexeme_span(word))),
            }
        }
        let end = attribute.payload.last().map(|w| w.end).unwrap_or(attribute.name.end);
        let span = self.span(attribute.name.start, end);
        if bad.is_none() && (1..=2).contains(&numbers.len()) {
            return Some(LaunchBounds { max_threads: numbers[0], min_blocks: numbers.get(1).copied(), span });
        }
        self.attribute_errors.push(
            Diagnostic::error("E0106", "malformed `launch_bounds` attribute")
                .primary(bad.unwrap_or(span), "expected one or two positive integer literals")
                .help("write `[@launch_bounds 1024]` (threads per block) or `[@launch_bounds 1024 1]` (and blocks per multiprocessor)"),
        );
        None
    }

    /// `[@allow W0101 W0003]` (or `[@allow "W0101"]`).
    fn allow(&mut self, attribute: &Attribute) {
        for &word in &attribute.payload {
            let (text, mut span) = (self.text_of(word), self.lexeme_span(word));
            let text = match text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
                Some(inner) => {
                    span = Span { start: span.start + 1, end: span.end - 1, ..span };
                    inner
                }
                None => text,
            };
            let code = Ident { name: Name::new(text), span };
            let known = crate::codes::is_warning(code.name.as_str());
            if !known {
                self.diagnostics.push(
                    Diagnostic::warning("W0002", format!("`allow` names `{}`, which is not a warning code", code.name))
                        .primary(code.span, "not a warning of skc (`skc explain` lists the codes)"),
                );
            }
            self.module.allows.push(code);
        }
    }

    /// `kernel[@launch_bounds 256 2] name (a : T) b = body`.
    pub fn native_kernel(
        &mut self,
        attributes: Vec<Attribute>,
        name: Lexeme,
        params: ParamList,
        body: ExprId,
        l: u32,
        r: u32,
    ) {
        let mut launch_bounds = None;
        for attribute in &attributes {
            match &self.text[attribute.name.range()] {
                "launch_bounds" => launch_bounds = self.launch_bounds(attribute).or(launch_bounds),
                "allow" => self.allow(attribute),
                "param" => {}
                name if is_contract_attribute(name) => {}
                _ => self.unknown_attribute(attribute),
            }
        }
        let contract = self.launch_contract(&attributes, launch_bounds).map(|(c, _)| c).unwrap_or_default();
        let span = self.span(l, r);
        let name = self.ident(name);
        let kernel = Kernel { name, params: params.params, body, span, launch_bounds, contract };
        self.module.items.push(Item::Kernel(kernel));
        self.declare_value_or_function_param(&attributes);
    }

    /// A bare `[%kernel fun ... -> ...]` or `fun ... -> ...`, named after the file (`saxpy`, `saxpy_1`, ...).
    pub fn bare_kernel(&mut self, (params, body): (ParamList, ExprId), l: u32, r: u32) {
        let name = if self.bare_kernels == 0 {
            self.default_kernel_name.clone()
        } else {
            format!("{}_{}", self.default_kernel_name, self.bare_kernels)
        };
        self.bare_kernels += 1;
        let name = Ident { name: name.into(), span: self.span(l, l) };
        let span = self.span(l, r);
        let contract = Default::default();
        self.module.items.push(Item::Kernel(Kernel {
            name,
            params: params.params,
            body,
            span,
            launch_bounds: None,
            contract,
        }));
    }

    pub fn record(
        &mut self,
        attributes: Vec<Attribute>,
        name: Lexeme,
        fields: Vec<(Lexeme, Box<TypeExpr>)>,
        l: u32,
        r: u32,
    ) {
        self.type_attributes(&attributes);
        let fields = fields.into_iter().map(|(field, ty)| (self.ident(field), *ty)).collect();
        let span = self.span(l, r);
        let name = self.ident(name);
        self.module.items.push(Item::Record(RecordDecl { name, fields, span }));
    }
}

impl operators::Nodes for Builder<'_> {
    fn binary(&mut self, op: Operator, lhs: ExprId, rhs: ExprId, start: u32, end: u32) -> ExprId {
        match op {
            Operator::Binary(op) => Builder::binary(self, op, lhs, rhs, start, end),
            Operator::Store => self.assign(true, lhs, rhs, start, end),
            Operator::Assign => self.assign(false, lhs, rhs, start, end),
        }
    }

    fn prefix(&mut self, op: UnaryOp, operand: ExprId, start: u32, end: u32) -> ExprId {
        self.unary(op, operand, start, end)
    }
}

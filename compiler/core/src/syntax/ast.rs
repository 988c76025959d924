//! The abstract syntax tree of one `.sk` file.
//!
//! Expressions live in an arena (`Module::exprs`) and are referred to by `ExprId`; their spans sit in the parallel
//! `Module::expr_spans`. Later passes keep their results in side tables indexed by `ExprId` (types, uniformity),
//! never inside the nodes. Sarek's surface forms are desugared here into the native ones (for example
//! `let%superstep n = body in rest` becomes `Seq(Superstep, rest)`), so passes see one form per concept.
//!
//! Nodes are kept small (at most 64 bytes; a test checks it): the arena of a 100,000-line file holds about 400,000
//! of them, and the rare large parts (a path's module, type annotations) sit behind a `Box`.

use crate::source::Span;

pub use super::expr_map::ExprMap;
pub use super::name::Name;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExprId(pub u32);

impl ExprId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A name with its span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: Name,
    pub span: Span,
}

/// A possibly qualified name: `x`, `Gpu.block_barrier`, `Std.thread_idx_x`, `Weno.coeffs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path {
    /// Boxed: few names are qualified, and every `Var` and `Call` node holds a path.
    pub module: Option<Box<Ident>>,
    pub name: Ident,
}

impl Path {
    pub fn span(&self) -> Span {
        match &self.module {
            Some(m) => m.span.to(self.name.span),
            None => self.name.span,
        }
    }

    /// `Module.name` or `name`.
    pub fn display(&self) -> String {
        match &self.module {
            Some(m) => format!("{}.{}", m.name, self.name.name),
            None => self.name.name.to_string(),
        }
    }
}

/// A type as written in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeExpr {
    /// `int32`, `float64`, `unit`, a record name...
    Named(Ident),
    /// `M.t`: the record `t` of the opened module `M`.
    Qualified { module: Ident, name: Ident },
    /// `'a`: a type variable (the name keeps its quote); a device function is generic over those of its
    /// signature.
    Variable(Ident),
    /// `T vector`, `T array`, `T ref`: a postfix type constructor applied to an argument.
    Apply { arg: Box<TypeExpr>, constructor: Ident },
    /// `T M.c`: a constructor qualified by a module, as older Kirc code writes a vector (`int32 Arr.t Global.t`).
    QualifiedApply { arg: Box<TypeExpr>, module: Ident, constructor: Ident },
    /// `T[N]` (native syntax for a fixed-size array type, used in signatures of device functions).
    Sized { elem: Box<TypeExpr>, size: ExprId, span: Span },
    /// `float32 -> float32 -> float32`: the type of a device function passed as an argument, written only on a
    /// function's parameter (`typeck::function_args` specialises such parameters away).
    Function { params: Vec<TypeExpr>, ret: Box<TypeExpr> },
    /// `float32 * int32`: a tuple type (ML's spelling; two components or more).
    Tuple(Vec<TypeExpr>),
}

impl TypeExpr {
    pub fn span(&self) -> Span {
        match self {
            TypeExpr::Named(i) | TypeExpr::Variable(i) => i.span,
            TypeExpr::Qualified { module, name } => module.span.to(name.span),
            TypeExpr::Apply { arg, constructor } | TypeExpr::QualifiedApply { arg, constructor, .. } => {
                arg.span().to(constructor.span)
            }
            TypeExpr::Sized { span, .. } => *span,
            TypeExpr::Function { params, ret } => params.first().map_or(ret.span(), |p| p.span().to(ret.span())),
            TypeExpr::Tuple(components) => match (components.first(), components.last()) {
                (Some(first), Some(last)) => first.span().to(last.span()),
                _ => Span::default(),
            },
        }
    }
}

/// A parameter: `x` or `(x : T)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: Ident,
    pub ty: Option<TypeExpr>,
    pub span: Span,
}

/// What a `let` binds: a name, `_` or `()`, with an optional type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Binder {
    Name(Ident),
    Wildcard(Span),
    Unit(Span),
}

impl Binder {
    pub fn span(&self) -> Span {
        match self {
            Binder::Name(i) => i.span,
            Binder::Wildcard(s) | Binder::Unit(s) => *s,
        }
    }
    pub fn name(&self) -> Option<&Ident> {
        match self {
            Binder::Name(i) => Some(i),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemorySpace {
    Shared,
    Local,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    /// `+.` `-.` `*.` `/.`: the OCaml float spellings; they require float operands.
    FAdd,
    FSub,
    FMul,
    FDiv,
    /// `**`: float power.
    Pow,
    Mod,
    Land,
    Lor,
    Lxor,
    Lsl,
    Lsr,
    Asr,
    /// `=` and `==` (structural and physical equality are the same on scalars).
    Eq,
    /// `<>` and `!=`.
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

impl BinaryOp {
    pub fn symbol(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            FAdd => "+.",
            FSub => "-.",
            FMul => "*.",
            FDiv => "/.",
            Pow => "**",
            Mod => "mod",
            Land => "land",
            Lor => "lor",
            Lxor => "lxor",
            Lsl => "lsl",
            Lsr => "lsr",
            Asr => "asr",
            Eq => "=",
            Ne => "<>",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            And => "&&",
            Or => "||",
        }
    }

    pub fn is_comparison(self) -> bool {
        matches!(self, BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge)
    }

    pub fn is_logical(self) -> bool {
        matches!(self, BinaryOp::And | BinaryOp::Or)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-e` (integer or float).
    Neg,
    /// `-.e` (float only).
    FNeg,
    /// `not e` (bool).
    Not,
    /// `lnot e` (bitwise, integer).
    Lnot,
    /// `!r`: read a `ref` cell.
    Deref,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntSuffix {
    /// `l`: int32.
    L32,
    /// `L`: int64.
    L64,
    /// `u`: uint32.
    U32,
    /// `UL`: uint64.
    U64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatSuffix {
    /// `f`: float32.
    F32,
    /// `d`: float64.
    F64,
    /// `h`: float16.
    F16,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LetKind {
    /// `let x = e in`: immutable.
    Immutable,
    /// `let x = mut e in` (Sarek): a mutable variable read as `x` and assigned with `x := e`.
    Mutable,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// An integer literal; `value` holds the bits (negative literals come through `Unary(Neg)`).
    Int {
        value: u64,
        suffix: Option<IntSuffix>,
    },
    Float {
        value: f64,
        suffix: Option<FloatSuffix>,
    },
    Bool(bool),
    /// A string literal, quotes included in its span; only `printf`'s format (E0225 anywhere else).
    Str,
    /// `()`.
    Unit,
    /// A name: a variable, parameter, constant, or a zero-argument builtin used bare (`Gpu.block_barrier`).
    Var(Path),
    /// `[%global name]`: a top-level constant of the file.
    Global(Ident),
    /// `f a b`: application of a named function or builtin to its arguments.
    Call {
        callee: Path,
        args: Vec<ExprId>,
    },
    Unary {
        op: UnaryOp,
        operand: ExprId,
    },
    Binary {
        op: BinaryOp,
        lhs: ExprId,
        rhs: ExprId,
    },
    /// `let x = value in body` (also `let x = mut value in body`).
    Let {
        binder: Binder,
        ty: Option<Box<TypeExpr>>,
        kind: LetKind,
        value: ExprId,
        body: ExprId,
    },
    /// `let r = ref e in`: `value` is `Ref(e)` and the variable has type `T ref`.
    Ref(ExprId),
    /// A shared or local array with a size: `let%shared (t : float32) = 256 in`, `let t = create_array n Shared in`.
    LetArray {
        name: Ident,
        elem: Option<Box<TypeExpr>>,
        space: MemorySpace,
        size: ExprId,
        body: ExprId,
    },
    /// `x := e` for a `mut` variable or a `ref` cell.
    Assign {
        target: Path,
        value: ExprId,
    },
    If {
        cond: ExprId,
        then_branch: ExprId,
        else_branch: Option<ExprId>,
    },
    For {
        var: Ident,
        start: ExprId,
        end: ExprId,
        downto: bool,
        body: ExprId,
    },
    While {
        cond: ExprId,
        body: ExprId,
    },
    /// `e1; e2`.
    Seq(ExprId, ExprId),
    /// `a.(i)`.
    Index {
        array: ExprId,
        index: ExprId,
    },
    /// `a.(i) <- v`.
    IndexSet {
        array: ExprId,
        index: ExprId,
        value: ExprId,
    },
    /// `r.f`.
    Field {
        record: ExprId,
        field: Ident,
    },
    /// `r.f <- v`.
    FieldSet {
        record: ExprId,
        field: Ident,
        value: ExprId,
    },
    /// `{ f = e; ... }`.
    Record(Vec<(Ident, ExprId)>),
    /// `(a, b)`: a tuple (two components or more). The type checker makes each tuple type an anonymous record
    /// (fields `_0`, `_1`...) and rewrites this node into a `Record` of those fields, so no pass after it sees one.
    Tuple(Vec<ExprId>),
    /// `[| a; b; c |]` (constant arrays only).
    ArrayLit(Vec<ExprId>),
    /// `superstep { body }`, `superstep ~divergent { body }`, `let%superstep name = body in`: runs `body`,
    /// then a block barrier.
    Superstep {
        name: Option<Ident>,
        divergent: bool,
        body: ExprId,
    },
    /// `(e : T)`.
    Annot {
        expr: ExprId,
        ty: Box<TypeExpr>,
    },
    /// `pragma ["unroll"] e`.
    Pragma {
        options: Vec<String>,
        body: ExprId,
    },
    /// `return` / `return e`: leaves the enclosing function or kernel.
    Return(Option<ExprId>),
    /// `break`: leaves the innermost loop.
    Break,
    /// `continue`: starts the next iteration of the innermost loop.
    Continue,
    /// Where the parser recovered from a syntax error.
    Error,
}

/// A kernel: `let name = [%kernel fun params -> body]`, `kernel name params = body`, or a bare `fun`.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub name: Ident,
    pub params: Vec<Param>,
    pub body: ExprId,
    pub span: Span,
    /// `[@launch_bounds max_threads min_blocks]`: CUDA's `__launch_bounds__`.
    pub launch_bounds: Option<LaunchBounds>,
    /// What `[@block_1d]`, `[@block_multiple M]`, `[@block_size N]` and `[@launch_bounds T]` promise about every
    /// launch (the empty contract without them).
    pub contract: crate::contract::LaunchContract,
}

/// `[@launch_bounds 1024 1]` on a kernel: at most `max_threads` threads per block, and (if given) registers
/// budgeted so that `min_blocks` blocks fit on a multiprocessor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchBounds {
    pub max_threads: u32,
    pub min_blocks: Option<u32>,
    pub span: Span,
}

/// A device function: `let f (x : float32) : float32 = body` (also `let[@sarek.module] f ...`).
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: Ident,
    pub params: Vec<Param>,
    pub ret: Option<TypeExpr>,
    pub body: ExprId,
    pub span: Span,
}

/// A compile-time constant: `let n = 256`, `let c = [| 1.0; 2.0 |]`, `let (eps : float64) = 1e-8`.
#[derive(Clone, Debug, PartialEq)]
pub struct Constant {
    pub name: Ident,
    pub ty: Option<TypeExpr>,
    pub value: ExprId,
    pub span: Span,
}

/// `type point = { x : float32; y : float32 }` (optionally followed by `[@@sarek.type]`).
#[derive(Clone, Debug, PartialEq)]
pub struct RecordDecl {
    pub name: Ident,
    pub fields: Vec<(Ident, TypeExpr)>,
    pub span: Span,
}

/// `open Weno` (top level) makes the items of `weno.sk` visible; `Std` and `Gpu` are built in. With arguments,
/// `open Weno (real = float32)` gives the module's parameters values; with an alias, `open Weno (...) as Weno32`
/// makes an instance of its own (`crate::instances`).
#[derive(Clone, Debug, PartialEq)]
pub struct Open {
    pub module: Ident,
    pub span: Span,
    pub args: Vec<OpenArgument>,
    pub alias: Option<Ident>,
}

/// `name = value` in `open M (name = value)`: `value` is an expression of the opening file (a type's argument is
/// written as a name, `float32`).
#[derive(Clone, Debug, PartialEq)]
pub struct OpenArgument {
    pub name: Ident,
    pub value: ExprId,
}

/// A module's parameter, declared with `[@param]`: `type[@param] real = float64`, `let[@param] order : int32 = 5`,
/// `let[@param] rhs (y : real) : real = y`. Value and function parameters are also ordinary items (the constant,
/// the function, with the default as value or body); a type parameter is only this.
#[derive(Clone, Debug, PartialEq)]
pub struct ModuleParam {
    pub name: Ident,
    pub kind: ModuleParamKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ModuleParamKind {
    /// The default type.
    Type(TypeExpr),
    /// A constant with a written type.
    Value,
    /// A device function.
    Function,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Kernel(Kernel),
    Function(Function),
    Constant(Constant),
    Record(RecordDecl),
    Open(Open),
}

impl Item {
    pub fn name(&self) -> &Ident {
        match self {
            Item::Kernel(k) => &k.name,
            Item::Function(f) => &f.name,
            Item::Constant(c) => &c.name,
            Item::Record(r) => &r.name,
            Item::Open(o) => &o.module,
        }
    }

    pub fn span(&self) -> Span {
        match self {
            Item::Kernel(k) => k.span,
            Item::Function(f) => f.span,
            Item::Constant(c) => c.span,
            Item::Record(r) => r.span,
            Item::Open(o) => o.span,
        }
    }
}

/// One parsed file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Module {
    pub items: Vec<Item>,
    pub exprs: Vec<ExprKind>,
    pub expr_spans: Vec<Span>,
    /// `let[@allow W0101] ...`: each warning code an item attribute allows, with the code's span (inside the
    /// item's span, which is how the driver finds the item it silences).
    pub allows: Vec<Ident>,
    /// The `[@param]` declarations of every file, in source order.
    pub params: Vec<ModuleParam>,
}

/// The lengths of a [`Module`]'s tables at some moment, to undo what was added after it.
#[derive(Clone, Copy, Debug)]
pub struct ModuleMark {
    items: usize,
    exprs: usize,
    allows: usize,
    params: usize,
}

impl Module {
    pub fn mark(&self) -> ModuleMark {
        // Every table by name, so that a table added to `Module` is added here too.
        let Module { items, exprs, expr_spans: _, allows, params } = self;
        ModuleMark { items: items.len(), exprs: exprs.len(), allows: allows.len(), params: params.len() }
    }

    /// Removes every item, expression, allowed code and parameter added since `mark` was taken.
    pub fn truncate_to(&mut self, mark: ModuleMark) {
        self.items.truncate(mark.items);
        self.exprs.truncate(mark.exprs);
        self.expr_spans.truncate(mark.exprs);
        self.allows.truncate(mark.allows);
        self.params.truncate(mark.params);
    }

    pub fn alloc(&mut self, kind: ExprKind, span: Span) -> ExprId {
        self.exprs.push(kind);
        self.expr_spans.push(span);
        ExprId(self.exprs.len() as u32 - 1)
    }

    pub fn expr(&self, id: ExprId) -> &ExprKind {
        &self.exprs[id.index()]
    }

    pub fn span(&self, id: ExprId) -> Span {
        self.expr_spans[id.index()]
    }

    pub fn kernels(&self) -> impl Iterator<Item = &Kernel> {
        self.items.iter().filter_map(|i| match i {
            Item::Kernel(k) => Some(k),
            _ => None,
        })
    }

    pub fn functions(&self) -> impl Iterator<Item = &Function> {
        self.items.iter().filter_map(|i| match i {
            Item::Function(f) => Some(f),
            _ => None,
        })
    }

    pub fn constants(&self) -> impl Iterator<Item = &Constant> {
        self.items.iter().filter_map(|i| match i {
            Item::Constant(c) => Some(c),
            _ => None,
        })
    }

    pub fn records(&self) -> impl Iterator<Item = &RecordDecl> {
        self.items.iter().filter_map(|i| match i {
            Item::Record(r) => Some(r),
            _ => None,
        })
    }

    /// The direct children of an expression, in evaluation order.
    pub fn children(&self, id: ExprId) -> Vec<ExprId> {
        let mut children = Vec::new();
        self.push_children(id, &mut children);
        children
    }

    /// Appends the direct children of an expression to `out`, in evaluation order (what [`Module::children`]
    /// returns, without allocating a vector per node for walkers that keep their own stack).
    pub fn push_children(&self, id: ExprId, out: &mut Vec<ExprId>) {
        for_each_child(self.expr(id), |child| out.push(child));
    }
}

/// Calls `visit` on each child of `kind`, in the order [`Module::push_children`] lists them. A closure rather
/// than a vector, for the walks that visit every node of a large arena (`syntax::depth`).
#[inline]
pub fn for_each_child(kind: &ExprKind, mut visit: impl FnMut(ExprId)) {
    use ExprKind::*;
    match kind {
        Int { .. } | Float { .. } | Bool(_) | Str | Unit | Var(_) | Global(_) | Break | Continue | Error => {}
        Return(e) => e.iter().copied().for_each(visit),
        Call { args, .. } => args.iter().copied().for_each(visit),
        Unary { operand, .. } => visit(*operand),
        Binary { lhs, rhs, .. } => [*lhs, *rhs].into_iter().for_each(visit),
        Let { value, body, .. } => [*value, *body].into_iter().for_each(visit),
        Ref(e) => visit(*e),
        LetArray { size, body, .. } => [*size, *body].into_iter().for_each(visit),
        Assign { value, .. } => visit(*value),
        If { cond, then_branch, else_branch } => [*cond, *then_branch].into_iter().chain(*else_branch).for_each(visit),
        For { start, end, body, .. } => [*start, *end, *body].into_iter().for_each(visit),
        While { cond, body } => [*cond, *body].into_iter().for_each(visit),
        Seq(a, b) => [*a, *b].into_iter().for_each(visit),
        Index { array, index } => [*array, *index].into_iter().for_each(visit),
        IndexSet { array, index, value } => [*array, *index, *value].into_iter().for_each(visit),
        Field { record, .. } => visit(*record),
        FieldSet { record, value, .. } => [*record, *value].into_iter().for_each(visit),
        Record(fields) => fields.iter().map(|(_, e)| *e).for_each(visit),
        Tuple(components) => components.iter().copied().for_each(visit),
        ArrayLit(items) => items.iter().copied().for_each(visit),
        Superstep { body, .. } => visit(*body),
        Annot { expr, .. } => visit(*expr),
        Pragma { body, .. } => visit(*body),
    }
}

/// Replaces each child of `kind` by `map(child)`, in the order [`for_each_child`] visits them (a copy of a
/// subtree, as the specialisation of a generic function makes, maps the copied node's children to their copies).
pub fn map_children(kind: &mut ExprKind, mut map: impl FnMut(ExprId) -> ExprId) {
    use ExprKind::*;
    let mut one = |e: &mut ExprId| *e = map(*e);
    match kind {
        Int { .. } | Float { .. } | Bool(_) | Str | Unit | Var(_) | Global(_) | Break | Continue | Error => {}
        Return(e) => e.iter_mut().for_each(one),
        Call { args, .. } => args.iter_mut().for_each(one),
        Unary { operand, .. } => one(operand),
        Binary { lhs, rhs, .. } => [lhs, rhs].into_iter().for_each(one),
        Let { value, body, .. } => [value, body].into_iter().for_each(one),
        Ref(e) => one(e),
        LetArray { size, body, .. } => [size, body].into_iter().for_each(one),
        Assign { value, .. } => one(value),
        If { cond, then_branch, else_branch } => [cond, then_branch].into_iter().chain(else_branch).for_each(one),
        For { start, end, body, .. } => [start, end, body].into_iter().for_each(one),
        While { cond, body } => [cond, body].into_iter().for_each(one),
        Seq(a, b) => [a, b].into_iter().for_each(one),
        Index { array, index } => [array, index].into_iter().for_each(one),
        IndexSet { array, index, value } => [array, index, value].into_iter().for_each(one),
        Field { record, .. } => one(record),
        FieldSet { record, value, .. } => [record, value].into_iter().for_each(one),
        Record(fields) => fields.iter_mut().map(|(_, e)| e).for_each(one),
        Tuple(components) => components.iter_mut().for_each(one),
        ArrayLit(items) => items.iter_mut().for_each(one),
        Superstep { body, .. } => one(body),
        Annot { expr, .. } => one(expr),
        Pragma { body, .. } => one(body),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_stay_small() {
        assert_eq!(std::mem::size_of::<Ident>(), 32);
        assert!(std::mem::size_of::<ExprKind>() <= 64, "{}", std::mem::size_of::<ExprKind>());
    }
}

//! The facts the convergence analysis computes: how uniform a value is (and why), and how converged control flow
//! is (and why). Every non-uniform fact carries the chain of source positions that made it so: that chain is what
//! a diagnostic's secondary labels print.
//!
//! The steps of the chains live in arenas ([`Facts`]) and values and control states refer to them by handle, so a
//! `Value` or a `Control` is a small copyable pair: the analysis creates and copies them at nearly every node, and
//! reference-counted chains cost an allocation per step and a count update per copy.

use crate::source::Span;
use crate::syntax::ast::ExprId;
use crate::types::{FunctionId, LocalId};

/// How many threads are guaranteed to agree on a value (or to execute a point of the program together).
/// Ordered: `Uniform < BlockUniform < WarpUniform < ThreadVarying`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Uniformity {
    /// The same in every thread of the grid: literals, constants, scalar parameters, `block_dim_*`.
    Uniform,
    /// The same in every thread of a block: `block_idx_*`, `uniform_load`.
    BlockUniform,
    /// The same in every thread of a warp: `warp_id`, votes, ballots.
    WarpUniform,
    /// May differ between any two threads: `thread_idx_*`, shuffles, atomics, loads of shared data.
    ThreadVarying,
}

impl Uniformity {
    /// Adjective used in messages: "thread-varying", "warp-varying" (uniform per warp only), ...
    pub fn describe(self) -> &'static str {
        match self {
            Uniformity::Uniform => "uniform",
            Uniformity::BlockUniform => "block-varying",
            Uniformity::WarpUniform => "warp-varying",
            Uniformity::ThreadVarying => "thread-varying",
        }
    }

    /// What a hover says.
    pub fn hover(self) -> &'static str {
        match self {
            Uniformity::Uniform => "uniform (the same in every thread)",
            Uniformity::BlockUniform => "block-uniform (the same in every thread of a block)",
            Uniformity::WarpUniform => "warp-uniform (the same in every thread of a warp)",
            Uniformity::ThreadVarying => "thread-varying",
        }
    }
}

/// One step of the explanation of why a value is not uniform. Steps hold ids, not names: names are looked up only
/// when a diagnostic or a hover is printed, which keeps the analysis free of allocations on the hot path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OriginKind {
    /// A builtin whose result varies (`thread_idx_x`, `shfl_down`, an atomic); the expression that names it.
    Builtin(ExprId),
    /// `let x = <varying> in`.
    Let(LocalId),
    /// `x := <varying>`.
    Assign(LocalId),
    /// `x := ...` executed in diverged control flow.
    AssignInDivergence(LocalId),
    /// An argument passed to parameter `param` of `function`.
    Argument { function: FunctionId, param: LocalId },
    /// The result of calling `function`.
    CallResult(FunctionId),
    /// A load from memory that other threads may write.
    SharedLoad(LocalId),
    /// A `for` counter whose bounds vary.
    LoopCounter(LocalId),
    /// The value of an `if` whose condition varies.
    IfValue,
    /// A write to an element of a local array in diverged control flow, or of a varying value.
    ElementWrite(LocalId),
}

/// A handle into one of the arenas of [`Facts`]: the index plus one, so that an absent handle (`None`) takes no
/// room of its own. Values, control states and steps are copied at nearly every node and kept in the walker's
/// tables: with 4-byte optional handles a `Value` takes 12 bytes instead of 20 and an `Origin` 32 instead of 36.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Handle(std::num::NonZeroU32);

impl Handle {
    /// The handle of the entry at `index`.
    fn at(index: usize) -> Handle {
        let above = u32::try_from(index + 1).expect("fewer than 2^32 - 1 facts");
        Handle(std::num::NonZeroU32::new(above).expect("an index plus one is not zero"))
    }

    fn index(self) -> usize {
        self.0.get() as usize - 1
    }
}

impl std::fmt::Debug for Handle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.index().fmt(f)
    }
}

/// Handle of an [`Origin`] in [`Facts`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OriginId(Handle);

impl OriginId {
    pub fn index(self) -> usize {
        self.0.index()
    }
}

/// Handle of a [`Divergence`] in [`Facts`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DivergenceId(Handle);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Origin {
    pub kind: OriginKind,
    pub span: Span,
    pub level: Uniformity,
    /// The step before this one (closer to the source).
    pub cause: Option<OriginId>,
}

/// Handle of the per-field values of a record (or tuple) in [`Facts`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FieldsId(Handle);

/// An abstract value: its uniformity and, when not uniform, where that came from.
///
/// A record or tuple value may also know each field's value (`fields`): a field read then has that field's level
/// instead of the whole value's. `level` stays the join of the fields', so every use that looks at the level alone
/// (the common case) sees what it did without them; a value whose fields are not known is read field by field at
/// its whole level (conservative). Fields are known for record and tuple literals and kept through immutable
/// `let`s and function results only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Value {
    pub level: Uniformity,
    pub origin: Option<OriginId>,
    pub fields: Option<FieldsId>,
}

// The sizes the compact handles give (see `Handle`): a change that grows them is visible here.
const _: () = assert!(std::mem::size_of::<Value>() == 12 && std::mem::size_of::<Origin>() == 32);

impl Value {
    pub fn uniform() -> Value {
        Value { level: Uniformity::Uniform, origin: None, fields: None }
    }

    pub fn new(level: Uniformity, origin: Option<OriginId>) -> Value {
        Value { level, origin, fields: None }
    }

    /// The same level and explanation, with no per-field values.
    pub fn whole(self) -> Value {
        Value { fields: None, ..self }
    }

    /// The less uniform of the two; on a tie the first (earlier) explanation is kept. Per-field values survive
    /// where they bound both sides: the same fields on both, or one side uniform without fields (each of its
    /// fields is uniform too, so the other side's fields bound the join).
    pub fn join(self, other: Value) -> Value {
        let fields = match (self.fields, other.fields) {
            (a, b) if a == b => a,
            (None, b) if self.level == Uniformity::Uniform => b,
            (a, None) if other.level == Uniformity::Uniform => a,
            _ => None,
        };
        let joined = if other.level > self.level { other } else { self };
        Value { fields, ..joined }
    }
}

/// Why control flow may have diverged at some point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DivergenceKind {
    /// An `if` (or `select`-free conditional) on a varying condition.
    Branch,
    /// A `while` whose condition varies, or a `for` whose bounds vary.
    Loop,
    /// The condition of a `while` whose condition varies, evaluated again by the threads still in the loop.
    LoopCondition,
    /// The right operand of `&&`/`||` runs only where the left one allows.
    ShortCircuit,
    /// Some threads may have returned early here.
    Return,
    /// Some threads may have left the loop here.
    Break,
    /// Some threads may have skipped the rest of the iteration here.
    Continue,
    /// A device function entered from diverged control flow.
    Call(FunctionId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Divergence {
    pub kind: DivergenceKind,
    pub span: Span,
    /// The varying value that decided (the condition, the loop bound); none for exits and calls.
    pub cause: Value,
    /// The divergence that was already in effect (for exits and calls: what made them divergent).
    pub outer: Option<DivergenceId>,
}

/// How converged control flow is at a point of the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Control {
    pub level: Uniformity,
    pub why: Option<DivergenceId>,
}

impl Control {
    pub fn converged() -> Control {
        Control { level: Uniformity::Uniform, why: None }
    }

    /// The less converged of the two; on a tie the first.
    pub fn join(self, other: Control) -> Control {
        if other.level > self.level {
            other
        } else {
            self
        }
    }
}

/// The arenas of explanation steps of one analysis: every `Origin` and `Divergence` it created, never freed
/// before the analysis ends (values refer to them by handle).
#[derive(Clone, Debug, Default)]
pub struct Facts {
    origins: Vec<Origin>,
    divergences: Vec<Divergence>,
    /// The per-field values of records and tuples, by field name.
    fields: Vec<Vec<(crate::syntax::name::Name, Value)>>,
}

impl Facts {
    /// Empty arenas with room for the steps of a module of `expr_count` expressions: one step per expression, a
    /// divergence per four (a walk makes fewer of either: one step per four expressions and one divergence per 25
    /// on `bench_check`). Growing by doubling copied each arena several times over, a visible part of the
    /// analysis; the room is only address space until it is used, and an arena that needs more still grows.
    pub fn with_room(expr_count: usize) -> Facts {
        Facts {
            origins: Vec::with_capacity(expr_count),
            divergences: Vec::with_capacity(expr_count / 4),
            fields: Vec::new(),
        }
    }

    pub fn origin(&self, id: OriginId) -> &Origin {
        &self.origins[id.index()]
    }

    pub fn divergence(&self, id: DivergenceId) -> &Divergence {
        &self.divergences[id.0.index()]
    }

    /// The step of index `index`, if there is one.
    pub fn origin_at(&self, index: usize) -> Option<&Origin> {
        self.origins.get(index)
    }

    /// How many steps exist: a step whose index is at least a count taken earlier was created after it.
    pub fn origin_count(&self) -> usize {
        self.origins.len()
    }

    pub fn push_origin(&mut self, origin: Origin) -> OriginId {
        self.origins.push(origin);
        OriginId(Handle::at(self.origins.len() - 1))
    }

    /// A value of `level` whose explanation starts with a step of `kind` at `span` (uniform values have none).
    pub fn value(&mut self, level: Uniformity, kind: OriginKind, span: Span, cause: Option<OriginId>) -> Value {
        if level == Uniformity::Uniform {
            return Value::uniform();
        }
        let id = self.push_origin(Origin { kind, span, level, cause });
        Value::new(level, Some(id))
    }

    /// A record or tuple value whose fields have the values `fields` (its level is their join). A uniform one
    /// needs none: every field is uniform.
    pub fn record(&mut self, fields: Vec<(crate::syntax::name::Name, Value)>) -> Value {
        let whole = fields.iter().fold(Value::uniform(), |acc, (_, v)| acc.join(v.whole()));
        if whole.level == Uniformity::Uniform {
            return whole;
        }
        self.fields.push(fields);
        Value { fields: Some(FieldsId(Handle::at(self.fields.len() - 1))), ..whole }
    }

    /// The value of field `name` of `record`: its own where the record's fields are known, else the whole value's
    /// level and explanation.
    pub fn field(&self, record: Value, name: &str) -> Value {
        let known = record.fields.and_then(|id| self.fields[id.0.index()].iter().find(|(n, _)| **n == *name));
        match known {
            Some((_, value)) => *value,
            None => record.whole(),
        }
    }

    /// `through`, keeping the per-field values: each field's explanation gets the step too, so a field read
    /// later is explained through it (a `let` of a tuple, a function's result).
    pub fn through_keeping_fields(&mut self, value: Value, kind: OriginKind, span: Span) -> Value {
        let Some(id) = value.fields else { return self.through(value, kind, span) };
        let fields = self.fields[id.0.index()].clone();
        let stepped: Vec<_> =
            fields.into_iter().map(|(name, v)| (name, self.through_keeping_fields(v, kind, span))).collect();
        let whole = self.through(value, kind, span);
        let kept = self.record(stepped);
        Value { fields: kept.fields, ..whole }
    }

    /// `value` with a step added to its explanation (keeping the level, not the per-field values).
    pub fn through(&mut self, value: Value, kind: OriginKind, span: Span) -> Value {
        if value.level == Uniformity::Uniform {
            return Value::uniform();
        }
        self.value(value.level, kind, span, value.origin)
    }

    /// The first source of a value's explanation chain (what the hover names).
    pub fn root(&self, value: Value) -> Option<(OriginId, &Origin)> {
        let mut id = value.origin?;
        loop {
            let origin = self.origin(id);
            match origin.cause {
                Some(cause) => id = cause,
                None => return Some((id, origin)),
            }
        }
    }

    /// The varying value that first made `control` diverge, walking out from the innermost construct: what a
    /// value assigned in that control flow is explained by.
    pub fn first_cause(&self, control: Control) -> Option<OriginId> {
        let mut next = control.why;
        while let Some(id) = next {
            let d = self.divergence(id);
            if d.cause.origin.is_some() {
                return d.cause.origin;
            }
            next = d.outer;
        }
        None
    }

    /// Control flow inside a construct that decides on `cause` (a condition, loop bounds).
    pub fn enter(&mut self, control: Control, kind: DivergenceKind, span: Span, cause: Value) -> Control {
        if cause.level <= control.level {
            return control;
        }
        let why = self.push_divergence(Divergence { kind, span, cause, outer: control.why });
        Control { level: cause.level, why: Some(why) }
    }

    /// The same level, re-explained as a consequence of an exit or a call at `span`.
    pub fn because_of(&mut self, control: Control, kind: DivergenceKind, span: Span) -> Control {
        if control.level == Uniformity::Uniform {
            return control;
        }
        let why = self.push_divergence(Divergence { kind, span, cause: Value::uniform(), outer: control.why });
        Control { level: control.level, why: Some(why) }
    }

    fn push_divergence(&mut self, divergence: Divergence) -> DivergenceId {
        self.divergences.push(divergence);
        DivergenceId(Handle::at(self.divergences.len() - 1))
    }
}

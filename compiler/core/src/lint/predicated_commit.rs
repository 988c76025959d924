//! W0101, predicated commits: a store to memory under a thread-varying `if` whose other branch keeps the old
//! value (`if c then a.(i) <- v`) splits the warp around a memory write; the same effect without a branch is an
//! unconditional store of a `select`: `a.(i) <- select c v a.(i)`.
//!
//! The rewrite reads and writes the location in the threads where `c` is false too, and evaluates the new value
//! there, so it is suggested only where that is provably harmless (docs: `skc explain W0101`):
//! - the condition is thread-varying in some context the code runs in (uniform branches do not diverge);
//! - the condition, the index and the value have no effects (no function calls, atomics, assignments);
//! - every element read or written by the rewrite is already accessed, with the same array and an index of the same
//!   immutable variables, on every path that reaches the `if` (in its condition or before it), or has a constant
//!   index inside a fixed-size array: an out-of-bounds guard such as `if i < n then a.(i) <- v` is never rewritten;
//! - integer division in the value or the index only by a non-zero literal (division by zero is undefined);
//! - a global vector or shared array is written at an index that is thread-varying in every context a kernel
//!   reaches it in (a uniform index is surely shared with other threads), made without an operation that maps
//!   several values to one (`thread_idx_x / 2`, `i mod n`, `i land m`: several threads likely share the element);
//!   local arrays, records and `mut` variables are private to the thread. A local array is one declared with
//!   `let%local` (or a name for such arrays only): an array parameter may be bound to a shared array, and an
//!   array's type does not say which memory it is in.
//!
//! Writing back the old value of an element that another thread writes at the same time would lose that thread's
//! update, so the rewrite is offered as an edit (`Diagnostic::suggestion`: the JSON `suggested_replacement`, the
//! language server's quick fix) only where each element is provably written by one thread at most: private
//! memory, the two-store form, or a kernel's vector or shared array whose every write in the kernel is at one
//! index that is an injective function of the thread that does not change while it runs (`global_thread_id`,
//! plus or minus kernel-invariant values, times nonzero literals, in a signed type: see `owned_element`).
//! Elsewhere (`global_idx`, which repeats across the rows of a 2-D launch) the warning says on what condition the
//! rewrite holds, without an edit.
//!
//! An `if` whose branches store two values to the same location (`if c then a.(i) <- v else a.(i) <- w`) becomes
//! `a.(i) <- select c v w`: every thread writes the location either way, so only the two values must be safe to
//! evaluate in every thread.
//!
//! The store branch may be a sequence of stores (a `mut` assignment may join them: `if x > m.(0) then (m.(0) <- x;
//! at := k)`); a branch that only assigns `mut` variables is left alone, since the CUDA compiler already turns such
//! register moves into selects.

use crate::builtins::{Builtin, Requirement, ResultUniformity, SigType};
use crate::convergence::{Uniformity, UniformityInfo};
use crate::diagnostic::Diagnostic;
use crate::fxhash::{FxHashMap, FxHashSet};
use crate::source::SourceMap;
use crate::syntax::ast::{BinaryOp, ExprId, ExprKind, Item, MemorySpace, Module, UnaryOp};
use crate::types::{ArraySize, LocalId, Mutability, Resolution, Type, TypeInfo};

pub const CODE: &str = "W0101";

/// Warns on every `if` of `module` that could commit its stores with `select`.
pub fn check(module: &Module, types: &TypeInfo, uniformity: &UniformityInfo, sources: &SourceMap) -> Vec<Diagnostic> {
    let mut lint = Lint {
        module,
        types,
        uniformity,
        sources,
        accessed: Vec::new(),
        prefilter: true,
        stack: Vec::new(),
        body: None,
        kernel: None,
        definitions: FxHashMap::default(),
        local_arrays: FxHashSet::default(),
        positions: Default::default(),
        out: Vec::new(),
    };
    // Most files have no candidate: judging each thread-varying `if` (the convergence analysis lists them) as if
    // every element with a stable index were accessed before it finds the few `if`s that may be reported, without
    // walking any body.
    let mut candidates: Vec<ExprId> = Vec::new();
    let mut after = 0u32;
    for &e in uniformity.thread_varying_ifs() {
        // The nodes an `if`'s verdict reads lie just before it (children are allocated before their parent).
        crate::warm::nodes(module, types, after.max(e.0.saturating_sub(WARM_NODES))..e.0 + 1);
        after = e.0 + 1;
        if lint.verdict(e).is_some() {
            candidates.push(e);
        }
    }
    if candidates.is_empty() {
        return Vec::new();
    }
    lint.prefilter = false;
    lint.definitions = immutable_definitions(module, types);
    lint.local_arrays = local_arrays(module, types);
    // A node's children are allocated before it and items are parsed in order, so an item's body lies between the
    // previous item's last node and its root: only the items with a candidate in that range are walked.
    let mut before = 0u32;
    for item in &module.items {
        let root = match item {
            Item::Kernel(k) => k.body,
            Item::Function(f) => f.body,
            Item::Constant(c) => {
                before = before.max(c.value.0 + 1);
                continue;
            }
            _ => continue,
        };
        let first = candidates.partition_point(|c| c.0 < before);
        if candidates.get(first).is_some_and(|c| c.0 <= root.0) {
            crate::warm::nodes(module, types, before..root.0 + 1);
            lint.accessed.clear();
            lint.body = Some(root);
            lint.kernel = types
                .kernels
                .iter()
                .position(|k| matches!(module.items.get(k.item), Some(Item::Kernel(kernel)) if kernel.body == root));
            lint.walk(root);
        }
        before = before.max(root.0 + 1);
    }
    lint.out
}

/// How many nodes before a thread-varying `if` are read ahead of its verdict: its branches in the common case of
/// a few stores, without reading much more where they are long (a verdict fails early on anything but stores).
const WARM_NODES: u32 = 64;

/// The location a store writes.
#[derive(Clone, Copy)]
enum Target {
    /// `a.(i) <- v`.
    Element { array: ExprId, index: ExprId },
    /// `r.f <- v` (`r` a local record or an element `a.(i)`).
    Field { record: ExprId },
    /// `x := v` on a `mut` variable or a `ref` cell.
    Local { local: LocalId },
}

/// What the `select` takes where the stores' condition does not hold.
#[derive(Clone, Copy)]
enum Other {
    /// The location's old value, second: `select c new old`.
    Old,
    /// The old value first (the stores are in the `else`): `select c old new`.
    OldFirst,
    /// The other branch's value for the same location: `select c new value`.
    Value(ExprId),
}

#[derive(Clone, Copy)]
struct Store {
    /// The store expression.
    expr: ExprId,
    target: Target,
    value: ExprId,
}

struct Lint<'a> {
    module: &'a Module,
    types: &'a TypeInfo,
    uniformity: &'a UniformityInfo,
    sources: &'a SourceMap,
    /// Elements `(array, index)` accessed on every path from the body's start to here.
    accessed: Vec<(ExprId, ExprId)>,
    /// Judging `if`s before any walk: every element with a stable index counts as accessed (a necessary
    /// condition of the real verdict, so no candidate is missed).
    prefilter: bool,
    /// Children of the nodes being walked (each level uses the slice it pushed).
    stack: Vec<ExprId>,
    /// The item being walked: its body, and its index in `TypeInfo::kernels` if it is a kernel.
    body: Option<ExprId>,
    kernel: Option<usize>,
    /// The value of each immutable `let` variable.
    definitions: FxHashMap<LocalId, ExprId>,
    /// The arrays declared with `let%local` (`local_arrays`).
    local_arrays: FxHashSet<LocalId>,
    /// The builtins met by `same`, with whether each names the thread's position (few: a list).
    positions: std::cell::RefCell<Vec<(&'static Builtin, bool)>>,
    out: Vec<Diagnostic>,
}

impl<'a> Lint<'a> {
    fn kind(&self, e: ExprId) -> &'a ExprKind {
        self.module.expr(e)
    }

    /// Walks `e` in evaluation order, keeping `accessed` to the accesses that every path to the current point makes.
    fn walk(&mut self, e: ExprId) {
        let mut e = e;
        // Sequences and `let` chains: a loop, not recursion (long kernels).
        loop {
            match self.kind(e) {
                ExprKind::Seq(first, rest) => {
                    self.walk(*first);
                    e = *rest;
                }
                ExprKind::Let { value, body, .. } => {
                    self.walk(*value);
                    e = *body;
                }
                ExprKind::LetArray { size, body, .. } => {
                    self.walk(*size);
                    e = *body;
                }
                _ => break,
            }
        }
        match self.kind(e) {
            ExprKind::If { cond, then_branch, else_branch } => {
                self.walk(*cond);
                self.consider(e);
                self.walk_conditionally(&[*then_branch]);
                self.walk_conditionally(else_branch.as_slice());
            }
            ExprKind::For { start, end, body, .. } => {
                self.walk(*start);
                self.walk(*end);
                self.walk_conditionally(&[*body]);
            }
            ExprKind::While { cond, body } => self.walk_conditionally(&[*cond, *body]),
            ExprKind::Binary { op, lhs, rhs } if op.is_logical() => {
                self.walk(*lhs);
                self.walk_conditionally(&[*rhs]);
            }
            ExprKind::Index { array, index } | ExprKind::IndexSet { array, index, .. } => {
                self.walk_children(e);
                self.accessed.push((*array, *index));
            }
            _ => self.walk_children(e),
        }
    }

    /// Walks code that may not run: what it accesses proves nothing after it.
    fn walk_conditionally(&mut self, parts: &[ExprId]) {
        let mark = self.accessed.len();
        for &part in parts {
            self.walk(part);
        }
        self.accessed.truncate(mark);
    }

    fn walk_children(&mut self, e: ExprId) {
        let start = self.stack.len();
        self.module.push_children(e, &mut self.stack);
        let end = self.stack.len();
        for i in start..end {
            let child = self.stack[i];
            self.walk(child);
        }
        self.stack.truncate(start);
    }

    // --- the candidate ------------------------------------------------------------------------------------------

    fn consider(&mut self, if_expr: ExprId) {
        let ExprKind::If { cond, .. } = *self.kind(if_expr) else { return };
        if let Some((stores, other)) = self.verdict(if_expr) {
            let diagnostic = self.diagnostic(if_expr, cond, &stores, other);
            self.out.push(diagnostic);
        }
    }

    /// The stores of `if_expr` to commit with `select`, and what the `select` takes where the condition does not
    /// hold; `None` when the `if` is not reported.
    fn verdict(&mut self, if_expr: ExprId) -> Option<(Vec<Store>, Other)> {
        let ExprKind::If { cond, then_branch, else_branch } = *self.kind(if_expr) else { return None };
        if self.uniformity.level_in_any_context(cond) != Uniformity::ThreadVarying {
            return None;
        }
        // The cheap tests first (shapes, levels), the walks over operands last: most `if`s fail early.
        let found = self.stores_to_commit(then_branch, else_branch)?;
        self.pure(cond, false).then_some(found)
    }

    /// The shape tests of [`Lint::verdict`], the condition aside.
    fn stores_to_commit(&mut self, then_branch: ExprId, else_branch: Option<ExprId>) -> Option<(Vec<Store>, Other)> {
        if let Some(other) = else_branch {
            if let Some(two) = self.two_values(then_branch, other) {
                return two;
            }
        }
        // Which branch stores and which keeps the old value; `negated` when the stores are in the `else`.
        let (stores, negated) = match (self.stores(then_branch), else_branch) {
            (Some(stores), None) => (stores, false),
            (Some(stores), Some(other)) if self.keeps(other, &stores) => (stores, false),
            (None, Some(other)) if matches!(self.kind(then_branch), ExprKind::Unit) => (self.stores(other)?, true),
            _ => return None,
        };
        // A branch of register moves only: nothing to gain (see the module comment).
        if stores.iter().all(|s| matches!(s.target, Target::Local { .. })) {
            return None;
        }
        // Each rewritten store runs unconditionally: its location is proven for the stores after it.
        let mark = self.accessed.len();
        let safe = stores.iter().all(|store| {
            let ok = self.rewritable(store);
            if let Target::Element { array, index } = store.target {
                self.accessed.push((array, index));
            }
            ok
        });
        self.accessed.truncate(mark);
        safe.then_some((stores, if negated { Other::OldFirst } else { Other::Old }))
    }

    /// `if c then p <- v1 else p <- v2` (one store of the same location in each branch, not a `mut` variable):
    /// every thread writes `p` either way, so only the values need to be safe to evaluate everywhere. `None` when
    /// the `if` has another shape; `Some(verdict)` when it has this one.
    #[allow(clippy::option_option)]
    fn two_values(&mut self, then_branch: ExprId, other: ExprId) -> Option<Option<(Vec<Store>, Other)>> {
        let (yes, no) = (self.stores(then_branch)?, self.stores(other)?);
        let ([yes], [no]) = (yes.as_slice(), no.as_slice()) else { return None };
        if !self.same_target(yes, no) || self.reads_target(no.value, no) {
            return None;
        }
        let mark = self.accessed.len();
        let target_ok = match yes.target {
            Target::Element { array, index } => {
                // Both branches write the element: it exists wherever the `if` runs.
                self.accessed.push((array, index));
                matches!(self.kind(array), ExprKind::Var(_)) && self.pure(index, false)
            }
            Target::Field { record } => self.pure(record, false),
            Target::Local { .. } => false,
        };
        let safe = target_ok && self.pure(yes.value, true) && self.pure(no.value, true);
        self.accessed.truncate(mark);
        Some(safe.then(|| (vec![*yes], Other::Value(no.value))))
    }

    /// The stores of a branch made only of stores (`a.(i) <- v`, `r.f <- v`, `x := v`, in sequence).
    fn stores(&self, branch: ExprId) -> Option<Vec<Store>> {
        let mut out = Vec::new();
        let mut e = branch;
        loop {
            let (first, rest) = match self.kind(e) {
                ExprKind::Seq(first, rest) => (*first, Some(*rest)),
                _ => (e, None),
            };
            out.push(self.store(first)?);
            match rest {
                Some(rest) => e = rest,
                None => return Some(out),
            }
        }
    }

    fn store(&self, e: ExprId) -> Option<Store> {
        let target = match self.kind(e) {
            ExprKind::IndexSet { array, index, value } => (Target::Element { array: *array, index: *index }, *value),
            ExprKind::FieldSet { record, value, .. } => (Target::Field { record: *record }, *value),
            ExprKind::Assign { value, .. } => match self.types.resolution(e) {
                Some(Resolution::Local(local)) => (Target::Local { local }, *value),
                _ => return None,
            },
            _ => return None,
        };
        Some(Store { expr: e, target: target.0, value: target.1 })
    }

    /// Does `branch` leave the stored locations as they are: `()`, or one store of the same location's own value?
    fn keeps(&self, branch: ExprId, stores: &[Store]) -> bool {
        if matches!(self.kind(branch), ExprKind::Unit) {
            return true;
        }
        let others = self.stores(branch);
        let ([store], Some([other])) = (stores, others.as_deref()) else { return false };
        self.same_target(store, other) && self.reads_target(other.value, other)
    }

    fn same_target(&self, a: &Store, b: &Store) -> bool {
        match (self.kind(a.expr), self.kind(b.expr)) {
            (ExprKind::IndexSet { array: a1, index: i1, .. }, ExprKind::IndexSet { array: a2, index: i2, .. }) => {
                self.same(*a1, *a2) && self.same(*i1, *i2)
            }
            (ExprKind::FieldSet { record: r1, field: f1, .. }, ExprKind::FieldSet { record: r2, field: f2, .. }) => {
                f1.name == f2.name && self.same_place(*r1, *r2)
            }
            (ExprKind::Assign { .. }, ExprKind::Assign { .. }) => {
                matches!((a.target, b.target), (Target::Local { local: x }, Target::Local { local: y }) if x == y)
            }
            _ => false,
        }
    }

    /// Is `value` exactly a read of the location `store` writes?
    fn reads_target(&self, value: ExprId, store: &Store) -> bool {
        match (self.kind(value), self.kind(store.expr)) {
            (ExprKind::Index { array, index }, ExprKind::IndexSet { array: a, index: i, .. }) => {
                self.same(*array, *a) && self.same(*index, *i)
            }
            (ExprKind::Field { record, field }, ExprKind::FieldSet { record: r, field: f, .. }) => {
                field.name == f.name && self.same_place(*record, *r)
            }
            (ExprKind::Var(_) | ExprKind::Unary { op: UnaryOp::Deref, .. }, ExprKind::Assign { .. }) => {
                let read = match self.kind(value) {
                    ExprKind::Unary { operand, .. } => *operand,
                    _ => value,
                };
                matches!((self.types.resolution(read), store.target),
                    (Some(Resolution::Local(x)), Target::Local { local: y }) if x == y)
            }
            _ => false,
        }
    }

    // --- safety of the rewrite -------------------------------------------------------------------------------------

    /// Can this store run in every thread, writing back the old value where the condition is false?
    fn rewritable(&self, store: &Store) -> bool {
        let target_ok = match store.target {
            Target::Element { array, index } => self.element_ok(array, index),
            Target::Field { record } => match self.kind(record) {
                ExprKind::Var(_) => self.private_base(record),
                ExprKind::Index { array, index } => self.element_ok(*array, *index),
                _ => false,
            },
            Target::Local { local } => self.types.local(local).mutability != Mutability::Immutable,
        };
        target_ok && self.pure(store.value, true)
    }

    /// `array.(index)` may be read and written back by every thread: in bounds, and the thread's own.
    fn element_ok(&self, array: ExprId, index: ExprId) -> bool {
        let shared_with_others =
            || self.uniformity.level_in_every_context(index) != Uniformity::ThreadVarying || self.folds_threads(index);
        matches!(self.kind(array), ExprKind::Var(_))
            && (self.private_base(array) || !shared_with_others())
            && self.in_bounds(array, index)
            && self.pure(index, true)
    }

    /// Does the index use an operation that maps several values to one (`/`, `mod`, `land`, `lor`, `lsr`, `asr`,
    /// `min`, `max`, `abs`), so that several threads likely store to one element (`thread_idx_x / 2`)?
    fn folds_threads(&self, index: ExprId) -> bool {
        let mut stack = vec![index];
        while let Some(e) = stack.pop() {
            let folds = match self.kind(e) {
                ExprKind::Binary { op, .. } => matches!(
                    op,
                    BinaryOp::Div | BinaryOp::Mod | BinaryOp::Land | BinaryOp::Lor | BinaryOp::Lsr | BinaryOp::Asr
                ),
                ExprKind::Call { .. } => matches!(
                    self.types.resolution(e),
                    Some(Resolution::Builtin(b)) if matches!(b.name, "min" | "max" | "abs")
                ),
                ExprKind::Var(_) => {
                    if let Some(Resolution::Local(l)) = self.types.resolution(e) {
                        stack.extend(self.definitions.get(&l));
                    }
                    false
                }
                _ => false,
            };
            if folds {
                return true;
            }
            self.module.push_children(e, &mut stack);
        }
        false
    }

    /// A local array or record: no other thread can see it.
    fn private_base(&self, base: ExprId) -> bool {
        let Some(Resolution::Local(local)) = self.types.resolution(base) else { return false };
        match &self.types.local(local).ty {
            // Before the walk, a necessary condition: the type says local memory.
            Type::Array { space, .. } if self.prefilter => *space == MemorySpace::Local,
            Type::Array { .. } => self.private_array(local, 0),
            Type::Record(_) => true,
            _ => false,
        }
    }

    /// Is every array `local` may name declared with `let%local`? Not a parameter (the caller may pass a shared
    /// array) and not a name for one; array types unify whatever their memory, so the type cannot tell.
    fn private_array(&self, local: LocalId, depth: u32) -> bool {
        if self.local_arrays.contains(&local) {
            return true;
        }
        let roots = self.types.aliased(local);
        let is_name = self.types.local(local).param_index.is_none() && !roots.is_empty();
        is_name && depth < MAX_DEFINITION_DEPTH && roots.iter().all(|&root| self.private_array(root, depth + 1))
    }

    /// Is `array.(index)` known to be in bounds wherever the `if` runs?
    fn in_bounds(&self, array: ExprId, index: ExprId) -> bool {
        // Before the walk: an access could prove it only if the index is stable (`same` as itself).
        if self.prefilter && self.same(array, array) && self.same(index, index) {
            return true;
        }
        if self.accessed.iter().any(|&(a, i)| self.same(a, array) && self.same(i, index)) {
            return true;
        }
        let size = match self.types.type_of(array) {
            Type::Array { size: ArraySize::Const(n), .. } | Type::ConstArray { size: n, .. } => *n as u64,
            _ => return false,
        };
        matches!(self.constant_int(index), Some(i) if i < size)
    }

    fn constant_int(&self, e: ExprId) -> Option<u64> {
        match self.kind(e) {
            ExprKind::Int { value, .. } => Some(*value),
            ExprKind::Var(_) | ExprKind::Global(_) => match self.types.resolution(e) {
                Some(Resolution::Constant(c)) => match self.types.constant(c).value {
                    crate::types::ConstValue::Int(v) => u64::try_from(v).ok(),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        }
    }

    /// No effects; with `bounds`, also no fault when evaluated where the original did not evaluate it: every
    /// element read is in bounds and integer division is only by a non-zero literal.
    fn pure(&self, e: ExprId, bounds: bool) -> bool {
        match self.kind(e) {
            ExprKind::Int { .. } | ExprKind::Float { .. } | ExprKind::Bool(_) | ExprKind::Unit => true,
            ExprKind::Global(_) => true,
            ExprKind::Var(_) => match self.types.resolution(e) {
                Some(Resolution::Local(_)) | Some(Resolution::Constant(_)) => true,
                Some(Resolution::Builtin(b)) => pure_builtin(b.get(), bounds),
                _ => false,
            },
            ExprKind::Call { args, .. } => match self.types.resolution(e) {
                Some(Resolution::Builtin(b)) => {
                    pure_builtin(b.get(), bounds) && args.iter().all(|&a| self.pure(a, bounds))
                }
                _ => false,
            },
            ExprKind::Unary { operand, .. } => self.pure(*operand, bounds),
            ExprKind::Binary { op, lhs, rhs } => {
                let divides = matches!(op, BinaryOp::Div | BinaryOp::Mod) && self.types.type_of(e).is_integer();
                if bounds && divides && !matches!(self.constant_int(*rhs), Some(d) if d != 0) {
                    return false;
                }
                self.pure(*lhs, bounds) && self.pure(*rhs, bounds)
            }
            ExprKind::Index { array, index } => {
                self.pure(*array, bounds) && self.pure(*index, bounds) && (!bounds || self.in_bounds(*array, *index))
            }
            ExprKind::Field { record, .. } => self.pure(*record, bounds),
            ExprKind::Annot { expr, .. } => self.pure(*expr, bounds),
            _ => false,
        }
    }

    /// Do `a` and `b` denote the same value at any two points of one body? Only expressions of immutable
    /// variables, constants, literals and pure operators qualify (a memory read or a `mut` variable may change).
    fn same(&self, a: ExprId, b: ExprId) -> bool {
        use ExprKind as K;
        match (self.kind(a), self.kind(b)) {
            (K::Int { value: x, .. }, K::Int { value: y, .. }) => x == y,
            (K::Bool(x), K::Bool(y)) => x == y,
            (K::Global(x), K::Global(y)) => x.name == y.name,
            (K::Var(_), K::Var(_)) => match (self.types.resolution(a), self.types.resolution(b)) {
                (Some(Resolution::Local(x)), Some(Resolution::Local(y))) => {
                    x == y && self.types.local(x).mutability == Mutability::Immutable
                }
                (Some(Resolution::Constant(x)), Some(Resolution::Constant(y))) => x == y,
                // Thread and block indices and dimensions: fixed for the thread's lifetime.
                (Some(Resolution::Builtin(x)), Some(Resolution::Builtin(y))) => {
                    x.name == y.name && self.names_position(x.get())
                }
                _ => false,
            },
            (K::Unary { op: o1, operand: x }, K::Unary { op: o2, operand: y }) => {
                o1 == o2 && *o1 != UnaryOp::Deref && self.same(*x, *y)
            }
            (K::Binary { op: o1, lhs: l1, rhs: r1 }, K::Binary { op: o2, lhs: l2, rhs: r2 }) => {
                o1 == o2 && self.same(*l1, *l2) && self.same(*r1, *r2)
            }
            (K::Annot { expr: x, .. }, _) => self.same(*x, b),
            (_, K::Annot { expr: y, .. }) => self.same(a, *y),
            _ => false,
        }
    }

    /// [`names_position`], worked out once per builtin (it searches the builtin's CUDA text, and `same` asks
    /// it of every builtin it compares).
    fn names_position(&self, builtin: &'static Builtin) -> bool {
        let mut known = self.positions.borrow_mut();
        if let Some(&(_, answer)) = known.iter().find(|(b, _)| std::ptr::eq(*b, builtin)) {
            return answer;
        }
        let answer = names_position(builtin);
        known.push((builtin, answer));
        answer
    }

    /// `same` for the record of a field store: a variable, or an element `a.(i)`.
    fn same_place(&self, a: ExprId, b: ExprId) -> bool {
        match (self.kind(a), self.kind(b)) {
            (ExprKind::Index { array: a1, index: i1 }, ExprKind::Index { array: a2, index: i2 }) => {
                self.same(*a1, *a2) && self.same(*i1, *i2)
            }
            _ => self.same(a, b),
        }
    }

    // --- ownership: is each element written by one thread at most? ---------------------------------------------

    /// Can the store's rewrite write back an old value without racing another thread's write of it?
    fn owned(&self, store: &Store) -> bool {
        match store.target {
            Target::Local { .. } => true,
            Target::Element { array, index } => self.private_base(array) || self.owned_element(array, index),
            Target::Field { record } => match self.kind(record) {
                ExprKind::Var(_) => self.private_base(record),
                ExprKind::Index { array, index } => self.private_base(*array) || self.owned_element(*array, *index),
                _ => false,
            },
        }
    }

    /// `array.(index)` in a kernel, where `array` is a vector parameter of the kernel or a shared array it declares
    /// (not a name for one),
    /// `index` is injective in the thread and fixed for its lifetime, and the kernel writes `array` nowhere else
    /// (every store to it is at the same index, and it is not passed to a function, an atomic or `launch`, nor
    /// aliased). Then two threads never write one element: the rewrite's write-back races with nothing.
    fn owned_element(&self, array: ExprId, index: ExprId) -> bool {
        let (Some(kernel), Some(body)) = (self.kernel.and_then(|k| self.types.kernels.get(k)), self.body) else {
            return false;
        };
        let Some(Resolution::Local(local)) = self.types.resolution(array) else { return false };
        // A name for other arrays (`let b = s in`) is not where they are written: their stores elsewhere are not
        // counted by `only_written_at(b)`. On the array itself, such a name is a use that is no store.
        if !self.types.aliased(local).is_empty() {
            return false;
        }
        let info = self.types.local(local);
        let shared = match &info.ty {
            Type::Vector(_) if kernel.params.iter().any(|p| p.local == local) => false,
            Type::Array { space: MemorySpace::Shared, .. } if info.param_index.is_none() => true,
            _ => return false,
        };
        self.injective(index, shared, 0) && self.only_written_at(body, local, index)
    }

    /// An injective function of the thread, fixed while it runs: `global_thread_id`, plus or minus an invariant,
    /// times a nonzero literal, in a signed type (whose overflow is undefined, so it does not wrap onto another
    /// thread's value); through immutable variables.
    fn injective(&self, e: ExprId, shared: bool, depth: u32) -> bool {
        if depth > MAX_DEFINITION_DEPTH {
            return false;
        }
        let signed = matches!(self.types.type_of(e), Type::Int32 | Type::Int64);
        let injective = |x: ExprId| self.injective(x, shared, depth + 1);
        let invariant = |x: ExprId| self.invariant(x, shared, depth + 1);
        let nonzero = |x: ExprId| matches!(self.kind(x), ExprKind::Int { value, .. } if *value != 0);
        match self.kind(e) {
            ExprKind::Var(_) => match self.types.resolution(e) {
                Some(Resolution::Builtin(b)) => b.name == "global_thread_id",
                Some(Resolution::Local(l)) => self.definitions.get(&l).is_some_and(|value| injective(*value)),
                _ => false,
            },
            ExprKind::Annot { expr, .. } => injective(*expr),
            ExprKind::Binary { op, lhs, rhs } if signed => match op {
                BinaryOp::Add => (injective(*lhs) && invariant(*rhs)) || (invariant(*lhs) && injective(*rhs)),
                BinaryOp::Sub => injective(*lhs) && invariant(*rhs),
                BinaryOp::Mul => (injective(*lhs) && nonzero(*rhs)) || (nonzero(*lhs) && injective(*rhs)),
                _ => false,
            },
            _ => false,
        }
    }

    /// The same in every thread that may write the array (the grid; for a shared array, the block) for the whole
    /// kernel: literals, constants, the kernel's scalar parameters, the launch's dimensions (and the block's
    /// index, for a shared array), and arithmetic on them.
    fn invariant(&self, e: ExprId, shared: bool, depth: u32) -> bool {
        if depth > MAX_DEFINITION_DEPTH {
            return false;
        }
        let invariant = |x: ExprId| self.invariant(x, shared, depth + 1);
        match self.kind(e) {
            ExprKind::Int { .. } | ExprKind::Global(_) => true,
            ExprKind::Var(_) => match self.types.resolution(e) {
                Some(Resolution::Constant(_)) => true,
                Some(Resolution::Builtin(b)) => {
                    LAUNCH_DIMENSIONS.contains(&b.name) || (shared && b.name.starts_with("block_idx_"))
                }
                Some(Resolution::Local(l)) => {
                    let kernel_param = self
                        .kernel
                        .and_then(|k| self.types.kernels.get(k))
                        .is_some_and(|k| k.params.iter().any(|p| p.local == l));
                    (kernel_param && self.types.local(l).mutability == Mutability::Immutable)
                        || self.definitions.get(&l).is_some_and(|value| invariant(*value))
                }
                _ => false,
            },
            ExprKind::Annot { expr, .. } | ExprKind::Unary { operand: expr, .. } => invariant(*expr),
            ExprKind::Binary { lhs, rhs, .. } => invariant(*lhs) && invariant(*rhs),
            _ => false,
        }
    }

    /// Is every use of `local` in `body` a read of an element, or a store at an index `same` as `index`?
    fn only_written_at(&self, body: ExprId, local: LocalId, index: ExprId) -> bool {
        let names_local = |e: ExprId| {
            matches!(self.kind(e), ExprKind::Var(_))
                && matches!(self.types.resolution(e), Some(Resolution::Local(l)) if l == local)
        };
        let (mut uses, mut accounted) = (0usize, 0usize);
        let mut stack = vec![body];
        while let Some(e) = stack.pop() {
            match self.kind(e) {
                ExprKind::Var(_) if names_local(e) => uses += 1,
                ExprKind::Index { array, .. } if names_local(*array) => accounted += 1,
                ExprKind::IndexSet { array, index: at, .. } if names_local(*array) => {
                    if !self.same(*at, index) {
                        return false;
                    }
                    accounted += 1;
                }
                ExprKind::FieldSet { record, .. } => {
                    if let Some((array, at)) = self.element_under(*record) {
                        if names_local(array) && !self.same(at, index) {
                            return false;
                        }
                    }
                }
                _ => {}
            }
            self.module.push_children(e, &mut stack);
        }
        uses == accounted
    }

    /// The element `a.(i)` a field place `a.(i).f.g` belongs to.
    fn element_under(&self, mut place: ExprId) -> Option<(ExprId, ExprId)> {
        loop {
            match self.kind(place) {
                ExprKind::Index { array, index } => return Some((*array, *index)),
                ExprKind::Field { record, .. } | ExprKind::Annot { expr: record, .. } => place = *record,
                _ => return None,
            }
        }
    }

    // --- the diagnostic ----------------------------------------------------------------------------------------------

    fn diagnostic(&self, if_expr: ExprId, cond: ExprId, stores: &[Store], other: Other) -> Diagnostic {
        let replacement = self.rewrite(if_expr, cond, stores, other);
        let first = self.module.span(stores[0].expr);
        let what = if stores.len() == 1 { "this store runs" } else { "these stores run" };
        let primary = match other {
            Other::Old => format!("{what} only in the threads where the condition is true"),
            Other::OldFirst => format!("{what} only in the threads where the condition is false"),
            Other::Value(_) => "each branch stores to this location".to_string(),
        };
        let mut d = Diagnostic::warning(
            CODE,
            "conditional store under a thread-varying condition: commit it with `select` instead of branching",
        )
        .primary(first, primary)
        .secondary(self.module.span(cond), "this condition is thread-varying");
        for store in &stores[1..] {
            d = d.secondary(self.module.span(store.expr), "and this one");
        }
        if let Other::Value(value) = other {
            d = d.secondary(self.module.span(value), "the value of the other branch");
        }
        let why = match other {
            Other::Value(_) => "both branches store to the same location",
            _ => "the other branch keeps the old value",
        };
        d = d.note(format!(
            "{why}, so an unconditional store of a `select` writes the same values without splitting the warp (a \
             predicated commit)"
        ));
        let proven = matches!(other, Other::Value(_)) || stores.iter().all(|store| self.owned(store));
        if proven {
            return d.help(format!("write `{replacement}`")).suggest(
                "commit with `select`",
                self.module.span(if_expr),
                replacement,
            );
        }
        d.note(
            "the rewrite also writes the old value back where the condition is false: that is safe only if no other \
             thread writes these elements meanwhile, which skc cannot prove here (`skc explain W0101`), so it offers \
             no automatic edit",
        )
        .help(format!("if each element is written by one thread only, write `{replacement}`"))
    }

    /// The `select` form of the `if`.
    fn rewrite(&self, if_expr: ExprId, cond: ExprId, stores: &[Store], other: Other) -> String {
        let cond_text = self.operand(cond);
        // Several stores would evaluate the condition several times, after earlier stores changed memory: bind
        // it once, unless it is an immutable variable.
        let bind = stores.len() > 1 && !self.is_immutable_var(cond);
        let name = if bind { self.fresh_name(if_expr) } else { cond_text.clone() };
        let commits: Vec<String> = stores
            .iter()
            .map(|store| {
                let (place, old) = self.place_text(store);
                let new = self.operand(store.value);
                let (yes, no) = match other {
                    Other::Old => (new, old),
                    Other::OldFirst => (old, new),
                    Other::Value(value) => (new, self.operand(value)),
                };
                let op = if matches!(store.target, Target::Local { .. }) { ":=" } else { "<-" };
                format!("{place} {op} select {name} {yes} {no}")
            })
            .collect();
        let body = commits.join("; ");
        if bind {
            format!("(let {name} = {} in {body})", self.text(cond))
        } else if stores.len() > 1 {
            format!("({body})")
        } else {
            body
        }
    }

    /// The written location as the store spells it, and the expression that reads its current value.
    fn place_text(&self, store: &Store) -> (String, String) {
        match (self.kind(store.expr), store.target) {
            (ExprKind::IndexSet { array, index, .. }, _) => {
                let place = format!("{}.({})", self.text(*array), self.text(*index));
                (place.clone(), place)
            }
            (ExprKind::FieldSet { record, field, .. }, _) => {
                let place = format!("{}.{}", self.text(*record), field.name.as_str());
                (place.clone(), place)
            }
            (ExprKind::Assign { target, .. }, Target::Local { local }) => {
                let name = target.display();
                let old = match self.types.local(local).mutability {
                    Mutability::RefCell => format!("!{name}"),
                    _ => name.clone(),
                };
                (name, old)
            }
            _ => (self.text(store.expr), self.text(store.expr)),
        }
    }

    fn is_immutable_var(&self, e: ExprId) -> bool {
        matches!(self.types.resolution(e), Some(Resolution::Local(l))
            if matches!(self.kind(e), ExprKind::Var(_)) && self.types.local(l).mutability == Mutability::Immutable)
    }

    fn text(&self, e: ExprId) -> String {
        self.sources.snippet(self.module.span(e)).to_string()
    }

    /// An argument of `select`: parenthesised unless it is a name, a literal, an element or a field, or is
    /// parenthesised already.
    fn operand(&self, e: ExprId) -> String {
        let text = self.text(e);
        let atomic = match self.kind(e) {
            ExprKind::Var(_) | ExprKind::Global(_) | ExprKind::Bool(_) | ExprKind::Unit => true,
            ExprKind::Int { .. } | ExprKind::Float { .. } => !text.starts_with('-'),
            ExprKind::Index { .. } | ExprKind::Field { .. } => true,
            _ => fully_parenthesised(&text),
        };
        if atomic {
            text
        } else {
            format!("({text})")
        }
    }

    /// A name for the bound condition that no identifier of the `if` uses.
    fn fresh_name(&self, if_expr: ExprId) -> String {
        let text = self.text(if_expr);
        let used = |name: &str| {
            text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '\'')).any(|word| word == name)
        };
        let mut name = "take".to_string();
        let mut n = 1;
        while used(&name) {
            name = format!("take{n}");
            n += 1;
        }
        name
    }
}

/// How many immutable variables the ownership proof follows through their definitions.
const MAX_DEFINITION_DEPTH: u32 = 64;

/// The builtins that are the same in every thread of a launch and never change.
const LAUNCH_DIMENSIONS: [&str; 7] =
    ["block_dim_x", "block_dim_y", "block_dim_z", "grid_dim_x", "grid_dim_y", "grid_dim_z", "warp_size"];

/// The value of each immutable `let` variable of the module (`let i = global_thread_id in`).
fn immutable_definitions(module: &Module, types: &TypeInfo) -> FxHashMap<LocalId, ExprId> {
    let mut out = FxHashMap::default();
    for (index, kind) in module.exprs.iter().enumerate() {
        let ExprKind::Let { value, .. } = kind else { continue };
        if let Some(local) = types.declared_local.get(&ExprId(index as u32)) {
            if types.local(*local).mutability == Mutability::Immutable {
                out.insert(*local, *value);
            }
        }
    }
    out
}

/// The arrays declared with `let%local` (`create_array n Local` is the same declaration).
fn local_arrays(module: &Module, types: &TypeInfo) -> FxHashSet<LocalId> {
    let mut out = FxHashSet::default();
    for (index, kind) in module.exprs.iter().enumerate() {
        if let ExprKind::LetArray { space: MemorySpace::Local, .. } = kind {
            out.extend(types.declared_local.get(&ExprId(index as u32)).copied());
        }
    }
    out
}

/// A builtin without effects whose value does not depend on which threads run it (not `activemask`: under the
/// `if` it names fewer lanes); with `bounds`, also one that reads no array (its index may be out of bounds).
fn pure_builtin(b: &Builtin, bounds: bool) -> bool {
    let reads_array = b.params.iter().any(|p| matches!(p, SigType::ArrayOf(..)));
    let effect_free = b.requirement == Requirement::None
        && !b.writes_first_arg
        && b.result != ResultUniformity::WarpUniformUnderControl
        && (b.params.is_empty() || matches!(b.result, ResultUniformity::OfArguments) || reads_array);
    effect_free && !(bounds && reads_array)
}

/// A builtin that names where the thread is (`thread_idx_x`, `global_idx`, `block_dim_x`, `lane_id`,
/// `warp_size`): the same value at every point of the thread's life. Others without arguments (`activemask`, a
/// clock) may change between two reads.
fn names_position(b: &Builtin) -> bool {
    const POSITION: [&str; 7] =
        ["threadIdx", "blockIdx", "blockDim", "gridDim", "skc_global_thread_id", "skc_lane_id", "skc_warp_id"];
    b.params.is_empty()
        && b.requirement == Requirement::None
        && (POSITION.iter().any(|p| b.cuda.contains(p)) || b.cuda.parse::<u32>().is_ok())
}

/// `(…)` whose opening parenthesis closes at the end.
fn fully_parenthesised(text: &str) -> bool {
    if !text.starts_with('(') || !text.ends_with(')') {
        return false;
    }
    let mut depth = 0i32;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 && i + 1 < text.len() {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

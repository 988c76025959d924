//! The abstract interpreter: walks a kernel or function body in program order, tracking the uniformity of every
//! local and how converged control flow is, and checks every barrier, warp collective and superstep against it.
//!
//! State: `slots` (one value per `LocalId`; for a `ref` cell or an array, the uniformity of its contents, kept in
//! the slot of the variable that owns the storage: `cells`), `control` (from the enclosing branches and loops),
//! three taints left by early exits taken in diverged control flow: `returned` (rest of the function), `broke`
//! (rest of the loop, all later iterations), `continued` (rest of the iteration), and `dead`: the point is
//! unreachable (after a `break`, `continue` or `return`), so nothing is reported there and nothing assigned there
//! flows anywhere. What an exit carries (the locals at a `break`, a `continue`, a `return`) is joined where that exit
//! lands: after the loop, at the loop head, at the end of the call.
//!
//! The parts: `cells` (where contents live: aliases, parameters bound to the caller's variables, arrays chosen by
//! `if`), `control` (branches, loops and their fixpoints, exits), `calls` (context-sensitive calls and their
//! memoized replay), `checks` (barriers, collectives, supersteps and their diagnostics).

mod calls;
mod cells;
mod checks;
mod control;
mod launch;
mod speculation;

use std::collections::HashSet;
use std::rc::Rc;

use crate::contract::LaunchContract;
use crate::diagnostic::Diagnostic;
use crate::fxhash::FxHashMap;
use crate::source::Span;
use crate::syntax::ast::{for_each_child, ExprId, ExprKind, MemorySpace, Module};
use crate::syntax::name::Name;
use crate::types::{FunctionId, LocalId, Resolution, Type, TypeInfo};

use super::lattice::{Control, DivergenceKind, Facts, OriginKind, Uniformity, Value};
use super::memo::{CallKey, CallSummary, Effect};
use super::report::Names;
use super::UniformityInfo;

use cells::{Slot, Union};
use control::LoopExits;

/// Fixpoint iterations before a loop's remaining changes are forced to thread-varying (the lattice has height 4,
/// so a loop stabilises within a few rounds; this only bounds pathological inputs).
const MAX_LOOP_ROUNDS: usize = 8;

/// The answers of `Walker::is_straight_line` kept in `straight_cache` (0: not known yet).
const STRAIGHT: u8 = 1;
const NOT_STRAIGHT: u8 = 2;

/// Deepest call chain analysed (recursion is rejected by the type checker; this guards broken input).
const MAX_CALL_DEPTH: usize = 64;

/// A plain (not `~divergent`) superstep being analysed.
#[derive(Clone, Copy)]
struct PlainSuperstep {
    span: Span,
}

pub struct Walker<'a> {
    module: &'a Module,
    types: &'a TypeInfo,
    /// The steps of every explanation this walk created (values and control states refer to them).
    pub(super) facts: Facts,
    /// For each local, its value, or for a `ref` or array local that names another variable's storage, which
    /// (`cells`).
    slots: Vec<Slot>,
    unions: Vec<Union>,
    control: Control,
    returned: Control,
    broke: Control,
    continued: Control,
    /// The current point cannot be reached.
    dead: bool,
    return_value: Value,
    /// In a call being analysed: the `ref` and array parameters, and the join of their contents at each `return`
    /// (`None` until a `return` is met).
    by_reference: Rc<Vec<LocalId>>,
    returns: Option<Vec<Value>>,
    /// What the exits of the innermost loop carry.
    loop_exits: Option<LoopExits>,
    /// The fixpoint head of each loop analysed in this activation (function body): a later analysis of the same
    /// loop starts from it (see `control::fixpoint`).
    warm_heads: FxHashMap<ExprId, Vec<Value>>,
    superstep: Option<PlainSuperstep>,
    reporting: bool,
    /// What reporting changed while a loop's rounds report speculatively (see `speculation`).
    journal: speculation::Journal,
    recording: bool,
    call_stack: Vec<FunctionId>,
    /// Syntactic summaries of `if`s and loops, computed once per node, in tables indexed by node (zeroed when
    /// allocated, which costs nothing until a page is touched; a hash map cost more per query): for
    /// `assigned_locals`, 1 + the index of the node's list in `assigned_lists` (0: not computed yet); for
    /// `is_straight_line`, `STRAIGHT` or `NOT_STRAIGHT` (0: not computed yet).
    assigned_index: Vec<u32>,
    assigned_lists: Vec<Rc<Vec<LocalId>>>,
    straight_cache: Vec<u8>,
    /// The summary of the (many) subtrees that assign nothing, shared.
    assigns_nothing: Rc<Vec<LocalId>>,
    /// Scratch stack of the syntactic walks.
    pending: Vec<ExprId>,
    /// Scratch of `assigned_locals`: the locals found so far (before sorting), shared by its nested calls.
    assigned_scratch: Vec<LocalId>,
    /// Vectors of values given back after use (a branch's snapshots, a builtin's argument values), reused instead
    /// of allocating two per `if` and one per builtin call.
    spare_values: Vec<Vec<Value>>,
    pub diagnostics: Vec<Diagnostic>,
    /// For diagnostics whose fix an edit may make, the index in `diagnostics` and what the edit needs to know
    /// (`fixes` computes it after the analysis).
    pub fix_requests: Vec<(usize, super::fixes::FixRequest)>,
    seen: HashSet<(&'static str, Span, Option<Span>)>,
    pub info: UniformityInfo,
    /// For the conditions of `if`s and the indices of element accesses (what the predicated-commit lint asks
    /// about), the highest level reached in any analysis (on its own and in every calling context), and the lowest
    /// in the final rounds of the analyses that start at a kernel (real calling contexts); `None` elsewhere.
    pub context_levels: Vec<Option<Uniformity>>,
    pub kernel_min_levels: Vec<Option<Uniformity>>,
    /// Every `if` whose condition is thread-varying in some context, once each.
    pub varying_ifs: Vec<ExprId>,
    /// Is the walk under a kernel's analysis (its body or a call from it)?
    in_kernel: bool,
    /// Analyses of calls, replayed for later calls in the same context (see `memo`); off, every call is analysed.
    pub memoize: bool,
    /// The host launches blocks of whole warps only: every lane of a warp exists.
    pub full_warps: bool,
    /// The launch contract of the kernel being analysed (the empty one outside kernels): see `walk::launch`.
    launch: LaunchContract,
    /// How many calls were analysed and how many replayed (what tests of the memo look at).
    pub calls_analysed: u64,
    pub calls_replayed: u64,
    calls: FxHashMap<CallKey, CallSummary>,
    /// What kept calls do to their `ref` and array parameters (each summary names a range).
    call_effects: Vec<Effect>,
    /// The sets of functions kept summaries entered (each summary names a range), and scratch for replays.
    entered_sets: Vec<FunctionId>,
    replay_steps: Vec<super::lattice::Origin>,
    /// Diagnostics the analysis tried to report (reported or already seen): a call analysis that tried is not kept.
    report_attempts: u64,
    /// Times the recursion or depth guard answered for a call: a call analysis that met it is not kept.
    guard_hits: u64,
    /// Functions entered by the calls being analysed, and the deepest call stack reached (for summaries).
    entered: Vec<FunctionId>,
    deepest: usize,
    /// The nodes of each item (by index in `Module::items`), for `warm_up`: a node's children are allocated before
    /// it and items are parsed in order, so an item's nodes lie between the previous item's last node and its root.
    item_nodes: Vec<std::ops::Range<u32>>,
}

impl<'a> Walker<'a> {
    pub fn new(module: &'a Module, types: &'a TypeInfo) -> Walker<'a> {
        Walker {
            module,
            types,
            facts: Facts::with_room(module.exprs.len()),
            slots: vec![Slot::Value(Value::uniform()); types.locals.len()],
            unions: Vec::new(),
            control: Control::converged(),
            returned: Control::converged(),
            broke: Control::converged(),
            continued: Control::converged(),
            dead: false,
            return_value: Value::uniform(),
            by_reference: Rc::default(),
            returns: None,
            loop_exits: None,
            warm_heads: FxHashMap::default(),
            superstep: None,
            reporting: true,
            journal: speculation::Journal::default(),
            recording: true,
            call_stack: Vec::new(),
            assigned_index: vec![0; module.exprs.len()],
            assigned_lists: Vec::new(),
            straight_cache: vec![0; module.exprs.len()],
            assigns_nothing: Rc::new(Vec::new()),
            pending: Vec::new(),
            assigned_scratch: Vec::new(),
            spare_values: Vec::new(),
            diagnostics: Vec::new(),
            fix_requests: Vec::new(),
            seen: HashSet::new(),
            info: UniformityInfo::new(module.exprs.len()),
            context_levels: vec![None; module.exprs.len()],
            kernel_min_levels: vec![None; module.exprs.len()],
            varying_ifs: Vec::new(),
            in_kernel: false,
            memoize: true,
            full_warps: false,
            launch: LaunchContract::default(),
            calls_analysed: 0,
            calls_replayed: 0,
            calls: FxHashMap::default(),
            call_effects: Vec::new(),
            entered_sets: Vec::new(),
            replay_steps: Vec::new(),
            report_attempts: 0,
            guard_hits: 0,
            entered: Vec::new(),
            deepest: 0,
            item_nodes: crate::warm::item_ranges(module),
        }
    }

    /// Reads the nodes of item `item` and the walker's tables for them ahead of the walk (see `crate::warm`).
    fn warm_up(&self, item: usize) {
        let Some(range) = self.item_nodes.get(item) else { return };
        crate::warm::nodes(self.module, self.types, range.clone());
        crate::warm::spans_and_declarations(self.module, self.types, range.clone());
        let range = range.start as usize..range.end as usize;
        let seen = crate::warm::table(&self.assigned_index, range.clone(), |&index| index)
            .wrapping_add(crate::warm::table(&self.straight_cache, range, |&answer| answer as u32));
        std::hint::black_box(seen);
    }

    // --- entry points -----------------------------------------------------------------------------------

    /// Analyses a kernel: scalar parameters are uniform; a vector's contents are uniform only if the kernel never
    /// writes it (vector parameters are `__restrict__`: they do not alias) and never loads it with an ordered atomic
    /// (which says that others change it while the kernel runs).
    pub fn kernel(&mut self, kernel: usize) {
        let info = &self.types.kernels[kernel];
        let body = match &self.module.items[info.item] {
            crate::syntax::ast::Item::Kernel(k) => k.body,
            _ => return,
        };
        for param in &info.params {
            let value = if matches!(param.ty, Type::Vector(_)) && (param.written || param.loaded_atomically) {
                let span = self.types.local(param.local).span;
                self.facts.value(Uniformity::ThreadVarying, OriginKind::SharedLoad(param.local), span, None)
            } else {
                Value::uniform()
            };
            self.own_storage(param.local, value);
        }
        self.warm_up(info.item);
        self.in_kernel = true;
        self.launch = self.kernel_contract(info.item);
        self.body(body);
        self.launch = LaunchContract::default();
        self.in_kernel = false;
    }

    /// Analyses a device function on its own, every parameter uniform (and every `ref` or array parameter its own
    /// storage) except a vector it writes or loads atomically, whose contents differ between threads whatever the
    /// caller passes (as in a kernel): reports what is wrong whatever the caller passes. Calls re-analyse it in the
    /// caller's context.
    pub fn function(&mut self, function: FunctionId) {
        let info = self.types.function(function);
        let Some(body) = self.function_body(function) else { return };
        for &param in &info.params {
            let value = if info.varying_vector_params.contains(&param) {
                let span = self.types.local(param).span;
                self.facts.value(Uniformity::ThreadVarying, OriginKind::SharedLoad(param), span, None)
            } else {
                Value::uniform()
            };
            self.own_storage(param, value);
        }
        self.warm_up(info.item);
        self.call_stack.push(function);
        self.body(body);
        self.call_stack.pop();
    }

    fn body(&mut self, body: ExprId) {
        self.control = Control::converged();
        self.returned = Control::converged();
        self.broke = Control::converged();
        self.continued = Control::converged();
        self.dead = false;
        self.return_value = Value::uniform();
        self.by_reference = self.assigns_nothing.clone();
        self.returns = None;
        self.loop_exits = None;
        self.warm_heads.clear();
        self.expr(body);
        self.dead = false;
    }

    fn function_body(&self, function: FunctionId) -> Option<ExprId> {
        let item = self.types.function(function).item;
        match self.module.items.get(item)? {
            crate::syntax::ast::Item::Function(f) => Some(f.body),
            _ => None,
        }
    }

    // --- state helpers ------------------------------------------------------------------------------------

    /// How converged control flow is here: the enclosing branches and loops, and any early exits before.
    fn effective_control(&self) -> Control {
        self.control.join(self.returned).join(self.broke).join(self.continued)
    }

    /// The value that diverged control flow gives to what is assigned in it.
    fn control_value(&mut self, control: Control, kind: OriginKind, span: Span) -> Value {
        if control.level == Uniformity::Uniform {
            return Value::uniform();
        }
        let cause = self.facts.first_cause(control);
        self.facts.value(control.level, kind, span, cause)
    }

    fn names(&self) -> Names<'_> {
        Names { module: self.module, types: self.types, facts: &self.facts }
    }

    #[inline]
    fn record(&mut self, e: ExprId, value: &Value) {
        if self.recording && self.reporting {
            let names = Names { module: self.module, types: self.types, facts: &self.facts };
            self.info.set(e, value, names);
        }
    }

    /// Reports `diagnostic`, once, unless reporting is off (a loop's earlier rounds, a call's analysis done only
    /// for its result) or the point is unreachable.
    fn report(&mut self, diagnostic: Diagnostic) {
        self.report_fixable(diagnostic, None);
    }

    /// `report`, keeping what an edit that fixes the diagnostic needs to know (if it is reported).
    fn report_fixable(&mut self, diagnostic: Diagnostic, request: Option<super::fixes::FixRequest>) {
        if !self.reporting || self.dead {
            return;
        }
        self.report_attempts += 1;
        let secondary = diagnostic.labels.iter().find(|l| !l.primary).map(|l| l.span);
        let key = (diagnostic.code, diagnostic.primary_span(), secondary);
        if self.seen.insert(key) {
            self.journal_seen(key);
            let diagnostic = self.name_instance(diagnostic);
            if let Some(request) = request {
                self.fix_requests.push((self.diagnostics.len(), request));
            }
            self.diagnostics.push(diagnostic);
        }
    }

    /// A diagnostic inside an instance (of a generic function, or of a function that takes functions) says which
    /// instance it is: the innermost function being analysed that is an instance and whose body holds the
    /// diagnostic or one of its labels (a barrier in a function passed as an argument is labelled at the call
    /// inside the instance that calls it).
    fn name_instance(&self, mut diagnostic: Diagnostic) -> Diagnostic {
        let spans: Vec<crate::source::Span> = diagnostic.labels.iter().map(|l| l.span).collect();
        let inside = |f: &&FunctionId| {
            let span = self.types.function(**f).span;
            spans.iter().any(|at| span.file == at.file && span.start <= at.start && at.end <= span.end)
        };
        if let Some(note) =
            self.call_stack.iter().rev().filter(inside).find_map(|f| self.types.function(*f).instance.clone())
        {
            diagnostic.notes.push(note);
        }
        diagnostic
    }

    // --- expressions -------------------------------------------------------------------------------------

    pub fn expr(&mut self, e: ExprId) -> Value {
        // Follow a sequence's spine in a loop: long kernels must not deepen the recursion.
        let mut e = e;
        while let ExprKind::Seq(first, rest) = self.module.expr(e) {
            let (first, rest) = (*first, *rest);
            self.expr(first);
            // A sequence's own value is unit: uniform, what every expression's level starts as (nothing to record).
            if self.dead {
                // What follows an unconditional exit never runs.
                return Value::uniform();
            }
            e = rest;
        }
        let value = self.expr_kind(e);
        self.record(e, &value);
        value
    }

    fn expr_kind(&mut self, e: ExprId) -> Value {
        // Spans are looked up only where needed: most nodes are names and operators that need none.
        let span = |walker: &Self| walker.module.span(e);
        match self.module.expr(e) {
            ExprKind::Int { .. } | ExprKind::Float { .. } | ExprKind::Bool(_) | ExprKind::Unit => Value::uniform(),
            ExprKind::Str => Value::uniform(),
            ExprKind::Global(_) | ExprKind::Error | ExprKind::ArrayLit(_) => Value::uniform(),
            ExprKind::Var(_) => self.var(e),
            ExprKind::Call { args, .. } => self.call(e, args),
            ExprKind::Unary { operand, .. } => self.expr(*operand),
            ExprKind::Binary { op, lhs, rhs } => self.binary(e, *op, *lhs, *rhs),
            ExprKind::Let { binder, value, body, .. } => self.let_(e, binder.span(), *value, *body),
            ExprKind::Ref(inner) => self.expr(*inner),
            ExprKind::LetArray { name, space, size, body, .. } => self.let_array(e, name.span, *space, *size, *body),
            ExprKind::Assign { value, .. } => self.assign(e, *value, span(self)),
            ExprKind::If { cond, then_branch, else_branch } => self.if_(e, *cond, *then_branch, *else_branch),
            ExprKind::For { start, end, body, var, .. } => self.for_(e, var.span, *start, *end, *body),
            ExprKind::While { cond, body } => self.while_(e, *cond, *body),
            ExprKind::Seq(a, b) => {
                let (a, b) = (*a, *b);
                self.expr(a);
                self.expr(b)
            }
            ExprKind::Index { array, index: index_expr } => {
                let contents = self.expr(*array);
                let index = self.expr(*index_expr);
                self.track(*index_expr, &index);
                contents.join(index)
            }
            ExprKind::IndexSet { array, index, value } => self.element_write(*array, Some(*index), *value, span(self)),
            ExprKind::Field { record, field } => {
                let record = self.expr(*record);
                self.facts.field(record, &field.name)
            }
            ExprKind::FieldSet { record, value, .. } => self.element_write(*record, None, *value, span(self)),
            // A record's (and so a tuple's) level is the join of its fields', and each field's value is kept for
            // the reads of this value (`Facts::record`).
            ExprKind::Record(fields) => {
                let fields: Vec<(Name, ExprId)> = fields.iter().map(|(n, v)| (n.name.clone(), *v)).collect();
                let values = fields.into_iter().map(|(name, f)| (name, self.expr(f))).collect();
                self.facts.record(values)
            }
            ExprKind::Tuple(components) => {
                let components = components.clone();
                let values = (components.into_iter().enumerate())
                    .map(|(i, c)| (Name::new(&format!("_{i}")), self.expr(c)))
                    .collect();
                self.facts.record(values)
            }
            ExprKind::Superstep { divergent, body, .. } => self.superstep(*divergent, *body, span(self)),
            ExprKind::Annot { expr, .. } => self.expr(*expr),
            ExprKind::Pragma { body, .. } => self.expr(*body),
            ExprKind::Return(value) => self.return_(*value, span(self)),
            ExprKind::Break => self.exit(DivergenceKind::Break, span(self)),
            ExprKind::Continue => self.exit(DivergenceKind::Continue, span(self)),
        }
    }

    /// Keeps the levels of a condition or an index over the contexts (see `context_levels`).
    fn track(&mut self, e: ExprId, value: &Value) {
        if self.dead {
            return;
        }
        if let Some(slot) = self.context_levels.get_mut(e.index()) {
            *slot = Some(slot.map_or(value.level, |high| high.max(value.level)));
        }
        // Final rounds only: a loop's earlier rounds see levels below its fixpoint.
        if self.in_kernel && self.reporting {
            if let Some(&old) = self.kernel_min_levels.get(e.index()) {
                let new = Some(old.map_or(value.level, |low| low.min(value.level)));
                if new != old {
                    self.journal_kernel_min_level(e.index(), old);
                    self.kernel_min_levels[e.index()] = new;
                }
            }
        }
    }

    #[inline]
    fn var(&mut self, e: ExprId) -> Value {
        match self.types.resolution(e) {
            Some(Resolution::Local(id)) => self.local(id),
            Some(Resolution::Builtin(builtin)) => self.builtin(builtin.get(), e, &[], self.module.span(e)),
            // A function named as a value is a type error (E0233): it is not called, and has no arguments to
            // analyse it with.
            Some(Resolution::Function(_)) | Some(Resolution::Constant(_)) | None => Value::uniform(),
        }
    }

    fn call(&mut self, e: ExprId, args: &'a [ExprId]) -> Value {
        match self.types.resolution(e) {
            Some(Resolution::Builtin(builtin)) => self.builtin(builtin.get(), e, args, self.module.span(e)),
            Some(Resolution::Function(f)) => self.call_function(f, args, self.module.span(e)),
            _ => args.iter().fold(Value::uniform(), |acc, a| acc.join(self.expr(*a))),
        }
    }

    fn let_(&mut self, e: ExprId, binder_span: Span, value: ExprId, body: ExprId) -> Value {
        let v = self.expr(value);
        if let Some(&local) = self.types.declared_local.get(&e) {
            if refers_to_storage(&self.types.local(local).ty) {
                let bound = self.facts.through(v, OriginKind::Let(local), binder_span);
                self.bind_let_reference(local, value, bound);
            } else {
                // A record or tuple keeps its fields' values: every later write of the variable replaces them
                // (`x := v`) or joins into them (a field write), and a callee never reads them (an argument is
                // passed at its whole level, which is what a memoized call's key holds).
                let bound = self.facts.through_keeping_fields(v, OriginKind::Let(local), binder_span);
                self.set_local(local, bound);
            }
        }
        self.expr(body)
    }

    fn let_array(&mut self, e: ExprId, name_span: Span, space: MemorySpace, size: ExprId, body: ExprId) -> Value {
        self.expr(size);
        if let Some(&local) = self.types.declared_local.get(&e) {
            let contents = match space {
                MemorySpace::Shared => {
                    self.facts.value(Uniformity::ThreadVarying, OriginKind::SharedLoad(local), name_span, None)
                }
                MemorySpace::Local => Value::uniform(),
            };
            self.own_storage(local, contents);
        }
        self.expr(body)
    }

    /// `x := v` (or `r := v` through any name of the cell): the contents become the level of `v` joined with the
    /// control flow's (a strong update; a cell that may be one of several is joined instead).
    fn assign(&mut self, e: ExprId, value: ExprId, span: Span) -> Value {
        let v = self.expr(value);
        if let Some(Resolution::Local(local)) = self.types.resolution(e) {
            let control = self.effective_control();
            let assigned = self.facts.through(v, OriginKind::Assign(local), span);
            let diverged = self.control_value(control, OriginKind::AssignInDivergence(local), span);
            if self.is_union(local) {
                self.join_into(local, assigned.join(diverged));
            } else {
                self.set_local(local, assigned.join(diverged));
            }
        }
        Value::uniform()
    }

    /// `a.(i) <- v` or `r.f <- v`: a local array or record takes the join (a weak update: the other elements keep
    /// their values); shared and global memory is already thread-varying once written.
    fn element_write(&mut self, target: ExprId, index: Option<ExprId>, value: ExprId, span: Span) -> Value {
        let mut written = self.expr(target);
        if let Some(index) = index {
            let level = self.expr(index);
            self.track(index, &level);
            written = written.join(level);
        }
        written = written.join(self.expr(value));
        if let Some(local) = self.base_local(target) {
            self.write_contents(local, written, OriginKind::ElementWrite(local), span);
        }
        Value::uniform()
    }

    /// A write of `written` into some of the contents of `local` (an element, a field, an atomic), where its
    /// storage is tracked per write (local memory, not shared or global).
    fn write_contents(&mut self, local: LocalId, written: Value, kind: OriginKind, span: Span) {
        if !self.is_tracked_memory(local) {
            return;
        }
        let control = self.effective_control();
        let diverged = self.control_value(control, kind, span);
        let new = self.facts.through(written, kind, span).join(diverged);
        self.join_into(local, new);
    }

    /// The local at the root of `a`, `a.(i)`, `a.(i).f`, `r.f`.
    fn base_local(&self, mut e: ExprId) -> Option<LocalId> {
        loop {
            match self.module.expr(e) {
                ExprKind::Var(_) => {
                    return match self.types.resolution(e) {
                        Some(Resolution::Local(l)) => Some(l),
                        _ => None,
                    }
                }
                ExprKind::Index { array, .. } => e = *array,
                ExprKind::Field { record, .. } => e = *record,
                ExprKind::Annot { expr, .. } => e = *expr,
                _ => return None,
            }
        }
    }

    // --- syntactic summaries -----------------------------------------------------------------------------------

    /// The variables whose values or contents a subtree may change: targets of `:=`, arrays and records written
    /// through, the `ref` cells and arrays passed to device functions and atomics; each named by the variable that
    /// owns the storage (through `let` aliases), so the list means the same wherever the subtree is entered. A
    /// branch or loop inside the subtree contributes its own list (computed once and kept: the walk asks for it again
    /// on entering it), so nested control flow is not walked again for each enclosing branch or loop.
    fn assigned_locals(&mut self, e: ExprId) -> Rc<Vec<LocalId>> {
        if let Some(&index) = self.assigned_index.get(e.index()).filter(|&&index| index != 0) {
            return self.assigned_lists[index as usize - 1].clone();
        }
        // `pending` (the walk) and `assigned_scratch` (the locals found) are shared with the nested calls: each
        // works above the entries it found there, and gives them back.
        let mut out = std::mem::take(&mut self.assigned_scratch);
        let out_base = out.len();
        let mut stack = std::mem::take(&mut self.pending);
        let base = stack.len();
        stack.push(e);
        while stack.len() > base {
            let x = stack.pop().expect("an entry above the base");
            let kind = self.module.expr(x);
            match kind {
                ExprKind::If { .. } | ExprKind::While { .. } | ExprKind::For { .. } if x != e => {
                    self.pending = stack;
                    self.assigned_scratch = out;
                    let nested = self.assigned_locals(x);
                    stack = std::mem::take(&mut self.pending);
                    out = std::mem::take(&mut self.assigned_scratch);
                    out.extend_from_slice(&nested);
                    continue;
                }
                ExprKind::Assign { .. } => {
                    if let Some(Resolution::Local(l)) = self.types.resolution(x) {
                        self.push_owners(l, &mut out);
                    }
                }
                ExprKind::IndexSet { array: target, .. } | ExprKind::FieldSet { record: target, .. } => {
                    if let Some(l) = self.base_local(*target) {
                        self.push_owners(l, &mut out);
                    }
                }
                ExprKind::Call { args, .. } => self.push_passed_storage(x, args, &mut out),
                _ => {}
            }
            for_each_child(kind, |child| stack.push(child));
        }
        self.pending = stack;
        let found = &mut out[out_base..];
        found.sort_unstable();
        let mut unique = Vec::with_capacity(found.len());
        for &local in found.iter() {
            if unique.last() != Some(&local) {
                unique.push(local);
            }
        }
        out.truncate(out_base);
        self.assigned_scratch = out;
        let unique = if unique.is_empty() { self.assigns_nothing.clone() } else { Rc::new(unique) };
        if let Some(slot) = self.assigned_index.get_mut(e.index()) {
            self.assigned_lists.push(unique.clone());
            *slot = self.assigned_lists.len() as u32;
        }
        unique
    }

    /// The `ref` cells and arrays a call may write: every one passed to a device function, the first argument of
    /// an atomic.
    fn push_passed_storage(&self, call: ExprId, args: &[ExprId], out: &mut Vec<LocalId>) {
        let passed: &[ExprId] = match self.types.resolution(call) {
            Some(Resolution::Function(_)) => args,
            Some(Resolution::Builtin(b)) if b.writes_first_arg => &args[..args.len().min(1)],
            _ => return,
        };
        let mut roots = Vec::new();
        for &arg in passed {
            if refers_to_storage(self.types.type_of(arg)) {
                crate::storage::pointer_roots(self.module, &|e| self.types.resolution(e), arg, &mut roots);
            }
        }
        for root in roots {
            self.push_owners(root, out);
        }
    }

    /// Pushes `local`, or, for a `let` alias of `ref` or array type, the variables it names (transitively). Every
    /// alias is followed (an owner left out would hide a write); each local is visited once, so aliases chosen by
    /// `if` that share names stay linear.
    fn push_owners(&self, local: LocalId, out: &mut Vec<LocalId>) {
        if !refers_to_storage(&self.types.local(local).ty) || self.types.aliased(local).is_empty() {
            out.push(local);
            return;
        }
        let mut pending = vec![local];
        let mut seen = HashSet::new();
        while let Some(l) = pending.pop() {
            if !seen.insert(l) {
                continue;
            }
            let names = self.types.aliased(l);
            if names.is_empty() || !refers_to_storage(&self.types.local(l).ty) {
                out.push(l);
            } else {
                pending.extend_from_slice(names);
            }
        }
    }

    /// No loops, function calls, early exits or supersteps anywhere in the subtree.
    fn is_straight_line(&mut self, e: ExprId) -> bool {
        match self.straight_cache.get(e.index()) {
            Some(&STRAIGHT) => return true,
            Some(&NOT_STRAIGHT) => return false,
            _ => {}
        }
        let mut stack = std::mem::take(&mut self.pending);
        stack.push(e);
        let mut straight = true;
        while let Some(x) = stack.pop() {
            let kind = self.module.expr(x);
            let breaks_line = match kind {
                ExprKind::For { .. } | ExprKind::While { .. } | ExprKind::Superstep { .. } => true,
                ExprKind::Return(_) | ExprKind::Break | ExprKind::Continue => true,
                ExprKind::Call { .. } | ExprKind::Var(_) => {
                    matches!(self.types.resolution(x), Some(Resolution::Function(_)))
                }
                _ => false,
            };
            if breaks_line {
                straight = false;
                break;
            }
            for_each_child(kind, |child| stack.push(child));
        }
        stack.clear();
        self.pending = stack;
        if let Some(slot) = self.straight_cache.get_mut(e.index()) {
            *slot = if straight { STRAIGHT } else { NOT_STRAIGHT };
        }
        straight
    }
}

/// Does a value of type `ty` refer to storage whose contents the analysis tracks per variable: a `ref` cell or a
/// shared or local array? (A vector's contents have one level for the whole kernel.)
fn refers_to_storage(ty: &Type) -> bool {
    matches!(ty, Type::Ref(_) | Type::Array { .. })
}

//! The abstract interpreter: walks a kernel or function body in program order, tracking the uniformity of every
//! local and how converged control flow is, and checks every barrier, warp collective and superstep against it.
//!
//! State: `locals` (one value per `LocalId`; for arrays, the uniformity of their contents), `control` (from the
//! enclosing branches and loops), and three taints left by early exits taken in diverged control flow: `returned`
//! (rest of the function), `broke` (rest of the loop, all later iterations), `continued` (rest of the iteration).
//! Branches merge the locals they assign; loops iterate to a fixpoint with reporting off, then run once more
//! with reporting on, so each problem is reported once with its final explanation.

use std::collections::HashSet;
use std::rc::Rc;

use crate::builtins::{Builtin, Requirement, ResultUniformity};
use crate::diagnostic::Diagnostic;
use crate::fxhash::FxHashMap;
use crate::source::Span;
use crate::syntax::ast::{ExprId, ExprKind, MemorySpace, Module};
use crate::types::{FunctionId, LocalId, Resolution, Type, TypeInfo};

use super::lattice::{Control, DivergenceKind, Facts, OriginKind, Uniformity, Value};
use super::memo::{CallKey, CallSite, CallSummary};
use super::report::{divergence_error, value_divergence_error, Names};
use super::UniformityInfo;

/// Fixpoint iterations before a loop's remaining changes are forced to thread-varying (the lattice has height 4,
/// so a loop stabilises within a few rounds; this only bounds pathological inputs).
const MAX_LOOP_ROUNDS: usize = 8;

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
    facts: Facts,
    locals: Vec<Value>,
    control: Control,
    returned: Control,
    broke: Control,
    continued: Control,
    return_value: Value,
    superstep: Option<PlainSuperstep>,
    reporting: bool,
    recording: bool,
    call_stack: Vec<FunctionId>,
    /// Syntactic summaries of `if`s and loops, computed once per node (few nodes: a hash map, not a table).
    assigned_cache: FxHashMap<ExprId, Rc<Vec<LocalId>>>,
    straight_cache: FxHashMap<ExprId, bool>,
    /// The summary of the (many) subtrees that assign nothing, shared.
    assigns_nothing: Rc<Vec<LocalId>>,
    /// Scratch stack of the syntactic walks.
    pending: Vec<ExprId>,
    pub diagnostics: Vec<Diagnostic>,
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
    calls: FxHashMap<CallKey, CallSummary>,
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
}

impl<'a> Walker<'a> {
    pub fn new(module: &'a Module, types: &'a TypeInfo) -> Walker<'a> {
        Walker {
            module,
            types,
            facts: Facts::default(),
            locals: vec![Value::uniform(); types.locals.len()],
            control: Control::converged(),
            returned: Control::converged(),
            broke: Control::converged(),
            continued: Control::converged(),
            return_value: Value::uniform(),
            superstep: None,
            reporting: true,
            recording: true,
            call_stack: Vec::new(),
            assigned_cache: FxHashMap::default(),
            straight_cache: FxHashMap::default(),
            assigns_nothing: Rc::new(Vec::new()),
            pending: Vec::new(),
            diagnostics: Vec::new(),
            seen: HashSet::new(),
            info: UniformityInfo::new(module.exprs.len()),
            context_levels: vec![None; module.exprs.len()],
            kernel_min_levels: vec![None; module.exprs.len()],
            varying_ifs: Vec::new(),
            in_kernel: false,
            memoize: true,
            calls: FxHashMap::default(),
            entered_sets: Vec::new(),
            replay_steps: Vec::new(),
            report_attempts: 0,
            guard_hits: 0,
            entered: Vec::new(),
            deepest: 0,
        }
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
            self.set_local(param.local, value);
        }
        self.in_kernel = true;
        self.body(body);
        self.in_kernel = false;
    }

    /// Analyses a device function on its own, every parameter uniform: reports what is wrong whatever the
    /// caller passes. Calls re-analyse it in the caller's context.
    pub fn function(&mut self, function: FunctionId) {
        let info = self.types.function(function);
        let Some(body) = self.function_body(function) else { return };
        for &param in &info.params {
            self.set_local(param, Value::uniform());
        }
        self.call_stack.push(function);
        self.body(body);
        self.call_stack.pop();
    }

    fn body(&mut self, body: ExprId) {
        self.control = Control::converged();
        self.returned = Control::converged();
        self.broke = Control::converged();
        self.continued = Control::converged();
        self.return_value = Value::uniform();
        self.expr(body);
    }

    fn function_body(&self, function: FunctionId) -> Option<ExprId> {
        let item = self.types.function(function).item;
        match self.module.items.get(item)? {
            crate::syntax::ast::Item::Function(f) => Some(f.body),
            _ => None,
        }
    }

    // --- state helpers ------------------------------------------------------------------------------------

    fn local(&self, id: LocalId) -> Value {
        self.locals.get(id.0 as usize).copied().unwrap_or_else(Value::uniform)
    }

    fn set_local(&mut self, id: LocalId, value: Value) {
        if let Some(slot) = self.locals.get_mut(id.0 as usize) {
            *slot = value;
        }
    }

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

    fn report(&mut self, diagnostic: Diagnostic) {
        if !self.reporting {
            return;
        }
        self.report_attempts += 1;
        let secondary = diagnostic.labels.iter().find(|l| !l.primary).map(|l| l.span);
        if self.seen.insert((diagnostic.code, diagnostic.primary_span(), secondary)) {
            self.diagnostics.push(diagnostic);
        }
    }

    // --- expressions -------------------------------------------------------------------------------------

    pub fn expr(&mut self, e: ExprId) -> Value {
        // Follow a sequence's spine in a loop: long kernels must not deepen the recursion.
        let mut e = e;
        while let ExprKind::Seq(first, rest) = self.module.expr(e) {
            let (first, rest) = (*first, *rest);
            self.expr(first);
            self.record(e, &Value::uniform());
            e = rest;
        }
        let value = self.expr_kind(e);
        self.record(e, &value);
        value
    }

    fn expr_kind(&mut self, e: ExprId) -> Value {
        let span = self.module.span(e);
        match self.module.expr(e) {
            ExprKind::Int { .. } | ExprKind::Float { .. } | ExprKind::Bool(_) | ExprKind::Unit => Value::uniform(),
            ExprKind::Global(_) | ExprKind::Error | ExprKind::ArrayLit(_) => Value::uniform(),
            ExprKind::Var(_) => self.var(e, span),
            ExprKind::Call { args, .. } => self.call(e, args, span),
            ExprKind::Unary { operand, .. } => self.expr(*operand),
            ExprKind::Binary { op, lhs, rhs } => self.binary(*op, *lhs, *rhs),
            ExprKind::Let { binder, value, body, .. } => self.let_(e, binder.span(), *value, *body),
            ExprKind::Ref(inner) => self.expr(*inner),
            ExprKind::LetArray { name, space, size, body, .. } => self.let_array(e, name.span, *space, *size, *body),
            ExprKind::Assign { value, .. } => self.assign(e, *value, span),
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
            ExprKind::IndexSet { array, index, value } => self.element_write(*array, Some(*index), *value, span),
            ExprKind::Field { record, .. } => self.expr(*record),
            ExprKind::FieldSet { record, value, .. } => self.element_write(*record, None, *value, span),
            ExprKind::Record(fields) => {
                let fields: Vec<ExprId> = fields.iter().map(|(_, v)| *v).collect();
                fields.into_iter().fold(Value::uniform(), |acc, f| acc.join(self.expr(f)))
            }
            ExprKind::Superstep { divergent, body, .. } => self.superstep(*divergent, *body, span),
            ExprKind::Annot { expr, .. } => self.expr(*expr),
            ExprKind::Pragma { body, .. } => self.expr(*body),
            ExprKind::Return(value) => self.return_(*value, span),
            ExprKind::Break => self.exit(DivergenceKind::Break, span),
            ExprKind::Continue => self.exit(DivergenceKind::Continue, span),
        }
    }

    /// Keeps the levels of a condition or an index over the contexts (see `context_levels`).
    fn track(&mut self, e: ExprId, value: &Value) {
        if let Some(slot) = self.context_levels.get_mut(e.index()) {
            *slot = Some(slot.map_or(value.level, |high| high.max(value.level)));
        }
        // Final rounds only: a loop's earlier rounds see levels below its fixpoint.
        if self.in_kernel && self.reporting {
            if let Some(slot) = self.kernel_min_levels.get_mut(e.index()) {
                *slot = Some(slot.map_or(value.level, |low| low.min(value.level)));
            }
        }
    }

    fn var(&mut self, e: ExprId, span: Span) -> Value {
        match self.types.resolution(e) {
            Some(Resolution::Local(id)) => self.local(id),
            Some(Resolution::Builtin(builtin)) => self.builtin(builtin, e, &[], span),
            Some(Resolution::Function(f)) => self.call_function(f, &[], span),
            Some(Resolution::Constant(_)) | None => Value::uniform(),
        }
    }

    fn call(&mut self, e: ExprId, args: &'a [ExprId], span: Span) -> Value {
        match self.types.resolution(e) {
            Some(Resolution::Builtin(builtin)) => self.builtin(builtin, e, args, span),
            Some(Resolution::Function(f)) => self.call_function(f, args, span),
            _ => args.iter().fold(Value::uniform(), |acc, a| acc.join(self.expr(*a))),
        }
    }

    fn binary(&mut self, op: crate::syntax::ast::BinaryOp, lhs: ExprId, rhs: ExprId) -> Value {
        let left = self.expr(lhs);
        if !op.is_logical() {
            return left.join(self.expr(rhs));
        }
        // `a && b`: `b` runs only in the threads where `a` allows it.
        let saved = self.control;
        let control = self.effective_control();
        self.control = self.facts.enter(control, DivergenceKind::ShortCircuit, self.module.span(lhs), left);
        let right = self.expr(rhs);
        self.control = saved;
        left.join(right)
    }

    fn let_(&mut self, e: ExprId, binder_span: Span, value: ExprId, body: ExprId) -> Value {
        let v = self.expr(value);
        if let Some(&local) = self.types.declared_local.get(&e) {
            let bound = self.facts.through(v, OriginKind::Let(local), binder_span);
            self.set_local(local, bound);
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
            self.set_local(local, contents);
        }
        self.expr(body)
    }

    fn assign(&mut self, e: ExprId, value: ExprId, span: Span) -> Value {
        let v = self.expr(value);
        if let Some(Resolution::Local(local)) = self.types.resolution(e) {
            let control = self.effective_control();
            let assigned = self.facts.through(v, OriginKind::Assign(local), span);
            let diverged = self.control_value(control, OriginKind::AssignInDivergence(local), span);
            self.set_local(local, assigned.join(diverged));
        }
        Value::uniform()
    }

    /// `a.(i) <- v` or `r.f <- v`: a local array or record takes the join; shared and global memory is already
    /// thread-varying once written.
    fn element_write(&mut self, target: ExprId, index: Option<ExprId>, value: ExprId, span: Span) -> Value {
        let mut written = self.expr(target);
        if let Some(index) = index {
            let level = self.expr(index);
            self.track(index, &level);
            written = written.join(level);
        }
        written = written.join(self.expr(value));
        if let Some(local) = self.base_local(target) {
            let is_local_memory = !matches!(self.types.local(local).ty, Type::Vector(_))
                && !matches!(self.types.local(local).ty, Type::Array { space: MemorySpace::Shared, .. });
            if is_local_memory {
                let control = self.effective_control();
                let diverged = self.control_value(control, OriginKind::ElementWrite(local), span);
                let old = self.local(local);
                let new = self.facts.through(written, OriginKind::ElementWrite(local), span).join(diverged);
                self.set_local(local, old.join(new));
            }
        }
        Value::uniform()
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
                _ => return None,
            }
        }
    }

    // --- control flow --------------------------------------------------------------------------------------

    fn if_(&mut self, e: ExprId, cond: ExprId, then_branch: ExprId, else_branch: Option<ExprId>) -> Value {
        let c = self.expr(cond);
        let was_varying = self.context_levels.get(cond.index()).copied().flatten() == Some(Uniformity::ThreadVarying);
        self.track(cond, &c);
        if c.level == Uniformity::ThreadVarying && !was_varying {
            self.varying_ifs.push(e);
        }
        let cond_span = self.module.span(cond);
        self.check_plain_superstep_branch(e, &c, cond_span, then_branch, else_branch);
        let saved = self.control;
        let control = self.effective_control();
        self.control = self.facts.enter(control, DivergenceKind::Branch, cond_span, c);
        let assigned = self.assigned_locals(e);
        let before: Vec<Value> = assigned.iter().map(|&l| self.local(l)).collect();
        let then_value = self.expr(then_branch);
        let after_then: Vec<Value> = assigned.iter().map(|&l| self.local(l)).collect();
        for (&l, &v) in assigned.iter().zip(&before) {
            self.set_local(l, v);
        }
        let else_value = match else_branch {
            Some(b) => self.expr(b),
            None => Value::uniform(),
        };
        for (&l, v) in assigned.iter().zip(after_then) {
            let merged = v.join(self.local(l));
            self.set_local(l, merged);
        }
        self.control = saved;
        let span = self.module.span(e);
        let value_of_if = self.facts.through(c, OriginKind::IfValue, span);
        then_value.join(else_value).join(value_of_if)
    }

    fn for_(&mut self, e: ExprId, var_span: Span, start: ExprId, end: ExprId, body: ExprId) -> Value {
        let bounds = self.expr(start).join(self.expr(end));
        let bounds_span = self.module.span(start).to(self.module.span(end));
        self.check_plain_superstep_loop(&bounds, bounds_span);
        let saved = self.control;
        let control = self.effective_control();
        self.control = self.facts.enter(control, DivergenceKind::Loop, bounds_span, bounds);
        if let Some(&counter) = self.types.declared_local.get(&e) {
            let value = self.facts.through(bounds, OriginKind::LoopCounter(counter), var_span);
            self.set_local(counter, value);
        }
        self.fixpoint(e, |walker| {
            walker.expr(body);
        });
        self.control = saved;
        Value::uniform()
    }

    fn while_(&mut self, e: ExprId, cond: ExprId, body: ExprId) -> Value {
        let cond_span = self.module.span(cond);
        let saved = self.control;
        self.fixpoint(e, |walker| {
            let c = walker.expr(cond);
            walker.check_plain_superstep_loop(&c, cond_span);
            let control = walker.effective_control();
            walker.control = walker.facts.enter(control, DivergenceKind::Loop, cond_span, c);
            walker.expr(body);
        });
        self.control = saved;
        Value::uniform()
    }

    /// Runs a loop body (`round`) until the locals it assigns and the exit taints stop changing, with reporting
    /// off; then once more with reporting on. The loop head joins the entry state with the back edge.
    fn fixpoint(&mut self, loop_expr: ExprId, mut round: impl FnMut(&mut Self)) {
        let assigned = self.assigned_locals(loop_expr);
        let saved_reporting = self.reporting;
        let saved_broke = std::mem::replace(&mut self.broke, Control::converged());
        let saved_continued = std::mem::replace(&mut self.continued, Control::converged());
        let saved_control = self.control;
        let mut head: Vec<Value> = assigned.iter().map(|&l| self.local(l)).collect();
        self.reporting = false;
        for round_number in 0..MAX_LOOP_ROUNDS {
            let exits_before = (self.broke.level, self.returned.level);
            self.start_round(&assigned, &head, saved_control);
            round(self);
            let head_rose = self.join_into_head(&assigned, &mut head);
            if !head_rose && (self.broke.level, self.returned.level) == exits_before {
                break;
            }
            if round_number + 1 == MAX_LOOP_ROUNDS {
                for value in &mut head {
                    value.level = Uniformity::ThreadVarying;
                }
            }
        }
        self.reporting = saved_reporting;
        self.start_round(&assigned, &head, saved_control);
        round(self);
        for (&l, h) in assigned.iter().zip(head) {
            let exit = h.join(self.local(l));
            self.set_local(l, exit);
        }
        self.broke = saved_broke;
        self.continued = saved_continued;
    }

    fn start_round(&mut self, assigned: &[LocalId], head: &[Value], control: Control) {
        for (&l, &v) in assigned.iter().zip(head) {
            self.set_local(l, v);
        }
        self.continued = Control::converged();
        self.control = control;
    }

    /// Joins the back edge (the locals' values now) into the loop head; says whether any level rose.
    fn join_into_head(&self, assigned: &[LocalId], head: &mut [Value]) -> bool {
        let mut rose = false;
        for (value, &l) in head.iter_mut().zip(assigned) {
            let joined = value.join(self.local(l));
            rose |= joined.level != value.level;
            *value = joined;
        }
        rose
    }

    fn return_(&mut self, value: Option<ExprId>, span: Span) -> Value {
        if let Some(v) = value {
            let v = self.expr(v);
            self.return_value = std::mem::replace(&mut self.return_value, Value::uniform()).join(v);
        }
        self.exit(DivergenceKind::Return, span)
    }

    /// `return`, `break`, `continue`: taken in diverged control flow, they leave the rest of the function, loop
    /// or iteration to fewer threads.
    fn exit(&mut self, kind: DivergenceKind, span: Span) -> Value {
        let control = self.effective_control();
        if control.level == Uniformity::Uniform {
            return Value::uniform();
        }
        let taint = self.facts.because_of(control, kind, span);
        match kind {
            DivergenceKind::Return => self.returned = self.returned.join(taint),
            DivergenceKind::Break => self.broke = self.broke.join(taint),
            _ => self.continued = self.continued.join(taint),
        }
        Value::uniform()
    }

    // --- barriers, collectives, supersteps ---------------------------------------------------------------------

    /// Is `e` a global vector whose contents may change under other threads?
    fn is_written_global(&self, e: Option<ExprId>) -> bool {
        let Some(e) = e else { return false };
        matches!(self.types.type_of(e), Type::Vector(_))
            && self.base_local(e).map(|l| self.local(l).level > Uniformity::Uniform).unwrap_or(true)
    }

    /// The builtin's name as the source spells it (`global_idx`, `warp_shuffle_down`, `Gpu.block_barrier`).
    fn written_name(&self, e: ExprId, builtin: &'static Builtin) -> String {
        match self.module.expr(e) {
            ExprKind::Var(path) | ExprKind::Call { callee: path, .. } => path.display(),
            _ => builtin.name.to_string(),
        }
    }

    fn builtin(&mut self, builtin: &'static Builtin, e: ExprId, args: &[ExprId], span: Span) -> Value {
        // The join of all arguments, and of all but the first (the indices of a load).
        let (mut joined, mut indices) = (Value::uniform(), Value::uniform());
        let mut values = Vec::with_capacity(args.len());
        for (position, &arg) in args.iter().enumerate() {
            let value = self.expr(arg);
            if position > 0 {
                indices = indices.join(value);
            }
            joined = joined.join(value);
            values.push(value);
        }
        let control = self.effective_control();
        if builtin.requirement != Requirement::None {
            self.check_requirement(builtin, e, span, &control);
        }
        if builtin.warp_uniform_args {
            self.check_warp_uniform_args(builtin, e, args, &values);
        }
        match builtin.result {
            ResultUniformity::Uniform => Value::uniform(),
            // Another block may write a global vector between two threads' loads: only shared memory (and data
            // nobody writes) comes back block-uniform.
            ResultUniformity::BlockUniform if self.is_written_global(args.first().copied()) => joined,
            // Block-uniform only if every thread reads the same element: join the arguments (the index).
            ResultUniformity::BlockUniform => {
                self.facts.value(Uniformity::BlockUniform, OriginKind::Builtin(e), span, None).join(indices)
            }
            ResultUniformity::WarpUniform => {
                self.facts.value(Uniformity::WarpUniform, OriginKind::Builtin(e), span, None)
            }
            ResultUniformity::ThreadVarying => {
                self.facts.value(Uniformity::ThreadVarying, OriginKind::Builtin(e), span, None)
            }
            ResultUniformity::OfArguments => joined,
            ResultUniformity::WarpUniformUnderControl => {
                let level = control.level.max(Uniformity::WarpUniform);
                self.facts.value(level, OriginKind::Builtin(e), span, None)
            }
            // `shfl v src`: every lane gets lane `src`'s `v`.
            ResultUniformity::Broadcast => match (values.first(), values.get(1)) {
                (Some(v), _) if v.level <= Uniformity::WarpUniform => *v,
                (_, Some(src)) if src.level <= Uniformity::WarpUniform => {
                    self.facts.value(Uniformity::WarpUniform, OriginKind::Builtin(e), span, None)
                }
                _ => self.facts.value(Uniformity::ThreadVarying, OriginKind::Builtin(e), span, None).join(joined),
            },
        }
    }

    /// A named barrier's id and thread count must be the same in every lane of the warp (E0006): lanes of one
    /// warp that name different barriers or counts would wait on different hardware barriers.
    fn check_warp_uniform_args(&mut self, builtin: &'static Builtin, e: ExprId, args: &[ExprId], values: &[Value]) {
        const ROLES: [&str; 2] = ["barrier id", "thread count"];
        for (position, (&arg, value)) in args.iter().zip(values).enumerate() {
            if value.level <= Uniformity::WarpUniform {
                continue;
            }
            let name = self.written_name(e, builtin);
            let role = ROLES.get(position).copied().unwrap_or("argument");
            let d = value_divergence_error(
                "E0006",
                format!("the {role} of `{name}` may differ between the lanes of a warp"),
                self.module.span(arg),
                format!("this {role} is not warp-uniform"),
                value,
                self.names(),
            )
            .note("Every lane of a warp must name the same barrier and the same thread count.")
            .help("compute it from `warp_id`, constants, parameters or block indices, or broadcast it with `Gpu.shfl v 0`");
            self.report(d);
        }
    }

    /// `e` uses `builtin`; its name, as written, is looked up only for a diagnostic.
    fn check_requirement(&mut self, builtin: &'static Builtin, e: ExprId, span: Span, control: &Control) {
        match builtin.requirement {
            Requirement::None => {}
            Requirement::BlockConverged if control.level > Uniformity::BlockUniform => {
                let name = self.written_name(e, builtin);
                let d = divergence_error(
                    "E0001",
                    "Barrier in potentially diverged control flow".into(),
                    span,
                    format!("`{name}` may not be reached by all threads of the block"),
                    control,
                    self.names(),
                )
                .note("This barrier may not be reached by all threads, causing deadlock.")
                .help(
                    "move the barrier out of the diverged region so every thread of the block reaches it, or make \
                     the condition block-uniform (computed from `block_idx_*`, parameters and constants only)",
                );
                self.report(d);
            }
            Requirement::WarpConverged if control.level > Uniformity::WarpUniform => {
                let name = self.written_name(e, builtin);
                let d = divergence_error(
                    "E0002",
                    format!("Warp collective `{name}` in potentially diverged control flow"),
                    span,
                    format!("`{name}` may not be reached by all threads of the warp"),
                    control,
                    self.names(),
                )
                .note("All threads in a warp must participate together.")
                .help(
                    "call it where the whole warp is converged (before the branch), or make the condition \
                     warp-uniform, for example with a vote: `if Gpu.all (cond) then ...`",
                );
                self.report(d);
            }
            Requirement::BlockConverged | Requirement::WarpConverged => {}
        }
    }

    fn superstep(&mut self, divergent: bool, body: ExprId, span: Span) -> Value {
        let entry = self.effective_control();
        if entry.level > Uniformity::BlockUniform {
            let d = divergence_error(
                "E0003",
                "Superstep entered from potentially diverged control flow".into(),
                span,
                "this superstep ends with a block barrier that not all threads may reach".into(),
                &entry,
                self.names(),
            )
            .help(
                "start the superstep where the whole block is converged; `~divergent` allows divergence only inside it",
            );
            self.report(d);
        }
        let saved = self.superstep;
        self.superstep = if divergent { None } else { Some(PlainSuperstep { span }) };
        self.expr(body);
        self.superstep = saved;
        let exit = self.effective_control();
        if exit.level > Uniformity::BlockUniform && entry.level <= Uniformity::BlockUniform {
            let keyword = Span { end: span.start + "superstep".len() as u32, ..span };
            let d = divergence_error(
                "E0001",
                "Barrier in potentially diverged control flow".into(),
                keyword,
                "the barrier at the end of this superstep may not be reached by all threads".into(),
                &exit,
                self.names(),
            )
            .note("This barrier may not be reached by all threads, causing deadlock.")
            .help("do not leave the superstep early from diverged control flow");
            self.report(d);
        }
        Value::uniform()
    }

    /// In a plain superstep, a thread-varying `if` may only guard straight-line code (which compiles to predicated
    /// instructions): no loops, calls of functions, early exits or nested supersteps.
    fn check_plain_superstep_branch(
        &mut self,
        e: ExprId,
        cond: &Value,
        cond_span: Span,
        then_branch: ExprId,
        else_branch: Option<ExprId>,
    ) {
        let Some(superstep) = self.superstep else { return };
        if cond.level <= Uniformity::BlockUniform {
            return;
        }
        let straight =
            self.is_straight_line(then_branch) && else_branch.map(|b| self.is_straight_line(b)).unwrap_or(true);
        if straight {
            return;
        }
        let control = self.facts.enter(Control::converged(), DivergenceKind::Branch, cond_span, *cond);
        let d = divergence_error(
            "E0004",
            "Divergent control flow in a superstep not marked `~divergent`".into(),
            self.module.span(e),
            "this branch contains a loop, a function call or an early exit under a thread-varying condition".into(),
            &control,
            self.names(),
        )
        .secondary(superstep.span, "in this superstep")
        .help("if the divergence is intended, write `superstep ~divergent { ... }`");
        self.report(d);
    }

    fn check_plain_superstep_loop(&mut self, bounds: &Value, span: Span) {
        let Some(superstep) = self.superstep else { return };
        if bounds.level <= Uniformity::BlockUniform {
            return;
        }
        let control = self.facts.enter(Control::converged(), DivergenceKind::Loop, span, *bounds);
        let d = divergence_error(
            "E0004",
            "Divergent control flow in a superstep not marked `~divergent`".into(),
            span,
            "this loop runs a thread-varying number of iterations".into(),
            &control,
            self.names(),
        )
        .secondary(superstep.span, "in this superstep")
        .help("if the divergence is intended, write `superstep ~divergent { ... }`");
        self.report(d);
    }

    // --- calls -------------------------------------------------------------------------------------------------

    /// Re-analyses the callee with the caller's argument values and control flow, so a barrier inside it is
    /// checked against the context it runs in (interprocedural, context-sensitive). A call in a context met
    /// before replays that analysis instead (`memo`: the same result, levels and diagnostics).
    fn call_function(&mut self, function: FunctionId, args: &[ExprId], span: Span) -> Value {
        let values: Vec<Value> = args.iter().map(|&a| self.expr(a)).collect();
        let control = self.effective_control();
        if self.call_stack.contains(&function) || self.call_stack.len() >= MAX_CALL_DEPTH {
            self.guard_hits += 1;
            return self.facts.value(Uniformity::ThreadVarying, OriginKind::CallResult(function), span, None);
        }
        let Some(body) = self.function_body(function) else { return Value::uniform() };
        let types = self.types;
        let params = &types.function(function).params;
        let site = CallSite { function, span, args, module: self.module, params, values: &values, control };
        let key =
            CallKey::new(function, &values, control.level, (self.reporting, self.in_kernel)).filter(|_| self.memoize);
        if let Some(result) = key.and_then(|key| self.replay(key, &site)) {
            return self.facts.through(result, OriginKind::CallResult(function), span);
        }
        let (mark, attempts, guards) = (self.facts.origin_count(), self.report_attempts, self.guard_hits);
        let (entered_mark, depth) = (self.entered.len(), self.call_stack.len());
        let outer_deepest = std::mem::replace(&mut self.deepest, depth + 1);
        self.entered.push(function);
        let result = self.analyse_call(function, body, &site);
        self.compact_entered(entered_mark);
        if let Some(key) = key.filter(|_| self.report_attempts == attempts && self.guard_hits == guards) {
            let start = self.entered_sets.len() as u32;
            self.entered_sets.extend_from_slice(&self.entered[entered_mark..]);
            let entered = (start, self.entered_sets.len() as u32);
            let summary = CallSummary::new(&self.facts, mark, result, &site, entered, self.deepest - depth);
            self.calls.insert(key, summary);
        }
        self.deepest = self.deepest.max(outer_deepest);
        self.facts.through(result, OriginKind::CallResult(function), span)
    }

    /// Keeps each function entered since `from` once: the log grows with the set of functions, not the calls.
    fn compact_entered(&mut self, from: usize) {
        self.entered[from..].sort_unstable();
        let mut kept = from;
        for i in from..self.entered.len() {
            if kept == from || self.entered[kept - 1] != self.entered[i] {
                self.entered[kept] = self.entered[i];
                kept += 1;
            }
        }
        self.entered.truncate(kept);
    }

    /// A kept analysis of a call in this context, replayed at `site`, if the guards would not fire here.
    fn replay(&mut self, key: CallKey, site: &CallSite) -> Option<Value> {
        let summary = *self.calls.get(&key)?;
        let depth = self.call_stack.len();
        let entered = &self.entered_sets[summary.entered.0 as usize..summary.entered.1 as usize];
        if depth + summary.height > MAX_CALL_DEPTH || entered.iter().any(|f| self.call_stack.contains(f)) {
            return None;
        }
        let result = summary.replay(&mut self.facts, site, &mut self.replay_steps)?;
        let entered = &self.entered_sets[summary.entered.0 as usize..summary.entered.1 as usize];
        self.entered.extend_from_slice(entered);
        self.deepest = self.deepest.max(depth + summary.height);
        Some(result)
    }

    /// Analyses the callee's body in the caller's context; returns its result before the `CallResult` step.
    fn analyse_call(&mut self, function: FunctionId, body: ExprId, site: &CallSite) -> Value {
        let frame = self.save_frame();
        for ((&param, value), &arg) in site.params.iter().zip(site.values).zip(site.args) {
            let kind = OriginKind::Argument { function, param };
            let passed = self.facts.through(*value, kind, self.module.span(arg));
            self.set_local(param, passed);
        }
        self.control = self.facts.because_of(site.control, DivergenceKind::Call(function), site.span);
        self.returned = Control::converged();
        self.broke = Control::converged();
        self.continued = Control::converged();
        self.return_value = Value::uniform();
        self.superstep = None;
        self.recording = false;
        self.call_stack.push(function);
        let result = self.expr(body);
        self.call_stack.pop();
        let returned = self.control_value(self.returned, OriginKind::IfValue, site.span);
        let result = result.join(self.return_value).join(returned);
        self.restore_frame(frame);
        result
    }

    fn save_frame(&self) -> Frame {
        Frame {
            control: self.control,
            returned: self.returned,
            broke: self.broke,
            continued: self.continued,
            return_value: self.return_value,
            superstep: self.superstep,
            recording: self.recording,
        }
    }

    fn restore_frame(&mut self, frame: Frame) {
        self.control = frame.control;
        self.returned = frame.returned;
        self.broke = frame.broke;
        self.continued = frame.continued;
        self.return_value = frame.return_value;
        self.superstep = frame.superstep;
        self.recording = frame.recording;
    }

    // --- syntactic summaries -----------------------------------------------------------------------------------

    /// Locals a subtree assigns (`:=`, element and field writes of local arrays and records).
    fn assigned_locals(&mut self, e: ExprId) -> Rc<Vec<LocalId>> {
        if let Some(found) = self.assigned_cache.get(&e) {
            return found.clone();
        }
        let mut out = Vec::new();
        let mut stack = std::mem::take(&mut self.pending);
        stack.push(e);
        while let Some(x) = stack.pop() {
            match self.module.expr(x) {
                ExprKind::Assign { .. } => {
                    if let Some(Resolution::Local(l)) = self.types.resolution(x) {
                        out.push(l);
                    }
                }
                ExprKind::IndexSet { array: target, .. } | ExprKind::FieldSet { record: target, .. } => {
                    out.extend(self.base_local(*target));
                }
                _ => {}
            }
            self.module.push_children(x, &mut stack);
        }
        self.pending = stack;
        out.sort();
        out.dedup();
        let out = if out.is_empty() { self.assigns_nothing.clone() } else { Rc::new(out) };
        self.assigned_cache.insert(e, out.clone());
        out
    }

    /// No loops, function calls, early exits or supersteps anywhere in the subtree.
    fn is_straight_line(&mut self, e: ExprId) -> bool {
        if let Some(&known) = self.straight_cache.get(&e) {
            return known;
        }
        let mut stack = std::mem::take(&mut self.pending);
        stack.push(e);
        let mut straight = true;
        while let Some(x) = stack.pop() {
            let breaks_line = match self.module.expr(x) {
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
            self.module.push_children(x, &mut stack);
        }
        stack.clear();
        self.pending = stack;
        self.straight_cache.insert(e, straight);
        straight
    }
}

struct Frame {
    control: Control,
    returned: Control,
    broke: Control,
    continued: Control,
    return_value: Value,
    superstep: Option<PlainSuperstep>,
    recording: bool,
}

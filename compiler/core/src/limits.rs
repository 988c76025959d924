//! The target's resource limits (`crate::target`), checked on the final types so that a program `skc check`
//! accepts also builds: a kernel's parameters (`PARAMETER_BYTES`), the static shared memory of a block and the
//! local memory of a thread (a kernel's own arrays and those of every function it calls, each counted once), the
//! program's constant arrays (`CONSTANT_BYTES`), and what `[@launch_bounds]` may promise on the target. Each
//! violation is `E0220`, reported at the declaration that crosses the limit, with the limit and the architecture.
//! A builtin the target's hardware does not have (`builtins::min_sm`: the warp reductions before sm_80,
//! `atomic_add_bfloat16x2` before sm_90; `builtins::min_sm_for_element`: `atomic_add` on bfloat16 before sm_90)
//! is `E0224` at each use. A branch that never runs (`constant_if`) is not emitted and counts for none of these.

use crate::builtins::Builtin;
use crate::diagnostic::Diagnostic;
use crate::fxhash::FxHashSet;
use crate::source::Span;
use crate::syntax::ast::{ExprId, ExprKind, Item, Kernel, LaunchBounds, MemorySpace, Module};
use crate::target::{self, grouped, Target};
use crate::types::{ArraySize, ConstantId, FunctionId, Resolution, Type, TypeInfo};

impl Limits<'_> {
    /// `E0224` at every use of a builtin that needs a newer architecture than the target; `uses`: the uses of
    /// builtins that may need one (`may_need_newer_architecture`) outside the branches that never run (which are
    /// not emitted: they need nothing of the target), in the order of `TypeInfo::resolutions`.
    fn check_builtin_architectures(&mut self, uses: Vec<(ExprId, &'static Builtin)>) {
        for (e, builtin) in uses {
            // The element type is looked for only where it may matter (one builtin); most calls are not atomics.
            let element = match crate::builtins::min_sm_depends_on_element(builtin) {
                true => self.first_argument_element(e),
                false => None,
            };
            let for_element = element.as_ref().and_then(|ty| crate::builtins::min_sm_for_element(builtin, ty));
            let Some(sm) = crate::builtins::min_sm(builtin).or(for_element) else { continue };
            if sm <= self.target.sm {
                continue;
            }
            let needed = Target { sm };
            let what = match (for_element, &element) {
                (Some(_), Some(ty)) => format!("`{}` on {}", builtin.name, self.info.display(ty)),
                _ => format!("`{}`", builtin.name),
            };
            let instead = match builtin.name.starts_with("atomic_") {
                true => "add in float32 (`atomic_add` on a float32 array)",
                false => "reduce with shuffles (`shfl_xor`)",
            };
            let d = Diagnostic::error(
                "E0224",
                format!("{what} needs {needed} or newer, and the target is {}", self.target),
            )
            .primary(self.module.span(e), format!("{} has no instruction for this", self.target))
            .note(format!("the hardware instruction behind {what} exists from {needed} on"))
            .help(format!("build for {needed} or newer (`--arch {needed}`), or {instead}"));
            self.diagnostics.push(d);
        }
    }
}

impl Limits<'_> {
    /// The element type of a builtin call's first argument, if it is an array (an atomic's).
    fn first_argument_element(&self, call: ExprId) -> Option<Type> {
        let ExprKind::Call { args, .. } = self.module.expr(call) else { return None };
        self.info.type_of(*args.first()?).element().cloned()
    }
}

/// A fixed-size shared or local array declared in a body.
struct ArrayDecl {
    space: MemorySpace,
    bytes: u64,
    span: Span,
}

/// What one body declares and uses, gathered in one walk.
#[derive(Default)]
struct BodyFacts {
    arrays: Vec<ArrayDecl>,
    callees: Vec<FunctionId>,
    constants: Vec<ConstantId>,
}

struct Limits<'a> {
    module: &'a Module,
    info: &'a TypeInfo,
    target: Target,
    diagnostics: Vec<Diagnostic>,
    /// Declarations already reported (a function's array is reached from several kernels).
    reported: FxHashSet<Span>,
}

/// `E0220` for every resource limit of `target` the program crosses.
pub fn check(module: &Module, info: &TypeInfo, target: Target) -> Vec<Diagnostic> {
    let mut limits = Limits { module, info, target, diagnostics: Vec::new(), reported: FxHashSet::default() };
    // What a branch that never runs declares, calls or uses is not emitted, so it takes no resources.
    let never_run = crate::constant_if::never_run(module, info);
    let (mut items, builtin_uses) = limits.item_facts(&never_run);
    let mut used_constants = Vec::new();
    for facts in &items {
        used_constants.extend(facts.constants.iter().copied());
    }
    let functions: Vec<BodyFacts> =
        info.functions.iter().map(|f| items.get_mut(f.item).map(std::mem::take).unwrap_or_default()).collect();
    let mut marks = vec![0u32; functions.len()];
    for (index, kernel_info) in info.kernels.iter().enumerate() {
        let Some(Item::Kernel(kernel)) = module.items.get(kernel_info.item) else { continue };
        let facts = items.get(kernel_info.item).map(|f| f as &BodyFacts).unwrap_or(&EMPTY);
        limits.check_parameters(index, kernel);
        limits.check_launch_bounds(kernel);
        let reached = reachable(facts, &functions, &mut marks, index as u32 + 1);
        for space in [MemorySpace::Shared, MemorySpace::Local] {
            let arrays = facts.arrays.iter().chain(reached.iter().flat_map(|f| &functions[f.0 as usize].arrays));
            limits.check_arrays(kernel, space, arrays.filter(|a| a.space == space));
        }
    }
    limits.check_constant_arrays(used_constants);
    limits.check_builtin_architectures(builtin_uses);
    limits.diagnostics
}

static EMPTY: BodyFacts = BodyFacts { arrays: Vec::new(), callees: Vec::new(), constants: Vec::new() };

/// The functions a body calls, directly or not, each once. `marks` (one per function, kept from body to body so
/// that no set is allocated per kernel) holds `mark` for the functions met in this body; `mark` differs for each
/// body.
fn reachable(root: &BodyFacts, functions: &[BodyFacts], marks: &mut [u32], mark: u32) -> Vec<FunctionId> {
    let mut order = Vec::new();
    let mut stack: Vec<FunctionId> = root.callees.iter().rev().copied().collect();
    while let Some(f) = stack.pop() {
        let met = match marks.get_mut(f.0 as usize) {
            Some(slot) => std::mem::replace(slot, mark) == mark,
            // Not a function of the table (never so for a checked program): looked for in the list.
            None => order.contains(&f),
        };
        if met {
            continue;
        }
        order.push(f);
        if let Some(facts) = functions.get(f.0 as usize) {
            stack.extend(facts.callees.iter().rev().copied());
        }
    }
    order
}

impl Limits<'_> {
    /// What each item's body declares and uses, by item index. A node's children are allocated before it and items
    /// are parsed in order, so an item's body is the range of nodes after the previous item's and up to its root. A
    /// constant's value (folded at compile time) counts for no item. Only the nodes that can contribute are visited:
    /// the resolved names (`TypeInfo::resolutions`) and the declarations (`TypeInfo::declared_local`), each placed
    /// in its item's range; scanning every node of every body cost more than the rest of the check.
    ///
    /// The same pass over the resolutions gathers, for `check_builtin_architectures`, the uses of builtins that may
    /// need a newer architecture, anywhere but in a branch that never runs.
    fn item_facts(&self, never_run: &[bool]) -> (Vec<BodyFacts>, Vec<(ExprId, &'static Builtin)>) {
        let module = self.module;
        let mut out: Vec<BodyFacts> = module.items.iter().map(|_| BodyFacts::default()).collect();
        let ranges = body_ranges(module);
        let mut find = RangeFinder { ranges: &ranges, at: 0 };
        // A node that declares an array counts as the array only (as a scan of the body matched it first).
        let counts = |e: ExprId| {
            !never_run.get(e.index()).copied().unwrap_or(false)
                && !matches!(module.exprs.get(e.index()), Some(ExprKind::LetArray { .. }) | None)
        };
        let mut builtin_uses = Vec::new();
        for (&e, resolution) in &self.info.resolutions {
            if let Resolution::Builtin(builtin) = *resolution {
                let builtin = builtin.get();
                if may_need_newer_architecture(builtin) && !never_run.get(e.index()).copied().unwrap_or(false) {
                    builtin_uses.push((e, builtin));
                }
                continue;
            }
            let (Resolution::Function(_) | Resolution::Constant(_)) = resolution else { continue };
            let Some(item) = find.item_of(e) else { continue };
            if !counts(e) {
                continue;
            }
            match *resolution {
                Resolution::Function(f) => out[item].callees.push(f),
                Resolution::Constant(c) => out[item].constants.push(c),
                _ => {}
            }
        }
        // Each item's arrays in node order, as a scan of the body found them, for the sort below.
        let mut arrays: Vec<(usize, ExprId)> = Vec::new();
        for &e in self.info.declared_local.keys() {
            if !matches!(module.exprs.get(e.index()), Some(ExprKind::LetArray { .. })) {
                continue;
            }
            if never_run.get(e.index()).copied().unwrap_or(false) {
                continue;
            }
            if let Some(item) = find.item_of(e) {
                arrays.push((item, e));
            }
        }
        arrays.sort_unstable();
        for (item, e) in arrays {
            out[item].arrays.extend(self.array_decl(e));
        }
        for facts in &mut out {
            // Source order (a `let`'s node comes after its body's; the sort is stable), each callee once.
            facts.arrays.sort_by_key(|a| (a.span.file, a.span.start));
            facts.callees.sort_unstable();
            facts.callees.dedup();
        }
        (out, builtin_uses)
    }

    fn array_decl(&self, e: ExprId) -> Option<ArrayDecl> {
        let local = self.info.declared_local.get(&e)?;
        let local = self.info.locals.get(local.0 as usize)?;
        let Type::Array { space, size: ArraySize::Const(_), .. } = &local.ty else { return None };
        // Every element, through every dimension of a multi-dimensional array (rows are stored whole).
        let elements = local.ty.total_elements()?;
        let layout = self.info.c_layout(local.ty.innermost_element())?;
        Some(ArrayDecl { space: *space, bytes: layout.size.saturating_mul(elements), span: local.span })
    }

    /// The parameters as NVRTC lays them out (each at its alignment, in order); unit parameters are not passed.
    fn check_parameters(&mut self, index: usize, kernel: &Kernel) {
        let mut bytes = 0u64;
        for (param, decl) in self.info.kernels[index].params.iter().zip(&kernel.params) {
            let Some(layout) = self.info.c_layout(&param.ty) else { continue };
            bytes = bytes.div_ceil(layout.align) * layout.align + layout.size;
            if bytes > target::PARAMETER_BYTES {
                let d = self
                    .error(format!(
                        "the parameters of kernel `{}` take more than the parameter space",
                        kernel.name.name
                    ))
                    .primary(decl.span, format!("the parameters up to this one take {} bytes", grouped(bytes)))
                    .note(format!(
                        "a kernel's parameters may take at most {} bytes on {} (and on every architecture NVRTC 13 \
                         compiles for)",
                        grouped(target::PARAMETER_BYTES),
                        self.target
                    ))
                    .help("pass large data in a vector");
                self.diagnostics.push(d);
                return;
            }
        }
    }

    fn check_launch_bounds(&mut self, kernel: &Kernel) {
        let Some(LaunchBounds { max_threads, min_blocks, span }) = kernel.launch_bounds else { return };
        let threads = u64::from(max_threads);
        let blocks = u64::from(min_blocks.unwrap_or(1));
        let arch = self.target;
        let (label, note) = if threads > target::MAX_THREADS_PER_BLOCK {
            (
                format!("{threads} threads per block"),
                format!("a block has at most {} threads", target::MAX_THREADS_PER_BLOCK),
            )
        } else if blocks > arch.max_blocks_per_sm() {
            (
                format!("{blocks} blocks per multiprocessor"),
                format!("{arch} keeps at most {} blocks on a multiprocessor", arch.max_blocks_per_sm()),
            )
        } else if threads.div_ceil(32) * 32 * blocks > arch.max_threads_per_sm() {
            (
                format!("{blocks} blocks of {} threads (whole warps) per multiprocessor", threads.div_ceil(32) * 32),
                format!("{arch} keeps at most {} threads on a multiprocessor", grouped(arch.max_threads_per_sm())),
            )
        } else {
            return;
        };
        let d = self
            .error(format!("the launch bounds of kernel `{}` cannot be met on {arch}", kernel.name.name))
            .primary(span, label)
            .note(note)
            .help("lower the bounds, or check for another architecture with `--arch`; ptxas would ignore them");
        self.diagnostics.push(d);
    }

    fn check_arrays<'b>(&mut self, kernel: &Kernel, space: MemorySpace, arrays: impl Iterator<Item = &'b ArrayDecl>) {
        let (limit, what, help) = match space {
            MemorySpace::Shared => (
                target::STATIC_SHARED_BYTES,
                "static shared memory of a block",
                "use smaller tiles, or one dynamic shared array (its size a kernel parameter) for more",
            ),
            MemorySpace::Local => {
                (target::LOCAL_BYTES_PER_THREAD, "local memory of a thread", "keep large per-thread data in a vector")
            }
        };
        let mut bytes = 0u64;
        for array in arrays {
            // Each array at a 16-byte boundary: an upper bound of the padding ptxas may add between them.
            bytes = bytes.div_ceil(16) * 16 + array.bytes;
            if bytes > limit {
                if self.reported.insert(array.span) {
                    let d = self
                        .error(format!("kernel `{}` needs more {what} than {} has", kernel.name.name, self.target))
                        .primary(array.span, format!("the arrays up to this one take {} bytes", grouped(bytes)))
                        .secondary(kernel.name.span, "in this kernel (its own arrays, then those of its callees)")
                        .note(format!(
                            "the {what} is at most {} bytes on {} (and on every architecture NVRTC 13 compiles for)",
                            grouped(limit),
                            self.target
                        ))
                        .help(help);
                    self.diagnostics.push(d);
                }
                return;
            }
        }
    }

    /// Every constant array a function or kernel reads is one `__constant__` array of the program.
    fn check_constant_arrays(&mut self, used: Vec<ConstantId>) {
        let used: FxHashSet<ConstantId> = used.into_iter().collect();
        let mut arrays: Vec<(usize, u64, Span)> = used
            .iter()
            .filter_map(|c| {
                let info = self.info.constants.get(c.0 as usize)?;
                let Type::ConstArray { elem, size } = &info.ty else { return None };
                let bytes = self.info.c_layout(elem)?.size.saturating_mul(u64::from(*size));
                let span = match self.module.items.get(info.item) {
                    Some(Item::Constant(constant)) => constant.name.span,
                    _ => info.span,
                };
                Some((info.item, bytes, span))
            })
            .collect();
        arrays.sort_unstable();
        let mut bytes = 0u64;
        for (_, size, span) in arrays {
            bytes = bytes.div_ceil(16) * 16 + size;
            if bytes > target::CONSTANT_BYTES {
                let d = self
                    .error(format!("the program's constant arrays need more constant memory than {} has", self.target))
                    .primary(span, format!("the constant arrays up to this one take {} bytes", grouped(bytes)))
                    .note(format!(
                        "the constant arrays that kernels and functions read share {} bytes of constant memory on {} \
                         (and on every architecture NVRTC 13 compiles for)",
                        grouped(target::CONSTANT_BYTES),
                        self.target
                    ))
                    .help("put large tables in a vector, passed as a kernel parameter");
                self.diagnostics.push(d);
                return;
            }
        }
    }

    fn error(&self, message: String) -> Diagnostic {
        Diagnostic::error("E0220", message)
    }
}

/// The range of nodes `(first, last)` of each kernel's and function's body, with the item's index, in arena
/// order (see `Limits::item_facts`); empty ranges are left out.
fn body_ranges(module: &Module) -> Vec<(usize, usize, usize)> {
    let mut ranges = Vec::new();
    let mut start = 0usize;
    for (index, item) in module.items.iter().enumerate() {
        let root = match item {
            Item::Kernel(kernel) => kernel.body,
            Item::Function(function) => function.body,
            Item::Constant(constant) => {
                start = start.max(constant.value.index() + 1);
                continue;
            }
            _ => continue,
        };
        let end = root.index().min(module.exprs.len().saturating_sub(1));
        if start <= end && end < module.exprs.len() {
            ranges.push((start, end, index));
        }
        start = start.max(end + 1);
    }
    ranges
}

/// Finds the body range of a node: the ranges are ascending and disjoint, and the tables it is asked about list
/// nodes mostly item by item, so the range of the last answer is tried first.
struct RangeFinder<'r> {
    ranges: &'r [(usize, usize, usize)],
    at: usize,
}

impl RangeFinder<'_> {
    fn item_of(&mut self, e: ExprId) -> Option<usize> {
        let index = e.index();
        let inside = |&(first, last, _): &(usize, usize, usize)| first <= index && index <= last;
        if let Some(range) = self.ranges.get(self.at).filter(|r| inside(r)) {
            return Some(range.2);
        }
        let at = self.ranges.partition_point(|&(_, last, _)| last < index);
        let range = self.ranges.get(at).filter(|r| inside(r))?;
        self.at = at;
        Some(range.2)
    }
}

/// Can a use of `builtin` need a newer architecture than the target: has it a minimum architecture of its own, or
/// one for some element type?
fn may_need_newer_architecture(builtin: &Builtin) -> bool {
    crate::builtins::min_sm(builtin).is_some() || crate::builtins::min_sm_depends_on_element(builtin)
}

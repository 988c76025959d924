//! The convergence analysis: an operation that needs its threads converged (a block barrier, a superstep's
//! implicit barrier, a warp collective), executed where they may have diverged, is a compile error.
//!
//! Values and control flow are tracked on the lattice `Uniform <= BlockUniform <= WarpUniform <= ThreadVarying`
//! (`lattice`); `walk` interprets each kernel and device function abstractly, in program order, with loop
//! fixpoints and context-sensitive re-analysis of callees (`memo` replays a call whose context was met before);
//! `report` builds the diagnostics. The rules are stated for users in docs/language.md ("Convergence rules").

pub mod fixes;
pub mod lattice;
pub mod memo;
pub mod report;
pub mod walk;

#[cfg(test)]
mod tests;

use crate::diagnostic::Diagnostic;
use crate::source::Span;
use crate::syntax::ast::{ExprId, Module};
use crate::types::{FunctionId, TypeInfo};

pub use lattice::Uniformity;

/// Where a non-uniform value comes from, for hovers: its first source and the sentence that explains it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueSource {
    pub span: Span,
    pub message: String,
}

/// The uniformity of every expression of every kernel and function, analysed on its own (parameters of device
/// functions taken as uniform), for the language server's hover.
#[derive(Clone, Debug, Default)]
pub struct UniformityInfo {
    levels: Vec<Uniformity>,
    /// The handle in `facts` of each expression's first source, `NO_SOURCE` for none. Its sentence is worded only
    /// when asked for ([`UniformityInfo::source`]): a hover needs one, and wording every one was a visible part of
    /// the analysis.
    source_of: Vec<u32>,
    /// The explanation steps of the analysis (given at its end), which the sources are handles into: keeping them
    /// costs nothing more, where copying each first source out of them cost a copy per source and the copies of a
    /// growing vector.
    facts: lattice::Facts,
    /// The highest level of conditions and indices over every context they were analysed in (see
    /// `level_in_any_context`).
    context_levels: Vec<Option<Uniformity>>,
    /// The lowest level of each expression over the contexts a kernel reaches it in (see `level_in_every_context`).
    kernel_min_levels: Vec<Option<Uniformity>>,
    /// Every `if` whose condition is thread-varying in some context, in arena order.
    varying_ifs: Vec<ExprId>,
    /// While a loop's rounds report speculatively (`walk::speculation`): what `set` changed, to undo it.
    journal: Option<Box<InfoJournal>>,
    /// The journal of the last speculation, emptied, for the next one: its vectors keep their room instead of
    /// growing again from empty for every loop.
    spare_journal: Option<Box<InfoJournal>>,
}

/// The changes of [`UniformityInfo::set`] while a speculation is open: each expression's level and source before
/// a change.
#[derive(Clone, Debug, Default)]
struct InfoJournal {
    expressions: Vec<(u32, Uniformity, u32)>,
}

/// Where the journal of [`UniformityInfo`] stood when a speculation started.
pub(crate) struct InfoMark {
    expressions: usize,
}

const NO_SOURCE: u32 = u32::MAX;

impl UniformityInfo {
    pub fn new(expr_count: usize) -> UniformityInfo {
        UniformityInfo {
            levels: vec![Uniformity::Uniform; expr_count],
            source_of: vec![NO_SOURCE; expr_count],
            facts: lattice::Facts::default(),
            context_levels: Vec::new(),
            kernel_min_levels: Vec::new(),
            varying_ifs: Vec::new(),
            journal: None,
            spare_journal: None,
        }
    }

    #[inline]
    fn set(&mut self, e: ExprId, value: &lattice::Value, names: report::Names) {
        let Some(slot) = self.levels.get_mut(e.index()) else { return };
        // Nothing to learn: no higher level, and either a source already or none to give (most expressions).
        if value.level <= *slot && (value.origin.is_none() || self.source_of[e.index()] != NO_SOURCE) {
            return;
        }
        if let Some(journal) = self.journal.as_mut() {
            journal.expressions.push((e.index() as u32, *slot, self.source_of[e.index()]));
        }
        *slot = (*slot).max(value.level);
        let Some((id, _)) = names.facts.root(*value) else { return };
        self.source_of[e.index()] = id.index() as u32;
    }

    /// Starts (or, nested, marks) the journal of `set`.
    fn begin_journal(&mut self) -> InfoMark {
        let spare = &mut self.spare_journal;
        let journal = self.journal.get_or_insert_with(|| spare.take().unwrap_or_default());
        InfoMark { expressions: journal.expressions.len() }
    }

    /// Ends the journal: what `set` changed stands.
    fn end_journal(&mut self) {
        if let Some(mut journal) = self.journal.take() {
            journal.expressions.clear();
            self.spare_journal = Some(journal);
        }
    }

    /// Undoes what `set` changed since `mark`.
    fn undo_journal(&mut self, mark: InfoMark) {
        let Some(journal) = self.journal.as_mut() else { return };
        for (index, level, source) in journal.expressions.drain(mark.expressions..).rev() {
            self.levels[index as usize] = level;
            self.source_of[index as usize] = source;
        }
    }

    pub fn level(&self, e: ExprId) -> Uniformity {
        self.levels.get(e.index()).copied().unwrap_or(Uniformity::Uniform)
    }

    /// For the condition of an `if` or the index of an element access, the highest level `e` reached in any
    /// context: on its own, and inside a device function also in every call's context (arguments as the caller
    /// passes them); for other expressions the level on its own, `level` (what hovers show).
    pub fn level_in_any_context(&self, e: ExprId) -> Uniformity {
        self.context_levels.get(e.index()).copied().flatten().unwrap_or_else(|| self.level(e))
    }

    /// For the condition of an `if` or the index of an element access, the lowest level `e` has in the contexts
    /// that kernels reach it in (every call of a device function from a kernel, directly or not); for code no kernel
    /// reaches and for other expressions, the level on its own.
    pub fn level_in_every_context(&self, e: ExprId) -> Uniformity {
        self.kernel_min_levels.get(e.index()).copied().flatten().unwrap_or_else(|| self.level(e))
    }

    /// The `if`s whose condition is thread-varying in some context, in arena order (what lints about divergent
    /// branches start from, instead of scanning every expression).
    pub fn thread_varying_ifs(&self) -> &[ExprId] {
        &self.varying_ifs
    }

    /// The first source of `e`'s level and its sentence; `module` and `types` are those the analysis ran on.
    pub fn source(&self, e: ExprId, module: &Module, types: &TypeInfo) -> Option<ValueSource> {
        let index = *self.source_of.get(e.index())?;
        let root = self.facts.origin_at(index as usize)?;
        let message = report::origin_message(root, report::Words { module, types });
        Some(ValueSource { span: root.span, message })
    }
}

/// Checks every kernel and device function of `module`.
/// `full_warps`: the host launches blocks of whole warps only ([`crate::driver::CheckOptions::full_warps`]).
pub fn analyse(module: &Module, types: &TypeInfo, full_warps: bool) -> (UniformityInfo, Vec<Diagnostic>) {
    let mut walker = walk::Walker::new(module, types);
    walker.full_warps = full_warps;
    run(walker, types)
}

/// The analysis, with what its errors ask of [`fixes`]: the driver decides whether it wants the edits that would
/// fix them ([`Analysis::propose_fixes`]) once the analysis has run and the checks beside it are known.
pub struct Analysis {
    pub info: UniformityInfo,
    pub diagnostics: Vec<Diagnostic>,
    requests: Requests,
}

impl Analysis {
    /// The edits that would fix the analysis' errors: `(index in the diagnostics, edit)`, not yet attached (the
    /// driver checks each first).
    pub fn propose_fixes(
        &self,
        module: &Module,
        types: &TypeInfo,
        sources: &crate::source::SourceMap,
    ) -> Vec<(usize, fixes::Fix)> {
        fixes::propose(module, types, &self.info, sources, &self.requests)
    }
}

/// [`analyse`], keeping what [`Analysis::propose_fixes`] needs.
pub fn analyse_keeping_requests(module: &Module, types: &TypeInfo, full_warps: bool) -> Analysis {
    let mut walker = walk::Walker::new(module, types);
    walker.full_warps = full_warps;
    let (info, diagnostics, requests) = run_keeping_requests(walker, types);
    Analysis { info, diagnostics, requests }
}

/// [`analyse`], with the memoized calls (`memo`) on or off: off, every call is analysed again, the reference
/// the tests compare the memoized analysis with.
pub fn analyse_with(module: &Module, types: &TypeInfo, memoize: bool) -> (UniformityInfo, Vec<Diagnostic>) {
    let mut walker = walk::Walker::new(module, types);
    walker.memoize = memoize;
    run(walker, types)
}

fn run(walker: walk::Walker<'_>, types: &TypeInfo) -> (UniformityInfo, Vec<Diagnostic>) {
    let (info, diagnostics, _) = run_keeping_requests(walker, types);
    (info, diagnostics)
}

type Requests = Vec<(usize, fixes::FixRequest)>;

fn run_keeping_requests(mut walker: walk::Walker<'_>, types: &TypeInfo) -> (UniformityInfo, Vec<Diagnostic>, Requests) {
    for kernel in 0..types.kernels.len() {
        walker.kernel(kernel);
    }
    for function in 0..types.functions.len() {
        walker.function(FunctionId(function as u32));
    }
    let mut info = walker.info;
    info.facts = walker.facts;
    info.context_levels = walker.context_levels;
    info.kernel_min_levels = walker.kernel_min_levels;
    info.varying_ifs = walker.varying_ifs;
    info.varying_ifs.sort_unstable();
    (info, walker.diagnostics, walker.fix_requests)
}

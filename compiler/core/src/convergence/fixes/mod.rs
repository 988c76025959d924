//! Edits that fix a divergence error (E0001, E0002, E0003, E0004, E0006): computed after the analysis from what it
//! recorded about each error (the constructs that made control flow diverge, innermost first, and the first
//! thread-varying source), offered as the diagnostic's [`Suggestion`](crate::diagnostic::Suggestion).
//!
//! The rule every edit keeps: in a program whose threads in fact agree where the analysis could not prove it (a
//! correct program), the edited program computes the same thing. So an edit only guards code with a condition
//! computed once where the original computed it, moves nothing across an effect, and makes extra threads evaluate
//! only expressions that have no effect and cannot fault (no loads, no calls, no division by a variable). Where
//! that cannot be shown, no edit is offered and the help stays in words. A broken program (threads that disagree)
//! is changed by design: the help says how. The driver then checks each edit by checking the edited file again
//! and drops an edit that does not remove the error (`driver::verify_fixes`).
//!
//! `guard`: the rewrites of control flow (split a branch around the operation, guard the rest with a flag instead
//! of returning, shuffle in every lane and use the result under the condition); `loops`: a loop whose trip count
//! varies iterates while some thread runs, with its work guarded; `cause`: the rewrites of the
//! thread-varying source (`uniform_load`, warp-index arithmetic) and of a superstep's marker.

mod cause;
mod guard;
mod loops;
mod syntax;

use crate::diagnostic::{Applicability, Diagnostic};
use crate::source::{SourceMap, Span};
use crate::syntax::ast::{ExprId, Module};
use crate::types::TypeInfo;

use super::lattice::{DivergenceKind, OriginKind, Uniformity};
use super::UniformityInfo;

/// Which group of threads an operation needs together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Block,
    Warp,
}

/// One construct that made control flow diverge: its kind, its span (a condition, loop bounds, an exit) and how
/// varying the value it decided on is (uniform for exits and calls).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    pub kind: DivergenceKind,
    pub span: Span,
    pub level: Uniformity,
}

/// What the analysis knew about an error when it reported it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FixRequest {
    /// An operation (`op`: its span) that needs `scope` converged to at most `limit`, in control flow that diverged
    /// through `chain` (innermost first); `root`: the first thread-varying source behind the innermost construct
    /// that decided on a value.
    Converge { scope: Scope, op: Span, chain: Vec<Link>, root: Option<(OriginKind, Span)>, limit: Uniformity },
    /// E0004: a plain superstep (its span) with divergence inside.
    MarkDivergent { superstep: Span },
    /// E0006: an operand that must be warp-uniform and may not be.
    Broadcast { operand: ExprId },
}

/// An edit for one diagnostic, with the sentence the help gains when it is offered (what the edit does).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub message: String,
    pub help: String,
    pub span: Span,
    pub replacement: String,
    pub applicability: Applicability,
}

impl Fix {
    /// `diagnostic` with this edit as its suggestion, and its help saying what the edit does.
    pub fn apply(self, mut diagnostic: Diagnostic) -> Diagnostic {
        diagnostic.help = Some(match diagnostic.help.take() {
            Some(words) => format!("{words}. The suggested edit {}", self.help),
            None => format!("The suggested edit {}", self.help),
        });
        match self.applicability {
            Applicability::MachineApplicable => diagnostic.suggest(self.message, self.span, self.replacement),
            Applicability::MaybeIncorrect => {
                diagnostic.suggest_maybe_incorrect(self.message, self.span, self.replacement)
            }
        }
    }
}

/// The edit for each request that has one: `(index in the diagnostics, edit)`. Only edits inside `root`'s file.
pub fn propose(
    module: &Module,
    types: &TypeInfo,
    info: &UniformityInfo,
    sources: &SourceMap,
    requests: &[(usize, FixRequest)],
) -> Vec<(usize, Fix)> {
    if requests.is_empty() {
        return Vec::new();
    }
    let fixer = syntax::Fixer::new(module, types, info, sources);
    requests
        .iter()
        .filter_map(|(index, request)| {
            let fix = match request {
                FixRequest::Converge { chain, .. } if chain.iter().any(|link| is_match_test(&fixer, link)) => None,
                FixRequest::Converge { scope, op, chain, root, limit } => {
                    let request = Converge { scope: *scope, op: *op, chain, root: *root, limit: *limit };
                    cause::fix(&fixer, &request).or_else(|| guard::fix(&fixer, &request))
                }
                FixRequest::MarkDivergent { superstep } => cause::mark_divergent(&fixer, *superstep),
                FixRequest::Broadcast { operand } => cause::broadcast(&fixer, *operand),
            }?;
            (fix.span.file == crate::source::FileId(0)).then_some((*index, fix))
        })
        .collect()
}

/// Is `link` the test of an arm of a `match`? The parser wrote it (`{match0}.Tag_t = 1`, spanning the `match`
/// and its scrutinee), so its text is not a condition an edit could copy: no edit is offered through one.
fn is_match_test(f: &syntax::Fixer, link: &Link) -> bool {
    use crate::syntax::ast::ExprKind;
    let reads_matched_value = |kind: &ExprKind| matches!(kind, ExprKind::Var(p) if p.name.name.starts_with(crate::syntax::MATCH_VALUE_PREFIX));
    link.kind == DivergenceKind::Branch && f.find(link.span, reads_matched_value).is_some()
}

/// A [`FixRequest::Converge`], borrowed.
struct Converge<'r> {
    scope: Scope,
    op: Span,
    chain: &'r [Link],
    root: Option<(OriginKind, Span)>,
    limit: Uniformity,
}

impl Converge<'_> {
    /// Do the constructs outside the innermost one (`chain[skip..]`) leave control converged enough for the
    /// operation? Exits and calls never do (the threads they remove are not back); branches and loops do when
    /// they decide on values at most `limit`.
    fn outer_converged(&self, skip: usize) -> bool {
        self.chain.iter().skip(skip).all(|link| {
            matches!(
                link.kind,
                DivergenceKind::Branch
                    | DivergenceKind::Loop
                    | DivergenceKind::LoopCondition
                    | DivergenceKind::ShortCircuit
            ) && link.level <= self.limit
        })
    }
}

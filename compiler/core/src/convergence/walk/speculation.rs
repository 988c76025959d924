//! Rounds of a loop run with reporting on, in the expectation that each is the fixpoint.
//!
//! A loop is analysed in rounds until the locals it assigns, its exit taints and what a round carries stop
//! changing; where its caller reports, one more round then ran from the fixpoint with reporting on
//! (`control::fixpoint`), repeating the last round from the same state (joins keep the first of equal levels, so
//! the state a round that changes nothing leaves is the state it started from). So where reporting is on, every
//! round reports, and everything reporting did is undone if the round turns out not to be the fixpoint: the
//! diagnostics and their fix requests, the deduplication keys of `seen`, the kernel minimum levels, the uniformity
//! information (`UniformityInfo::set`), and the call analyses kept in the memo (a replay of one would skip what its
//! analysis recorded). Reporting changes no value, so the rounds and the fixpoint are those of the rounds with
//! reporting off; a loop whose first round is the fixpoint (most) is walked once instead of twice.
//!
//! Speculations nest (a loop in a loop): the journal below records changes while any is open, and each undoes
//! back to its own mark.

use crate::source::Span;

use super::super::lattice::Uniformity;
use super::super::memo::CallKey;
use super::Walker;

/// What reporting changed while a speculation is open, in order.
#[derive(Default)]
pub(super) struct Journal {
    open: u32,
    seen: Vec<(&'static str, Span, Option<Span>)>,
    kernel_min_levels: Vec<(usize, Option<Uniformity>)>,
    calls: Vec<CallKey>,
}

/// The state of everything reporting changes, when a speculation starts.
pub(super) struct Mark {
    diagnostics: usize,
    fix_requests: usize,
    seen: usize,
    kernel_min_levels: usize,
    calls: usize,
    info: super::super::InfoMark,
}

impl Journal {
    pub(super) fn is_open(&self) -> bool {
        self.open > 0
    }

    fn clear(&mut self) {
        self.seen.clear();
        self.kernel_min_levels.clear();
        self.calls.clear();
    }
}

impl Walker<'_> {
    /// Starts a speculation: from here, what reporting changes is journaled.
    pub(super) fn begin_speculation(&mut self) -> Mark {
        self.journal.open += 1;
        Mark {
            diagnostics: self.diagnostics.len(),
            fix_requests: self.fix_requests.len(),
            seen: self.journal.seen.len(),
            kernel_min_levels: self.journal.kernel_min_levels.len(),
            calls: self.journal.calls.len(),
            info: self.info.begin_journal(),
        }
    }

    /// The speculation held: what it reported stands (and is undone with an enclosing speculation that fails).
    pub(super) fn keep_speculation(&mut self) {
        self.journal.open -= 1;
        if self.journal.open == 0 {
            // Emptied, not replaced: the vectors keep their room for the next loop.
            self.journal.clear();
            self.info.end_journal();
        }
    }

    /// The speculation failed: everything reporting changed since `mark` is undone.
    pub(super) fn undo_speculation(&mut self, mark: Mark) {
        self.diagnostics.truncate(mark.diagnostics);
        self.fix_requests.truncate(mark.fix_requests);
        for key in self.journal.seen.drain(mark.seen..) {
            self.seen.remove(&key);
        }
        for (index, old) in self.journal.kernel_min_levels.drain(mark.kernel_min_levels..).rev() {
            self.kernel_min_levels[index] = old;
        }
        for key in self.journal.calls.drain(mark.calls..) {
            self.calls.remove(&key);
        }
        self.info.undo_journal(mark.info);
        self.keep_speculation();
    }

    /// Journals a diagnostic's deduplication key just inserted into `seen`.
    pub(super) fn journal_seen(&mut self, key: (&'static str, Span, Option<Span>)) {
        if self.journal.is_open() {
            self.journal.seen.push(key);
        }
    }

    /// Journals the kernel minimum level of `index` before a change.
    pub(super) fn journal_kernel_min_level(&mut self, index: usize, old: Option<Uniformity>) {
        if self.journal.is_open() {
            self.journal.kernel_min_levels.push((index, old));
        }
    }

    /// Journals a call analysis kept in the memo.
    pub(super) fn journal_call(&mut self, key: CallKey) {
        if self.journal.is_open() {
            self.journal.calls.push(key);
        }
    }
}

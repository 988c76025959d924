//! A builder of one part of a file (`syntax::split`): what it leaves besides the module it built, and how the
//! builder of the parts before it takes that over.
//!
//! A part's builder starts empty, where the builder of the whole file would have had the state the parts before
//! left. Most of that state is never read across items; what is (the bare kernels, tuple patterns and `match`es
//! counted so far, which number hidden names; the variant types and records declared so far) decides whether
//! the part may be taken: see [`Builder::can_take`].

use super::*;
use crate::syntax::split::{shift_expr_id, shift_local_function};

/// What a part's builder leaves, besides the module it built into.
pub(crate) struct Part {
    diagnostics: Vec<Diagnostic>,
    attribute_errors: Vec<Diagnostic>,
    pending_literals: Vec<(ExprId, Diagnostic)>,
    local_functions: Vec<LocalFunction>,
    bare_kernels: u32,
    tuple_names: u32,
    match_names: u32,
    variants: Vec<variants::Variant>,
    looked_up_records: bool,
}

impl Builder<'_> {
    /// This builder's state, when it built a part of a file without syntax errors (so without recoveries).
    pub(crate) fn into_part(self) -> Part {
        // Every field by name, so that one added to `Builder` is placed here or among those not carried over.
        let Builder {
            text: _,
            file: _,
            module: _,
            diagnostics,
            attribute_errors,
            recoveries,
            default_kernel_name: _,
            bare_kernels,
            pending_literals,
            // Scratch memory, and tuples waiting for the `let` or the array size that reads them: empty or
            // unread once the part's items are complete.
            operators: _,
            local_functions,
            pending_tuples: _,
            tuple_binders: _,
            tuple_names,
            variants,
            match_names,
            looked_up_records,
        } = self;
        debug_assert!(recoveries.is_empty(), "a part is parsed only when it has no syntax error");
        Part {
            diagnostics,
            attribute_errors,
            pending_literals,
            local_functions,
            bare_kernels,
            tuple_names,
            match_names,
            variants,
            looked_up_records: looked_up_records.get(),
        }
    }

    /// Whether `part`, built by a builder that started empty, is what this builder would have built from the same
    /// tokens: nothing the part's actions read across items differs between the two.
    /// - a hidden name's number: each counter was zero here, or the part counted none;
    /// - a constructor: no variant type was declared here (the part's names would have found its constructors);
    /// - a record: the part looked none up (a variant's payload names a record declared before it).
    pub(crate) fn can_take(&self, part: &Part) -> bool {
        let disjoint = |here: u32, there: u32| here == 0 || there == 0;
        disjoint(self.bare_kernels, part.bare_kernels)
            && disjoint(self.tuple_names, part.tuple_names)
            && disjoint(self.match_names, part.match_names)
            && self.variants.is_empty()
            && !part.looked_up_records
    }

    /// Takes over `part`'s state (after [`Builder::can_take`]), its expression ids moved up by `shift` (the
    /// number of expressions before its module's in this builder's).
    pub(crate) fn take(&mut self, part: Part, shift: u32) {
        let Part {
            mut diagnostics,
            mut attribute_errors,
            pending_literals,
            local_functions,
            bare_kernels,
            tuple_names,
            match_names,
            mut variants,
            looked_up_records,
        } = part;
        self.diagnostics.append(&mut diagnostics);
        self.attribute_errors.append(&mut attribute_errors);
        self.pending_literals.extend(pending_literals.into_iter().map(|(id, d)| (shift_expr_id(id, shift), d)));
        self.local_functions.extend(local_functions.into_iter().map(|mut f| {
            shift_local_function(&mut f, shift);
            f
        }));
        self.bare_kernels += bare_kernels;
        self.tuple_names += tuple_names;
        self.match_names += match_names;
        self.variants.append(&mut variants);
        if looked_up_records {
            self.looked_up_records.set(true);
        }
    }
}

//! Reading a range of nodes ahead of a walk over them. A walk of the tree loads node after node, each found in the
//! one before: on a large file nearly every one is a miss of the cache, waited for alone. A read of the same nodes
//! in arena order has no such chain, so the processor fetches them in parallel, and the walk that follows finds
//! them in the cache. The passes after type checking (the convergence analysis, the lints) spent most of their
//! time waiting on those misses. What is read is thrown away: only the cache keeps it.

use std::ops::Range;

use crate::syntax::ast::{ExprId, ExprKind, Module};
use crate::types::TypeInfo;

/// Bytes in a line of the cache: one read per line brings all of it.
const LINE: usize = 64;

/// Reads the nodes `range` (indices into `Module::exprs`) and their resolutions.
pub(crate) fn nodes(module: &Module, types: &TypeInfo, range: Range<u32>) {
    let range = range.start as usize..(range.end as usize).min(module.exprs.len());
    let mut seen = table(&module.exprs, range.clone(), |kind| matches!(kind, ExprKind::Unit) as u32);
    // Reached through `TypeInfo::resolution`, one entry at a time (16 bytes each: four to a line).
    for index in range.step_by(LINE / 16) {
        seen += types.resolution(ExprId(index as u32)).is_some() as u32;
    }
    std::hint::black_box(seen);
}

/// Reads the spans of the nodes `range` and the locals they declare (for walks that look at those too).
pub(crate) fn spans_and_declarations(module: &Module, types: &TypeInfo, range: Range<u32>) {
    let range = range.start as usize..(range.end as usize).min(module.exprs.len());
    let mut seen = table(&module.expr_spans, range.clone(), |span| span.start);
    // Reached through `ExprMap::get`, one entry at a time (8 bytes each).
    for index in range.step_by(LINE / 8) {
        seen += types.declared_local.get(&ExprId(index as u32)).is_some() as u32;
    }
    std::hint::black_box(seen);
}

/// Reads one element of each cache line of `table[range]`; returns what `read` makes of them, for the caller to
/// keep alive (`std::hint::black_box`).
pub(crate) fn table<T>(table: &[T], range: Range<usize>, read: impl Fn(&T) -> u32) -> u32 {
    let step = (LINE / std::mem::size_of::<T>().max(1)).max(1);
    let Some(slice) = table.get(range) else { return 0 };
    slice.iter().step_by(step).fold(0u32, |seen, x| seen.wrapping_add(read(x)))
}

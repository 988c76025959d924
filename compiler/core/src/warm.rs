//! Bringing the nodes of a walk into the cache ahead of it. A walk of the tree loads node after node, each found
//! in the one before: on a large file nearly every one is a miss of the cache, waited for alone. A read of the same
//! nodes in arena order has no such chain, so the processor fetches them in parallel, and the walk that follows
//! finds them in the cache. The passes after parsing spent most of their time waiting on those misses. Two ways:
//! [`nodes`] and [`table`] read one element per cache line right before a walk (what is read is thrown away: only
//! the cache keeps it); [`prefetch`] asks for the lines of the *next* walk while the current one runs (the type
//! checker, whose walks are long enough to hide the wait).

use std::ops::Range;

use crate::syntax::ast::{ExprId, ExprKind, Item, Module};
use crate::types::TypeInfo;

/// Bytes in a line of the cache: one read per line brings all of it.
const LINE: usize = 64;

/// Reads the nodes `range` (indices into `Module::exprs`) and their resolutions.
pub(crate) fn nodes(module: &Module, types: &TypeInfo, range: Range<u32>) {
    let range = range.start as usize..(range.end as usize).min(module.exprs.len());
    let mut seen = table(&module.exprs, range.clone(), |kind| matches!(kind, ExprKind::Unit) as u32);
    // Reached through `TypeInfo::resolution`, one entry at a time (8 bytes each: eight to a line).
    for index in range.step_by(LINE / 8) {
        seen += types.resolution(ExprId(index as u32)).is_some() as u32;
    }
    std::hint::black_box(seen);
}

/// Reads the spans of the nodes `range` and the locals they declare (for walks that look at those too).
pub(crate) fn spans_and_declarations(module: &Module, types: &TypeInfo, range: Range<u32>) {
    let range = range.start as usize..(range.end as usize).min(module.exprs.len());
    let mut seen = table(&module.expr_spans, range.clone(), |span| span.start);
    // Reached through `ExprMap::get`, one entry at a time (4 bytes each).
    for index in range.step_by(LINE / 4) {
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

/// The nodes of each item (indices into `Module::exprs`; empty for records and opens): the parser allocates an
/// item's nodes after those of the items before it and its root last, so they lie between the previous item's
/// root and its own.
pub(crate) fn item_ranges(module: &Module) -> Vec<Range<u32>> {
    let mut before = 0u32;
    let mut ranges = Vec::with_capacity(module.items.len());
    for item in &module.items {
        let root = match item {
            Item::Kernel(k) => k.body,
            Item::Function(f) => f.body,
            Item::Constant(c) => c.value,
            Item::Record(_) | Item::Open(_) => {
                ranges.push(0..0);
                continue;
            }
        };
        ranges.push(before.min(root.0)..root.0 + 1);
        before = before.max(root.0 + 1);
    }
    ranges
}

/// Asks the processor to bring every cache line of `values` into its cache, without waiting for them: a hint,
/// nothing where the target has no such instruction.
pub(crate) fn prefetch<T>(values: &[T]) {
    let step = (LINE / std::mem::size_of::<T>().max(1)).max(1);
    for value in values.iter().step_by(step) {
        prefetch_line(value);
    }
}

#[inline(always)]
fn prefetch_line<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing the program sees and never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((value as *const T).cast())
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

//! Which locals are in scope at an offset of the root file, for completion. A `let`'s variable is visible in its
//! body, a loop counter in its loop's body, a parameter in its item. A body the parser cut short at the cursor (a
//! half-typed `x +`) still counts up to the cursor when only blanks separate them, so completion works while a
//! line is being written.

use skc_core::syntax::ast::{ExprKind, Item};
use skc_core::types::LocalId;
use skc_core::{Checked, Span};

/// Does `span` of the root file reach `offset`: contains it, or ends before it with only blanks in between?
pub fn reaches(checked: &Checked, span: Span, offset: usize) -> bool {
    if span.file != checked.root || (span.start as usize) > offset {
        return false;
    }
    let end = span.end as usize;
    let text = &checked.sources.file(checked.root).text;
    offset <= end || text.get(end..offset).is_some_and(|between| between.trim().is_empty())
}

/// The index of the item of the root file that `offset` is in (or just after).
pub fn item_at(checked: &Checked, offset: usize) -> Option<usize> {
    let items = checked.module.items.iter().enumerate();
    items.filter(|(_, item)| reaches(checked, item.span(), offset)).map(|(index, _)| index).next_back()
}

/// The locals visible at `offset`, innermost first, one per name (an inner binding hides an outer one).
pub fn locals_at(checked: &Checked, offset: usize) -> Vec<LocalId> {
    let Some(item) = item_at(checked, offset) else { return Vec::new() };
    let types = &checked.types;
    let item_span = checked.module.items[item].span();
    // (scope start, local): a later start is an inner scope.
    let mut visible: Vec<(u32, LocalId)> =
        parameters(checked, item).into_iter().map(|l| (item_span.start, l)).collect();
    for (expr, local) in types.declared_local.iter() {
        let body = match checked.module.expr(*expr) {
            ExprKind::Let { body, .. } | ExprKind::LetArray { body, .. } | ExprKind::For { body, .. } => *body,
            _ => continue,
        };
        let body_span = checked.module.span(body);
        let declared = types.local(*local).span;
        if declared.start >= item_span.start && declared.end as usize <= offset && reaches(checked, body_span, offset) {
            visible.push((body_span.start.max(declared.end), *local));
        }
    }
    visible.sort_by_key(|(start, _)| std::cmp::Reverse(*start));
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for (_, local) in visible {
        let name = &types.local(local).name;
        // A name starting with `{` is the parser's (a record update's copy): no program can write it.
        if !name.is_empty() && !name.starts_with('{') && !seen.contains(name) {
            seen.push(name.clone());
            out.push(local);
        }
    }
    out
}

fn parameters(checked: &Checked, item: usize) -> Vec<LocalId> {
    let types = &checked.types;
    match &checked.module.items[item] {
        Item::Kernel(_) => types
            .kernels
            .iter()
            .find(|k| k.item == item)
            .map(|k| k.params.iter().map(|p| p.local).collect())
            .unwrap_or_default(),
        Item::Function(_) => types.function_of_item(item).map(|f| types.function(f).params.clone()).unwrap_or_default(),
        _ => Vec::new(),
    }
}

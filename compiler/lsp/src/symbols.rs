//! Document symbols: the kernels, functions, constants and records of the root file (records with their fields),
//! in source order.

use lsp_types::{DocumentSymbol, SymbolKind};
use skc_core::syntax::ast::Item;
use skc_core::Checked;

use crate::position::range_of;

pub fn document_symbols(checked: &Checked) -> Vec<DocumentSymbol> {
    let items = checked.module.items.iter().zip(&checked.item_files);
    items.filter(|(_, file)| **file == checked.root).filter_map(|(item, _)| symbol(checked, item)).collect()
}

fn symbol(checked: &Checked, item: &Item) -> Option<DocumentSymbol> {
    let file = checked.sources.file(checked.root);
    let (kind, detail) = match item {
        Item::Kernel(_) => (SymbolKind::FUNCTION, "kernel"),
        Item::Function(_) => (SymbolKind::FUNCTION, "function"),
        Item::Constant(_) => (SymbolKind::CONSTANT, "constant"),
        Item::Record(_) => (SymbolKind::STRUCT, "record"),
        Item::Open(_) => return None,
    };
    let children = match item {
        Item::Record(record) => Some(
            record
                .fields
                .iter()
                .map(|(name, ty)| {
                    new_symbol(
                        name.name.to_string(),
                        SymbolKind::FIELD,
                        None,
                        range_of(file, name.span.to(ty.span())),
                        range_of(file, name.span),
                        None,
                    )
                })
                .collect(),
        ),
        _ => None,
    };
    let name = item.name();
    let full = item.span().to(name.span);
    Some(new_symbol(
        name.name.to_string(),
        kind,
        Some(detail.into()),
        range_of(file, full),
        range_of(file, name.span),
        children,
    ))
}

#[allow(deprecated)] // `deprecated` is a required field of the struct even though the protocol deprecates it.
fn new_symbol(
    name: String,
    kind: SymbolKind,
    detail: Option<String>,
    range: lsp_types::Range,
    selection_range: lsp_types::Range,
    children: Option<Vec<DocumentSymbol>>,
) -> DocumentSymbol {
    // An empty name is invalid in the protocol (a recovered item may have one).
    let name = if name.is_empty() { "_".into() } else { name };
    DocumentSymbol { name, detail, kind, tags: None, deprecated: None, range, selection_range, children }
}

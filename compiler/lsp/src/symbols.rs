//! Document symbols: the kernels, functions, constants and records of the root file (records with their fields),
//! in source order, as written: the instances the compiler makes of a generic function or of one taking
//! functions (`sq__float32`, `reduce_block__add`) keep the written function's spans, and are one symbol under its
//! written name.

use lsp_types::{DocumentSymbol, SymbolKind};
use skc_core::syntax::ast::Item;
use skc_core::Checked;

use crate::position::range_of;

pub fn document_symbols(checked: &Checked) -> Vec<DocumentSymbol> {
    let items = checked.module.items.iter().zip(&checked.item_files);
    let mut seen = std::collections::HashSet::new();
    items
        .filter(|(_, file)| **file == checked.root)
        .filter(|(item, _)| seen.insert(item.name().span))
        .filter_map(|(item, _)| symbol(checked, item))
        .collect()
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
    // The name as written (an instance's own name, `sq__float32`, is the compiler's).
    let written = checked.sources.snippet(name.span);
    let shown = if written.is_empty() { name.name.to_string() } else { written.to_string() };
    Some(new_symbol(shown, kind, Some(detail.into()), range_of(file, full), range_of(file, name.span), children))
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

#[cfg(test)]
mod tests {
    use super::document_symbols;

    #[test]
    fn instances_are_one_symbol_under_the_written_name() {
        let text = "let sq x = x * x\n\
                    let apply op (x : float32) : float32 = op x x\n\
                    let add (a : float32) (b : float32) : float32 = a +. b\n\
                    kernel k (xs : float32 vector) (ns : int32 vector) =\n  \
                    xs.(global_idx) <- apply add (sq xs.(global_idx));\n  \
                    ns.(global_idx) <- sq ns.(global_idx)\n";
        let checked = skc_core::check("k.sk", text, &skc_core::NoModules, &Default::default());
        assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
        let names: Vec<String> = document_symbols(&checked).into_iter().map(|s| s.name).collect();
        assert_eq!(names, ["sq", "apply", "add", "k"]);
    }
}

//! Go to definition: locals jump to their binder, functions, constants, kernels and records to their name in
//! their item (possibly in an opened module's file), fields to their declaration. Builtins have no source.

use lsp_types::{Location, Url};
use skc_core::syntax::ast::Item;
use skc_core::{Checked, Span};

use crate::cursor::{self, Target};
use crate::documents::uri_of;
use crate::position::range_of;

pub fn definition(checked: &Checked, root_uri: &Url, offset: usize) -> Option<Location> {
    let found = cursor::find(checked, offset)?;
    let span = definition_span(checked, &found.target)?;
    let file = checked.sources.file(span.file);
    let uri = if span.file == checked.root { root_uri.clone() } else { uri_of(&file.name)? };
    Some(Location { uri, range: range_of(file, span) })
}

fn definition_span(checked: &Checked, target: &Target) -> Option<Span> {
    let types = &checked.types;
    let item_name = |item: usize| checked.module.items.get(item).map(|i| i.name().span);
    match target {
        Target::Local { local, .. } => Some(types.local(*local).span),
        Target::Function(id) => item_name(types.function(*id).item),
        Target::Constant(id) => item_name(types.constant(*id).item),
        Target::ItemName(item) | Target::RecordType(item) => item_name(*item),
        Target::Field { record, name, field, .. } => match record {
            Some(id) => field_declaration(checked, &types.record(*id).name, name),
            None => Some(*field),
        },
        Target::Module(name) => module_file(checked, name),
        Target::Builtin { .. } | Target::Expr(_) => None,
    }
}

fn field_declaration(checked: &Checked, record: &str, field: &str) -> Option<Span> {
    let (_, item) = cursor::root_or_any_record(checked, record)?;
    let Item::Record(decl) = item else { return None };
    decl.fields.iter().find(|(name, _)| name.name == field).map(|(name, _)| name.span)
}

/// The start of the file that `open name` loaded (`name.sk` with its first letter in either case).
fn module_file(checked: &Checked, name: &str) -> Option<Span> {
    let wanted = format!("{}.sk", name.to_ascii_lowercase());
    let (file, _) = checked.sources.files().skip(1).find(|(_, f)| {
        let base = f.name.rsplit(['/', '\\']).next().unwrap_or(&f.name);
        base.to_ascii_lowercase() == wanted
    })?;
    Some(Span { file, start: 0, end: 0 })
}

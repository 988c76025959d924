//! Completion: after `M.`, the members of module `M` (the builtins for `Gpu`, `Std` and the other built-in
//! namespaces, the items of an opened module's file, an instance's items for `A.` after `open M (...) as A`,
//! under their written names); after `r.`, the fields of `r`'s record type; anywhere else,
//! the locals in scope, the items of the program, the builtins (each with its type, what it requires of
//! convergence and a one-line doc) and the keywords. The client filters by what is typed.

use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionItemLabelDetails, Documentation, MarkupContent, MarkupKind,
};
use skc_core::builtins::{Builtin, Requirement, SigType, BUILTINS, BUILTIN_MODULES};
use skc_core::syntax::ast::{ExprId, Item};
use skc_core::types::{LocalId, Type};
use skc_core::Checked;

use crate::hover;
use crate::scope;
use crate::uniformity::{short_name, LocalLevels};

const KEYWORDS: &[&str] = &[
    "let",
    "in",
    "mut",
    "ref",
    "if",
    "then",
    "else",
    "for",
    "to",
    "downto",
    "do",
    "done",
    "while",
    "begin",
    "end",
    "superstep",
    "return",
    "break",
    "continue",
    "true",
    "false",
    "not",
    "mod",
    "kernel",
    "type",
    "open",
];

/// What the text before the cursor asks for.
enum Context {
    /// `M.pre|`
    ModuleMember(String),
    /// `expr.pre|`, the dot at this offset.
    Field { dot: usize },
    /// A name, or nothing, being typed.
    Name,
}

pub fn completions(checked: &Checked, offset: usize) -> Vec<CompletionItem> {
    match context(checked, offset) {
        Context::ModuleMember(module) => module_members(checked, &module),
        Context::Field { dot } => fields(checked, dot, offset),
        Context::Name => names(checked, offset),
    }
}

fn context(checked: &Checked, offset: usize) -> Context {
    let text = &checked.sources.file(checked.root).text;
    let before = &text[..offset.min(text.len())];
    let word_start = before.trim_end_matches(is_name_char).len();
    let Some(before_word) = before[..word_start].strip_suffix('.') else { return Context::Name };
    let qualifier_start = before_word.trim_end_matches(is_name_char).len();
    let qualifier = &before_word[qualifier_start..];
    if qualifier.starts_with(|c: char| c.is_ascii_uppercase()) {
        Context::ModuleMember(qualifier.to_string())
    } else {
        Context::Field { dot: word_start - 1 }
    }
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '\''
}

fn module_members(checked: &Checked, module: &str) -> Vec<CompletionItem> {
    if BUILTIN_MODULES.contains(&module) {
        return BUILTINS.iter().map(builtin_item).collect();
    }
    if let Some(instance) = checked.units.instance_named(module) {
        return instance_members(checked, instance);
    }
    // The shared copy of the module: an instance's copy of the same file has a file id of its own.
    let module_file = checked
        .sources
        .files()
        .find(|(id, file)| is_module_file(&file.name, module) && checked.units.instance_of(*id).is_none())
        .map(|(id, _)| id);
    let Some(file) = module_file else { return Vec::new() };
    let items = checked.module.items.iter().enumerate().zip(&checked.item_files);
    items.filter(|(_, f)| **f == file).filter_map(|((index, _), _)| item_item(checked, index)).collect()
}

/// The items of an instance's copy, labelled as written after `A.` (`x`, not the compiler's `A_x`).
fn instance_members(checked: &Checked, instance: usize) -> Vec<CompletionItem> {
    let files: Vec<_> = checked.units.files_of_instance(instance).collect();
    let items = checked.item_files.iter().enumerate().filter(|(_, file)| files.contains(file));
    items
        .filter_map(|(index, _)| {
            let mut item = item_item(checked, index)?;
            let written = checked.units.written_name(instance, &item.label).to_string();
            item.detail = item.detail.map(|detail| detail.replacen(&item.label, &written, 1));
            item.label = written;
            item.sort_text = Some(format!("1{}", item.label));
            Some(item)
        })
        .collect()
}

fn is_module_file(file: &str, module: &str) -> bool {
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    base.strip_suffix(".sk").is_some_and(|stem| stem.eq_ignore_ascii_case(module))
}

/// The fields of the record that the expression ending at `dot` has, or of the local named just before it.
fn fields(checked: &Checked, dot: usize, offset: usize) -> Vec<CompletionItem> {
    let module = &checked.module;
    let ends_at_dot =
        module.expr_spans.iter().enumerate().filter(|(_, s)| s.file == checked.root && s.end as usize == dot);
    let by_expression = ends_at_dot.filter_map(|(i, _)| record_of(checked.types.type_of(ExprId(i as u32)))).next();
    let by_name = || {
        let text = &checked.sources.file(checked.root).text[..dot];
        let name = &text[text.trim_end_matches(is_name_char).len()..];
        let local = scope::locals_at(checked, offset).into_iter().find(|l| checked.types.local(*l).name == name)?;
        record_of(&checked.types.local(local).ty)
    };
    let Some(record) = by_expression.or_else(by_name) else { return Vec::new() };
    let info = checked.types.record(record);
    info.fields
        .iter()
        .map(|(name, ty)| CompletionItem {
            label: name.clone(),
            kind: Some(CompletionItemKind::FIELD),
            detail: Some(format!("{name} : {}", checked.types.display(ty))),
            ..CompletionItem::default()
        })
        .collect()
}

fn record_of(ty: &Type) -> Option<skc_core::types::RecordId> {
    match ty {
        Type::Record(id) => Some(*id),
        Type::Ref(inner) => record_of(inner),
        _ => None,
    }
}

fn names(checked: &Checked, offset: usize) -> Vec<CompletionItem> {
    let levels = LocalLevels::of(checked);
    let mut items: Vec<CompletionItem> =
        scope::locals_at(checked, offset).into_iter().map(|l| local_item(checked, &levels, l)).collect();
    // An instance's items are reached as `A.x`, not by a bare name.
    let shared = |index: &usize| checked.item_files.get(*index).is_none_or(|f| checked.units.instance_of(*f).is_none());
    items.extend((0..checked.module.items.len()).filter(shared).filter_map(|index| item_item(checked, index)));
    items.extend(BUILTINS.iter().map(builtin_item));
    items.extend(KEYWORDS.iter().map(|keyword| CompletionItem {
        label: keyword.to_string(),
        kind: Some(CompletionItemKind::KEYWORD),
        sort_text: Some(format!("9{keyword}")),
        ..CompletionItem::default()
    }));
    items
}

fn local_item(checked: &Checked, levels: &LocalLevels, local: LocalId) -> CompletionItem {
    let info = checked.types.local(local);
    let ty = checked.types.display(&info.ty);
    let description = match levels.level(local) {
        Some(level) => format!("{ty} · {}", short_name(level)),
        None => ty,
    };
    CompletionItem {
        label: info.name.to_string(),
        kind: Some(CompletionItemKind::VARIABLE),
        label_details: Some(CompletionItemLabelDetails { detail: None, description: Some(description) }),
        detail: Some(format!("{} : {}", info.name, checked.types.display(&info.ty))),
        sort_text: Some(format!("0{}", info.name)),
        ..CompletionItem::default()
    }
}

/// A kernel, function or constant of the program (records are not values).
fn item_item(checked: &Checked, index: usize) -> Option<CompletionItem> {
    let item = &checked.module.items[index];
    let kind = match item {
        Item::Kernel(_) | Item::Function(_) => CompletionItemKind::FUNCTION,
        Item::Constant(_) => CompletionItemKind::CONSTANT,
        Item::Record(_) | Item::Open(_) => return None,
    };
    let name = item.name().name.to_string();
    if name.is_empty() {
        return None;
    }
    let signature = hover::item_signature(checked, index);
    Some(CompletionItem {
        label: name.clone(),
        kind: Some(kind),
        detail: signature,
        sort_text: Some(format!("1{name}")),
        ..CompletionItem::default()
    })
}

fn builtin_item(builtin: &'static Builtin) -> CompletionItem {
    let requirement = match builtin.requirement {
        Requirement::None => None,
        Requirement::BlockConverged => Some("needs the block converged"),
        Requirement::WarpConverged => Some("needs the warp converged"),
    };
    let mut documentation = builtin.doc.to_string();
    if requirement.is_some() {
        documentation.push_str(&format!("\n\n{}", hover::requirement_sentence(builtin)));
    }
    // `thread_idx_x` is a value; `block_barrier` and the functions are operations.
    let is_value = builtin.params.is_empty() && builtin.ret != SigType::Unit;
    CompletionItem {
        label: builtin.name.to_string(),
        kind: Some(if is_value { CompletionItemKind::VARIABLE } else { CompletionItemKind::FUNCTION }),
        label_details: Some(CompletionItemLabelDetails { detail: None, description: requirement.map(str::to_string) }),
        detail: Some(hover::builtin_signature(builtin)),
        documentation: Some(Documentation::MarkupContent(MarkupContent {
            kind: MarkupKind::Markdown,
            value: documentation,
        })),
        sort_text: Some(format!("2{}", builtin.name)),
        ..CompletionItem::default()
    }
}

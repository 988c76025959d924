//! Rename a local, a top-level item (function, constant, kernel, record) or a record field, in every file of the
//! program that names it and in the other open documents whose program includes its file.
//!
//! A rename must not change what the program means: the new name could capture a use of another name (a local
//! renamed to a builtin's or an outer local's name) or be captured. So every rename is checked before it is
//! offered: the edited files are checked again and each name must resolve to the same thing as before, every
//! expression keep its type and the same diagnostics (by code) come out. A rename that fails the check is refused
//! with a sentence saying why, as is a new name that is not an identifier and one that would edit the standard
//! library.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use lsp_types::{TextEdit, Url, WorkspaceEdit};
use skc_core::syntax::ast::Item;
use skc_core::syntax::lexer::{lex, Token};
use skc_core::types::Resolution;
use skc_core::{Checked, FileId, Span};

use crate::documents::uri_of;
use crate::position::range_of;
use crate::references::{self, Symbol};

/// Checks a program again with some files' texts replaced (by file name).
pub type Recheck<'a> = dyn Fn(&Url, &HashMap<String, String>) -> Option<Checked> + 'a;

/// A program that a rename touches: the URI of its root document and its current check.
pub struct Program<'a> {
    pub uri: &'a Url,
    pub checked: &'a Checked,
}

/// What can be renamed at `offset`: the span of the name under the cursor, or why nothing can.
pub fn prepare(checked: &Checked, offset: usize) -> Result<Option<Span>, String> {
    let Some((symbol, span)) = references::symbol_at(checked, offset) else { return Ok(None) };
    renamable(checked, &symbol)?;
    Ok(Some(span))
}

fn renamable(checked: &Checked, symbol: &Symbol) -> Result<(), String> {
    if let Symbol::Builtin(name) = symbol {
        return Err(format!("`{name}` is a builtin and cannot be renamed"));
    }
    let occurrences = references::occurrences(checked, symbol);
    if let Some(file) = occurrences.iter().map(|o| o.span.file).find(|file| in_stdlib(checked, *file)) {
        return Err(format!(
            "this name is defined or used in the standard library ({})",
            checked.sources.file(file).name
        ));
    }
    Ok(())
}

fn in_stdlib(checked: &Checked, file: FileId) -> bool {
    let path = canonical(Path::new(&checked.sources.file(file).name));
    path.starts_with(canonical(&skc_core::session::stdlib_root()))
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// Is `name` one identifier (not a keyword, not a module name)?
pub fn is_identifier(name: &str) -> bool {
    matches!(lex(name).as_slice(), [only, eof] if only.token == Token::Ident && only.start == 0
        && only.end as usize == name.len() && eof.token == Token::Eof)
}

/// The rename of the symbol at `offset` of `root`'s root file to `new_name`, over `root` and `others` (other open
/// programs). `recheck` checks a program again with some files' texts replaced (by file name).
pub fn rename(
    root: &Program,
    others: &[Program],
    offset: usize,
    new_name: &str,
    recheck: &Recheck,
) -> Result<Option<WorkspaceEdit>, String> {
    let Some((symbol, _)) = references::symbol_at(root.checked, offset) else { return Ok(None) };
    renamable(root.checked, &symbol)?;
    if !is_identifier(new_name) {
        return Err(format!("`{new_name}` is not a name (a name starts with a lowercase letter or `_`)"));
    }
    // Edits by file name, with the text they apply to.
    let mut edits: BTreeMap<String, (String, Vec<Span>)> = BTreeMap::new();
    let mut collect = |checked: &Checked, symbol: &Symbol| {
        for occurrence in references::occurrences(checked, symbol) {
            let file = checked.sources.file(occurrence.span.file);
            let entry = edits.entry(file.name.clone()).or_insert_with(|| (file.text.clone(), Vec::new()));
            entry.1.push(occurrence.span);
        }
    };
    collect(root.checked, &symbol);
    let mut touched = vec![root];
    if let Some(definition) = definition_key(root.checked, &symbol) {
        for other in others {
            if let Some(same) = symbol_from_key(other.checked, &definition) {
                collect(other.checked, &same);
                touched.push(other);
            }
        }
    }
    let new_texts: HashMap<String, String> =
        edits.iter().map(|(name, (text, spans))| (name.clone(), replaced(text, spans, new_name))).collect();
    for program in &touched {
        let Some(after) = recheck(program.uri, &new_texts) else { continue };
        if let Some(why) = meaning_changed(program.checked, &after) {
            return Err(format!("renaming to `{new_name}` would change the program: {why}"));
        }
    }
    Ok(Some(workspace_edit(root, &edits, new_name)))
}

/// A top-level symbol as other programs know it: the file and offset of its definition (and a field's name).
struct DefinitionKey {
    file: String,
    start: u32,
    field: Option<String>,
}

fn definition_key(checked: &Checked, symbol: &Symbol) -> Option<DefinitionKey> {
    let field = match symbol {
        Symbol::Local(_) | Symbol::Builtin(_) => return None,
        Symbol::Field { record, name } => {
            let definition = references::occurrences(checked, &Symbol::Record(*record)).into_iter().next()?;
            return Some(DefinitionKey {
                file: checked.sources.file(definition.span.file).name.clone(),
                start: definition.span.start,
                field: Some(name.clone()),
            });
        }
        _ => None,
    };
    let definition = references::occurrences(checked, symbol).into_iter().next()?;
    Some(DefinitionKey {
        file: checked.sources.file(definition.span.file).name.clone(),
        start: definition.span.start,
        field,
    })
}

fn symbol_from_key(checked: &Checked, key: &DefinitionKey) -> Option<Symbol> {
    let file = checked.sources.find(&key.file)?;
    let item = checked
        .module
        .items
        .iter()
        .enumerate()
        .find(|(_, item)| {
            !matches!(item, Item::Open(_)) && item.name().span.file == file && item.name().span.start == key.start
        })
        .map(|(index, _)| index)?;
    match (references::item_symbol(checked, item)?, &key.field) {
        (Symbol::Record(record), Some(name)) => Some(Symbol::Field { record, name: name.clone() }),
        (symbol, None) => Some(symbol),
        _ => None,
    }
}

/// `text` with every span replaced by `new_name` (spans do not overlap).
fn replaced(text: &str, spans: &[Span], new_name: &str) -> String {
    let mut ranges: Vec<(usize, usize)> = spans.iter().map(|s| (s.start as usize, s.end as usize)).collect();
    ranges.sort_unstable();
    ranges.dedup();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (start, end) in ranges {
        out.push_str(&text[at..start]);
        out.push_str(new_name);
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

/// Why `after` (the program checked again with the rename applied) means something else than `before`, if it does.
fn meaning_changed(before: &Checked, after: &Checked) -> Option<String> {
    let (b, a) = (&before.types, &after.types);
    if before.module.exprs.len() != after.module.exprs.len() || b.locals.len() != a.locals.len() {
        return Some("it no longer parses the same way".into());
    }
    for index in 0..before.module.exprs.len() {
        let id = skc_core::syntax::ast::ExprId(index as u32);
        if !same_resolution(b.resolution(id), a.resolution(id)) {
            return Some(format!("{} would refer to something else", name_at(before, id)));
        }
    }
    if b.expr_types != a.expr_types || b.launches.iter().ne(a.launches.iter()) {
        return Some("some expressions would change type".into());
    }
    let codes = |checked: &Checked| {
        let mut codes: Vec<&str> = checked.diagnostics.iter().map(|d| d.code).collect();
        codes.sort_unstable();
        codes
    };
    if codes(before) != codes(after) {
        return Some("it would change the diagnostics".into());
    }
    None
}

/// "`t` at line 8 of prog.sk": the name that expression `id` refers by.
fn name_at(checked: &Checked, id: skc_core::syntax::ast::ExprId) -> String {
    use skc_core::syntax::ast::ExprKind;
    let span = match checked.module.expr(id) {
        ExprKind::Var(path) | ExprKind::Call { callee: path, .. } | ExprKind::Assign { target: path, .. } => {
            path.span()
        }
        ExprKind::Global(name) => name.span,
        _ => checked.module.span(id),
    };
    let file = checked.sources.file(span.file);
    let (line, _) = file.line_col(span.start as usize);
    let base = file.name.rsplit(['/', '\\']).next().unwrap_or(&file.name);
    format!("`{}` at line {} of {base}", checked.sources.snippet(span), line + 1)
}

fn same_resolution(before: Option<Resolution>, after: Option<Resolution>) -> bool {
    match (before, after) {
        (None, None) => true,
        (Some(Resolution::Local(b)), Some(Resolution::Local(a))) => a == b,
        (Some(Resolution::Function(b)), Some(Resolution::Function(a))) => a == b,
        (Some(Resolution::Constant(b)), Some(Resolution::Constant(a))) => a == b,
        (Some(Resolution::Builtin(b)), Some(Resolution::Builtin(a))) => a.name == b.name,
        _ => false,
    }
}

fn workspace_edit(root: &Program, edits: &BTreeMap<String, (String, Vec<Span>)>, new_name: &str) -> WorkspaceEdit {
    let root_name = &root.checked.sources.file(root.checked.root).name;
    let mut changes = HashMap::new();
    for (name, (text, spans)) in edits {
        let uri = if name == root_name { Some(root.uri.clone()) } else { uri_of(name) };
        let Some(uri) = uri else { continue };
        let file = skc_core::source::SourceFile::new(name.clone(), text.clone());
        let mut text_edits: Vec<TextEdit> = spans
            .iter()
            .map(|span| TextEdit { range: range_of(&file, *span), new_text: new_name.to_string() })
            .collect();
        text_edits.sort_by_key(|e| (e.range.start.line, e.range.start.character));
        text_edits.dedup();
        changes.insert(uri, text_edits);
    }
    WorkspaceEdit { changes: Some(changes), ..WorkspaceEdit::default() }
}

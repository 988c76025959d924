//! Name resolution: lexical scopes of locals, the table of top-level items, and the lookup of a (possibly
//! qualified) name among locals, items and builtins, in that order. Unknown names are reported here, with a
//! "did you mean" over every visible name.

use crate::builtins;
use crate::diagnostic::Diagnostic;
use crate::fxhash::FxHashMap;
use crate::source::Span;
use crate::syntax::ast::{ExprId, Ident, Item, Name, Path};
use crate::types::{ConstantId, FunctionId, LocalId, RecordId, Resolution};

use super::Checker;

/// A top-level item that names a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ValueItem {
    Constant(ConstantId),
    Function(FunctionId),
    /// Index in `TypeInfo::kernels`.
    Kernel(usize),
}

/// What a name denotes.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Named {
    Local(LocalId),
    Item(ValueItem),
    Builtin(builtins::BuiltinRef),
}

impl Named {
    pub(crate) fn resolution(self) -> Option<Resolution> {
        match self {
            Named::Local(l) => Some(Resolution::Local(l)),
            Named::Item(ValueItem::Constant(c)) => Some(Resolution::Constant(c)),
            Named::Item(ValueItem::Function(f)) => Some(Resolution::Function(f)),
            Named::Item(ValueItem::Kernel(_)) => None,
            Named::Builtin(b) => Some(Resolution::Builtin(b)),
        }
    }
}

/// The top-level names of the module (values and record types live in separate namespaces, as in OCaml).
#[derive(Debug)]
pub(crate) struct ItemTable {
    /// The first definition of each value name, with the span of its name.
    values: FxHashMap<Name, (ValueItem, Span)>,
    pub(crate) value_names: Vec<Name>,
    /// The first definition of each record name.
    pub(crate) records: FxHashMap<Name, (RecordId, Span)>,
    /// What an unqualified name that no local binds denotes: the module's item of that name, else the builtin.
    /// One lookup where resolving a builtin's name took two (the items, then the builtins); most names an
    /// expression uses that are not locals are builtins (`thread_idx_x`, `float32`).
    unqualified: FxHashMap<Name, Named>,
}

impl Default for ItemTable {
    fn default() -> ItemTable {
        let mut unqualified = FxHashMap::default();
        unqualified.reserve(builtins::spellings().count());
        for (spelling, builtin) in builtins::spellings() {
            unqualified.insert(Name::new(spelling), Named::Builtin(builtin));
        }
        ItemTable { values: FxHashMap::default(), value_names: Vec::new(), records: FxHashMap::default(), unqualified }
    }
}

impl ItemTable {
    /// The first definition of `name`, if any.
    pub(crate) fn definition(&self, name: &str) -> Option<(ValueItem, Span)> {
        self.values.get(name).copied()
    }

    /// Room for `count` more items: the maps are sized once instead of rehashed as they grow (a module has
    /// thousands of items).
    pub(crate) fn reserve(&mut self, count: usize) {
        self.values.reserve(count);
        self.value_names.reserve(count);
        self.unqualified.reserve(count);
    }

    /// Records `item` as the definition of `name`, which shadows a builtin of that name; if `name` has one already,
    /// records nothing and gives the span of the first.
    pub(crate) fn define(&mut self, name: &Name, item: ValueItem, span: Span) -> Result<(), Span> {
        match self.values.entry(name.clone()) {
            std::collections::hash_map::Entry::Occupied(first) => Err(first.get().1),
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert((item, span));
                self.value_names.push(name.clone());
                self.unqualified.insert(name.clone(), Named::Item(item));
                Ok(())
            }
        }
    }

    /// The item, else the builtin, that unqualified `name` denotes where no local binds it.
    #[inline]
    pub(crate) fn unqualified(&self, name: &Name) -> Option<Named> {
        self.unqualified.get(name).copied()
    }

    pub(crate) fn value(&self, name: &str) -> Option<ValueItem> {
        self.values.get(name).map(|(item, _)| *item)
    }

    pub(crate) fn record(&self, name: &str) -> Option<RecordId> {
        self.records.get(name).map(|(id, _)| *id)
    }
}

/// Nested lexical scopes of locals; the innermost binding of a name wins. One flat stack of bindings (names
/// borrowed from the module) and the stack heights where frames start: a `let` costs a push, not an allocation.
#[derive(Debug, Default)]
pub(crate) struct Scopes<'a> {
    bindings: Vec<(&'a Name, LocalId)>,
    /// Where each frame starts, with the `filter` of the bindings below it.
    frame_starts: Vec<(usize, u64)>,
    /// One bit per bound name (`name_bit`): a lookup whose bit is clear finds nothing without scanning the
    /// bindings. Most names an expression reads that no local binds are builtins (`thread_idx_x`).
    filter: u64,
}

/// The bit of `name` in `Scopes::filter`, from its length and its first and last bytes.
#[inline]
fn name_bit(name: &Name) -> u64 {
    let bytes = name.as_bytes();
    let (first, last) = (bytes.first().copied().unwrap_or(0), bytes.last().copied().unwrap_or(0));
    let mixed = (bytes.len() as u32).wrapping_mul(37) ^ u32::from(first).wrapping_mul(7) ^ u32::from(last);
    1 << (mixed % 64)
}

impl<'a> Scopes<'a> {
    pub(crate) fn push(&mut self) {
        self.frame_starts.push((self.bindings.len(), self.filter));
    }

    pub(crate) fn pop(&mut self) {
        if let Some((start, filter)) = self.frame_starts.pop() {
            self.bindings.truncate(start);
            self.filter = filter;
        }
    }

    pub(crate) fn clear(&mut self) {
        self.bindings.clear();
        self.frame_starts.clear();
        self.filter = 0;
    }

    pub(crate) fn declare(&mut self, name: &'a Name, local: LocalId) {
        if self.frame_starts.is_empty() {
            self.push();
        }
        self.bindings.push((name, local));
        self.filter |= name_bit(name);
    }

    #[inline]
    pub(crate) fn lookup(&self, name: &Name) -> Option<LocalId> {
        if self.filter & name_bit(name) == 0 {
            return None;
        }
        self.bindings.iter().rev().find(|(n, _)| *n == name).map(|(_, l)| *l)
    }

    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.bindings.iter().rev().map(|(n, _)| n.as_str())
    }
}

/// Is this a name the parser invented while recovering (never reported again)?
pub(crate) fn is_bogus_name(name: &str) -> bool {
    name.is_empty() || name.starts_with('{') || name == "_"
}

impl Checker<'_> {
    /// What `path` denotes, without reporting anything.
    pub(crate) fn lookup_path(&self, path: &Path) -> Option<Named> {
        let name = path.name.name.as_str();
        match &path.module {
            Some(m) if builtins::BUILTIN_MODULES.contains(&m.name.as_str()) => {
                builtins::lookup(name).map(Named::Builtin)
            }
            Some(_) => self.items.value(name).map(Named::Item),
            None => match self.scopes.lookup(&path.name.name) {
                Some(local) => Some(Named::Local(local)),
                None => self.items.unqualified(&path.name.name),
            },
        }
    }

    /// Resolves the name of expression `expr`, recording the resolution; reports an unknown name or qualifier.
    pub(crate) fn resolve_path(&mut self, path: &Path, expr: ExprId) -> Option<Named> {
        if !self.check_qualifier(path) {
            return None;
        }
        let Some(named) = self.lookup_path(path) else {
            self.report_unknown_name(path);
            return None;
        };
        if let Some(resolution) = named.resolution() {
            self.info.resolutions.insert(expr, resolution);
        }
        if let Named::Item(ValueItem::Function(f)) = named {
            let index = f.0 as usize;
            if index >= self.named_functions.len() {
                self.named_functions.resize(index + 1, false);
            }
            self.named_functions[index] = true;
        }
        Some(named)
    }

    /// `M.x` with `M` not a built-in namespace: `M` must be a module some file opens (else E0217, and the name
    /// stays unresolved), and `x` an item of its file (else E0200, though `x` resolves: its uses are checked).
    fn check_qualifier(&mut self, path: &Path) -> bool {
        let Some(m) = &path.module else { return true };
        if builtins::BUILTIN_MODULES.contains(&m.name.as_str()) || is_bogus_name(&m.name) {
            return true;
        }
        if !self.check_opened(m) {
            return false;
        }
        let Some((_, defined)) = self.items.definition(&path.name.name) else { return true };
        let file = &self.sources.file(defined.file).name;
        if !is_module_file(file, &m.name) {
            let d = Diagnostic::error("E0200", format!("unknown name `{}`", path.display()))
                .primary(path.span(), format!("module `{}` defines no `{}`", m.name, path.name.name))
                .secondary(defined, format!("`{}` is defined here, in {file}", path.name.name))
                .help(format!("write `{}` without the qualifier", path.name.name));
            self.diagnostics.push(d);
        }
        true
    }

    /// Does some file open module `m`? E0217 if none does.
    pub(crate) fn check_opened(&mut self, m: &Ident) -> bool {
        let opened = self.module.items.iter().any(|item| matches!(item, Item::Open(o) if o.module.name == m.name));
        if !opened {
            let d = Diagnostic::error("E0217", format!("unknown module `{}`", m.name))
                .primary(m.span, "no opened module has this name")
                .help(format!(
                    "open it first (`open {}`), or qualify builtins with one of {}",
                    m.name,
                    builtins::BUILTIN_MODULES.join(", ")
                ));
            self.diagnostics.push(d);
        }
        opened
    }

    /// Is the definition at `defined` in the file of module `module`?
    pub(crate) fn is_in_module_file(&self, defined: Span, module: &str) -> bool {
        is_module_file(&self.sources.file(defined.file).name, module)
    }

    pub(crate) fn report_unknown_name(&mut self, path: &Path) {
        if is_bogus_name(&path.name.name) || path.module.as_ref().is_some_and(|m| is_bogus_name(&m.name)) {
            return;
        }
        let module = path.module.as_ref().map(|m| m.name.as_str());
        let mut d = Diagnostic::error("E0200", format!("unknown name `{}`", path.display()))
            .primary(path.span(), "not found in this scope");
        if let Some(advice) = super::sarek_names::sarek_advice(module, &path.name.name) {
            d = d.help(advice);
        } else if let Some(s) = self.suggest_value(path) {
            d = d.help(format!("did you mean `{s}`?"));
        }
        self.diagnostics.push(d);
    }

    /// The visible name closest to `path`'s, spelt as it would be written (qualified when `path` is).
    fn suggest_value(&self, path: &Path) -> Option<String> {
        let name = path.name.name.as_str();
        match &path.module {
            Some(m) if builtins::BUILTIN_MODULES.contains(&m.name.as_str()) => {
                self.closest(name, builtins::all_names()).map(|s| format!("{}.{s}", m.name))
            }
            Some(m) => {
                self.closest(name, self.items.value_names.iter().map(Name::as_str)).map(|s| format!("{}.{s}", m.name))
            }
            None => {
                let mut candidates: Vec<&str> = self.scopes.names().collect();
                candidates.extend(self.items.value_names.iter().map(Name::as_str));
                for builtin in builtins::all_names() {
                    candidates.push(builtin);
                }
                self.closest(name, candidates).map(str::to_string)
            }
        }
    }
}

/// Is `file` the file of module `module` (`m.sk` or `M.sk`, as the loaders look for it)?
fn is_module_file(file: &str, module: &str) -> bool {
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    let stem = base.strip_suffix(".sk").unwrap_or(base);
    stem.eq_ignore_ascii_case(module)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inner_scopes_shadow_outer_ones() {
        let x = Name::new("x");
        let mut scopes = Scopes::default();
        scopes.push();
        scopes.declare(&x, LocalId(0));
        scopes.push();
        scopes.declare(&x, LocalId(1));
        assert_eq!(scopes.lookup(&x), Some(LocalId(1)));
        scopes.pop();
        assert_eq!(scopes.lookup(&x), Some(LocalId(0)));
        scopes.pop();
        assert_eq!(scopes.lookup(&x), None);
    }
}

//! Runs the front end over a root file and the modules it opens: parse every file into one [`Module`], then type
//! check, then the convergence analysis. The CLI and the language server both call [`check`]; neither does
//! anything the other cannot see.

use crate::convergence::{self, UniformityInfo};
use crate::diagnostic::{self, Diagnostic};
use crate::source::{FileId, SourceMap};
use crate::syntax::ast::{Item, Module};
use crate::syntax::parse;
use crate::typeck::{self, TypeckOptions};
use crate::types::TypeInfo;

/// Supplies the source of modules named by `open M`. The core does no I/O: the CLI reads files, the language
/// server reads its open documents first, tests use a map.
pub trait ModuleLoader {
    /// Returns `(file name, text)` of module `module` (for example `weno.sk` for `Weno`) as seen from the file
    /// `importer`, or a sentence saying why it cannot.
    fn load(&self, module: &str, importer: &str) -> Result<(String, String), String>;
}

/// A loader that knows no modules.
pub struct NoModules;

impl ModuleLoader for NoModules {
    fn load(&self, module: &str, _importer: &str) -> Result<(String, String), String> {
        Err(format!("no module search path is configured, so `{module}` cannot be found"))
    }
}

#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    pub typeck: TypeckOptions,
}

/// The result of checking: every file, the merged module, the analyses' side tables, and all diagnostics
/// (sorted by position).
pub struct Checked {
    pub sources: SourceMap,
    pub root: FileId,
    pub module: Module,
    /// For each item of `module`, the file it came from.
    pub item_files: Vec<FileId>,
    pub types: TypeInfo,
    pub uniformity: UniformityInfo,
    pub diagnostics: Vec<Diagnostic>,
}

impl Checked {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }
}

/// File stem used to name a bare `fun ... -> ...` kernel.
fn file_stem(file_name: &str) -> String {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    let stem = base.strip_suffix(".sk").unwrap_or(base);
    let clean: String = stem.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    if clean.is_empty() || clean.starts_with(|c: char| c.is_ascii_digit()) {
        format!("k_{clean}")
    } else {
        clean
    }
}

/// Parses the root file and, transitively, every module it opens.
pub fn parse_all(file_name: &str, text: &str, loader: &dyn ModuleLoader) -> (SourceMap, Module, Vec<FileId>, Vec<Diagnostic>) {
    let mut sources = SourceMap::new();
    let mut module = Module::default();
    let mut item_files = Vec::new();
    let mut diagnostics = Vec::new();
    let root = sources.add(file_name, text);
    diagnostics.extend(parse(text, root, &mut module, &file_stem(file_name)));
    item_files.resize(module.items.len(), root);
    let mut loaded: Vec<String> = Vec::new();
    let mut next_item = 0;
    while next_item < module.items.len() {
        let item = module.items[next_item].clone();
        let importer = item_files[next_item];
        next_item += 1;
        let Item::Open(open) = item else { continue };
        if crate::builtins::BUILTIN_MODULES.contains(&open.module.name.as_str()) || loaded.contains(&open.module.name) {
            continue;
        }
        loaded.push(open.module.name.clone());
        let importer_name = sources.file(importer).name.clone();
        match loader.load(&open.module.name, &importer_name) {
            Ok((name, text)) => {
                let file = sources.add(name.clone(), text.clone());
                diagnostics.extend(parse(&text, file, &mut module, &file_stem(&name)));
                item_files.resize(module.items.len(), file);
            }
            Err(why) => diagnostics.push(
                Diagnostic::error("E0211", format!("cannot open module `{}`", open.module.name))
                    .primary(open.module.span, "module not found")
                    .note(why),
            ),
        }
    }
    (sources, module, item_files, diagnostics)
}

/// Runs the whole front end.
pub fn check(file_name: &str, text: &str, loader: &dyn ModuleLoader, options: &CheckOptions) -> Checked {
    let (sources, module, item_files, mut diagnostics) = parse_all(file_name, text, loader);
    let (types, type_diagnostics) = typeck::check_module(&module, &sources, &options.typeck);
    diagnostics.extend(type_diagnostics);
    let (uniformity, convergence_diagnostics) = convergence::analyse(&module, &types);
    diagnostics.extend(convergence_diagnostics);
    diagnostic::sort(&mut diagnostics);
    diagnostics.dedup();
    Checked { sources, root: FileId(0), module, item_files, types, uniformity, diagnostics }
}

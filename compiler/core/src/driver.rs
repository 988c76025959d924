//! Runs the front end over a root file and the modules it opens: parse every file into one [`Module`], then type
//! check, then the target's resource limits, then the convergence analysis, then the lints. The CLI and the language
//! server both call [`check`]; neither does anything the other cannot see.

use crate::convergence::{self, UniformityInfo};
use crate::diagnostic::{self, Diagnostic, Severity};
use crate::instances::Units;
use crate::source::{FileId, SourceMap};
use crate::syntax::ast::{Item, Module, Name};
use crate::syntax::parse;
use crate::typeck::{self, TypeckOptions};
use crate::types::TypeInfo;

/// Supplies the source of modules named by `open M`. The core does no I/O: the CLI reads files, the language
/// server reads its open documents first, tests use a map. `Sync`, because [`check`] runs on a thread of its own
/// (see [`crate::stack`]).
pub trait ModuleLoader: Sync {
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
    /// Warning codes not to report (`skc check -A W0101`). Errors cannot be silenced.
    pub allow: Vec<String>,
    /// The architecture whose resource limits the program must fit (`--arch`; sm_90 unless told otherwise).
    pub target: crate::target::Target,
    /// The host promises to launch every kernel with blocks of whole warps (a multiple of 32 threads), as
    /// `EmitOptions::full_warps` does for the emitter. The convergence analysis may then take a shuffle from a
    /// warp-uniform lane to be as uniform as its value (the lane exists); without the promise the last warp of a
    /// block may be partial and the lane missing. `skc check` makes no such promise.
    pub full_warps: bool,
    /// Attach the edits that fix divergence errors without checking each by checking the edited file (which costs
    /// a check per edit): the caller checks an edit before it offers it ([`fixes_its_error`]), as the language
    /// server does when a code action is requested.
    pub defer_fix_checks: bool,
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
    /// The diagnostics reported, at most [`MAX_DIAGNOSTICS_PER_ITEM`] per item and [`MAX_DIAGNOSTICS_PER_FILE`]
    /// per file; the last one reported in an item or file that had more says how many more in a note.
    pub diagnostics: Vec<Diagnostic>,
    /// The errors and warnings found but not reported because of those limits.
    pub hidden: Hidden,
    /// The copies of the program's modules: which files are an instance's (`open M (...) as A`), for tools that
    /// show an instance's items by their written names.
    pub units: Units,
}

/// Diagnostics found but left out by the per-item and per-file limits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hidden {
    pub errors: usize,
    pub warnings: usize,
}

impl Checked {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// Every error found, including those not reported because of the limits.
    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count() + self.hidden.errors
    }

    /// Every warning found, including those not reported because of the limits.
    pub fn warning_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Warning).count() + self.hidden.warnings
    }
}

/// At most this many diagnostics are reported for one item: a cascade (10,000 `(` give 10,000 syntax errors)
/// ends with a note that counts the rest, as rustc does.
pub const MAX_DIAGNOSTICS_PER_ITEM: usize = 20;
/// At most this many diagnostics are reported for one file.
pub const MAX_DIAGNOSTICS_PER_FILE: usize = 100;

/// "3 more errors and 1 more warning".
fn more(errors: usize, warnings: usize) -> String {
    let count = |n: usize, what: &str| format!("{n} more {what}{}", if n == 1 { "" } else { "s" });
    match (errors, warnings) {
        (e, 0) => count(e, "error"),
        (0, w) => count(w, "warning"),
        (e, w) => format!("{} and {}", count(e, "error"), count(w, "warning")),
    }
}

/// How many diagnostics of an item or a file were reported and left out, and where the last reported one is.
#[derive(Default)]
struct Tally {
    reported: usize,
    hidden: Hidden,
    last: Option<usize>,
}

impl Hidden {
    fn count(&mut self, d: &Diagnostic) {
        if d.is_error() {
            self.errors += 1;
        } else {
            self.warnings += 1;
        }
    }
}

/// Keeps the first diagnostics of each item and of each file (`diagnostics` sorted by position), and notes on the
/// last kept one how many were left out. An item's region runs from its start to the next item's start.
fn limit_diagnostics(module: &Module, diagnostics: Vec<Diagnostic>, sources: &SourceMap) -> (Vec<Diagnostic>, Hidden) {
    use std::collections::BTreeMap;
    if diagnostics.len() <= MAX_DIAGNOSTICS_PER_ITEM {
        return (diagnostics, Hidden::default());
    }
    let mut starts: Vec<(FileId, u32)> = module.items.iter().map(|i| (i.span().file, i.span().start)).collect();
    starts.sort_unstable();
    let (mut items, mut files): (BTreeMap<(FileId, usize), Tally>, BTreeMap<FileId, Tally>) = Default::default();
    let (mut kept, mut hidden) = (Vec::new(), Hidden::default());
    for d in diagnostics {
        let p = d.primary_span();
        let item = (p.file, starts.partition_point(|&start| start <= (p.file, p.start)));
        let file_full = files.get(&p.file).is_some_and(|t| t.reported >= MAX_DIAGNOSTICS_PER_FILE);
        let item_full = items.get(&item).is_some_and(|t| t.reported >= MAX_DIAGNOSTICS_PER_ITEM);
        if file_full || item_full {
            let tally = if file_full { files.entry(p.file).or_default() } else { items.entry(item).or_default() };
            tally.hidden.count(&d);
            hidden.count(&d);
            continue;
        }
        for tally in [items.entry(item).or_default(), files.entry(p.file).or_default()] {
            tally.reported += 1;
            tally.last = Some(kept.len());
        }
        kept.push(d);
    }
    let notes = items.values().map(|t| (t, "in this item".to_string(), MAX_DIAGNOSTICS_PER_ITEM, "item")).chain(
        files.iter().map(|(f, t)| (t, format!("in {}", sources.file(*f).name), MAX_DIAGNOSTICS_PER_FILE, "file")),
    );
    for (tally, place, limit, per) in notes {
        let (Some(last), Hidden { errors, warnings }) = (tally.last, tally.hidden) else { continue };
        if errors + warnings > 0 {
            kept[last]
                .notes
                .push(format!("{} {place} are not shown (at most {limit} per {per})", more(errors, warnings)));
        }
    }
    (kept, hidden)
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

/// Parses the root file and, transitively, every module it opens. A module is known by its name: each is parsed
/// once, the root file included (as the module its file name makes, `k.sk` is `K`), so a module that opens itself
/// or opens a module that opens it back is reported (`E0218`) instead of being parsed twice. An instance
/// (`open M (...) as A`) parses `M` and the modules it opens once more, as files of their own
/// ([`crate::instances`]).
pub fn parse_all(
    file_name: &str,
    text: &str,
    loader: &dyn ModuleLoader,
) -> (SourceMap, Module, Vec<FileId>, Vec<Diagnostic>) {
    let (sources, module, item_files, _, diagnostics) = parse_units(file_name, text.to_string(), loader);
    (sources, module, item_files, diagnostics)
}

/// [`parse_all`], with the instances the program opens.
fn parse_units(
    file_name: &str,
    text: String,
    loader: &dyn ModuleLoader,
) -> (SourceMap, Module, Vec<FileId>, crate::instances::Units, Vec<Diagnostic>) {
    use crate::instances::Instance;
    let mut sources = SourceMap::new();
    let mut module = Module::default();
    let mut item_files = Vec::new();
    let mut diagnostics = Vec::new();
    let mut units = Units::default();
    let root = sources.add(file_name, text);
    diagnostics.extend(parse(&sources.file(root).text, root, &mut module, &file_stem(file_name)));
    item_files.resize(module.items.len(), root);
    units.add_file(root, Name::from(root_module_name(file_name).as_str()), None);
    // Every module named so far, in the shared program (`None`) or an instance, with its file once it is loaded.
    let mut loaded: Vec<(Name, Option<usize>, Option<FileId>)> =
        vec![(Name::from(root_module_name(file_name).as_str()), None, Some(root))];
    let mut opens: Vec<OpenEdge> = Vec::new();
    let mut next_item = 0;
    while next_item < module.items.len() {
        let importer = item_files[next_item];
        next_item += 1;
        // Only opens are copied (the loop below adds items to `module`).
        let Item::Open(open) = &module.items[next_item - 1] else { continue };
        let open = open.clone();
        if crate::builtins::BUILTIN_MODULES.contains(&open.module.name.as_str()) {
            continue;
        }
        let within = units.instance_of(importer);
        let instance = match &open.alias {
            Some(alias) => match units.new_instance(Instance::new(alias, &open, importer), within) {
                Ok(index) => Some(index),
                Err(d) => {
                    diagnostics.push(*d);
                    continue;
                }
            },
            None => within,
        };
        units.record_open(&open, importer, instance);
        if let Some((_, _, file)) = loaded.iter().find(|(name, i, _)| *name == open.module.name && *i == instance) {
            if let Some(file) = *file {
                opens.push(OpenEdge { from: importer, to: file, span: open.module.span });
            }
            continue;
        }
        let importer_name = sources.file(importer).name.clone();
        match loader.load(&open.module.name, &importer_name) {
            Ok((name, text)) => {
                let file = sources.add(name.clone(), text);
                loaded.push((open.module.name.clone(), instance, Some(file)));
                units.add_file(file, open.module.name.clone(), instance);
                opens.push(OpenEdge { from: importer, to: file, span: open.module.span });
                diagnostics.extend(parse(&sources.file(file).text, file, &mut module, &file_stem(&name)));
                item_files.resize(module.items.len(), file);
            }
            Err(why) => {
                loaded.push((open.module.name.clone(), instance, None));
                diagnostics.push(
                    Diagnostic::error("E0211", format!("cannot open module `{}`", open.module.name))
                        .primary(open.module.span, "module not found")
                        .note(why),
                )
            }
        }
    }
    diagnostics.extend(open_cycles(&opens, &sources));
    (sources, module, item_files, units, diagnostics)
}

/// `open M` in file `from`, where `M` is file `to`.
#[derive(Clone, Copy, Debug)]
struct OpenEdge {
    from: FileId,
    to: FileId,
    span: crate::source::Span,
}

/// The module a root file would be opened as: `k.sk` is `K`.
fn root_module_name(file_name: &str) -> String {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    let stem = base.strip_suffix(".sk").unwrap_or(base);
    let mut name = stem.to_string();
    if let Some(first) = name.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    name
}

/// `E0218` for each `open` that closes a cycle of opens (found depth-first from the root, in source order).
fn open_cycles(opens: &[OpenEdge], sources: &SourceMap) -> Vec<Diagnostic> {
    let module_of = |file: FileId| root_module_name(&sources.file(file).name);
    let mut diagnostics = Vec::new();
    let mut done: Vec<FileId> = Vec::new();
    // (file, index of its next open to follow, the open that led here)
    let mut stack: Vec<(FileId, usize, Option<OpenEdge>)> = vec![(FileId(0), 0, None)];
    while let Some((file, next, _)) = stack.last_mut() {
        let file = *file;
        let Some(edge) = opens.iter().filter(|e| e.from == file).nth(*next).copied() else {
            done.push(file);
            stack.pop();
            continue;
        };
        *next += 1;
        if let Some(start) = stack.iter().position(|(f, _, _)| *f == edge.to) {
            let path: Vec<OpenEdge> = stack[start + 1..].iter().filter_map(|(_, _, e)| *e).chain([edge]).collect();
            let mut names: Vec<String> = path.iter().map(|e| module_of(e.from)).collect();
            names.push(module_of(edge.to));
            let message = if path.len() == 1 {
                format!("module `{}` opens itself", module_of(edge.to))
            } else {
                format!("modules open each other in a cycle: {}", names.join(" -> "))
            };
            let mut d = Diagnostic::error("E0218", message).primary(edge.span, "this `open` closes the cycle");
            for earlier in &path[..path.len() - 1] {
                d = d.secondary(
                    earlier.span,
                    format!("`{}` opens `{}` here", module_of(earlier.from), module_of(earlier.to)),
                );
            }
            diagnostics
                .push(d.help("remove the `open`: a module sees the items of the modules it opens, not the reverse"));
        } else if !done.contains(&edge.to) {
            stack.push((edge.to, 0, Some(edge)));
        }
    }
    diagnostics
}

/// Regions of the items that contain a syntax error (a code of [`Stage::Syntax`](crate::codes::Stage::Syntax):
/// E01xx, or E0205 for a form the parser reads but does not support): from an item's start to the next item's start (a syntax error often sits on the token after the
/// repaired item). `diagnostics` are the parser's.
fn items_with_syntax_errors(module: &Module, diagnostics: &[Diagnostic]) -> Vec<crate::source::Span> {
    // The common case, a file without syntax errors, must not pay for the regions (thousands of items).
    let is_syntax_error = |d: &Diagnostic| crate::codes::lookup(d.code).is_some_and(crate::codes::Code::is_syntax);
    if !diagnostics.iter().any(is_syntax_error) {
        return Vec::new();
    }
    let spans: Vec<crate::source::Span> = module.items.iter().map(Item::span).collect();
    // Item starts sorted by (file, start): the next item's start is found by binary search, not a scan.
    let mut starts: Vec<(FileId, u32)> = spans.iter().map(|s| (s.file, s.start)).collect();
    starts.sort_unstable();
    let region = |i: usize| {
        let span = spans[i];
        let after = starts.partition_point(|&(file, start)| (file, start) <= (span.file, span.start));
        let next = starts.get(after).filter(|(file, _)| *file == span.file).map(|&(_, start)| start);
        crate::source::Span { end: next.unwrap_or(u32::MAX), ..span }
    };
    (0..spans.len())
        .map(region)
        .filter(|region| {
            diagnostics.iter().any(|d| {
                let p = d.primary_span();
                is_syntax_error(d) && p.file == region.file && p.start >= region.start && p.start <= region.end
            })
        })
        .collect()
}

/// Is `d` a warning inside an item whose `[@allow CODE]` attribute names its code?
fn allowed_by_attribute(module: &Module, d: &Diagnostic) -> bool {
    let at = d.primary_span();
    module.allows.iter().filter(|code| code.name == d.code).any(|code| {
        module.items.iter().map(Item::span).any(|item| {
            item.file == code.span.file
                && item.start <= code.span.start
                && code.span.end <= item.end
                && item.file == at.file
                && item.start <= at.start
                && at.end <= item.end
        })
    })
}

/// Does the edited program (`after`, the diagnostics of the file with a diagnostic's edit applied) fix that
/// diagnostic: fewer errors of its `code` than `before`, and no more errors of any code?
pub fn fixes_its_error(code: &str, before: &[Diagnostic], after: &[Diagnostic]) -> bool {
    let errors = |diagnostics: &[Diagnostic]| {
        let mut counts = std::collections::BTreeMap::<&'static str, usize>::new();
        for d in diagnostics.iter().filter(|d| d.is_error()) {
            *counts.entry(d.code).or_default() += 1;
        }
        counts
    };
    let (before, after) = (errors(before), errors(after));
    let count = |counts: &std::collections::BTreeMap<&str, usize>, c: &str| counts.get(c).copied().unwrap_or(0);
    count(&after, code) < count(&before, code) && after.iter().all(|(c, n)| *n <= count(&before, c))
}

/// Attaches each proposed edit whose edited file checks with fewer errors of the diagnostic's code and no other new
/// error (the edits keep the meaning by construction; this checks that they fix what they are offered for). With
/// `defer_fix_checks`, attaches them all.
fn attach_checked_fixes(
    file_name: &str,
    text: &str,
    loader: &dyn ModuleLoader,
    options: &CheckOptions,
    diagnostics: &mut [Diagnostic],
    proposed: Vec<(usize, convergence::fixes::Fix)>,
) {
    let mut verdicts: Vec<((crate::source::Span, String), bool)> = Vec::new();
    for (index, fix) in proposed {
        let key = (fix.span, fix.replacement.clone());
        let known = verdicts.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
        let fixes = match known {
            _ if options.defer_fix_checks => true,
            Some(verdict) => verdict,
            None if verdicts.len() >= MAX_CHECKED_FIXES => false,
            None => {
                let mut edited = text.to_string();
                edited.replace_range(fix.span.range(), &fix.replacement);
                let after = check_with(file_name, edited, loader, options, false);
                let verdict = fixes_its_error(diagnostics[index].code, diagnostics, &after.diagnostics);
                verdicts.push((key, verdict));
                verdict
            }
        };
        if fixes {
            let diagnostic = std::mem::replace(&mut diagnostics[index], Diagnostic::error("E0001", ""));
            diagnostics[index] = fix.apply(diagnostic);
        }
    }
}

/// Runs the whole front end (on a large stack, whatever thread calls it). The result keeps the text in its
/// source map: a caller that owns it (a `String`) gives it, one that borrows it (`&str`) has it copied.
pub fn check(file_name: &str, text: impl Into<String>, loader: &dyn ModuleLoader, options: &CheckOptions) -> Checked {
    let text = text.into();
    crate::stack::on_large_stack(move || check_here(file_name, text, loader, options))
}

fn check_here(file_name: &str, text: String, loader: &dyn ModuleLoader, options: &CheckOptions) -> Checked {
    check_with(file_name, text, loader, options, true)
}

/// At most this many edits are checked (by checking the edited file) in one check; later errors get their help in
/// words only, so that a file with many errors does not cost many checks.
const MAX_CHECKED_FIXES: usize = 8;

/// Fewest expressions of a program whose checks beside the convergence analysis ([`Beside`]) run on a thread of
/// their own (about 5,000 lines): a smaller program checks in a few milliseconds, where a thread is not repaid.
const BESIDE_MIN_EXPRESSIONS: usize = 20_000;

/// What the checks after typing that do not read the convergence analysis find.
struct Beside {
    /// Resource limits (`limits`).
    limits: Vec<Diagnostic>,
    /// Device-side launches of kernels with a launch contract (`contract`).
    launches: Vec<Diagnostic>,
    /// The lints that read only the tree and the text.
    syntactic_lints: Vec<Diagnostic>,
}

impl Beside {
    fn run(
        module: &Module,
        types: &crate::types::TypeInfo,
        sources: &SourceMap,
        target: crate::target::Target,
    ) -> Beside {
        Beside {
            limits: crate::limits::check(module, types, target),
            launches: crate::contract::check_device_launches(module, types),
            syntactic_lints: crate::lint::syntactic(module, sources),
        }
    }
}

/// The front end; `with_fixes`: also the edits that fix divergence errors, each checked by checking the edited file.
fn check_with(
    file_name: &str,
    text: String,
    loader: &dyn ModuleLoader,
    options: &CheckOptions,
    with_fixes: bool,
) -> Checked {
    let (mut sources, mut module, item_files, units, mut diagnostics) = parse_units(file_name, text, loader);
    if !options.typeck.defines.is_empty() {
        // After every module: item files keep their ids; diagnostics about a `-D` can point into this one.
        let defines = typeck::command_line_source(&options.typeck.defines);
        sources.add(typeck::COMMAND_LINE, defines);
    }
    let broken = items_with_syntax_errors(&module, &diagnostics);
    // Parameters given their arguments, instances' items renamed; `-D` of a type parameter is taken here.
    let typeck_options = crate::instances::apply(&mut module, &item_files, &units, &sources, options, &mut diagnostics);
    let checked = typeck::check_program(module, &sources, &typeck_options);
    let (module, types, mut type_diagnostics) = (checked.module, checked.info, checked.diagnostics);
    let item_files: Vec<FileId> = checked.item_origins.iter().map(|origin| item_files[*origin]).collect();
    // The checks that do not read the convergence analysis run beside it on a large program.
    let beside = || Beside::run(&module, &types, &sources, options.target);
    let analyse = || convergence::analyse_keeping_requests(&module, &types, options.full_warps);
    let (beside, analysis) = if module.exprs.len() >= BESIDE_MIN_EXPRESSIONS {
        crate::parallel::join(beside, analyse)
    } else {
        (beside(), analyse())
    };
    type_diagnostics.extend(beside.limits);
    type_diagnostics.extend(beside.launches);
    let earlier_errors = diagnostics.iter().chain(&type_diagnostics).any(Diagnostic::is_error);
    let proposed = (with_fixes && !earlier_errors).then(|| analysis.propose_fixes(&module, &types, &sources));
    let convergence::Analysis { info: uniformity, diagnostics: mut convergence_diagnostics, .. } = analysis;
    if let Some(proposed) = proposed {
        let text = &sources.file(FileId(0)).text;
        attach_checked_fixes(file_name, text, loader, options, &mut convergence_diagnostics, proposed);
    }
    let mut lint_diagnostics = crate::lint::after_convergence(&module, &types, &uniformity, &sources);
    lint_diagnostics.extend(beside.syntactic_lints);
    // An item the parser had to repair reports only its syntax errors: what later passes say about the
    // repaired tree would be noise.
    let in_broken_item = |d: &Diagnostic| {
        broken.iter().any(|s| {
            s.file == d.primary_span().file && s.start <= d.primary_span().start && d.primary_span().start < s.end
        })
    };
    diagnostics.extend(type_diagnostics.into_iter().filter(|d| !in_broken_item(d)));
    diagnostics.extend(convergence_diagnostics.into_iter().filter(|d| !in_broken_item(d)));
    diagnostics.extend(lint_diagnostics.into_iter().filter(|d| !in_broken_item(d)));
    diagnostics.retain(|d| d.is_error() || !options.allow.iter().any(|code| code == d.code));
    diagnostics.retain(|d| d.is_error() || !allowed_by_attribute(&module, d));
    diagnostic::sort(&mut diagnostics);
    diagnostics.dedup();
    units.name_instances(&module, &sources, &mut diagnostics);
    let (diagnostics, hidden) = limit_diagnostics(&module, diagnostics, &sources);
    Checked { sources, root: FileId(0), module, item_files, types, uniformity, diagnostics, hidden, units }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `copies` kernels without anything to report, about eight expressions each.
    fn filler(copies: usize) -> String {
        (0..copies)
            .map(|i| {
                format!("kernel fill_{i} (o : float32 vector) =\n  let i = global_idx in\n  o.(i) <- o.(i) +. 1.0\n\n")
            })
            .collect()
    }

    fn diagnostics(text: &str) -> Vec<Diagnostic> {
        check("t.sk", text, &NoModules, &CheckOptions::default()).diagnostics
    }

    #[test]
    fn a_large_program_reports_what_the_same_program_small_reports() {
        // A large program runs the checks that do not read the convergence analysis beside it: the diagnostics,
        // and the fixes attached to them, are those of the program without the filler, whose spans they share.
        let misleading = "kernel misleading (out : int32 vector) (n : int32) =\n  let i = global_idx in\n  if i < n then out.(i) <- 1; out.(0) <- 2\n\n";
        let divergent = "kernel divergent (out : int32 vector) =\n  let x = mut 0 in\n  if thread_idx_x < 3 then x := 1;\n  if x = 1 then Gpu.block_barrier;\n  out.(0) <- x\n\n";
        let too_much = "kernel too_much (out : float64 vector) =\n  let%shared (t : float64) = 7000 in\n  t.(thread_idx_x) <- 1.0d;\n  Gpu.block_barrier;\n  out.(global_idx) <- t.(5)\n\n";
        let fill = filler(3000);
        for special in [format!("{misleading}{divergent}"), format!("{misleading}{divergent}{too_much}")] {
            let large = format!("{special}{fill}");
            let mut module = Module::default();
            let _ = crate::syntax::parse(&large, FileId(0), &mut module, "t");
            assert!(module.exprs.len() >= BESIDE_MIN_EXPRESSIONS, "{} expressions", module.exprs.len());
            let small = diagnostics(&special);
            let codes: Vec<&str> = small.iter().map(|d| d.code).collect();
            assert!(codes.contains(&"W0102") && codes.contains(&"E0001"), "{codes:?}");
            assert_eq!(diagnostics(&large), small);
        }
    }
}

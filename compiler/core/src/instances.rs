//! Module parameters and instances, resolved on the parsed program before type checking.
//!
//! A module declares parameters with `[@param]` (`syntax::builder::module_params`): a type
//! (`type[@param] real = float64`), a value (`let[@param] order : int32 = 5`, an ordinary constant) or a device
//! function (`let[@param] rhs (y : real) : real = y`, an ordinary function whose body is the default). An `open`
//! gives them arguments: `open M (real = float32, rhs = decay)`. The parameters of `M` are those declared in `M`'s
//! file and in the modules it opens, transitively.
//!
//! - Without `as`, the arguments apply to the one shared copy of `M` that every file sees (as `-D` does for a
//!   constant); two opens that give one parameter different arguments are E0241.
//! - With `as A`, `M` and the modules it opens are parsed once more as files of their own (`driver::parse_units`):
//!   an *instance*. Each of its items `x` becomes `A_x` (in messages and in the CUDA C: kernels included), the
//!   instance's own references follow (scope-aware: a local variable is never renamed), and other files reach them
//!   as `A.x`. Two instances are as separate as two modules with different names.
//!
//! Then, in each copy: a type parameter is replaced by its argument (or its default, or `-D real=float32` for the
//! shared copy) wherever a type is written; a value parameter's constant takes the argument as its value (checked
//! against the written type by the type checker); the calls of a function parameter call the function given.
//! Everything after sees plain items, so the type checker, the convergence analysis (each instance's items are
//! analysed as the copies they are), the emitter and the interpreter need nothing new. Diagnostics inside an
//! instance get a note naming it ([`Units::name_instances`]).

use crate::diagnostic::Diagnostic;
use crate::driver::CheckOptions;
use crate::fxhash::FxHashMap;
use crate::source::{FileId, SourceMap, Span};
use crate::syntax::ast::{
    for_each_child, ExprId, ExprKind, Ident, Item, Module, ModuleParamKind, Name, Open, OpenArgument, Path, TypeExpr,
};
use crate::typeck::TypeckOptions;

/// `open M (...) as A`: an instance of `M` named `A`.
#[derive(Clone, Debug)]
pub struct Instance {
    pub alias: Ident,
    pub module: Ident,
    pub args: Vec<OpenArgument>,
    /// The file of the `open`.
    pub opener: FileId,
}

impl Instance {
    pub fn new(alias: &Ident, open: &Open, opener: FileId) -> Instance {
        Instance { alias: alias.clone(), module: open.module.clone(), args: open.args.clone(), opener }
    }
}

/// The copies of the program's modules: the shared one (`None`) and each instance's (`Some(index)`).
#[derive(Clone, Debug, Default)]
pub struct Units {
    /// Every file: the module it is, and its copy.
    files: Vec<(FileId, Name, Option<usize>)>,
    pub instances: Vec<Instance>,
    /// Every `open` of a user module: the opening file, the module, the copy it loads from, and the open.
    opens: Vec<(FileId, Option<usize>, Open)>,
    /// The names of instances refused (E0241) where no instance of that name exists: `A.x` is then not reported
    /// again.
    refused: Vec<Name>,
}

impl Units {
    pub fn add_file(&mut self, file: FileId, module: Name, instance: Option<usize>) {
        self.files.push((file, module, instance));
    }

    /// The instance whose copy `file` belongs to (`None`: the shared program).
    pub fn instance_of(&self, file: FileId) -> Option<usize> {
        self.files.iter().find(|(f, _, _)| *f == file).and_then(|(_, _, i)| *i)
    }

    /// Adds an instance opened by a file of copy `within`; E0241 for a second instance of one name, and for an
    /// instance opened inside an instance.
    pub fn new_instance(&mut self, instance: Instance, within: Option<usize>) -> Result<usize, Box<Diagnostic>> {
        if let Some(outer) = within {
            self.refused.push(instance.alias.name.clone());
            let outer = &self.instances[outer];
            return Err(Box::new(
                Diagnostic::error("E0241", format!("an instance inside the instance `{}`", outer.alias.name))
                    .primary(instance.alias.span, "a module opened in an instance cannot make an instance of its own")
                    .secondary(outer.alias.span, "the instance this module belongs to")
                    .help("open the module without `as` (its copy is then part of the enclosing instance)"),
            ));
        }
        if let Some(first) = self.instances.iter().find(|i| i.alias.name == instance.alias.name) {
            return Err(Box::new(
                Diagnostic::error("E0241", format!("two instances are named `{}`", instance.alias.name))
                    .primary(instance.alias.span, "named again here")
                    .secondary(first.alias.span, "first named here")
                    .help("give each instance a name of its own"),
            ));
        }
        self.instances.push(instance);
        Ok(self.instances.len() - 1)
    }

    /// Records an `open` of a user module, from `importer`, loading from copy `instance`.
    pub fn record_open(&mut self, open: &Open, importer: FileId, instance: Option<usize>) {
        self.opens.push((importer, instance, open.clone()));
    }

    /// The files of module `module` in copy `unit` and of the modules it opens, transitively.
    fn closure(&self, module: &Name, unit: Option<usize>) -> Vec<FileId> {
        let mut files: Vec<FileId> = Vec::new();
        let mut todo = vec![module.clone()];
        while let Some(m) = todo.pop() {
            let Some(&(file, _, _)) = self.files.iter().find(|(_, name, u)| *name == m && *u == unit) else { continue };
            if files.contains(&file) {
                continue;
            }
            files.push(file);
            for (importer, u, open) in &self.opens {
                if *importer == file && *u == unit && open.alias.is_none() {
                    todo.push(open.module.name.clone());
                }
            }
        }
        files
    }

    /// Adds to each diagnostic inside an instance's copy the note that names the instance.
    pub fn name_instances(&self, module: &Module, sources: &SourceMap, diagnostics: &mut [Diagnostic]) {
        if self.instances.is_empty() {
            return;
        }
        for d in diagnostics {
            // The instance of the primary label's file, else of the first other label inside an instance (a
            // barrier in a function of the opening file, reached through an instance's call).
            let files = std::iter::once(d.primary_span().file).chain(d.labels.iter().map(|l| l.span.file));
            let Some(index) = files.filter_map(|file| self.instance_of(file)).next() else { continue };
            d.notes.push(self.describe(index, module, sources));
        }
    }

    /// The instance named `alias` (`open M (...) as alias`).
    pub fn instance_named(&self, alias: &str) -> Option<usize> {
        self.instances.iter().position(|i| &*i.alias.name == alias)
    }

    /// The files of instance `index`'s copy: its module and the modules that module opens.
    pub fn files_of_instance(&self, index: usize) -> impl Iterator<Item = FileId> + '_ {
        self.files.iter().filter(move |(_, _, i)| *i == Some(index)).map(|(file, _, _)| *file)
    }

    /// The name an item of instance `index` was written with: `A_x` is `x` (the renaming of [`apply`]).
    pub fn written_name<'a>(&self, index: usize, name: &'a str) -> &'a str {
        let alias = &self.instances[index].alias.name;
        name.strip_prefix(&**alias).and_then(|rest| rest.strip_prefix('_')).unwrap_or(name)
    }

    /// "in the instance `Weno32` of `Weno` with real = float32".
    pub fn describe(&self, index: usize, module: &Module, sources: &SourceMap) -> String {
        let instance = &self.instances[index];
        let mut text = format!("in the instance `{}` of `{}`", instance.alias.name, instance.module.name);
        if !instance.args.is_empty() {
            let args: Vec<String> =
                instance.args.iter().map(|a| format!("{} = {}", a.name.name, arg_text(a, module, sources))).collect();
            text.push_str(&format!(" with {}", args.join(", ")));
        }
        text
    }
}

/// The source text of an argument's value.
fn arg_text(arg: &OpenArgument, module: &Module, sources: &SourceMap) -> String {
    let span = module.span(arg.value);
    sources.file(span.file).text.get(span.range()).unwrap_or("").to_string()
}

/// What a copy's names become: unqualified top-level names, qualifiers that mean the copy itself, written types.
#[derive(Default)]
struct Renamer {
    /// An instance's alias: its items' names start with it.
    prefix: Option<Name>,
    values: FxHashMap<Name, Name>,
    /// Module names that, as a qualifier, mean this copy (an instance's own modules).
    own_modules: Vec<Name>,
    /// Each instance's alias, for `A.x` in the shared program: its `values`.
    aliases: FxHashMap<Name, FxHashMap<Name, Name>>,
    types: FxHashMap<Name, TypeExpr>,
    /// Names of refused instances: `A.x` is left to the error already reported.
    refused: Vec<Name>,
    /// Each instance's alias, for `A.t` in a type: its `types`.
    alias_types: FxHashMap<Name, FxHashMap<Name, TypeExpr>>,
    diagnostics: Vec<Diagnostic>,
}

/// An argument given to a parameter: the open, the argument.
struct Given<'a> {
    arg: &'a OpenArgument,
    text: String,
}

/// Applies every parameter's argument and renames every instance's items; returns the type checker's options
/// without the `-D` definitions of type parameters (taken here).
pub fn apply(
    module: &mut Module,
    item_files: &[FileId],
    units: &Units,
    sources: &SourceMap,
    options: &CheckOptions,
    diagnostics: &mut Vec<Diagnostic>,
) -> TypeckOptions {
    let mut typeck = options.typeck.clone();
    let has_args = units.opens.iter().any(|(_, _, o)| !o.args.is_empty());
    if module.params.is_empty() && units.instances.is_empty() && !has_args {
        return typeck;
    }
    diagnostics.extend(aliases_that_name_modules(units));
    // Copy 0 is the shared program, copy i + 1 instance i.
    let copy_of = |file: FileId| units.instance_of(file).map_or(0, |u| u + 1);
    let mut renamers: Vec<Renamer> = (0..=units.instances.len()).map(|_| Renamer::default()).collect();
    let mut given: Vec<FxHashMap<Name, Given>> = (0..=units.instances.len()).map(|_| FxHashMap::default()).collect();
    collect_arguments(module, units, sources, &mut given, diagnostics);
    name_instance_items(module, item_files, units, &mut renamers);
    let values = apply_parameters(module, units, &mut given, &mut renamers, &mut typeck, diagnostics);
    for renamer in &mut renamers {
        renamer.refused.clone_from(&units.refused);
    }
    // `A.x` and `A.t` in the shared program.
    for (index, instance) in units.instances.iter().enumerate() {
        let (values, types) = (renamers[index + 1].values.clone(), renamers[index + 1].types.clone());
        renamers[0].aliases.insert(instance.alias.name.clone(), values);
        renamers[0].alias_types.insert(instance.alias.name.clone(), types);
    }
    // Rename the items of each copy, then the arguments of the opens (in the opening file's copy).
    for (index, file) in item_files.iter().enumerate().take(module.items.len()) {
        renamers[copy_of(*file)].item(module, index);
    }
    for (importer, _, open) in &units.opens {
        for arg in &open.args {
            renamers[copy_of(*importer)].expr(module, arg.value, &mut Vec::new());
        }
    }
    // Value parameters take their arguments, expressions of the opening file, renamed as that file's.
    for (copy, name, value) in values {
        let target = renamers[copy].values.get(&name).cloned().unwrap_or(name);
        for item in module.items.iter_mut() {
            if let Item::Constant(c) = item {
                if c.name.name == target && copy_of(c.name.span.file) == copy {
                    c.value = value;
                }
            }
        }
    }
    for renamer in renamers {
        diagnostics.extend(renamer.diagnostics);
    }
    typeck
}

/// Each instance's items `x` are `A_x` (its records too, as types), and its references to its own modules'
/// qualifiers mean itself.
fn name_instance_items(module: &Module, item_files: &[FileId], units: &Units, renamers: &mut [Renamer]) {
    for (item, file) in module.items.iter().zip(item_files) {
        let Some(index) = units.instance_of(*file) else { continue };
        if matches!(item, Item::Open(_)) {
            continue;
        }
        let name = &item.name().name;
        let renamed = Name::new(&format!("{}_{name}", units.instances[index].alias.name));
        if matches!(item, Item::Record(_)) {
            let ident = Ident { name: renamed.clone(), span: item.name().span };
            renamers[index + 1].types.insert(name.clone(), TypeExpr::Named(ident));
        }
        renamers[index + 1].values.insert(name.clone(), renamed);
    }
    for (index, instance) in units.instances.iter().enumerate() {
        let renamer = &mut renamers[index + 1];
        renamer.prefix = Some(instance.alias.name.clone());
        renamer.own_modules =
            units.files.iter().filter(|(_, _, u)| *u == Some(index)).map(|(_, m, _)| m.clone()).collect();
    }
}

/// Each copy's type parameters become their types (argument, `-D` for the shared copy, or default), and its
/// function parameters' calls go to the function given. Returns the value parameters' arguments (copy, parameter,
/// value), applied after renaming since they are expressions of the opening file.
fn apply_parameters(
    module: &Module,
    units: &Units,
    given: &mut [FxHashMap<Name, Given>],
    renamers: &mut [Renamer],
    typeck: &mut TypeckOptions,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<(usize, Name, ExprId)> {
    let mut values = Vec::new();
    let mut declared: Vec<(usize, &Ident)> = Vec::new();
    for param in &module.params {
        let copy = units.instance_of(param.name.span.file).map_or(0, |u| u + 1);
        let name = param.name.name.clone();
        if let Some((_, first)) = declared.iter().find(|(c, n)| *c == copy && n.name == name) {
            diagnostics.push(
                Diagnostic::error("E0240", format!("the parameter `{name}` is declared twice"))
                    .primary(param.name.span, "declared again here")
                    .secondary(first.span, "first declared here")
                    .help("the modules of a program share their parameters' names: rename one"),
            );
            continue;
        }
        declared.push((copy, &param.name));
        match (&param.kind, given[copy].remove(&param.name.name)) {
            (ModuleParamKind::Type(default), None) => {
                let define = if copy == 0 { type_define(typeck, &param.name) } else { None };
                renamers[copy].type_parameter(name, define.unwrap_or_else(|| default.clone()));
            }
            (ModuleParamKind::Type(default), Some(g)) => {
                let ty = type_argument(module, g.arg).unwrap_or_else(|| {
                    diagnostics.push(wrong_kind(module, g.arg, &param.name, "a type", "a type's name (`float32`)"));
                    default.clone()
                });
                renamers[copy].type_parameter(name, ty);
            }
            (ModuleParamKind::Function, Some(g)) => match function_argument(module, g.arg, units) {
                Some(function) => {
                    renamers[copy].values.insert(name, function);
                }
                None => {
                    diagnostics.push(wrong_kind(module, g.arg, &param.name, "a device function", "a function's name"))
                }
            },
            (ModuleParamKind::Value, Some(g)) => values.push((copy, name, g.arg.value)),
            (_, None) => {}
        }
    }
    values
}

/// E0241 for an instance named as a module of the program (`A.x` would mean both).
fn aliases_that_name_modules(units: &Units) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for instance in &units.instances {
        if units.files.iter().any(|(_, module, _)| *module == instance.alias.name) {
            out.push(
                Diagnostic::error("E0241", format!("the instance `{}` is named as a module", instance.alias.name))
                    .primary(instance.alias.span, "a module of the program has this name")
                    .help("give the instance a name that no module has (`A.x` would mean both)"),
            );
        }
    }
    out
}

/// Every open's arguments, by the copy whose parameters they set: E0240 for a name that is no parameter of the
/// opened module, E0241 for a parameter given different arguments.
fn collect_arguments<'a>(
    module: &Module,
    units: &'a Units,
    sources: &SourceMap,
    given: &mut [FxHashMap<Name, Given<'a>>],
    diagnostics: &mut Vec<Diagnostic>,
) {
    for (importer, loaded_from, open) in &units.opens {
        let _ = importer;
        let unit = loaded_from.map_or(0, |u| u + 1);
        let files = units.closure(&open.module.name, *loaded_from);
        let declared: Vec<&crate::syntax::ast::ModuleParam> =
            module.params.iter().filter(|p| files.contains(&p.name.span.file)).collect();
        for arg in &open.args {
            if !declared.iter().any(|p| p.name.name == arg.name.name) {
                diagnostics.push(unknown_parameter(open, arg, &declared));
                continue;
            }
            let text = arg_text(arg, module, sources);
            if let Some(first) = given[unit].get(&arg.name.name) {
                if first.text != text {
                    diagnostics.push(
                        Diagnostic::error(
                            "E0241",
                            format!(
                                "the parameter `{}` of `{}` is given two arguments",
                                arg.name.name, open.module.name
                            ),
                        )
                        .primary(module.span(arg.value), format!("`{text}` here"))
                        .secondary(module.span(first.arg.value), format!("`{}` here", first.text))
                        .help(format!(
                            "the module is shared by every file that opens it without `as`: give it one argument, or open an \
                             instance of its own (`open {} (...) as NAME`)",
                            open.module.name
                        )),
                    );
                }
                continue;
            }
            given[unit].insert(arg.name.name.clone(), Given { arg, text });
        }
    }
}

fn unknown_parameter(open: &Open, arg: &OpenArgument, declared: &[&crate::syntax::ast::ModuleParam]) -> Diagnostic {
    let d = Diagnostic::error("E0240", format!("module `{}` has no parameter `{}`", open.module.name, arg.name.name))
        .primary(arg.name.span, "no parameter of this name");
    if declared.is_empty() {
        return d.note(format!("`{}` declares no parameters (`[@param]`)", open.module.name));
    }
    let names: Vec<String> = declared.iter().map(|p| format!("`{}`", p.name.name)).collect();
    d.note(format!("its parameters: {}", names.join(", ")))
}

fn wrong_kind(module: &Module, arg: &OpenArgument, param: &Ident, kind: &str, expected: &str) -> Diagnostic {
    Diagnostic::error("E0240", format!("the parameter `{}` is {kind}", param.name))
        .primary(module.span(arg.value), format!("expected {expected}"))
        .secondary(param.span, "declared here")
}

/// A type argument: a name (`float32`, a record) or `M.t`.
fn type_argument(module: &Module, arg: &OpenArgument) -> Option<TypeExpr> {
    match module.expr(arg.value) {
        ExprKind::Var(Path { module: None, name }) => Some(TypeExpr::Named(name.clone())),
        ExprKind::Var(Path { module: Some(m), name }) => {
            Some(TypeExpr::Qualified { module: (**m).clone(), name: name.clone() })
        }
        _ => None,
    }
}

/// A function argument's name as the calls in the copy must say it (an instance's function by its renamed name).
fn function_argument(module: &Module, arg: &OpenArgument, units: &Units) -> Option<Name> {
    match module.expr(arg.value) {
        ExprKind::Var(Path { module: None, name }) => Some(name.name.clone()),
        ExprKind::Var(Path { module: Some(m), name }) => {
            if units.instances.iter().any(|i| i.alias.name == m.name) {
                Some(Name::new(&format!("{}_{}", m.name, name.name)))
            } else {
                Some(name.name.clone())
            }
        }
        _ => None,
    }
}

/// `-D real=float32` for the shared copy's type parameter `real`: taken out of the type checker's definitions.
fn type_define(typeck: &mut TypeckOptions, name: &Ident) -> Option<TypeExpr> {
    let position = typeck.defines.iter().position(|(n, _)| *n == name.name.as_str())?;
    let (_, text) = typeck.defines.remove(position);
    Some(TypeExpr::Named(Ident { name: Name::new(text.trim()), span: name.span }))
}

impl Renamer {
    /// A type parameter becomes its type wherever a type is written; called as a function (`real x`), it names
    /// the conversion to its type (`float32 x`), so that a module converts into its precision.
    fn type_parameter(&mut self, name: Name, ty: TypeExpr) {
        if let TypeExpr::Named(ident) = &ty {
            self.values.insert(name.clone(), ident.name.clone());
        }
        self.types.insert(name, ty);
    }

    /// Renames item `index`'s name (in an instance), its written types and the names its body uses.
    fn item(&mut self, module: &mut Module, index: usize) {
        let mut item = module.items[index].clone();
        let mut scope: Vec<Name> = Vec::new();
        let mut roots: Vec<ExprId> = Vec::new();
        if let (Some(prefix), false) = (&self.prefix, matches!(item, Item::Open(_))) {
            let name = Name::new(&format!("{prefix}_{}", item.name().name));
            set_item_name(&mut item, name);
        }
        match &mut item {
            Item::Kernel(k) => {
                for p in &mut k.params {
                    self.type_opt(&mut p.ty, &mut roots);
                    scope.push(p.name.name.clone());
                }
                roots.push(k.body);
            }
            Item::Function(f) => {
                for p in &mut f.params {
                    self.type_opt(&mut p.ty, &mut roots);
                    scope.push(p.name.name.clone());
                }
                self.type_opt(&mut f.ret, &mut roots);
                roots.push(f.body);
            }
            Item::Constant(c) => {
                self.type_opt(&mut c.ty, &mut roots);
                roots.push(c.value);
            }
            Item::Record(r) => {
                for (_, ty) in &mut r.fields {
                    self.ty(ty, &mut roots);
                }
            }
            Item::Open(_) => {}
        }
        module.items[index] = item;
        let body = roots.pop();
        for root in roots {
            self.expr(module, root, &mut Vec::new());
        }
        if let Some(body) = body {
            self.expr(module, body, &mut scope);
        }
    }

    fn type_opt(&mut self, ty: &mut Option<TypeExpr>, sizes: &mut Vec<ExprId>) {
        if let Some(ty) = ty {
            self.ty(ty, sizes);
        }
    }

    /// Replaces type parameters and an instance's records in `ty`; the sizes of `T[N]` go to `sizes`.
    fn ty(&mut self, ty: &mut TypeExpr, sizes: &mut Vec<ExprId>) {
        match ty {
            TypeExpr::Named(name) => {
                if let Some(new) = self.types.get(&name.name) {
                    *ty = with_span(new.clone(), name.span);
                }
            }
            TypeExpr::Qualified { module, name } => {
                let found = match self.alias_types.get(&module.name) {
                    Some(types) => types.get(&name.name).cloned(),
                    None if self.own_modules.contains(&module.name) => self.types.get(&name.name).cloned(),
                    None => None,
                };
                if let Some(new) = found {
                    *ty = with_span(new, name.span);
                }
            }
            TypeExpr::Variable(_) => {}
            TypeExpr::Apply { arg, .. } | TypeExpr::QualifiedApply { arg, .. } => self.ty(arg, sizes),
            TypeExpr::Sized { elem, size, .. } => {
                self.ty(elem, sizes);
                sizes.insert(0, *size);
            }
            TypeExpr::Function { params, ret } => {
                for p in params {
                    self.ty(p, sizes);
                }
                self.ty(ret, sizes);
            }
            TypeExpr::Tuple(components) => {
                for c in components {
                    self.ty(c, sizes);
                }
            }
        }
    }

    /// Renames the names `id` uses that are not bound by a local of `scope`.
    fn expr(&mut self, module: &mut Module, id: ExprId, scope: &mut Vec<Name>) {
        if id.index() >= module.exprs.len() {
            return;
        }
        let mut sizes = Vec::new();
        match &mut module.exprs[id.index()] {
            ExprKind::Var(path) | ExprKind::Call { callee: path, .. } | ExprKind::Assign { target: path, .. } => {
                if let Some(new) = self.path(path, scope) {
                    *path = new;
                }
            }
            ExprKind::Global(ident) => {
                if let Some(new) = self.values.get(&ident.name) {
                    ident.name = new.clone();
                }
            }
            ExprKind::Let { ty: Some(ty), .. }
            | ExprKind::Annot { ty, .. }
            | ExprKind::LetArray { elem: Some(ty), .. } => {
                let mut ty_copy = (**ty).clone();
                self.ty(&mut ty_copy, &mut sizes);
                if let ExprKind::Let { ty: Some(t), .. }
                | ExprKind::Annot { ty: t, .. }
                | ExprKind::LetArray { elem: Some(t), .. } = &mut module.exprs[id.index()]
                {
                    **t = ty_copy;
                }
            }
            _ => {}
        }
        for size in sizes {
            self.expr(module, size, scope);
        }
        match module.exprs[id.index()].clone() {
            ExprKind::Let { binder, value, body, .. } => {
                self.expr(module, value, scope);
                self.bound(module, body, scope, binder.name().map(|i| i.name.clone()));
            }
            ExprKind::LetArray { name, size, body, .. } => {
                self.expr(module, size, scope);
                self.bound(module, body, scope, Some(name.name));
            }
            ExprKind::For { var, start, end, body, .. } => {
                self.expr(module, start, scope);
                self.expr(module, end, scope);
                self.bound(module, body, scope, Some(var.name));
            }
            kind => {
                let mut children = Vec::new();
                for_each_child(&kind, |c| children.push(c));
                for child in children {
                    self.expr(module, child, scope);
                }
            }
        }
    }

    fn bound(&mut self, module: &mut Module, body: ExprId, scope: &mut Vec<Name>, name: Option<Name>) {
        let pushed = name.is_some();
        scope.extend(name);
        self.expr(module, body, scope);
        if pushed {
            scope.pop();
        }
    }

    /// The path `path` becomes, if it changes.
    fn path(&mut self, path: &Path, scope: &[Name]) -> Option<Path> {
        let unqualified = |name: Name, span: Span| Path { module: None, name: Ident { name, span } };
        match &path.module {
            None if scope.contains(&path.name.name) => None,
            None => self.values.get(&path.name.name).map(|new| unqualified(new.clone(), path.name.span)),
            Some(m) if self.own_modules.contains(&m.name) => {
                self.values.get(&path.name.name).map(|new| unqualified(new.clone(), path.name.span))
            }
            Some(m) if self.refused.contains(&m.name) && !self.aliases.contains_key(&m.name) => {
                Some(unqualified(Name::new("{error}"), path.span()))
            }
            Some(m) => {
                let values = self.aliases.get(&m.name)?;
                match values.get(&path.name.name) {
                    Some(new) => Some(unqualified(new.clone(), path.span())),
                    None => {
                        self.diagnostics.push(
                            Diagnostic::error("E0200", format!("unknown name `{}`", path.display())).primary(
                                path.span(),
                                format!("the instance `{}` defines no `{}`", m.name, path.name.name),
                            ),
                        );
                        // Reported: a name the type checker takes for an earlier error's.
                        Some(unqualified(Name::new("{error}"), path.span()))
                    }
                }
            }
        }
    }
}

fn set_item_name(item: &mut Item, name: Name) {
    match item {
        Item::Kernel(k) => k.name.name = name,
        Item::Function(f) => f.name.name = name,
        Item::Constant(c) => c.name.name = name,
        Item::Record(r) => r.name.name = name,
        Item::Open(_) => {}
    }
}

/// `ty` with its names at `span` (where the parameter is used, so that type errors point there).
fn with_span(ty: TypeExpr, span: Span) -> TypeExpr {
    match ty {
        TypeExpr::Named(i) => TypeExpr::Named(Ident { span, ..i }),
        other => other,
    }
}

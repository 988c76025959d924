//! Device functions passed as arguments of device functions, specialised away before type checking.
//!
//! A parameter of a device function is a *function parameter* when the body calls it (`op a b`), when its type is
//! written as a function type (`(op : float32 -> float32 -> float32)`), or when the body passes it on to a function
//! parameter of another function. A function with such parameters is a *template*: it is never checked, analysed
//! or emitted itself. Each call of it names, at its function parameters, device functions or builtins
//! (`reduce_block add x`); each distinct choice makes one *instance*, a copy of the template's body in which every
//! use of a function parameter names the chosen function, without those parameters (`reduce_block__add x`).
//! Instances are made from the kernels and the other functions outward, and from each instance's own calls, so
//! a function passed on through several templates reaches the innermost one. Every later pass (the generic
//! machinery, the type checker, the convergence analysis, the emitter, the interpreter) sees plain functions and
//! calls: there is no function value and no function pointer anywhere after this pass, and the convergence
//! analysis analyses each instance with the argument function in place.
//!
//! A *closure* can be chosen too: a device function applied to fewer arguments than it takes, as `syntax::lift`
//! writes an anonymous or local function that uses variables around it (`map (fun x -> x *. scale) buf`
//! becomes `map (fun_12 scale) buf`). The instance (`map__fun_12`) is keyed by the function alone; the applied
//! arguments become trailing parameters of the instance (`f_scale`, after the template's own), which each call
//! of the parameter passes first (`fun_12 f_scale x`) and each call of the instance passes last (`map__fun_12
//! buf scale`, read after the other arguments, as the closure would read them when called). Passed on to another
//! template inside an instance, the closure is the same function applied to those parameters. The convergence
//! analysis needs nothing more: a captured value is an argument at each call, analysed in the context of the
//! call like any other. A closure over a function that itself takes a function (an anonymous function that
//! calls a function parameter around it) is E0205.
//!
//! A written function type is checked at each call of the parameter: the arguments and the result are annotated
//! with its types (`(add (a : float32) (b : float32) : float32)`), so a function of another type is a type error
//! at the call, in the instance. A template that no call instantiates is not checked.
//!
//! Reported here (E0233): a function parameter used other than called or passed on to a function parameter,
//! assigned, or given something that is not a function; a chosen function hidden, where the template calls it,
//! by a local variable of the same name. A function used as a value elsewhere is reported by the type checker
//! (E0233 too), and a function type anywhere but on a device function's parameter by the lowering of types.

use crate::builtins;
use crate::diagnostic::Diagnostic;
use crate::fxhash::FxHashMap;
use crate::source::Span;
use crate::syntax::ast::{
    for_each_child, ExprId, ExprKind, Function, Ident, Item, Module, Name, Param, Path, TypeExpr,
};

use super::generic::identifier_part;
use super::specialise::copy_subtree;

/// At most this many instances of templates per program (each is a copy of a function's body).
const MAX_INSTANCES: usize = 10_000;

/// A program whose function parameters are specialised away.
pub(crate) struct FunctionArgs {
    pub(crate) module: Module,
    /// For each item of `module`, the item of the written program it comes from.
    pub(crate) origins: Vec<usize>,
    /// For each item of `module` that is an instance of a template, how a diagnostic inside it names the instance.
    pub(crate) notes: Vec<Option<String>>,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

/// Makes one function per template and choice of functions, and renames the calls.
pub(crate) fn specialise_function_args(module: Module) -> FunctionArgs {
    let unchanged = |module: Module| {
        let origins = (0..module.items.len()).collect();
        let notes = vec![None; module.items.len()];
        FunctionArgs { module, origins, notes, diagnostics: Vec::new() }
    };
    if !may_take_functions(&module) {
        return unchanged(module);
    }
    let values = Values::of(&module);
    let function_params = function_params(&module, &values);
    if function_params.iter().all(|params| !params.contains(&true)) {
        return unchanged(module);
    }
    let mut specialiser = Specialiser {
        taken: module.items.iter().map(|item| item.name().name.to_string()).collect(),
        module,
        values,
        function_params,
        instances: Vec::new(),
        keys: FxHashMap::default(),
        diagnostics: Vec::new(),
    };
    specialiser.run();
    specialiser.finish()
}

/// Can a parameter of some device function be a function parameter? Only where one is written with a function
/// type or a body calls a name that is one of its function's parameters (perhaps a local that hides it there,
/// which only [`function_params`] tells apart); a parameter passed on is one only where the receiving one is.
/// Most programs have neither, and skip [`function_params`], a scoped walk of each body with vectors of its own.
fn may_take_functions(module: &Module) -> bool {
    let mut stack = Vec::new();
    module.functions().any(|function| {
        function.params.iter().any(|p| matches!(p.ty, Some(TypeExpr::Function { .. })))
            || calls_a_parameter(module, function, &mut stack)
    })
}

/// Does the body of `function` call an unqualified name that is one of its parameters' names? (`stack`: scratch.)
fn calls_a_parameter(module: &Module, function: &Function, stack: &mut Vec<ExprId>) -> bool {
    stack.clear();
    stack.push(function.body);
    while let Some(id) = stack.pop() {
        let Some(kind) = module.exprs.get(id.index()) else { continue };
        if let ExprKind::Call { callee, .. } = kind {
            if callee.module.is_none() && function.params.iter().any(|p| p.name.name == callee.name.name) {
                return true;
            }
        }
        for_each_child(kind, |child| stack.push(child));
    }
    false
}

/// What a name written in a body refers to there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Resolved {
    /// The parameter at this index of the function whose body it is.
    Param(usize),
    /// A variable bound inside the body.
    Local,
    /// The function item at this index of `Module::items`.
    Function(usize),
    Builtin,
    /// A constant, a kernel, or nothing known.
    Other,
}

/// The top-level value names: the first item of each name, as the type checker resolves them.
struct Values {
    items: FxHashMap<Name, Option<usize>>,
}

impl Values {
    fn of(module: &Module) -> Values {
        let mut items: FxHashMap<Name, Option<usize>> = FxHashMap::default();
        for (index, item) in module.items.iter().enumerate() {
            let function = match item {
                Item::Function(_) => Some(index),
                Item::Kernel(_) | Item::Constant(_) => None,
                Item::Record(_) | Item::Open(_) => continue,
            };
            items.entry(item.name().name.clone()).or_insert(function);
        }
        Values { items }
    }

    fn item(&self, name: &str) -> Resolved {
        match self.items.get(name) {
            Some(Some(function)) => Resolved::Function(*function),
            Some(None) => Resolved::Other,
            None if builtins::lookup(name).is_some() => Resolved::Builtin,
            None => Resolved::Other,
        }
    }
}

/// The names bound at a point of a body, innermost last: a parameter (with its index) or a local.
#[derive(Default)]
struct Scope {
    bound: Vec<(Name, Option<usize>)>,
}

impl Scope {
    fn resolve(&self, path: &Path, values: &Values) -> Resolved {
        match &path.module {
            Some(m) if builtins::BUILTIN_MODULES.contains(&m.name.as_str()) => Resolved::Builtin,
            Some(_) => values.item(&path.name.name),
            None => match self.bound.iter().rev().find(|(name, _)| *name == path.name.name) {
                Some((_, Some(param))) => Resolved::Param(*param),
                Some((_, None)) => Resolved::Local,
                None => values.item(&path.name.name),
            },
        }
    }

    fn binds_local(&self, name: &str) -> bool {
        self.bound.iter().any(|(bound, _)| *bound == name)
    }
}

enum Step {
    Visit(ExprId),
    Bind(Name),
    Unbind(usize),
}

/// Calls `visit` on every node under `root` with the names bound there (`params` first), without recursion.
fn walk_scoped(module: &Module, root: ExprId, params: &[Name], mut visit: impl FnMut(ExprId, &ExprKind, &Scope)) {
    let mut scope = Scope { bound: params.iter().enumerate().map(|(i, name)| (name.clone(), Some(i))).collect() };
    let mut steps = vec![Step::Visit(root)];
    while let Some(step) = steps.pop() {
        let id = match step {
            Step::Visit(id) => id,
            Step::Bind(name) => {
                scope.bound.push((name, None));
                continue;
            }
            Step::Unbind(len) => {
                scope.bound.truncate(len);
                continue;
            }
        };
        let Some(kind) = module.exprs.get(id.index()) else { continue };
        visit(id, kind, &scope);
        // What is visited before the name is bound, last first (no vector: one per `let` otherwise).
        let (name, before, body) = match kind {
            ExprKind::Let { binder, value, body, .. } => {
                (binder.name().map(|n| n.name.clone()), [Some(*value), None], *body)
            }
            ExprKind::LetArray { name, size, body, .. } => (Some(name.name.clone()), [Some(*size), None], *body),
            ExprKind::For { var, start, end, body, .. } => (Some(var.name.clone()), [Some(*end), Some(*start)], *body),
            other => {
                for_each_child(other, |child| steps.push(Step::Visit(child)));
                continue;
            }
        };
        steps.push(Step::Unbind(scope.bound.len()));
        steps.push(Step::Visit(body));
        if let Some(name) = name {
            steps.push(Step::Bind(name));
        }
        steps.extend(before.into_iter().flatten().map(Step::Visit));
    }
}

/// For each item, which of its parameters are function parameters (empty for items that are not functions).
fn function_params(module: &Module, values: &Values) -> Vec<Vec<bool>> {
    let mut marked: Vec<Vec<bool>> = vec![Vec::new(); module.items.len()];
    // (caller item, callee item, argument position, caller's parameter passed there)
    let mut forwards: Vec<(usize, usize, usize, usize)> = Vec::new();
    for (index, item) in module.items.iter().enumerate() {
        let Item::Function(function) = item else { continue };
        marked[index] = function.params.iter().map(|p| matches!(p.ty, Some(TypeExpr::Function { .. }))).collect();
        let names: Vec<Name> = function.params.iter().map(|p| p.name.name.clone()).collect();
        walk_scoped(module, function.body, &names, |_, kind, scope| {
            let ExprKind::Call { callee, args } = kind else { return };
            match scope.resolve(callee, values) {
                Resolved::Param(param) => marked[index][param] = true,
                Resolved::Function(callee) => {
                    for (position, arg) in args.iter().enumerate() {
                        if let Some(ExprKind::Var(path)) = module.exprs.get(arg.index()) {
                            if let Resolved::Param(param) = scope.resolve(path, values) {
                                forwards.push((index, callee, position, param));
                            }
                        }
                    }
                }
                Resolved::Local | Resolved::Builtin | Resolved::Other => {}
            }
        });
    }
    let mut changed = true;
    while changed {
        changed = false;
        for &(caller, callee, position, param) in &forwards {
            if marked[callee].get(position) == Some(&true) && !marked[caller][param] {
                marked[caller][param] = true;
                changed = true;
            }
        }
    }
    marked
}

/// A function chosen for a function parameter: a device function (an item), a closure (a device function
/// applied to this many leading arguments) or a builtin (as written).
#[derive(Clone, Debug)]
enum Chosen {
    Function(usize),
    Closure(usize, usize),
    Builtin(Path),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum ChosenKey {
    Function(usize),
    Closure(usize, usize),
    Builtin(String),
}

impl Chosen {
    fn key(&self) -> ChosenKey {
        match self {
            Chosen::Function(item) => ChosenKey::Function(*item),
            Chosen::Closure(item, applied) => ChosenKey::Closure(*item, *applied),
            Chosen::Builtin(path) => ChosenKey::Builtin(path.display()),
        }
    }

    /// How many values travel with the function: a closure's applied arguments.
    fn captured(&self) -> usize {
        match self {
            Chosen::Closure(_, applied) => *applied,
            Chosen::Function(_) | Chosen::Builtin(_) => 0,
        }
    }
}

/// A value passed with a closure at a call of a template: an argument written at the call (the closure's
/// applied argument), or a captured-value parameter of the instance the call is in (a closure passed on).
#[derive(Clone, Debug)]
enum Captured {
    Written(ExprId),
    Param(Name),
}

/// An instance a body asks for: the template and the functions chosen at its parameters.
type Request = (usize, Vec<Option<Chosen>>);

/// One instance of a template.
struct Instance {
    template: usize,
    chosen: Vec<Option<Chosen>>,
    /// For each parameter of the template, the instance's parameters that hold its closure's captured values.
    captured: Vec<Vec<Name>>,
    function: Function,
    note: String,
}

/// A change to a node, applied after the walk of the body that asks for it.
enum Edit {
    /// A use of a function parameter: it names the chosen function instead (a `Var` or a call's callee).
    Rename(ExprId, Path),
    /// A call of a function parameter whose closure captured values: they are passed first (the instance's
    /// parameters that hold them).
    PassCaptured(ExprId, Vec<Name>),
    /// A call of an annotated function parameter: its arguments after the first `skip` (the captured values) and
    /// its result get the annotation's types.
    Annotate { call: ExprId, ty: TypeExpr, skip: usize },
    /// A call of a template: it calls the instance, without the function arguments, with the values captured by
    /// closures last.
    CallInstance { call: ExprId, name: Name, keep: Vec<ExprId>, captured: Vec<Captured> },
    /// An error was reported here: the node becomes an error node (no cascade).
    Error(ExprId),
}

struct Specialiser {
    module: Module,
    values: Values,
    function_params: Vec<Vec<bool>>,
    instances: Vec<Instance>,
    keys: FxHashMap<(usize, Vec<Option<ChosenKey>>), usize>,
    taken: crate::fxhash::FxHashSet<String>,
    diagnostics: Vec<Diagnostic>,
}

impl Specialiser {
    fn is_template(&self, item: usize) -> bool {
        self.function_params.get(item).is_some_and(|params| params.contains(&true))
    }

    /// Walks every body that is not a template's, then every instance's as it is made.
    fn run(&mut self) {
        for index in 0..self.module.items.len() {
            let (body, names) = match &self.module.items[index] {
                Item::Kernel(k) => (k.body, k.params.iter().map(|p| p.name.name.clone()).collect::<Vec<_>>()),
                Item::Function(f) if !self.is_template(index) => {
                    (f.body, f.params.iter().map(|p| p.name.name.clone()).collect())
                }
                _ => continue,
            };
            self.specialise_body(body, &names, &[], &[], None, None);
        }
        let mut next = 0;
        while next < self.instances.len() {
            let template = self.instances[next].template;
            let Item::Function(function) = &self.module.items[template] else {
                unreachable!("templates are functions")
            };
            let names: Vec<Name> = function.params.iter().map(|p| p.name.name.clone()).collect();
            let annotations: Vec<Option<TypeExpr>> = function.params.iter().map(|p| p.ty.clone()).collect();
            let chosen = self.instances[next].chosen.clone();
            let captured = self.instances[next].captured.clone();
            let body = self.instances[next].function.body;
            let note = self.instances[next].note.clone();
            self.specialise_body(body, &names, &chosen, &captured, Some(&annotations), Some(note));
            next += 1;
        }
    }

    /// Rewrites one body: uses of function parameters name the `chosen` functions (with the values their
    /// closures captured, in the parameters `captured` names), calls of templates call their instances.
    #[allow(clippy::too_many_arguments)]
    fn specialise_body(
        &mut self,
        body: ExprId,
        names: &[Name],
        chosen: &[Option<Chosen>],
        captured: &[Vec<Name>],
        annotations: Option<&[Option<TypeExpr>]>,
        note: Option<String>,
    ) {
        let mut edits = Vec::new();
        let mut requests = Vec::new();
        let mut diagnostics = Vec::new();
        walk_scoped(&self.module, body, names, |id, kind, scope| {
            let chosen_at = |path: &Path| match scope.resolve(path, &self.values) {
                Resolved::Param(param) => chosen.get(param).cloned().flatten().map(|c| (param, c)),
                _ => None,
            };
            match kind {
                ExprKind::Var(path) => {
                    if let Some((_, c)) = chosen_at(path) {
                        edits.push(self.rename(id, path, &c, scope, &mut diagnostics));
                    }
                }
                ExprKind::Assign { target, .. } if chosen_at(target).is_some() => {
                    diagnostics.push(
                        Diagnostic::error(
                            "E0233",
                            format!("the function parameter `{}` is assigned", target.name.name),
                        )
                        .primary(target.span(), "a function parameter can only be called or passed on"),
                    );
                    edits.push(Edit::Error(id));
                }
                ExprKind::Call { callee, args } => {
                    if let Some((param, c)) = chosen_at(callee) {
                        edits.push(self.rename(id, callee, &c, scope, &mut diagnostics));
                        let passed = captured.get(param).cloned().unwrap_or_default();
                        let skip = passed.len();
                        if !passed.is_empty() {
                            edits.push(Edit::PassCaptured(id, passed));
                        }
                        let annotation = annotations.and_then(|a| a.get(param).cloned().flatten());
                        if let Some(ty @ TypeExpr::Function { .. }) = annotation {
                            edits.push(Edit::Annotate { call: id, ty, skip });
                        }
                    } else if let Resolved::Function(template) = scope.resolve(callee, &self.values) {
                        if self.is_template(template) {
                            let within = (chosen, captured);
                            let edit = self.template_call(id, callee, args, template, scope, within, &mut diagnostics);
                            if let Some((request, _)) = &edit {
                                requests.push(request.clone());
                            }
                            edits.push(edit.map_or(Edit::Error(id), |(_, edit)| edit));
                        }
                    }
                }
                _ => {}
            }
        });
        self.diagnostics.extend(diagnostics.into_iter().map(|d| match &note {
            Some(note) => d.note(note.clone()),
            None => d,
        }));
        for (template, chosen_functions) in requests {
            self.instance(template, chosen_functions);
        }
        for edit in edits {
            self.apply(edit);
        }
    }

    /// The edit that makes a use of a function parameter name the chosen function, reporting the case where a
    /// local of the body hides that function's name.
    fn rename(
        &self,
        id: ExprId,
        path: &Path,
        chosen: &Chosen,
        scope: &Scope,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Edit {
        let span = path.span();
        let written = match chosen {
            Chosen::Function(item) | Chosen::Closure(item, _) => {
                Path { module: None, name: self.module.items[*item].name().clone() }
            }
            Chosen::Builtin(path) => path.clone(),
        };
        if written.module.is_none() && scope.binds_local(&written.name.name) {
            diagnostics.push(
                Diagnostic::error(
                    "E0233",
                    format!("the function `{}` passed as `{}` is hidden here", written.name.name, path.name.name),
                )
                .primary(span, format!("a local variable named `{}` is in scope here", written.name.name))
                .help("rename the local variable"),
            );
            return Edit::Error(id);
        }
        let module = written.module.map(|m| Box::new(Ident { name: m.name, span }));
        Edit::Rename(id, Path { module, name: Ident { name: written.name.name, span } })
    }

    /// A call of `template`: the functions chosen at its function parameters (reported if one is not a function)
    /// and the edit that calls the instance.
    #[allow(clippy::too_many_arguments)]
    fn template_call(
        &self,
        call: ExprId,
        callee: &Path,
        args: &[ExprId],
        template: usize,
        scope: &Scope,
        within: (&[Option<Chosen>], &[Vec<Name>]),
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<(Request, Edit)> {
        let positions = &self.function_params[template];
        let mut chosen_functions = Vec::new();
        let mut keep = Vec::new();
        let mut captured = Vec::new();
        let mut ok = true;
        for (position, is_function) in positions.iter().enumerate() {
            let Some(&arg) = args.get(position) else {
                if *is_function {
                    diagnostics.push(self.missing_function(callee, position, template));
                    return None;
                }
                chosen_functions.push(None);
                continue;
            };
            if !*is_function {
                keep.push(arg);
                chosen_functions.push(None);
                continue;
            }
            match self.chosen_function(arg, scope, within) {
                Some((_, Chosen::Closure(item, _))) if self.is_template(item) => {
                    diagnostics.push(self.closure_over_template(arg, item));
                    ok = false;
                }
                Some((values, c)) => {
                    captured.extend(values);
                    chosen_functions.push(Some(c));
                }
                // Already reported where it was made an error node.
                None if matches!(self.module.exprs[arg.index()], ExprKind::Error) => ok = false,
                None => {
                    diagnostics.push(self.not_a_function(arg, position, template));
                    ok = false;
                }
            }
        }
        keep.extend(args.iter().skip(positions.len()));
        if !ok {
            return None;
        }
        let name = self.instance_name(template, &chosen_functions);
        Some(((template, chosen_functions), Edit::CallInstance { call, name, keep, captured }))
    }

    /// The function an argument at a function parameter names, with the values that travel with it: a device
    /// function, a builtin, a closure (a device function applied to fewer arguments than it takes), or the
    /// function chosen for a function parameter of the body it is in (`within`: the chosen functions and the
    /// parameters that hold their captured values).
    fn chosen_function(
        &self,
        arg: ExprId,
        scope: &Scope,
        within: (&[Option<Chosen>], &[Vec<Name>]),
    ) -> Option<(Vec<Captured>, Chosen)> {
        let path = match &self.module.exprs[arg.index()] {
            ExprKind::Var(path) => path,
            ExprKind::Call { callee, args } => return self.closure(arg, callee, args, scope),
            _ => return None,
        };
        match scope.resolve(path, &self.values) {
            Resolved::Function(item) => Some((Vec::new(), Chosen::Function(item))),
            Resolved::Builtin => Some((Vec::new(), Chosen::Builtin(path.clone()))),
            Resolved::Param(param) => {
                let chosen = within.0.get(param).cloned().flatten()?;
                let names = within.1.get(param).cloned().unwrap_or_default();
                Some((names.into_iter().map(Captured::Param).collect(), chosen))
            }
            Resolved::Local | Resolved::Other => None,
        }
    }

    /// `f a b` at a function parameter, where the device function `f` takes more arguments than that: a closure
    /// whose captured values are `a b`. A closure `syntax::lift` made (spanned as the argument it was written as,
    /// callee and all) may apply every parameter: a local function written with `()`, called as `f ()`.
    fn closure(&self, arg: ExprId, callee: &Path, args: &[ExprId], scope: &Scope) -> Option<(Vec<Captured>, Chosen)> {
        let Resolved::Function(item) = scope.resolve(callee, &self.values) else { return None };
        let Item::Function(function) = &self.module.items[item] else { return None };
        let lifted = callee.span() == self.module.expr_spans[arg.index()];
        let applies_all = args.len() == function.params.len();
        if args.is_empty() || args.len() > function.params.len() || (applies_all && !lifted) {
            return None;
        }
        Some((args.iter().map(|&a| Captured::Written(a)).collect(), Chosen::Closure(item, args.len())))
    }

    /// E0205: a closure whose function calls a function it captured (`fun x -> g x + a`, `g` a function parameter
    /// around it), named by the captured parameter.
    fn closure_over_template(&self, arg: ExprId, item: usize) -> Diagnostic {
        let called = match &self.module.items[item] {
            Item::Function(f) => (f.params.iter().zip(&self.function_params[item]))
                .find(|(_, is_function)| **is_function)
                .map(|(p, _)| p.name.name.to_string())
                .unwrap_or_default(),
            _ => String::new(),
        };
        Diagnostic::error("E0205", format!("a function passed as an argument that calls `{called}`, a function parameter around it, is not supported"))
            .primary(self.module.expr_spans[arg.index()], format!("this function calls `{called}`"))
            .help(format!("pass `{called}` itself where a function is expected, or give the value the function computes as an argument"))
    }

    fn param_name(&self, template: usize, position: usize) -> String {
        match &self.module.items[template] {
            Item::Function(f) => f.params.get(position).map(|p| p.name.name.to_string()).unwrap_or_default(),
            _ => String::new(),
        }
    }

    fn not_a_function(&self, arg: ExprId, position: usize, template: usize) -> Diagnostic {
        let param = self.param_name(template, position);
        let name = self.module.items[template].name();
        Diagnostic::error("E0233", format!("`{}` expects a function for `{param}`", name.name))
            .primary(self.module.expr_spans[arg.index()], "this is not the name of a function")
            .secondary(name.span, format!("`{param}` is a function parameter of `{}`", name.name))
            .help("pass the name of a device function or a builtin")
    }

    fn missing_function(&self, callee: &Path, position: usize, template: usize) -> Diagnostic {
        let param = self.param_name(template, position);
        Diagnostic::error("E0202", format!("`{}` is called without its function argument `{param}`", callee.display()))
            .primary(callee.span(), format!("pass the function for `{param}` here"))
    }

    /// The name the instance of `template` at `chosen` has, or will have once made.
    fn instance_name(&self, template: usize, chosen: &[Option<Chosen>]) -> Name {
        let key = (template, chosen.iter().map(|c| c.as_ref().map(Chosen::key)).collect::<Vec<_>>());
        match self.keys.get(&key) {
            Some(index) => self.instances[*index].function.name.name.clone(),
            None => Name::new(&self.fresh_name(template, chosen)),
        }
    }

    /// `template__f`, `template__f_g`: the template's name, `__`, then the chosen functions' names in order (a `_`
    /// added while the name is taken).
    fn fresh_name(&self, template: usize, chosen: &[Option<Chosen>]) -> String {
        let parts: Vec<String> = chosen.iter().flatten().map(|c| identifier_part(&self.chosen_name(c))).collect();
        let mut name = format!("{}__{}", self.module.items[template].name().name, parts.join("_"));
        while self.taken.contains(&name) {
            name.push('_');
        }
        name
    }

    fn chosen_name(&self, chosen: &Chosen) -> String {
        match chosen {
            Chosen::Function(item) | Chosen::Closure(item, _) => self.module.items[*item].name().name.to_string(),
            Chosen::Builtin(path) => path.display(),
        }
    }

    /// Makes the instance of `template` at `chosen` if it does not exist yet (its body is walked later).
    fn instance(&mut self, template: usize, chosen: Vec<Option<Chosen>>) {
        let key = (template, chosen.iter().map(|c| c.as_ref().map(Chosen::key)).collect::<Vec<_>>());
        if self.keys.contains_key(&key) {
            return;
        }
        let name = self.fresh_name(template, &chosen);
        let Item::Function(function) = self.module.items[template].clone() else { return };
        if self.instances.len() == MAX_INSTANCES {
            self.diagnostics.push(
                Diagnostic::error(
                    "E0233",
                    format!("more than {MAX_INSTANCES} instances of functions passed as arguments"),
                )
                .primary(function.name.span, format!("`{name}` would be one more")),
            );
            return;
        }
        self.taken.insert(name.clone());
        let (body, _) = copy_subtree(&mut self.module, function.body);
        let captured = self.captured_params(&function, &chosen);
        let mut params: Vec<Param> =
            function.params.iter().zip(&chosen).filter(|(_, c)| c.is_none()).map(|(p, _)| p.clone()).collect();
        for (names, param) in captured.iter().zip(&function.params) {
            params.extend(names.iter().map(|name| Param {
                name: Ident { name: name.clone(), span: param.name.span },
                ty: None,
                span: param.span,
            }));
        }
        let described: Vec<String> = function
            .params
            .iter()
            .zip(&chosen)
            .filter_map(|(p, c)| Some(format!("{} = {}", p.name.name, self.chosen_name(c.as_ref()?))))
            .collect();
        let note = format!("in the instance `{name}` of `{}` with {}", function.name.name, described.join(", "));
        let copy = Function {
            name: Ident { name: Name::new(&name), span: function.name.span },
            params,
            ret: function.ret.clone(),
            body,
            span: function.span,
        };
        self.keys.insert(key, self.instances.len());
        self.instances.push(Instance { template, chosen, captured, function: copy, note });
    }

    /// For each parameter of `template`, the names of the instance's parameters that hold the values its closure
    /// captured: `op_scale` for the value the closure's function takes as `scale`, made distinct from every name
    /// the template's body and parameters use (so no binding there hides it).
    fn captured_params(&self, template: &Function, chosen: &[Option<Chosen>]) -> Vec<Vec<Name>> {
        let mut used: crate::fxhash::FxHashSet<String> =
            template.params.iter().map(|p| p.name.name.to_string()).collect();
        walk_scoped(&self.module, template.body, &[], |_, kind, _| match kind {
            ExprKind::Var(path) | ExprKind::Call { callee: path, .. } | ExprKind::Assign { target: path, .. } => {
                used.insert(path.name.name.to_string());
            }
            ExprKind::Let { binder, .. } => used.extend(binder.name().map(|n| n.name.to_string())),
            ExprKind::LetArray { name, .. } | ExprKind::For { var: name, .. } => {
                used.insert(name.name.to_string());
            }
            _ => {}
        });
        let mut all = Vec::with_capacity(chosen.len());
        for (param, c) in template.params.iter().zip(chosen) {
            let Some(c @ Chosen::Closure(item, _)) = c else {
                all.push(Vec::new());
                continue;
            };
            let Item::Function(function) = &self.module.items[*item] else { unreachable!("closures are of functions") };
            let mut names = Vec::with_capacity(c.captured());
            for value in function.params.iter().take(c.captured()) {
                let mut name = format!("{}_{}", param.name.name, value.name.name);
                while used.contains(&name) {
                    name.push('_');
                }
                used.insert(name.clone());
                names.push(Name::new(&name));
            }
            all.push(names);
        }
        all
    }

    fn apply(&mut self, edit: Edit) {
        match edit {
            Edit::Rename(id, path) => match &mut self.module.exprs[id.index()] {
                ExprKind::Var(written) | ExprKind::Call { callee: written, .. } => *written = path,
                _ => {}
            },
            Edit::PassCaptured(call, names) => self.pass_captured(call, names),
            Edit::Annotate { call, ty: TypeExpr::Function { params, ret }, skip } => {
                self.annotate(call, params, *ret, skip)
            }
            Edit::Annotate { .. } => {}
            Edit::CallInstance { call, name, mut keep, captured } => {
                let span = self.module.expr_spans[call.index()];
                for value in captured {
                    keep.push(match value {
                        Captured::Written(arg) => arg,
                        Captured::Param(name) => self.var(name, span),
                    });
                }
                if keep.is_empty() {
                    keep.push(self.module.alloc(ExprKind::Unit, Span { start: span.end, ..span }));
                }
                if let ExprKind::Call { callee, args } = &mut self.module.exprs[call.index()] {
                    *callee = Path { module: None, name: Ident { name, span: callee.span() } };
                    *args = keep;
                }
            }
            Edit::Error(id) => self.module.exprs[id.index()] = ExprKind::Error,
        }
    }

    fn var(&mut self, name: Name, span: Span) -> ExprId {
        self.module.alloc(ExprKind::Var(Path { module: None, name: Ident { name, span } }), span)
    }

    /// `op a` where `op` is the closure `f` over `x`: `f op_x a` (`op_x` the instance's parameter that holds `x`);
    /// `op ()` where `f` takes only its captured values is `f op_x`.
    fn pass_captured(&mut self, call: ExprId, names: Vec<Name>) {
        let span = self.module.expr_spans[call.index()];
        let ExprKind::Call { args, .. } = &self.module.exprs[call.index()] else { return };
        let args = args.clone();
        let mut passed: Vec<ExprId> = names.into_iter().map(|name| self.var(name, span)).collect();
        let unit_only = args.len() == 1 && matches!(self.module.exprs[args[0].index()], ExprKind::Unit);
        let takes = match &self.module.exprs[call.index()] {
            ExprKind::Call { callee, .. } => self.values.item(&callee.name.name),
            _ => Resolved::Other,
        };
        let takes_only_captured = match takes {
            Resolved::Function(item) => match &self.module.items[item] {
                Item::Function(f) => f.params.len() == passed.len(),
                _ => false,
            },
            _ => false,
        };
        if !(unit_only && takes_only_captured) {
            passed.extend(args);
        }
        if let ExprKind::Call { args, .. } = &mut self.module.exprs[call.index()] {
            *args = passed;
        }
    }

    /// `op a b` with `op : t1 -> t2 -> r` becomes `(f (a : t1) (b : t2) : r)`; the first `skip` arguments (a
    /// closure's captured values) keep their types.
    fn annotate(&mut self, id: ExprId, params: Vec<TypeExpr>, ret: TypeExpr, skip: usize) {
        let ExprKind::Call { callee, args } = self.module.exprs[id.index()].clone() else { return };
        let annotated: Vec<ExprId> = args
            .iter()
            .enumerate()
            .map(|(i, arg)| match i.checked_sub(skip).and_then(|i| params.get(i)) {
                // `f ()` calls a function without parameters: the `()` stays as written.
                Some(ty) if !matches!(self.module.exprs[arg.index()], ExprKind::Unit) => {
                    let span = self.module.expr_spans[arg.index()];
                    self.module.alloc(ExprKind::Annot { expr: *arg, ty: Box::new(ty.clone()) }, span)
                }
                _ => *arg,
            })
            .collect();
        let span = self.module.expr_spans[id.index()];
        let call = self.module.alloc(ExprKind::Call { callee, args: annotated }, span);
        self.module.exprs[id.index()] = ExprKind::Annot { expr: call, ty: Box::new(ret) };
    }

    /// The items: each template replaced by its instances, in the order they were made.
    fn finish(mut self) -> FunctionArgs {
        let mut by_template: FxHashMap<usize, Vec<Instance>> = FxHashMap::default();
        for instance in std::mem::take(&mut self.instances) {
            by_template.entry(instance.template).or_default().push(instance);
        }
        let items = std::mem::take(&mut self.module.items);
        let (mut origins, mut notes, mut out) = (Vec::new(), Vec::new(), Vec::new());
        for (index, item) in items.into_iter().enumerate() {
            if !self.is_template(index) {
                out.push(item);
                origins.push(index);
                notes.push(None);
                continue;
            }
            for instance in by_template.remove(&index).unwrap_or_default() {
                out.push(Item::Function(instance.function));
                origins.push(index);
                notes.push(Some(instance.note));
            }
        }
        self.module.items = out;
        FunctionArgs { module: self.module, origins, notes, diagnostics: self.diagnostics }
    }
}

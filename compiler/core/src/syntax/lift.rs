//! Local functions (`let f x = e in rest` inside a kernel or a function, as Sarek accepts them) become top-level
//! functions: lambda lifting, before name resolution and type checking, so every later pass (the type checker,
//! the convergence analysis, the emitter, the interpreter) sees only top-level functions.
//!
//! A local function may use the variables in scope where it is defined. Each one it uses (its captures) becomes
//! a leading parameter of the lifted function, and each call passes the variable itself: the callee reads the
//! value the variable has at the call, as a closure would. That is exact for immutable bindings, loop variables,
//! `mut` variables the function only reads, ref cells (passed as references: a `:=` through one is seen by the
//! caller) and arrays and vectors (passed as pointers). Two cases cannot be expressed this way and are reported
//! (E0205): a `:=` on a captured `mut` variable (a parameter is a copy), and a call where a captured name is
//! shadowed by a later binding (the call could not name the captured variable). A local function used as a
//! value rather than called or passed as an argument is reported too.
//!
//! The lifted function keeps the local name when no top-level item and no other lifted function has it, else it
//! is `outer_f` (with a number if that is taken too). Its body keeps its spans, so diagnostics point into the
//! kernel where the function was written.
//!
//! An anonymous function, `(fun a b -> body)`, is a local function named after its line (`fun_12`, from the
//! parser) that is lifted where it is written. As an argument of a call it becomes the lifted function's name,
//! which a device function's function parameter takes (`typeck::function_args` makes the instance
//! `reduce_block__fun_12`). One that uses variables around it (and a local function with captures passed by
//! name) becomes the lifted function applied to its captured variables, `fun_12 scale`: a *closure*, which
//! `typeck::function_args` takes apart (the instance gets the captured values as parameters of its own and
//! passes them to every call of the function). The captured variables are read where the call passes the
//! closure, as a call of a local function reads them: nothing can assign a captured `mut` variable while the
//! callee runs (a `:=` on one in the function is E0205 above, and the callee cannot name it), and a ref cell
//! travels by reference. Anywhere else (bound by `let`, returned, stored, given to a parameter the callee does
//! not call) it names the lifted function, or applies it, which the type checker reports as a function used as
//! a value (E0233).

use crate::diagnostic::Diagnostic;
use crate::fxhash::{FxHashMap, FxHashSet};
use crate::source::Span;
use crate::syntax::ast::{
    for_each_child, Binder, ExprId, ExprKind, Function, Ident, Item, LetKind, Module, Param, Path, TypeExpr,
};
use crate::syntax::name::Name;

/// A local function as the parser found it; its `let` binds the name to `()` until it is lifted.
pub struct LocalFunction {
    pub let_expr: ExprId,
    pub name: Ident,
    pub params: Vec<Param>,
    pub ret: Option<TypeExpr>,
    pub body: ExprId,
    pub span: Span,
    /// `(fun params -> body)`: its `let`'s body is the function's name alone.
    pub anonymous: bool,
}

/// Lifts the local functions of the items from `first_item` on; a lifted function goes right before the item
/// it was defined in.
pub fn lift_local_functions(module: &mut Module, first_item: usize, locals: Vec<LocalFunction>) -> Vec<Diagnostic> {
    if locals.is_empty() {
        return Vec::new();
    }
    let taken: FxHashSet<Name> = module.items.iter().map(|item| item.name().name.clone()).collect();
    let mut lifter = Lifter {
        module,
        locals: locals.into_iter().map(|l| (l.let_expr, l)).collect(),
        scope: Vec::new(),
        frames: Vec::new(),
        next_binding: 0,
        taken,
        lifted: Vec::new(),
        functions: Vec::new(),
        diagnostics: Vec::new(),
    };
    let items = std::mem::take(&mut lifter.module.items);
    let mut out = Vec::with_capacity(items.len());
    for (index, item) in items.into_iter().enumerate() {
        let (outer, params, body) = match &item {
            Item::Kernel(k) if index >= first_item => (k.name.name.clone(), &k.params, k.body),
            Item::Function(f) if index >= first_item => (f.name.name.clone(), &f.params, f.body),
            _ => {
                out.push(item);
                continue;
            }
        };
        for param in params {
            lifter.bind(&param.name.name, Binding::Local { mutable: false });
        }
        lifter.walk(body, &outer);
        lifter.scope.clear();
        out.append(&mut lifter.lifted);
        out.push(item);
    }
    lifter.module.items = out;
    lifter.diagnostics
}

#[derive(Clone, Copy)]
enum Binding {
    Local {
        mutable: bool,
    },
    /// A local function: its index in `Lifter::functions`.
    Function(usize),
}

struct Entry {
    name: Name,
    id: u32,
    binding: Binding,
}

/// A local function whose body is being walked: the scope it was defined in ends at `base`.
struct Frame {
    base: usize,
    /// The outer bindings the body uses, as (binding id, name, whether it is a `mut` variable).
    captures: Vec<(u32, Name, bool)>,
}

/// A lifted function, as its calls need it.
struct Lifted {
    name: Ident,
    captures: Vec<(u32, Name)>,
    unit_call: bool,
    anonymous: bool,
}

struct Lifter<'m> {
    module: &'m mut Module,
    locals: FxHashMap<ExprId, LocalFunction>,
    scope: Vec<Entry>,
    frames: Vec<Frame>,
    next_binding: u32,
    taken: FxHashSet<Name>,
    /// The functions lifted from the item being walked, in the order they must be defined.
    lifted: Vec<Item>,
    /// Every lifted function, as its calls need it.
    functions: Vec<Lifted>,
    diagnostics: Vec<Diagnostic>,
}

impl Lifter<'_> {
    fn bind(&mut self, name: &Name, binding: Binding) {
        self.next_binding += 1;
        self.scope.push(Entry { name: name.clone(), id: self.next_binding, binding });
    }

    /// The innermost binding of `name` and its position in the scope.
    fn lookup(&self, name: &str) -> Option<(usize, &Entry)> {
        self.scope.iter().enumerate().rev().find(|(_, e)| e.name == name)
    }

    /// Records a use of the binding at scope position `at` as a capture of every local function being walked
    /// that was defined inside its scope.
    fn note_use(&mut self, at: usize) {
        let (id, name, mutable) = match self.scope[at] {
            Entry { ref name, id, binding: Binding::Local { mutable } } => (id, name.clone(), mutable),
            Entry { binding: Binding::Function(_), .. } => return,
        };
        for frame in self.frames.iter_mut().rev() {
            if at >= frame.base {
                break;
            }
            if !frame.captures.iter().any(|c| c.0 == id) {
                frame.captures.push((id, name.clone(), mutable));
            }
        }
    }

    fn error(&mut self, span: Span, what: String, label: &str, help: &str) {
        self.diagnostics
            .push(Diagnostic::error("E0205", format!("{what} is not supported")).primary(span, label).help(help));
    }

    fn walk(&mut self, e: ExprId, outer: &Name) {
        if self.locals.contains_key(&e) {
            return self.lift(e, outer);
        }
        let kind = self.module.exprs[e.index()].clone();
        match kind {
            ExprKind::Let { binder, kind, value, body, .. } => {
                self.walk(value, outer);
                let depth = self.scope.len();
                if let Binder::Name(name) = &binder {
                    self.bind(&name.name, Binding::Local { mutable: kind == LetKind::Mutable });
                }
                self.walk(body, outer);
                self.scope.truncate(depth);
            }
            ExprKind::LetArray { name, size, body, .. } => {
                self.walk(size, outer);
                let depth = self.scope.len();
                self.bind(&name.name, Binding::Local { mutable: false });
                self.walk(body, outer);
                self.scope.truncate(depth);
            }
            ExprKind::For { var, start, end, body, .. } => {
                self.walk(start, outer);
                self.walk(end, outer);
                let depth = self.scope.len();
                self.bind(&var.name, Binding::Local { mutable: false });
                self.walk(body, outer);
                self.scope.truncate(depth);
            }
            ExprKind::Var(path) => self.var(e, &path),
            ExprKind::Assign { target, value } => {
                self.walk(value, outer);
                self.assign(&target);
            }
            ExprKind::Call { callee, args } => {
                for &arg in &args {
                    if self.locals.get(&arg).is_some_and(|l| l.anonymous) {
                        self.anonymous_argument(arg, outer);
                    } else if !self.passed_function(arg) {
                        self.walk(arg, outer);
                    }
                }
                self.call(e, &callee, args);
            }
            other => {
                let mut children = Vec::new();
                for_each_child(&other, |c| children.push(c));
                for child in children {
                    self.walk(child, outer);
                }
            }
        }
    }

    fn var(&mut self, e: ExprId, path: &Path) {
        if path.module.is_some() {
            return;
        }
        match self.lookup(&path.name.name) {
            // An anonymous function anywhere but an argument: it names the lifted function, which the type checker
            // reports as a function used as a value (E0233).
            Some((_, Entry { binding: Binding::Function(index), .. })) if self.functions[*index].anonymous => {
                let name = Ident { name: self.functions[*index].name.name.clone(), span: self.module.span(e) };
                self.module.exprs[e.index()] = ExprKind::Var(Path { module: None, name });
            }
            Some((_, Entry { binding: Binding::Function(_), .. })) => {
                let what = format!("the local function `{}` used as a value", path.name.name);
                self.error(path.name.span, what, "a local function can only be called", "call it with its arguments");
            }
            Some((at, _)) => self.note_use(at),
            None => {}
        }
    }

    /// An argument that names a local function: it names the lifted function instead, applied to its captured
    /// variables if it has any (a closure; passed to a function parameter, `typeck::function_args` specialises
    /// it; anywhere else the type checker reports it).
    fn passed_function(&mut self, arg: ExprId) -> bool {
        let ExprKind::Var(path) = &self.module.exprs[arg.index()] else { return false };
        if path.module.is_some() {
            return false;
        }
        let span = path.name.span;
        let Some((_, Entry { binding: Binding::Function(index), .. })) = self.lookup(&path.name.name) else {
            return false;
        };
        let index = *index;
        let name = Ident { name: self.functions[index].name.name.clone(), span };
        self.function_argument(arg, index, name, span);
        true
    }

    /// Puts the lifted function `index` in the argument `arg`'s place: its name, or a closure (the name applied to
    /// the captured variables, read here) when it has captures. Reported (E0205) where a captured variable is
    /// shadowed at `arg`.
    fn function_argument(&mut self, arg: ExprId, index: usize, name: Ident, span: Span) {
        let captures = self.functions[index].captures.clone();
        if captures.is_empty() {
            self.module.exprs[arg.index()] = ExprKind::Var(Path { module: None, name });
            return;
        }
        let Some(args) = self.captured_args(&captures, &format!("passing `{}`", name.name), span) else {
            self.module.exprs[arg.index()] = ExprKind::Error;
            return;
        };
        self.module.exprs[arg.index()] = ExprKind::Call { callee: Path { module: None, name }, args };
    }

    /// The captured variables as arguments at `span`, each noted as a use where it is read; `None` (reported) if
    /// one is shadowed there (`use_` says what the program does there: "calling `f`").
    fn captured_args(&mut self, captures: &[(u32, Name)], use_: &str, span: Span) -> Option<Vec<ExprId>> {
        let mut args = Vec::with_capacity(captures.len());
        for (id, captured) in captures {
            match self.lookup(captured) {
                Some((at, entry)) if entry.id == *id => {
                    self.note_use(at);
                    let path = Path { module: None, name: Ident { name: captured.clone(), span } };
                    args.push(self.module.alloc(ExprKind::Var(path), span));
                }
                _ => {
                    let what = format!("{use_} where the variable `{captured}` it uses is shadowed");
                    let help = format!("rename the later `{captured}`, or pass the value as a parameter");
                    self.error(span, what, "the call cannot name the captured variable here", &help);
                    return None;
                }
            }
        }
        Some(args)
    }

    fn assign(&mut self, target: &Path) {
        if target.module.is_some() {
            return;
        }
        let Some((at, entry)) = self.lookup(&target.name.name) else { return };
        let captured_mut = matches!(entry.binding, Binding::Local { mutable: true })
            && self.frames.last().is_some_and(|frame| at < frame.base);
        self.note_use(at);
        if captured_mut {
            let what = format!("assigning the captured `mut` variable `{}` in a local function", target.name.name);
            self.error(
                target.name.span,
                what,
                "a local function gets a copy of a `mut` variable",
                "make it a ref cell (`let x = ref 0 in ... x := v ... !x`), or pass the value in and return the new one",
            );
        }
    }

    /// A call of a local function becomes a call of the lifted one with the captured variables first.
    fn call(&mut self, e: ExprId, callee: &Path, mut args: Vec<ExprId>) {
        if callee.module.is_some() {
            return;
        }
        let Some((at, entry)) = self.lookup(&callee.name.name) else { return };
        let Binding::Function(index) = entry.binding else {
            // A call of a variable around the function (a function parameter of the enclosing function): a capture
            // like any other use, so the lifted function takes it as a parameter.
            self.note_use(at);
            return;
        };
        let lifted = &self.functions[index];
        let (name, captures, unit_call) = (lifted.name.clone(), lifted.captures.clone(), lifted.unit_call);
        let span = callee.name.span;
        let Some(mut leading) = self.captured_args(&captures, &format!("calling `{}`", callee.name.name), span) else {
            return;
        };
        if unit_call
            && !leading.is_empty()
            && args.len() == 1
            && matches!(self.module.exprs[args[0].index()], ExprKind::Unit)
        {
            args.clear();
        }
        leading.extend(args);
        self.module.exprs[e.index()] = ExprKind::Call { callee: Path { module: None, name }, args: leading };
    }

    /// `(fun params -> body)` as an argument: lifted, and the argument names the lifted function, applied to its
    /// captured variables if it uses any (a closure).
    fn anonymous_argument(&mut self, arg: ExprId, outer: &Name) {
        let index = self.lift_definition(arg, outer);
        let span = self.module.span(arg);
        let name = Ident { name: self.functions[index].name.name.clone(), span };
        self.function_argument(arg, index, name, span);
    }

    /// `let f params = function_body in rest`: lifts `f`, then walks `rest` with `f` in scope, and puts `rest`
    /// in the `let`'s place.
    fn lift(&mut self, e: ExprId, outer: &Name) {
        let ExprKind::Let { body: rest, .. } = self.module.exprs[e.index()].clone() else {
            unreachable!("a local function is recorded at its `let`")
        };
        let local_name = self.locals[&e].name.name.clone();
        let index = self.lift_definition(e, outer);
        // The rest, with `f` in scope; the `let` becomes the rest itself.
        let depth = self.scope.len();
        self.bind(&local_name, Binding::Function(index));
        self.walk(rest, outer);
        self.scope.truncate(depth);
        self.module.exprs[e.index()] = self.module.exprs[rest.index()].clone();
    }

    /// Lifts the local function recorded at `e` (its body walked in the scope of its definition); returns its
    /// index in `functions`.
    fn lift_definition(&mut self, e: ExprId, outer: &Name) -> usize {
        let local = self.locals.remove(&e).expect("a recorded local function");
        // The body, in the scope of the definition plus the parameters.
        let depth = self.scope.len();
        self.frames.push(Frame { base: depth, captures: Vec::new() });
        for param in &local.params {
            self.bind(&param.name.name, Binding::Local { mutable: false });
        }
        let mut nested_lifted = std::mem::take(&mut self.lifted);
        self.walk(local.body, outer);
        self.scope.truncate(depth);
        let mut frame = self.frames.pop().expect("the frame pushed above");
        // Captures in the order of their bindings: parameters read like the scope they come from.
        frame.captures.sort_by_key(|c| c.0);
        let name = self.lifted_name(outer, &local.name);
        let mut params: Vec<Param> = frame
            .captures
            .iter()
            .map(|(_, captured, _)| Param {
                name: Ident { name: captured.clone(), span: local.name.span },
                ty: None,
                span: local.name.span,
            })
            .collect();
        let unit_call = local.params.is_empty();
        params.extend(local.params);
        let function = Function { name: name.clone(), params, ret: local.ret, body: local.body, span: local.span };
        // Functions lifted from inside this body are defined before it.
        nested_lifted.append(&mut self.lifted);
        nested_lifted.push(Item::Function(function));
        self.lifted = nested_lifted;
        let captures = frame.captures.into_iter().map(|(id, n, _)| (id, n)).collect();
        self.functions.push(Lifted { name, captures, unit_call, anonymous: local.anonymous });
        self.functions.len() - 1
    }

    /// The local name when it is free, else `outer_name`, then `outer_name_2`, ...
    fn lifted_name(&mut self, outer: &Name, local: &Ident) -> Ident {
        let mut candidate = local.name.to_string();
        if self.taken.contains(candidate.as_str()) {
            candidate = format!("{outer}_{}", local.name);
            let stem = candidate.clone();
            let mut n = 2;
            while self.taken.contains(candidate.as_str()) {
                candidate = format!("{stem}_{n}");
                n += 1;
            }
        }
        let name = Name::new(&candidate);
        self.taken.insert(name.clone());
        Ident { name, span: local.span }
    }
}

//! Name resolution, type inference and constant evaluation over a parsed [`Module`], producing [`TypeInfo`].
//!
//! The checker runs in phases over the whole module (`items.rs`): register every top-level name (so items may
//! refer to each other in any order), lower record declarations, check and evaluate the constants in dependency
//! order, collect the signatures of functions and kernels, check their bodies, and finally (`finish.rs`) report
//! what could not be inferred, default the remaining type variables by class, run the checks that need final
//! types, and substitute every variable away. Per-expression rules live in `expr.rs` (the dispatcher, with one
//! helper per `ExprKind`), `bindings.rs`, `access.rs` and `calls.rs`; `infer.rs` owns unification, `consts.rs`
//! constant evaluation, `effects.rs` the written-parameter and call-graph facts, `report.rs` the wording of type
//! mismatches, `scope.rs` name lookup and `suggest.rs` the "did you mean" hints. Generic device functions are
//! `generic.rs` (the planning run: generalisation, instantiation at calls, the instances a program uses) and
//! `specialise.rs` (one copy of a function per instance); device functions passed as arguments are specialised
//! away before both (`function_args.rs`); [`check_program`] runs them all, then the final run.
//!
//! Diagnostics: `E0200` unknown name or type, `E0201` mismatched types, `E0202` wrong number of arguments, `E0203`
//! bad array size, `E0204` write to something read-only, `E0205` array literal outside a constant, `E0206`
//! recursion, `E0207` duplicate definition, `E0208` record field errors, `E0209` type cannot be inferred, `E0210`
//! not a function / not an array, `E0212` constant not computable, `E0213` `break`/`continue` outside a loop,
//! `E0214` bad kernel parameter type, `E0215` bad `-D` override, `E0219` a type that cannot be stored where it is,
//! `E0222` a `ref` cell or an array where only a value may go (`cells.rs`), `E0233` a function where a value is
//! expected or a value where a function is (`function_args.rs`), `W0003` discarded value (and `E0104` for
//! expressions nested too deeply to check).
//!
//! Invariants at the boundary: `expr_types` has one entry per expression and contains no `Type::Var`; an
//! expression of type `Type::Error` never causes a further diagnostic; nothing here panics on any parse result.

mod access;
mod annot;
mod bindings;
mod calls;
mod cells;
mod constants;
pub(crate) use annot::SCALAR_TYPES;
pub use constants::{command_line_source, COMMAND_LINE};
pub use printf::printf_arg;
mod consts;
mod dims;
mod effects;
mod expr;
mod finish;
mod function_args;
mod generic;
mod half;
mod infer;
mod items;
mod literals;
mod printf;
mod report;
mod sarek_names;
mod scope;
mod specialise;
mod storage;
mod suggest;
#[cfg(test)]
mod tests;
mod tuples;

use crate::diagnostic::Diagnostic;
use crate::source::{SourceMap, Span};
use crate::syntax::ast::{ExprId, ExprKind, ExprMap, Module};
use crate::syntax::name::Name;
use crate::types::{ConstantId, FunctionId, LocalId, LocalInfo, Mutability, Type, TypeInfo};

use effects::Effects;
use infer::VarTable;
use items::ItemRef;
use scope::{ItemTable, Scopes};

/// Options that change what the type checker computes.
#[derive(Clone, Debug, Default)]
pub struct TypeckOptions {
    /// `-D NAME=VALUE` overrides of top-level constants, as source text of a literal.
    pub defines: Vec<(String, String)>,
}

/// Resolves names, infers the type of every expression and evaluates constants, with every device function
/// monomorphic (one type, unified over its calls). [`check_program`] specialises generic functions first.
pub fn check_module(module: &Module, sources: &SourceMap, options: &TypeckOptions) -> (TypeInfo, Vec<Diagnostic>) {
    let mut checker = Checker::new(module, sources, options);
    checker.check_items();
    checker.finish()
}

/// A program after type checking, its generic functions specialised (see `generic` and `specialise`).
pub struct CheckedProgram {
    /// The program as checked: the written one, or, where a generic function is used at several types, the
    /// written one with that function replaced by its instances.
    pub module: Module,
    /// For each item of `module`, the item of the written program it comes from.
    pub item_origins: Vec<usize>,
    pub info: TypeInfo,
    pub diagnostics: Vec<Diagnostic>,
}

/// Type checks a program whose device functions may take functions as arguments and may be generic: first the
/// function parameters are specialised away (`function_args`), then a planning run finds each generic function's
/// instances; if one is used at several types, the program is specialised (one function per instance) and
/// checked again. All type diagnostics come from the final run.
pub fn check_program(module: Module, sources: &SourceMap, options: &TypeckOptions) -> CheckedProgram {
    let passed = function_args::specialise_function_args(module);
    let mut program = check_generic_program(passed.module, passed.notes, sources, options);
    program.item_origins = program.item_origins.iter().map(|origin| passed.origins[*origin]).collect();
    let mut diagnostics = passed.diagnostics;
    diagnostics.append(&mut program.diagnostics);
    program.diagnostics = diagnostics;
    program
}

/// [`check_program`] after function parameters are gone; `notes`: how a diagnostic names each item that is an
/// instance of a function taking functions.
fn check_generic_program(
    module: Module,
    notes: Vec<Option<String>>,
    sources: &SourceMap,
    options: &TypeckOptions,
) -> CheckedProgram {
    let check_as_written = |module: Module, notes: Vec<Option<String>>| {
        let (module, info, diagnostics) = check_final(module, notes, sources, options);
        let item_origins = (0..module.items.len()).collect();
        CheckedProgram { module, item_origins, info, diagnostics }
    };
    // A function whose parameters and result are all annotated without type variables has nothing to
    // generalise: a program of such functions needs no planning run.
    let concrete =
        |t: &Option<crate::syntax::ast::TypeExpr>| t.as_ref().is_some_and(|t| items::first_type_variable(t).is_none());
    let annotated = |f: &crate::syntax::ast::Function| concrete(&f.ret) && f.params.iter().all(|p| concrete(&p.ty));
    if module.functions().all(annotated) {
        return check_as_written(module, notes);
    }
    let (plan, function_items) = {
        let mut planner = Checker::new(&module, sources, options);
        planner.generics.enabled = true;
        planner.check_items();
        (planner.plan(), planner.info.functions.iter().map(|f| f.item).collect::<Vec<_>>())
    };
    if !plan.specialises() {
        return check_as_written(module, notes);
    }
    let specialised = specialise::specialise(&module, &plan, &function_items);
    let combined: Vec<Option<String>> = specialised
        .origins
        .iter()
        .zip(specialised.instance_notes)
        .map(|(origin, generic)| match (notes.get(*origin).cloned().flatten(), generic) {
            (Some(passed), Some(generic)) => Some(format!("{passed}; {generic}")),
            (passed, generic) => passed.or(generic),
        })
        .collect();
    let (module, info, diagnostics) = check_final(specialised.module, combined, sources, options);
    CheckedProgram { module, item_origins: specialised.origins, info, diagnostics }
}

/// The run whose types and diagnostics are the result: checks `module` (`notes`: how a diagnostic names each item
/// that is an instance), then makes its tuple types records (a pass over every type, skipped when the run made no
/// tuple type).
fn check_final(
    module: Module,
    notes: Vec<Option<String>>,
    sources: &SourceMap,
    options: &TypeckOptions,
) -> (Module, TypeInfo, Vec<Diagnostic>) {
    let (made_tuples, mut info, diagnostics) = {
        let mut checker = Checker::new(&module, sources, options);
        checker.instance_notes = notes;
        checker.check_items();
        let made_tuples = checker.made_tuples;
        let (info, diagnostics) = checker.finish();
        (made_tuples, info, diagnostics)
    };
    let mut module = module;
    if made_tuples {
        tuples::tuples_as_records(&mut module, &mut info);
    }
    (module, info, diagnostics)
}

/// The item whose body is being checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    /// Signatures and record declarations.
    TopLevel,
    Constant(ConstantId),
    Function(FunctionId),
    /// Index in `TypeInfo::kernels`.
    Kernel(usize),
}

/// What the rules need to know about the enclosing item.
#[derive(Clone, Debug)]
pub(crate) struct BodyContext {
    pub(crate) owner: Owner,
    /// What `return e` must produce (unit in kernels).
    pub(crate) return_type: Type,
    /// The return type annotation, shown when `return e` disagrees with it.
    pub(crate) return_annotation: Option<Span>,
    /// Number of enclosing `for`/`while` loops (for `break` and `continue`).
    pub(crate) loop_depth: u32,
    /// Where the kernel's dynamic shared array was declared, if it has one yet.
    pub(crate) dynamic_shared: Option<Span>,
}

impl BodyContext {
    fn top_level() -> BodyContext {
        BodyContext {
            owner: Owner::TopLevel,
            return_type: Type::Error,
            return_annotation: None,
            loop_depth: 0,
            dynamic_shared: None,
        }
    }
}

/// A check that needs final types, run after defaulting.
#[derive(Clone, Debug)]
pub(crate) enum Deferred {
    /// An operand of a comparison: it must be a number or a bool.
    Comparable { ty: Type, expr: ExprId },
    /// The left of `e1; e2`: a value other than unit is worth a warning.
    Discarded { expr: ExprId },
    /// An array written through before its kind was known: it must not turn out to be a constant array.
    Written { ty: Type, expr: ExprId },
    /// A rule on where `ref` cells and arrays may go (`E0222`), on a type not known when it was met.
    Cell { expr: ExprId, ty: Type, rule: cells::CellRule },
    /// A builtin or `**` that may not take a 16-bit float (`E0234`).
    Half { expr: ExprId, what: half::HalfUse },
}

/// Drops `ty`, testing inline for a type that holds no other (nothing to free, most of them): `Type`'s drop glue
/// is a call, made for every expression's type slot when it is written.
#[inline(always)]
pub(crate) fn drop_type(ty: Type) {
    use Type::*;
    // Every variant by name, so that a variant added to `Type` is placed on one side or the other.
    match ty {
        Vector(_) | Array { .. } | ConstArray { .. } | Ref(_) | Tuple(_) => drop(ty),
        leaf @ (Int32 | Int64 | UInt32 | UInt64 | Float32 | Float64 | Float16 | BFloat16 | Bool | Unit | Record(_)
        | Var(_) | Error) => std::mem::forget(leaf),
    }
}

/// Deepest expression nesting the checker follows (the parser already limits most nesting).
const MAX_DEPTH: u32 = 2000;

pub(crate) struct Checker<'a> {
    pub(crate) module: &'a Module,
    pub(crate) sources: &'a SourceMap,
    pub(crate) options: &'a TypeckOptions,
    /// The result being built; `expr_types` is filled from `types` at the end.
    pub(crate) info: TypeInfo,
    /// The type of each expression checked so far (may contain variables); `Type::Error` for one not checked.
    pub(crate) types: Vec<Type>,
    /// Whether each expression was checked (`types` holds its type). Kept apart from `types` so that the final
    /// substitution hands `types` over as `TypeInfo::expr_types` without converting every entry.
    pub(crate) typed: Vec<bool>,
    /// The checked expressions that `finish` checks again with their final types (`if`s whose condition may be
    /// constant, float literals that some float type does not hold exactly, tuples; see
    /// `check_final_expressions`), so that it passes over the others without reading their kind.
    pub(crate) final_checks: Vec<bool>,
    /// The assignments checked (`check_assign`, or too deep to check), for `finish`'s orphan names.
    pub(crate) checked_assigns: Vec<ExprId>,
    /// Which device functions some expression names (so that their instances are used).
    pub(crate) named_functions: Vec<bool>,
    pub(crate) vars: VarTable,
    pub(crate) diagnostics: Vec<Diagnostic>,
    pub(crate) items: ItemTable,
    /// For each entry of `module.items`, what it became.
    pub(crate) item_refs: Vec<ItemRef>,
    pub(crate) scopes: Scopes<'a>,
    pub(crate) ctx: BodyContext,
    pub(crate) effects: Effects,
    pub(crate) deferred: Vec<Deferred>,
    /// The value of the constant being checked: the one place an array literal is allowed.
    pub(crate) array_literal_root: Option<ExprId>,
    /// Constants whose value could not be computed (their uses stay silent).
    pub(crate) failed_constants: Vec<bool>,
    /// Constants already evaluated.
    pub(crate) evaluated_constants: Vec<bool>,
    pub(crate) depth: u32,
    pub(crate) too_deep_reported: bool,
    /// Statements, `(Seq node, rest)` pairs and the walk stack of the sequences being checked (see `check_seq`).
    pub(crate) seq_statements: Vec<ExprId>,
    pub(crate) seq_nodes: Vec<(ExprId, ExprId)>,
    pub(crate) seq_pending: Vec<ExprId>,
    /// How many more "did you mean" searches this check may run (see `suggest`).
    pub(crate) suggestions_left: std::cell::Cell<usize>,
    /// Generic functions: what the planning run learns (see `generic`).
    pub(crate) generics: generic::Generics,
    /// For each item, if it is an instance of a generic function used at several types, how it is named in
    /// the diagnostics of its body.
    pub(crate) instance_notes: Vec<Option<String>>,
    /// Anonymous functions reported as values (E0233): their parameters' types are not reported unknown too.
    pub(crate) anonymous_values: Vec<FunctionId>,
    /// The deferred checks (indices in `deferred`) that the body of an instance queued, with its note.
    pub(crate) deferred_instances: Vec<(std::ops::Range<usize>, String)>,
    /// Vectors of argument types given back after a call is checked, reused by the next call.
    pub(crate) spare_types: Vec<Vec<Type>>,
    /// The type variables (`'a`) of the signature or body being checked, each with the type it stands for;
    /// `None` where an annotation may not have any (records, constants).
    pub(crate) type_variables: Option<Vec<(Name, Type)>>,
    /// The type variables of each device function's signature, which its body's annotations share.
    pub(crate) signature_type_variables: crate::fxhash::FxHashMap<FunctionId, Vec<(Name, Type)>>,
    /// Whether a tuple type was made (a tuple expression or annotation): without one, no type of the result holds
    /// a tuple, and `tuples::tuples_as_records` (a pass over every type) has nothing to do.
    pub(crate) made_tuples: bool,
}

impl<'a> Checker<'a> {
    /// The tables that grow with the module start with room for a typical module (about 0.08 type variables,
    /// 0.11 locals and 0.12 deferred checks per expression in the benchmark's kernels): growing them by doubling
    /// copied each several times, about 12M instructions for a module of 100,000 lines. Room well beyond that
    /// is not free either: the allocator hands out fresh memory in large pages, which the kernel zeroes whole.
    fn new(module: &'a Module, sources: &'a SourceMap, options: &'a TypeckOptions) -> Checker<'a> {
        // About two expressions in five are names, each resolved (148,160 of 374,104 in the benchmark).
        let mut resolutions = ExprMap::with_expr_count(module.exprs.len());
        // Filled with `resize_with`: `vec![Type::Error; n]` clones its element n times, through `Type`'s clone.
        let mut types = Vec::with_capacity(module.exprs.len());
        types.resize_with(module.exprs.len(), || Type::Error);
        resolutions.reserve(module.exprs.len() / 2);
        Checker {
            module,
            sources,
            options,
            info: TypeInfo {
                resolutions,
                declared_local: ExprMap::with_expr_count(module.exprs.len()),
                locals: Vec::with_capacity(module.exprs.len() / 8),
                ..TypeInfo::default()
            },
            types,
            typed: vec![false; module.exprs.len()],
            final_checks: vec![false; module.exprs.len()],
            named_functions: Vec::new(),
            checked_assigns: Vec::new(),
            vars: VarTable::with_capacity(module.exprs.len() / 8),
            diagnostics: Vec::new(),
            items: ItemTable::default(),
            item_refs: Vec::new(),
            scopes: Scopes::default(),
            ctx: BodyContext::top_level(),
            effects: Effects::default(),
            deferred: Vec::with_capacity(module.exprs.len() / 6),
            array_literal_root: None,
            failed_constants: Vec::new(),
            evaluated_constants: Vec::new(),
            depth: 0,
            too_deep_reported: false,
            seq_statements: Vec::new(),
            seq_nodes: Vec::new(),
            seq_pending: Vec::new(),
            suggestions_left: std::cell::Cell::new(suggest::MAX_SEARCHES),
            generics: generic::Generics::default(),
            instance_notes: Vec::new(),
            anonymous_values: Vec::new(),
            deferred_instances: Vec::new(),
            spare_types: Vec::new(),
            type_variables: None,
            signature_type_variables: Default::default(),
            made_tuples: false,
        }
    }

    /// Every phase before `finish`.
    fn check_items(&mut self) {
        self.collect_items();
        self.lower_records();
        self.check_constants();
        self.apply_unknown_defines();
        self.collect_signatures();
        self.start_generics();
        self.check_bodies();
    }

    /// The expression `id` (an `Error` node if the id is out of range, which a well-formed module never has).
    pub(crate) fn kind(&self, id: ExprId) -> &'a ExprKind {
        const ERROR: &ExprKind = &ExprKind::Error;
        self.module.exprs.get(id.index()).unwrap_or(ERROR)
    }

    pub(crate) fn span(&self, id: ExprId) -> Span {
        self.module.expr_spans.get(id.index()).copied().unwrap_or_default()
    }

    /// The source text of an expression (empty if its file is unknown).
    pub(crate) fn snippet(&self, id: ExprId) -> &'a str {
        let span = self.span(id);
        let sources = self.sources;
        sources.files().find(|(file, _)| *file == span.file).and_then(|(_, f)| f.text.get(span.range())).unwrap_or("")
    }

    /// The type recorded for an expression already checked.
    pub(crate) fn type_of(&self, id: ExprId) -> Type {
        match self.types.get(id.index()) {
            Some(ty) => ty.clone(),
            None => Type::Error,
        }
    }

    /// Has expression `id` been checked (its type recorded)?
    pub(crate) fn is_typed(&self, id: ExprId) -> bool {
        self.typed.get(id.index()).copied().unwrap_or(false)
    }

    /// Marks `id` for `check_final_expressions`.
    pub(crate) fn mark_final_check(&mut self, id: ExprId) {
        if let Some(mark) = self.final_checks.get_mut(id.index()) {
            *mark = true;
        }
    }

    pub(crate) fn set_type(&mut self, id: ExprId, ty: Type) {
        if let (Some(slot), Some(typed)) = (self.types.get_mut(id.index()), self.typed.get_mut(id.index())) {
            if *typed {
                drop_type(std::mem::replace(slot, ty));
            } else {
                // A slot not written yet holds `Type::Error`, which owns nothing: it is overwritten without being
                // read. It is rarely in the cache (`new` filled the whole table), and reading it waited on memory.
                std::mem::forget(std::mem::replace(slot, ty));
                *typed = true;
            }
        }
    }

    pub(crate) fn local_info(&self, id: LocalId) -> Option<&LocalInfo> {
        self.info.locals.get(id.0 as usize)
    }

    /// The type of a local (as inferred so far).
    pub(crate) fn local_type(&self, id: LocalId) -> Type {
        match self.local_info(id) {
            Some(local) => local.ty.clone(),
            None => Type::Error,
        }
    }

    pub(crate) fn new_local(
        &mut self,
        name: &Name,
        ty: Type,
        mutability: Mutability,
        span: Span,
        param_index: Option<usize>,
    ) -> LocalId {
        self.info.locals.push(LocalInfo { name: name.clone(), ty, mutability, span, param_index });
        LocalId(self.info.locals.len() as u32 - 1)
    }

    /// Checks `body` in a new scope in which `local` is visible as `name`.
    pub(crate) fn check_in_scope(&mut self, name: &'a Name, local: LocalId, body: ExprId) -> Type {
        self.scopes.push();
        self.scopes.declare(name, local);
        let ty = self.check_expr(body);
        self.scopes.pop();
        ty
    }

    /// The expression whose value a block yields: the last of a sequence, the body of a `let`.
    pub(crate) fn tail(&self, mut id: ExprId) -> ExprId {
        loop {
            let next = match self.kind(id) {
                ExprKind::Seq(_, last) => *last,
                ExprKind::Let { body, .. } | ExprKind::LetArray { body, .. } => *body,
                _ => return id,
            };
            // Children are allocated before their parents, so this always terminates; stop on anything else.
            if next >= id {
                return id;
            }
            id = next;
        }
    }

    pub(crate) fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }
}

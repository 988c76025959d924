//! Rules for names and calls: a variable or constant read, `[%global name]`, a builtin used bare or applied
//! (its signature instantiated afresh at each use), and calls of device functions (exact arity, no partial
//! application). Calls also feed the effects table (writes through atomics, arguments passed, the call graph).

use crate::builtins::{Builtin, SigType};
use crate::diagnostic::Diagnostic;
use crate::source::Span;
use crate::syntax::ast::{ExprId, ExprKind, Ident, Path};
use crate::types::{FunctionId, LocalId, Resolution, Type};

use super::infer::Class;
use super::report::{Because, Reason};
use super::scope::{is_bogus_name, Named, ValueItem};
use super::{Checker, Owner};

/// The generic slots of one use of a builtin's signature: a short list (signatures use one or two slots), so an
/// instantiation allocates nothing until a slot is filled and never hashes.
#[derive(Default)]
struct Slots {
    filled: Vec<(u8, Type)>,
}

impl Slots {
    fn new() -> Slots {
        Slots::default()
    }

    fn get(&self, slot: u8) -> Option<&Type> {
        self.filled.iter().find(|(s, _)| *s == slot).map(|(_, ty)| ty)
    }

    fn insert(&mut self, slot: u8, ty: Type) {
        self.filled.push((slot, ty));
    }
}

const LAUNCH_HELP: &str = "a device-side launch is `launch kernel_name grid block shared_bytes arg1 ... argN`";

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn was_were(n: usize) -> &'static str {
    if n == 1 {
        "was"
    } else {
        "were"
    }
}

impl Checker<'_> {
    pub(crate) fn check_var(&mut self, id: ExprId, path: &Path) -> Type {
        match self.resolve_path(path, id) {
            None => Type::Error,
            Some(Named::Local(local)) => self.local_type(local),
            Some(Named::Item(ValueItem::Constant(c))) => self.constant_type(c.0 as usize),
            Some(Named::Item(ValueItem::Function(f))) => {
                self.report_function_not_called(path, f);
                Type::Error
            }
            Some(Named::Item(ValueItem::Kernel(_))) => {
                self.report_kernel_use(path);
                Type::Error
            }
            Some(Named::Builtin(builtin)) if builtin.params.is_empty() => {
                self.instantiate(builtin.ret, &mut Slots::new())
            }
            Some(Named::Builtin(builtin)) if builtin.params.first() == Some(&SigType::Kernel) => {
                self.report_launch_arity(path, 0);
                Type::Error
            }
            Some(Named::Builtin(builtin)) => {
                let help = format!("call it: `{} {}`", path.display(), self.placeholder_args(builtin.params.len()));
                self.report_arity(path, builtin.params.len(), 0, None, Some(help));
                Type::Error
            }
        }
    }

    /// Where function `f`'s name is written.
    fn function_name_span(&self, f: FunctionId) -> Option<Span> {
        let item = self.info.functions.get(f.0 as usize)?.item;
        self.module.items.get(item).map(|i| i.name().span)
    }

    fn constant_type(&self, index: usize) -> Type {
        self.info.constants.get(index).map(|c| c.ty.clone()).unwrap_or(Type::Error)
    }

    fn placeholder_args(&self, count: usize) -> String {
        ["x", "y", "z", "w"].iter().take(count.min(4)).copied().collect::<Vec<_>>().join(" ")
    }

    /// A device function named where a value is expected: functions are only called, or passed to a device
    /// function's function parameter (`typeck::function_args`).
    fn report_function_not_called(&mut self, path: &Path, f: FunctionId) {
        // An anonymous function (`syntax::lift` names it, at its own span) given where no function parameter is.
        if self.function_name_span(f) == Some(path.span()) {
            let d = Diagnostic::error("E0233", "an anonymous function used as a value")
                .primary(path.span(), "not an argument of a device function's function parameter")
                .note("an anonymous function is passed to a device function that calls it; a builtin, a parameter that is not called, a variable or a result cannot take one")
                .help("compute the value here, or pass the function to a device function that calls it");
            self.diagnostics.push(d);
            self.anonymous_values.push(f);
            return;
        }
        let count = self.info.functions.get(f.0 as usize).map(|f| f.params.len()).unwrap_or(0);
        let help = if count == 0 {
            format!("call it: `{} ()`", path.display())
        } else {
            format!("call it with its arguments: `{} {}`", path.display(), self.placeholder_args(count))
        };
        let mut d = Diagnostic::error("E0233", format!("the function `{}` is used as a value", path.display()))
            .primary(
                path.span(),
                "a function can only be called, or passed to a function parameter of a device function",
            )
            .help(help);
        if let Some(declared) = self.function_name_span(f) {
            d = d.secondary(declared, "defined here");
        }
        self.diagnostics.push(d);
    }

    fn report_kernel_use(&mut self, path: &Path) {
        let d = Diagnostic::error("E0210", format!("`{}` is a kernel, not a device function", path.display()))
            .primary(path.span(), "kernels are launched from the host, not called or used as values")
            .help("move the shared code into a device function that both can call");
        self.diagnostics.push(d);
    }

    /// `E0202`: "`f` takes 2 arguments but 1 was given".
    fn report_arity(
        &mut self,
        path: &Path,
        expected: usize,
        given: usize,
        declared: Option<Span>,
        help: Option<String>,
    ) {
        let takes = if expected == 0 { "no arguments".to_string() } else { plural(expected, "argument") };
        let mut d = Diagnostic::error(
            "E0202",
            format!("`{}` takes {takes} but {given} {} given", path.display(), was_were(given)),
        )
        .primary(path.span(), format!("expected {}", plural(expected, "argument")));
        if let Some(span) = declared {
            d = d.secondary(span, "defined here");
        }
        if let Some(help) = help {
            d = d.help(help);
        }
        self.diagnostics.push(d);
    }

    /// `[%global name]`: a top-level constant.
    pub(crate) fn check_global(&mut self, id: ExprId, name: &Ident) -> Type {
        if let Some(ValueItem::Constant(c)) = self.items.value(&name.name) {
            self.info.resolutions.insert(id, Resolution::Constant(c));
            return self.constant_type(c.0 as usize);
        }
        if is_bogus_name(&name.name) {
            return Type::Error;
        }
        let constants: Vec<String> = self.info.constants.iter().map(|c| c.name.clone()).collect();
        let mut d = Diagnostic::error("E0200", format!("`[%global {}]` must name a top-level constant", name.name))
            .primary(name.span, "no constant of this name");
        if let Some(s) = self.closest(&name.name, constants.iter().map(String::as_str)) {
            d = d.help(format!("did you mean `{s}`?"));
        }
        self.diagnostics.push(d);
        Type::Error
    }

    pub(crate) fn check_call(&mut self, id: ExprId, callee: &Path, args: &[ExprId]) -> Type {
        let resolved = self.resolve_path(callee, id);
        if let Some(Named::Builtin(builtin)) = resolved {
            if builtin.params.first() == Some(&SigType::Kernel) {
                return self.check_launch(id, callee, builtin.get(), args);
            }
            if builtin.params.first() == Some(&SigType::Format) {
                return self.check_printf(id, callee, args);
            }
        }
        // The argument types in a vector given back after the call: one allocation per call otherwise.
        let mut found = self.spare_types.pop().unwrap_or_default();
        for &arg in args {
            let ty = self.check_expr(arg);
            found.push(ty);
        }
        let checked = match resolved {
            None => Some(Type::Error),
            Some(Named::Builtin(builtin)) if self.is_packed_half_fma(builtin.get(), &found) => {
                Some(self.check_packed_half_fma(callee, args, &found))
            }
            Some(Named::Builtin(builtin)) => {
                let builtin = builtin.get();
                let ret = self.check_builtin_call(callee, builtin, args, &found);
                if !super::half::allows_half(builtin) {
                    let mut types = Vec::with_capacity(found.len() + 1);
                    types.extend_from_slice(&found);
                    types.push(ret.clone());
                    self.defer_half_check(id, super::half::HalfUse::Builtin { builtin, types });
                }
                Some(ret)
            }
            Some(Named::Item(ValueItem::Function(f))) => Some(self.check_function_call(id, callee, f, args, &found)),
            Some(Named::Item(ValueItem::Kernel(_))) => {
                self.report_kernel_use(callee);
                Some(Type::Error)
            }
            Some(Named::Item(ValueItem::Constant(_))) | Some(Named::Local(_)) => None,
        };
        found.clear();
        self.spare_types.push(found);
        if let Some(ty) = checked {
            return ty;
        }
        let what = match resolved {
            Some(Named::Local(_)) => "a local variable",
            _ => "a constant",
        };
        let d = Diagnostic::error("E0210", format!("`{}` is not a function", callee.display()))
            .primary(callee.span(), format!("this is {what}"))
            .help("if this ends a statement, insert `;` after it");
        self.diagnostics.push(d);
        Type::Error
    }

    /// `fma a b c` whose first operand is known to be a 16-bit pair (`float16x2`, `bfloat16x2`): lane by lane.
    fn is_packed_half_fma(&self, builtin: &Builtin, found: &[Type]) -> bool {
        builtin.name == "fma"
            && found.first().is_some_and(|t| crate::vectors::packed_half_of(self.vars.resolve_ref(t)).is_some())
    }

    /// The three operands of a 16-bit pair's `fma` are the same pair, which is the result.
    fn check_packed_half_fma(&mut self, callee: &Path, args: &[ExprId], found: &[Type]) -> Type {
        if args.len() != 3 {
            self.report_arity(callee, 3, args.len(), None, None);
            return Type::Error;
        }
        let pair = found[0].clone();
        let why = Because::describing(self.span(args[0]), "this is ", &pair);
        let mut ok = true;
        for (arg, ty) in args.iter().zip(found).skip(1) {
            ok &= self.expect_type_because(*arg, ty, &pair, why.clone());
        }
        if ok {
            pair
        } else {
            Type::Error
        }
    }

    /// `launch k grid block shared_bytes args...`: `k` names a kernel, the three launch numbers are int32, and
    /// `args` match `k`'s parameters. Every vector passed counts as written by the launching code: the child may
    /// write it while the parent runs, so its contents are not the parent's constants.
    fn check_launch(&mut self, id: ExprId, callee: &Path, builtin: &'static Builtin, args: &[ExprId]) -> Type {
        let fixed = builtin.params.len() - 1;
        let Some(&first) = args.first() else {
            self.report_launch_arity(callee, 0);
            return Type::Int32;
        };
        let kernel = self.launched_kernel(first);
        for &arg in &args[1..args.len().min(fixed)] {
            let found = self.check_expr(arg);
            self.expect_type(arg, &found, &Type::Int32);
        }
        let rest = args.get(fixed..).unwrap_or(&[]);
        let found: Vec<Type> = rest.iter().map(|a| self.check_expr(*a)).collect();
        if args.len() < fixed {
            self.report_launch_arity(callee, args.len());
            return Type::Int32;
        }
        let Some(kernel) = kernel else { return Type::Int32 };
        self.info.launches.insert(id, kernel);
        let params: Vec<LocalId> = self.info.kernels[kernel].params.iter().map(|p| p.local).collect();
        let (rest, found) = self.effective_args(params.len(), rest, &found);
        if rest.len() != params.len() {
            let declared = self.module.items.get(self.info.kernels[kernel].item).map(|i| i.name().span);
            let name = self.info.kernels[kernel].name.clone();
            let d = Diagnostic::error(
                "E0202",
                format!(
                    "kernel `{name}` takes {} but {} {} given",
                    plural(params.len(), "argument"),
                    rest.len(),
                    was_were(rest.len())
                ),
            )
            .primary(self.span(id), format!("launches `{name}` with {}", plural(rest.len(), "argument")));
            let d = match declared {
                Some(span) => d.secondary(span, "defined here"),
                None => d,
            };
            self.diagnostics.push(d.help(LAUNCH_HELP));
            return Type::Int32;
        }
        for ((param, arg), found) in params.iter().zip(rest).zip(found) {
            let Some(local) = self.local_info(*param) else { continue };
            let why = Because::of(local.span, Reason::Parameter(*param));
            let expected = local.ty.clone();
            self.expect_type_because(*arg, found, &expected, why);
            if matches!(self.vars.resolve_ref(found), Type::Vector(_)) {
                self.note_write(*arg);
            }
        }
        Type::Int32
    }

    fn report_launch_arity(&mut self, callee: &Path, given: usize) {
        let d = Diagnostic::error(
            "E0202",
            format!(
                "`{}` takes at least 4 arguments (kernel, grid, block, shared bytes) but {given} {} given",
                callee.display(),
                was_were(given)
            ),
        )
        .primary(callee.span(), "expected a kernel, its grid, block and shared bytes, then its arguments")
        .help(LAUNCH_HELP);
        self.diagnostics.push(d);
    }

    /// The kernel named by `launch`'s first argument (E0210 for anything else).
    fn launched_kernel(&mut self, arg: ExprId) -> Option<usize> {
        if let ExprKind::Var(path) = self.kind(arg) {
            match self.lookup_path(path) {
                Some(Named::Item(ValueItem::Kernel(k))) => {
                    self.set_type(arg, Type::Unit);
                    return Some(k);
                }
                Some(Named::Item(ValueItem::Function(_))) => {
                    let d = Diagnostic::error("E0210", "`launch` needs the name of a kernel".to_string())
                        .primary(self.span(arg), format!("`{}` is a device function, not a kernel", path.display()))
                        .help("call a device function directly, or launch a kernel that calls it");
                    self.diagnostics.push(d);
                    return None;
                }
                _ => {}
            }
        }
        let found = self.check_expr(arg);
        if found == Type::Error {
            return None;
        }
        let d = Diagnostic::error("E0210", "`launch` needs the name of a kernel".to_string())
            .primary(self.span(arg), format!("this is {}, not a kernel", self.describe(&found)))
            .help(LAUNCH_HELP);
        self.diagnostics.push(d);
        None
    }

    /// The arguments that count: `f ()` passes none to a function without parameters.
    fn effective_args<'x>(
        &self,
        param_count: usize,
        args: &'x [ExprId],
        found: &'x [Type],
    ) -> (&'x [ExprId], &'x [Type]) {
        if param_count == 0 && args.len() == 1 && matches!(self.kind(args[0]), ExprKind::Unit) {
            (&[], &[])
        } else {
            (args, found)
        }
    }

    fn check_builtin_call(
        &mut self,
        callee: &Path,
        builtin: &'static Builtin,
        args: &[ExprId],
        found: &[Type],
    ) -> Type {
        let (args, found) = self.effective_args(builtin.params.len(), args, found);
        let mut slots = Slots::new();
        if args.len() != builtin.params.len() {
            self.report_arity(callee, builtin.params.len(), args.len(), None, None);
            return match builtin.ret {
                SigType::Var(..) | SigType::ArrayOf(..) => Type::Error,
                concrete => self.instantiate(concrete, &mut slots),
            };
        }
        for ((param, arg), found) in builtin.params.iter().zip(args).zip(found) {
            match *param {
                SigType::ArrayOf(slot, class) => {
                    let elem = self.slot_type(slot, class, &mut slots);
                    self.expect_array_of(*arg, found, &elem);
                }
                other => {
                    let expected = self.instantiate(other, &mut slots);
                    self.expect_type(*arg, found, &expected);
                }
            }
        }
        if builtin.warp_uniform_args {
            self.check_named_barrier_constants(args);
        }
        if let (Some(kind), Some(first)) = (crate::vectors::VectorKind::accessed_by(builtin), args.first()) {
            self.check_vector_storage(kind, *first);
        }
        if crate::builtins::is_shuffle_with_width(builtin) {
            self.check_shuffle_width(callee, args);
        }
        if builtin.orders_memory
            && !builtin.writes_first_arg
            && matches!(builtin.params.first(), Some(SigType::ArrayOf(..)))
        {
            if let Some(first) = args.first() {
                self.note_atomic_load(*first);
            }
        }
        if builtin.writes_first_arg {
            if let (Some(first), Some(found)) = (args.first(), found.first()) {
                self.check_array_writable(*first, found);
                self.note_write(*first);
            }
        }
        self.instantiate(builtin.ret, &mut slots)
    }

    /// A vector load or store needs its array's base aligned to the vector's size: every array skc declares is
    /// aligned when one reaches it, but a constant array is `__constant__` memory laid out for its elements (E0230).
    fn check_vector_storage(&mut self, kind: crate::vectors::VectorKind, array: ExprId) {
        let ty = self.type_of(array);
        if let Type::ConstArray { .. } = self.vars.resolve(&ty) {
            let name = kind.name();
            let d = Diagnostic::error("E0230", format!("a `{name}` load or store cannot use a constant array"))
                .primary(self.span(array), "a constant array is aligned only to its elements")
                .note(format!(
                    "a `{name}` moves {} bytes at once, from an address that is a multiple of {}",
                    kind.size(),
                    kind.size()
                ))
                .help("read the elements one by one, or copy the table into a shared or local array first");
            self.diagnostics.push(d);
        }
    }

    /// A named barrier's id and thread count, where known at compile time (E0216): ids 1..15 (barrier 0 is
    /// `block_barrier`'s, and the hardware has 16), counts positive multiples of 32 up to 1024 (whole warps).
    fn check_named_barrier_constants(&mut self, args: &[ExprId]) {
        use crate::types::ConstValue;
        if let Some(Ok(ConstValue::Int(id))) = args.first().map(|a| self.eval_const(*a)) {
            if !(1..=15).contains(&id) {
                let d = Diagnostic::error("E0216", format!("named barrier id {id} is out of range"))
                    .primary(self.span(args[0]), "expected an id from 1 to 15")
                    .note("barrier 0 is the one `block_barrier` uses; the hardware has 16 per block")
                    .help("give each group of warps that synchronises together its own id in 1..15");
                self.diagnostics.push(d);
            }
        }
        if let Some(Ok(ConstValue::Int(count))) = args.get(1).map(|a| self.eval_const(*a)) {
            if count <= 0 || count % 32 != 0 || count > 1024 {
                let d = Diagnostic::error("E0216", format!("named barrier thread count {count} is not whole warps"))
                    .primary(self.span(args[1]), "expected a positive multiple of 32, at most 1024")
                    .note("a named barrier counts threads, and whole warps take part in it")
                    .help("pass 32 times the number of warps that meet at the barrier");
                self.diagnostics.push(d);
            }
        }
    }

    /// The width of `shfl_*_width`, where known at compile time (E0223): a power of two from 1 to 32, as CUDA
    /// requires (other widths are undefined).
    fn check_shuffle_width(&mut self, callee: &Path, args: &[ExprId]) {
        use crate::types::ConstValue;
        let Some(&width_arg) = args.last() else { return };
        let Ok(ConstValue::Int(width)) = self.eval_const(width_arg) else { return };
        if (1..=32).contains(&width) && (width as u64).is_power_of_two() {
            return;
        }
        let d = Diagnostic::error("E0223", format!("shuffle width {width} is not a power of two from 1 to 32"))
            .primary(self.span(width_arg), "expected 1, 2, 4, 8, 16 or 32")
            .note(format!(
                "`{}` shuffles within groups of this many lanes; CUDA leaves other widths undefined",
                callee.display()
            ))
            .help("use a power of two up to the warp's 32 lanes");
        self.diagnostics.push(d);
    }

    fn slot_type(&mut self, slot: u8, class: crate::builtins::TypeClass, slots: &mut Slots) -> Type {
        if let Some(ty) = slots.get(slot) {
            return ty.clone();
        }
        let ty = match class.exact() {
            Some(exact) => self.instantiate(exact, slots),
            None => self.vars.fresh(Class::of_builtin(class)),
        };
        slots.insert(slot, ty.clone());
        ty
    }

    /// A signature type with its generic slots replaced by this use's variables.
    fn instantiate(&mut self, sig: SigType, slots: &mut Slots) -> Type {
        match sig {
            SigType::Int32 => Type::Int32,
            SigType::Int64 => Type::Int64,
            SigType::UInt32 => Type::UInt32,
            SigType::UInt64 => Type::UInt64,
            SigType::Float32 => Type::Float32,
            SigType::Float64 => Type::Float64,
            SigType::Float16 => Type::Float16,
            SigType::BFloat16 => Type::BFloat16,
            SigType::Bool => Type::Bool,
            SigType::Unit => Type::Unit,
            SigType::Var(slot, class) => self.slot_type(slot, class, slots),
            SigType::ArrayOf(slot, class) => {
                let elem = self.slot_type(slot, class, slots);
                self.vars.fresh_array(elem)
            }
            // Only `launch` and `printf` have these, and `check_launch` and `check_printf` type their arguments.
            SigType::Kernel | SigType::KernelArgs | SigType::Format | SigType::FormatArgs => Type::Error,
            SigType::Vector(kind) => crate::vectors::record_type(kind),
        }
    }

    /// An argument that must be an array (vector, shared, local or constant) whose elements are `elem`.
    fn expect_array_of(&mut self, arg: ExprId, found: &Type, elem: &Type) {
        let actual = match self.vars.resolve(found) {
            Type::Var(_) if self.vars.class_of(found) == Some(Class::Any) => {
                let some_array = self.vars.fresh_array(elem.clone());
                self.vars.unify(found, &some_array);
                return;
            }
            Type::Var(_) if self.vars.class_of(found) == Some(Class::Array) => {
                self.vars.array_element(found).unwrap_or(Type::Error)
            }
            Type::Vector(e) | Type::Array { elem: e, .. } | Type::ConstArray { elem: e, .. } => Type::clone(&e),
            Type::Error => return,
            other => {
                let shown = self.describe(&other);
                let d = Diagnostic::error("E0201", format!("mismatched types: expected an array, found {shown}"))
                    .primary(self.span(arg), format!("this is {shown}"));
                self.diagnostics.push(d);
                return;
            }
        };
        if !self.vars.unify(&actual, elem) {
            let (expected, shown) = (self.describe(elem), self.describe(found));
            let d =
                Diagnostic::error("E0201", format!("mismatched types: expected an array of {expected}, found {shown}"))
                    .primary(self.span(arg), format!("this is {shown}"));
            self.diagnostics.push(d);
        }
    }

    fn check_function_call(
        &mut self,
        id: ExprId,
        callee: &Path,
        f: FunctionId,
        args: &[ExprId],
        found: &[Type],
    ) -> Type {
        if let Owner::Constant(_) = self.ctx.owner {
            // Signatures are not known yet; a call is never a compile-time value (reported as `E0212`).
            return Type::Error;
        }
        if !args.is_empty() && callee.span() == self.span(id) {
            // A closure (`syntax::lift`: a local or anonymous function applied to the variables it captures, spanned
            // as the argument it was written as) where no function parameter takes it.
            self.report_function_not_called(callee, f);
            return Type::Error;
        }
        let Some(info) = self.info.functions.get(f.0 as usize) else {
            return Type::Error;
        };
        let (params, ret) = (info.params.clone(), info.ret.clone());
        let declared = self.function_name_span(f).unwrap_or(info.span);
        let param_types: Vec<Type> = params.iter().map(|p| self.local_type(*p)).collect();
        let (param_types, ret) = self.call_signature(id, f, &param_types, ret);
        let (args, found) = self.effective_args(params.len(), args, found);
        self.note_call(f, args, self.span(id));
        if args.len() != params.len() {
            let help = (params.is_empty()).then(|| format!("call it: `{} ()`", callee.display()));
            self.report_arity(callee, params.len(), args.len(), Some(declared), help);
            return ret;
        }
        for (((param, arg), found), expected) in params.iter().zip(args).zip(found).zip(param_types) {
            let Some(local) = self.local_info(*param) else {
                continue;
            };
            let why = Because::of(local.span, Reason::Parameter(*param));
            self.expect_type_because(*arg, found, &expected, why);
            self.check_named_cell(*arg, &expected);
        }
        ret
    }
}

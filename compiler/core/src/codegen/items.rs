//! Top-level items: records as `struct`s (fields first, in dependency order), constants (`static constexpr`
//! scalars, `static __constant__ const` arrays, whose reads at indices known after unrolling NVRTC folds, and
//! `__constant__` ones for `[@constant_memory]`), device functions (the ones `reach` keeps, callees first; `__noinline__` for
//! `[@noinline]`) and kernels (`extern "C" __global__`), and the runtime's view of each kernel's parameters.

use std::collections::HashSet;

use crate::codegen::ctypes::{const_value, ScalarKind};
use crate::codegen::lower::{Dest, FnLowering, Globals};
use crate::codegen::output::{Printer, Stmt};
use crate::codegen::reach::Reach;
use crate::codegen::{ElemType, KernelParamSignature, KernelSignature, ParamKind};
use crate::contract::LaunchContract;
use crate::source::Span;
use crate::syntax::ast::{ExprId, Item, LaunchBounds};
use crate::syntax::item_attributes::item_attribute_names;
use crate::types::{FunctionId, KernelInfo, LocalId, RecordId, Type};

// --- records ----------------------------------------------------------------------------------------------

/// Records in an order where every record comes after the records its fields contain.
pub fn record_order(g: &Globals) -> Vec<RecordId> {
    fn visit(g: &Globals, id: RecordId, done: &mut Vec<RecordId>, active: &mut HashSet<RecordId>) {
        if done.contains(&id) || !active.insert(id) {
            return;
        }
        if let Some(info) = g.types.records.get(id.0 as usize) {
            for (_, ty) in &info.fields {
                if let Type::Record(inner) = ty {
                    visit(g, *inner, done, active);
                }
            }
        }
        active.remove(&id);
        done.push(id);
    }
    let mut done = Vec::new();
    for i in 0..g.types.records.len() {
        visit(g, RecordId(i as u32), &mut done, &mut HashSet::new());
    }
    done
}

pub fn print_records(g: &Globals, p: &mut Printer) {
    for id in record_order(g) {
        let Some(info) = g.types.records.get(id.0 as usize) else { continue };
        let name = g.ctypes.c_type(&Type::Record(id));
        let is_vector = info.vector.is_some();
        if !is_vector {
            p.directive(info.span);
            p.line(&format!("struct {name} {{"));
            p.indent();
            for (i, (_, ty)) in info.fields.iter().enumerate() {
                let field = g.record_fields.get(id.0 as usize).and_then(|f| f.get(i)).cloned().unwrap_or_default();
                p.line(&format!("{} {field};", g.ctypes.c_type(ty)));
            }
            p.dedent();
            p.line("};");
        }
        // CUDA's vector types have no `==`: the program gets one only where it compares records.
        if g.facts.compares_records {
            let fields: Vec<String> = g.record_fields.get(id.0 as usize).cloned().unwrap_or_default();
            let equal: Vec<String> = fields.iter().map(|f| format!("a.{f} == b.{f}")).collect();
            let equal = if equal.is_empty() { "true".to_string() } else { equal.join(" && ") };
            p.line(&format!(
                "__device__ inline bool operator==(const {name}& a, const {name}& b) {{ return {equal}; }}"
            ));
            p.line(&format!(
                "__device__ inline bool operator!=(const {name}& a, const {name}& b) {{ return !(a == b); }}"
            ));
        }
        if !is_vector || g.facts.compares_records {
            p.line("");
        }
    }
}

// --- constants --------------------------------------------------------------------------------------------

/// Constants the emitted code reads, in source order.
pub fn print_constants(g: &Globals, p: &mut Printer) {
    let used = g.used_constants.borrow().clone();
    let mut order: Vec<usize> = (0..g.types.constants.len()).filter(|i| used.contains(&(*i as u32))).collect();
    order.sort_by_key(|i| g.types.constants[*i].item);
    for i in &order {
        let info = &g.types.constants[*i];
        let name = &g.constant_names[*i];
        p.directive(info.span);
        match &info.ty {
            Type::ConstArray { elem, size } => {
                let elem_c = g.ctypes.c_type(elem);
                let values = const_value(&info.value, &info.ty);
                // `const` (and internal): NVVM then knows the contents, so a read at an index known after
                // inlining and unrolling folds to an immediate, as a `__constant__` array the host could write
                // never does; reads at other indices stay loads from constant memory. `[@constant_memory]`
                // keeps every read a load (an operand in the constant bank costs no register; many immediates
                // can).
                let qualifiers = if stays_in_memory(g, info) { "__constant__" } else { "static __constant__ const" };
                p.line(&format!("{qualifiers} {elem_c} {name}[{}] = {values};", (*size).max(1)));
            }
            ty if ScalarKind::of(ty).is_some() => {
                let value = const_value(&info.value, ty);
                p.line(&format!("static constexpr {} {name} = {value};", g.ctypes.c_type(ty)));
            }
            other => p.line(&format!("// constant `{}` of type {} has no C form", info.name, g.types.display(other))),
        }
    }
    if !order.is_empty() {
        p.line("");
    }
}

// --- functions --------------------------------------------------------------------------------------------

/// The body of function `id`, from its item.
fn function_body(g: &Globals, id: FunctionId) -> Option<ExprId> {
    let info = g.types.functions.get(id.0 as usize)?;
    match g.module.items.get(info.item)? {
        Item::Function(f) => Some(f.body),
        _ => None,
    }
}

/// Does constant array `info` carry `[@constant_memory]`? Then its reads are never folded to immediates.
fn stays_in_memory(g: &Globals, info: &crate::types::ConstantInfo) -> bool {
    let Some(Item::Constant(c)) = g.module.items.get(info.item) else { return false };
    let text = &g.sources.file(c.span.file).text;
    item_attribute_names(text, c.span, c.name.span).iter().any(|a| a == "constant_memory")
}

/// Does function `id` carry `[@noinline]`? Then it is emitted `__noinline__`: a call tree that doubles at each
/// level stays one copy per function instead of growing exponentially when NVRTC inlines it.
fn is_noinline(g: &Globals, id: FunctionId) -> bool {
    let Some(Item::Function(f)) = g.types.functions.get(id.0 as usize).and_then(|info| g.module.items.get(info.item))
    else {
        return false;
    };
    let text = &g.sources.file(f.span.file).text;
    item_attribute_names(text, f.span, f.name.span).iter().any(|a| a == "noinline")
}

/// A parameter declaration of a device function, or `None` for a unit parameter (not passed in C).
fn function_param(l: &mut FnLowering, id: LocalId) -> Option<String> {
    let ty = l.local_type(id);
    let decl_type = match &ty {
        Type::Unit => return None,
        Type::Ref(inner) => format!("{}&", l.c_type(inner)),
        Type::Vector(elem) | Type::Array { elem, .. } if l.g.facts.written.contains(&id) => {
            format!("{}*", l.c_type(elem))
        }
        Type::Vector(elem) | Type::Array { elem, .. } | Type::ConstArray { elem, .. } => {
            format!("const {}*", l.c_type(elem))
        }
        other => l.c_type(other),
    };
    let name = l.declare_local(id);
    Some(format!("{decl_type} {name}"))
}

/// `RET name(params)` of function `id`, with a lowering whose parameters are declared.
fn function_header<'g, 'a>(g: &'g Globals<'a>, id: FunctionId) -> (String, FnLowering<'g, 'a>) {
    let info = &g.types.functions[id.0 as usize];
    let returns_value = !matches!(info.ret, Type::Unit);
    let mut l = FnLowering::new(g, returns_value);
    let params: Vec<String> = info.params.iter().filter_map(|p| function_param(&mut l, *p)).collect();
    let ret = if returns_value { g.ctypes.c_type(&info.ret) } else { "void".into() };
    let name = &g.function_names[id.0 as usize];
    let noinline = if is_noinline(g, id) { "__noinline__ " } else { "" };
    (format!("__device__ {noinline}{ret} {name}({})", params.join(", ")), l)
}

/// The device functions the emitted kernels reach, callees first; returns their `.sk` names in that order.
pub fn print_functions(g: &Globals, reach: &Reach, p: &mut Printer) -> Vec<String> {
    let (order, cyclic) = reach.function_order(g.types);
    if cyclic {
        for id in &order {
            let (header, _) = function_header(g, *id);
            p.line(&format!("{header};"));
        }
        p.line("");
    }
    let mut printed = Vec::with_capacity(order.len());
    for id in order {
        let info = &g.types.functions[id.0 as usize];
        let (header, mut l) = function_header(g, id);
        let Some(body) = function_body(g, id) else { continue };
        let dest = if l.returns_value { Dest::Return } else { Dest::Discard };
        l.lower_to(body, dest);
        print_definition(p, info.span, &header, &l.finish());
        printed.push(info.name.clone());
    }
    printed
}

fn print_definition(p: &mut Printer, span: Span, header: &str, body: &[Stmt]) {
    p.directive(span);
    p.line(&format!("{header} {{"));
    p.indent();
    p.statements(body);
    p.dedent();
    p.line("}");
    p.line("");
}

// --- kernels ----------------------------------------------------------------------------------------------

fn elem_type(g: &Globals, ty: &Type) -> ElemType {
    match ty {
        Type::Record(id) => ElemType::Record(g.ctypes.c_type(&Type::Record(*id))),
        other => ElemType::Scalar(ScalarKind::of(other).unwrap_or(ScalarKind::Int32)),
    }
}

/// The runtime's view of a kernel parameter, or `None` for a unit parameter.
fn param_kind(g: &Globals, ty: &Type, writable: bool) -> Option<ParamKind> {
    Some(match ty {
        Type::Unit => return None,
        Type::Vector(elem) => ParamKind::Vector { elem: elem_type(g, elem), writable },
        Type::Record(id) => ParamKind::Record(g.ctypes.c_type(&Type::Record(*id))),
        other => ParamKind::Scalar(ScalarKind::of(other).unwrap_or(ScalarKind::Int32)),
    })
}

/// `__launch_bounds__(max_threads[, min_blocks]) ` for a kernel the emit options bound, or that is declared with
/// `[@launch_bounds ...]`.
fn launch_bounds(g: &Globals, kernel: &KernelInfo) -> String {
    match emitted_bounds(g, kernel) {
        Some((max_threads, Some(min))) => format!("__launch_bounds__({max_threads}, {min}) "),
        Some((max_threads, None)) => format!("__launch_bounds__({max_threads}) "),
        None => String::new(),
    }
}

/// The kernel's `__launch_bounds__`: an emit option's, else its attribute's, else its exact block size's.
fn emitted_bounds(g: &Globals, kernel: &KernelInfo) -> Option<(u32, Option<u32>)> {
    match g.launch_bounds.iter().find(|b| b.kernel == kernel.name) {
        Some(b) => Some((b.max_threads, b.min_blocks)),
        None => match g.module.items.get(kernel.item) {
            Some(Item::Kernel(k)) => k
                .launch_bounds
                .map(|LaunchBounds { max_threads, min_blocks, .. }| (max_threads, min_blocks))
                .or(k.contract.block_size.map(|n| (n, None))),
            _ => None,
        },
    }
}

/// The kernel's launch contract as launchers must check it: its attributes, with the emitted bound.
fn launch_contract(g: &Globals, kernel: &KernelInfo) -> LaunchContract {
    let declared = match g.module.items.get(kernel.item) {
        Some(Item::Kernel(k)) => k.contract,
        _ => LaunchContract::default(),
    };
    let emitted = emitted_bounds(g, kernel).map(|(max_threads, _)| max_threads);
    let max_threads = match (declared.max_threads, emitted) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    LaunchContract { max_threads, ..declared }
}

/// Prototypes of every emitted kernel, for programs whose code launches kernels from the device (a kernel may
/// launch one defined after it, or itself).
pub fn print_kernel_prototypes(g: &Globals, reach: &Reach, p: &mut Printer) {
    for index in (0..g.types.kernels.len()).filter(|&i| reach.kernels[i]) {
        if let Some((header, _)) = kernel_header(g, index) {
            p.line(&format!("{header};"));
        }
    }
    p.line("");
}

/// The C header of kernel `index` (`extern "C" __global__ void name(params)`) and its runtime signature, with a
/// lowering whose parameters are declared.
fn kernel_header<'g, 'a>(g: &'g Globals<'a>, index: usize) -> Option<(String, (KernelSignature, FnLowering<'g, 'a>))> {
    let kernel: &KernelInfo = g.types.kernels.get(index)?;
    let mut l = FnLowering::new(g, false);
    if let Some(Item::Kernel(k)) = g.module.items.get(kernel.item) {
        l.launch = k.contract;
    }
    let symbol = g.kernel_names.get(index).cloned().unwrap_or_else(|| kernel.name.clone());
    let mut params = Vec::new();
    let mut signature = Vec::new();
    for param in &kernel.params {
        let writable = param.written || g.facts.written.contains(&param.local);
        let Some(kind) = param_kind(g, &param.ty, writable) else { continue };
        let name = l.declare_local(param.local);
        let decl = match &param.ty {
            Type::Vector(elem) if writable => format!("{}* __restrict__ {name}", g.ctypes.c_type(elem)),
            Type::Vector(elem) => format!("const {}* __restrict__ {name}", g.ctypes.c_type(elem)),
            other => format!("{} {name}", g.ctypes.c_type(other)),
        };
        params.push(decl);
        let align = g.facts.vector_alignment.get(&param.local).copied().unwrap_or(0);
        signature.push(KernelParamSignature { name: param.name.clone(), kind, align });
    }
    let bounds = launch_bounds(g, kernel);
    let header = format!("extern \"C\" __global__ void {bounds}{symbol}({})", params.join(", "));
    let signature = KernelSignature {
        name: kernel.name.clone(),
        symbol,
        params: signature,
        dynamic_shared_elem: kernel.dynamic_shared.as_ref().and_then(ScalarKind::of),
        contract: launch_contract(g, kernel),
    };
    Some((header, (signature, l)))
}

/// Prints kernel `kernel` and returns its signature.
pub fn print_kernel(g: &Globals, p: &mut Printer, index: usize) -> Option<KernelSignature> {
    let kernel: &KernelInfo = g.types.kernels.get(index)?;
    let (header, (signature, mut l)) = kernel_header(g, index)?;
    if let Some(Item::Kernel(k)) = g.module.items.get(kernel.item) {
        l.lower_to(k.body, Dest::Discard);
    }
    print_definition(p, kernel.span, &header, &l.finish());
    Some(signature)
}

//! CUDA C emission: from a type-checked [`Module`] to one readable CUDA C translation unit that NVRTC compiles
//! (`--gpu-architecture=sm_90 -std=c++17`), with `#line` directives back to the `.sk` source, and the runtime's
//! view of every kernel's parameters.
//!
//! The emitter runs only on programs without errors (the convergence analysis has proved that every barrier is
//! reached in block-uniform and every warp collective in warp-uniform control flow), but never panics on odd input.
//!
//! Layout: `names` (C identifiers), `ctypes` (C types and literals), `facts` (whole-module facts), `lower` (the
//! state of lowering one body and the evaluation-order rule), `expr` (C expressions), `stmt` (statements),
//! `items` (records, constants, functions, kernels), `prelude` (helpers the builtin templates call), `output` (the
//! C statement tree and its printer).

mod ctypes;
mod expr;
mod facts;
mod items;
mod lower;
mod names;
mod output;
mod prelude;
mod printf;
mod reach;
mod stmt;

use serde::Serialize;

pub use ctypes::ScalarKind;
pub use prelude::full_prelude;

use crate::contract::LaunchContract;
use crate::source::SourceMap;
use crate::syntax::ast::Module;
use crate::types::{Type, TypeInfo};
use ctypes::CTypes;
use facts::ModuleFacts;
use lower::Globals;
use names::NameAllocator;
use output::Printer;
use reach::Reach;

#[derive(Clone, Debug)]
pub struct EmitOptions {
    /// Write `#line N "file.sk"` before statements, so NVRTC errors and debuggers point at the `.sk` source.
    pub line_directives: bool,
    /// The launcher promises that every block has a multiple of 32 threads (skc-ode's solver launches do): the
    /// mask of the warp collectives is then the constant `0xFFFFFFFF` rather than computed from the block's size,
    /// which spares each collective the convergence check ptxas emits for a mask it cannot see (a `REDUX.OR`, an
    /// `R2UR` and a divergence branch). A launch with a partial warp would be undefined behaviour: false unless
    /// the launcher guarantees it.
    pub full_warps: bool,
    /// Emit only the kernels with these `.sk` names (and what they call and launch); `None`: every kernel. `skc
    /// build` uses it to find which kernel's CUDA C NVRTC crashes on.
    pub only_kernels: Option<Vec<String>>,
    /// `__launch_bounds__` of kernels by name, in place of their `[@launch_bounds]` attribute: for a host that
    /// launches a library kernel with a block size and an occupancy target of its own (skc-ode's solver).
    pub launch_bounds: Vec<KernelBounds>,
}

/// CUDA's `__launch_bounds__(max_threads, min_blocks)` for the kernel named `kernel`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelBounds {
    pub kernel: String,
    pub max_threads: u32,
    pub min_blocks: Option<u32>,
}

impl Default for EmitOptions {
    fn default() -> Self {
        EmitOptions { line_directives: true, full_warps: false, only_kernels: None, launch_bounds: Vec::new() }
    }
}

/// The emitted translation unit and what the runtime needs to launch its kernels.
#[derive(Clone, Debug, Serialize)]
pub struct CudaOutput {
    pub source: String,
    pub kernels: Vec<KernelSignature>,
    /// The C layout of every record (to marshal record parameters and vectors of records).
    pub records: Vec<RecordLayout>,
    /// Does the code launch kernels from the device (`launch`)? Then it must be compiled as relocatable device code
    /// (`--relocatable-device-code=true`) and linked with the device runtime (`libcudadevrt.a`) before loading.
    pub needs_device_runtime: bool,
    /// The `.sk` names of the device functions emitted (those the kernels reach), in the order printed.
    pub device_functions: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelSignature {
    /// The kernel's `.sk` name.
    pub name: String,
    /// Its symbol in the CUDA C (`extern "C"`): the `.sk` name unless C reserves that name.
    pub symbol: String,
    /// The parameters passed at launch, in order (unit parameters are not passed).
    pub params: Vec<KernelParamSignature>,
    /// Element type of the kernel's dynamic shared array (`extern __shared__`), sized in bytes at launch.
    pub dynamic_shared_elem: Option<ScalarKind>,
    /// What every launch must keep (its attributes; `max_threads` the emitted `__launch_bounds__`, which an
    /// emit option may lower): the convergence analysis relied on it, so launchers check it. Left out of the JSON
    /// when empty.
    #[serde(skip_serializing_if = "LaunchContract::is_empty")]
    pub contract: LaunchContract,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelParamSignature {
    pub name: String,
    pub kind: ParamKind,
    /// For a vector parameter that vector loads or stores reach (`load_float4`), the alignment in bytes its
    /// pointer must have, which the runtime checks at launch; 0 when its elements' own alignment is enough.
    #[serde(skip_serializing_if = "is_zero")]
    pub align: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamKind {
    /// Passed by value.
    Scalar(ScalarKind),
    /// A device pointer; `writable` is false when the kernel only reads it (`const T* __restrict__`).
    Vector { elem: ElemType, writable: bool },
    /// A record passed by value (its layout is in [`CudaOutput::records`]).
    Record(String),
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ElemType {
    Scalar(ScalarKind),
    /// A record, by C name.
    Record(String),
}

/// The C layout of a record (natural alignment, as NVRTC lays out the `struct`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RecordLayout {
    /// The `.sk` name.
    pub name: String,
    /// The `struct` name in the CUDA C.
    pub c_name: String,
    pub size: u32,
    pub align: u32,
    pub fields: Vec<FieldLayout>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FieldLayout {
    pub name: String,
    pub ty: ElemType,
    pub offset: u32,
}

/// Emits the CUDA C of a well-typed module (on a large stack, whatever thread calls it).
pub fn emit_cuda(module: &Module, types: &TypeInfo, sources: &SourceMap, options: &EmitOptions) -> CudaOutput {
    crate::stack::on_large_stack(|| emit_here(module, types, sources, options))
}

fn emit_here(module: &Module, types: &TypeInfo, sources: &SourceMap, options: &EmitOptions) -> CudaOutput {
    let facts = ModuleFacts::compute(module, types);
    let reach = Reach::compute(module, types, options.only_kernels.as_deref());
    let mut global_names = NameAllocator::new();
    // Kernels first: their names are the symbols the runtime looks up, so they keep them whenever C allows.
    let kernel_names: Vec<String> = types.kernels.iter().map(|k| global_names.fresh(&k.name)).collect();
    let record_names: Vec<String> = types
        .records
        .iter()
        .map(|r| match r.vector {
            Some(kind) => kind.c_name().to_string(),
            None if r.tuple => global_names.compiler_name(&r.name),
            None => global_names.fresh(&r.name),
        })
        .collect();
    let function_names: Vec<String> = types.functions.iter().map(|f| global_names.fresh(&f.name)).collect();
    let constant_names: Vec<String> = types.constants.iter().map(|c| global_names.fresh(&c.name)).collect();
    global_names.freeze();
    let record_fields: Vec<Vec<String>> = types
        .records
        .iter()
        .map(|r| {
            // A vector's components are CUDA's; a tuple's fields (`_0`, `_1`) are valid member names as they are.
            if r.vector.is_some() || r.tuple {
                return r.fields.iter().map(|(f, _)| f.clone()).collect();
            }
            let mut fields = global_names.sibling();
            r.fields.iter().map(|(f, _)| fields.fresh(f)).collect()
        })
        .collect();
    let globals = Globals {
        module,
        types,
        sources,
        facts: &facts,
        ctypes: CTypes { record_names: &record_names },
        kernel_names,
        function_names,
        constant_names,
        record_fields,
        global_names,
        used_constants: Default::default(),
        helper_overloads: Default::default(),
        launch_bounds: &options.launch_bounds,
    };

    // Code first (it decides which constants and helpers are needed), then what it needs.
    let mut code = Printer::new(sources, options.line_directives);
    let device_functions = items::print_functions(&globals, &reach, &mut code);
    let kernels: Vec<KernelSignature> = (0..types.kernels.len())
        .filter(|&i| reach.kernels[i])
        .filter_map(|i| items::print_kernel(&globals, &mut code, i))
        .collect();
    let mut declarations = Printer::new(sources, options.line_directives);
    items::print_records(&globals, &mut declarations);
    items::print_constants(&globals, &mut declarations);
    let needs_device_runtime = !types.launches.is_empty();
    if needs_device_runtime {
        items::print_kernel_prototypes(&globals, &reach, &mut declarations);
    }

    let mut source = header(sources, &kernels);
    let full_warps = options.full_warps || every_kernel_promises_whole_warps(&kernels);
    let prelude = prelude::prelude_for(&code.out, &globals.helper_overloads.borrow(), full_warps);
    if !prelude.is_empty() {
        source.push_str(&prelude);
        source.push_str("\n// ---- end of prelude ----\n\n");
    }
    source.push_str(&declarations.out);
    source.push_str(&code.out);
    while source.ends_with("\n\n") {
        source.pop();
    }
    let records = used_layouts(record_layouts(&globals), &kernels);
    CudaOutput { source, kernels, records, needs_device_runtime, device_functions }
}

/// Does every emitted kernel's launch contract promise whole warps (`[@block_multiple 32]`, `[@block_size 256]`)?
/// Then, as under [`EmitOptions::full_warps`], every lane exists at every collective and the mask is the constant
/// full mask. (Collectives are emitted once, in functions kernels share, so one kernel without the promise keeps
/// the mask computed from the block's size for all; that mask is exact either way.)
fn every_kernel_promises_whole_warps(kernels: &[KernelSignature]) -> bool {
    !kernels.is_empty() && kernels.iter().all(|k| k.contract.whole_warps())
}

fn header(sources: &SourceMap, kernels: &[KernelSignature]) -> String {
    let root =
        sources.files().next().map(|(_, f)| f.name.replace(['\n', '\r'], " ")).unwrap_or_else(|| "<unknown>".into());
    let names: Vec<&str> = kernels.iter().map(|k| k.symbol.as_str()).collect();
    let mut out = format!("// Generated by skc from {root}. Do not edit: change the .sk source and rebuild.\n");
    if !names.is_empty() {
        out.push_str(&format!("// Kernels: {}.\n", names.join(", ")));
    }
    out.push('\n');
    out
}

/// The layouts without the vector types' that no kernel parameter and no other record mentions (every program
/// has the vector types; a host that does not use them needs no layout for them).
fn used_layouts(layouts: Vec<RecordLayout>, kernels: &[KernelSignature]) -> Vec<RecordLayout> {
    let is_vector =
        |l: &RecordLayout| crate::vectors::VectorKind::by_name(&l.name).is_some_and(|k| k.c_name() == l.c_name);
    let mut used: Vec<&str> = Vec::new();
    for layout in layouts.iter().filter(|l| !is_vector(l)) {
        for field in &layout.fields {
            if let ElemType::Record(name) = &field.ty {
                used.push(name);
            }
        }
    }
    for param in kernels.iter().flat_map(|k| &k.params) {
        match &param.kind {
            ParamKind::Record(name) | ParamKind::Vector { elem: ElemType::Record(name), .. } => used.push(name),
            _ => {}
        }
    }
    let keep: Vec<bool> = layouts.iter().map(|l| !is_vector(l) || used.contains(&l.c_name.as_str())).collect();
    layouts.into_iter().zip(keep).filter(|(_, keep)| *keep).map(|(l, _)| l).collect()
}

fn record_layouts(g: &Globals) -> Vec<RecordLayout> {
    let mut layouts: Vec<Option<RecordLayout>> = vec![None; g.types.records.len()];
    for id in items::record_order(g) {
        let Some(info) = g.types.records.get(id.0 as usize) else { continue };
        let mut offset = 0u32;
        let mut align = 1u32;
        let mut fields = Vec::new();
        for (name, ty) in &info.fields {
            let (size, field_align, elem) = match ty {
                Type::Record(inner) => match layouts.get(inner.0 as usize).cloned().flatten() {
                    Some(l) => (l.size, l.align, ElemType::Record(l.c_name.clone())),
                    None => (0, 1, ElemType::Record(g.ctypes.c_type(ty))),
                },
                other => {
                    let kind = ScalarKind::of(other).unwrap_or(ScalarKind::Int32);
                    (kind.size(), kind.size(), ElemType::Scalar(kind))
                }
            };
            offset = offset.div_ceil(field_align) * field_align;
            fields.push(FieldLayout { name: name.clone(), ty: elem, offset });
            offset += size;
            align = align.max(field_align);
        }
        if let Some(kind) = info.vector {
            // CUDA aligns a vector type to its size (`__builtin_align__`), more than its components need.
            align = kind.size();
        }
        let size = offset.div_ceil(align) * align;
        layouts[id.0 as usize] = Some(RecordLayout {
            name: info.name.clone(),
            c_name: g.ctypes.c_type(&Type::Record(id)),
            size,
            align,
            fields,
        });
    }
    layouts.into_iter().flatten().collect()
}

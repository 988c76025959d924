//! The table of builtins (intrinsics): their names and Sarek aliases, signatures, convergence requirements, the
//! uniformity of their results, and the CUDA C they become. The type checker, the convergence analysis and the
//! CUDA emitter all read this one table, so a builtin cannot be known to one pass and unknown to another.
//!
//! Builtins are visible bare (`thread_idx_x`), and qualified by `Gpu.` or `Std.`.

use std::sync::OnceLock;

use crate::fxhash::FxHashMap;
use crate::vectors::VectorKind;

/// A type pattern in a builtin's signature. Generic slots (`Var`) are numbered per signature: every occurrence of
/// the same number is the same type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SigType {
    Int32,
    Int64,
    UInt32,
    UInt64,
    Float32,
    Float64,
    Float16,
    BFloat16,
    Bool,
    Unit,
    /// Type variable `n` restricted to a class.
    Var(u8, TypeClass),
    /// Any array (global vector, shared or local array) whose element is type variable `n`.
    ArrayOf(u8, TypeClass),
    /// The name of a kernel of the program (`launch`'s first argument), not a value.
    Kernel,
    /// The arguments of the kernel named by the `Kernel` argument: its parameters' types, in order (last only).
    KernelArgs,
    /// A string literal read as a `printf` format (`printf`'s first argument), not a value.
    Format,
    /// The values the `Format` argument's conversions print, one per conversion (last only).
    FormatArgs,
    /// A vector type (`float4`...): the record `crate::vectors` declares for it.
    Vector(VectorKind),
}

/// Which types a generic slot accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeClass {
    /// int32, int64, uint32, uint64, float32, float64.
    Numeric,
    /// int32, int64, uint32, uint64.
    Integer,
    /// float32, float64.
    Float,
    /// int32, uint32, int64, uint64, float32, float64 (what atomicAdd and shuffles take; `atomic_add` also takes
    /// float16 and bfloat16, which `typeck::half` admits for it alone).
    AtomicWord,
    /// Any scalar or record.
    Any,
    /// Exactly int32: Sarek's typed names (`atomic_add_int32`), whose element type is part of the name.
    ExactInt32,
    /// Exactly int64 (`atomic_add_int64`).
    ExactInt64,
    /// Exactly float32 (`atomic_add_float32`).
    ExactFloat32,
    /// Exactly float64 (`atomic_add_float64`).
    ExactFloat64,
    /// Exactly float16 (`load_float16x2`).
    ExactFloat16,
    /// Exactly bfloat16 (`load_bfloat16x2`).
    ExactBFloat16,
    /// Exactly float16x2 (`atomic_add_float16x2`).
    ExactFloat16x2,
    /// Exactly bfloat16x2 (`atomic_add_bfloat16x2`).
    ExactBFloat16x2,
}

impl TypeClass {
    /// The one type an exact class admits (`ExactInt32`: int32), `None` for the classes of several types.
    pub fn exact(self) -> Option<SigType> {
        match self {
            TypeClass::ExactInt32 => Some(SigType::Int32),
            TypeClass::ExactInt64 => Some(SigType::Int64),
            TypeClass::ExactFloat32 => Some(SigType::Float32),
            TypeClass::ExactFloat64 => Some(SigType::Float64),
            TypeClass::ExactFloat16 => Some(SigType::Float16),
            TypeClass::ExactBFloat16 => Some(SigType::BFloat16),
            TypeClass::ExactFloat16x2 => Some(SigType::Vector(VectorKind::Float16x2)),
            TypeClass::ExactBFloat16x2 => Some(SigType::Vector(VectorKind::BFloat16x2)),
            TypeClass::Numeric | TypeClass::Integer | TypeClass::Float | TypeClass::AtomicWord | TypeClass::Any => None,
        }
    }
}

/// What a builtin needs of the control flow it executes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Requirement {
    /// Nothing: runs correctly under any divergence.
    None,
    /// Every thread of the block must reach it together (barriers).
    BlockConverged,
    /// Every thread of the warp must reach it together (warp barriers, shuffles, votes).
    WarpConverged,
}

/// How uniform a builtin's result is. The lattice is `Uniform <= BlockUniform <= WarpUniform <= ThreadVarying`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultUniformity {
    /// The same in every thread of the grid (`block_dim_x`, `warp_size`).
    Uniform,
    /// The same in every thread of a block (`block_idx_x`, `uniform_load`).
    BlockUniform,
    /// The same in every thread of a warp (`warp_id`, votes, ballots).
    WarpUniform,
    /// May differ between threads (`thread_idx_x`, shuffles, atomics).
    ThreadVarying,
    /// As uniform as the least uniform argument (pure functions: math, conversions, `select`).
    OfArguments,
    /// Warp-uniform among the lanes that execute it together (`activemask`): as uniform as the control flow, at
    /// best warp-uniform.
    WarpUniformUnderControl,
    /// One lane's value broadcast to the warp (`shfl v src`, lane `src mod 32`). In the last warp of a block whose
    /// size is not a multiple of 32 that lane may not exist, and a lane that reads a missing lane gets an undefined
    /// value: only lane 0 exists for sure. With a constant `src` that names lane 0: as uniform as `v` when `v` is at
    /// most warp-uniform, else warp-uniform; otherwise thread-varying.
    Broadcast,
    /// Each lane gets its own value or a lower lane's (`shfl_up`), which always exists: as uniform as `v` when `v`
    /// is at most warp-uniform, else thread-varying.
    OwnOrLowerLane,
}

/// The CUDA C for a builtin call. `{0}`, `{1}`... are the arguments; `{mask}` is the warp mask the emitter
/// chooses; `{f}` is `f` when the generic float slot is float32 and empty otherwise (`sqrt{f}` -> `sqrtf`);
/// `{i}` is `skc_i` when the call's operands are integers and empty otherwise (`{i}pow{f}` -> `skc_ipow`);
/// `{location}` is the call's first argument's source text, the `.sk` file and the line, as C literals
/// (`"x > 0", "k.sk", 12`).
pub type CudaTemplate = &'static str;

#[derive(Clone, Copy, Debug)]
pub struct Builtin {
    /// The name used in diagnostics and docs.
    pub name: &'static str,
    /// Other accepted spellings (Sarek's names).
    pub aliases: &'static [&'static str],
    pub params: &'static [SigType],
    pub ret: SigType,
    pub requirement: Requirement,
    pub result: ResultUniformity,
    /// Does it write through its first (array) argument? Atomics do.
    pub writes_first_arg: bool,
    /// Does it order memory or act beyond its arguments (ordered atomics, named barriers, device launches)? Then the
    /// emitter never drops, duplicates or moves it, even when its value is unused.
    pub orders_memory: bool,
    /// Must its arguments be at most warp-uniform (a named barrier's id and thread count)? E0006 otherwise.
    pub warp_uniform_args: bool,
    /// For a named float constant (`infinity`, `max_float32`...), its value: folded by the constant evaluator and
    /// printed by the emitter as a literal of the type the use has, never through `cuda`.
    pub value: Option<FloatConstant>,
    pub cuda: CudaTemplate,
    pub doc: &'static str,
}

/// The named float constants: IEEE special values and the limits of a float type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatConstant {
    Infinity,
    NegInfinity,
    Nan,
    /// The largest finite value.
    Max,
    /// The smallest positive normal value.
    MinPositive,
    /// The difference between 1.0 and the next larger value.
    Epsilon,
}

impl FloatConstant {
    /// The value in the float type `float32` (`single`) or float64.
    pub fn value(self, single: bool) -> f64 {
        match (self, single) {
            (FloatConstant::Infinity, _) => f64::INFINITY,
            (FloatConstant::NegInfinity, _) => f64::NEG_INFINITY,
            (FloatConstant::Nan, _) => f64::NAN,
            (FloatConstant::Max, true) => f64::from(f32::MAX),
            (FloatConstant::Max, false) => f64::MAX,
            (FloatConstant::MinPositive, true) => f64::from(f32::MIN_POSITIVE),
            (FloatConstant::MinPositive, false) => f64::MIN_POSITIVE,
            (FloatConstant::Epsilon, true) => f64::from(f32::EPSILON),
            (FloatConstant::Epsilon, false) => f64::EPSILON,
        }
    }
}

use ResultUniformity as R;
use SigType::*;
use TypeClass::*;

const fn index(name: &'static str, cuda: CudaTemplate, result: ResultUniformity, doc: &'static str) -> Builtin {
    Builtin {
        name,
        aliases: &[],
        params: &[],
        ret: Int32,
        requirement: Requirement::None,
        result,
        writes_first_arg: false,
        orders_memory: false,
        warp_uniform_args: false,
        value: None,
        cuda,
        doc,
    }
}

const fn pure(
    name: &'static str,
    params: &'static [SigType],
    ret: SigType,
    cuda: CudaTemplate,
    doc: &'static str,
) -> Builtin {
    Builtin {
        name,
        aliases: &[],
        params,
        ret,
        requirement: Requirement::None,
        result: R::OfArguments,
        writes_first_arg: false,
        orders_memory: false,
        warp_uniform_args: false,
        value: None,
        cuda,
        doc,
    }
}

/// A named float constant of type `ty` (`FR`: the float type the context requires, float32 by default).
const fn float_constant(name: &'static str, ty: SigType, value: FloatConstant, doc: &'static str) -> Builtin {
    Builtin {
        name,
        aliases: &[],
        params: &[],
        ret: ty,
        requirement: Requirement::None,
        result: R::Uniform,
        writes_first_arg: false,
        orders_memory: false,
        warp_uniform_args: false,
        value: Some(value),
        cuda: "{value}",
        doc,
    }
}

const fn with_aliases(mut b: Builtin, aliases: &'static [&'static str]) -> Builtin {
    b.aliases = aliases;
    b
}

const ATOMIC_WORD_PARAMS: &[SigType] = &[ArrayOf(0, AtomicWord), Int32, Var(0, AtomicWord)];
const ATOMIC_INTEGER_PARAMS: &[SigType] = &[ArrayOf(0, Integer), Int32, Var(0, Integer)];

const fn atomic(name: &'static str, class: TypeClass, cuda: CudaTemplate, doc: &'static str) -> Builtin {
    let params = match class {
        Integer => ATOMIC_INTEGER_PARAMS,
        _ => ATOMIC_WORD_PARAMS,
    };
    Builtin {
        name,
        aliases: &[],
        params,
        ret: Var(0, class),
        requirement: Requirement::None,
        result: R::ThreadVarying,
        writes_first_arg: true,
        orders_memory: false,
        warp_uniform_args: false,
        value: None,
        cuda,
        doc,
    }
}

/// Sarek's typed atomics: the element type is part of the name (`atomic_add_int32`), so the array's elements must
/// be exactly that type.
const SAREK_ATOMIC_INT32: &[SigType] = &[ArrayOf(0, ExactInt32), Int32, Var(0, ExactInt32)];
const SAREK_ATOMIC_INT64: &[SigType] = &[ArrayOf(0, ExactInt64), Int32, Var(0, ExactInt64)];
const SAREK_ATOMIC_FLOAT32: &[SigType] = &[ArrayOf(0, ExactFloat32), Int32, Var(0, ExactFloat32)];
const SAREK_ATOMIC_FLOAT64: &[SigType] = &[ArrayOf(0, ExactFloat64), Int32, Var(0, ExactFloat64)];
/// The 16-bit pairs' atomic add: a vector of pairs, an index, a pair.
const ATOMIC_FLOAT16X2: &[SigType] = &[ArrayOf(0, ExactFloat16x2), Int32, Vector(VectorKind::Float16x2)];
const ATOMIC_BFLOAT16X2: &[SigType] = &[ArrayOf(0, ExactBFloat16x2), Int32, Vector(VectorKind::BFloat16x2)];
/// `atomic_inc_int32 a i`: no value operand.
const SAREK_ATOMIC_INT32_STEP: &[SigType] = &[ArrayOf(0, ExactInt32), Int32];
const SAREK_ATOMIC_INT32_CAS: &[SigType] = &[ArrayOf(0, ExactInt32), Int32, Var(0, ExactInt32), Var(0, ExactInt32)];

const fn sarek_atomic(
    name: &'static str,
    params: &'static [SigType],
    ret: SigType,
    cuda: CudaTemplate,
    doc: &'static str,
) -> Builtin {
    Builtin {
        name,
        aliases: &[],
        params,
        ret,
        requirement: Requirement::None,
        result: R::ThreadVarying,
        writes_first_arg: true,
        orders_memory: false,
        warp_uniform_args: false,
        value: None,
        cuda,
        doc,
    }
}

const fn effect(name: &'static str, params: &'static [SigType], cuda: CudaTemplate, doc: &'static str) -> Builtin {
    Builtin {
        name,
        aliases: &[],
        params,
        ret: Unit,
        requirement: Requirement::None,
        result: R::Uniform,
        writes_first_arg: false,
        orders_memory: false,
        warp_uniform_args: false,
        value: None,
        cuda,
        doc,
    }
}

const fn warp(
    name: &'static str,
    params: &'static [SigType],
    ret: SigType,
    result: ResultUniformity,
    cuda: CudaTemplate,
    doc: &'static str,
) -> Builtin {
    Builtin {
        name,
        aliases: &[],
        params,
        ret,
        requirement: Requirement::WarpConverged,
        result,
        writes_first_arg: false,
        orders_memory: false,
        warp_uniform_args: false,
        value: None,
        cuda,
        doc,
    }
}

/// An ordered, scoped atomic (`atomic_load_acquire_device`...): `$op` names the operation, `$order`/`$scope` the
/// spellings in the name, `$O`/`$S` the suffixes of CUDA's `__NV_ATOMIC_*` and `__NV_THREAD_SCOPE_*` constants
/// (NVRTC 12.8+ built-ins `__nv_atomic_*`, wrapped in prelude templates that keep the constants literal).
macro_rules! ordered {
    (load, $order:literal, $O:literal, $scope:literal, $S:literal) => {
        ordered!(@make concat!("atomic_load_", $order, "_", $scope), &[ArrayOf(0, Integer), Int32], Var(0, Integer),
            R::ThreadVarying, false,
            concat!("skc_atomic_load_ordered<__NV_ATOMIC_", $O, ", __NV_THREAD_SCOPE_", $S, ">(&{0}[{1}])"),
            concat!("atomically reads a.(i) (", $order, ", ", $scope, " scope)"))
    };
    (store, $order:literal, $O:literal, $scope:literal, $S:literal) => {
        ordered!(@make concat!("atomic_store_", $order, "_", $scope), &[ArrayOf(0, Integer), Int32, Var(0, Integer)],
            Unit, R::Uniform, true,
            concat!("skc_atomic_store_ordered<__NV_ATOMIC_", $O, ", __NV_THREAD_SCOPE_", $S, ">(&{0}[{1}], {2})"),
            concat!("atomically writes a.(i) <- v (", $order, ", ", $scope, " scope)"))
    };
    (add, $order:literal, $O:literal, $scope:literal, $S:literal) => {
        ordered!(@make concat!("atomic_add_", $order, "_", $scope), ATOMIC_WORD_PARAMS, Var(0, AtomicWord),
            R::ThreadVarying, true,
            concat!("skc_atomic_add_ordered<__NV_ATOMIC_", $O, ", __NV_THREAD_SCOPE_", $S, ">(&{0}[{1}], {2})"),
            concat!("a.(i) <- a.(i) + v atomically (", $order, ", ", $scope, " scope); old value"))
    };
    (exch, $order:literal, $O:literal, $scope:literal, $S:literal) => {
        ordered!(@make concat!("atomic_exch_", $order, "_", $scope), ATOMIC_INTEGER_PARAMS, Var(0, Integer),
            R::ThreadVarying, true,
            concat!("skc_atomic_exch_ordered<__NV_ATOMIC_", $O, ", __NV_THREAD_SCOPE_", $S, ">(&{0}[{1}], {2})"),
            concat!("a.(i) <- v atomically (", $order, ", ", $scope, " scope); old value"))
    };
    (cas, $order:literal, $O:literal, $F:literal, $scope:literal, $S:literal) => {
        ordered!(@make concat!("atomic_cas_", $order, "_", $scope), ATOMIC_CAS_PARAMS, Var(0, Integer),
            R::ThreadVarying, true,
            concat!("skc_atomic_cas_ordered<__NV_ATOMIC_", $O, ", __NV_ATOMIC_", $F, ", __NV_THREAD_SCOPE_", $S,
                ">(&{0}[{1}], {2}, {3})"),
            concat!("if a.(i) = expected then a.(i) <- v, atomically (", $order, ", ", $scope,
                " scope; a failed compare is ", $F, "); old value"))
    };
    (fence, $order:literal, $O:literal, $scope:literal, $S:literal) => {
        ordered!(@make concat!("fence_", $order, "_", $scope), &[], Unit, R::Uniform, false,
            concat!("__nv_atomic_thread_fence(__NV_ATOMIC_", $O, ", __NV_THREAD_SCOPE_", $S, ")"),
            concat!("a fence with ", $order, " semantics at ", $scope, " scope"))
    };
    (@make $name:expr, $params:expr, $ret:expr, $result:expr, $writes:expr, $cuda:expr, $doc:expr) => {
        Builtin {
            name: $name,
            aliases: &[],
            params: $params,
            ret: $ret,
            requirement: Requirement::None,
            result: $result,
            writes_first_arg: $writes,
            orders_memory: true,
            warp_uniform_args: false,
            value: None,
            cuda: $cuda,
            doc: $doc,
        }
    };
}

/// A named barrier instruction (`bar.sync`, `bar.arrive`) for `count` threads (whole warps) on barrier `id`.
const fn named_barrier(name: &'static str, cuda: CudaTemplate, doc: &'static str) -> Builtin {
    Builtin {
        name,
        aliases: &[],
        params: &[Int32, Int32],
        ret: Unit,
        requirement: Requirement::WarpConverged,
        result: R::Uniform,
        writes_first_arg: false,
        orders_memory: true,
        warp_uniform_args: true,
        value: None,
        cuda,
        doc,
    }
}

/// A block barrier that also reduces a predicate over the block (`__syncthreads_count/and/or`): a block
/// collective, so it needs the block converged exactly as `block_barrier` does, and its result is block-uniform.
const fn block_reduction(
    name: &'static str,
    aliases: &'static [&'static str],
    ret: SigType,
    cuda: CudaTemplate,
    doc: &'static str,
) -> Builtin {
    Builtin {
        name,
        aliases,
        params: &[Bool],
        ret,
        requirement: Requirement::BlockConverged,
        result: R::BlockUniform,
        writes_first_arg: false,
        orders_memory: false,
        warp_uniform_args: false,
        value: None,
        cuda,
        doc,
    }
}

/// A warp reduction (`__reduce_*_sync`, sm_80 and newer: see [`min_sm`]) of a 32-bit integer `ty`: a warp
/// collective like a vote, whose result is the same in every lane.
const fn warp_reduction(
    name: &'static str,
    aliases: &'static [&'static str],
    ty: SigType,
    cuda: CudaTemplate,
    doc: &'static str,
) -> Builtin {
    let params: &'static [SigType] = match ty {
        UInt32 => &[UInt32],
        _ => &[Int32],
    };
    with_aliases(warp(name, params, ty, R::WarpUniform, cuda, doc), aliases)
}

/// `shfl_*_width v lane w`: a shuffle within groups of `w` lanes.
const SHUFFLE_WIDTH_PARAMS: &[SigType] = &[Var(0, AtomicWord), Int32, Int32];

const ATOMIC_CAS_PARAMS: &[SigType] = &[ArrayOf(0, Integer), Int32, Var(0, Integer), Var(0, Integer)];

const F1: &[SigType] = &[Var(0, Float)];
const F2: &[SigType] = &[Var(0, Float), Var(0, Float)];
const F3: &[SigType] = &[Var(0, Float), Var(0, Float), Var(0, Float)];
const N1: &[SigType] = &[Var(0, Numeric)];
const N2: &[SigType] = &[Var(0, Numeric), Var(0, Numeric)];
const FR: SigType = Var(0, Float);
const NR: SigType = Var(0, Numeric);

/// `load_float4 a i`: elements `w i .. w i + w - 1` of `a` (`w` lanes) as one vector, in one instruction. Its
/// value is thread-varying: the analysis does not follow the contents of the array through it.
const fn vector_load(
    name: &'static str,
    kind: VectorKind,
    params: &'static [SigType],
    cuda: CudaTemplate,
    doc: &'static str,
) -> Builtin {
    Builtin {
        name,
        aliases: &[],
        params,
        ret: Vector(kind),
        requirement: Requirement::None,
        result: R::ThreadVarying,
        writes_first_arg: false,
        orders_memory: false,
        warp_uniform_args: false,
        value: None,
        cuda,
        doc,
    }
}

/// `store_float4 a i v`: writes the lanes of `v` to elements `w i .. w i + w - 1` of `a`, in one instruction.
const fn vector_store(
    name: &'static str,
    params: &'static [SigType],
    cuda: CudaTemplate,
    doc: &'static str,
) -> Builtin {
    Builtin {
        name,
        aliases: &[],
        params,
        ret: Unit,
        requirement: Requirement::None,
        result: R::Uniform,
        writes_first_arg: true,
        orders_memory: false,
        warp_uniform_args: false,
        value: None,
        cuda,
        doc,
    }
}

/// Every builtin. Order is the order of `docs/language.md`.
pub static BUILTINS: &[Builtin] = &[
    // --- thread and block indices -------------------------------------------------------------------
    index("thread_idx_x", "((int)threadIdx.x)", R::ThreadVarying, "index of the thread in its block, x"),
    index("thread_idx_y", "((int)threadIdx.y)", R::ThreadVarying, "index of the thread in its block, y"),
    index("thread_idx_z", "((int)threadIdx.z)", R::ThreadVarying, "index of the thread in its block, z"),
    index("block_idx_x", "((int)blockIdx.x)", R::BlockUniform, "index of the block in the grid, x"),
    index("block_idx_y", "((int)blockIdx.y)", R::BlockUniform, "index of the block in the grid, y"),
    index("block_idx_z", "((int)blockIdx.z)", R::BlockUniform, "index of the block in the grid, z"),
    index("block_dim_x", "((int)blockDim.x)", R::Uniform, "threads per block, x"),
    index("block_dim_y", "((int)blockDim.y)", R::Uniform, "threads per block, y"),
    index("block_dim_z", "((int)blockDim.z)", R::Uniform, "threads per block, z"),
    index("grid_dim_x", "((int)gridDim.x)", R::Uniform, "blocks per grid, x"),
    index("grid_dim_y", "((int)gridDim.y)", R::Uniform, "blocks per grid, y"),
    index("grid_dim_z", "((int)gridDim.z)", R::Uniform, "blocks per grid, z"),
    with_aliases(
        index(
            "global_idx_x",
            "((int)(blockIdx.x * blockDim.x + threadIdx.x))",
            R::ThreadVarying,
            "block_idx_x * block_dim_x + thread_idx_x",
        ),
        &["global_idx"],
    ),
    index(
        "global_idx_y",
        "((int)(blockIdx.y * blockDim.y + threadIdx.y))",
        R::ThreadVarying,
        "block_idx_y * block_dim_y + thread_idx_y",
    ),
    index(
        "global_idx_z",
        "((int)(blockIdx.z * blockDim.z + threadIdx.z))",
        R::ThreadVarying,
        "block_idx_z * block_dim_z + thread_idx_z",
    ),
    index(
        "global_thread_id",
        "skc_global_thread_id()",
        R::ThreadVarying,
        "linear index of the thread in the whole grid (x fastest)",
    ),
    index("warp_size", "32", R::Uniform, "threads per warp (32)"),
    with_aliases(
        index("lane_id", "skc_lane_id()", R::ThreadVarying, "index of the thread in its warp (0..31)"),
        &["lane_idx"],
    ),
    with_aliases(index("warp_id", "skc_warp_id()", R::WarpUniform, "index of the warp in its block"), &["warp_idx"]),
    // --- synchronisation ----------------------------------------------------------------------------
    Builtin {
        name: "block_barrier",
        aliases: &["barrier", "syncthreads"],
        params: &[],
        ret: Unit,
        requirement: Requirement::BlockConverged,
        result: R::Uniform,
        writes_first_arg: false,
        orders_memory: false,
        warp_uniform_args: false,
        value: None,
        cuda: "__syncthreads()",
        doc: "waits until every thread of the block has reached it; shared and global writes before it are visible \
              to the block after it",
    },
    block_reduction(
        "block_barrier_count",
        &["syncthreads_count"],
        Int32,
        "__syncthreads_count({0})",
        "`block_barrier`, and the number of threads of the block for which `p` holds (the same in every thread)",
    ),
    block_reduction(
        "block_barrier_and",
        &["syncthreads_and"],
        Bool,
        "(__syncthreads_and({0}) != 0)",
        "`block_barrier`, and true in every thread iff `p` holds in every thread of the block",
    ),
    block_reduction(
        "block_barrier_or",
        &["syncthreads_or"],
        Bool,
        "(__syncthreads_or({0}) != 0)",
        "`block_barrier`, and true in every thread iff `p` holds in some thread of the block",
    ),
    warp(
        "warp_barrier",
        &[],
        Unit,
        R::Uniform,
        "__syncwarp({mask})",
        "waits until every thread of the warp has reached it",
    ),
    named_barrier(
        "named_barrier",
        "skc_named_barrier({0}, {1})",
        "waits on hardware barrier `id` (1..15) until `count` threads (whole warps) have reached it: a barrier for \
         a subset of the block's warps (PTX `bar.sync id, count`)",
    ),
    named_barrier(
        "named_barrier_arrive",
        "skc_named_barrier_arrive({0}, {1})",
        "signals hardware barrier `id` (1..15) for `count` threads without waiting (PTX `bar.arrive id, count`): \
         producers arrive, consumers wait with `named_barrier`",
    ),
    // --- warp collectives ---------------------------------------------------------------------------
    with_aliases(
        warp(
            "shfl",
            &[Var(0, AtomicWord), Int32],
            Var(0, AtomicWord),
            R::Broadcast,
            "__shfl_sync({mask}, {0}, {1})",
            "value of `v` in lane `src` of the warp",
        ),
        &["warp_shuffle"],
    ),
    with_aliases(
        warp(
            "shfl_down",
            &[Var(0, AtomicWord), Int32],
            Var(0, AtomicWord),
            R::ThreadVarying,
            "__shfl_down_sync({mask}, {0}, {1})",
            "value of `v` in lane `lane_id + d`",
        ),
        &["warp_shuffle_down"],
    ),
    with_aliases(
        warp(
            "shfl_up",
            &[Var(0, AtomicWord), Int32],
            Var(0, AtomicWord),
            R::OwnOrLowerLane,
            "__shfl_up_sync({mask}, {0}, {1})",
            "value of `v` in lane `lane_id - d`",
        ),
        &["warp_shuffle_up"],
    ),
    with_aliases(
        warp(
            "shfl_xor",
            &[Var(0, AtomicWord), Int32],
            Var(0, AtomicWord),
            R::ThreadVarying,
            "__shfl_xor_sync({mask}, {0}, {1})",
            "value of `v` in lane `lane_id lxor m`",
        ),
        &["warp_shuffle_xor"],
    ),
    with_aliases(
        warp(
            "all",
            &[Bool],
            Bool,
            R::WarpUniform,
            "(__all_sync({mask}, {0}) != 0)",
            "true in every lane iff `p` holds in every lane of the warp",
        ),
        &["warp_vote_all"],
    ),
    with_aliases(
        warp(
            "any",
            &[Bool],
            Bool,
            R::WarpUniform,
            "(__any_sync({mask}, {0}) != 0)",
            "true in every lane iff `p` holds in some lane of the warp",
        ),
        &["warp_vote_any"],
    ),
    with_aliases(
        warp(
            "ballot",
            &[Bool],
            Int32,
            R::WarpUniform,
            "((int)__ballot_sync({mask}, {0}))",
            "bit i set iff `p` holds in lane i (an int32, as in Sarek: lane 31 is the sign bit)",
        ),
        &["warp_ballot"],
    ),
    warp(
        "shfl_width",
        SHUFFLE_WIDTH_PARAMS,
        Var(0, AtomicWord),
        R::ThreadVarying,
        "__shfl_sync({mask}, {0}, {1}, {2})",
        "value of `v` in lane `src mod w` of the calling lane's group of `w` lanes (`w`: 1, 2, 4, 8, 16 or 32)",
    ),
    warp(
        "shfl_down_width",
        SHUFFLE_WIDTH_PARAMS,
        Var(0, AtomicWord),
        R::ThreadVarying,
        "__shfl_down_sync({mask}, {0}, {1}, {2})",
        "value of `v` in lane `lane_id + d`, or the lane's own `v` past the end of its group of `w` lanes",
    ),
    warp(
        "shfl_up_width",
        SHUFFLE_WIDTH_PARAMS,
        Var(0, AtomicWord),
        R::OwnOrLowerLane,
        "__shfl_up_sync({mask}, {0}, {1}, {2})",
        "value of `v` in lane `lane_id - d`, or the lane's own `v` before the start of its group of `w` lanes",
    ),
    warp(
        "shfl_xor_width",
        SHUFFLE_WIDTH_PARAMS,
        Var(0, AtomicWord),
        R::ThreadVarying,
        "__shfl_xor_sync({mask}, {0}, {1}, {2})",
        "value of `v` in lane `lane_id lxor m`, or the lane's own `v` if that lane is in a later group of `w` lanes",
    ),
    warp_reduction("warp_reduce_add", &["reduce_add_sync"], Int32, "__reduce_add_sync({mask}, {0})", "sum of `v` over the lanes of the warp (wrapping)"),
    warp_reduction("warp_reduce_min", &["reduce_min_sync"], Int32, "__reduce_min_sync({mask}, {0})", "minimum of `v` over the lanes of the warp"),
    warp_reduction("warp_reduce_max", &["reduce_max_sync"], Int32, "__reduce_max_sync({mask}, {0})", "maximum of `v` over the lanes of the warp"),
    warp_reduction(
        "warp_reduce_and",
        &["reduce_and_sync"],
        Int32,
        "skc_warp_reduce_and({0})",
        "bitwise and of `v` over the lanes of the warp",
    ),
    warp_reduction(
        "warp_reduce_or",
        &["reduce_or_sync"],
        Int32,
        "skc_warp_reduce_or({0})",
        "bitwise or of `v` over the lanes of the warp",
    ),
    warp_reduction(
        "warp_reduce_xor",
        &["reduce_xor_sync"],
        Int32,
        "skc_warp_reduce_xor({0})",
        "bitwise exclusive or of `v` over the lanes of the warp",
    ),
    warp_reduction("warp_reduce_add_uint32", &[], UInt32, "__reduce_add_sync({mask}, {0})", "`warp_reduce_add` on uint32"),
    warp_reduction("warp_reduce_min_uint32", &[], UInt32, "__reduce_min_sync({mask}, {0})", "`warp_reduce_min` on uint32 (unsigned order)"),
    warp_reduction("warp_reduce_max_uint32", &[], UInt32, "__reduce_max_sync({mask}, {0})", "`warp_reduce_max` on uint32 (unsigned order)"),
    warp_reduction("warp_reduce_and_uint32", &[], UInt32, "skc_warp_reduce_and({0})", "`warp_reduce_and` on uint32"),
    warp_reduction("warp_reduce_or_uint32", &[], UInt32, "skc_warp_reduce_or({0})", "`warp_reduce_or` on uint32"),
    warp_reduction("warp_reduce_xor_uint32", &[], UInt32, "skc_warp_reduce_xor({0})", "`warp_reduce_xor` on uint32"),
    Builtin {
        name: "activemask",
        aliases: &["active_mask"],
        params: &[],
        ret: UInt32,
        requirement: Requirement::None,
        result: R::WarpUniformUnderControl,
        writes_first_arg: false,
        orders_memory: false,
        warp_uniform_args: false,
        value: None,
        cuda: "__activemask()",
        doc: "bit i set iff lane i is executing this instruction with the calling thread",
    },
    Builtin {
        name: "warp_active_mask",
        aliases: &[],
        params: &[],
        ret: Int32,
        requirement: Requirement::None,
        result: R::WarpUniformUnderControl,
        writes_first_arg: false,
        orders_memory: false,
        warp_uniform_args: false,
        value: None,
        cuda: "((int)__activemask())",
        doc: "`activemask` as Sarek types it, an int32 (lane 31 is the sign bit)",
    },
    Builtin {
        name: "uniform_load",
        aliases: &[],
        params: &[ArrayOf(0, Any), Int32],
        ret: Var(0, Any),
        requirement: Requirement::BlockConverged,
        result: R::BlockUniform,
        writes_first_arg: false,
        orders_memory: false,
        warp_uniform_args: false,
        value: None,
        cuda: "skc_uniform_load({0}, {1})",
        doc: "barrier, then `a.(i)`, then barrier: the value is block-uniform (WGSL's workgroupUniformLoad)",
    },
    // --- atomics (return the old value) -------------------------------------------------------------
    atomic("atomic_add", AtomicWord, "skc_atomic_add(&{0}[{1}], {2})", "a.(i) <- a.(i) + v atomically (also on float16 and bfloat16, rounded once); old value"),
    atomic("atomic_sub", Integer, "skc_atomic_sub(&{0}[{1}], {2})", "a.(i) <- a.(i) - v atomically; old value"),
    atomic("atomic_min", Integer, "atomicMin(&{0}[{1}], {2})", "a.(i) <- min a.(i) v atomically; old value"),
    atomic("atomic_max", Integer, "atomicMax(&{0}[{1}], {2})", "a.(i) <- max a.(i) v atomically; old value"),
    atomic("atomic_and", Integer, "skc_atomic_and(&{0}[{1}], {2})", "a.(i) <- a.(i) land v atomically; old value"),
    atomic("atomic_or", Integer, "skc_atomic_or(&{0}[{1}], {2})", "a.(i) <- a.(i) lor v atomically; old value"),
    atomic("atomic_xor", Integer, "skc_atomic_xor(&{0}[{1}], {2})", "a.(i) <- a.(i) lxor v atomically; old value"),
    atomic("atomic_exch", AtomicWord, "skc_atomic_exch(&{0}[{1}], {2})", "a.(i) <- v atomically; old value"),
    Builtin {
        name: "atomic_cas",
        aliases: &[],
        params: &[ArrayOf(0, Integer), Int32, Var(0, Integer), Var(0, Integer)],
        ret: Var(0, Integer),
        requirement: Requirement::None,
        result: R::ThreadVarying,
        writes_first_arg: true,
        orders_memory: false,
        warp_uniform_args: false,
        value: None,
        cuda: "skc_atomic_cas(&{0}[{1}], {2}, {3})",
        doc: "if a.(i) = expected then a.(i) <- v, atomically (32 or 64 bits); old value",
    },
    // --- Sarek's typed atomics (the element type in the name; return the old value) ----------------------
    sarek_atomic("atomic_add_int32", SAREK_ATOMIC_INT32, Int32, "skc_atomic_add(&{0}[{1}], {2})", "`atomic_add` on int32 elements"),
    sarek_atomic("atomic_sub_int32", SAREK_ATOMIC_INT32, Int32, "skc_atomic_sub(&{0}[{1}], {2})", "`atomic_sub` on int32 elements"),
    sarek_atomic("atomic_exch_int32", SAREK_ATOMIC_INT32, Int32, "skc_atomic_exch(&{0}[{1}], {2})", "`atomic_exch` on int32 elements"),
    sarek_atomic("atomic_min_int32", SAREK_ATOMIC_INT32, Int32, "atomicMin(&{0}[{1}], {2})", "`atomic_min` on int32 elements"),
    sarek_atomic("atomic_max_int32", SAREK_ATOMIC_INT32, Int32, "atomicMax(&{0}[{1}], {2})", "`atomic_max` on int32 elements"),
    sarek_atomic("atomic_and_int32", SAREK_ATOMIC_INT32, Int32, "skc_atomic_and(&{0}[{1}], {2})", "`atomic_and` on int32 elements"),
    sarek_atomic("atomic_or_int32", SAREK_ATOMIC_INT32, Int32, "skc_atomic_or(&{0}[{1}], {2})", "`atomic_or` on int32 elements"),
    sarek_atomic("atomic_xor_int32", SAREK_ATOMIC_INT32, Int32, "skc_atomic_xor(&{0}[{1}], {2})", "`atomic_xor` on int32 elements"),
    sarek_atomic(
        "atomic_cas_int32",
        SAREK_ATOMIC_INT32_CAS,
        Int32,
        "skc_atomic_cas(&{0}[{1}], {2}, {3})",
        "`atomic_cas` on int32 elements (array, index, expected, new value)",
    ),
    sarek_atomic("atomic_inc_int32", SAREK_ATOMIC_INT32_STEP, Int32, "skc_atomic_add(&{0}[{1}], 1)", "a.(i) <- a.(i) + 1 atomically, on int32 elements; old value"),
    sarek_atomic("atomic_dec_int32", SAREK_ATOMIC_INT32_STEP, Int32, "skc_atomic_sub(&{0}[{1}], 1)", "a.(i) <- a.(i) - 1 atomically, on int32 elements; old value"),
    sarek_atomic("atomic_add_int64", SAREK_ATOMIC_INT64, Int64, "skc_atomic_add(&{0}[{1}], {2})", "`atomic_add` on int64 elements"),
    sarek_atomic("atomic_add_float32", SAREK_ATOMIC_FLOAT32, Float32, "skc_atomic_add(&{0}[{1}], {2})", "`atomic_add` on float32 elements"),
    sarek_atomic("atomic_add_float64", SAREK_ATOMIC_FLOAT64, Float64, "skc_atomic_add(&{0}[{1}], {2})", "`atomic_add` on float64 elements"),
    sarek_atomic(
        "atomic_min_float32",
        SAREK_ATOMIC_FLOAT32,
        Float32,
        "skc_atomic_min_float(&{0}[{1}], {2})",
        "a.(i) <- v if v < a.(i), atomically (a compare-and-swap loop; a NaN `v` or element is never replaced); old value",
    ),
    sarek_atomic(
        "atomic_max_float32",
        SAREK_ATOMIC_FLOAT32,
        Float32,
        "skc_atomic_max_float(&{0}[{1}], {2})",
        "a.(i) <- v if v > a.(i), atomically (a compare-and-swap loop; a NaN `v` or element is never replaced); old value",
    ),
    sarek_atomic(
        "atomic_min_float64",
        SAREK_ATOMIC_FLOAT64,
        Float64,
        "skc_atomic_min_float(&{0}[{1}], {2})",
        "`atomic_min_float32` on float64 elements",
    ),
    sarek_atomic(
        "atomic_max_float64",
        SAREK_ATOMIC_FLOAT64,
        Float64,
        "skc_atomic_max_float(&{0}[{1}], {2})",
        "`atomic_max_float32` on float64 elements",
    ),
    sarek_atomic(
        "atomic_add_float16x2",
        ATOMIC_FLOAT16X2,
        Vector(VectorKind::Float16x2),
        "skc_atomic_add(&{0}[{1}], {2})",
        "a.(i) <- a.(i) +. v atomically on float16x2 elements, each lane rounded once (`atom.add.noftz.f16x2`); old value",
    ),
    sarek_atomic(
        "atomic_add_bfloat16x2",
        ATOMIC_BFLOAT16X2,
        Vector(VectorKind::BFloat16x2),
        "skc_atomic_add(&{0}[{1}], {2})",
        "`atomic_add_float16x2` on bfloat16x2 elements (`atom.add.noftz.bf16x2`, sm_90 and newer)",
    ),
    sarek_atomic(
        "atomic_add_global_int32",
        SAREK_ATOMIC_INT32,
        Int32,
        "skc_atomic_add(&{0}[{1}], {2})",
        "`atomic_add` on int32 elements (Sarek's name for a vector; any array is accepted)",
    ),
    sarek_atomic(
        "atomic_inc_global_int32",
        SAREK_ATOMIC_INT32_STEP,
        Int32,
        "skc_atomic_add(&{0}[{1}], 1)",
        "`atomic_inc_int32` (Sarek's name for a vector; any array is accepted)",
    ),
    // --- ordered, scoped atomics (return the old value, except loads and stores) -----------------------
    ordered!(load, "relaxed", "RELAXED", "block", "BLOCK"),
    ordered!(load, "relaxed", "RELAXED", "device", "DEVICE"),
    ordered!(load, "relaxed", "RELAXED", "system", "SYSTEM"),
    ordered!(load, "acquire", "ACQUIRE", "block", "BLOCK"),
    ordered!(load, "acquire", "ACQUIRE", "device", "DEVICE"),
    ordered!(load, "acquire", "ACQUIRE", "system", "SYSTEM"),
    ordered!(store, "relaxed", "RELAXED", "block", "BLOCK"),
    ordered!(store, "relaxed", "RELAXED", "device", "DEVICE"),
    ordered!(store, "relaxed", "RELAXED", "system", "SYSTEM"),
    ordered!(store, "release", "RELEASE", "block", "BLOCK"),
    ordered!(store, "release", "RELEASE", "device", "DEVICE"),
    ordered!(store, "release", "RELEASE", "system", "SYSTEM"),
    ordered!(add, "relaxed", "RELAXED", "block", "BLOCK"),
    ordered!(add, "relaxed", "RELAXED", "device", "DEVICE"),
    ordered!(add, "relaxed", "RELAXED", "system", "SYSTEM"),
    ordered!(add, "acquire", "ACQUIRE", "block", "BLOCK"),
    ordered!(add, "acquire", "ACQUIRE", "device", "DEVICE"),
    ordered!(add, "acquire", "ACQUIRE", "system", "SYSTEM"),
    ordered!(add, "release", "RELEASE", "block", "BLOCK"),
    ordered!(add, "release", "RELEASE", "device", "DEVICE"),
    ordered!(add, "release", "RELEASE", "system", "SYSTEM"),
    ordered!(add, "acq_rel", "ACQ_REL", "block", "BLOCK"),
    ordered!(add, "acq_rel", "ACQ_REL", "device", "DEVICE"),
    ordered!(add, "acq_rel", "ACQ_REL", "system", "SYSTEM"),
    ordered!(exch, "relaxed", "RELAXED", "block", "BLOCK"),
    ordered!(exch, "relaxed", "RELAXED", "device", "DEVICE"),
    ordered!(exch, "relaxed", "RELAXED", "system", "SYSTEM"),
    ordered!(exch, "acquire", "ACQUIRE", "block", "BLOCK"),
    ordered!(exch, "acquire", "ACQUIRE", "device", "DEVICE"),
    ordered!(exch, "acquire", "ACQUIRE", "system", "SYSTEM"),
    ordered!(exch, "release", "RELEASE", "block", "BLOCK"),
    ordered!(exch, "release", "RELEASE", "device", "DEVICE"),
    ordered!(exch, "release", "RELEASE", "system", "SYSTEM"),
    ordered!(exch, "acq_rel", "ACQ_REL", "block", "BLOCK"),
    ordered!(exch, "acq_rel", "ACQ_REL", "device", "DEVICE"),
    ordered!(exch, "acq_rel", "ACQ_REL", "system", "SYSTEM"),
    ordered!(cas, "relaxed", "RELAXED", "RELAXED", "block", "BLOCK"),
    ordered!(cas, "relaxed", "RELAXED", "RELAXED", "device", "DEVICE"),
    ordered!(cas, "relaxed", "RELAXED", "RELAXED", "system", "SYSTEM"),
    ordered!(cas, "acquire", "ACQUIRE", "ACQUIRE", "block", "BLOCK"),
    ordered!(cas, "acquire", "ACQUIRE", "ACQUIRE", "device", "DEVICE"),
    ordered!(cas, "acquire", "ACQUIRE", "ACQUIRE", "system", "SYSTEM"),
    ordered!(cas, "release", "RELEASE", "RELAXED", "block", "BLOCK"),
    ordered!(cas, "release", "RELEASE", "RELAXED", "device", "DEVICE"),
    ordered!(cas, "release", "RELEASE", "RELAXED", "system", "SYSTEM"),
    ordered!(cas, "acq_rel", "ACQ_REL", "ACQUIRE", "block", "BLOCK"),
    ordered!(cas, "acq_rel", "ACQ_REL", "ACQUIRE", "device", "DEVICE"),
    ordered!(cas, "acq_rel", "ACQ_REL", "ACQUIRE", "system", "SYSTEM"),
    // --- fences and sleeps --------------------------------------------------------------------------
    with_aliases(
        effect("fence_block", &[], "__threadfence_block()", "orders this thread's memory accesses as seen by its block"),
        &["memory_fence_block"],
    ),
    with_aliases(
        effect("fence_device", &[], "__threadfence()", "orders this thread's memory accesses as seen by the device"),
        &["fence", "threadfence", "memory_fence_device"],
    ),
    effect(
        "fence_system",
        &[],
        "__threadfence_system()",
        "orders this thread's memory accesses as seen by the host too",
    ),
    ordered!(fence, "acquire", "ACQUIRE", "block", "BLOCK"),
    ordered!(fence, "acquire", "ACQUIRE", "device", "DEVICE"),
    ordered!(fence, "acquire", "ACQUIRE", "system", "SYSTEM"),
    ordered!(fence, "release", "RELEASE", "block", "BLOCK"),
    ordered!(fence, "release", "RELEASE", "device", "DEVICE"),
    ordered!(fence, "release", "RELEASE", "system", "SYSTEM"),
    ordered!(fence, "acq_rel", "ACQ_REL", "block", "BLOCK"),
    ordered!(fence, "acq_rel", "ACQ_REL", "device", "DEVICE"),
    ordered!(fence, "acq_rel", "ACQ_REL", "system", "SYSTEM"),
    effect("nanosleep", &[UInt32], "__nanosleep({0})", "sleeps about `ns` nanoseconds"),
    Builtin {
        name: "globaltimer",
        aliases: &[],
        params: &[],
        ret: UInt64,
        requirement: Requirement::None,
        result: R::ThreadVarying,
        writes_first_arg: false,
        orders_memory: true,
        warp_uniform_args: false,
        value: None,
        cuda: "skc_globaltimer()",
        doc: "the GPU's global nanosecond timer (`%globaltimer`), one clock for every SM; it may tick in steps \
              coarser than 1 ns",
    },
    // --- programmatic dependent launch (a grid that starts before the one it depends on has ended) ----------
    // Both order memory: the emitter keeps them in place between the accesses around them.
    Builtin {
        orders_memory: true,
        ..effect(
            "grid_dependency_sync",
            &[],
            "skc_grid_dependency_sync()",
            "waits until the grid launched before this one has completed and its memory writes are visible, when \
             this grid was launched as its dependent (skc-runtime's `launch_dependent_on`: programmatic stream \
             serialization); returns at once in any other launch. Call it before reading what that grid writes",
        )
    },
    Builtin {
        orders_memory: true,
        ..effect(
            "trigger_dependent_launch",
            &[],
            "skc_trigger_dependent_launch()",
            "lets the grid launched after this one as its dependent start before this grid ends (once every block \
             has called it or exited); that grid still sees this one's writes only after its \
             `grid_dependency_sync ()`. Without it, a dependent grid starts as this one's blocks exit",
        )
    },
    // --- device-side launch -----------------------------------------------------------------------
    Builtin {
        name: "launch",
        aliases: &[],
        params: &[Kernel, Int32, Int32, Int32, KernelArgs],
        ret: Int32,
        requirement: Requirement::None,
        result: R::ThreadVarying,
        writes_first_arg: false,
        orders_memory: true,
        warp_uniform_args: false,
        value: None,
        cuda: "skc_launch",
        doc: "`launch k grid block shared_bytes args...` launches kernel `k` from the device (fire-and-forget, 1-D \
              grid and block, `shared_bytes` of dynamic shared memory); 0 if launched, else the cudaError code. \
              Needs the device runtime (the program is compiled relocatable and linked with libcudadevrt)",
    },
    // --- data select --------------------------------------------------------------------------------
    pure(
        "select",
        &[Bool, Var(0, Any), Var(0, Any)],
        Var(0, Any),
        "({0} ? {1} : {2})",
        "`a` if `c` else `b`; both are evaluated (a predicated select, not a branch)",
    ),
    effect(
        "ignore",
        &[Var(0, Any)],
        "((void)({0}))",
        "evaluates `x` (for its effects) and discards its value",
    ),
    Builtin {
        name: "assert",
        aliases: &[],
        params: &[Bool],
        ret: Unit,
        requirement: Requirement::None,
        result: R::Uniform,
        writes_first_arg: false,
        orders_memory: true,
        warp_uniform_args: false,
        value: None,
        cuda: "skc_assert({0}, {location})",
        doc: "does nothing if `c` holds; else the thread stops the kernel with CUDA's failed-assertion error \
              (`__assertfail`: the launch fails with cudaErrorAssert), printing the condition and its source file \
              and line",
    },
    Builtin {
        name: "printf",
        aliases: &[],
        params: &[Format, FormatArgs],
        ret: Unit,
        requirement: Requirement::None,
        result: R::Uniform,
        writes_first_arg: false,
        orders_memory: true,
        warp_uniform_args: false,
        value: None,
        cuda: "printf",
        doc: "`printf \"x=%d y=%f\\n\" x y` prints one line per thread that runs it (CUDA's device `printf`); the \
              format is a string literal whose conversions are checked against the arguments' types",
    },
    // --- math -----------------------------------------------------------------------------------------
    pure("sqrt", F1, FR, "sqrt{f}({0})", "square root"),
    pure("rsqrt", F1, FR, "rsqrt{f}({0})", "1 / sqrt x"),
    pure(
        "rcp_approx",
        F1,
        FR,
        "skc_rcp_approx({0})",
        "approximate 1 / x (PTX rcp.approx.ftz: float32 within about 1 ulp, float64 a seed good to about 20 bits for a Newton step; subnormals flush to zero)",
    ),
    pure("cbrt", F1, FR, "cbrt{f}({0})", "cube root"),
    pure("exp", F1, FR, "exp{f}({0})", "e to the x"),
    pure("exp2", F1, FR, "exp2{f}({0})", "2 to the x"),
    pure("expm1", F1, FR, "expm1{f}({0})", "exp x - 1"),
    pure("log", F1, FR, "log{f}({0})", "natural logarithm"),
    pure("log2", F1, FR, "log2{f}({0})", "base-2 logarithm"),
    pure("log10", F1, FR, "log10{f}({0})", "base-10 logarithm"),
    pure("log1p", F1, FR, "log1p{f}({0})", "log (1 + x)"),
    pure("sin", F1, FR, "sin{f}({0})", "sine"),
    pure("cos", F1, FR, "cos{f}({0})", "cosine"),
    pure("tan", F1, FR, "tan{f}({0})", "tangent"),
    pure("asin", F1, FR, "asin{f}({0})", "arc sine"),
    pure("acos", F1, FR, "acos{f}({0})", "arc cosine"),
    pure("atan", F1, FR, "atan{f}({0})", "arc tangent"),
    pure("sinh", F1, FR, "sinh{f}({0})", "hyperbolic sine"),
    pure("cosh", F1, FR, "cosh{f}({0})", "hyperbolic cosine"),
    pure("tanh", F1, FR, "tanh{f}({0})", "hyperbolic tangent"),
    pure("erf", F1, FR, "erf{f}({0})", "error function"),
    pure("floor", F1, FR, "floor{f}({0})", "round down"),
    pure("ceil", F1, FR, "ceil{f}({0})", "round up"),
    pure("round", F1, FR, "round{f}({0})", "round half away from zero"),
    pure("trunc", F1, FR, "trunc{f}({0})", "round towards zero"),
    with_aliases(pure("fabs", F1, FR, "fabs{f}({0})", "absolute value of a float"), &["abs_float"]),
    pure(
        "pow",
        N2,
        NR,
        "{i}pow{f}({0}, {1})",
        "x to the y; on integers by repeated multiplication (signed overflow undefined, as for `*`), and for \
         y < 0 the truncation of 1 / x^-y (1 for x = 1, 1 or -1 for x = -1, else 0)",
    ),
    pure("atan2", F2, FR, "atan2{f}({0}, {1})", "arc tangent of y / x"),
    pure("fmod", F2, FR, "fmod{f}({0}, {1})", "float remainder"),
    pure("hypot", F2, FR, "hypot{f}({0}, {1})", "sqrt (x*x + y*y)"),
    pure("copysign", F2, FR, "copysign{f}({0}, {1})", "magnitude of x, sign of y"),
    pure("fmin", F2, FR, "fmin{f}({0}, {1})", "minimum of two floats"),
    pure("fmax", F2, FR, "fmax{f}({0}, {1})", "maximum of two floats"),
    pure("fma", F3, FR, "fma{f}({0}, {1}, {2})", "x * y + z with one rounding"),
    // Float32 only: the hardware approximations (a few instructions where the IEEE forms cost tens), for
    // quantities that only steer decisions, such as an ODE controller's gain or an error norm.
    pure(
        "pow_approx",
        &[Float32, Float32],
        Float32,
        "__powf({0}, {1})",
        "x to the y for x > 0 as exp2 (y log2 x) in the hardware approximations (about 2 ulp in log2 x, \
         then y times that error); x = 0 gives 0 or infinity, x < 0 NaN",
    ),
    pure(
        "exp2_approx",
        &[Float32],
        Float32,
        "skc_ex2_approx({0})",
        "2 to the x by the hardware approximation (PTX ex2.approx.ftz.f32: about 2 ulp; a subnormal result \
         flushes to zero)",
    ),
    pure(
        "log2_approx",
        &[Float32],
        Float32,
        "skc_lg2_approx({0})",
        "base-2 logarithm by the hardware approximation (PTX lg2.approx.ftz.f32: about 2^-22 absolute; a \
         subnormal x flushes to zero, giving -infinity)",
    ),
    pure(
        "div_approx",
        &[Float32, Float32],
        Float32,
        "__fdividef({0}, {1})",
        "x / y by the hardware reciprocal (about 2 ulp); 0 for |y| in (2^126, 2^128)",
    ),
    pure("abs", N1, NR, "skc_abs({0})", "absolute value"),
    pure("min", N2, NR, "skc_min({0}, {1})", "minimum"),
    pure("max", N2, NR, "skc_max({0}, {1})", "maximum"),
    with_aliases(pure("popc", &[Int32], Int32, "__popc((unsigned int)({0}))", "number of bits set"), &["popcount_int32"]),
    with_aliases(pure("clz", &[Int32], Int32, "__clz({0})", "number of leading zero bits (32 for 0)"), &["clz_int32"]),
    with_aliases(
        pure("popc64", &[Int64], Int32, "__popcll((unsigned long long)({0}))", "number of bits set in an int64"),
        &["popcll"],
    ),
    with_aliases(
        pure("clz64", &[Int64], Int32, "__clzll({0})", "number of leading zero bits of an int64 (64 for 0)"),
        &["clzll"],
    ),
    pure("ffs", &[Int32], Int32, "__ffs({0})", "position of the least significant bit set, from 1 (0 for 0)"),
    with_aliases(
        pure("ffs64", &[Int64], Int32, "__ffsll({0})", "`ffs` of an int64 (0 for 0)"),
        &["ffsll"],
    ),
    pure("brev", &[Int32], Int32, "((int)__brev((unsigned int)({0})))", "the 32 bits in reverse order"),
    with_aliases(
        pure(
            "brev64",
            &[Int64],
            Int64,
            "((long long)__brevll((unsigned long long)({0})))",
            "the 64 bits of an int64 in reverse order",
        ),
        &["brevll"],
    ),
    pure(
        "funnel_shift_left",
        &[Int32, Int32, Int32],
        Int32,
        "((int)__funnelshift_l((unsigned int)({0}), (unsigned int)({1}), (unsigned int)({2})))",
        "`funnel_shift_left lo hi s`: the high 32 bits of the 64-bit `hi:lo` shifted left by `s land 31` (CUDA's \
         `__funnelshift_l`)",
    ),
    pure(
        "funnel_shift_right",
        &[Int32, Int32, Int32],
        Int32,
        "((int)__funnelshift_r((unsigned int)({0}), (unsigned int)({1}), (unsigned int)({2})))",
        "`funnel_shift_right lo hi s`: the low 32 bits of the 64-bit `hi:lo` shifted right by `s land 31` (CUDA's \
         `__funnelshift_r`)",
    ),
    // Sarek's typed names: the type in the name is the type of the operands and result.
    pure("abs_int32", &[Int32], Int32, "skc_abs({0})", "`abs` on int32"),
    pure("spoc_powint", &[Int32, Int32], Int32, "skc_ipow({0}, {1})", "`pow` on int32"),
    pure("min_int32", &[Int32, Int32], Int32, "skc_min({0}, {1})", "`min` on int32"),
    pure("max_int32", &[Int32, Int32], Int32, "skc_max({0}, {1})", "`max` on int32"),
    pure("sin_f64", &[Float64], Float64, "sin({0})", "`sin` on float64"),
    pure("cos_f64", &[Float64], Float64, "cos({0})", "`cos` on float64"),
    pure("tan_f64", &[Float64], Float64, "tan({0})", "`tan` on float64"),
    pure("sqrt_f64", &[Float64], Float64, "sqrt({0})", "`sqrt` on float64"),
    pure("exp_f64", &[Float64], Float64, "exp({0})", "`exp` on float64"),
    pure("log_f64", &[Float64], Float64, "log({0})", "`log` on float64"),
    pure("log2_f64", &[Float64], Float64, "log2({0})", "`log2` on float64"),
    pure("log10_f64", &[Float64], Float64, "log10({0})", "`log10` on float64"),
    pure("pow_f64", &[Float64, Float64], Float64, "pow({0}, {1})", "`pow` on float64"),
    pure("fabs_f64", &[Float64], Float64, "fabs({0})", "`fabs` on float64"),
    pure("floor_f64", &[Float64], Float64, "floor({0})", "`floor` on float64"),
    pure("ceil_f64", &[Float64], Float64, "ceil({0})", "`ceil` on float64"),
    pure("fma_f64", &[Float64, Float64, Float64], Float64, "fma({0}, {1}, {2})", "`fma` on float64"),
    pure("is_nan", F1, Bool, "isnan({0})", "true iff x is NaN"),
    pure("is_finite", F1, Bool, "isfinite({0})", "true iff x is neither infinite nor NaN"),
    // --- float constants ------------------------------------------------------------------------------
    float_constant("infinity", FR, FloatConstant::Infinity, "positive infinity, of the float type the context requires"),
    float_constant(
        "neg_infinity",
        FR,
        FloatConstant::NegInfinity,
        "negative infinity, of the float type the context requires",
    ),
    float_constant("nan", FR, FloatConstant::Nan, "a quiet NaN, of the float type the context requires"),
    float_constant(
        "max_float",
        FR,
        FloatConstant::Max,
        "the largest finite value of the float type the context requires (OCaml's name)",
    ),
    float_constant(
        "min_float",
        FR,
        FloatConstant::MinPositive,
        "the smallest positive normal value of the float type the context requires (OCaml's name)",
    ),
    float_constant(
        "epsilon_float",
        FR,
        FloatConstant::Epsilon,
        "1.0's distance to the next larger value of the float type the context requires (OCaml's name)",
    ),
    float_constant("max_float32", Float32, FloatConstant::Max, "the largest finite float32, 3.4028235e38"),
    float_constant(
        "min_positive_float32",
        Float32,
        FloatConstant::MinPositive,
        "the smallest positive normal float32, 1.1754944e-38",
    ),
    float_constant("epsilon_float32", Float32, FloatConstant::Epsilon, "1.0's distance to the next float32, 2^-23"),
    float_constant("max_float64", Float64, FloatConstant::Max, "the largest finite float64, 1.7976931348623157e308"),
    float_constant(
        "min_positive_float64",
        Float64,
        FloatConstant::MinPositive,
        "the smallest positive normal float64, 2.2250738585072014e-308",
    ),
    float_constant("epsilon_float64", Float64, FloatConstant::Epsilon, "1.0's distance to the next float64, 2^-52"),
    // --- conversions ----------------------------------------------------------------------------------
    with_aliases(
        pure("float32", &[Var(0, Numeric)], Float32, "((float)({0}))", "convert to float32"),
        &["float", "to_float32", "float_of_int"],
    ),
    with_aliases(
        pure("float64", &[Var(0, Numeric)], Float64, "((double)({0}))", "convert to float64"),
        &["to_float64", "float64_of_int"],
    ),
    pure("float16", &[Var(0, Numeric)], Float16, "skc_to_float16({0})", "convert to float16 (rounded once, to nearest even)"),
    pure("bfloat16", &[Var(0, Numeric)], BFloat16, "skc_to_bfloat16({0})", "convert to bfloat16 (rounded once, to nearest even)"),
    with_aliases(
        pure("int32", &[Var(0, Numeric)], Int32, "((int)({0}))", "convert to int32 (a float truncates toward zero and saturates; NaN is 0)"),
        &["int", "to_int32", "int_of_float", "int_of_float64"],
    ),
    with_aliases(pure("int64", &[Var(0, Numeric)], Int64, "((long long)({0}))", "convert to int64 (as int32)"), &["to_int64"]),
    with_aliases(
        pure("uint32", &[Var(0, Numeric)], UInt32, "((unsigned int)({0}))", "convert to uint32 (as int32; a negative float is 0)"),
        &["to_uint32"],
    ),
    with_aliases(
        pure("uint64", &[Var(0, Numeric)], UInt64, "((unsigned long long)({0}))", "convert to uint64 (as uint32)"),
        &["to_uint64"],
    ),
    // --- vector types -------------------------------------------------------------------------------
    pure("make_float2", &[Float32, Float32], Vector(VectorKind::Float2), "make_float2({0}, {1})", "the float2 `{x; y}`"),
    pure(
        "make_float4",
        &[Float32, Float32, Float32, Float32],
        Vector(VectorKind::Float4),
        "make_float4({0}, {1}, {2}, {3})",
        "the float4 `{x; y; z; w}`",
    ),
    pure("make_int2", &[Int32, Int32], Vector(VectorKind::Int2), "make_int2({0}, {1})", "the int2 `{x; y}`"),
    pure(
        "make_int4",
        &[Int32, Int32, Int32, Int32],
        Vector(VectorKind::Int4),
        "make_int4({0}, {1}, {2}, {3})",
        "the int4 `{x; y; z; w}`",
    ),
    pure(
        "make_float64x2",
        &[Float64, Float64],
        Vector(VectorKind::Float64x2),
        "make_double2({0}, {1})",
        "the float64x2 `{x; y}` (CUDA's double2)",
    ),
    pure(
        "make_float16x2",
        &[Float16, Float16],
        Vector(VectorKind::Float16x2),
        "skc_float16x2_make({0}, {1})",
        "the float16x2 `{x; y}` (one 32-bit register)",
    ),
    pure(
        "make_bfloat16x2",
        &[BFloat16, BFloat16],
        Vector(VectorKind::BFloat16x2),
        "skc_bfloat16x2_make({0}, {1})",
        "the bfloat16x2 `{x; y}` (one 32-bit register)",
    ),
    vector_load("load_float2", VectorKind::Float2, &[ArrayOf(0, ExactFloat32), Int32], "reinterpret_cast<const float2*>({0})[{1}]", "elements `2 i`, `2 i + 1` of `a` as one float2, one 8-byte load (`ld.v2.f32`); `a` aligned to 8 bytes (checked at launch for a vector parameter)"),
    vector_load("load_float4", VectorKind::Float4, &[ArrayOf(0, ExactFloat32), Int32], "reinterpret_cast<const float4*>({0})[{1}]", "elements `4 i .. 4 i + 3` of `a` as one float4, one 16-byte load (`ld.v4.f32`); `a` aligned to 16 bytes (checked at launch for a vector parameter)"),
    vector_load("load_int2", VectorKind::Int2, &[ArrayOf(0, ExactInt32), Int32], "reinterpret_cast<const int2*>({0})[{1}]", "elements `2 i`, `2 i + 1` of `a` as one int2, one 8-byte load (`ld.v2.s32`); `a` aligned to 8 bytes"),
    vector_load("load_int4", VectorKind::Int4, &[ArrayOf(0, ExactInt32), Int32], "reinterpret_cast<const int4*>({0})[{1}]", "elements `4 i .. 4 i + 3` of `a` as one int4, one 16-byte load (`ld.v4.s32`); `a` aligned to 16 bytes"),
    vector_load(
        "load_float64x2",
        VectorKind::Float64x2,
        &[ArrayOf(0, ExactFloat64), Int32],
        "reinterpret_cast<const double2*>({0})[{1}]", "elements `2 i`, `2 i + 1` of `a` as one float64x2, one 16-byte load (`ld.v2.f64`); `a` aligned to 16 bytes"),
    vector_load(
        "load_float16x2",
        VectorKind::Float16x2,
        &[ArrayOf(0, ExactFloat16), Int32],
        "reinterpret_cast<const skc_float16x2*>({0})[{1}]", "elements `2 i`, `2 i + 1` of the float16 array `a` as one float16x2, one 4-byte load; `a` aligned to 4 bytes"),
    vector_load(
        "load_bfloat16x2",
        VectorKind::BFloat16x2,
        &[ArrayOf(0, ExactBFloat16), Int32],
        "reinterpret_cast<const skc_bfloat16x2*>({0})[{1}]", "elements `2 i`, `2 i + 1` of the bfloat16 array `a` as one bfloat16x2, one 4-byte load; `a` aligned to 4 bytes"),
    vector_store(
        "store_float2",
        &[ArrayOf(0, ExactFloat32), Int32, Vector(VectorKind::Float2)],
        "(reinterpret_cast<float2*>({0})[{1}] = {2})", "writes `v.x`, `v.y` to elements `2 i`, `2 i + 1` of `a`, one store (`st.v2.f32`)"),
    vector_store(
        "store_float4",
        &[ArrayOf(0, ExactFloat32), Int32, Vector(VectorKind::Float4)],
        "(reinterpret_cast<float4*>({0})[{1}] = {2})", "writes `v.x` .. `v.w` to elements `4 i .. 4 i + 3` of `a`, one store (`st.v4.f32`)"),
    vector_store(
        "store_int2",
        &[ArrayOf(0, ExactInt32), Int32, Vector(VectorKind::Int2)],
        "(reinterpret_cast<int2*>({0})[{1}] = {2})", "writes `v.x`, `v.y` to elements `2 i`, `2 i + 1` of `a`, one store (`st.v2.s32`)"),
    vector_store(
        "store_int4",
        &[ArrayOf(0, ExactInt32), Int32, Vector(VectorKind::Int4)],
        "(reinterpret_cast<int4*>({0})[{1}] = {2})", "writes `v.x` .. `v.w` to elements `4 i .. 4 i + 3` of `a`, one store (`st.v4.s32`)"),
    vector_store(
        "store_float64x2",
        &[ArrayOf(0, ExactFloat64), Int32, Vector(VectorKind::Float64x2)],
        "(reinterpret_cast<double2*>({0})[{1}] = {2})", "writes `v.x`, `v.y` to elements `2 i`, `2 i + 1` of `a`, one store (`st.v2.f64`)"),
    vector_store(
        "store_float16x2",
        &[ArrayOf(0, ExactFloat16), Int32, Vector(VectorKind::Float16x2)],
        "(reinterpret_cast<skc_float16x2*>({0})[{1}] = {2})", "writes `v.x`, `v.y` to elements `2 i`, `2 i + 1` of the float16 array `a`, one 4-byte store"),
    vector_store(
        "store_bfloat16x2",
        &[ArrayOf(0, ExactBFloat16), Int32, Vector(VectorKind::BFloat16x2)],
        "(reinterpret_cast<skc_bfloat16x2*>({0})[{1}] = {2})", "writes `v.x`, `v.y` to elements `2 i`, `2 i + 1` of the bfloat16 array `a`, one 4-byte store"),
];

/// Modules whose qualified names reach the builtins (`Gpu.block_barrier`, `Std.sqrt`).
pub const BUILTIN_MODULES: &[&str] = &["Gpu", "Std", "Math", "Float32", "Float64", "Int32", "Int64"];

/// A builtin of [`BUILTINS`] by its place in the table: four bytes where a reference takes eight, so that a
/// name's resolution (kept for every named expression) takes eight. Dereferences to the builtin.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct BuiltinRef(u32);

impl BuiltinRef {
    pub fn get(self) -> &'static Builtin {
        &BUILTINS[self.0 as usize]
    }
}

impl std::ops::Deref for BuiltinRef {
    type Target = Builtin;

    fn deref(&self) -> &Builtin {
        self.get()
    }
}

impl std::fmt::Debug for BuiltinRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

/// Finds a builtin by name or alias (the first in table order that has it).
pub fn lookup(name: &str) -> Option<BuiltinRef> {
    by_spelling().get(name).copied()
}

/// The oldest architecture (`sm_XY` times ten) whose hardware has a builtin, for the few that not every
/// architecture skc compiles for has: the warp reductions (`redux.sync`) are sm_80 and newer.
pub fn min_sm(builtin: &Builtin) -> Option<u32> {
    match builtin.name {
        // atom.add.noftz.bf16x2
        "atomic_add_bfloat16x2" => Some(90),
        name => name.starts_with("warp_reduce_").then_some(80),
    }
}

/// The oldest architecture with an instruction for `builtin` on arrays of `element`, where that depends on the
/// element: `atomic_add` on bfloat16 is `atom.add.noftz.bf16`, which PTX has from sm_90 on (float16's from sm_70,
/// older than every target NVRTC 13 has).
pub fn min_sm_for_element(builtin: &Builtin, element: &crate::types::Type) -> Option<u32> {
    (min_sm_depends_on_element(builtin) && *element == crate::types::Type::BFloat16).then_some(90)
}

/// Can [`min_sm_for_element`] answer anything for `builtin` (so that its element type is worth looking for)?
pub fn min_sm_depends_on_element(builtin: &Builtin) -> bool {
    builtin.name == "atomic_add"
}

/// Is `builtin` a shuffle within groups of lanes (its last argument the group's width, a power of two up to 32)?
pub fn is_shuffle_with_width(builtin: &Builtin) -> bool {
    builtin.name.starts_with("shfl") && builtin.name.ends_with("_width")
}

/// Every spelling (name or alias) of a builtin, to the first builtin that has it: a name resolved to a builtin
/// is looked up here once per use, and a scan of the table was a visible part of type checking.
fn by_spelling() -> &'static FxHashMap<&'static str, BuiltinRef> {
    static TABLE: OnceLock<FxHashMap<&'static str, BuiltinRef>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = FxHashMap::default();
        for (index, builtin) in BUILTINS.iter().enumerate() {
            for spelling in std::iter::once(builtin.name).chain(builtin.aliases.iter().copied()) {
                table.entry(spelling).or_insert(BuiltinRef(index as u32));
            }
        }
        table
    })
}

/// Every spelling (name or alias) of a builtin, each once, with the first builtin that has it (as [`lookup`]
/// finds it).
pub fn spellings() -> impl Iterator<Item = (&'static str, BuiltinRef)> {
    by_spelling().iter().map(|(spelling, builtin)| (*spelling, *builtin))
}

/// Every spelling of every builtin, for "did you mean" suggestions.
pub fn all_names() -> impl Iterator<Item = &'static str> {
    BUILTINS.iter().flat_map(|b| std::iter::once(b.name).chain(b.aliases.iter().copied()))
}

impl TypeClass {
    /// The name of a type variable of this class in a printed signature (`'num`, `'int1`).
    pub fn var_name(self) -> &'static str {
        match self {
            TypeClass::Numeric => "num",
            TypeClass::Integer => "int",
            TypeClass::Float => "float",
            TypeClass::AtomicWord => "word",
            TypeClass::Any => "a",
            TypeClass::ExactInt32 => "int32",
            TypeClass::ExactInt64 => "int64",
            TypeClass::ExactFloat32 => "float32",
            TypeClass::ExactFloat64 => "float64",
            TypeClass::ExactFloat16 => "float16",
            TypeClass::ExactBFloat16 => "bfloat16",
            TypeClass::ExactFloat16x2 => "float16x2",
            TypeClass::ExactBFloat16x2 => "bfloat16x2",
        }
    }
}

impl SigType {
    /// How docs/language.md's builtin table and the language server's hovers print this type: scalars by name,
    /// type variable `n` of class `c` as `'c` (the first) or `'cn`, and one of an exact class as its type.
    pub fn display(self) -> String {
        let var = |n: u8, class: TypeClass| match (class.exact(), n) {
            (Some(exact), _) => exact.display(),
            (None, 0) => format!("'{}", class.var_name()),
            (None, n) => format!("'{}{n}", class.var_name()),
        };
        match self {
            SigType::Int32 => "int32".into(),
            SigType::Int64 => "int64".into(),
            SigType::UInt32 => "uint32".into(),
            SigType::UInt64 => "uint64".into(),
            SigType::Float32 => "float32".into(),
            SigType::Float64 => "float64".into(),
            SigType::Float16 => "float16".into(),
            SigType::BFloat16 => "bfloat16".into(),
            SigType::Bool => "bool".into(),
            SigType::Unit => "unit".into(),
            SigType::Var(n, class) => var(n, class),
            SigType::ArrayOf(n, class) => format!("{} array", var(n, class)),
            SigType::Kernel => "kernel".into(),
            SigType::KernelArgs => "args...".into(),
            SigType::Format => "format".into(),
            SigType::FormatArgs => "args...".into(),
            SigType::Vector(kind) => kind.name().into(),
        }
    }
}

impl Builtin {
    /// `p1 -> p2 -> ... -> result`, each type as [`SigType::display`] prints it.
    pub fn signature(&self) -> String {
        self.signature_types().join(" -> ")
    }

    /// The parameter types, then the result type, each as [`SigType::display`] prints it.
    pub fn signature_types(&self) -> Vec<String> {
        self.params.iter().chain(std::iter::once(&self.ret)).map(|t| t.display()).collect()
    }
}

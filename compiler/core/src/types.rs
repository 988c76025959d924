//! Types, and the side tables the type checker produces: the type of every expression, what every name refers
//! to, and the signatures of kernels, functions, constants and records. This is the contract between the type
//! checker (`typeck`) and the passes after it (convergence analysis, CUDA emission, the language server).

use std::sync::Arc;

use crate::source::Span;
use crate::syntax::ast::{ExprId, ExprMap, MemorySpace};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RecordId(pub u32);
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalId(pub u32);
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FunctionId(pub u32);
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConstantId(pub u32);
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeVarId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArraySize {
    Const(u32),
    /// A shared array whose size is a kernel parameter: emitted as `extern __shared__`, sized at launch.
    Dynamic,
}

/// A type. Element types sit behind an `Arc`, so a clone (the type checker copies types constantly) never
/// allocates; `Debug`, equality and hashing see through it as they saw through the `Box` it replaced.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Int32,
    Int64,
    UInt32,
    UInt64,
    Float32,
    Float64,
    /// IEEE binary16, stored as its 16 bits (`crate::half_float` defines its arithmetic).
    Float16,
    /// bfloat16 (float32's upper half), stored as its 16 bits.
    BFloat16,
    Bool,
    Unit,
    /// `T vector`: an array in global memory (a kernel parameter).
    Vector(Arc<Type>),
    /// A shared or local array of fixed (or, for shared, launch-time) size.
    Array {
        elem: Arc<Type>,
        space: MemorySpace,
        size: ArraySize,
    },
    /// A constant array (`let c = [| ... |]` at top level): `__constant__` memory, read-only.
    ConstArray {
        elem: Arc<Type>,
        size: u32,
    },
    /// `T ref`: a mutable cell made by `ref e`.
    Ref(Arc<Type>),
    Record(RecordId),
    /// `float32 * int32`: a tuple, while the type checker infers; it makes each tuple type an anonymous record
    /// (`RecordInfo::tuple`) when it finishes, so no `Type::Tuple` reaches a later pass.
    Tuple(Arc<[Type]>),
    /// An inference variable; none is left after `typeck` finishes (unresolved ones are defaulted).
    Var(TypeVarId),
    /// The type of an expression that had a type error (suppresses cascades).
    Error,
}

impl Type {
    pub fn is_integer(&self) -> bool {
        matches!(self, Type::Int32 | Type::Int64 | Type::UInt32 | Type::UInt64)
    }
    pub fn is_float(&self) -> bool {
        matches!(self, Type::Float32 | Type::Float64 | Type::Float16 | Type::BFloat16)
    }
    /// `float16` or `bfloat16`: the 16-bit floats, whose operations are fewer (`typeck::half`).
    pub fn is_half(&self) -> bool {
        self.half_format().is_some()
    }
    pub fn half_format(&self) -> Option<crate::half_float::HalfFormat> {
        match self {
            Type::Float16 => Some(crate::half_float::HalfFormat::Float16),
            Type::BFloat16 => Some(crate::half_float::HalfFormat::BFloat16),
            _ => None,
        }
    }
    pub fn is_numeric(&self) -> bool {
        self.is_integer() || self.is_float()
    }
    /// The sizes of a shared or local array, outermost first: one for `float32 shared[256]`, two for the
    /// row-major `float32 shared[16][17]` (an array whose elements are rows); none for any other type.
    pub fn array_dimensions(&self) -> Vec<ArraySize> {
        let mut sizes = Vec::new();
        let mut ty = self;
        while let Type::Array { elem, size, .. } = ty {
            sizes.push(*size);
            ty = elem;
        }
        sizes
    }

    /// The scalar or record an array's elements hold, through every dimension; the type itself otherwise.
    pub fn innermost_element(&self) -> &Type {
        let mut ty = self;
        while let Type::Array { elem, .. } = ty {
            ty = elem;
        }
        ty
    }

    /// Is this a shared or local array of two or more dimensions (its elements are rows)?
    pub fn is_multi_dimensional(&self) -> bool {
        matches!(self, Type::Array { elem, .. } if matches!(elem.as_ref(), Type::Array { .. }))
    }

    /// Elements of the innermost type a fixed-size array holds, through every dimension (`16 * 17` for
    /// `float32 shared[16][17]`); `None` when a size is not a constant.
    pub fn total_elements(&self) -> Option<u64> {
        self.array_dimensions().iter().try_fold(1u64, |total, size| match size {
            ArraySize::Const(n) => Some(total * u64::from(*n)),
            ArraySize::Dynamic => None,
        })
    }

    /// Element type of a vector, shared/local array or constant array.
    pub fn element(&self) -> Option<&Type> {
        match self {
            Type::Vector(e) | Type::Array { elem: e, .. } | Type::ConstArray { elem: e, .. } => Some(e),
            _ => None,
        }
    }
}

/// How a local variable may change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mutability {
    /// `let x = e in`, function and kernel parameters, loop counters.
    Immutable,
    /// `let x = mut e in`: read as `x`, written with `x := e`.
    Mutable,
    /// `let r = ref e in`: read as `!r`, written with `r := e`; its type is `T ref`.
    RefCell,
}

/// A local variable: a `let` binding, a parameter, a loop counter or a shared/local array.
#[derive(Clone, Debug, PartialEq)]
pub struct LocalInfo {
    pub name: crate::syntax::name::Name,
    pub ty: Type,
    pub mutability: Mutability,
    /// Where it is declared (the binder's span).
    pub span: Span,
    /// For parameters: the index in the kernel's or function's parameter list.
    pub param_index: Option<usize>,
}

/// What a name (`Var`, `Call` callee, `Assign` target, `Global`) refers to. Eight bytes (a builtin by its place
/// in the table): one is kept for every named expression.
#[derive(Clone, Copy, Debug)]
pub enum Resolution {
    Local(LocalId),
    Constant(ConstantId),
    Function(FunctionId),
    Builtin(crate::builtins::BuiltinRef),
}

const _: () = assert!(std::mem::size_of::<Option<Resolution>>() == 8);

crate::syntax::expr_map::option_slots!(Resolution);

/// The id that marks an empty slot of an [`ExprMap`] of locals (no module has that many locals).
const NO_LOCAL: LocalId = LocalId(u32::MAX);

/// A declared local keeps itself in its [`ExprMap`] slot, [`NO_LOCAL`] meaning "none": four bytes per expression
/// of the module where `Option<LocalId>` takes eight. Writing `NO_LOCAL` through `ExprMap::get_mut` would empty
/// the slot; nothing does.
impl crate::syntax::expr_map::Slot for LocalId {
    type Stored = LocalId;
    const EMPTY: LocalId = NO_LOCAL;
    #[inline]
    fn read(stored: &LocalId) -> Option<&LocalId> {
        (*stored != NO_LOCAL).then_some(stored)
    }
    #[inline]
    fn read_mut(stored: &mut LocalId) -> Option<&mut LocalId> {
        (*stored != NO_LOCAL).then_some(stored)
    }
    #[inline]
    fn write(stored: &mut LocalId, value: LocalId) -> Option<LocalId> {
        assert!(value != NO_LOCAL, "local id {} is the empty slot's", value.0);
        let old = std::mem::replace(stored, value);
        (old != NO_LOCAL).then_some(old)
    }
    #[inline]
    fn take(stored: &mut LocalId) -> Option<LocalId> {
        let old = std::mem::replace(stored, NO_LOCAL);
        (old != NO_LOCAL).then_some(old)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ConstValue {
    Int(i64),
    Float(f64),
    Bool(bool),
    Array(Vec<ConstValue>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ConstantInfo {
    pub name: String,
    pub ty: Type,
    pub value: ConstValue,
    pub span: Span,
    /// Index in `Module::items`.
    pub item: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RecordInfo {
    pub name: String,
    pub fields: Vec<(String, Type)>,
    pub span: Span,
    /// For a vector type (`float4`...), which one: declared by the compiler, not by the program.
    pub vector: Option<crate::vectors::VectorKind>,
    /// A tuple type's record (fields `_0`, `_1`...), made by the type checker: shown as `float32 * int32`.
    pub tuple: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FunctionInfo {
    pub name: String,
    /// One local per parameter, in order.
    pub params: Vec<LocalId>,
    pub ret: Type,
    pub span: Span,
    /// Index in `Module::items`.
    pub item: usize,
    /// For an instance of a generic function used at several types (`sq__float32`): how a diagnostic inside it
    /// names the instance ("in the instance `sq__float32` of the generic function `sq` (x : float32)").
    pub instance: Option<String>,
    /// The vector parameters whose contents differ between threads in every call: the function (or one it
    /// calls) writes through them, or loads from them with an ordered atomic. The analysis of the function on its
    /// own starts them thread-varying, as a kernel's.
    pub varying_vector_params: Vec<LocalId>,
}

/// A kernel parameter as the runtime sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelParamInfo {
    pub name: String,
    pub ty: Type,
    pub local: LocalId,
    /// Does the kernel (or a function it calls) write through it? Vectors never written are emitted
    /// `const __restrict__` and their loads may be uniform (see the convergence rules).
    pub written: bool,
    /// Does the kernel (or a function it calls) load from it with an ordered atomic (`atomic_load_acquire_*`)?
    /// Then other threads or the host change it while the kernel runs: its contents are thread-varying for the
    /// convergence analysis, though the kernel itself never writes it.
    pub loaded_atomically: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct KernelInfo {
    pub name: String,
    pub params: Vec<KernelParamInfo>,
    pub span: Span,
    /// Index in `Module::items`.
    pub item: usize,
    /// Element type of the dynamic shared array, if the kernel declares one (bytes are given at launch).
    pub dynamic_shared: Option<Type>,
}

/// Size and alignment in bytes of a C type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CLayout {
    pub size: u64,
    pub align: u64,
}

/// Everything the type checker learned about a module.
#[derive(Clone, Debug, Default)]
pub struct TypeInfo {
    /// The type of each expression, indexed by `ExprId`.
    pub expr_types: Vec<Type>,
    /// What each name-bearing expression refers to (`Var`, `Call`, `Assign`, `Global`).
    pub resolutions: ExprMap<Resolution>,
    pub locals: Vec<LocalInfo>,
    /// The local declared by a `Let`, `LetArray` or `For` expression.
    pub declared_local: ExprMap<LocalId>,
    pub records: Vec<RecordInfo>,
    pub functions: Vec<FunctionInfo>,
    pub kernels: Vec<KernelInfo>,
    pub constants: Vec<ConstantInfo>,
    /// The kernel (index in `kernels`) that each `launch` call launches, by the call's `ExprId`.
    pub launches: ExprMap<usize>,
    /// For each immutable `let` of array, vector or `ref` type that names other variables (`let b = a in`,
    /// `let b = if c then a1 else a2 in`), those variables (see `storage::pointer_roots`): `b` refers to their
    /// storage, not to storage of its own.
    pub aliases: std::collections::BTreeMap<LocalId, Vec<LocalId>>,
    /// The value of each `if`'s condition that is a compile-time constant (literals, constants, module value
    /// parameters and `-D` values combined by operators), by the `if`'s `ExprId`. Only the taken branch of such
    /// an `if` reaches the CUDA C and the emitted functions (`codegen::reach`); the checker and the convergence
    /// analysis still see both.
    pub constant_conditions: ExprMap<bool>,
}

impl TypeInfo {
    pub fn type_of(&self, e: ExprId) -> &Type {
        self.expr_types.get(e.index()).unwrap_or(&Type::Error)
    }
    pub fn local(&self, id: LocalId) -> &LocalInfo {
        &self.locals[id.0 as usize]
    }
    pub fn function(&self, id: FunctionId) -> &FunctionInfo {
        &self.functions[id.0 as usize]
    }
    pub fn constant(&self, id: ConstantId) -> &ConstantInfo {
        &self.constants[id.0 as usize]
    }
    pub fn record(&self, id: RecordId) -> &RecordInfo {
        &self.records[id.0 as usize]
    }
    pub fn resolution(&self, e: ExprId) -> Option<Resolution> {
        self.resolutions.get(&e).copied()
    }
    /// The branch of the `if` `e` that always runs when its condition is a compile-time constant: `Some(Some(b))`
    /// for a branch, `Some(None)` for a missing `else` whose condition is false, `None` when both may run.
    pub fn taken_branch(&self, e: ExprId, then_branch: ExprId, else_branch: Option<ExprId>) -> Option<Option<ExprId>> {
        let condition = *self.constant_conditions.get(&e)?;
        Some(if condition { Some(then_branch) } else { else_branch })
    }
    /// The builtin `e` names, if it resolves to one.
    pub fn builtin(&self, e: ExprId) -> Option<&'static crate::builtins::Builtin> {
        match self.resolution(e) {
            Some(Resolution::Builtin(b)) => Some(b.get()),
            _ => None,
        }
    }
    /// The variables whose storage `local` refers to, when it is another name for them (`aliases`); empty for
    /// a variable with storage of its own.
    pub fn aliased(&self, local: LocalId) -> &[LocalId] {
        self.aliases.get(&local).map(Vec::as_slice).unwrap_or(&[])
    }
    /// The function defined by item `item`, if it is one.
    pub fn function_of_item(&self, item: usize) -> Option<FunctionId> {
        self.functions.iter().position(|f| f.item == item).map(|i| FunctionId(i as u32))
    }

    /// Size and alignment in bytes of a value of type `ty` as the emitted C stores it (a `struct` for a record,
    /// a pointer for a vector or array parameter), or `None` for a type that is never stored (`unit`, a `ref`
    /// cell's identity, an unresolved type).
    pub fn c_layout(&self, ty: &Type) -> Option<CLayout> {
        self.c_layout_at(ty, 0)
    }

    fn c_layout_at(&self, ty: &Type, depth: u32) -> Option<CLayout> {
        let scalar = |n: u64| Some(CLayout { size: n, align: n });
        match ty {
            Type::Bool => scalar(1),
            Type::Float16 | Type::BFloat16 => scalar(2),
            Type::Int32 | Type::UInt32 | Type::Float32 => scalar(4),
            Type::Int64 | Type::UInt64 | Type::Float64 => scalar(8),
            Type::Vector(_) | Type::Array { .. } | Type::ConstArray { .. } => scalar(8),
            // A record that contains itself is an error already; the depth bound keeps this finite anyway.
            Type::Record(id) if depth < 64 => {
                if let Some(kind) = self.records.get(id.0 as usize)?.vector {
                    let size = u64::from(kind.size());
                    return Some(CLayout { size, align: size });
                }
                let mut layout = CLayout { size: 0, align: 1 };
                for (_, field) in &self.records.get(id.0 as usize)?.fields {
                    let f = self.c_layout_at(field, depth + 1)?;
                    layout.size = layout.size.div_ceil(f.align) * f.align + f.size;
                    layout.align = layout.align.max(f.align);
                }
                layout.size = layout.size.div_ceil(layout.align) * layout.align;
                Some(layout)
            }
            _ => None,
        }
    }

    /// Source form of a type, as diagnostics print it (`float32 vector`, `int32 shared[256]`).
    pub fn display(&self, ty: &Type) -> String {
        match ty {
            Type::Int32 => "int32".into(),
            Type::Int64 => "int64".into(),
            Type::UInt32 => "uint32".into(),
            Type::UInt64 => "uint64".into(),
            Type::Float32 => "float32".into(),
            Type::Float64 => "float64".into(),
            Type::Float16 => "float16".into(),
            Type::BFloat16 => "bfloat16".into(),
            Type::Bool => "bool".into(),
            Type::Unit => "unit".into(),
            Type::Vector(e) => format!("{} vector", self.display(e)),
            Type::Array { space, .. } => {
                let space = match space {
                    MemorySpace::Shared => "shared",
                    MemorySpace::Local => "local",
                };
                let sizes: String = ty
                    .array_dimensions()
                    .iter()
                    .map(|size| match size {
                        ArraySize::Const(n) => format!("[{n}]"),
                        ArraySize::Dynamic => "[dynamic]".to_string(),
                    })
                    .collect();
                format!("{} {space}{sizes}", self.display(ty.innermost_element()))
            }
            Type::ConstArray { elem, size } => format!("{} constant[{}]", self.display(elem), size),
            Type::Ref(t) => format!("{} ref", self.display(t)),
            Type::Record(r) => match self.records.get(r.0 as usize) {
                Some(record) if record.tuple => {
                    let components: Vec<Type> = record.fields.iter().map(|(_, t)| t.clone()).collect();
                    self.display_tuple(&components)
                }
                Some(record) => record.name.clone(),
                None => "?".into(),
            },
            Type::Tuple(components) => self.display_tuple(components),
            Type::Var(_) => "_".into(),
            Type::Error => "{error}".into(),
        }
    }

    /// `float32 * int32`, a nested tuple in parentheses.
    fn display_tuple(&self, components: &[Type]) -> String {
        let shown: Vec<String> = components
            .iter()
            .map(|c| {
                let inner = self.display(c);
                let nested = matches!(c, Type::Tuple(_))
                    || matches!(c, Type::Record(r) if self.records.get(r.0 as usize).is_some_and(|r| r.tuple));
                if nested {
                    format!("({inner})")
                } else {
                    inner
                }
            })
            .collect();
        shown.join(" * ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_of_locals_keeps_them_in_four_bytes() {
        assert_eq!(std::mem::size_of::<<LocalId as crate::syntax::expr_map::Slot>::Stored>(), 4);
        let mut map: ExprMap<LocalId> = ExprMap::with_expr_count(4);
        assert_eq!(map.get(&ExprId(1)), None);
        assert_eq!(map.insert(ExprId(1), LocalId(0)), None);
        assert_eq!(map.insert(ExprId(1), LocalId(7)), Some(LocalId(0)));
        assert_eq!(map.get(&ExprId(1)), Some(&LocalId(7)));
        assert_eq!(map.get(&ExprId(2)), None);
        assert_eq!(map.insert(ExprId(9), LocalId(3)), None);
        assert_eq!(map.keys().copied().collect::<Vec<_>>(), vec![ExprId(1), ExprId(9)]);
        assert_eq!(map.remove(&ExprId(1)), Some(LocalId(7)));
        assert_eq!(map.get(&ExprId(1)), None);
    }

    #[test]
    #[should_panic(expected = "empty slot")]
    fn a_map_of_locals_refuses_the_id_that_marks_an_empty_slot() {
        let mut map: ExprMap<LocalId> = ExprMap::new();
        map.insert(ExprId(0), NO_LOCAL);
    }
}

//! The vector types (`float2`, `float4`, `int2`, `int4`, `float64x2`, `float16x2`, `bfloat16x2`): CUDA's built-in
//! `struct`s of two or four scalars, and the two 16-bit float pairs (the prelude's `skc_float16x2` and
//! `skc_bfloat16x2`, one 32-bit register each), aligned to their size so that one instruction (`ld.global.v4.f32`)
//! moves a whole value.
//!
//! To every pass but the emitter's names and layouts they are records: `typeck` declares them before the
//! program's own records (`RecordInfo::vector` says which is which), so components are fields (`v.x`), a vector
//! is as uniform as its least uniform component, and the interpreter stores one as its components' words. What
//! differs is said here: the C spelling (`double2` for `float64x2`, no `struct` emitted), the alignment, the
//! element-wise arithmetic of the 16-bit pairs (`packed_half`: `+. -. *.` and `fma`, one PTX `f16x2`/`bf16x2`
//! instruction; `/.`, the scalar division on each lane; negation, one xor of both sign bits; each lane bit for
//! bit the scalar operation's), and the vector loads and stores of the builtin table (`load_float4 a i` reads elements `4 i .. 4 i + 3` of a
//! `float32` array as one `float4`), which need their array's base aligned to the vector's size.

pub mod alignment;

use crate::types::Type;

/// One of the vector types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VectorKind {
    Float2,
    Float4,
    Int2,
    Int4,
    Float64x2,
    Float16x2,
    BFloat16x2,
}

/// The component names, in order.
pub const COMPONENTS: [&str; 4] = ["x", "y", "z", "w"];

impl VectorKind {
    /// Every vector type, in the order `typeck` declares them (their `RecordId`s are `0..ALL.len()`).
    pub const ALL: [VectorKind; 7] = [
        VectorKind::Float2,
        VectorKind::Float4,
        VectorKind::Int2,
        VectorKind::Int4,
        VectorKind::Float64x2,
        VectorKind::Float16x2,
        VectorKind::BFloat16x2,
    ];

    /// The `.sk` spelling.
    pub fn name(self) -> &'static str {
        match self {
            VectorKind::Float2 => "float2",
            VectorKind::Float4 => "float4",
            VectorKind::Int2 => "int2",
            VectorKind::Int4 => "int4",
            VectorKind::Float64x2 => "float64x2",
            VectorKind::Float16x2 => "float16x2",
            VectorKind::BFloat16x2 => "bfloat16x2",
        }
    }

    /// CUDA's spelling (a type of `vector_types.h`, which NVRTC always has), or for the 16-bit pairs the
    /// prelude's struct.
    pub fn c_name(self) -> &'static str {
        match self {
            VectorKind::Float64x2 => "double2",
            VectorKind::Float16x2 => "skc_float16x2",
            VectorKind::BFloat16x2 => "skc_bfloat16x2",
            other => other.name(),
        }
    }

    /// The type of each component.
    pub fn component(self) -> Type {
        match self {
            VectorKind::Float2 | VectorKind::Float4 => Type::Float32,
            VectorKind::Int2 | VectorKind::Int4 => Type::Int32,
            VectorKind::Float64x2 => Type::Float64,
            VectorKind::Float16x2 => Type::Float16,
            VectorKind::BFloat16x2 => Type::BFloat16,
        }
    }

    /// How many components.
    pub fn lanes(self) -> u32 {
        match self {
            VectorKind::Float4 | VectorKind::Int4 => 4,
            VectorKind::Float2
            | VectorKind::Int2
            | VectorKind::Float64x2
            | VectorKind::Float16x2
            | VectorKind::BFloat16x2 => 2,
        }
    }

    /// Size in bytes, which is also the alignment CUDA gives the type.
    pub fn size(self) -> u32 {
        let component = match self.component() {
            Type::Float64 => 8,
            Type::Float16 | Type::BFloat16 => 2,
            _ => 4,
        };
        component * self.lanes()
    }

    /// The fields of its record: `x`, `y` (and `z`, `w`), each of the component type.
    pub fn fields(self) -> Vec<(String, Type)> {
        COMPONENTS[..self.lanes() as usize].iter().map(|c| (c.to_string(), self.component())).collect()
    }

    /// Does it have element-wise arithmetic (`+. -. *. /.`, negation, `fma`)? Only the 16-bit pairs, which PTX
    /// computes in one instruction per operation but division; CUDA's own vector types have no operators.
    pub fn is_packed_half(self) -> bool {
        matches!(self, VectorKind::Float16x2 | VectorKind::BFloat16x2)
    }

    pub fn by_name(name: &str) -> Option<VectorKind> {
        VectorKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The vector type a builtin loads or stores (`load_float4`, `store_int2`), if it is a vector access.
    pub fn accessed_by(builtin: &crate::builtins::Builtin) -> Option<VectorKind> {
        let name = builtin.name.strip_prefix("load_").or_else(|| builtin.name.strip_prefix("store_"))?;
        VectorKind::by_name(name)
    }
}

/// The record type `typeck` declares for a vector type.
pub fn record_type(kind: VectorKind) -> Type {
    let index = VectorKind::ALL.iter().position(|k| *k == kind).unwrap_or(0);
    Type::Record(crate::types::RecordId(index as u32))
}

/// The vector type a type is, if it is one (records `0..VectorKind::ALL.len()` are the vector types).
pub fn kind_of(ty: &Type) -> Option<VectorKind> {
    match ty {
        Type::Record(id) => VectorKind::ALL.get(id.0 as usize).copied(),
        _ => None,
    }
}

/// The 16-bit pair a type is (`float16x2`, `bfloat16x2`), if it is one.
pub fn packed_half_of(ty: &Type) -> Option<VectorKind> {
    kind_of(ty).filter(|k| k.is_packed_half())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_cuda_alignments() {
        let sizes: Vec<u32> = VectorKind::ALL.iter().map(|k| k.size()).collect();
        assert_eq!(sizes, [8, 16, 8, 16, 16, 4, 4]);
        assert_eq!(VectorKind::BFloat16x2.c_name(), "skc_bfloat16x2");
        assert_eq!(VectorKind::Float64x2.c_name(), "double2");
        assert_eq!(VectorKind::by_name("int4"), Some(VectorKind::Int4));
        assert_eq!(VectorKind::Float4.fields().len(), 4);
    }
}

//! The scalar types that cross the host/device boundary: kernel scalar parameters, vector elements and dynamic
//! shared arrays. [`ScalarType`] names them (it is the compiler's `ScalarKind`); [`DeviceScalar`] ties each to its
//! Rust type, so a `DeviceBuffer<f32>` is known to be a `float32 vector`.

use std::fmt;

use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
use skc_core::half_float::HalfFormat;

/// A scalar type of the `.sk` language, as laid out in CUDA C: the compiler's own description, shared.
pub use skc_core::codegen::ScalarKind as ScalarType;

/// A Rust type with the size, alignment and meaning of a `.sk` scalar.
///
/// # Safety
/// `TYPE` must describe `Self` exactly: same size, same bit interpretation as the CUDA C type.
pub unsafe trait DeviceScalar: DeviceRepr + ValidAsZeroBits + Copy + Default + Send + Sync + 'static {
    const TYPE: ScalarType;
}

macro_rules! device_scalar {
    ($($rust:ty => $sk:ident),* $(,)?) => {
        $(
            // SAFETY: the sizes and representations match CUDA C's int, long long, unsigned, float, double, bool.
            unsafe impl DeviceScalar for $rust {
                const TYPE: ScalarType = ScalarType::$sk;
            }
        )*
    };
}

device_scalar!(i32 => Int32, i64 => Int64, u32 => UInt32, u64 => UInt64, f32 => Float32, f64 => Float64, bool => Bool);
device_scalar!(Float16 => Float16, BFloat16 => BFloat16);

/// A `float16` on the host: its IEEE binary16 bits (`skc_core::half_float` converts and computes with them).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Float16(pub u16);

/// A `bfloat16` on the host: its bits (a float32's upper half).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BFloat16(pub u16);

// SAFETY: each is one u16 (repr(transparent)), which the driver copies as 2 bytes, and every bit pattern is a value.
unsafe impl DeviceRepr for Float16 {}
unsafe impl ValidAsZeroBits for Float16 {}
unsafe impl DeviceRepr for BFloat16 {}
unsafe impl ValidAsZeroBits for BFloat16 {}

/// A `float16x2` on the host: the pair as the kernel's `skc_float16x2` lays it out (`x` at byte 0, `y` at byte 2,
/// aligned to 4 bytes), so a `DeviceBuffer<Float16x2>` is a `float16x2 vector`.
#[repr(C, align(4))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Float16x2 {
    pub x: Float16,
    pub y: Float16,
}

/// A `bfloat16x2` on the host, laid out as the kernel's `skc_bfloat16x2`.
#[repr(C, align(4))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BFloat16x2 {
    pub x: BFloat16,
    pub y: BFloat16,
}

crate::sk_record!(Float16x2 = "skc_float16x2");
crate::sk_record!(BFloat16x2 = "skc_bfloat16x2");
// SAFETY: two u16 and no padding (size 4, align 4): every bit pattern is a value, zero included.
unsafe impl ValidAsZeroBits for Float16x2 {}
unsafe impl ValidAsZeroBits for BFloat16x2 {}

impl Float16 {
    /// `x` rounded once, to nearest even (as `float16 x` in a kernel).
    pub fn from_f32(x: f32) -> Float16 {
        Float16(HalfFormat::Float16.from_f64(f64::from(x)))
    }
    /// The value, exactly.
    pub fn to_f32(self) -> f32 {
        HalfFormat::Float16.to_f32(self.0)
    }
    /// `self * b + c` rounded once, as `fma` computes it in a kernel (`fma.rn.f16`).
    pub fn mul_add(self, b: Float16, c: Float16) -> Float16 {
        Float16(HalfFormat::Float16.fma(self.0, b.0, c.0))
    }
}

impl BFloat16 {
    /// `x` rounded once, to nearest even (as `bfloat16 x` in a kernel).
    pub fn from_f32(x: f32) -> BFloat16 {
        BFloat16(HalfFormat::BFloat16.from_f64(f64::from(x)))
    }
    /// The value, exactly.
    pub fn to_f32(self) -> f32 {
        HalfFormat::BFloat16.to_f32(self.0)
    }
    /// `self * b + c` rounded once, as `fma` computes it in a kernel (`fma.rn.bf16`).
    pub fn mul_add(self, b: BFloat16, c: BFloat16) -> BFloat16 {
        BFloat16(HalfFormat::BFloat16.fma(self.0, b.0, c.0))
    }
}

/// `+ - * /` and negation on the host's 16-bit floats, rounded once as a kernel's `+. -. *. /.` and `-.`
/// (`skc_core::half_float`).
macro_rules! half_arithmetic {
    ($($ty:ident => $format:ident),*) => {
        $(
            impl std::ops::Add for $ty {
                type Output = $ty;
                fn add(self, b: $ty) -> $ty {
                    $ty(HalfFormat::$format.add(self.0, b.0))
                }
            }
            impl std::ops::Sub for $ty {
                type Output = $ty;
                fn sub(self, b: $ty) -> $ty {
                    $ty(HalfFormat::$format.sub(self.0, b.0))
                }
            }
            impl std::ops::Mul for $ty {
                type Output = $ty;
                fn mul(self, b: $ty) -> $ty {
                    $ty(HalfFormat::$format.mul(self.0, b.0))
                }
            }
            impl std::ops::Div for $ty {
                type Output = $ty;
                fn div(self, b: $ty) -> $ty {
                    $ty(HalfFormat::$format.div(self.0, b.0))
                }
            }
            impl std::ops::Neg for $ty {
                type Output = $ty;
                /// The sign bit flipped, a NaN's included.
                fn neg(self) -> $ty {
                    $ty(HalfFormat::$format.neg(self.0))
                }
            }
        )*
    };
}

half_arithmetic!(Float16 => Float16, BFloat16 => BFloat16);

impl Float16x2 {
    pub fn new(x: Float16, y: Float16) -> Float16x2 {
        Float16x2 { x, y }
    }
}

impl BFloat16x2 {
    pub fn new(x: BFloat16, y: BFloat16) -> BFloat16x2 {
        BFloat16x2 { x, y }
    }
}

/// One scalar kernel argument, by value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScalarValue {
    Int32(i32),
    Int64(i64),
    UInt32(u32),
    UInt64(u64),
    Float32(f32),
    Float64(f64),
    Float16(Float16),
    BFloat16(BFloat16),
    Bool(bool),
}

impl ScalarValue {
    pub fn scalar_type(self) -> ScalarType {
        match self {
            ScalarValue::Int32(_) => ScalarType::Int32,
            ScalarValue::Int64(_) => ScalarType::Int64,
            ScalarValue::UInt32(_) => ScalarType::UInt32,
            ScalarValue::UInt64(_) => ScalarType::UInt64,
            ScalarValue::Float32(_) => ScalarType::Float32,
            ScalarValue::Float64(_) => ScalarType::Float64,
            ScalarValue::Float16(_) => ScalarType::Float16,
            ScalarValue::BFloat16(_) => ScalarType::BFloat16,
            ScalarValue::Bool(_) => ScalarType::Bool,
        }
    }

    /// The value as an element count, if it is an integer (negative counts are `None`).
    pub fn as_count(self) -> Option<u64> {
        match self {
            ScalarValue::Int32(v) => u64::try_from(v).ok(),
            ScalarValue::Int64(v) => u64::try_from(v).ok(),
            ScalarValue::UInt32(v) => Some(v as u64),
            ScalarValue::UInt64(v) => Some(v),
            _ => None,
        }
    }

    /// The little-endian bytes the driver copies into the kernel's parameter space (its size is the type's).
    pub(crate) fn to_slot(self) -> u64 {
        match self {
            ScalarValue::Int32(v) => v as u32 as u64,
            ScalarValue::Int64(v) => v as u64,
            ScalarValue::UInt32(v) => v as u64,
            ScalarValue::UInt64(v) => v,
            ScalarValue::Float32(v) => v.to_bits() as u64,
            ScalarValue::Float64(v) => v.to_bits(),
            ScalarValue::Float16(v) => u64::from(v.0),
            ScalarValue::BFloat16(v) => u64::from(v.0),
            ScalarValue::Bool(v) => v as u64,
        }
    }
}

impl fmt::Display for ScalarValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalarValue::Int32(v) => write!(f, "{v}"),
            ScalarValue::Int64(v) => write!(f, "{v}L"),
            ScalarValue::UInt32(v) => write!(f, "{v}u"),
            ScalarValue::UInt64(v) => write!(f, "{v}UL"),
            ScalarValue::Float32(v) => write!(f, "{v:?}"),
            ScalarValue::Float64(v) => write!(f, "{v:?}d"),
            ScalarValue::Float16(v) => write!(f, "{:?}h", v.to_f32()),
            ScalarValue::BFloat16(v) => write!(f, "bfloat16 {:?}", v.to_f32()),
            ScalarValue::Bool(v) => write!(f, "{v}"),
        }
    }
}

macro_rules! scalar_from {
    ($($rust:ty => $variant:ident),* $(,)?) => {
        $(
            impl From<$rust> for ScalarValue {
                fn from(v: $rust) -> Self {
                    ScalarValue::$variant(v)
                }
            }
        )*
    };
}

scalar_from!(i32 => Int32, i64 => Int64, u32 => UInt32, u64 => UInt64, f32 => Float32, f64 => Float64, bool => Bool);
scalar_from!(Float16 => Float16, BFloat16 => BFloat16);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_hold_the_little_endian_bits() {
        assert_eq!(ScalarValue::Int32(-1).to_slot(), 0xFFFF_FFFF);
        assert_eq!(ScalarValue::Float32(1.0).to_slot(), 0x3F80_0000);
        assert_eq!(ScalarValue::Bool(true).to_slot(), 1);
        assert_eq!(ScalarValue::Int64(-2).to_slot(), u64::MAX - 1);
    }

    #[test]
    fn counts_reject_negative_and_float_values() {
        assert_eq!(ScalarValue::Int32(5).as_count(), Some(5));
        assert_eq!(ScalarValue::Int32(-5).as_count(), None);
        assert_eq!(ScalarValue::Float32(5.0).as_count(), None);
    }

    #[test]
    fn rust_types_name_their_sk_types() {
        assert_eq!(<f32 as DeviceScalar>::TYPE, ScalarType::Float32);
        assert_eq!(<u64 as DeviceScalar>::TYPE.sk_name(), "uint64");
        // Every scalar's Rust carrier has the size the compiler lays the C type out with.
        fn size_of<T: DeviceScalar>() -> (u32, usize, &'static str) {
            (T::TYPE.size(), std::mem::size_of::<T>(), T::TYPE.rust_name())
        }
        let all = [size_of::<i32>(), size_of::<i64>(), size_of::<u32>(), size_of::<u64>()];
        let all = all.into_iter().chain([size_of::<f32>(), size_of::<f64>(), size_of::<bool>()]);
        let all = all.chain([size_of::<Float16>(), size_of::<BFloat16>()]);
        for (sk, rust, name) in all {
            assert_eq!(sk as usize, rust, "{name}");
        }
    }

    #[test]
    fn host_16_bit_division_rounds_once_and_negation_flips_the_sign_bit() {
        // 1 / 3 to nearest even in both formats; x / 0 and 0 / 0 as IEEE defines them.
        let third = Float16(0x3C00) / Float16(0x4200);
        assert_eq!(third.0, 0x3555);
        assert_eq!((BFloat16(0x3F80) / BFloat16(0x4040)).0, 0x3EAB);
        assert_eq!((Float16(0xBC00) / Float16(0x0000)).0, 0xFC00);
        assert!((Float16(0x0000) / Float16(0x8000)).to_f32().is_nan());
        // Negation is the sign bit only: a NaN keeps its payload, zeros change sign.
        assert_eq!((-Float16(0x7E01)).0, 0xFE01);
        assert_eq!((-BFloat16(0x0000)).0, 0x8000);
        assert_eq!((-BFloat16(0xFFC1)).0, 0x7FC1);
    }
}

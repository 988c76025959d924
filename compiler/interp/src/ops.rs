//! The arithmetic of `.sk` on words: integers wrap at their width (signed overflow, undefined in the language, is
//! reported and wraps); `/` and `mod` truncate (C's rule) and fail on a zero divisor; shifts by the type's width or more give 0 (`lsl`, `lsr`) or the sign (`asr`), as PTX's
//! clamped shifts do; float32 is computed in float32 and float64 in float64 (IEEE, round to nearest, no fused
//! multiply-add unless `fma` is written); conversions from float to integer truncate and saturate (NaN gives 0),
//! as CUDA's `cvt.rzi` does. Math functions are Rust's (`f32::sin` ...), which are within a few ulp of CUDA's
//! (docs/interp.md gives the tolerances).

use crate::code::{CmpOp, FloatOp, HalfOp, IntOp, MathOp, UnaryOp};
use crate::value::Scalar;
use skc_core::half_float::HalfFormat;

/// Why an integer operation has no defined result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntFault {
    /// A division or remainder by zero.
    DivisionByZero,
    /// Signed overflow (`+ - *`, `/` of the minimum by -1, `lsl` of a negative value or past the sign bit),
    /// undefined in the language; the wrapped result.
    Overflow(u64),
}

macro_rules! int_op {
    ($name:ident, $t:ty, $u:ty, $bits:expr, $signed:expr) => {
        #[inline(always)]
        pub fn $name(op: IntOp, a: u64, b: u64) -> Result<u64, IntFault> {
            let (x, y) = (a as $t, b as $t);
            let word = |r: $t| r as $u as u64;
            let checked = |(r, overflow): ($t, bool)| {
                if $signed && overflow {
                    Err(IntFault::Overflow(word(r)))
                } else {
                    Ok(word(r))
                }
            };
            match op {
                IntOp::Add => checked(x.overflowing_add(y)),
                IntOp::Sub => checked(x.overflowing_sub(y)),
                IntOp::Mul => checked(x.overflowing_mul(y)),
                IntOp::Div if y == 0 => Err(IntFault::DivisionByZero),
                IntOp::Div => checked(x.overflowing_div(y)),
                IntOp::Rem if y == 0 => Err(IntFault::DivisionByZero),
                IntOp::Rem => checked(x.overflowing_rem(y)),
                IntOp::And => Ok(word(x & y)),
                IntOp::Or => Ok(word(x | y)),
                IntOp::Xor => Ok(word(x ^ y)),
                IntOp::Shl if b >= $bits => checked((0, x != 0)),
                IntOp::Shl => {
                    let r = ((x as $u) << b) as $t;
                    // C: undefined for a negative value, or when the result does not hold x * 2^b.
                    #[allow(unused_comparisons)]
                    let overflow = x < 0 || (r >> b) != x || r < 0;
                    checked((r, overflow))
                }
                IntOp::Lsr if b >= $bits => Ok(0),
                IntOp::Lsr => Ok(word(((x as $u) >> b) as $t)),
                // The bits shift as signed whatever the type's signedness.
                IntOp::Asr => Ok(shift_right_arithmetic($bits, a, b)),
                IntOp::Min => Ok(word(x.min(y))),
                IntOp::Max => Ok(word(x.max(y))),
                IntOp::Pow => {
                    let (r, overflow) = skc_core::integer_power::integer_power(x as i128, y as i128, $bits, $signed);
                    checked((r as $t, overflow))
                }
            }
        }
    };
}

int_op!(int32, i32, u32, 32, true);
int_op!(uint32, u32, u32, 32, false);
int_op!(int64, i64, u64, 64, true);
int_op!(uint64, u64, u64, 64, false);

/// `asr`: the bits read as signed, shifted (by at most the width minus one).
#[inline(always)]
pub fn shift_right_arithmetic(bits: u32, a: u64, b: u64) -> u64 {
    let s = b.min(bits as u64 - 1);
    if bits == 32 {
        ((a as u32 as i32) >> s) as u32 as u64
    } else {
        ((a as i64) >> s) as u64
    }
}

macro_rules! float_op {
    ($name:ident, $t:ty, $from:expr, $to:expr) => {
        #[inline(always)]
        pub fn $name(op: FloatOp, a: u64, b: u64) -> u64 {
            let (x, y): ($t, $t) = ($from(a), $from(b));
            let r: $t = match op {
                FloatOp::Add => x + y,
                FloatOp::Sub => x - y,
                FloatOp::Mul => x * y,
                FloatOp::Div => x / y,
                FloatOp::Rem => x % y,
                FloatOp::Pow => x.powf(y),
                FloatOp::Min => x.min(y),
                FloatOp::Max => x.max(y),
                FloatOp::Atan2 => x.atan2(y),
                FloatOp::Hypot => x.hypot(y),
                FloatOp::Copysign => x.copysign(y),
            };
            $to(r)
        }
    };
}

float_op!(float32, f32, |w: u64| f32::from_bits(w as u32), |r: f32| r.to_bits() as u64);
float_op!(float64, f64, f64::from_bits, |r: f64| r.to_bits());

macro_rules! math_op {
    ($name:ident, $t:ty, $from:expr, $to:expr, $erf:expr) => {
        pub fn $name(op: MathOp, a: u64) -> u64 {
            let x: $t = $from(a);
            let r: $t = match op {
                MathOp::Sqrt => x.sqrt(),
                MathOp::Rsqrt => 1.0 / x.sqrt(),
                MathOp::Rcp => 1.0 / x,
                MathOp::Cbrt => x.cbrt(),
                MathOp::Exp => x.exp(),
                MathOp::Exp2 => x.exp2(),
                MathOp::Expm1 => x.exp_m1(),
                MathOp::Log => x.ln(),
                MathOp::Log2 => x.log2(),
                MathOp::Log10 => x.log10(),
                MathOp::Log1p => x.ln_1p(),
                MathOp::Sin => x.sin(),
                MathOp::Cos => x.cos(),
                MathOp::Tan => x.tan(),
                MathOp::Asin => x.asin(),
                MathOp::Acos => x.acos(),
                MathOp::Atan => x.atan(),
                MathOp::Sinh => x.sinh(),
                MathOp::Cosh => x.cosh(),
                MathOp::Tanh => x.tanh(),
                MathOp::Erf => $erf(x),
                MathOp::Floor => x.floor(),
                MathOp::Ceil => x.ceil(),
                MathOp::Round => x.round(),
                MathOp::Trunc => x.trunc(),
                MathOp::Abs => x.abs(),
                MathOp::Neg => -x,
            };
            $to(r)
        }
    };
}

math_op!(math32, f32, |w: u64| f32::from_bits(w as u32), |r: f32| r.to_bits() as u64, |x: f32| erf(x as f64) as f32);
math_op!(math64, f64, f64::from_bits, |r: f64| r.to_bits(), erf);

/// The error function, to about 1e-15 relative: its Taylor series below 2.5, the continued fraction of erfc
/// above (Rust's standard library has no stable `erf`).
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    let r = if a < 2.5 {
        // erf x = 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1))
        let (mut term, mut sum, x2) = (a, a, a * a);
        for n in 1..200 {
            term *= -x2 / n as f64;
            let add = term / (2 * n + 1) as f64;
            sum += add;
            if add.abs() < 1e-17 * sum.abs() {
                break;
            }
        }
        sum * std::f64::consts::FRAC_2_SQRT_PI
    } else if a < 27.0 {
        // erfc x = exp(-x^2)/sqrt(pi) * 1/(x + 1/2/(x + 1/(x + 3/2/(x + ...)))), by Lentz's method.
        let tiny = 1e-300;
        let mut f = a;
        let (mut c, mut d) = (a, 0.0);
        for n in 1..300 {
            let an = n as f64 / 2.0;
            d = a + an * d;
            d = if d.abs() < tiny { 1.0 / tiny } else { 1.0 / d };
            c = a + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            let delta = c * d;
            f *= delta;
            if (delta - 1.0).abs() < 1e-16 {
                break;
            }
        }
        1.0 - (-a * a).exp() / (f * std::f64::consts::PI.sqrt())
    } else {
        1.0
    };
    if x < 0.0 {
        -r
    } else {
        r
    }
}

#[inline(always)]
pub fn unary(op: UnaryOp, a: u64) -> u64 {
    match op {
        UnaryOp::Lnot32 => !(a as u32) as u64,
        UnaryOp::Lnot64 => !a,
        UnaryOp::Not => (a == 0) as u64,
        UnaryOp::Abs32 => (a as u32 as i32).wrapping_abs() as u32 as u64,
        UnaryOp::Abs64 => (a as i64).wrapping_abs() as u64,
        UnaryOp::IsNan32 => f32::from_bits(a as u32).is_nan() as u64,
        UnaryOp::IsNan64 => f64::from_bits(a).is_nan() as u64,
        UnaryOp::IsFinite32 => f32::from_bits(a as u32).is_finite() as u64,
        UnaryOp::IsFinite64 => f64::from_bits(a).is_finite() as u64,
        UnaryOp::Popc32 => (a as u32).count_ones() as u64,
        UnaryOp::Popc64 => a.count_ones() as u64,
        UnaryOp::Clz32 => (a as u32).leading_zeros() as u64,
        UnaryOp::Clz64 => a.leading_zeros() as u64,
        UnaryOp::Ffs32 => lowest_set_bit(a as u32 as u64),
        UnaryOp::Ffs64 => lowest_set_bit(a),
        UnaryOp::Brev32 => (a as u32).reverse_bits() as u64,
        UnaryOp::Brev64 => a.reverse_bits(),
    }
}

/// CUDA's `__ffs`: the position of the lowest bit set, counted from 1; 0 when no bit is set.
fn lowest_set_bit(a: u64) -> u64 {
    if a == 0 {
        0
    } else {
        u64::from(a.trailing_zeros()) + 1
    }
}

/// CUDA's `__funnelshift_l` (`left`) and `__funnelshift_r` on 32-bit words: `hi:lo` as one 64-bit value shifted by
/// `shift land 31`, then its high (left) or low (right) 32 bits.
pub fn funnel_shift(left: bool, lo: u64, hi: u64, shift: u64) -> u64 {
    let joined = (u64::from(hi as u32) << 32) | u64::from(lo as u32);
    let s = (shift & 31) as u32;
    if left {
        (joined << s) >> 32
    } else {
        (joined >> s) & 0xFFFF_FFFF
    }
}

/// The new value of `atomic_min_float*` (`min`) or `atomic_max_float*` as the emitted compare-and-swap loop
/// computes it: `v` replaces the element only if `v < old` (`v > old` for max), so a NaN on either side leaves
/// the element as it is, and -0.0 and +0.0 compare equal.
pub fn atomic_float_min_max(min: bool, double: bool, old: u64, v: u64) -> u64 {
    let (o, x) = if double {
        (f64::from_bits(old), f64::from_bits(v))
    } else {
        (f64::from(f32::from_bits(old as u32)), f64::from(f32::from_bits(v as u32)))
    };
    let replace = if min { x < o } else { x > o };
    if replace {
        v
    } else {
        old
    }
}

#[inline(always)]
pub fn compare_i32(op: CmpOp, a: u64, b: u64) -> u64 {
    let (x, y) = (a as u32 as i32, b as u32 as i32);
    cmp(op, x, y)
}

#[inline(always)]
fn cmp<T: PartialOrd>(op: CmpOp, x: T, y: T) -> u64 {
    (match op {
        CmpOp::Eq => x == y,
        CmpOp::Ne => x != y,
        CmpOp::Lt => x < y,
        CmpOp::Le => x <= y,
        CmpOp::Gt => x > y,
        CmpOp::Ge => x >= y,
    }) as u64
}

/// A 16-bit float operation, as `skc_core::half_float` defines it.
pub fn half(format: HalfFormat, op: HalfOp, a: u64, b: u64) -> u64 {
    let (x, y) = (a as u16, b as u16);
    u64::from(match op {
        HalfOp::Add => format.add(x, y),
        HalfOp::Sub => format.sub(x, y),
        HalfOp::Mul => format.mul(x, y),
        HalfOp::Div => format.div(x, y),
        HalfOp::Min => format.min(x, y),
        HalfOp::Max => format.max(x, y),
        HalfOp::Neg => format.neg(x),
        HalfOp::Abs => format.abs(x),
    })
}

pub fn compare(ty: Scalar, op: CmpOp, a: u64, b: u64) -> u64 {
    if let Some(format) = ty.half_format() {
        return cmp(op, format.to_f64(a as u16), format.to_f64(b as u16));
    }
    match ty {
        Scalar::Int32 => compare_i32(op, a, b),
        Scalar::Int64 => cmp(op, a as i64, b as i64),
        Scalar::UInt32 => cmp(op, a as u32, b as u32),
        Scalar::UInt64 | Scalar::Bool => cmp(op, a, b),
        Scalar::Float32 => cmp(op, f32::from_bits(a as u32), f32::from_bits(b as u32)),
        Scalar::Float64 => cmp(op, f64::from_bits(a), f64::from_bits(b)),
        Scalar::Float16 | Scalar::BFloat16 => unreachable!("compared above"),
    }
}

/// Conversion between scalar types (C's casts; float to integer as CUDA's saturating `cvt.rzi`).
pub fn convert(from: Scalar, to: Scalar, a: u64) -> u64 {
    if let Some(format) = from.half_format() {
        // Exact in float32, as the emitted code converts (a NaN becomes float32's canonical NaN); to a 16-bit type,
        // rounded once.
        let value = format.to_f32(a as u16);
        return match to {
            Scalar::Float32 => u64::from(value.to_bits()),
            _ => to.from_f64(f64::from(value)),
        };
    }
    match from {
        Scalar::Float32 => to.from_f64(f32::from_bits(a as u32) as f64),
        Scalar::Float64 => match to {
            // float64 -> float32 rounds once (through f64 would be the same value).
            Scalar::Float32 => (f64::from_bits(a) as f32).to_bits() as u64,
            _ => to.from_f64(f64::from_bits(a)),
        },
        Scalar::UInt64 => match to {
            Scalar::Float32 => (a as f32).to_bits() as u64,
            Scalar::Float64 => (a as f64).to_bits(),
            _ => to.from_i128(a as i128),
        },
        Scalar::Int64 => match to {
            Scalar::Float32 => (a as i64 as f32).to_bits() as u64,
            Scalar::Float64 => (a as i64 as f64).to_bits(),
            _ => to.from_i128(a as i64 as i128),
        },
        _ => match to {
            // int32/uint32/bool to float32 directly (one rounding).
            Scalar::Float32 => (from.to_i128(a) as f32).to_bits() as u64,
            _ => to.from_i128(from.to_i128(a)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_wrap_and_shift_like_ptx() {
        let w = |v: i32| v as u32 as u64;
        assert_eq!(int32(IntOp::Add, w(i32::MAX), w(1)), Err(IntFault::Overflow(w(i32::MIN))));
        assert_eq!(uint32(IntOp::Add, 0xFFFF_FFFF, 1), Ok(0), "unsigned arithmetic wraps");
        assert_eq!(int32(IntOp::Div, w(-7), w(2)).ok(), Some(w(-3)));
        assert_eq!(int32(IntOp::Rem, w(-7), w(2)).ok(), Some(w(-1)));
        assert_eq!(int32(IntOp::Div, w(1), w(0)), Err(IntFault::DivisionByZero));
        assert_eq!(int32(IntOp::Div, w(i32::MIN), w(-1)), Err(IntFault::Overflow(w(i32::MIN))));
        assert_eq!(int32(IntOp::Shl, w(1), 32), Err(IntFault::Overflow(0)));
        assert_eq!(int32(IntOp::Shl, w(1), 30).ok(), Some(1 << 30));
        assert_eq!(int32(IntOp::Shl, w(1), 31), Err(IntFault::Overflow(w(i32::MIN))));
        assert_eq!(int32(IntOp::Shl, w(-1), 1), Err(IntFault::Overflow(w(-2))));
        assert_eq!(uint32(IntOp::Shl, 1, 32).ok(), Some(0));
        assert_eq!(int32(IntOp::Asr, w(-8), 40).ok(), Some(w(-1)));
        assert_eq!(int32(IntOp::Lsr, w(-1), 28).ok(), Some(15));
        assert_eq!(uint32(IntOp::Asr, 0x8000_0000, 31).ok(), Some(0xFFFF_FFFF));
        assert_eq!(int64(IntOp::Asr, (-8i64) as u64, 1).ok(), Some((-4i64) as u64));
    }

    #[test]
    fn conversions_truncate_and_saturate() {
        let f = |v: f32| v.to_bits() as u64;
        assert_eq!(convert(Scalar::Float32, Scalar::Int32, f(-2.7)), (-2i32) as u32 as u64);
        assert_eq!(convert(Scalar::Float32, Scalar::Int32, f(1e20)), i32::MAX as u64);
        assert_eq!(convert(Scalar::Float32, Scalar::Int32, f(f32::NAN)), 0);
        assert_eq!(convert(Scalar::Int32, Scalar::Int64, (-1i32) as u32 as u64), u64::MAX);
        assert_eq!(convert(Scalar::Int32, Scalar::Float32, 16_777_217), f(16_777_216.0));
        assert_eq!(convert(Scalar::Int64, Scalar::Int32, 0x1_0000_0005), 5);
    }

    #[test]
    fn erf_is_accurate() {
        for (x, expected) in [
            (0.0, 0.0),
            (0.5, 0.520_499_877_813_046_5),
            (1.0, 0.842_700_792_949_714_9),
            (2.0, 0.995_322_265_018_952_7),
            (3.0, 0.999_977_909_503_001_4),
            (-1.5, -0.966_105_146_475_310_7),
        ] {
            assert!((erf(x) - expected).abs() < 1e-15, "erf({x}) = {} not {expected}", erf(x));
        }
    }
}

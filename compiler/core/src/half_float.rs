//! `float16` (IEEE 754 binary16) and `bfloat16` (the upper half of a float32) as skc defines them: every
//! conversion into them rounds once, to nearest with ties to even; arithmetic rounds its exact result once to the
//! type. The constant evaluator and skc-interp compute through this module; the CUDA prelude (`codegen::prelude`)
//! computes the same values with PTX, and this module's comments say why each path agrees with it.
//!
//! Special values: subnormals are kept (no flush to zero), infinities are the IEEE ones, and every NaN that an
//! operation produces is the canonical NaN `0x7FFF` (what the PTX instructions produce); negation and `abs` change
//! the sign bit only, so they keep a NaN's payload, as loads, stores and `select` do.
//!
//! Division has no PTX instruction: the GPU divides in float32 (`div.rn.f32`) and rounds the quotient to the half
//! type. Rounding twice, first to p = 24 bits and then to q <= 11 bits, equals rounding once whenever p >= 2q + 2
//! (Figueroa, "When is double rounding innocuous?", 1995) for +, -, *, / and sqrt, so that quotient is the
//! correctly rounded one, which is what `div` computes here (tested on random operands against the float32 path).

/// Which 16-bit float.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HalfFormat {
    /// IEEE binary16: 5 exponent bits, 10 fraction bits; largest finite 65504.
    Float16,
    /// bfloat16: float32's 8 exponent bits, 7 fraction bits; float32's range.
    BFloat16,
}

/// The NaN every operation that makes a NaN returns, in both formats.
pub const CANONICAL_NAN: u16 = 0x7FFF;

impl HalfFormat {
    fn fraction_bits(self) -> i32 {
        match self {
            HalfFormat::Float16 => 10,
            HalfFormat::BFloat16 => 7,
        }
    }

    fn exponent_bits(self) -> i32 {
        match self {
            HalfFormat::Float16 => 5,
            HalfFormat::BFloat16 => 8,
        }
    }

    fn bias(self) -> i32 {
        (1 << (self.exponent_bits() - 1)) - 1
    }

    fn exponent_mask(self) -> u16 {
        (((1u32 << self.exponent_bits()) - 1) << self.fraction_bits()) as u16
    }

    /// Positive infinity's bits.
    pub fn infinity(self) -> u16 {
        self.exponent_mask()
    }

    pub fn is_nan(self, bits: u16) -> bool {
        bits & self.exponent_mask() == self.exponent_mask() && bits & ((1 << self.fraction_bits()) - 1) != 0
    }

    /// The value, exactly (every float16 and bfloat16 is a float32 and a float64). A NaN is `f64::NAN`.
    pub fn to_f64(self, bits: u16) -> f64 {
        let f = self.fraction_bits();
        let negative = bits & 0x8000 != 0;
        let exponent = i32::from((bits & self.exponent_mask()) >> f);
        let fraction = f64::from(bits & ((1 << f) - 1));
        let magnitude = if exponent == (1 << self.exponent_bits()) - 1 {
            if fraction == 0.0 {
                f64::INFINITY
            } else {
                f64::NAN
            }
        } else if exponent == 0 {
            fraction * 2f64.powi(1 - self.bias() - f)
        } else {
            (fraction + f64::from(1 << f)) * 2f64.powi(exponent - self.bias() - f)
        };
        if negative && !magnitude.is_nan() {
            -magnitude
        } else {
            magnitude
        }
    }

    /// The value as a float32 (exact); a NaN becomes float32's canonical NaN `0x7FFFFFFF`, as `cvt.f32.f16` gives.
    pub fn to_f32(self, bits: u16) -> f32 {
        if self.is_nan(bits) {
            f32::from_bits(0x7FFF_FFFF)
        } else {
            self.to_f64(bits) as f32
        }
    }

    /// `x` rounded once to this format, to nearest, ties to even; NaN to the canonical NaN.
    pub fn from_f64(self, x: f64) -> u16 {
        if x.is_nan() {
            return CANONICAL_NAN;
        }
        let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
        if x.is_infinite() {
            return sign | self.infinity();
        }
        let bits = x.abs().to_bits();
        let (mantissa, exponent) = match (bits >> 52) as i32 {
            0 => (bits, -1074),
            e => (bits & ((1 << 52) - 1) | (1 << 52), e - 1075),
        };
        sign | self.round_magnitude(mantissa, exponent)
    }

    /// An integer rounded once to this format (the integer types' conversion).
    pub fn from_integer(self, x: i128) -> u16 {
        self.from_f64(to_odd_f64(x))
    }

    /// The bits of `mantissa * 2^exponent` rounded to nearest even; overflow gives infinity.
    fn round_magnitude(self, mantissa: u64, exponent: i32) -> u16 {
        if mantissa == 0 {
            return 0;
        }
        let f = self.fraction_bits();
        let top = exponent + 63 - mantissa.leading_zeros() as i32;
        let min_exponent = 1 - self.bias();
        let quantum = (top - f).max(min_exponent - f);
        let shift = quantum - exponent;
        let mut n = if shift <= 0 {
            mantissa << -shift
        } else if shift >= 64 {
            0
        } else {
            let kept = mantissa >> shift;
            let rest = mantissa & ((1u64 << shift) - 1);
            let half = 1u64 << (shift - 1);
            if rest > half || (rest == half && kept & 1 == 1) {
                kept + 1
            } else {
                kept
            }
        };
        let mut quantum = quantum;
        if n >= 1 << (f + 1) {
            n >>= 1;
            quantum += 1;
        }
        if n < 1 << f {
            return n as u16;
        }
        let biased = quantum + f + self.bias();
        if biased >= (1 << self.exponent_bits()) - 1 {
            return self.infinity();
        }
        ((biased as u16) << f) | (n as u16 & ((1 << f) - 1))
    }

    /// `a + b`, `a - b`, `a * b`: the exact result (exact in float64: at most 40 significant bits for float16's
    /// sums, 16 for products, and bfloat16's sums are correctly rounded by float64 by the double-rounding bound
    /// above) rounded once.
    pub fn add(self, a: u16, b: u16) -> u16 {
        self.from_f64(self.to_f64(a) + self.to_f64(b))
    }

    pub fn sub(self, a: u16, b: u16) -> u16 {
        self.from_f64(self.to_f64(a) - self.to_f64(b))
    }

    pub fn mul(self, a: u16, b: u16) -> u16 {
        self.from_f64(self.to_f64(a) * self.to_f64(b))
    }

    /// `a / b` as the GPU computes it: the float32 quotient rounded to the type (equal to the correctly rounded
    /// quotient, see the module comment).
    pub fn div(self, a: u16, b: u16) -> u16 {
        self.from_f64(f64::from(self.to_f32(a) / self.to_f32(b)))
    }

    /// `a * b + c` rounded once (`fma.rn.f16`, `fma.rn.bf16`): the product is exact in float64, the sum is
    /// rounded to odd in float64 (exact sum plus the sign of its error), and rounding to odd at 53 bits and then
    /// to nearest at 11 or 8 bits is rounding once (53 >= 11 + 2).
    pub fn fma(self, a: u16, b: u16, c: u16) -> u16 {
        let product = self.to_f64(a) * self.to_f64(b);
        let addend = self.to_f64(c);
        let sum = product + addend;
        if !sum.is_finite() {
            return self.from_f64(sum);
        }
        let error = two_sum_error(product, addend, sum);
        self.from_f64(round_to_odd(sum, error))
    }

    /// The smaller operand: a NaN operand is ignored (two NaNs give the canonical NaN) and -0 is below +0.
    pub fn min(self, a: u16, b: u16) -> u16 {
        self.min_or_max(a, b, true)
    }

    /// The larger operand, as `min` orders them.
    pub fn max(self, a: u16, b: u16) -> u16 {
        self.min_or_max(a, b, false)
    }

    fn min_or_max(self, a: u16, b: u16, min: bool) -> u16 {
        let (x, y) = (self.to_f64(a), self.to_f64(b));
        match (x.is_nan(), y.is_nan()) {
            (true, true) => CANONICAL_NAN,
            (true, false) => b,
            (false, true) => a,
            _ if x != y => {
                if (x < y) == min {
                    a
                } else {
                    b
                }
            }
            // Equal values: the same bits, or two zeros, where min takes the negative one and max the positive.
            _ if min => a | b,
            _ => a & b,
        }
    }

    /// `a < b` and the other comparisons, on the values (a NaN is unordered; -0 equals +0).
    pub fn compare(self, a: u16, b: u16) -> Option<std::cmp::Ordering> {
        self.to_f64(a).partial_cmp(&self.to_f64(b))
    }

    pub fn neg(self, a: u16) -> u16 {
        a ^ 0x8000
    }

    pub fn abs(self, a: u16) -> u16 {
        a & 0x7FFF
    }
}

/// The exact error of `sum = fl(a + b)` (Knuth's TwoSum): `a + b == sum + error` exactly.
fn two_sum_error(a: f64, b: f64, sum: f64) -> f64 {
    let b_virtual = sum - a;
    let a_virtual = sum - b_virtual;
    (a - a_virtual) + (b - b_virtual)
}

/// The float64 nearest `sum + error` toward zero, with its last bit set when that is inexact (rounding to odd).
fn round_to_odd(sum: f64, error: f64) -> f64 {
    if error == 0.0 {
        return sum;
    }
    let toward_zero = if (error < 0.0) == (sum > 0.0) { f64::from_bits(sum.to_bits() - 1) } else { sum };
    f64::from_bits(toward_zero.to_bits() | 1)
}

/// An integer of up to 64 bits rounded to odd in float64 (exact below 2^53), so that a second rounding to fewer
/// than 52 bits is the integer's correct rounding.
fn to_odd_f64(x: i128) -> f64 {
    let nearest = x as f64;
    let back = nearest as i128;
    if back == x {
        return nearest;
    }
    let toward_zero = if back.abs() > x.abs() { f64::from_bits(nearest.to_bits() - 1) } else { nearest };
    f64::from_bits(toward_zero.to_bits() | 1)
}

#[cfg(test)]
mod tests;

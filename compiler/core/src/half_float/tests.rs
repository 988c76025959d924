//! Exhaustive checks of the conversions over all 65,536 bit patterns of each format, against references that do
//! not share the code under test: bfloat16 against float32's bits (its values are float32's upper halves, and
//! float32's rounding to it is the well-known integer formula), float16 against the IEEE layout and the midpoints
//! between neighbours (a value rounds to the nearer neighbour, a tie to the even one).

use super::*;

const FORMATS: [HalfFormat; 2] = [HalfFormat::Float16, HalfFormat::BFloat16];

fn finite(format: HalfFormat, bits: u16) -> bool {
    bits & format.exponent_mask() != format.exponent_mask()
}

#[test]
fn bfloat16_values_are_float32_upper_halves() {
    for bits in 0..=u16::MAX {
        let f = HalfFormat::BFloat16.to_f64(bits);
        let expected = f32::from_bits(u32::from(bits) << 16);
        if expected.is_nan() {
            assert!(f.is_nan(), "{bits:#06x}");
            assert_eq!(HalfFormat::BFloat16.to_f32(bits).to_bits(), 0x7FFF_FFFF);
        } else {
            assert_eq!(f, f64::from(expected), "{bits:#06x}");
        }
    }
}

/// The classic float32 to bfloat16 rounding: add 0x7FFF plus the kept part's lowest bit, keep the upper half.
fn reference_bfloat16(x: f32) -> u16 {
    if x.is_nan() {
        return CANONICAL_NAN;
    }
    let bits = x.to_bits();
    ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) as u16
}

#[test]
fn bfloat16_rounding_matches_the_integer_formula() {
    // Every float32 whose lower 16 bits are the interesting ones (0, 1, just below, at and above half, all ones),
    // for every upper half: every rounding case of every bfloat16 neighbourhood.
    for upper in 0..=u16::MAX {
        for lower in [0u32, 1, 0x7FFF, 0x8000, 0x8001, 0xFFFF] {
            let x = f32::from_bits((u32::from(upper) << 16) | lower);
            assert_eq!(HalfFormat::BFloat16.from_f64(f64::from(x)), reference_bfloat16(x), "{x:e}");
        }
    }
}

#[test]
fn float16_values_follow_the_ieee_layout() {
    let format = HalfFormat::Float16;
    assert_eq!(format.to_f64(0x3C00), 1.0);
    assert_eq!(format.to_f64(0x7BFF), 65504.0);
    assert_eq!(format.to_f64(0x0001), 2f64.powi(-24));
    assert_eq!(format.to_f64(0x0400), 2f64.powi(-14));
    assert_eq!(format.to_f64(0xC000), -2.0);
    assert_eq!(format.to_f64(0x7C00), f64::INFINITY);
    assert_eq!(format.to_f64(0x8000).to_bits(), (-0.0f64).to_bits());
    for bits in 0..=u16::MAX {
        let exponent = i32::from((bits >> 10) & 0x1F);
        let fraction = f64::from(bits & 0x3FF);
        let magnitude = match exponent {
            0 => fraction / 1024.0 * 2f64.powi(-14),
            31 => continue,
            e => (1.0 + fraction / 1024.0) * 2f64.powi(e - 15),
        };
        let expected = if bits & 0x8000 != 0 { -magnitude } else { magnitude };
        assert_eq!(format.to_f64(bits), expected, "{bits:#06x}");
    }
}

#[test]
fn every_value_round_trips_and_nans_become_canonical() {
    for format in FORMATS {
        for bits in 0..=u16::MAX {
            if format.is_nan(bits) {
                assert_eq!(format.from_f64(format.to_f64(bits)), CANONICAL_NAN);
            } else {
                assert_eq!(format.from_f64(format.to_f64(bits)), bits, "{format:?} {bits:#06x}");
            }
        }
    }
}

/// Between two neighbours `a < b`: below the midpoint rounds to `a`, above it to `b`, the midpoint to the even one.
#[test]
fn values_between_neighbours_round_to_the_nearer_ties_to_even() {
    for format in FORMATS {
        for low in 0..format.infinity() - 1 {
            let high = low + 1;
            let (a, b) = (format.to_f64(low), format.to_f64(high));
            let middle = (a + b) / 2.0;
            let even = if low & 1 == 0 { low } else { high };
            for sign in [0u16, 0x8000] {
                let s = if sign == 0 { 1.0 } else { -1.0 };
                assert_eq!(format.from_f64(s * middle), sign | even, "{format:?} {low:#06x}");
                assert_eq!(format.from_f64(s * next_toward_zero(middle)), sign | low, "{format:?} {low:#06x}");
                assert_eq!(format.from_f64(s * next_away_from_zero(middle)), sign | high, "{format:?} {low:#06x}");
            }
        }
        // Past the largest finite value by half a step or more is an infinity (its neighbour 2^(emax+1) is even).
        let largest = format.infinity() - 1;
        let step = format.to_f64(largest) - format.to_f64(largest - 1);
        let overflow = format.to_f64(largest) + step / 2.0;
        assert_eq!(format.from_f64(overflow), format.infinity());
        assert_eq!(format.from_f64(next_toward_zero(overflow)), largest);
        assert_eq!(format.from_f64(-overflow), 0x8000 | format.infinity());
        assert_eq!(format.from_f64(f64::MIN_POSITIVE), 0);
        assert_eq!(format.from_f64(-f64::MIN_POSITIVE), 0x8000);
    }
}

fn next_toward_zero(x: f64) -> f64 {
    f64::from_bits(x.to_bits() - 1)
}

fn next_away_from_zero(x: f64) -> f64 {
    f64::from_bits(x.to_bits() + 1)
}

#[test]
fn float32_values_convert_exactly() {
    for format in FORMATS {
        for bits in 0..=u16::MAX {
            if !format.is_nan(bits) {
                assert_eq!(f64::from(format.to_f32(bits)), format.to_f64(bits));
            }
        }
    }
}

/// Integers round once: `2^60 + 2^52 + 1` is just above a bfloat16 midpoint; through float64 (which rounds it to
/// the midpoint) and then to bfloat16 it would round down to even.
#[test]
fn integers_round_once() {
    let format = HalfFormat::BFloat16;
    let x: i128 = (1 << 60) + (1 << 52) + 1;
    assert_eq!(format.to_f64(format.from_integer(x)), 2f64.powi(60) + 2f64.powi(53));
    assert_eq!(format.to_f64(format.from_integer(-x)), -(2f64.powi(60) + 2f64.powi(53)));
    assert_eq!(format.to_f64(format.from_integer((1 << 60) + (1 << 52))), 2f64.powi(60));
    let float16 = HalfFormat::Float16;
    assert_eq!(float16.from_integer(65519), 0x7BFF);
    assert_eq!(float16.from_integer(65520), 0x7C00);
    assert_eq!(float16.from_integer(i128::from(i64::MIN)), 0xFC00);
    assert_eq!(float16.from_integer(2049), 0x6800); // 2048 and 2050 are neighbours; the tie goes to 2048.
    assert_eq!(float16.from_integer(2051), 0x6802);
}

/// A small deterministic generator (no dependency): xorshift64*.
struct Bits(u64);

impl Bits {
    fn next(&mut self) -> u16 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 48) as u16
    }
}

/// The double-rounding bound the module relies on, checked: rounding the float32 result of `+ - * /` of two
/// 16-bit floats to the type gives the correctly rounded result that `add`, `sub`, `mul` (exact in float64) give.
#[test]
fn float32_arithmetic_rounded_again_is_correctly_rounded() {
    let mut bits = Bits(0x9E37_79B9_7F4A_7C15);
    for format in FORMATS {
        for _ in 0..300_000 {
            let (a, b) = (bits.next(), bits.next());
            let (x, y) = (format.to_f32(a), format.to_f32(b));
            let via_f32 = |v: f32| format.from_f64(f64::from(v));
            assert_eq!(format.add(a, b), via_f32(x + y), "{format:?} {a:#06x} + {b:#06x}");
            assert_eq!(format.sub(a, b), via_f32(x - y), "{format:?} {a:#06x} - {b:#06x}");
            assert_eq!(format.mul(a, b), via_f32(x * y), "{format:?} {a:#06x} * {b:#06x}");
            let exact_quotient = format.from_f64(format.to_f64(a) / format.to_f64(b));
            assert_eq!(format.div(a, b), exact_quotient, "{format:?} {a:#06x} / {b:#06x}");
        }
    }
}

/// `fma` rounds once: against exact rational arithmetic on the float16 grid (every float16 is a multiple of
/// 2^-24, so `a * b + c` is an integer multiple of 2^-48 that fits an i128), rounded by `round_magnitude`'s
/// integer path.
#[test]
fn float16_fma_rounds_once() {
    let format = HalfFormat::Float16;
    let units = |bits: u16| (format.to_f64(bits) * 2f64.powi(24)) as i128;
    let mut bits = Bits(0x1234_5678_9ABC_DEF1);
    for _ in 0..300_000 {
        let (a, b, c) = (bits.next(), bits.next(), bits.next());
        if !finite(format, a) || !finite(format, b) || !finite(format, c) {
            continue;
        }
        let exact = units(a) * units(b) + (units(c) << 24);
        let magnitude = exact.unsigned_abs();
        let expected = if magnitude == 0 {
            format.fma(a, b, c) // the sign of an exact zero is IEEE's rule, not what this reference checks
        } else {
            let (mantissa, exponent) = reduce(magnitude, -48);
            let sign = if exact < 0 { 0x8000 } else { 0 };
            sign | format.round_magnitude(mantissa, exponent)
        };
        assert_eq!(format.fma(a, b, c), expected, "fma({a:#06x}, {b:#06x}, {c:#06x})");
    }
    assert_eq!(format.fma(0x3C00, 0x3C00, 0xBC00), 0x0000); // 1 * 1 - 1 = +0
}

/// `magnitude * 2^exponent` with the magnitude in 64 bits, keeping a sticky bit for what is shifted out.
fn reduce(magnitude: u128, exponent: i32) -> (u64, i32) {
    let excess = (128 - magnitude.leading_zeros()).saturating_sub(62) as i32;
    if excess == 0 {
        return (magnitude as u64, exponent);
    }
    let sticky = u128::from(magnitude & ((1u128 << excess) - 1) != 0);
    (((magnitude >> excess) | sticky) as u64, exponent + excess)
}

#[test]
fn min_max_order_zeros_and_skip_nans() {
    for format in FORMATS {
        assert_eq!(format.min(0x8000, 0x0000), 0x8000);
        assert_eq!(format.max(0x8000, 0x0000), 0x0000);
        assert_eq!(format.min(0x7FFF, 0x3C00), 0x3C00);
        assert_eq!(format.max(0x3C00, 0x7FC1), 0x3C00);
        assert_eq!(format.min(0x7FC1, 0xFFC1), CANONICAL_NAN);
        assert_eq!(format.neg(0x7FC1), 0xFFC1);
        assert_eq!(format.abs(0xFFC1), 0x7FC1);
    }
}

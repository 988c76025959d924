//! Integer exponentiation, `pow a b` (and Sarek's `spoc_powint`) on an integer type, as skc defines it. The
//! constant evaluator and the interpreter compute it here; the CUDA C prelude's `skc_ipow` computes the same.
//!
//! - `b >= 0`: the product of `b` copies of `a` (1 for `b = 0`, `0 ** 0` included), by squaring. On an unsigned
//!   type it wraps modulo 2^32 or 2^64; on a signed type an overflow is undefined, as for `*` (docs/language.md,
//!   "Integer overflow"): the CUDA C wraps, the interpreter reports it (R0012) and wraps.
//! - `b < 0` (signed types): `1 / a^|b|` truncated toward zero, which integer division gives: 1 for `a = 1`,
//!   1 or -1 for `a = -1` (`b` even or odd), 0 otherwise, `a = 0` included (where the quotient would divide by
//!   zero, skc defines 0).

/// `base ** exponent` in an integer type of `bits` bits (32 or 64), `signed` or not: the operands are the
/// mathematical values of the type's words. Returns the result (as that type's mathematical value) and whether
/// a signed result overflowed.
pub fn integer_power(base: i128, exponent: i128, bits: u32, signed: bool) -> (i128, bool) {
    if exponent < 0 {
        let value = match base {
            1 => 1,
            -1 if exponent % 2 == 0 => 1,
            -1 => -1,
            _ => 0,
        };
        return (value, false);
    }
    let mask = (1u128 << bits) - 1;
    let (mut result, mut square, mut e) = (1u128, (base as u128) & mask, exponent as u128);
    while e > 0 {
        if e & 1 == 1 {
            result = result.wrapping_mul(square) & mask;
        }
        square = square.wrapping_mul(square) & mask;
        e >>= 1;
    }
    let wrapped = if signed && result >> (bits - 1) == 1 { result as i128 - (1i128 << bits) } else { result as i128 };
    (wrapped, signed && overflows(base, exponent, bits))
}

/// Does `base ** exponent` (`exponent >= 0`) leave the range of a signed type of `bits` bits?
fn overflows(base: i128, exponent: i128, bits: u32) -> bool {
    if matches!(base, -1..=1) {
        return false;
    }
    let (min, max) = (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1);
    let mut value: i128 = 1;
    for _ in 0..exponent {
        // |base| >= 2: past 2^(bits) in at most `bits` steps, long before i128 could overflow.
        value *= base;
        if value < min || value > max {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::integer_power;

    #[test]
    fn non_negative_exponents_multiply() {
        assert_eq!(integer_power(3, 4, 32, true), (81, false));
        assert_eq!(integer_power(-2, 3, 32, true), (-8, false));
        assert_eq!(integer_power(0, 0, 32, true), (1, false));
        assert_eq!(integer_power(7, 0, 64, true), (1, false));
        assert_eq!(integer_power(-2, 31, 32, true), (-(1 << 31), false));
        assert_eq!(integer_power(2, 62, 64, true), (1 << 62, false));
    }

    #[test]
    fn signed_overflow_wraps_and_is_reported() {
        assert_eq!(integer_power(2, 31, 32, true), (-(1 << 31), true));
        assert_eq!(integer_power(3, 21, 32, true), (3i128.pow(21) as i32 as i128, true));
        assert!(integer_power(10, 100, 64, true).1);
    }

    #[test]
    fn unsigned_wraps_silently() {
        assert_eq!(integer_power(2, 32, 32, false), (0, false));
        assert_eq!(integer_power(3, 21, 32, false), (3u128.pow(21) as u32 as i128, false));
        assert_eq!(integer_power(u64::MAX as i128, 2, 64, false), (1, false));
    }

    #[test]
    fn negative_exponents_truncate_one_over_the_power() {
        assert_eq!(integer_power(1, -5, 32, true), (1, false));
        assert_eq!(integer_power(-1, -4, 32, true), (1, false));
        assert_eq!(integer_power(-1, -3, 32, true), (-1, false));
        assert_eq!(integer_power(2, -1, 32, true), (0, false));
        assert_eq!(integer_power(-7, -2, 64, true), (0, false));
        assert_eq!(integer_power(0, -1, 32, true), (0, false));
    }
}

//! Exact rationals over i128, always reduced with a positive denominator. Overflow panics (checked arithmetic):
//! the WENO tables for k <= 6 stay far below i128's range, and a panic is better than a wrong table.

use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, Div, Mul, Neg, Sub};

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Rational {
    num: i128,
    den: i128,
}

pub fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

pub fn lcm(a: i128, b: i128) -> i128 {
    if a == 0 || b == 0 {
        return 0;
    }
    (a / gcd(a, b)).checked_mul(b).expect("lcm overflow").abs()
}

impl Rational {
    pub const ZERO: Rational = Rational { num: 0, den: 1 };
    pub const ONE: Rational = Rational { num: 1, den: 1 };

    pub fn new(num: i128, den: i128) -> Rational {
        assert!(den != 0, "zero denominator");
        let g = gcd(num, den).max(1);
        let sign = if den < 0 { -1 } else { 1 };
        Rational { num: sign * num / g, den: sign * den / g }
    }

    pub fn int(n: i128) -> Rational {
        Rational { num: n, den: 1 }
    }

    pub fn num(self) -> i128 {
        self.num
    }

    pub fn den(self) -> i128 {
        self.den
    }

    pub fn is_zero(self) -> bool {
        self.num == 0
    }

    pub fn abs(self) -> Rational {
        Rational { num: self.num.abs(), den: self.den }
    }

    /// The nearest double (round to nearest, ties to even), computed exactly from the integers.
    pub fn to_f64(self) -> f64 {
        round_to_bits(self, 53)
    }

    /// The nearest float (round to nearest, ties to even), without double rounding through f64.
    pub fn to_f32(self) -> f32 {
        // Exact: a 24-bit significand times a power of two in float range is a float.
        round_to_bits(self, 24) as f32
    }
}

/// `q` rounded to a `bits`-bit significand (normal range only: the tables hold no tiny or huge values).
fn round_to_bits(q: Rational, bits: u32) -> f64 {
    if q.num == 0 {
        return 0.0;
    }
    let negative = q.num < 0;
    let (mut n, mut d) = (q.num.unsigned_abs(), q.den.unsigned_abs());
    // Scale so that 2^(bits-1) <= n/d < 2^bits; `shift` counts the powers of two moved into n.
    let mut shift: i32 = 0;
    while n < d << (bits - 1) {
        n = n.checked_mul(2).expect("rational too small to round");
        shift += 1;
    }
    while n >= d << bits {
        d = d.checked_mul(2).expect("rational too large to round");
        shift -= 1;
    }
    let (mut m, r) = (n / d, n % d);
    let twice = r * 2;
    if twice > d || (twice == d && m % 2 == 1) {
        m += 1; // may reach 2^bits: still exact below
    }
    let value = m as f64 * 2f64.powi(-shift);
    if negative {
        -value
    } else {
        value
    }
}

impl Add for Rational {
    type Output = Rational;
    fn add(self, o: Rational) -> Rational {
        let g = gcd(self.den, o.den);
        let den = (self.den / g).checked_mul(o.den).expect("overflow");
        let num = self
            .num
            .checked_mul(o.den / g)
            .and_then(|a| o.num.checked_mul(self.den / g).and_then(|b| a.checked_add(b)))
            .expect("overflow");
        Rational::new(num, den)
    }
}

impl Sub for Rational {
    type Output = Rational;
    fn sub(self, o: Rational) -> Rational {
        self + (-o)
    }
}

impl Neg for Rational {
    type Output = Rational;
    fn neg(self) -> Rational {
        Rational { num: -self.num, den: self.den }
    }
}

impl Mul for Rational {
    type Output = Rational;
    fn mul(self, o: Rational) -> Rational {
        let g1 = gcd(self.num, o.den).max(1);
        let g2 = gcd(o.num, self.den).max(1);
        let num = (self.num / g1).checked_mul(o.num / g2).expect("overflow");
        let den = (self.den / g2).checked_mul(o.den / g1).expect("overflow");
        Rational::new(num, den)
    }
}

impl Div for Rational {
    type Output = Rational;
    fn div(self, o: Rational) -> Rational {
        assert!(o.num != 0, "division by zero");
        self * Rational::new(o.den, o.num)
    }
}

impl PartialOrd for Rational {
    fn partial_cmp(&self, o: &Rational) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Rational {
    fn cmp(&self, o: &Rational) -> Ordering {
        (*self - *o).num.cmp(&0)
    }
}

impl fmt::Display for Rational {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_reduces() {
        let a = Rational::new(1, 3) + Rational::new(1, 6);
        assert_eq!(a, Rational::new(1, 2));
        assert_eq!(Rational::new(2, -4), Rational::new(-1, 2));
        assert_eq!(Rational::new(3, 4) / Rational::new(3, 8), Rational::int(2));
    }

    #[test]
    fn rounding_is_exact() {
        assert_eq!(Rational::new(1, 3).to_f64(), 1.0 / 3.0);
        assert_eq!(Rational::new(-7, 6).to_f64(), -7.0 / 6.0);
        assert_eq!(Rational::new(1, 3).to_f32(), 1.0f32 / 3.0);
        assert_eq!(Rational::new(10, 21).to_f32(), 10.0f32 / 21.0);
        assert_eq!(Rational::int(444003904).to_f32(), 444003904f32);
        // A tie at float precision rounds to even, without going through f64.
        let tie = Rational::new((1 << 24) + 1, 1);
        assert_eq!(tie.to_f32(), 16777216.0);
    }
}

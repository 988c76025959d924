//! Polynomials with exact rational coefficients (lowest degree first): just what the table generator needs.

use crate::rational::Rational;

#[derive(Clone, Debug, PartialEq)]
pub struct Poly(pub Vec<Rational>);

impl Poly {
    pub fn zero() -> Poly {
        Poly(vec![])
    }

    pub fn constant(c: Rational) -> Poly {
        Poly(vec![c])
    }

    /// `x - a`.
    pub fn linear_root(a: Rational) -> Poly {
        Poly(vec![-a, Rational::ONE])
    }

    pub fn add(&self, other: &Poly) -> Poly {
        let n = self.0.len().max(other.0.len());
        let at = |p: &Poly, i: usize| p.0.get(i).copied().unwrap_or(Rational::ZERO);
        Poly((0..n).map(|i| at(self, i) + at(other, i)).collect())
    }

    pub fn mul(&self, other: &Poly) -> Poly {
        if self.0.is_empty() || other.0.is_empty() {
            return Poly::zero();
        }
        let mut out = vec![Rational::ZERO; self.0.len() + other.0.len() - 1];
        for (i, a) in self.0.iter().enumerate() {
            for (j, b) in other.0.iter().enumerate() {
                out[i + j] = out[i + j] + *a * *b;
            }
        }
        Poly(out)
    }

    pub fn scale(&self, c: Rational) -> Poly {
        Poly(self.0.iter().map(|a| *a * c).collect())
    }

    pub fn derivative(&self) -> Poly {
        Poly(self.0.iter().enumerate().skip(1).map(|(i, a)| *a * Rational::int(i as i128)).collect())
    }

    pub fn eval(&self, x: Rational) -> Rational {
        self.0.iter().rev().fold(Rational::ZERO, |acc, a| acc * x + *a)
    }

    /// The integral over `[a, b]`.
    pub fn integrate(&self, a: Rational, b: Rational) -> Rational {
        let primitive = Poly(
            std::iter::once(Rational::ZERO)
                .chain(self.0.iter().enumerate().map(|(i, c)| *c / Rational::int(i as i128 + 1)))
                .collect(),
        );
        primitive.eval(b) - primitive.eval(a)
    }

    /// The Lagrange basis polynomial of node `m` over `nodes`.
    pub fn lagrange(nodes: &[Rational], m: usize) -> Poly {
        let mut p = Poly::constant(Rational::ONE);
        for (l, x) in nodes.iter().enumerate() {
            if l != m {
                p = p.mul(&Poly::linear_root(*x)).scale(Rational::ONE / (nodes[m] - *x));
            }
        }
        p
    }
}

//! The WENO tables for k stencils of k cells (order 2k-1), computed exactly, checked, and embedded zero-padded
//! into the k-wide layout for every reduced order 1..=k.
//!
//! Conventions (see shared notes `weno.md`): the reconstruction is at the right face of the upwind cell I;
//! stencil r covers cells I-r .. I-r+k-1 (ascending, r = 0 the most downwind); `c[r][j]` multiplies cell I-r+j.
//! Smoothness is a quadratic form in those k values, stored as its upper triangle, row by row, with the
//! off-diagonal entries doubled and everything multiplied by `scale` (the LCM of the denominators) so that
//! the entries are integers.

use crate::poly::Poly;
use crate::rational::{lcm, Rational};

pub const K_MIN: usize = 2;
pub const K_MAX: usize = 6;

/// Tables of one order (k stencils), exact.
#[derive(Clone, Debug)]
pub struct Scheme {
    pub k: usize,
    /// `c[r][j]`, k x k.
    pub c: Vec<Vec<Rational>>,
    /// Linear weights `d[r]`.
    pub d: Vec<Rational>,
    /// The exact quadratic forms `beta[r][i][j]` (full symmetric matrices, cell width 1).
    pub beta: Vec<Vec<Vec<Rational>>>,
    /// LCM of the denominators of the stored (upper triangle, doubled off-diagonal) entries.
    pub scale: i128,
    /// Stored entries times `scale`: `beta_int[r][t]`, t over the upper triangle row by row (k(k+1)/2).
    pub beta_int: Vec<Vec<i128>>,
    /// WENO-Z tau = |sum_r tau[r] beta_r|.
    pub tau: Vec<i128>,
}

fn r(n: i128) -> Rational {
    Rational::int(n)
}

fn binomial(n: i128, k: i128) -> i128 {
    if k < 0 || k > n {
        return 0;
    }
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

/// The basis `phi_j` of the reconstruction polynomial of stencil `r` (cells I-r+j, cell I = [-1/2, 1/2]):
/// `p_r(x) = sum_j v_j phi_j(x)`, from the Lagrange interpolant of the primitive at the k+1 interfaces.
fn basis(k: usize, r: usize) -> Vec<Poly> {
    let nodes: Vec<Rational> =
        (0..=k).map(|m| Rational::new(-1, 2) - Rational::int(r as i128) + Rational::int(m as i128)).collect();
    let lagrange: Vec<Poly> = (0..=k).map(|m| Poly::lagrange(&nodes, m)).collect();
    (0..k).map(|j| lagrange[j + 1..].iter().fold(Poly::zero(), |acc, l| acc.add(l)).derivative()).collect()
}

/// `c_rj` by the closed formula of Shu (1998), used to cross-check the polynomial construction.
pub fn closed_form_c(k: usize, r: usize, j: usize) -> Rational {
    let (k, r) = (k as i128, r as i128);
    let mut total = Rational::ZERO;
    for m in (j as i128 + 1)..=k {
        let mut numerator = 0i128;
        for l in 0..=k {
            if l == m {
                continue;
            }
            numerator += (0..=k).filter(|&q| q != m && q != l).map(|q| r - q + 1).product::<i128>();
        }
        let denominator: i128 = (0..=k).filter(|&l| l != m).map(|l| m - l).product();
        total = total + Rational::new(numerator, denominator);
    }
    total
}

/// WENO-Z tau coefficients by k (Borges et al. 2008, Don & Borges 2013, as in the notes).
pub fn tau_coefficients(k: usize) -> Vec<i128> {
    match k {
        1 => vec![0],
        2 => vec![1, -1],
        3 => vec![1, 0, -1],
        4 => vec![1, 3, -3, -1],
        5 => vec![1, 2, -6, 2, 1],
        6 => vec![1, 36, 135, -135, -36, -1],
        _ => panic!("no tau for k = {k}"),
    }
}

impl Scheme {
    // The smoothness matrices are indexed as the formulas index them (beta_ij, the upper triangle).
    #[allow(clippy::needless_range_loop)]
    pub fn new(k: usize) -> Scheme {
        assert!((1..=K_MAX).contains(&k));
        let half = Rational::new(1, 2);
        let bases: Vec<Vec<Poly>> = (0..k).map(|s| basis(k, s)).collect();
        let c: Vec<Vec<Rational>> = bases.iter().map(|b| b.iter().map(|phi| phi.eval(half)).collect()).collect();
        let d: Vec<Rational> = (0..k as i128)
            .map(|s| {
                Rational::new(
                    binomial(k as i128, s + 1) * binomial(k as i128 - 1, s),
                    binomial(2 * k as i128 - 1, k as i128),
                )
            })
            .collect();
        let beta: Vec<Vec<Vec<Rational>>> = bases
            .iter()
            .map(|b| {
                (0..k)
                    .map(|i| {
                        (0..k)
                            .map(|j| {
                                let mut total = Rational::ZERO;
                                let (mut pi, mut pj) = (b[i].clone(), b[j].clone());
                                for _ in 1..k {
                                    pi = pi.derivative();
                                    pj = pj.derivative();
                                    total = total + pi.mul(&pj).integrate(-half, half);
                                }
                                total
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let stored: Vec<Vec<Rational>> = beta
            .iter()
            .map(|m| {
                let mut row = Vec::new();
                for i in 0..k {
                    for j in i..k {
                        row.push(if i == j { m[i][j] } else { m[i][j] * r(2) });
                    }
                }
                row
            })
            .collect();
        let scale = stored.iter().flatten().fold(1i128, |acc, q| lcm(acc, q.den()));
        let beta_int = stored
            .iter()
            .map(|row| {
                row.iter()
                    .map(|q| {
                        let s = *q * r(scale);
                        assert_eq!(s.den(), 1);
                        s.num()
                    })
                    .collect()
            })
            .collect();
        let scheme = Scheme { k, c, d, beta, scale, beta_int, tau: tau_coefficients(k) };
        scheme.assert_consistent();
        scheme
    }

    /// The identities every table must satisfy; panics (at build time) otherwise.
    pub fn assert_consistent(&self) {
        let k = self.k;
        let sum_d = self.d.iter().fold(Rational::ZERO, |a, b| a + *b);
        assert_eq!(sum_d, Rational::ONE, "k={k}: sum of linear weights");
        for s in 0..k {
            let sum_c = self.c[s].iter().fold(Rational::ZERO, |a, b| a + *b);
            assert_eq!(sum_c, Rational::ONE, "k={k}, r={s}: sum of reconstruction coefficients");
            for j in 0..k {
                assert_eq!(self.c[s][j], closed_form_c(k, s, j), "k={k}, r={s}, j={j}: closed form");
            }
            let beta_of_constant = self.beta[s].iter().flatten().fold(Rational::ZERO, |a, b| a + *b);
            assert!(beta_of_constant.is_zero(), "k={k}, r={s}: beta of a constant");
            assert_eq!(self.beta_int[s].iter().sum::<i128>(), 0, "k={k}, r={s}: scaled beta of a constant");
        }
        assert_eq!(self.tau.iter().sum::<i128>(), 0, "k={k}: tau of a polynomial of degree < k");
        // sum_r d_r c_r, spread over the 2k-1 cells I-k+1 .. I+k-1, is the linear upwind stencil of order 2k-1:
        // stencil k-1 of the scheme with 2k-1 cells.
        let mut combined = vec![Rational::ZERO; 2 * k - 1];
        for s in 0..k {
            for j in 0..k {
                let cell = k - 1 - s + j; // position of cell I-s+j from I-k+1
                combined[cell] = combined[cell] + self.d[s] * self.c[s][j];
            }
        }
        for (cell, value) in combined.iter().enumerate() {
            assert_eq!(*value, closed_form_c(2 * k - 1, k - 1, cell), "k={k}: linear upwind stencil, cell {cell}");
        }
    }

    pub fn triangle_len(&self) -> usize {
        self.k * (self.k + 1) / 2
    }
}

/// Tables of the scheme with `k` stencils at every reduced order `o` = 1..=k, zero-padded into the k-wide
/// layout: stencils `r >= o` and cells `j >= o` get zero coefficients and zero weight. Each order keeps its own
/// beta scale, so a point of reduced order `o` computes exactly the standalone WENO-(2o-1) scheme.
#[derive(Clone, Debug)]
pub struct Embedded {
    pub k: usize,
    /// `[o-1][r][j]`.
    pub c: Vec<Vec<Vec<Rational>>>,
    /// `[o-1][r]`.
    pub d: Vec<Vec<Rational>>,
    /// `[o-1][r][t]`, t over the k-wide upper triangle.
    pub beta: Vec<Vec<Vec<i128>>>,
    /// `[o-1][r]`.
    pub tau: Vec<Vec<i128>>,
}

/// Index of (i, j), i <= j, in the row-by-row upper triangle of a k x k matrix.
pub fn triangle_index(k: usize, i: usize, j: usize) -> usize {
    debug_assert!(i <= j && j < k);
    i * k - i * (i + 1) / 2 + j
}

impl Embedded {
    pub fn new(k: usize) -> Embedded {
        let tri = k * (k + 1) / 2;
        let mut out = Embedded { k, c: vec![], d: vec![], beta: vec![], tau: vec![] };
        for o in 1..=k {
            let s = Scheme::new(o);
            let mut c = vec![vec![Rational::ZERO; k]; k];
            let mut d = vec![Rational::ZERO; k];
            let mut beta = vec![vec![0i128; tri]; k];
            let mut tau = vec![0i128; k];
            for st in 0..o {
                d[st] = s.d[st];
                tau[st] = s.tau[st];
                for j in 0..o {
                    c[st][j] = s.c[st][j];
                    for j2 in j..o {
                        beta[st][triangle_index(k, j, j2)] = s.beta_int[st][triangle_index(o, j, j2)];
                    }
                }
            }
            out.c.push(c);
            out.d.push(d);
            out.beta.push(beta);
            out.tau.push(tau);
        }
        out
    }
}

/// Per-point reduced order at face `f` (0-based, face f between cells f-1 and f) of a bounded direction of
/// `n` cells, for `k` stencils: the largest order whose stencils stay inside the domain, at least 1.
pub fn red_order_left(f: i64, n: i64, k: i64) -> i64 {
    k.min(f).min(n + 1 - f).max(1)
}

pub fn red_order_right(f: i64, n: i64, k: i64) -> i64 {
    k.min(f + 1).min(n - f).max(1)
}

/// Centred (no bias) reconstruction at face `f`.
pub fn red_order_face(f: i64, n: i64, k: i64) -> i64 {
    k.min(f).min(n - f).max(1)
}

/// Cell-centred quantities at cell `c` (0-based).
pub fn red_order_centre(c: i64, n: i64, k: i64) -> i64 {
    k.min(c + 1).min(n - c).max(1)
}

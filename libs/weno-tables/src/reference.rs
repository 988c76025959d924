//! A float64 CPU reference of the scheme the `.sk` kernels implement: WENO-Z (exponent 2, eps = 1e-8 on the
//! integer-scaled smoothness), per-point reduced order from the zero-padded tables, an optional immersed-boundary
//! mask, and flux-form advection tendencies in 1-D and 3-D. It follows the kernels' order of operations
//! closely, so GPU results agree to rounding.

use crate::tables::{red_order_left, red_order_right, triangle_index, Embedded};

pub const EPS: f64 = 1e-8;

/// The tables of the scheme with `k` stencils, in f64, for every order 1..=k.
#[derive(Clone, Debug)]
pub struct Weno {
    pub k: usize,
    c: Vec<f64>,
    d: Vec<f64>,
    beta: Vec<f64>,
    tau: Vec<f64>,
}

impl Weno {
    pub fn new(k: usize) -> Weno {
        let e = Embedded::new(k);
        Weno {
            k,
            c: e.c.iter().flatten().flatten().map(|q| q.to_f64()).collect(),
            d: e.d.iter().flatten().map(|q| q.to_f64()).collect(),
            beta: e.beta.iter().flatten().flatten().map(|n| *n as f64).collect(),
            tau: e.tau.iter().flatten().map(|n| *n as f64).collect(),
        }
    }

    /// The reconstructed value at the downwind face of the upwind cell, from `w` = the 2k-1 cells around it
    /// (upwind cell at index k-1, the face between w[k-1] and w[k]) at reduced order `order` (1..=k).
    // The loops index the stencil and the tables as the formulas do (c_rj s_j, beta_rij s_i s_j).
    #[allow(clippy::needless_range_loop)]
    pub fn reconstruct(&self, w: &[f64], order: usize) -> f64 {
        let k = self.k;
        assert_eq!(w.len(), 2 * k - 1);
        assert!((1..=k).contains(&order));
        let tri = k * (k + 1) / 2;
        let o = order - 1;
        let mut q = vec![0.0; k];
        let mut b = vec![0.0; k];
        for r in 0..k {
            let s = &w[k - 1 - r..2 * k - 1 - r];
            let mut acc = 0.0;
            for j in 0..k {
                acc += self.c[(o * k + r) * k + j] * s[j];
            }
            q[r] = acc;
            let mut beta = 0.0;
            for i in 0..k {
                let mut row = 0.0;
                for j in i..k {
                    row += self.beta[(o * k + r) * tri + triangle_index(k, i, j)] * s[j];
                }
                beta += s[i] * row;
            }
            b[r] = beta;
        }
        let tau = (0..k).map(|r| self.tau[o * k + r] * b[r]).sum::<f64>().abs();
        let mut num = 0.0;
        let mut den = 0.0;
        for r in 0..k {
            let ratio = tau / (b[r] + EPS);
            let alpha = self.d[o * k + r] * (1.0 + ratio * ratio);
            num += alpha * q[r];
            den += alpha;
        }
        num / den
    }

    /// The linear (optimal-weight) upwind value at full order, for comparison.
    pub fn linear(&self, w: &[f64]) -> f64 {
        let k = self.k;
        let o = k - 1;
        (0..k)
            .map(|r| self.d[o * k + r] * (0..k).map(|j| self.c[(o * k + r) * k + j] * w[k - 1 - r + j]).sum::<f64>())
            .sum()
    }
}

/// Boundary condition of one direction.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Boundary {
    Periodic,
    Bounded,
}

/// The order used at face `f` (0-based) for velocity `u` at that face: left-biased if u > 0, else right-biased.
pub fn face_order(f: i64, n: i64, k: i64, u: f64, boundary: Boundary) -> i64 {
    match boundary {
        Boundary::Periodic => k,
        Boundary::Bounded if u > 0.0 => red_order_left(f, n, k),
        Boundary::Bounded => red_order_right(f, n, k),
    }
}

/// Lowers `order` so that every cell of the order's stencils is active (`active(cell)` for the upwind-ordered
/// window: `active(m)` tells whether window cell m, 0..2k-1, is fluid). At least 1.
pub fn immersed_order(order: i64, k: usize, active: impl Fn(usize) -> bool) -> i64 {
    let mut o = 0;
    for s in 1..=order as usize {
        // order s uses window cells k-s .. k+s-2
        if active(k - s) && active(k + s - 2) {
            o = s as i64;
        } else {
            break;
        }
    }
    o.max(1)
}

/// The upwind-ordered window of 2k-1 values for face `f` between cells f-1 and f, from `cell(i)` (any integer
/// i; out-of-domain cells of a bounded direction may hold anything finite).
pub fn window(k: usize, f: i64, u: f64, cell: impl Fn(i64) -> f64) -> Vec<f64> {
    (0..2 * k - 1)
        .map(|m| {
            let m = m as i64;
            let kk = k as i64;
            if u > 0.0 {
                cell(f - kk + m) // upwind cell f-1 at m = k-1
            } else {
                cell(f + kk - 1 - m) // upwind cell f at m = k-1, mirrored
            }
        })
        .collect()
}

/// 1-D flux-form tendency `-(u c)_x` of `c` (n cells, spacing dx) with face velocities `u` (n+1 faces; for a
/// periodic direction u[n] must equal u[0]). Out-of-domain cells of a bounded direction read as 0.
pub fn tendency_1d(
    weno: &Weno,
    c: &[f64],
    u: &[f64],
    dx: f64,
    boundary: Boundary,
    active: Option<&[bool]>,
) -> Vec<f64> {
    let n = c.len() as i64;
    let k = weno.k;
    let cell = |i: i64| match boundary {
        Boundary::Periodic => c[i.rem_euclid(n) as usize],
        Boundary::Bounded => {
            if (0..n).contains(&i) {
                c[i as usize]
            } else {
                0.0
            }
        }
    };
    let is_active = |i: i64| match (boundary, active) {
        (_, None) => true,
        (Boundary::Periodic, Some(a)) => a[i.rem_euclid(n) as usize],
        (Boundary::Bounded, Some(a)) => (0..n).contains(&i) && a[i as usize],
    };
    let flux: Vec<f64> = (0..=n)
        .map(|f| {
            let uf = u[f as usize];
            let w = window(k, f, uf, cell);
            let mut order = face_order(f, n, k as i64, uf, boundary);
            if active.is_some() {
                let cells: Vec<i64> = (0..2 * k as i64 - 1)
                    .map(|m| if uf > 0.0 { f - k as i64 + m } else { f + k as i64 - 1 - m })
                    .collect();
                order = immersed_order(order, k, |m| is_active(cells[m]));
            }
            uf * weno.reconstruct(&w, order as usize)
        })
        .collect();
    (0..n as usize).map(|i| -(flux[i + 1] - flux[i]) / dx).collect()
}

/// A 3-D field with halos of `h` cells on each side (the layout of the GPU kernels: x fastest).
#[derive(Clone, Debug)]
pub struct Field3 {
    pub n: [usize; 3],
    pub h: usize,
    pub data: Vec<f64>,
}

impl Field3 {
    pub fn zeros(n: [usize; 3], h: usize) -> Field3 {
        Field3 { n, h, data: vec![0.0; (n[0] + 2 * h) * (n[1] + 2 * h) * (n[2] + 2 * h)] }
    }

    pub fn strides(&self) -> [usize; 3] {
        let sx = self.n[0] + 2 * self.h;
        let sy = self.n[1] + 2 * self.h;
        [1, sx, sx * sy]
    }

    /// Linear index of interior-relative (i, j, l); halo cells have negative or >= n indices.
    pub fn index(&self, i: i64, j: i64, l: i64) -> usize {
        let s = self.strides();
        let h = self.h as i64;
        ((i + h) as usize) * s[0] + ((j + h) as usize) * s[1] + ((l + h) as usize) * s[2]
    }

    pub fn at(&self, i: i64, j: i64, l: i64) -> f64 {
        self.data[self.index(i, j, l)]
    }
}

/// 3-D flux-form tracer tendency `-div(u c)` with every direction bounded; `u`, `v`, `w` live on the x, y and
/// z faces of the same halo layout (face f of a direction at cell index f, so face n is in the halo).
pub fn tendency_3d(weno: &Weno, c: &Field3, vel: [&Field3; 3], spacing: [f64; 3], active: Option<&Field3>) -> Field3 {
    let k = weno.k;
    let n = c.n;
    let mut out = Field3::zeros(n, c.h);
    let unit = [[1i64, 0, 0], [0, 1, 0], [0, 0, 1]];
    for l in 0..n[2] as i64 {
        for j in 0..n[1] as i64 {
            for i in 0..n[0] as i64 {
                let mut g = 0.0;
                for (dir, e) in unit.iter().enumerate() {
                    let p = [i, j, l];
                    let flux = |f_off: i64| {
                        // face between cells p - e + f_off*e and p + f_off*e
                        let f = p[dir] + f_off;
                        let base = [p[0] - e[0] * p[dir], p[1] - e[1] * p[dir], p[2] - e[2] * p[dir]];
                        let at = |m: i64| [base[0] + e[0] * m, base[1] + e[1] * m, base[2] + e[2] * m];
                        let uf = vel[dir].at(at(f)[0], at(f)[1], at(f)[2]);
                        let cells: Vec<i64> = (0..2 * k as i64 - 1)
                            .map(|m| if uf > 0.0 { f - k as i64 + m } else { f + k as i64 - 1 - m })
                            .collect();
                        let w: Vec<f64> = cells.iter().map(|&m| c.at(at(m)[0], at(m)[1], at(m)[2])).collect();
                        let mut order = face_order(f, n[dir] as i64, k as i64, uf, Boundary::Bounded);
                        if let Some(mask) = active {
                            order = immersed_order(order, k, |m| {
                                let q = at(cells[m]);
                                (0..n[dir] as i64).contains(&cells[m]) && mask.at(q[0], q[1], q[2]) != 0.0
                            });
                        }
                        uf * weno.reconstruct(&w, order as usize)
                    };
                    g -= (flux(1) - flux(0)) / spacing[dir];
                }
                let idx = out.index(i, j, l);
                out.data[idx] = g;
            }
        }
    }
    out
}

/// Classical RK4 step of `du/dt = rhs(u)`.
pub fn rk4_step(u: &mut [f64], dt: f64, rhs: &dyn Fn(&[f64]) -> Vec<f64>) {
    let add = |a: &[f64], b: &[f64], s: f64| a.iter().zip(b).map(|(x, y)| x + s * y).collect::<Vec<f64>>();
    let k1 = rhs(u);
    let k2 = rhs(&add(u, &k1, dt / 2.0));
    let k3 = rhs(&add(u, &k2, dt / 2.0));
    let k4 = rhs(&add(u, &k3, dt));
    for i in 0..u.len() {
        u[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
    }
}

/// Cell averages of `f` with primitive `prim` over n cells of [a, b].
pub fn cell_averages(n: usize, a: f64, b: f64, prim: impl Fn(f64) -> f64) -> Vec<f64> {
    let dx = (b - a) / n as f64;
    (0..n).map(|i| (prim(a + (i + 1) as f64 * dx) - prim(a + i as f64 * dx)) / dx).collect()
}

/// Observed orders between successive (n, error) pairs.
pub fn observed_orders(errors: &[(usize, f64)]) -> Vec<f64> {
    errors.windows(2).map(|w| (w[0].1 / w[1].1).ln() / (w[1].0 as f64 / w[0].0 as f64).ln()).collect()
}

//! Host-side problems: random fields on a grid with halos, and their tendencies from the float64 CPU
//! reference (skc_weno_tables::reference), laid out like the GPU buffers.

use skc_weno_tables::reference::{tendency_1d, tendency_3d, Boundary, Field3, Weno};

use crate::device::Layout;

/// A small deterministic generator (uniform in [0, 1)).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E3779B97F4A7C15) | 1)
    }

    /// The next number, uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A 3-D problem with every direction bounded.
pub struct Problem {
    pub layout: Layout,
    pub spacing: [f64; 3],
    pub c: Vec<f64>,
    pub vel: [Vec<f64>; 3],
    /// 1 fluid, 0 solid (halos fluid).
    pub act: Vec<i32>,
}

impl Problem {
    /// Random tracer (a smooth part plus noise, with jumps) and random face velocities of both signs, zero on
    /// the walls; `solid` is the fraction of solid cells; values rounded to float32 if `single`.
    pub fn random(n: [i32; 3], h: i32, seed: u64, solid: f64, single: bool) -> Problem {
        let layout = Layout { n, h, bounded: [1, 1, 1] };
        let round = |x: f64| if single { x as f32 as f64 } else { x };
        let mut rng = Rng::new(seed);
        let len = layout.len();
        let mut c = vec![0.0; len];
        let mut vel = [vec![0.0; len], vec![0.0; len], vec![0.0; len]];
        let mut act = vec![1; len];
        for l in 0..n[2] {
            for j in 0..n[1] {
                for i in 0..n[0] {
                    let idx = layout.index(i, j, l);
                    let smooth = (0.3 * i as f64).sin() * (0.2 * j as f64).cos() + 0.1 * l as f64;
                    let jump = if rng.uniform() < 0.1 { 2.0 } else { 0.0 };
                    c[idx] = round(1.0 + smooth + 0.2 * rng.uniform() + jump);
                    if rng.uniform() < solid {
                        act[idx] = 0;
                    }
                }
            }
        }
        // Face f of direction d at the index of cell f; faces 0 and n are walls.
        for (d, v) in vel.iter_mut().enumerate() {
            for l in 0..n[2] + (d == 2) as i32 {
                for j in 0..n[1] + (d == 1) as i32 {
                    for i in 0..n[0] + (d == 0) as i32 {
                        let f = [i, j, l][d];
                        let value = if f == 0 || f == n[d] { 0.0 } else { round(2.0 * rng.uniform() - 1.0) };
                        v[layout.index(i, j, l)] = value;
                    }
                }
            }
        }
        Problem { layout, spacing: [0.5, 0.25, 0.125], c, vel, act }
    }

    fn field(&self, data: &[f64]) -> Field3 {
        let n = self.layout.n.map(|x| x as usize);
        Field3 { n, h: self.layout.h as usize, data: data.to_vec() }
    }

    /// The reference tendency of the tracer (same layout; halos zero).
    pub fn reference(&self, k: usize, immersed: bool) -> Vec<f64> {
        let weno = Weno::new(k);
        let c = self.field(&self.c);
        let v: Vec<Field3> = self.vel.iter().map(|x| self.field(x)).collect();
        let mask = self.field(&self.act.iter().map(|&a| a as f64).collect::<Vec<_>>());
        tendency_3d(&weno, &c, [&v[0], &v[1], &v[2]], self.spacing, immersed.then_some(&mask)).data
    }

    /// Velocities averaged onto the faces of momentum component m (staggered along direction m).
    pub fn momentum_velocities(&self, m: usize) -> [Vec<f64>; 3] {
        let back = [1, self.layout.sy() as usize, self.layout.sz() as usize][m];
        self.vel
            .clone()
            .map(|v| (0..v.len()).map(|i| if i >= back { 0.5 * (v[i] + v[i - back]) } else { 0.0 }).collect())
    }

    /// The reference tendency of momentum component m, advecting `q` (a field of this layout).
    pub fn reference_momentum(&self, k: usize, m: usize, q: &[f64], immersed: bool) -> Vec<f64> {
        let weno = Weno::new(k);
        let v: Vec<Field3> = self.momentum_velocities(m).iter().map(|x| self.field(x)).collect();
        let mask = self.field(&self.act.iter().map(|&a| a as f64).collect::<Vec<_>>());
        tendency_3d(&weno, &self.field(q), [&v[0], &v[1], &v[2]], self.spacing, immersed.then_some(&mask)).data
    }

    /// Interior cells (i, j, l) with their buffer index.
    pub fn cells(&self) -> Vec<([i32; 3], usize)> {
        let n = self.layout.n;
        let mut out = Vec::new();
        for l in 0..n[2] {
            for j in 0..n[1] {
                for i in 0..n[0] {
                    out.push(([i, j, l], self.layout.index(i, j, l)));
                }
            }
        }
        out
    }
}

/// A 1-D problem: n cells with halos of h (periodic: copies; bounded: zeros).
pub struct Problem1d {
    pub n: usize,
    pub h: usize,
    pub boundary: Boundary,
    pub c: Vec<f64>,
    pub u: Vec<f64>,
    pub act: Vec<i32>,
    pub dx: f64,
}

impl Problem1d {
    pub fn random(n: usize, h: usize, boundary: Boundary, seed: u64, solid: f64, single: bool) -> Problem1d {
        let round = |x: f64| if single { x as f32 as f64 } else { x };
        let mut rng = Rng::new(seed);
        let interior: Vec<f64> =
            (0..n).map(|i| round((0.4 * i as f64).sin() + if rng.uniform() < 0.1 { 1.5 } else { 0.0 })).collect();
        let mut faces: Vec<f64> = (0..=n).map(|_| round(2.0 * rng.uniform() - 1.0)).collect();
        let mask: Vec<i32> = (0..n).map(|_| if rng.uniform() < solid { 0 } else { 1 }).collect();
        match boundary {
            Boundary::Periodic => faces[n] = faces[0],
            Boundary::Bounded => {
                faces[0] = 0.0;
                faces[n] = 0.0;
            }
        }
        let wrap = |i: i64| i.rem_euclid(n as i64) as usize;
        let mut c = vec![0.0; n + 2 * h];
        let mut u = vec![0.0; n + 2 * h];
        let mut act = vec![1; n + 2 * h];
        for p in 0..n + 2 * h {
            let i = p as i64 - h as i64;
            let inside = (0..n as i64).contains(&i);
            if inside || boundary == Boundary::Periodic {
                c[p] = interior[wrap(i)];
                act[p] = mask[wrap(i)];
                u[p] = faces[wrap(i)];
            }
            if (0..=n as i64).contains(&i) {
                u[p] = faces[i as usize];
            }
        }
        Problem1d { n, h, boundary, c, u, act, dx: 0.1 }
    }

    pub fn reference(&self, k: usize, immersed: bool) -> Vec<f64> {
        let (n, h) = (self.n, self.h);
        let active: Vec<bool> = self.act[h..h + n].iter().map(|&a| a != 0).collect();
        tendency_1d(
            &Weno::new(k),
            &self.c[h..h + n],
            &self.u[h..h + n + 1],
            self.dx,
            self.boundary,
            immersed.then_some(&active[..]),
        )
    }
}

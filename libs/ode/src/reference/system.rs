//! The right-hand side of an ODE system `y' = f(t, y, p)` for the CPU reference, and the systems the tests and
//! examples use: Lorenz, Van der Pol, Robertson, and a nonlinear system with a known solution.

/// An ODE system with `n_states` states and `n_params` parameters per run.
pub trait System {
    fn n_states(&self) -> usize;
    fn n_params(&self) -> usize;
    /// `dy = f(t, y, p)`.
    fn rhs(&self, t: f64, y: &[f64], p: &[f64], dy: &mut [f64]);
    /// The Jacobian `df/dy` row-major into `jac` (`n x n`); `false` if the system has none.
    fn jacobian(&self, _t: f64, _y: &[f64], _p: &[f64], _jac: &mut [f64]) -> bool {
        false
    }
}

/// Lorenz: `x' = 10 (y - x)`, `y' = x (rho - z) - y`, `z' = x y - 8/3 z`; the parameter is rho.
pub struct Lorenz;

impl System for Lorenz {
    fn n_states(&self) -> usize {
        3
    }
    fn n_params(&self) -> usize {
        1
    }
    fn rhs(&self, _t: f64, y: &[f64], p: &[f64], dy: &mut [f64]) {
        dy[0] = 10.0 * (y[1] - y[0]);
        dy[1] = y[0] * (p[0] - y[2]) - y[1];
        dy[2] = y[0] * y[1] - (8.0 / 3.0) * y[2];
    }
    fn jacobian(&self, _t: f64, y: &[f64], p: &[f64], j: &mut [f64]) -> bool {
        j.copy_from_slice(&[-10.0, 10.0, 0.0, p[0] - y[2], -1.0, -y[0], y[1], y[0], -8.0 / 3.0]);
        true
    }
}

/// Van der Pol: `x' = v`, `v' = mu (1 - x^2) v - x`; the parameter is mu.
pub struct VanDerPol;

impl System for VanDerPol {
    fn n_states(&self) -> usize {
        2
    }
    fn n_params(&self) -> usize {
        1
    }
    fn rhs(&self, _t: f64, y: &[f64], p: &[f64], dy: &mut [f64]) {
        dy[0] = y[1];
        dy[1] = p[0] * (1.0 - y[0] * y[0]) * y[1] - y[0];
    }
    fn jacobian(&self, _t: f64, y: &[f64], p: &[f64], j: &mut [f64]) -> bool {
        j.copy_from_slice(&[0.0, 1.0, -2.0 * p[0] * y[0] * y[1] - 1.0, p[0] * (1.0 - y[0] * y[0])]);
        true
    }
}

/// Robertson's chemical kinetics (stiff); the parameters are the rates (0.04, 3e7, 1e4).
pub struct Robertson;

impl System for Robertson {
    fn n_states(&self) -> usize {
        3
    }
    fn n_params(&self) -> usize {
        3
    }
    fn rhs(&self, _t: f64, y: &[f64], p: &[f64], dy: &mut [f64]) {
        let (k1, k2, k3) = (p[0], p[1], p[2]);
        dy[0] = -k1 * y[0] + k3 * y[1] * y[2];
        dy[1] = k1 * y[0] - k3 * y[1] * y[2] - k2 * y[1] * y[1];
        dy[2] = k2 * y[1] * y[1];
    }
    fn jacobian(&self, _t: f64, y: &[f64], p: &[f64], j: &mut [f64]) -> bool {
        let (k1, k2, k3) = (p[0], p[1], p[2]);
        j.copy_from_slice(&[
            -k1,
            k3 * y[2],
            k3 * y[1],
            k1,
            -k3 * y[2] - 2.0 * k2 * y[1],
            -k3 * y[1],
            0.0,
            2.0 * k2 * y[1],
            0.0,
        ]);
        true
    }
}

/// A nonlinear, non-autonomous system whose solution is known: `f(t, y) = s'(t) + g(y) - g(s(t))` with
/// `s(t) = (sin t, cos 2t, exp(-t/2))` and a transcendental coupling `g`, so `y(t) = s(t)` from `y(0) = s(0)`. Every
/// elementary differential of a general system is present, so it measures the order of every method.
pub struct Manufactured;

impl Manufactured {
    pub fn solution(t: f64) -> [f64; 3] {
        [t.sin(), (2.0 * t).cos(), (-0.5 * t).exp()]
    }
    fn derivative(t: f64) -> [f64; 3] {
        [t.cos(), -2.0 * (2.0 * t).sin(), -0.5 * (-0.5 * t).exp()]
    }
    fn coupling(y: &[f64]) -> [f64; 3] {
        [(y[1] * y[2]).sin() - y[0], y[0] * y[2].cos() + 0.5 * y[1] * y[1], -0.5 * (y[0] - y[1]).exp() - y[2] * y[2]]
    }
}

impl System for Manufactured {
    fn n_states(&self) -> usize {
        3
    }
    fn n_params(&self) -> usize {
        0
    }
    fn rhs(&self, t: f64, y: &[f64], _p: &[f64], dy: &mut [f64]) {
        let (ds, gy, gs) = (Self::derivative(t), Self::coupling(y), Self::coupling(&Self::solution(t)));
        for i in 0..3 {
            dy[i] = ds[i] + gy[i] - gs[i];
        }
    }
    fn jacobian(&self, _t: f64, y: &[f64], _p: &[f64], j: &mut [f64]) -> bool {
        let c = (y[1] * y[2]).cos();
        let e = 0.5 * (y[0] - y[1]).exp();
        j.copy_from_slice(&[-1.0, y[2] * c, y[1] * c, y[2].cos(), y[1], -y[0] * y[2].sin(), -e, e, -2.0 * y[2]]);
        true
    }
}

/// Lorenz-96 with `n` states: `x_i' = (x_{i+1} - x_{i-2}) x_{i-1} - x_i + F` (cyclic); the parameter is F.
pub struct Lorenz96(pub usize);

impl System for Lorenz96 {
    fn n_states(&self) -> usize {
        self.0
    }
    fn n_params(&self) -> usize {
        1
    }
    fn rhs(&self, _t: f64, y: &[f64], p: &[f64], dy: &mut [f64]) {
        let n = self.0;
        for i in 0..n {
            dy[i] = (y[(i + 1) % n] - y[(i + n - 2) % n]) * y[(i + n - 1) % n] - y[i] + p[0];
        }
    }
    fn jacobian(&self, _t: f64, y: &[f64], _p: &[f64], j: &mut [f64]) -> bool {
        let n = self.0;
        j.iter_mut().for_each(|v| *v = 0.0);
        for i in 0..n {
            let (next, prev, prev2) = ((i + 1) % n, (i + n - 1) % n, (i + n - 2) % n);
            j[i * n + next] += y[prev];
            j[i * n + prev2] -= y[prev];
            j[i * n + prev] += y[next] - y[prev2];
            j[i * n + i] -= 1.0;
        }
        true
    }
}

/// The FSAL vote experiment (`systems/fsal_probe.sk`): Lorenz (rho = p0) and `w' = p1 * square(p2 t)`.
pub struct FsalProbe;

impl System for FsalProbe {
    fn n_states(&self) -> usize {
        4
    }
    fn n_params(&self) -> usize {
        3
    }
    fn rhs(&self, t: f64, y: &[f64], p: &[f64], dy: &mut [f64]) {
        Lorenz.rhs(t, &y[..3], &p[..1], &mut dy[..3]);
        let phase = (t * p[2]) % 1.0;
        dy[3] = p[1] * if phase < 0.5 { 1.0 } else { -1.0 };
    }
}

/// The Kepler problem `q'' = -q / |q|^3` (states q1, q2, p1, p2), started at the pericentre of an orbit of
/// eccentricity `e`: the solution is periodic with period 2 pi, so after one period it is the initial state again.
/// Its close approach gives the leading error term of every method the upper hand, so it measures orders well.
pub struct Kepler;

impl Kepler {
    pub fn initial_state(e: f64) -> [f64; 4] {
        [1.0 - e, 0.0, 0.0, ((1.0 + e) / (1.0 - e)).sqrt()]
    }
    pub const PERIOD: f64 = 2.0 * std::f64::consts::PI;
}

impl System for Kepler {
    fn n_states(&self) -> usize {
        4
    }
    fn n_params(&self) -> usize {
        0
    }
    fn rhs(&self, _t: f64, y: &[f64], _p: &[f64], dy: &mut [f64]) {
        let r2 = y[0] * y[0] + y[1] * y[1];
        let r3 = r2 * r2.sqrt();
        dy[0] = y[2];
        dy[1] = y[3];
        dy[2] = -y[0] / r3;
        dy[3] = -y[1] / r3;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The analytic Jacobians agree with central differences.
    #[test]
    fn jacobians_match_differences() {
        let systems: [(&dyn System, Vec<f64>, Vec<f64>); 6] = [
            (&Lorenz96(8), vec![1.0, 2.0, 3.0, -1.0, 0.5, 0.1, 4.0, -2.0], vec![8.0]),
            (&Lorenz96(3), vec![1.0, 2.0, 3.0], vec![8.0]),
            (&Lorenz, vec![1.0, 2.0, 3.0], vec![21.0]),
            (&VanDerPol, vec![1.5, -0.3], vec![7.0]),
            (&Robertson, vec![0.9, 1e-4, 0.1], vec![0.04, 3e7, 1e4]),
            (&Manufactured, vec![0.3, 0.8, 0.6], vec![]),
        ];
        for (sys, y, p) in systems {
            let n = sys.n_states();
            let mut jac = vec![0.0; n * n];
            assert!(sys.jacobian(0.7, &y, &p, &mut jac));
            for col in 0..n {
                let h = 1e-6 * y[col].abs().max(1e-3);
                let (mut yp, mut ym) = (y.clone(), y.clone());
                yp[col] += h;
                ym[col] -= h;
                let (mut fp, mut fm) = (vec![0.0; n], vec![0.0; n]);
                sys.rhs(0.7, &yp, &p, &mut fp);
                sys.rhs(0.7, &ym, &p, &mut fm);
                for row in 0..n {
                    let fd = (fp[row] - fm[row]) / (2.0 * h);
                    let exact = jac[row * n + col];
                    assert!((fd - exact).abs() <= 1e-5 * (1.0 + exact.abs()), "({row},{col}): {fd} vs {exact}");
                }
            }
        }
    }

    #[test]
    fn manufactured_solution_satisfies_the_equation() {
        for t in [0.0, 0.4, 1.3] {
            let (y, mut dy) = (Manufactured::solution(t), [0.0; 3]);
            Manufactured.rhs(t, &y, &[], &mut dy);
            let h = 1e-6;
            let (yp, ym) = (Manufactured::solution(t + h), Manufactured::solution(t - h));
            for i in 0..3 {
                assert!((dy[i] - (yp[i] - ym[i]) / (2.0 * h)).abs() < 1e-8);
            }
        }
    }
}

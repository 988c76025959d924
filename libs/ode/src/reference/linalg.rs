//! The small dense LU of the DIRK iteration matrix `I - h gamma J`, exactly as the kernels do it: partial pivoting
//! by a tournament (for column k, row r > k is swapped into place whenever `|m[r][k]| > |m[k][k]|`, rows whole),
//! so that on the GPU every index is a compile-time constant and the matrix stays in registers; the swaps are
//! remembered as flags and replayed on each right-hand side.

/// An LU factorisation in place: unit lower factor below the diagonal, upper factor on and above it.
pub struct Lu {
    n: usize,
    m: Vec<f64>,
    swaps: Vec<bool>,
}

impl Lu {
    /// Factorises the row-major `n x n` matrix `m`; `None` if a pivot is zero (or not finite).
    pub fn factor(n: usize, mut m: Vec<f64>) -> Option<Lu> {
        let mut swaps = vec![false; n * n];
        for k in 0..n {
            for r in k + 1..n {
                let swap = m[r * n + k].abs() > m[k * n + k].abs();
                swaps[k * n + r] = swap;
                if swap {
                    for c in 0..n {
                        m.swap(k * n + c, r * n + c);
                    }
                }
            }
            let pivot = m[k * n + k];
            if pivot == 0.0 || !pivot.is_finite() {
                return None;
            }
            let inverse = 1.0 / pivot;
            for r in k + 1..n {
                let l = m[r * n + k] * inverse;
                m[r * n + k] = l;
                for c in k + 1..n {
                    m[r * n + c] -= l * m[k * n + c];
                }
            }
        }
        Some(Lu { n, m, swaps })
    }

    /// Solves `M x = b` in place.
    pub fn solve(&self, b: &mut [f64]) {
        let n = self.n;
        for k in 0..n {
            for r in k + 1..n {
                if self.swaps[k * n + r] {
                    b.swap(k, r);
                }
            }
        }
        for r in 0..n {
            for c in 0..r {
                b[r] -= self.m[r * n + c] * b[c];
            }
        }
        for r in (0..n).rev() {
            for c in r + 1..n {
                b[r] -= self.m[r * n + c] * b[c];
            }
            b[r] /= self.m[r * n + r];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_systems_that_need_pivoting() {
        // A zero leading pivot, and rows in the wrong order.
        let a = vec![0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0, 0.0, 1.0];
        let x = [1.0, -2.0, 3.0];
        let mut b: Vec<f64> = (0..3).map(|r| (0..3).map(|c| a[r * 3 + c] * x[c]).sum()).collect();
        Lu::factor(3, a).expect("regular").solve(&mut b);
        for i in 0..3 {
            assert!((b[i] - x[i]).abs() < 1e-14, "{b:?}");
        }
    }

    #[test]
    fn random_matrices() {
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        for n in 1..=8 {
            let a: Vec<f64> = (0..n * n).map(|_| next()).collect();
            let x: Vec<f64> = (0..n).map(|_| next()).collect();
            let mut b: Vec<f64> = (0..n).map(|r| (0..n).map(|c| a[r * n + c] * x[c]).sum()).collect();
            Lu::factor(n, a).expect("regular").solve(&mut b);
            for i in 0..n {
                assert!((b[i] - x[i]).abs() < 1e-10, "n = {n}");
            }
        }
    }

    #[test]
    fn singular_is_none() {
        assert!(Lu::factor(2, vec![1.0, 2.0, 2.0, 4.0]).is_none());
    }
}

//! Order conditions of Runge-Kutta methods over rooted trees (Butcher): a method has order p iff
//! `sum_i b_i Phi_i(t) = 1 / gamma(t)` for every rooted tree t with at most p vertices. Also the linear stability
//! function, for the L-stability checks of the DIRK methods.

/// A rooted tree, as the multiset of its subtrees (indices into [`Trees::all`], non-decreasing).
#[derive(Clone, Debug)]
pub struct Tree {
    pub children: Vec<usize>,
    pub order: usize,
    /// The density gamma(t): `|t|` times the densities of the subtrees.
    pub density: f64,
}

/// Every rooted tree up to a given order, each tree after its subtrees.
pub struct Trees {
    pub all: Vec<Tree>,
}

impl Trees {
    pub fn up_to(max_order: usize) -> Trees {
        let mut trees = Trees { all: Vec::new() };
        for order in 1..=max_order {
            let existing = trees.all.len();
            let mut children = Vec::new();
            trees.forests(order - 1, 0, existing, &mut children);
        }
        trees
    }

    /// Adds a tree for every multiset of existing trees (indices from `first` on) whose orders sum to `remaining`.
    fn forests(&mut self, remaining: usize, first: usize, existing: usize, children: &mut Vec<usize>) {
        if remaining == 0 {
            let order = 1 + children.iter().map(|&c| self.all[c].order).sum::<usize>();
            let density = order as f64 * children.iter().map(|&c| self.all[c].density).product::<f64>();
            self.all.push(Tree { children: children.clone(), order, density });
            return;
        }
        for candidate in first..existing {
            if self.all[candidate].order <= remaining {
                children.push(candidate);
                self.forests(remaining - self.all[candidate].order, candidate, existing, children);
                children.pop();
            }
        }
    }

    pub fn of_order(&self, order: usize) -> impl Iterator<Item = &Tree> {
        self.all.iter().filter(move |t| t.order == order)
    }
}

/// The residual of one order condition, and a scale for it (the same sum over absolute values).
#[derive(Clone, Copy, Debug)]
pub struct Residual {
    pub order: usize,
    pub tree: usize,
    pub residual: f64,
    pub scale: f64,
}

/// The residual of every order condition up to `max_order` for the weights `b` of the tableau `a`.
pub fn residuals(a: &[Vec<f64>], b: &[f64], max_order: usize) -> Vec<Residual> {
    let trees = Trees::up_to(max_order);
    let s = b.len();
    // phi[t][i] = Phi_i(t); phi_abs with |a| gives the scale of the rounding error.
    let mut phi: Vec<Vec<f64>> = Vec::with_capacity(trees.all.len());
    let mut phi_abs: Vec<Vec<f64>> = Vec::with_capacity(trees.all.len());
    for tree in &trees.all {
        let mut values = vec![1.0; s];
        let mut bounds = vec![1.0; s];
        for &child in &tree.children {
            for i in 0..s {
                values[i] *= (0..s).map(|j| a[i][j] * phi[child][j]).sum::<f64>();
                bounds[i] *= (0..s).map(|j| (a[i][j] * phi_abs[child][j]).abs()).sum::<f64>();
            }
        }
        phi.push(values);
        phi_abs.push(bounds);
    }
    trees
        .all
        .iter()
        .enumerate()
        .map(|(index, tree)| {
            let sum: f64 = (0..s).map(|i| b[i] * phi[index][i]).sum();
            let scale: f64 = (0..s).map(|i| (b[i] * phi_abs[index][i]).abs()).sum::<f64>().max(1.0 / tree.density);
            Residual { order: tree.order, tree: index, residual: sum - 1.0 / tree.density, scale }
        })
        .collect()
}

/// The largest order p such that every condition up to p holds within `rel_tol` of its scale.
pub fn measured_order(a: &[Vec<f64>], b: &[f64], max_order: usize, rel_tol: f64) -> usize {
    let res = residuals(a, b, max_order);
    (1..=max_order)
        .take_while(|p| res.iter().filter(|r| r.order == *p).all(|r| r.residual.abs() <= rel_tol * r.scale))
        .last()
        .unwrap_or(0)
}

/// The stability function `R(z) = 1 + z b^T (I - z A)^{-1} 1` at a real `z` (Gaussian elimination).
pub fn stability_function(a: &[Vec<f64>], b: &[f64], z: f64) -> f64 {
    let s = b.len();
    let mut m: Vec<Vec<f64>> = (0..s).map(|i| (0..s).map(|j| f64::from(i == j) - z * a[i][j]).collect()).collect();
    let mut rhs = vec![1.0; s];
    // A is lower triangular: forward substitution.
    for i in 0..s {
        let mut v = rhs[i];
        for j in 0..i {
            v -= m[i][j] * rhs[j];
        }
        rhs[i] = v / m[i][i];
        m[i][i] = 1.0;
    }
    1.0 + z * (0..s).map(|i| b[i] * rhs[i]).sum::<f64>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_counts_match_oeis_a000081() {
        let trees = Trees::up_to(8);
        let counts: Vec<usize> = (1..=8).map(|p| trees.of_order(p).count()).collect();
        assert_eq!(counts, [1, 1, 2, 4, 9, 20, 48, 115]);
    }

    #[test]
    fn densities_of_small_trees() {
        let trees = Trees::up_to(3);
        let d: Vec<f64> = trees.all.iter().map(|t| t.density).collect();
        // tau, [tau], [tau, tau], [[tau]]
        assert_eq!(d, [1.0, 2.0, 3.0, 6.0]);
    }
}

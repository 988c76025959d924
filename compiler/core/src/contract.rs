//! Launch contracts: what a kernel's attributes promise about every launch of it (`[@block_1d]`,
//! `[@block_multiple M]`, `[@block_size N]`, and the upper bound of `[@launch_bounds T]`). The convergence analysis
//! relies on them for that kernel (and the functions it calls), so whoever launches the kernel must check them: the
//! runtime and the interpreter both call [`LaunchContract::violation`], the one definition of what a launch breaks.
//! A kernel without attributes has the empty contract, which every launch keeps.

use serde::Serialize;

use crate::diagnostic::Diagnostic;
use crate::syntax::ast::{Item, Module};
use crate::types::TypeInfo;

/// The threads of a warp.
pub const WARP_SIZE: u32 = 32;

/// The facts a kernel's attributes declare about every launch of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct LaunchContract {
    /// `[@block_1d]`: `block_dim_y = block_dim_z = 1`.
    pub one_dimensional: bool,
    /// `[@block_multiple M]`: `block_dim_x` is a multiple of `M`.
    pub block_multiple: Option<u32>,
    /// `[@block_size N]`: the block is exactly `N` threads along x, and one-dimensional.
    pub block_size: Option<u32>,
    /// `[@launch_bounds T ...]`: at most `T` threads per block (CUDA's `__launch_bounds__`).
    pub max_threads: Option<u32>,
}

/// How a launch breaks a contract: the attribute it breaks, as written, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContractViolation {
    pub attribute: String,
    pub reason: String,
}

impl std::fmt::Display for ContractViolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}`: {}", self.attribute, self.reason)
    }
}

impl LaunchContract {
    /// Does the kernel declare anything at all?
    pub fn is_declared(&self) -> bool {
        *self != LaunchContract::default()
    }

    /// Does the kernel declare nothing (every launch keeps the contract)?
    pub fn is_empty(&self) -> bool {
        !self.is_declared()
    }

    /// Is `block_dim_y = block_dim_z = 1` promised?
    pub fn is_one_dimensional(&self) -> bool {
        self.one_dimensional || self.block_size.is_some()
    }

    /// Is `block_dim_x` promised to be a multiple of `k`?
    pub fn x_multiple_of(&self, k: u32) -> bool {
        let divides = |n: u32| k != 0 && n.is_multiple_of(k);
        self.block_size.is_some_and(divides) || self.block_multiple.is_some_and(divides)
    }

    /// Is every warp of every block whole? (`block_dim_x` a multiple of 32 makes the block's thread count one,
    /// whatever its other dimensions.) Then every lane a collective reads exists, and the warps of a block are
    /// consecutive runs of 32 values of `thread_idx_x` at one `thread_idx_y` and `thread_idx_z`.
    pub fn whole_warps(&self) -> bool {
        self.x_multiple_of(WARP_SIZE)
    }

    /// The most threads a block may have, if bounded.
    pub fn thread_bound(&self) -> Option<u32> {
        match (self.block_size, self.max_threads) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Is every block one warp (at most 32 threads)? Then what is uniform in a warp is uniform in the block.
    pub fn one_warp(&self) -> bool {
        self.thread_bound().is_some_and(|n| n <= WARP_SIZE)
    }

    /// The first promise a launch with blocks of `block` threads breaks, if any.
    pub fn violation(&self, block: [u32; 3]) -> Option<ContractViolation> {
        let [x, y, z] = block;
        let broken = |attribute: String, reason: String| Some(ContractViolation { attribute, reason });
        if let Some(n) = self.block_size {
            if block != [n, 1, 1] {
                return broken(format!("[@block_size {n}]"), format!("the block is ({x}, {y}, {z}), not ({n}, 1, 1)"));
            }
        }
        if self.one_dimensional && (y != 1 || z != 1) {
            return broken("[@block_1d]".into(), format!("the block is ({x}, {y}, {z}), not one-dimensional"));
        }
        if let Some(m) = self.block_multiple {
            if m == 0 || !x.is_multiple_of(m) {
                return broken(format!("[@block_multiple {m}]"), format!("block_dim_x = {x} is not a multiple of {m}"));
            }
        }
        if let Some(t) = self.max_threads {
            let threads = u64::from(x) * u64::from(y) * u64::from(z);
            if threads > u64::from(t) {
                return broken(
                    format!("[@launch_bounds {t}]"),
                    format!("the block has {threads} threads, more than {t}"),
                );
            }
        }
        None
    }

    /// The attributes, as written (`[@block_1d] [@block_multiple 32]`), or `none`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.one_dimensional {
            parts.push("[@block_1d]".to_string());
        }
        if let Some(m) = self.block_multiple {
            parts.push(format!("[@block_multiple {m}]"));
        }
        if let Some(n) = self.block_size {
            parts.push(format!("[@block_size {n}]"));
        }
        if let Some(t) = self.max_threads {
            parts.push(format!("[@launch_bounds {t}]"));
        }
        if parts.is_empty() {
            "none".into()
        } else {
            parts.join(" ")
        }
    }
}

/// A kernel with a contract launched from the device (`launch`) is E0107: only host launches are checked (by the
/// runtime and the interpreter), and the device's geometry is not known at compile time.
pub fn check_device_launches(module: &Module, types: &TypeInfo) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    for (&call, &kernel) in &types.launches {
        let Some(info) = types.kernels.get(kernel) else { continue };
        let Some(Item::Kernel(k)) = module.items.get(info.item) else { continue };
        if !k.contract.is_declared()
            || k.contract == (LaunchContract { max_threads: k.contract.max_threads, ..Default::default() })
        {
            continue;
        }
        diagnostics.push(
            Diagnostic::error(
                "E0107",
                format!("kernel `{}` has a launch contract and is launched from the device", info.name),
            )
            .primary(module.span(call), "no launcher checks the contract of this launch")
            .secondary(k.name.span, format!("`{}` declares {}", info.name, k.contract.describe()))
            .help("launch it from the host, where the runtime checks the contract, or drop the contract"),
        );
    }
    diagnostics
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_empty_contract_accepts_every_launch_and_promises_nothing() {
        let none = LaunchContract::default();
        assert_eq!(none.violation([100, 3, 2]), None);
        assert!(!none.whole_warps() && !none.one_warp() && !none.is_one_dimensional() && !none.is_declared());
    }

    #[test]
    fn each_attribute_is_checked_at_launch() {
        let multiple = LaunchContract { block_multiple: Some(32), ..Default::default() };
        assert!(multiple.whole_warps());
        assert_eq!(multiple.violation([256, 1, 1]), None);
        assert_eq!(multiple.violation([64, 2, 1]), None, "other dimensions are free");
        let v = multiple.violation([100, 1, 1]).expect("100 is not a multiple of 32");
        assert_eq!(v.to_string(), "`[@block_multiple 32]`: block_dim_x = 100 is not a multiple of 32");

        let flat = LaunchContract { one_dimensional: true, ..Default::default() };
        assert!(flat.violation([16, 2, 1]).is_some() && flat.violation([16, 1, 1]).is_none());
        assert!(!flat.whole_warps());

        let exact = LaunchContract { block_size: Some(32), ..Default::default() };
        assert!(exact.one_warp() && exact.whole_warps() && exact.is_one_dimensional());
        assert!(exact.violation([32, 1, 1]).is_none());
        assert_eq!(exact.violation([16, 2, 1]).expect("not (32, 1, 1)").attribute, "[@block_size 32]");

        let bounded = LaunchContract { max_threads: Some(256), ..Default::default() };
        assert!(bounded.violation([16, 16, 1]).is_none());
        assert_eq!(bounded.violation([16, 16, 2]).expect("512 threads").attribute, "[@launch_bounds 256]");
        assert!(!bounded.one_warp() && LaunchContract { max_threads: Some(32), ..bounded }.one_warp());
    }

    #[test]
    fn a_multiple_of_a_multiple_of_32_is_whole_warps() {
        assert!(LaunchContract { block_multiple: Some(64), ..Default::default() }.whole_warps());
        assert!(!LaunchContract { block_multiple: Some(16), ..Default::default() }.whole_warps());
        assert!(!LaunchContract { block_size: Some(100), ..Default::default() }.whole_warps());
        assert_eq!(
            LaunchContract { one_dimensional: true, block_multiple: Some(32), ..Default::default() }.describe(),
            "[@block_1d] [@block_multiple 32]"
        );
    }
}

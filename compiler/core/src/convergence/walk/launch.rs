//! What a kernel's launch contract (`crate::contract`) lets the analysis conclude, for the kernel's body and the
//! functions it calls (a call's memo key includes the contract, so an analysis under one kernel's promises is never
//! replayed for another's). Without a contract nothing here applies: the analysis is as it is for any launch.
//!
//! - Whole warps (`block_dim_x` a multiple of 32): every lane exists, so shuffles are as uniform as under the
//!   host's promise of whole warps; warps are runs of 32 consecutive `thread_idx_x` at one `thread_idx_y` and
//!   `thread_idx_z`, so `thread_idx_x / k` and `global_idx_x / k` (`k` a literal multiple of 32, or `warp_size`),
//!   their shifts right by 5 or more, `thread_idx_y`, `thread_idx_z`, `global_idx_y` and `global_idx_z` are
//!   warp-uniform.
//! - One-dimensional blocks: `thread_idx_y` and `thread_idx_z` are 0, `global_idx_y` and `global_idx_z` block
//!   indices.
//! - Blocks of at most one warp: what is warp-uniform is block-uniform, so a block barrier needs only
//!   warp-uniform control flow.
//! - Any contract: `thread_idx_x < block_dim_x` (and its `>` mirror) is true in every thread.

use super::Walker;
use crate::builtins::Builtin;
use crate::contract::{LaunchContract, WARP_SIZE};
use crate::convergence::lattice::{OriginKind, Uniformity, Value};
use crate::source::Span;
use crate::syntax::ast::{BinaryOp, ExprId, ExprKind, Item};
use crate::types::Resolution;

impl Walker<'_> {
    /// The contract of the kernel defined by item `item`.
    pub(super) fn kernel_contract(&self, item: usize) -> LaunchContract {
        match self.module.items.get(item) {
            Some(Item::Kernel(k)) => k.contract,
            _ => LaunchContract::default(),
        }
    }

    /// The contract of the kernel whose analysis this is (for memo keys).
    pub(super) fn launch_contract(&self) -> LaunchContract {
        self.launch
    }

    /// Does every lane of every warp exist: the host's promise, or the kernel's contract?
    pub(super) fn whole_warps(&self) -> bool {
        self.full_warps || self.launch.whole_warps()
    }

    /// The highest level of control flow a block barrier accepts: block-uniform, or warp-uniform when every block
    /// is one warp.
    pub(super) fn block_converged_limit(&self) -> Uniformity {
        if self.launch.one_warp() {
            Uniformity::WarpUniform
        } else {
            Uniformity::BlockUniform
        }
    }

    /// A thread index the contract makes more uniform than the builtin table says, or `None`.
    pub(super) fn launch_builtin(&mut self, builtin: &'static Builtin, e: ExprId, span: Span) -> Option<Value> {
        let (one_dimensional, whole_warps) = (self.launch.is_one_dimensional(), self.launch.whole_warps());
        // Every case below needs one of the two (most kernels declare no contract): no name compared.
        if !one_dimensional && !whole_warps {
            return None;
        }
        let level = match builtin.name {
            "thread_idx_y" | "thread_idx_z" if one_dimensional => Uniformity::Uniform,
            "global_idx_y" | "global_idx_z" if one_dimensional => Uniformity::BlockUniform,
            "thread_idx_y" | "thread_idx_z" | "global_idx_y" | "global_idx_z" if whole_warps => Uniformity::WarpUniform,
            _ => return None,
        };
        Some(self.facts.value(level, OriginKind::Builtin(e), span, None))
    }

    /// A binary operation's value, `joined` from its operands, refined by the contract.
    pub(super) fn launch_binary(&mut self, e: ExprId, op: BinaryOp, lhs: ExprId, rhs: ExprId, joined: Value) -> Value {
        if !self.launch.is_declared() || joined.level <= Uniformity::WarpUniform {
            return joined;
        }
        let always_true = match op {
            BinaryOp::Lt => self.is_builtin(lhs, "thread_idx_x") && self.is_builtin(rhs, "block_dim_x"),
            BinaryOp::Gt => self.is_builtin(lhs, "block_dim_x") && self.is_builtin(rhs, "thread_idx_x"),
            _ => false,
        };
        if always_true {
            return Value::uniform();
        }
        let warp_chunks = match op {
            BinaryOp::Div => self.constant(rhs).is_some_and(|k| k > 0 && k.is_multiple_of(u64::from(WARP_SIZE))),
            BinaryOp::Lsr | BinaryOp::Asr => self.constant(rhs).is_some_and(|s| (5..32).contains(&s)),
            _ => false,
        };
        // `global_idx_x` may wrap to negative values in a grid of more than 2^31 threads, where `/` truncates
        // towards zero and splits a warp's run; shifts do not.
        let x_index =
            self.is_builtin(lhs, "thread_idx_x") || (op != BinaryOp::Div && self.is_builtin(lhs, "global_idx_x"));
        if warp_chunks && x_index && self.launch.whole_warps() {
            let span = self.module.span(e);
            return self.facts.value(Uniformity::WarpUniform, OriginKind::Builtin(e), span, None);
        }
        joined
    }

    /// Is `e` the builtin `name` (under any of its spellings), used bare?
    fn is_builtin(&self, e: ExprId, name: &str) -> bool {
        let bare = matches!(self.module.expr(e), ExprKind::Var(_) | ExprKind::Call { .. });
        bare && matches!(self.types.resolution(e), Some(Resolution::Builtin(b)) if b.name == name)
    }

    /// An integer literal's value, or 32 for `warp_size`.
    fn constant(&self, e: ExprId) -> Option<u64> {
        match self.module.expr(e) {
            ExprKind::Int { value, .. } => Some(*value),
            _ if self.is_builtin(e, "warp_size") => Some(u64::from(WARP_SIZE)),
            _ => None,
        }
    }
}

//! Calls: device functions (arguments copied into the callee's first registers) and builtins, by name from
//! skc-core's builtin table (a builtin the interpreter does not know compiles to a trap naming it).

use crate::code::PrintfSite;
use skc_core::builtins::Builtin;
use skc_core::half_float::HalfFormat;
use skc_core::printf_format::PrintfArg;
use skc_core::syntax::ast::ExprId;
use skc_core::types::{FunctionId, Resolution, Type};
use skc_core::vectors::VectorKind;

use super::function::FnCompiler;
use crate::code::{
    AtomicOp, BlockReduceOp, FloatOp, HalfOp, Instr, IntOp, LaunchSite, MathOp, Position, Reg, ShuffleMode, SyncOp,
    UnaryOp, VoteOp, WarpReduceOp,
};
use crate::value::Scalar;

impl FnCompiler<'_, '_> {
    pub fn call(&mut self, e: ExprId, args: &[ExprId], dst: Option<Reg>) -> Reg {
        match self.layout.types.resolution(e) {
            Some(Resolution::Builtin(b)) => self.builtin(e, b.get(), args, dst),
            Some(Resolution::Function(id)) => self.call_function(e, id, args, dst),
            _ => {
                self.trap_message("a call of something that is not a function".into(), e);
                self.zero
            }
        }
    }

    /// Arguments of type unit are evaluated (for their effects) but not passed.
    fn passed_arguments(&mut self, args: &[ExprId]) -> Vec<(Reg, u32)> {
        let regs = self.operands(args);
        args.iter().zip(regs).map(|(a, r)| (r, self.layout.slots_of(*a))).filter(|(_, words)| *words > 0).collect()
    }

    pub fn call_function(&mut self, e: ExprId, id: FunctionId, args: &[ExprId], dst: Option<Reg>) -> Reg {
        let ret = &self.layout.types.function(id).ret;
        if matches!(ret, Type::Ref(_)) {
            self.trap_message("a function that returns a `ref` cell".into(), e);
            return self.zero;
        }
        let words = self.slots(ret);
        let passed = self.passed_arguments(args);
        let dst = dst.unwrap_or_else(|| self.alloc(words.max(1)));
        let at = self.code.call_args.len() as u32;
        self.code.call_args.extend(passed.iter().copied());
        self.emit(Instr::Call { func: id.0, args: at, count: passed.len() as u32, dst }, e);
        dst
    }

    /// The scalar type of argument `i` of a builtin call.
    fn arg_scalar(&self, args: &[ExprId], i: usize) -> Scalar {
        args.get(i).and_then(|a| Scalar::of(self.layout.ty(*a))).unwrap_or(Scalar::Int32)
    }

    /// The element type of the array argument `i`.
    fn element_scalar(&self, args: &[ExprId], i: usize) -> Scalar {
        args.get(i).and_then(|a| self.layout.ty(*a).element()).and_then(Scalar::of).unwrap_or(Scalar::Int32)
    }

    pub fn builtin(&mut self, e: ExprId, b: &'static Builtin, args: &[ExprId], dst: Option<Reg>) -> Reg {
        let name = b.name;
        if let Some(which) = position(name) {
            for a in args {
                self.discard(*a);
            }
            let dst = dst.unwrap_or_else(|| self.alloc(1));
            self.emit(Instr::Position { dst, which }, e);
            return dst;
        }
        if let Some(result) = self.sync_builtin(e, name, args, dst) {
            return result;
        }
        if let Some(result) = self.atomic_builtin(e, name, args, dst) {
            return result;
        }
        if let Some(result) = self.math_builtin(e, name, args, dst) {
            return result;
        }
        if let Some(result) = self.vector_builtin(e, b, args, dst) {
            return result;
        }
        if let Some(result) = self.bit_builtin(e, name, args, dst) {
            return result;
        }
        match name {
            "select" => self.select(e, args, dst),
            "printf" => self.printf(e, args),
            "assert" => {
                let regs = self.operands(args);
                let cond = regs.first().copied().unwrap_or(self.zero);
                self.emit(Instr::Assert { cond }, e);
                self.zero
            }
            "ignore" => {
                self.passed_arguments(args);
                self.zero
            }
            "nanosleep" => {
                self.passed_arguments(args);
                self.emit(Instr::Sleep, e);
                self.zero
            }
            "globaltimer" => {
                let dst = dst.unwrap_or_else(|| self.alloc(1));
                self.emit(Instr::Timer { dst }, e);
                dst
            }
            "launch" => self.launch(e, args, dst),
            "grid_dependency_sync" | "trigger_dependent_launch" => {
                // The interpreter runs one launch after another: the previous grid has always ended.
                self.passed_arguments(args);
                self.zero
            }
            _ if name.starts_with("fence") => {
                // Every access is sequentially consistent here: a fence changes nothing.
                self.passed_arguments(args);
                self.zero
            }
            _ => {
                self.trap_message(format!("the builtin `{name}`, which the interpreter does not implement"), e);
                self.zero
            }
        }
    }

    /// Barriers, collectives and `uniform_load`.
    fn sync_builtin(&mut self, e: ExprId, name: &str, args: &[ExprId], dst: Option<Reg>) -> Option<Reg> {
        let op = match name {
            "block_barrier" => SyncOp::BlockBarrier,
            "warp_barrier" => SyncOp::WarpBarrier,
            "shfl" => SyncOp::Shuffle(ShuffleMode::Idx),
            "shfl_down" => SyncOp::Shuffle(ShuffleMode::Down),
            "shfl_up" => SyncOp::Shuffle(ShuffleMode::Up),
            "shfl_xor" => SyncOp::Shuffle(ShuffleMode::Xor),
            "block_barrier_count" => SyncOp::BlockReduce(BlockReduceOp::Count),
            "block_barrier_and" => SyncOp::BlockReduce(BlockReduceOp::And),
            "block_barrier_or" => SyncOp::BlockReduce(BlockReduceOp::Or),
            "shfl_width" => SyncOp::ShuffleWidth(ShuffleMode::Idx),
            "shfl_down_width" => SyncOp::ShuffleWidth(ShuffleMode::Down),
            "shfl_up_width" => SyncOp::ShuffleWidth(ShuffleMode::Up),
            "shfl_xor_width" => SyncOp::ShuffleWidth(ShuffleMode::Xor),
            _ if name.starts_with("warp_reduce_") => SyncOp::WarpReduce(warp_reduce_op(name)?),
            "all" => SyncOp::Vote(crate::code::VoteOp::All),
            "any" => SyncOp::Vote(VoteOp::Any),
            "ballot" => SyncOp::Vote(VoteOp::Ballot),
            "activemask" => SyncOp::ActiveMask,
            "named_barrier" => SyncOp::NamedBarrier { arrive: false },
            "named_barrier_arrive" => SyncOp::NamedBarrier { arrive: true },
            "uniform_load" => return Some(self.uniform_load(e, args, dst)),
            _ => return None,
        };
        let passed = self.passed_arguments(args);
        let a = passed.first().map(|p| p.0).unwrap_or(self.zero);
        let b = passed.get(1).map(|p| p.0).unwrap_or(self.zero);
        let c = passed.get(2).map(|p| p.0).unwrap_or(self.zero);
        let dst = match op {
            SyncOp::Shuffle(_)
            | SyncOp::ShuffleWidth(_)
            | SyncOp::Vote(_)
            | SyncOp::WarpReduce(_)
            | SyncOp::BlockReduce(_)
            | SyncOp::ActiveMask => dst.unwrap_or_else(|| self.alloc(1)),
            SyncOp::BlockBarrier | SyncOp::WarpBarrier | SyncOp::NamedBarrier { .. } => self.zero,
        };
        self.emit(Instr::Sync { op, dst, a, b, c }, e);
        Some(dst)
    }

    /// `uniform_load a i`: a block barrier, the load, a block barrier (two program points of the same call).
    fn uniform_load(&mut self, e: ExprId, args: &[ExprId], dst: Option<Reg>) -> Reg {
        let regs = self.operands(args);
        let zero = self.zero;
        let barrier = Instr::Sync { op: SyncOp::BlockBarrier, dst: zero, a: zero, b: zero, c: zero };
        self.emit(barrier, e);
        let stride = args.first().and_then(|a| self.layout.ty(*a).element()).map(|t| self.slots(t)).unwrap_or(1);
        let dst = dst.unwrap_or_else(|| self.alloc(stride.max(1)));
        let (arr, idx) = (regs.first().copied().unwrap_or(zero), regs.get(1).copied().unwrap_or(zero));
        let stride = stride as u16;
        self.emit(Instr::Load { dst, arr, idx, idx_ty: Scalar::Int32, stride, offset: 0, n: stride }, e);
        self.emit(barrier, e);
        dst
    }

    fn atomic_builtin(&mut self, e: ExprId, name: &str, args: &[ExprId], dst: Option<Reg>) -> Option<Reg> {
        if let Some(pair) = name.strip_prefix("atomic_add_").and_then(VectorKind::by_name) {
            return Some(self.atomic_pair_add(e, pair, args, dst));
        }
        let rest = name.strip_prefix("atomic_")?;
        let kind = rest.split('_').next().unwrap_or("");
        let op = match kind {
            "add" => AtomicOp::Add,
            "sub" => AtomicOp::Sub,
            "min" => AtomicOp::Min,
            "max" => AtomicOp::Max,
            "and" => AtomicOp::And,
            "or" => AtomicOp::Or,
            "xor" => AtomicOp::Xor,
            "exch" => AtomicOp::Exch,
            "cas" => AtomicOp::Cas,
            "load" => AtomicOp::Load,
            "store" => AtomicOp::Store,
            _ => return None,
        };
        let ty = self.element_scalar(args, 0);
        let regs = self.operands(args);
        let zero = self.zero;
        let get = |i: usize| regs.get(i).copied().unwrap_or(zero);
        let dst = if op == AtomicOp::Store { zero } else { dst.unwrap_or_else(|| self.alloc(1)) };
        self.emit(Instr::Atomic { op, ty, dst, arr: get(0), idx: get(1), a: get(2), b: get(3) }, e);
        Some(dst)
    }

    /// `atomic_add_float16x2 a i v`: one instruction that adds both lanes of `v` to element `i`.
    fn atomic_pair_add(&mut self, e: ExprId, pair: VectorKind, args: &[ExprId], dst: Option<Reg>) -> Reg {
        let format = pair.component().half_format().expect("a 16-bit pair");
        let regs = self.operands(args);
        let dst = dst.unwrap_or_else(|| self.alloc(2));
        self.emit(Instr::AtomicPairAdd { format, dst, arr: regs[0], idx: regs[1], a: regs[2] }, e);
        dst
    }

    /// `make_float4 x y z w` (the components into consecutive words, as a record's fields), `load_float4 a i`
    /// and `store_float4 a i v` (element `i` of `a` seen as an array of `float4`s).
    fn vector_builtin(&mut self, e: ExprId, b: &Builtin, args: &[ExprId], dst: Option<Reg>) -> Option<Reg> {
        if let Some(kind) = b.name.strip_prefix("make_").and_then(VectorKind::by_name) {
            let lanes = kind.lanes();
            let temp = self.alloc(lanes);
            for (k, arg) in args.iter().enumerate() {
                let mark = self.mark();
                self.value_into(*arg, temp + k as Reg);
                self.release(mark);
            }
            return Some(self.deliver(e, temp, lanes, dst));
        }
        let kind = VectorKind::accessed_by(b)?;
        let lanes = kind.lanes();
        let regs = self.operands(args);
        let zero = self.zero;
        let (arr, idx) = (regs.first().copied().unwrap_or(zero), regs.get(1).copied().unwrap_or(zero));
        let view = self.alloc(1);
        self.emit(Instr::VectorView { dst: view, src: arr, lanes }, e);
        let n = lanes as u16;
        if b.name.starts_with("load_") {
            let dst = dst.unwrap_or_else(|| self.alloc(lanes));
            self.emit(Instr::Load { dst, arr: view, idx, idx_ty: Scalar::Int32, stride: n, offset: 0, n }, e);
            return Some(dst);
        }
        let src = regs.get(2).copied().unwrap_or(zero);
        self.emit(Instr::Store { src, arr: view, idx, idx_ty: Scalar::Int32, stride: n, offset: 0, n }, e);
        Some(zero)
    }

    /// `popc`, `clz`, `ffs`, `brev` and their 64-bit forms; the funnel shifts.
    fn bit_builtin(&mut self, e: ExprId, name: &str, args: &[ExprId], dst: Option<Reg>) -> Option<Reg> {
        let left = match name {
            "funnel_shift_left" => Some(true),
            "funnel_shift_right" => Some(false),
            _ => None,
        };
        if let Some(left) = left {
            let regs = self.operands(args);
            let dst = dst.unwrap_or_else(|| self.alloc(1));
            let get = |i: usize| regs.get(i).copied().unwrap_or(self.zero);
            self.emit(Instr::Funnel { left, dst, lo: get(0), hi: get(1), shift: get(2) }, e);
            return Some(dst);
        }
        let op = match name {
            "popc" => UnaryOp::Popc32,
            "popc64" => UnaryOp::Popc64,
            "clz" => UnaryOp::Clz32,
            "clz64" => UnaryOp::Clz64,
            "ffs" => UnaryOp::Ffs32,
            "ffs64" => UnaryOp::Ffs64,
            "brev" => UnaryOp::Brev32,
            "brev64" => UnaryOp::Brev64,
            _ => return None,
        };
        let regs = self.operands(args);
        let dst = dst.unwrap_or_else(|| self.alloc(1));
        let a = regs.first().copied().unwrap_or(self.zero);
        self.emit(Instr::Unary { op, dst, a }, e);
        Some(dst)
    }

    fn select(&mut self, e: ExprId, args: &[ExprId], dst: Option<Reg>) -> Reg {
        let regs = self.operands(args);
        let words = self.layout.slots_of(e);
        let dst = dst.unwrap_or_else(|| self.alloc(words.max(1)));
        if regs.len() == 3 && words > 0 {
            self.emit(Instr::Select { dst, cond: regs[0], a: regs[1], b: regs[2], n: words }, e);
        }
        dst
    }

    /// `launch k grid block shared args...`.
    fn launch(&mut self, e: ExprId, args: &[ExprId], dst: Option<Reg>) -> Reg {
        let kernel = self.layout.types.launches.get(&e).copied();
        let dst = dst.unwrap_or_else(|| self.alloc(1));
        let (Some(kernel), Some(rest)) = (kernel, args.get(1..)) else {
            self.trap_message("an unresolved `launch`".into(), e);
            return dst;
        };
        let passed = self.passed_arguments(rest);
        if passed.len() < 3 {
            self.trap_message("a `launch` without its geometry".into(), e);
            return dst;
        }
        let at = self.code.call_args.len() as u32;
        self.code.call_args.extend(passed[3..].iter().copied());
        let (grid, block, shared) = (passed[0].0, passed[1].0, passed[2].0);
        let count = (passed.len() - 3) as u32;
        let site = self.code.launches.len() as u32;
        self.code.launches.push(LaunchSite { kernel: kernel as u32, grid, block, shared, args: at, count });
        self.emit(Instr::Launch { site, dst }, e);
        dst
    }

    /// Math, conversions, `abs`, `min`, `max`, `is_nan`, `is_finite`.
    fn math_builtin(&mut self, e: ExprId, name: &str, args: &[ExprId], dst: Option<Reg>) -> Option<Reg> {
        let ty = self.arg_scalar(args, 0);
        let double = ty == Scalar::Float64;
        let pair = args.first().and_then(|a| skc_core::vectors::packed_half_of(self.layout.ty(*a)));
        if let Some(pair) = pair.filter(|_| name == "fma") {
            return Some(self.packed_half_fma(e, pair, args, dst));
        }
        let half_operation = matches!(name, "fma" | "abs" | "fabs" | "min" | "fmin" | "max" | "fmax");
        if let Some(format) = ty.half_format().filter(|_| half_operation) {
            return Some(self.half_builtin(e, name, format, args, dst));
        }
        let instr: fn(Reg, &[Reg]) -> Instr = match name {
            conversion if is_conversion(conversion) => {
                let to = Scalar::of(self.layout.ty(e)).unwrap_or(Scalar::Int32);
                let regs = self.operands(args);
                let dst = dst.unwrap_or_else(|| self.alloc(1));
                let a = regs.first().copied().unwrap_or(self.zero);
                // A 16-bit float converted to its own type still goes through float32 (a NaN becomes canonical).
                let instr = if ty == to && !ty.is_half() {
                    Instr::Move { dst, src: a }
                } else {
                    Instr::Convert { from: ty, to, dst, a }
                };
                self.emit(instr, e);
                return Some(dst);
            }
            "fma" if double => |d, r| Instr::Fma64 { dst: d, a: r[0], b: r[1], c: r[2] },
            "fma" => |d, r| Instr::Fma32 { dst: d, a: r[0], b: r[1], c: r[2] },
            "abs" | "min" | "max" | "is_nan" | "is_finite" => return Some(self.numeric(e, name, ty, args, dst)),
            "pow" | "spoc_powint" if !ty.is_float() => {
                let regs = self.operands(args);
                let dst = dst.unwrap_or_else(|| self.alloc(1));
                self.emit(super::expr::integer(IntOp::Pow, ty, dst, regs[0], regs[1]), e);
                return Some(dst);
            }
            _ => {
                if let Some(op) = float_binary(name) {
                    let regs = self.operands(args);
                    let dst = dst.unwrap_or_else(|| self.alloc(1));
                    let (a, b) = (regs[0], regs[1]);
                    let instr = if double { Instr::F64 { op, dst, a, b } } else { Instr::F32 { op, dst, a, b } };
                    self.emit(instr, e);
                    return Some(dst);
                }
                let op = float_unary(name)?;
                let regs = self.operands(args);
                let dst = dst.unwrap_or_else(|| self.alloc(1));
                let a = regs[0];
                let instr = if double { Instr::Math64 { op, dst, a } } else { Instr::Math32 { op, dst, a } };
                self.emit(instr, e);
                return Some(dst);
            }
        };
        let regs = self.operands(args);
        let dst = dst.unwrap_or_else(|| self.alloc(1));
        self.emit(instr(dst, &regs), e);
        Some(dst)
    }

    /// `fma` on a 16-bit pair (`typeck` allows no other math builtin on one): the scalar `fma` on each lane.
    fn packed_half_fma(&mut self, e: ExprId, pair: VectorKind, args: &[ExprId], dst: Option<Reg>) -> Reg {
        let format = pair.component().half_format().expect("a 16-bit pair");
        let regs = self.operands(args);
        let dst = dst.unwrap_or_else(|| self.alloc(2));
        let temp = self.alloc(2);
        for lane in 0..2 {
            let instr =
                Instr::HalfFma { format, dst: temp + lane, a: regs[0] + lane, b: regs[1] + lane, c: regs[2] + lane };
            self.emit(instr, e);
        }
        self.deliver(e, temp, 2, Some(dst))
    }

    /// `abs`, `min`, `max` and `fma` on a 16-bit float (`typeck` allows no other builtin on them but `select`).
    fn half_builtin(&mut self, e: ExprId, name: &str, format: HalfFormat, args: &[ExprId], dst: Option<Reg>) -> Reg {
        let regs = self.operands(args);
        let dst = dst.unwrap_or_else(|| self.alloc(1));
        let a = regs[0];
        let b = regs.get(1).copied().unwrap_or(a);
        let instr = match name {
            "fma" => Instr::HalfFma { format, dst, a, b, c: regs[2] },
            "abs" | "fabs" => Instr::Half { format, op: HalfOp::Abs, dst, a, b },
            "min" | "fmin" => Instr::Half { format, op: HalfOp::Min, dst, a, b },
            _ => Instr::Half { format, op: HalfOp::Max, dst, a, b },
        };
        self.emit(instr, e);
        dst
    }

    /// `abs`, `min`, `max` on any numeric type; `is_nan`, `is_finite`.
    fn numeric(&mut self, e: ExprId, name: &str, ty: Scalar, args: &[ExprId], dst: Option<Reg>) -> Reg {
        let regs = self.operands(args);
        let dst = dst.unwrap_or_else(|| self.alloc(1));
        let a = regs[0];
        let b = regs.get(1).copied().unwrap_or(self.zero);
        let double = ty == Scalar::Float64;
        let instr = match (name, ty) {
            ("abs", Scalar::Float32 | Scalar::Float64) if double => Instr::Math64 { op: MathOp::Abs, dst, a },
            ("abs", Scalar::Float32) => Instr::Math32 { op: MathOp::Abs, dst, a },
            ("abs", Scalar::Int32) => Instr::Unary { op: UnaryOp::Abs32, dst, a },
            ("abs", Scalar::Int64) => Instr::Unary { op: UnaryOp::Abs64, dst, a },
            ("abs", _) => Instr::Move { dst, src: a },
            ("is_nan", _) if double => Instr::Unary { op: UnaryOp::IsNan64, dst, a },
            ("is_nan", _) => Instr::Unary { op: UnaryOp::IsNan32, dst, a },
            ("is_finite", _) if double => Instr::Unary { op: UnaryOp::IsFinite64, dst, a },
            ("is_finite", _) => Instr::Unary { op: UnaryOp::IsFinite32, dst, a },
            (_, Scalar::Float32) => {
                Instr::F32 { op: if name == "min" { FloatOp::Min } else { FloatOp::Max }, dst, a, b }
            }
            (_, Scalar::Float64) => {
                Instr::F64 { op: if name == "min" { FloatOp::Min } else { FloatOp::Max }, dst, a, b }
            }
            (_, int) => super::expr::integer(if name == "min" { IntOp::Min } else { IntOp::Max }, int, dst, a, b),
        };
        self.emit(instr, e);
        dst
    }
}

fn is_conversion(name: &str) -> bool {
    matches!(name, "float32" | "float64" | "float16" | "bfloat16" | "int32" | "int64" | "uint32" | "uint64")
}

fn position(name: &str) -> Option<Position> {
    let axis = |s: &str| match s {
        "x" => Some(0),
        "y" => Some(1),
        "z" => Some(2),
        _ => None,
    };
    let (prefix, last) = name.rsplit_once('_').unwrap_or((name, ""));
    Some(match (prefix, last) {
        ("thread_idx", a) => Position::ThreadIdx(axis(a)?),
        ("block_idx", a) => Position::BlockIdx(axis(a)?),
        ("block_dim", a) => Position::BlockDim(axis(a)?),
        ("grid_dim", a) => Position::GridDim(axis(a)?),
        ("global_idx", a) => Position::GlobalIdx(axis(a)?),
        _ => match name {
            "global_thread_id" => Position::GlobalThreadId,
            "lane_id" => Position::LaneId,
            "warp_id" => Position::WarpId,
            "warp_size" => return None,
            _ => return None,
        },
    })
}

/// The operation of `warp_reduce_add`, `warp_reduce_min_uint32`...
fn warp_reduce_op(name: &str) -> Option<WarpReduceOp> {
    let rest = name.strip_prefix("warp_reduce_")?;
    let (op, signed) = match rest.strip_suffix("_uint32") {
        Some(op) => (op, false),
        None => (rest, true),
    };
    Some(match op {
        "add" => WarpReduceOp::Add,
        "min" => WarpReduceOp::Min { signed },
        "max" => WarpReduceOp::Max { signed },
        "and" => WarpReduceOp::And,
        "or" => WarpReduceOp::Or,
        "xor" => WarpReduceOp::Xor,
        _ => return None,
    })
}

fn float_binary(name: &str) -> Option<FloatOp> {
    Some(match name {
        "pow" | "pow_approx" => FloatOp::Pow,
        "atan2" => FloatOp::Atan2,
        "fmod" => FloatOp::Rem,
        "hypot" => FloatOp::Hypot,
        "copysign" => FloatOp::Copysign,
        "fmin" => FloatOp::Min,
        "fmax" => FloatOp::Max,
        "div_approx" => FloatOp::Div,
        _ => return None,
    })
}

fn float_unary(name: &str) -> Option<MathOp> {
    Some(match name {
        "sqrt" => MathOp::Sqrt,
        "rsqrt" => MathOp::Rsqrt,
        "rcp_approx" => MathOp::Rcp,
        "cbrt" => MathOp::Cbrt,
        "exp" => MathOp::Exp,
        "exp2" | "exp2_approx" => MathOp::Exp2,
        "expm1" => MathOp::Expm1,
        "log" => MathOp::Log,
        "log2" | "log2_approx" => MathOp::Log2,
        "log10" => MathOp::Log10,
        "log1p" => MathOp::Log1p,
        "sin" => MathOp::Sin,
        "cos" => MathOp::Cos,
        "tan" => MathOp::Tan,
        "asin" => MathOp::Asin,
        "acos" => MathOp::Acos,
        "atan" => MathOp::Atan,
        "sinh" => MathOp::Sinh,
        "cosh" => MathOp::Cosh,
        "tanh" => MathOp::Tanh,
        "erf" => MathOp::Erf,
        "floor" => MathOp::Floor,
        "ceil" => MathOp::Ceil,
        "round" => MathOp::Round,
        "trunc" => MathOp::Trunc,
        "fabs" => MathOp::Abs,
        _ => return None,
    })
}

impl FnCompiler<'_, '_> {
    /// `printf format args...`: the arguments into registers, then one instruction that formats them. The format's
    /// pieces are filled in by `Program::from_parts`, which has the source text.
    fn printf(&mut self, e: ExprId, args: &[ExprId]) -> Reg {
        let Some((&format, values)) = args.split_first() else { return self.zero };
        let regs = self.operands(values);
        let types = values.iter().map(|v| skc_core::typeck::printf_arg(self.layout.ty(*v)));
        let args = regs.into_iter().zip(types).map(|(r, t)| (r, t.unwrap_or(PrintfArg::Int32))).collect();
        let site = self.code.printf_sites.len() as u32;
        self.code.printf_sites.push(PrintfSite { format, pieces: Vec::new(), args });
        self.emit(Instr::Printf { site }, e);
        self.zero
    }
}

//! The code the interpreter runs: a register machine compiled from the typed AST (`compile`). Each function and
//! kernel has a frame of 64-bit registers (a value of `n` words occupies `n` consecutive registers) and a frame of
//! thread-local memory (its local arrays and `ref` cells). Every instruction keeps the expression it came from
//! ([`Code::sites`], parallel to [`Code::instrs`]), which is where a report points.
//!
//! An instruction stands for about one AST node: operators, loads, stores, calls, branches and builtins each
//! compile to one; reading a variable compiles to nothing (the operand is the variable's register). The count of
//! executed instructions is the interpreter's measure of work (its thread-instructions).

use skc_core::half_float::HalfFormat;
use skc_core::syntax::ast::ExprId;

use crate::value::Scalar;

/// A register, relative to the frame of the running function.
pub type Reg = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
    Xor,
    Shl,
    /// Logical shift right (zeros come in), whatever the signedness.
    Lsr,
    /// Arithmetic shift right (the sign bit comes in), whatever the signedness.
    Asr,
    Min,
    Max,
    /// `pow` on integers (`skc_core::integer_power`).
    Pow,
}

/// The operations of the 16-bit floats (`b` unused by the unary ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HalfOp {
    Add,
    Sub,
    Mul,
    Div,
    Min,
    Max,
    Neg,
    Abs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatOp {
    Add,
    Sub,
    Mul,
    Div,
    /// `mod` and `fmod`.
    Rem,
    Pow,
    Min,
    Max,
    Atan2,
    Hypot,
    Copysign,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// One-argument float functions (the `{f}` builtins and their hardware approximations).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathOp {
    Sqrt,
    Rsqrt,
    Rcp,
    Cbrt,
    Exp,
    Exp2,
    Expm1,
    Log,
    Log2,
    Log10,
    Log1p,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Erf,
    Floor,
    Ceil,
    Round,
    Trunc,
    Abs,
    Neg,
}

/// Operations of one operand that are not float functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// Bitwise not.
    Lnot32,
    Lnot64,
    /// `not` of a bool.
    Not,
    /// Absolute value of a signed integer (wrapping: the minimum stays itself).
    Abs32,
    Abs64,
    IsNan32,
    IsNan64,
    IsFinite32,
    IsFinite64,
    /// Bits set (`popc`, `popc64`).
    Popc32,
    Popc64,
    /// Leading zero bits (`clz`, `clz64`).
    Clz32,
    Clz64,
    /// Position of the lowest bit set, from 1; 0 for 0 (`ffs`, `ffs64`).
    Ffs32,
    Ffs64,
    /// The bits in reverse order (`brev`, `brev64`).
    Brev32,
    Brev64,
}

/// The read-modify-write atomics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    Add,
    Sub,
    Min,
    Max,
    And,
    Or,
    Xor,
    Exch,
    /// Compare-and-swap: `a` is the expected value, `b` the new one.
    Cas,
    /// An atomic load (`a`, `b` unused).
    Load,
    /// An atomic store of `a` (`dst` unused).
    Store,
}

/// The shuffles, as PTX's `shfl.sync` modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShuffleMode {
    Idx,
    Down,
    Up,
    Xor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoteOp {
    All,
    Any,
    Ballot,
}

/// The warp reductions (`__reduce_*_sync`) of 32-bit integers; `Min` and `Max` signed or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpReduceOp {
    Add,
    Min { signed: bool },
    Max { signed: bool },
    And,
    Or,
    Xor,
}

/// The block barriers that reduce a predicate (`__syncthreads_count/and/or`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockReduceOp {
    Count,
    And,
    Or,
}

/// What a thread waits for at a synchronisation point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncOp {
    /// `block_barrier`, the end of a `superstep`, either barrier of `uniform_load`.
    BlockBarrier,
    /// `block_barrier_count`, `_and`, `_or`: a block barrier; the predicate in `a`, the result in `dst`.
    BlockReduce(BlockReduceOp),
    /// `warp_barrier`.
    WarpBarrier,
    /// `shfl*`: the value in `a`, the lane or offset in `b`, the result in `dst`.
    Shuffle(ShuffleMode),
    /// `shfl*_width`: as `Shuffle`, within groups of `c` lanes.
    ShuffleWidth(ShuffleMode),
    /// `all`, `any`, `ballot`: the predicate in `a`.
    Vote(VoteOp),
    /// `warp_reduce_*`: the value in `a`.
    WarpReduce(WarpReduceOp),
    /// `named_barrier id count` (`arrive`: `named_barrier_arrive`): id in `a`, count in `b`.
    NamedBarrier { arrive: bool },
    /// `activemask`: not a barrier; the lanes that reach it together (see the scheduler).
    ActiveMask,
}

/// Which thread-position value a [`Instr::Position`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    ThreadIdx(u8),
    BlockIdx(u8),
    BlockDim(u8),
    GridDim(u8),
    GlobalIdx(u8),
    GlobalThreadId,
    LaneId,
    WarpId,
}

/// Where a handle made by [`Instr::Handle`] points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandleBase {
    /// The thread's local memory, at this offset from the frame's local base.
    Local,
    /// The block's shared memory, at this absolute offset.
    Shared,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Instr {
    Const {
        dst: Reg,
        bits: u64,
    },
    Move {
        dst: Reg,
        src: Reg,
    },
    MoveN {
        dst: Reg,
        src: Reg,
        n: u32,
    },
    I32 {
        op: IntOp,
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    U32 {
        op: IntOp,
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    I64 {
        op: IntOp,
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    U64 {
        op: IntOp,
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    F32 {
        op: FloatOp,
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    F64 {
        op: FloatOp,
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    /// Comparison of int32 values (the common loop condition), result a bool.
    CmpI32 {
        op: CmpOp,
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    /// Comparison of any other scalar type.
    Cmp {
        ty: Scalar,
        op: CmpOp,
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Unary {
        op: UnaryOp,
        dst: Reg,
        a: Reg,
    },
    Math32 {
        op: MathOp,
        dst: Reg,
        a: Reg,
    },
    Math64 {
        op: MathOp,
        dst: Reg,
        a: Reg,
    },
    /// A 16-bit float operation (`skc_core::half_float`): `+ - * /`, `min`, `max`, negation and `abs`.
    Half {
        format: HalfFormat,
        op: HalfOp,
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    /// `fma` on a 16-bit float, rounded once.
    HalfFma {
        format: HalfFormat,
        dst: Reg,
        a: Reg,
        b: Reg,
        c: Reg,
    },
    Fma32 {
        dst: Reg,
        a: Reg,
        b: Reg,
        c: Reg,
    },
    Fma64 {
        dst: Reg,
        a: Reg,
        b: Reg,
        c: Reg,
    },
    Convert {
        from: Scalar,
        to: Scalar,
        dst: Reg,
        a: Reg,
    },
    /// `n` words: `cond ? a : b`.
    Select {
        dst: Reg,
        cond: Reg,
        a: Reg,
        b: Reg,
        n: u32,
    },
    Jump {
        to: u32,
    },
    JumpIfNot {
        cond: Reg,
        to: u32,
    },
    JumpIf {
        cond: Reg,
        to: u32,
    },
    /// A backward jump (a loop's next iteration; `iter` counts them): where the scheduler may preempt the thread.
    Loop {
        to: u32,
        iter: Reg,
    },
    /// Jumps to `to` unless `a op b` (int32): a condition and its branch in one.
    BranchI32 {
        op: CmpOp,
        a: Reg,
        b: Reg,
        to: u32,
    },
    /// The end of an iteration of a `for` over int32: falls through when `counter` = `last`; else steps `counter`
    /// (down when `down`), counts the iteration in `iter` and jumps back to `to` (a back edge, like `Loop`).
    ForI32 {
        counter: Reg,
        last: Reg,
        down: bool,
        iter: Reg,
        to: u32,
    },
    /// `dst..dst+n` = element `idx` of `arr` (words `offset..offset+n` of an element of `stride` words).
    Load {
        dst: Reg,
        arr: Reg,
        idx: Reg,
        idx_ty: Scalar,
        stride: u16,
        offset: u16,
        n: u16,
    },
    Store {
        src: Reg,
        arr: Reg,
        idx: Reg,
        idx_ty: Scalar,
        stride: u16,
        offset: u16,
        n: u16,
    },
    /// An atomic on the one-word element `idx` (int32) of `arr`, of type `ty`.
    Atomic {
        op: AtomicOp,
        ty: Scalar,
        dst: Reg,
        arr: Reg,
        idx: Reg,
        a: Reg,
        b: Reg,
    },
    /// `atomic_add_float16x2 arr idx a` (and bfloat16x2): both lanes of element `idx` (words `2 idx`, `2 idx + 1`)
    /// updated in one step, each lane's sum rounded once; `dst` (two words) gets the old pair.
    AtomicPairAdd {
        format: HalfFormat,
        dst: Reg,
        arr: Reg,
        idx: Reg,
        a: Reg,
    },
    /// `dst` = the handle `src` seen as an array of vectors of `lanes` one-word elements each (its length divided
    /// by `lanes`, rounded down): a vector load or store (`load_float4 a i`) is then an element access at `i`
    /// with a stride of `lanes` words, bounds-checked like any other.
    VectorView {
        dst: Reg,
        src: Reg,
        lanes: u32,
    },
    /// `dst` = the handle of row `idx` (a value of type `idx_ty`) of the multi-dimensional array `arr`: `len`
    /// elements at `idx * stride` words from its start, once `idx` is checked against `arr`'s length (so an index
    /// past a row is reported in its own dimension, never wrapped into the next row).
    Row {
        dst: Reg,
        arr: Reg,
        idx: Reg,
        idx_ty: Scalar,
        stride: u32,
        len: u32,
    },
    /// A handle to `len` elements of local or shared memory at `offset` words.
    Handle {
        base: HandleBase,
        dst: Reg,
        offset: u32,
        len: u32,
    },
    /// The dynamic shared array: `count` (a value of type `count_ty`) elements of `elem_words` words each, after
    /// the static shared memory; checked against the launch's dynamic shared bytes (`elem_bytes` each).
    DynamicShared {
        dst: Reg,
        count: Reg,
        count_ty: Scalar,
        elem_words: u32,
        elem_bytes: u32,
    },
    /// A new `ref` cell of `n` words at `offset` of the frame's local memory, holding `src..src+n`.
    NewCell {
        dst: Reg,
        offset: u32,
        src: Reg,
        n: u32,
    },
    Position {
        dst: Reg,
        which: Position,
    },
    /// Calls function `func`: arguments `Code::call_args[args..args+count]` are copied into its first registers;
    /// its result goes to `dst`.
    Call {
        func: u32,
        args: u32,
        count: u32,
        dst: Reg,
    },
    Ret {
        src: Reg,
        n: u32,
    },
    /// The thread leaves the kernel.
    Exit,
    /// A barrier, collective or `activemask`: the thread stops until the scheduler completes it.
    Sync {
        op: SyncOp,
        dst: Reg,
        a: Reg,
        b: Reg,
        c: Reg,
    },
    /// `nanosleep`: the thread yields.
    Sleep,
    /// `globaltimer`: nanoseconds, as one per instruction the launch has executed.
    Timer {
        dst: Reg,
    },
    /// `launch k grid block shared args...`: queues the launch `Code::launches[site]`.
    Launch {
        site: u32,
        dst: Reg,
    },
    /// `funnel_shift_left lo hi s` (`left`) or `funnel_shift_right`: CUDA's `__funnelshift_l/r` on int32.
    Funnel {
        left: bool,
        dst: Reg,
        lo: Reg,
        hi: Reg,
        shift: Reg,
    },
    /// `printf`: formats `Code::printf_sites[site]`'s arguments into the launch's printed text.
    Printf {
        site: u32,
    },
    /// `assert cond`: stops the launch (R0014) if `cond` is false.
    Assert {
        cond: Reg,
    },
    /// A construct the interpreter cannot run (message `Code::traps[message]`).
    Trap {
        message: u32,
    },
}

/// A `printf` call: its format (parsed from the source by `Program::from_parts`) and its arguments' registers.
#[derive(Clone, Debug, PartialEq)]
pub struct PrintfSite {
    pub format: ExprId,
    pub pieces: Vec<skc_core::printf_format::Piece>,
    pub args: Vec<(Reg, skc_core::printf_format::PrintfArg)>,
}

/// A device-side launch: kernel `kernel` with the geometry in registers and arguments `Code::call_args[args..]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LaunchSite {
    pub kernel: u32,
    pub grid: Reg,
    pub block: Reg,
    pub shared: Reg,
    pub args: u32,
    pub count: u32,
}

/// A loop's iteration counter: the register that counts its iterations (0 for the first), and the address of
/// its first instruction (which orders it among the loops and instructions of its function).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoopCounter {
    pub reg: Reg,
    pub head: u32,
}

/// A compiled function or kernel.
#[derive(Clone, Debug)]
pub struct FunctionCode {
    pub name: String,
    pub entry: u32,
    /// Registers of a frame.
    pub frame_regs: u32,
    /// Words of local memory of a frame (its local arrays and cells).
    pub frame_local: u32,
}

/// Everything compiled from one program.
#[derive(Clone, Debug, Default)]
pub struct Code {
    pub instrs: Vec<Instr>,
    /// The expression each instruction comes from.
    pub sites: Vec<ExprId>,
    /// For each instruction, the registers counting the iterations of the loops around it in its function
    /// (outermost first), as a range of `iteration_regs`: two threads at a barrier or call are at the same
    /// program point only in the same iterations.
    pub loops_around: Vec<(u32, u32)>,
    pub iteration_regs: Vec<LoopCounter>,
    /// The AST nodes each instruction stands for (the nodes compiled since the previous instruction: a variable
    /// read or a literal folds into the instruction that uses it), to count AST nodes evaluated.
    pub weights: Vec<u16>,
    /// (register, words) of each argument of each call, in order.
    pub call_args: Vec<(Reg, u32)>,
    /// By `FunctionId`.
    pub functions: Vec<FunctionCode>,
    /// By index in `TypeInfo::kernels`.
    pub kernels: Vec<FunctionCode>,
    /// Words of static shared memory (every shared array of fixed size in the program, each at its own offset).
    pub static_shared: u32,
    /// The contents of the constant arrays, one after the other.
    pub constants: Vec<u64>,
    pub traps: Vec<String>,
    pub launches: Vec<LaunchSite>,
    pub printf_sites: Vec<PrintfSite>,
}

impl Code {
    /// The iteration counters of the loops around instruction `pc`.
    pub fn loops_around(&self, pc: u32) -> &[LoopCounter] {
        match self.loops_around.get(pc as usize) {
            Some(&(start, len)) => &self.iteration_regs[start as usize..(start + len) as usize],
            None => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn instructions_are_small() {
        // Instructions stay small: the inner loop reads one per step.
        assert!(std::mem::size_of::<super::Instr>() <= 24, "{}", std::mem::size_of::<super::Instr>());
    }
}

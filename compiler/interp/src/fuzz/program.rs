//! The generated programs as a small tree (so the minimiser can cut them down) and their rendering as `.sk`.
//!
//! Every generated kernel has the same parameters: `input` (one int32 per thread of the launch), `out` (one per
//! thread, written at the end), `acc` (16 counters for atomics), and the uniform scalars `n` and `u`. Its
//! values are int32; conditions are bools. A block-wide shared array `sh` of 1024 elements is zeroed first.

use std::fmt::Write;

#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub functions: Vec<Function>,
    pub kernel: Block,
}

/// A device function: `let fN (p1 : ...) ... : int32 = body; result`.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub params: Vec<Param>,
    pub body: Block,
    pub result: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Param {
    Int(String),
    /// `(r : int32 ref)`.
    Ref(String),
    /// `(a : int32 array)`: the caller passes `sh`.
    Array(String),
}

pub type Block = Vec<Stmt>;

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `let x = e in` / `let x = mut e in` (scope: the rest of the block).
    Let {
        name: String,
        mutable: bool,
        value: Expr,
    },
    /// `let r = ref e in`.
    LetRef {
        name: String,
        value: Expr,
    },
    /// `x := e` (a `mut` variable or a `ref` cell).
    Assign {
        name: String,
        value: Expr,
    },
    If {
        cond: Cond,
        then: Block,
        other: Block,
    },
    /// `for i = from to to do body done`.
    For {
        var: String,
        from: Expr,
        to: Expr,
        body: Block,
    },
    /// `let c = mut 0 in while c < bound do c := c + 1; body done`.
    While {
        counter: String,
        bound: Expr,
        body: Block,
    },
    Barrier,
    WarpBarrier,
    Superstep {
        divergent: bool,
        body: Block,
    },
    /// `sh.(index land 1023) <- value` (or into an array parameter).
    SharedStore {
        array: String,
        index: Expr,
        value: Expr,
    },
    /// `let _ = atomic_add acc (index land 15) value in ()`.
    Atomic {
        index: Expr,
        value: Expr,
    },
    /// `x := fN args` (or `let _ = fN args in ()` without a target).
    Call {
        target: Option<String>,
        function: usize,
        args: Vec<CallArg>,
    },
    /// `return` (kernel) or `return e` (function).
    Return(Option<Expr>),
    Break,
    Continue,
}

#[derive(Clone, Debug, PartialEq)]
pub enum CallArg {
    Value(Expr),
    /// A `ref` cell of the caller.
    Ref(String),
    /// A shared array of the caller (`sh` or an array parameter).
    Array(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// `/` by a positive literal.
    Div,
    /// `mod` by a positive literal.
    Mod,
    And,
    Or,
    Xor,
    Min,
    Max,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shuffle {
    Idx,
    Down,
    Up,
    Xor,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Lit(i32),
    Var(String),
    /// `!r`.
    Deref(String),
    /// A builtin or parameter named bare: `thread_idx_x`, `n`...
    Name(&'static str),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// `input.(global_idx)`.
    Input,
    /// `a.(index land 1023)`.
    SharedLoad(String, Box<Expr>),
    /// `uniform_load a (index land 1023)`.
    UniformLoad(String, Box<Expr>),
    /// `Gpu.shfl_* value lane`.
    Shuffle(Shuffle, Box<Expr>, Box<Expr>),
    /// `int32 (Gpu.ballot c)`.
    Ballot(Box<Cond>),
    /// `select c a b`.
    Select(Box<Cond>, Box<Expr>, Box<Expr>),
    /// `int32 Gpu.activemask`.
    ActiveMask,
    /// `atomic_add acc (index land 15) value` (its old value).
    AtomicResult(Box<Expr>, Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    Le,
    Eq,
    Ne,
    Gt,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Cond {
    Lit(bool),
    Cmp(CmpOp, Expr, Expr),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
    Not(Box<Cond>),
    /// `Gpu.any c` / `Gpu.all c`.
    Any(Box<Cond>),
    All(Box<Cond>),
}

impl Program {
    /// The `.sk` source.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for (i, f) in self.functions.iter().enumerate() {
            let params: Vec<String> = f
                .params
                .iter()
                .map(|p| match p {
                    Param::Int(x) => format!("({x} : int32)"),
                    Param::Ref(x) => format!("({x} : int32 ref)"),
                    Param::Array(x) => format!("({x} : int32 array)"),
                })
                .collect();
            let params = if params.is_empty() { "()".to_string() } else { params.join(" ") };
            let _ = writeln!(out, "let f{i} {params} : int32 =");
            render_block_then(&f.body, &format!("({})", expr(&f.result)), 1, &mut out);
            out.push('\n');
        }
        out.push_str(
            "kernel k (input : int32 vector) (out : int32 vector) (acc : int32 vector) (n : int32) (u : int32) =\n",
        );
        out.push_str("  let%shared (sh : int32) = 1024 in\n");
        out.push_str("  sh.(thread_idx_x) <- 0;\n  Gpu.block_barrier;\n");
        out.push_str("  let v = mut input.(global_idx) in\n");
        render_block_then(&self.kernel, "out.(global_idx) <- v", 1, &mut out);
        out
    }
}

fn indent(depth: usize) -> String {
    "  ".repeat(depth)
}

/// A block followed by a final expression (the block's `let`s scope over it).
fn render_block_then(block: &Block, last: &str, depth: usize, out: &mut String) {
    for s in block {
        stmt(s, depth, out);
    }
    let _ = writeln!(out, "{}{last}", indent(depth));
}

/// A block as a unit expression (inside `begin ... end`, a loop, a superstep).
fn render_block(block: &Block, depth: usize, out: &mut String) {
    render_block_then(block, "()", depth, out);
}

fn stmt(s: &Stmt, depth: usize, out: &mut String) {
    let pad = indent(depth);
    match s {
        Stmt::Let { name, mutable, value } => {
            let m = if *mutable { "mut " } else { "" };
            let _ = writeln!(out, "{pad}let {name} = {m}{} in", expr(value));
        }
        Stmt::LetRef { name, value } => {
            let _ = writeln!(out, "{pad}let {name} = ref {} in", atom(value));
        }
        Stmt::Assign { name, value } => {
            let _ = writeln!(out, "{pad}{name} := {};", expr(value));
        }
        Stmt::If { cond: c, then, other } => {
            let _ = writeln!(out, "{pad}if {} then begin", cond(c));
            render_block(then, depth + 1, out);
            if other.is_empty() {
                let _ = writeln!(out, "{pad}end;");
            } else {
                let _ = writeln!(out, "{pad}end else begin");
                render_block(other, depth + 1, out);
                let _ = writeln!(out, "{pad}end;");
            }
        }
        Stmt::For { var, from, to, body } => {
            let _ = writeln!(out, "{pad}for {var} = {} to {} do", expr(from), expr(to));
            render_block(body, depth + 1, out);
            let _ = writeln!(out, "{pad}done;");
        }
        Stmt::While { counter, bound, body } => {
            let _ = writeln!(out, "{pad}let {counter} = mut 0 in");
            let _ = writeln!(out, "{pad}while {counter} < {} do", atom(bound));
            let _ = writeln!(out, "{pad}  {counter} := {counter} + 1;");
            render_block(body, depth + 1, out);
            let _ = writeln!(out, "{pad}done;");
        }
        Stmt::Barrier => {
            let _ = writeln!(out, "{pad}Gpu.block_barrier;");
        }
        Stmt::WarpBarrier => {
            let _ = writeln!(out, "{pad}Gpu.warp_barrier;");
        }
        Stmt::Superstep { divergent, body } => {
            let d = if *divergent { " ~divergent" } else { "" };
            let _ = writeln!(out, "{pad}superstep{d} {{");
            render_block(body, depth + 1, out);
            let _ = writeln!(out, "{pad}}};");
        }
        Stmt::SharedStore { array, index, value } => {
            let _ = writeln!(out, "{pad}{array}.({} land 1023) <- {};", atom(index), expr(value));
        }
        Stmt::Atomic { index, value } => {
            let _ = writeln!(out, "{pad}let _ = atomic_add acc ({} land 15) {} in", atom(index), atom(value));
        }
        Stmt::Call { target, function, args } => {
            let args: Vec<String> = args
                .iter()
                .map(|a| match a {
                    CallArg::Value(e) => atom(e),
                    CallArg::Ref(r) | CallArg::Array(r) => r.clone(),
                })
                .collect();
            let call =
                if args.is_empty() { format!("f{function} ()") } else { format!("f{function} {}", args.join(" ")) };
            match target {
                Some(x) => {
                    let _ = writeln!(out, "{pad}{x} := {call};");
                }
                None => {
                    let _ = writeln!(out, "{pad}let _ = {call} in");
                }
            }
        }
        Stmt::Return(None) => {
            let _ = writeln!(out, "{pad}return;");
        }
        Stmt::Return(Some(e)) => {
            let _ = writeln!(out, "{pad}return ({});", expr(e));
        }
        Stmt::Break => {
            let _ = writeln!(out, "{pad}break;");
        }
        Stmt::Continue => {
            let _ = writeln!(out, "{pad}continue;");
        }
    }
}

/// An expression in parentheses unless it is already an atom.
fn atom(e: &Expr) -> String {
    match e {
        Expr::Lit(v) if *v >= 0 => v.to_string(),
        Expr::Var(_) | Expr::Name(_) => expr(e),
        _ => format!("({})", expr(e)),
    }
}

pub fn expr(e: &Expr) -> String {
    match e {
        Expr::Lit(v) => v.to_string(),
        Expr::Var(x) => x.clone(),
        Expr::Deref(r) => format!("!{r}"),
        Expr::Name(n) => n.to_string(),
        Expr::Bin(op, a, b) => {
            let (a, b) = (atom(a), atom(b));
            match op {
                BinOp::Add => format!("{a} + {b}"),
                BinOp::Sub => format!("{a} - {b}"),
                BinOp::Mul => format!("{a} * {b}"),
                BinOp::Div => format!("{a} / {b}"),
                BinOp::Mod => format!("{a} mod {b}"),
                BinOp::And => format!("{a} land {b}"),
                BinOp::Or => format!("{a} lor {b}"),
                BinOp::Xor => format!("{a} lxor {b}"),
                BinOp::Min => format!("min {a} {b}"),
                BinOp::Max => format!("max {a} {b}"),
            }
        }
        Expr::Input => "input.(global_idx)".into(),
        Expr::SharedLoad(a, i) => format!("{a}.({} land 1023)", atom(i)),
        Expr::UniformLoad(a, i) => format!("uniform_load {a} ({} land 1023)", atom(i)),
        Expr::Shuffle(kind, v, lane) => {
            let name = match kind {
                Shuffle::Idx => "shfl",
                Shuffle::Down => "shfl_down",
                Shuffle::Up => "shfl_up",
                Shuffle::Xor => "shfl_xor",
            };
            format!("Gpu.{name} {} {}", atom(v), atom(lane))
        }
        Expr::Ballot(c) => format!("int32 (Gpu.ballot ({}))", cond(c)),
        Expr::Select(c, a, b) => format!("select ({}) {} {}", cond(c), atom(a), atom(b)),
        Expr::ActiveMask => "int32 Gpu.activemask".into(),
        Expr::AtomicResult(i, v) => format!("atomic_add acc ({} land 15) {}", atom(i), atom(v)),
    }
}

pub fn cond(c: &Cond) -> String {
    match c {
        Cond::Lit(b) => b.to_string(),
        Cond::Cmp(op, a, b) => {
            let op = match op {
                CmpOp::Lt => "<",
                CmpOp::Le => "<=",
                CmpOp::Eq => "=",
                CmpOp::Ne => "<>",
                CmpOp::Gt => ">",
            };
            format!("{} {op} {}", atom(a), atom(b))
        }
        Cond::And(a, b) => format!("({}) && ({})", cond(a), cond(b)),
        Cond::Or(a, b) => format!("({}) || ({})", cond(a), cond(b)),
        Cond::Not(a) => format!("not ({})", cond(a)),
        Cond::Any(a) => format!("Gpu.any ({})", cond(a)),
        Cond::All(a) => format!("Gpu.all ({})", cond(a)),
    }
}

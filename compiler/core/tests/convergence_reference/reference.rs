//! The reference the analysis is checked against: an interpreter that runs a program for one thread with real
//! values and records every barrier it reaches, with the chain of call sites that led there. Its semantics are the
//! emitted CUDA C's, written out: an int is copied; a `ref` parameter, `let q = r in` and a `ref` argument name the
//! caller's cell (C++ references); an array parameter, `let b = a in` and an array chosen by `if` name the caller's
//! array (pointers); `ref e` as an argument makes a new cell. Loop-free programs, so every run ends.

use super::program::{Arg, Cond, Expr, Function, Program, Source, Stmt};

/// One thread: its index in the block (`block_dim_x` = 64, two warps), its block, and the kernel's `n`.
#[derive(Clone, Copy, Debug)]
pub struct Thread {
    pub tid: i32,
    pub block: i32,
    pub n: i32,
}

/// A barrier reached: which one (its id), whether it is a block barrier (else a warp barrier), and the call sites
/// on the way (two calls of one function reach different instances).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub barrier: usize,
    pub block: bool,
    pub path: Vec<usize>,
}

#[derive(Clone, Copy, Debug)]
enum Val {
    Int(i32),
    Cell(usize),
    Array(usize),
}

enum Flow {
    Next,
    Return(Option<i32>),
}

struct Machine<'p> {
    program: &'p Program,
    thread: Thread,
    cells: Vec<i32>,
    arrays: Vec<[i32; 4]>,
    events: Vec<Event>,
    path: Vec<usize>,
}

type Env = Vec<(String, Val)>;

/// The barriers `thread` reaches running `program`, in order.
pub fn run(program: &Program, thread: Thread) -> Vec<Event> {
    let mut machine =
        Machine { program, thread, cells: Vec::new(), arrays: Vec::new(), events: Vec::new(), path: Vec::new() };
    let mut env = Env::new();
    machine.block(&program.kernel, &mut env);
    machine.events
}

impl Machine<'_> {
    fn lookup(&self, env: &Env, name: &str) -> Val {
        env.iter().rev().find(|(n, _)| n == name).map(|(_, v)| *v).unwrap_or_else(|| panic!("unbound {name}"))
    }

    fn block(&mut self, stmts: &[Stmt], env: &mut Env) -> Flow {
        let mark = env.len();
        let flow = self.stmts(stmts, env);
        env.truncate(mark);
        flow
    }

    fn stmts(&mut self, stmts: &[Stmt], env: &mut Env) -> Flow {
        for stmt in stmts {
            if let Flow::Return(value) = self.stmt(stmt, env) {
                return Flow::Return(value);
            }
        }
        Flow::Next
    }

    fn stmt(&mut self, stmt: &Stmt, env: &mut Env) -> Flow {
        match stmt {
            Stmt::Assign(x, e) => {
                let v = self.eval(e, env);
                let slot = env.iter_mut().rev().find(|(n, _)| n == x).expect("assigned variable");
                slot.1 = Val::Int(v);
            }
            Stmt::Store(r, e) => {
                let v = self.eval(e, env);
                let Val::Cell(c) = self.lookup(env, r) else { panic!("{r} is not a cell") };
                self.cells[c] = v;
            }
            Stmt::ElemStore(a, i, v) => {
                let (i, v) = (self.eval(i, env), self.eval(v, env));
                let Val::Array(id) = self.lookup(env, a) else { panic!("{a} is not an array") };
                self.arrays[id][(i & 3) as usize] = v;
            }
            Stmt::If(c, then_block, else_block) => {
                let taken = if self.cond(c, env) { then_block } else { else_block };
                return self.block(taken, env);
            }
            Stmt::Call { function, args, site } => {
                self.call(*function, args, *site, env);
            }
            Stmt::AssignCall { var, function, args, site } => {
                let v = self.call(*function, args, *site, env);
                let slot = env.iter_mut().rev().find(|(n, _)| n == var).expect("assigned variable");
                slot.1 = Val::Int(v);
            }
            Stmt::Barrier(id) => self.events.push(Event { barrier: *id, block: true, path: self.path.clone() }),
            Stmt::WarpBarrier(id) => self.events.push(Event { barrier: *id, block: false, path: self.path.clone() }),
            Stmt::LetMut(x, e) => {
                let v = self.eval(e, env);
                env.push((x.clone(), Val::Int(v)));
            }
            Stmt::LetCell(r, e) => {
                let v = self.eval(e, env);
                self.cells.push(v);
                env.push((r.clone(), Val::Cell(self.cells.len() - 1)));
            }
            Stmt::LetCellAlias(q, r) | Stmt::LetArrayAlias(q, r) => {
                let v = self.lookup(env, r);
                env.push((q.clone(), v));
            }
            Stmt::LetArrayChoice(b, c, a1, a2) => {
                let chosen = if self.cond(c, env) { a1 } else { a2 };
                let v = self.lookup(env, chosen);
                env.push((b.clone(), v));
            }
            Stmt::LetArray(a) => {
                self.arrays.push([0; 4]);
                env.push((a.clone(), Val::Array(self.arrays.len() - 1)));
            }
            Stmt::Return(value) => {
                let v = value.as_ref().map(|e| self.eval(e, env));
                return Flow::Return(v);
            }
            Stmt::Out(e) => {
                self.eval(e, env);
            }
        }
        Flow::Next
    }

    /// Calls `function` (its result, 0 for a unit function).
    fn call(&mut self, function: usize, args: &[Arg], site: usize, env: &Env) -> i32 {
        let program = self.program;
        let f: &Function = &program.functions[function];
        let mut callee = Env::new();
        for ((name, _), arg) in f.params.iter().zip(args) {
            let value = match arg {
                Arg::Int(e) => Val::Int(self.eval(e, env)),
                Arg::Cell(r) | Arg::Array(r) => self.lookup(env, r),
                Arg::FreshCell(e) => {
                    let v = self.eval(e, env);
                    self.cells.push(v);
                    Val::Cell(self.cells.len() - 1)
                }
                Arg::ChosenArray(c, a1, a2) => {
                    let chosen = if self.cond(c, env) { a1 } else { a2 };
                    self.lookup(env, chosen)
                }
            };
            callee.push((name.clone(), value));
        }
        self.path.push(site);
        let result = match self.stmts(&f.body, &mut callee) {
            Flow::Return(value) => value.unwrap_or(0),
            Flow::Next => f.result.as_ref().map(|e| self.eval(e, &callee)).unwrap_or(0),
        };
        self.path.pop();
        result
    }

    fn cond(&mut self, c: &Cond, env: &Env) -> bool {
        match c {
            Cond::Lt(a, b) => self.eval(a, env) < self.eval(b, env),
            Cond::Eq(a, b) => self.eval(a, env) == self.eval(b, env),
            Cond::And(a, b) => self.cond(a, env) && self.cond(b, env),
        }
    }

    fn eval(&self, e: &Expr, env: &Env) -> i32 {
        match e {
            Expr::Lit(v) => *v,
            Expr::Source(Source::ThreadIdx) => self.thread.tid,
            Expr::Source(Source::LaneId) => self.thread.tid % 32,
            Expr::Source(Source::WarpId) => self.thread.tid / 32,
            Expr::Source(Source::BlockIdx) => self.thread.block,
            Expr::Source(Source::N) => self.thread.n,
            Expr::Var(x) => match self.lookup(env, x) {
                Val::Int(v) => v,
                other => panic!("{x} is {other:?}, not an int"),
            },
            Expr::Deref(r) => match self.lookup(env, r) {
                Val::Cell(c) => self.cells[c],
                other => panic!("{r} is {other:?}, not a cell"),
            },
            Expr::Elem(a, i) => {
                let i = self.eval(i, env);
                match self.lookup(env, a) {
                    Val::Array(id) => self.arrays[id][(i & 3) as usize],
                    other => panic!("{a} is {other:?}, not an array"),
                }
            }
            Expr::Add(a, b) => self.eval(a, env).wrapping_add(self.eval(b, env)),
            Expr::Sub(a, b) => self.eval(a, env).wrapping_sub(self.eval(b, env)),
            Expr::Mul(a, b) => self.eval(a, env).wrapping_mul(self.eval(b, env)),
        }
    }
}

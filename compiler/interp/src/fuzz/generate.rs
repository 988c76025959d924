//! Random well-typed kernels, deterministic from a seed: nested `if`, `for` and `while` with uniform,
//! warp-uniform and thread-varying conditions, early exits, mutable variables and `ref` cells, device functions
//! with value, `ref` and array parameters, supersteps, barriers, shuffles, votes, atomics and shared memory.
//!
//! The generator tracks the uniformity it means each value and each region of control flow to have (uniform,
//! warp-uniform, thread-varying) and places barriers and collectives where that makes them legal, except for a
//! share of deliberate mistakes ([`Config::mistakes`]): so most programs are accepted by the analysis and a fair
//! share rejected, some of which never diverge (the precision figure). Every loop is bounded and every division
//! is by a positive literal, so runs end and stay in bounds.

use super::program::*;
use crate::launch::Rng;

#[derive(Clone, Debug)]
pub struct Config {
    /// Deepest nesting of blocks.
    pub max_depth: usize,
    /// Most statements in one block.
    pub max_statements: usize,
    /// Most device functions.
    pub max_functions: usize,
    /// Chance that a barrier or collective is placed where the generator expects it to be rejected.
    pub mistakes: f64,
    /// Leave out what the GPU computes in an order the interpreter does not model (the values atomics return,
    /// `activemask`), so that a race-free program gives the same results on both.
    pub deterministic: bool,
    /// Shapes of known holes of the convergence analysis not to generate (each has a UI test in
    /// `compiler/interp/tests/ui/` showing it; remove it from here when the analysis is fixed).
    pub avoid: Vec<Hole>,
}

/// A shape of program the convergence analysis is known to accept wrongly (each found by this generator): none is
/// known now. A new one gets a variant here, a UI test in `compiler/interp/tests/ui/`, and a check in the
/// generator where the shape is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hole {}

impl Config {
    /// The configuration of the CI slice: every shape but the known holes.
    pub fn without_known_holes() -> Config {
        Config { avoid: vec![], ..Config::default() }
    }
}

impl Default for Config {
    fn default() -> Config {
        Config {
            max_depth: 3,
            max_statements: 5,
            max_functions: 2,
            mistakes: 0.06,
            deterministic: false,
            avoid: Vec::new(),
        }
    }
}

/// How uniform a value or a region of control flow is meant to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Uniform,
    Warp,
    Thread,
}

#[derive(Clone, Debug)]
struct Var {
    name: String,
    level: Level,
    mutable: bool,
    is_ref: bool,
}

/// What a call of a generated function needs and gives.
#[derive(Clone, Debug)]
struct Signature {
    params: Vec<(ParamKind, Level)>,
    /// The most divergent control it may be called from (it contains barriers: uniform; collectives: warp).
    call_level: Level,
    result: Level,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ParamKind {
    Int,
    Ref,
    Array,
}

#[derive(Clone, Debug)]
struct Scope {
    vars: Vec<Var>,
    arrays: Vec<String>,
    control: Level,
    /// Inside a loop's body (of this function).
    in_loop: bool,
    depth: usize,
    in_function: bool,
    /// Inside a superstep body (no barriers or exits there).
    in_superstep: bool,
    /// No barrier or collective at all here, not even as a mistake (a known hole's shape).
    calm: bool,
}

struct Generator {
    rng: Rng,
    config: Config,
    next_name: usize,
    signatures: Vec<Signature>,
    /// Taint of the current function from exits (`return`) under divergent conditions.
    function_taint: Level,
    /// The strictest control a barrier or collective in the current function was placed in.
    needs: Level,
    /// For each loop being generated, innermost last: its taint from `break` and `continue` under divergent
    /// conditions (which also holds in loops nested in it: threads that left do not come back for them).
    loop_taints: Vec<Level>,
}

/// The program of `seed`.
pub fn generate(seed: u64, config: &Config) -> Program {
    let mut g = Generator {
        rng: Rng::new(seed),
        config: config.clone(),
        next_name: 0,
        signatures: Vec::new(),
        function_taint: Level::Uniform,
        needs: Level::Thread,
        loop_taints: Vec::new(),
    };
    let count = g.below(config.max_functions as u64 + 1) as usize;
    let mut functions = Vec::new();
    for _ in 0..count {
        functions.push(g.function());
    }
    g.function_taint = Level::Uniform;
    let kernel_vars = vec![Var { name: "v".into(), level: Level::Thread, mutable: true, is_ref: false }];
    let scope = Scope {
        vars: kernel_vars,
        arrays: vec!["sh".into()],
        control: Level::Uniform,
        in_loop: false,
        depth: 0,
        in_function: false,
        in_superstep: false,
        calm: false,
    };
    let kernel = g.block(scope);
    Program { functions, kernel }
}

impl Generator {
    fn below(&mut self, n: u64) -> u64 {
        self.rng.below(n.max(1))
    }

    fn chance(&mut self, p: f64) -> bool {
        (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next_name += 1;
        format!("{prefix}{}", self.next_name)
    }

    fn level(&mut self) -> Level {
        match self.below(20) {
            0..=8 => Level::Uniform,
            9..=12 => Level::Warp,
            _ => Level::Thread,
        }
    }

    /// May a barrier (`need` = uniform) or collective (`need` = warp) go here (or as a mistake)?
    fn may_sync(&mut self, scope: &Scope, need: Level) -> bool {
        !scope.calm && (self.effective(scope) <= need || self.chance(self.config.mistakes))
    }

    fn effective(&self, scope: &Scope) -> Level {
        let loops = self.loop_taints.iter().copied().max().unwrap_or(Level::Uniform);
        scope.control.max(self.function_taint).max(loops)
    }

    // --- functions ---------------------------------------------------------------------------------------

    fn function(&mut self) -> Function {
        let mut params = Vec::new();
        let mut signature = Vec::new();
        let mut vars = Vec::new();
        let mut arrays = Vec::new();
        for _ in 0..self.below(4) {
            let name = self.fresh("p");
            let (kind, level) = match self.below(6) {
                0..=2 => (ParamKind::Int, if self.chance(0.5) { Level::Uniform } else { Level::Thread }),
                3 | 4 => (ParamKind::Ref, if self.chance(0.5) { Level::Uniform } else { Level::Thread }),
                _ => (ParamKind::Array, Level::Thread),
            };
            match kind {
                ParamKind::Int => {
                    params.push(Param::Int(name.clone()));
                    vars.push(Var { name, level, mutable: false, is_ref: false });
                }
                ParamKind::Ref => {
                    params.push(Param::Ref(name.clone()));
                    vars.push(Var { name, level, mutable: true, is_ref: true });
                }
                ParamKind::Array => {
                    params.push(Param::Array(name.clone()));
                    arrays.push(name);
                }
            }
            signature.push((kind, level));
        }
        self.function_taint = Level::Uniform;
        self.needs = Level::Thread;
        let scope = Scope {
            vars,
            arrays,
            control: Level::Uniform,
            in_loop: false,
            depth: 1,
            in_function: true,
            in_superstep: false,
            calm: false,
        };
        let body = self.block(scope.clone());
        let (result, level) = self.expr(&scope, Level::Thread, 2);
        let result_level = level.max(self.function_taint).max(Level::Warp);
        self.signatures.push(Signature { params: signature, call_level: self.needs, result: result_level });
        Function { params, body, result }
    }

    // --- statements ------------------------------------------------------------------------------------------

    fn block(&mut self, mut scope: Scope) -> Block {
        let count = 1 + self.below(self.config.max_statements as u64) as usize;
        let mut out = Vec::new();
        for _ in 0..count {
            if let Some(s) = self.statement(&mut scope) {
                out.push(s);
            }
        }
        out
    }

    fn nested(&self, scope: &Scope, control: Level) -> Scope {
        Scope { control: scope.control.max(control), depth: scope.depth + 1, ..scope.clone() }
    }

    fn statement(&mut self, scope: &mut Scope) -> Option<Stmt> {
        let deep = scope.depth >= self.config.max_depth;
        let control = self.effective(scope);
        match self.below(24) {
            0..=2 => Some(self.let_stmt(scope)),
            3..=5 => self.assign(scope, control),
            6..=8 if !deep => Some(self.if_stmt(scope)),
            9 if !deep && !scope.in_superstep => Some(self.for_stmt(scope)),
            10 if !deep && !scope.in_superstep => Some(self.while_stmt(scope)),
            11 | 12 if !scope.in_superstep => self.barrier(scope),
            13 if !deep && !scope.in_superstep => self.superstep(scope),
            14 | 15 => self.collective(scope, control),
            16 if !scope.in_function => {
                let (index, _) = self.expr(scope, Level::Thread, 2);
                let (value, _) = self.expr(scope, Level::Thread, 1);
                Some(Stmt::Atomic { index, value })
            }
            17 | 18 if !scope.arrays.is_empty() => {
                let array = scope.arrays[self.below(scope.arrays.len() as u64) as usize].clone();
                let index =
                    if self.chance(0.6) { Expr::Name("thread_idx_x") } else { self.expr(scope, Level::Thread, 2).0 };
                let (value, _) = self.expr(scope, Level::Thread, 2);
                Some(Stmt::SharedStore { array, index, value })
            }
            19 if !scope.in_superstep => self.call(scope, control),
            20 if !scope.in_superstep => Some(self.exit(scope)),
            _ => self.assign(scope, control),
        }
    }

    fn barrier(&mut self, scope: &Scope) -> Option<Stmt> {
        if !self.may_sync(scope, Level::Uniform) {
            return None;
        }
        self.needs = Level::Uniform;
        Some(Stmt::Barrier)
    }

    fn let_stmt(&mut self, scope: &mut Scope) -> Stmt {
        let level = self.level();
        let (value, level) = self.expr(scope, level, 2);
        let level = level.max(self.effective(scope));
        match self.below(3) {
            0 => {
                let name = self.fresh("r");
                scope.vars.push(Var { name: name.clone(), level, mutable: true, is_ref: true });
                Stmt::LetRef { name, value }
            }
            k => {
                let name = self.fresh("x");
                let mutable = k == 1;
                scope.vars.push(Var { name: name.clone(), level, mutable, is_ref: false });
                Stmt::Let { name, mutable, value }
            }
        }
    }

    /// `x := e` for a variable at least as varying as the value and the control flow.
    fn assign(&mut self, scope: &Scope, control: Level) -> Option<Stmt> {
        let candidates: Vec<&Var> = scope.vars.iter().filter(|v| v.mutable && v.level >= control).collect();
        if candidates.is_empty() {
            return None;
        }
        let var = candidates[self.below(candidates.len() as u64) as usize].clone();
        // A mistake now and then: a more varying value than the variable is believed to hold.
        let level = if self.chance(self.config.mistakes) { Level::Thread } else { var.level };
        let (value, _) = self.expr(scope, level, 2);
        Some(Stmt::Assign { name: var.name, value })
    }

    fn if_stmt(&mut self, scope: &Scope) -> Stmt {
        let level = self.level();
        let (cond, level) = self.cond(scope, level, 2);
        let inner = self.nested(scope, level);
        let then = self.block(inner.clone());
        let other = if self.chance(0.4) { self.block(inner) } else { Vec::new() };
        Stmt::If { cond, then, other }
    }

    fn for_stmt(&mut self, scope: &Scope) -> Stmt {
        let level = self.level();
        let (from, l1) = self.small(scope, level);
        let (span, l2) = self.small(scope, level);
        let to = Expr::Bin(BinOp::Add, Box::new(from.clone()), Box::new(span));
        let level = l1.max(l2);
        let var = self.fresh("i");
        let mut inner = self.loop_scope(scope, level);
        inner.vars.push(Var {
            name: var.clone(),
            level: level.max(self.effective(scope)),
            mutable: false,
            is_ref: false,
        });
        let body = self.loop_body(inner);
        Stmt::For { var, from, to, body }
    }

    fn while_stmt(&mut self, scope: &Scope) -> Stmt {
        let level = self.level();
        // The condition is evaluated again in each iteration by the threads still in the loop only: a barrier or
        // collective in it needs the loop's own level, like one in the body.
        let bound_scope = Scope { control: scope.control.max(level), ..scope.clone() };
        let (bound, level) = self.small(&bound_scope, level);
        let counter = self.fresh("c");
        let mut inner = self.loop_scope(scope, level);
        inner.vars.push(Var {
            name: counter.clone(),
            level: level.max(self.effective(scope)),
            mutable: false,
            is_ref: false,
        });
        let body = self.loop_body(inner);
        Stmt::While { counter, bound, body }
    }

    /// The scope of a loop's body: nested, and still tainted by the enclosing loop's divergent exits (threads
    /// that left an enclosing iteration do not come back for a nested loop).
    fn loop_scope(&self, scope: &Scope, level: Level) -> Scope {
        let mut inner = self.nested(scope, level);
        inner.in_loop = true;
        inner
    }

    /// Generates a loop's body with its own taint on the stack.
    fn loop_body(&mut self, inner: Scope) -> Block {
        self.loop_taints.push(Level::Uniform);
        let body = self.block(inner);
        self.loop_taints.pop();
        body
    }

    /// A small non-negative count (0 to 3) at about `level`.
    fn small(&mut self, scope: &Scope, level: Level) -> (Expr, Level) {
        let (e, l) = self.expr(scope, level, 1);
        (Expr::Bin(BinOp::And, Box::new(e), Box::new(Expr::Lit(3))), l)
    }

    fn superstep(&mut self, scope: &Scope) -> Option<Stmt> {
        if !self.may_sync(scope, Level::Uniform) {
            return None;
        }
        self.needs = Level::Uniform;
        let divergent = self.chance(0.4);
        let mut inner = self.nested(scope, Level::Uniform);
        inner.in_superstep = true;
        let body = if divergent {
            self.block(inner)
        } else {
            // A plain superstep: stores only (straight-line code).
            let array = scope.arrays.first().cloned()?;
            let mut body = Vec::new();
            for _ in 0..1 + self.below(3) {
                let (value, _) = self.expr(&inner, Level::Thread, 2);
                body.push(Stmt::SharedStore { array: array.clone(), index: Expr::Name("thread_idx_x"), value });
            }
            body
        };
        Some(Stmt::Superstep { divergent, body })
    }

    fn collective(&mut self, scope: &mut Scope, control: Level) -> Option<Stmt> {
        if !self.may_sync(scope, Level::Warp) {
            return None;
        }
        self.needs = self.needs.min(Level::Warp);
        let target = scope.vars.iter().filter(|v| v.mutable && v.level >= Level::Thread.max(control)).count();
        match self.below(4) {
            0 => Some(Stmt::WarpBarrier),
            1 => {
                // `if Gpu.any c then ...`: warp-uniform control.
                let (c, _) = self.cond(scope, Level::Thread, 1);
                let cond = if self.chance(0.5) { Cond::Any(Box::new(c)) } else { Cond::All(Box::new(c)) };
                let inner = self.nested(scope, Level::Warp);
                let then = self.block(inner);
                Some(Stmt::If { cond, then, other: Vec::new() })
            }
            _ if target > 0 => {
                let vars: Vec<Var> =
                    scope.vars.iter().filter(|v| v.mutable && v.level >= Level::Thread.max(control)).cloned().collect();
                let var = vars[self.below(vars.len() as u64) as usize].clone();
                let value = if var.is_ref { Expr::Deref(var.name.clone()) } else { Expr::Var(var.name.clone()) };
                let shuffle = self.shuffle(scope, value);
                let sum = Expr::Bin(
                    BinOp::Add,
                    Box::new(if var.is_ref { Expr::Deref(var.name.clone()) } else { Expr::Var(var.name.clone()) }),
                    Box::new(shuffle),
                );
                Some(Stmt::Assign { name: var.name, value: sum })
            }
            _ => Some(Stmt::WarpBarrier),
        }
    }

    fn shuffle(&mut self, scope: &Scope, value: Expr) -> Expr {
        let (kind, lane) = match self.below(4) {
            0 => (Shuffle::Idx, if self.chance(0.5) { Expr::Lit(0) } else { self.expr(scope, Level::Thread, 1).0 }),
            1 => (Shuffle::Down, Expr::Lit(1 << self.below(5))),
            2 => (Shuffle::Up, Expr::Lit(1 << self.below(5))),
            _ => (Shuffle::Xor, Expr::Lit(1 << self.below(5))),
        };
        Expr::Shuffle(kind, Box::new(value), Box::new(lane))
    }

    fn call(&mut self, scope: &Scope, control: Level) -> Option<Stmt> {
        // While function i is generated, the signatures are those of functions 0 to i-1: no recursion.
        let available = self.signatures.len();
        if available == 0 {
            return None;
        }
        let function = self.below(available as u64) as usize;
        let signature = self.signatures[function].clone();
        if signature.call_level < Level::Thread && !self.may_sync(scope, signature.call_level) {
            return None;
        }
        self.needs = self.needs.min(signature.call_level);
        let mut args = Vec::new();
        for (kind, level) in &signature.params {
            match kind {
                ParamKind::Int => {
                    let want = if self.chance(self.config.mistakes) { Level::Thread } else { *level };
                    args.push(CallArg::Value(self.expr(scope, want, 2).0));
                }
                ParamKind::Ref => {
                    let refs: Vec<&Var> = scope.vars.iter().filter(|v| v.is_ref && v.level >= control).collect();
                    // The callee reads the cell as `level` and may write values as varying: the same level on
                    // both sides, except for a mistake.
                    let fitting: Vec<&&Var> = refs.iter().filter(|v| v.level == *level).collect();
                    let mistake = self.chance(self.config.mistakes);
                    let pick = if !fitting.is_empty() && !mistake {
                        fitting[self.below(fitting.len() as u64) as usize].name.clone()
                    } else if !refs.is_empty() {
                        refs[self.below(refs.len() as u64) as usize].name.clone()
                    } else {
                        return None;
                    };
                    args.push(CallArg::Ref(pick));
                }
                ParamKind::Array if !scope.arrays.is_empty() => {
                    let array = scope.arrays[self.below(scope.arrays.len() as u64) as usize].clone();
                    args.push(CallArg::Array(array));
                }
                ParamKind::Array => return None,
            }
        }
        let targets: Vec<&Var> =
            scope.vars.iter().filter(|v| v.mutable && !v.is_ref && v.level >= signature.result.max(control)).collect();
        let target = if !targets.is_empty() && self.chance(0.7) {
            Some(targets[self.below(targets.len() as u64) as usize].name.clone())
        } else {
            None
        };
        Some(Stmt::Call { target, function, args })
    }

    /// `if c then return` (or `break`, `continue` in a loop); taints what follows when `c` diverges.
    fn exit(&mut self, scope: &Scope) -> Stmt {
        let level = self.level();
        let (cond, level) = self.cond(scope, level, 1);
        let in_loop = scope.in_loop;
        let exit = match self.below(3) {
            0 if in_loop => Stmt::Break,
            1 if in_loop => Stmt::Continue,
            _ if scope.in_function => Stmt::Return(Some(self.expr(scope, Level::Thread, 1).0)),
            _ => Stmt::Return(None),
        };
        let level = level.max(self.effective(scope));
        match exit {
            Stmt::Return(_) => self.function_taint = self.function_taint.max(level),
            _ => {
                if let Some(taint) = self.loop_taints.last_mut() {
                    *taint = (*taint).max(level);
                }
            }
        }
        Stmt::If { cond, then: vec![exit], other: Vec::new() }
    }

    // --- expressions ----------------------------------------------------------------------------------------

    /// An expression at most about as varying as `max`; returns it and how varying it is meant to be.
    fn expr(&mut self, scope: &Scope, max: Level, depth: usize) -> (Expr, Level) {
        if depth == 0 || self.chance(0.35) {
            return self.leaf(scope, max);
        }
        let control = self.effective(scope);
        match self.below(12) {
            0..=6 => {
                let (a, la) = self.expr(scope, max, depth - 1);
                let (op, b, lb) = match self.below(10) {
                    0 => (BinOp::Div, Expr::Lit(1 + self.below(7) as i32), Level::Uniform),
                    1 => (BinOp::Mod, Expr::Lit(1 + self.below(7) as i32), Level::Uniform),
                    k => {
                        let op = [
                            BinOp::Add,
                            BinOp::Sub,
                            BinOp::Mul,
                            BinOp::And,
                            BinOp::Or,
                            BinOp::Xor,
                            BinOp::Min,
                            BinOp::Max,
                        ][(k - 2) as usize];
                        let (b, lb) = self.expr(scope, max, depth - 1);
                        (op, b, lb)
                    }
                };
                (Expr::Bin(op, Box::new(a), Box::new(b)), la.max(lb))
            }
            7 if max >= Level::Thread && !scope.arrays.is_empty() => {
                let array = scope.arrays[self.below(scope.arrays.len() as u64) as usize].clone();
                let (i, _) = self.expr(scope, Level::Thread, depth - 1);
                (Expr::SharedLoad(array, Box::new(i)), Level::Thread)
            }
            8 if control == Level::Uniform
                && !scope.calm
                && !scope.in_superstep
                && !scope.arrays.is_empty()
                && self.chance(0.5) =>
            {
                self.needs = Level::Uniform;
                let array = scope.arrays[self.below(scope.arrays.len() as u64) as usize].clone();
                let (i, _) = self.expr(scope, Level::Uniform, depth - 1);
                (Expr::UniformLoad(array, Box::new(i)), Level::Uniform)
            }
            9 if self.may_sync(scope, Level::Warp) => {
                self.needs = self.needs.min(Level::Warp);
                if self.chance(0.5) {
                    let (c, _) = self.cond(scope, Level::Thread, depth - 1);
                    (Expr::Ballot(Box::new(c)), Level::Warp)
                } else {
                    let (v, lv) = self.expr(scope, Level::Thread, depth - 1);
                    let shuffle = self.shuffle(scope, v);
                    let level = match &shuffle {
                        // Lane 0 and the lanes below a lane always exist; any other may not (a partial warp).
                        Expr::Shuffle(Shuffle::Idx, _, lane) if matches!(**lane, Expr::Lit(0)) => lv.min(Level::Warp),
                        Expr::Shuffle(Shuffle::Up, _, _) if lv <= Level::Warp => lv,
                        _ => Level::Thread,
                    };
                    (shuffle, level)
                }
            }
            10 => {
                let (c, lc) = self.cond(scope, max, depth - 1);
                let (a, la) = self.expr(scope, max, depth - 1);
                let (b, lb) = self.expr(scope, max, depth - 1);
                (Expr::Select(Box::new(c), Box::new(a), Box::new(b)), lc.max(la).max(lb))
            }
            11 if max >= Level::Thread && !self.config.deterministic => {
                if self.chance(0.5) || scope.in_function {
                    (Expr::ActiveMask, Level::Thread)
                } else {
                    let (i, _) = self.expr(scope, Level::Thread, depth - 1);
                    (Expr::AtomicResult(Box::new(i), Box::new(Expr::Lit(1))), Level::Thread)
                }
            }
            _ => self.leaf(scope, max),
        }
    }

    fn leaf(&mut self, scope: &Scope, max: Level) -> (Expr, Level) {
        let mut options: Vec<(Expr, Level)> = vec![
            (Expr::Lit(self.below(9) as i32 - 2), Level::Uniform),
            (Expr::Name("block_idx_x"), Level::Uniform),
            (Expr::Name("block_dim_x"), Level::Uniform),
        ];
        if !scope.in_function {
            options.extend([(Expr::Name("n"), Level::Uniform), (Expr::Name("u"), Level::Uniform)]);
        }
        if max >= Level::Warp {
            options.push((Expr::Name("warp_id"), Level::Warp));
        }
        if max >= Level::Thread {
            options.extend([
                (Expr::Name("thread_idx_x"), Level::Thread),
                (Expr::Name("lane_id"), Level::Thread),
                (Expr::Name("global_idx"), Level::Thread),
            ]);
            if !scope.in_function {
                options.push((Expr::Input, Level::Thread));
            }
        }
        for v in &scope.vars {
            if v.level <= max {
                let e = if v.is_ref { Expr::Deref(v.name.clone()) } else { Expr::Var(v.name.clone()) };
                options.push((e.clone(), v.level));
                options.push((e, v.level));
            }
        }
        let pick = self.below(options.len() as u64) as usize;
        options.swap_remove(pick)
    }

    fn cond(&mut self, scope: &Scope, max: Level, depth: usize) -> (Cond, Level) {
        match self.below(10) {
            0 if depth > 0 => {
                let (a, la) = self.cond(scope, max, depth - 1);
                let (b, lb) = self.cond(scope, max, depth - 1);
                (Cond::And(Box::new(a), Box::new(b)), la.max(lb))
            }
            1 if depth > 0 => {
                let (a, la) = self.cond(scope, max, depth - 1);
                let (b, lb) = self.cond(scope, max, depth - 1);
                (Cond::Or(Box::new(a), Box::new(b)), la.max(lb))
            }
            2 if depth > 0 => {
                let (a, la) = self.cond(scope, max, depth - 1);
                (Cond::Not(Box::new(a)), la)
            }
            3 if depth > 0 && max >= Level::Warp && self.may_sync(scope, Level::Warp) => {
                self.needs = self.needs.min(Level::Warp);
                let (a, _) = self.cond(scope, Level::Thread, depth - 1);
                let vote = if self.chance(0.5) { Cond::Any(Box::new(a)) } else { Cond::All(Box::new(a)) };
                (vote, Level::Warp)
            }
            _ => {
                let (a, la) = self.expr(scope, max, 1);
                let (b, lb) = self.expr(scope, max, 1);
                let op = [CmpOp::Lt, CmpOp::Le, CmpOp::Eq, CmpOp::Ne, CmpOp::Gt][self.below(5) as usize];
                (Cond::Cmp(op, a, b), la.max(lb))
            }
        }
    }
}

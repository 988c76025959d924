//! The programs of the property test: a small loop-free language (int variables, `ref` cells, local arrays, device
//! functions with value, `ref` and array parameters, aliases, arrays chosen by `if`, early returns, block and warp
//! barriers), a random generator of well-typed programs, and the printer to `.sk` text that records where each
//! barrier is.

/// A deterministic random source (SplitMix64): the same seed gives the same programs on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'v, T>(&mut self, items: &'v [T]) -> Option<&'v T> {
        if items.is_empty() {
            None
        } else {
            Some(&items[self.below(items.len())])
        }
    }
}

/// Where a thread-dependent (or uniform) input comes from.
#[derive(Clone, Copy, Debug)]
pub enum Source {
    ThreadIdx,
    LaneId,
    WarpId,
    BlockIdx,
    /// The kernel's scalar parameter `n` (uniform).
    N,
}

#[derive(Clone, Debug)]
pub enum Expr {
    Lit(i32),
    Source(Source),
    Var(String),
    Deref(String),
    /// `a.((i) land 3)`.
    Elem(String, Box<Expr>),
    Add(Box<Expr>, Box<Expr>),
    Sub(Box<Expr>, Box<Expr>),
    Mul(Box<Expr>, Box<Expr>),
}

#[derive(Clone, Debug)]
pub enum Cond {
    Lt(Expr, Expr),
    Eq(Expr, Expr),
    And(Box<Cond>, Box<Cond>),
}

#[derive(Clone, Debug)]
pub enum Arg {
    Int(Expr),
    Cell(String),
    /// `(ref e)`: a cell made for the call.
    FreshCell(Expr),
    Array(String),
    /// `(if c then a1 else a2)`.
    ChosenArray(Cond, String, String),
}

#[derive(Clone, Debug)]
pub enum Stmt {
    Assign(String, Expr),
    Store(String, Expr),
    ElemStore(String, Expr, Expr),
    If(Cond, Vec<Stmt>, Vec<Stmt>),
    /// A call of a unit function at call site `site`.
    Call {
        function: usize,
        args: Vec<Arg>,
        site: usize,
    },
    /// `x := h args` for an int function.
    AssignCall {
        var: String,
        function: usize,
        args: Vec<Arg>,
        site: usize,
    },
    Barrier(usize),
    WarpBarrier(usize),
    /// `let x = mut e in` (the rest of the block is its scope).
    LetMut(String, Expr),
    LetCell(String, Expr),
    /// `let q = r in` for a cell.
    LetCellAlias(String, String),
    /// `let b = a in` for an array.
    LetArrayAlias(String, String),
    /// `let b = if c then a1 else a2 in`.
    LetArrayChoice(String, Cond, String, String),
    /// `let%local (a : int32) = 4 in` followed by the stores of its four elements.
    LetArray(String),
    Return(Option<Expr>),
    /// `out.(global_idx) <- e` (kernel only).
    Out(Expr),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    Int,
    Cell,
    Array,
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub params: Vec<(String, ParamKind)>,
    /// `Some(e)`: returns int32, the body followed by `e`.
    pub result: Option<Expr>,
    pub body: Vec<Stmt>,
}

#[derive(Clone, Debug)]
pub struct Program {
    pub functions: Vec<Function>,
    pub kernel: Vec<Stmt>,
}

/// The names visible at a point, by kind.
#[derive(Clone, Default)]
struct Scope {
    /// Int variables that can be read, and which of them are `mut`.
    ints: Vec<String>,
    muts: Vec<String>,
    cells: Vec<String>,
    arrays: Vec<String>,
    in_kernel: bool,
    /// The function being generated returns int32.
    returns_int: bool,
}

/// Generates programs.
pub struct Generator<'r> {
    rng: &'r mut Rng,
    next_name: usize,
    next_barrier: usize,
    next_site: usize,
    /// The functions generated so far (a function calls only earlier ones: no recursion).
    functions: Vec<Function>,
}

impl<'r> Generator<'r> {
    pub fn new(rng: &'r mut Rng) -> Generator<'r> {
        Generator { rng, next_name: 0, next_barrier: 0, next_site: 0, functions: Vec::new() }
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.next_name += 1;
        format!("{prefix}{}", self.next_name)
    }

    pub fn program(mut self) -> Program {
        let count = 1 + self.rng.below(3);
        for index in 0..count {
            let function = self.function(index);
            self.functions.push(function);
        }
        let mut scope = Scope { in_kernel: true, ..Scope::default() };
        let mut kernel = Vec::new();
        for _ in 0..2 {
            let x = self.fresh("x");
            let init = self.expr(&scope, 2);
            kernel.push(Stmt::LetMut(x.clone(), init));
            scope.ints.push(x.clone());
            scope.muts.push(x);
            let r = self.fresh("r");
            let init = self.expr(&scope, 2);
            kernel.push(Stmt::LetCell(r.clone(), init));
            scope.cells.push(r);
            let a = self.fresh("a");
            kernel.push(Stmt::LetArray(a.clone()));
            scope.arrays.push(a);
        }
        kernel.extend(self.block(&mut scope, 3, 8));
        let read = self.expr(&scope, 2);
        kernel.push(Stmt::Out(read));
        Program { functions: self.functions, kernel }
    }

    fn function(&mut self, index: usize) -> Function {
        let mut scope = Scope::default();
        let mut params = Vec::new();
        let count = 1 + self.rng.below(4);
        for _ in 0..count {
            let kind = match self.rng.below(3) {
                0 => ParamKind::Int,
                1 => ParamKind::Cell,
                _ => ParamKind::Array,
            };
            let name = match kind {
                ParamKind::Int => self.fresh("v"),
                ParamKind::Cell => self.fresh("p"),
                ParamKind::Array => self.fresh("b"),
            };
            match kind {
                ParamKind::Int => scope.ints.push(name.clone()),
                ParamKind::Cell => scope.cells.push(name.clone()),
                ParamKind::Array => scope.arrays.push(name.clone()),
            }
            params.push((name, kind));
        }
        scope.returns_int = self.rng.chance(40);
        let body = self.block(&mut scope, 2, 5);
        let result = scope.returns_int.then(|| self.expr(&scope, 2));
        Function { name: format!("h{index}"), params, result, body }
    }

    fn block(&mut self, scope: &mut Scope, depth: usize, max_len: usize) -> Vec<Stmt> {
        let saved = scope.clone();
        let len = 1 + self.rng.below(max_len);
        let mut out = Vec::new();
        for _ in 0..len {
            let stmt = self.stmt(scope, depth);
            let observe = self.observation_after(&stmt);
            out.push(stmt);
            out.extend(observe);
        }
        *scope = saved;
        out
    }

    fn stmt(&mut self, scope: &mut Scope, depth: usize) -> Stmt {
        loop {
            let choice = self.rng.below(24);
            let stmt = match choice {
                // An observation: a barrier guarded by what a variable, a cell or an array holds, which exposes a
                // wrong level for it.
                20..=23 => {
                    let read = self.observed(scope);
                    let limit = Expr::Lit(self.rng.below(6) as i32);
                    self.next_barrier += 1;
                    let barrier = if self.rng.chance(70) {
                        Stmt::Barrier(self.next_barrier)
                    } else {
                        Stmt::WarpBarrier(self.next_barrier)
                    };
                    Stmt::If(Cond::Lt(read, limit), vec![barrier], Vec::new())
                }
                0 | 1 if !scope.muts.is_empty() => {
                    let var = self.rng.pick(&scope.muts).cloned().unwrap();
                    Stmt::Assign(var, self.expr(scope, 2))
                }
                2 | 3 if !scope.cells.is_empty() => {
                    let cell = self.rng.pick(&scope.cells).cloned().unwrap();
                    Stmt::Store(cell, self.expr(scope, 2))
                }
                4 | 5 if !scope.arrays.is_empty() => {
                    let array = self.rng.pick(&scope.arrays).cloned().unwrap();
                    Stmt::ElemStore(array, self.expr(scope, 1), self.expr(scope, 2))
                }
                6..=8 if depth > 0 => {
                    let cond = self.cond(scope, 1);
                    let then_block = self.block(scope, depth - 1, 4);
                    let else_block = if self.rng.chance(50) { self.block(scope, depth - 1, 3) } else { Vec::new() };
                    Stmt::If(cond, then_block, else_block)
                }
                9 | 10 if self.callable(scope, false).next().is_some() => self.call(scope),
                11 => {
                    self.next_barrier += 1;
                    Stmt::Barrier(self.next_barrier)
                }
                12 => {
                    self.next_barrier += 1;
                    Stmt::WarpBarrier(self.next_barrier)
                }
                13 => {
                    let name = self.fresh("y");
                    let init = self.expr(scope, 2);
                    scope.ints.push(name.clone());
                    scope.muts.push(name.clone());
                    Stmt::LetMut(name, init)
                }
                14 if !scope.cells.is_empty() => {
                    let of = self.rng.pick(&scope.cells).cloned().unwrap();
                    let name = self.fresh("q");
                    scope.cells.push(name.clone());
                    Stmt::LetCellAlias(name, of)
                }
                15 if !scope.arrays.is_empty() => {
                    let name = self.fresh("c");
                    let first = self.rng.pick(&scope.arrays).cloned().unwrap();
                    let stmt = if self.rng.chance(50) {
                        Stmt::LetArrayAlias(name.clone(), first)
                    } else {
                        let second = self.rng.pick(&scope.arrays).cloned().unwrap();
                        Stmt::LetArrayChoice(name.clone(), self.cond(scope, 1), first, second)
                    };
                    scope.arrays.push(name);
                    stmt
                }
                16 if depth > 0 => {
                    // An arm that does some work and returns, and maybe another arm that does not.
                    let cond = self.cond(scope, 1);
                    let mut leaving = self.block(scope, depth - 1, 2);
                    leaving.extend(self.store(scope));
                    leaving.push(Stmt::Return(scope.returns_int.then(|| self.expr(scope, 2))));
                    let staying = if self.rng.chance(50) { self.block(scope, depth - 1, 2) } else { Vec::new() };
                    if self.rng.chance(50) {
                        Stmt::If(cond, leaving, staying)
                    } else {
                        Stmt::If(cond, staying, leaving)
                    }
                }
                17 if scope.in_kernel => Stmt::Out(self.expr(scope, 2)),
                18 if self.rng.chance(30) => {
                    let name = self.fresh("s");
                    let init = self.expr(scope, 2);
                    scope.cells.push(name.clone());
                    Stmt::LetCell(name, init)
                }
                19 if !scope.muts.is_empty() && self.callable(scope, true).next().is_some() => {
                    let var = self.rng.pick(&scope.muts).cloned().unwrap();
                    let candidates: Vec<usize> = self.callable(scope, true).collect();
                    let function = *self.rng.pick(&candidates).unwrap();
                    let args = self.args(scope, function);
                    self.next_site += 1;
                    Stmt::AssignCall { var, function, args, site: self.next_site }
                }
                _ => continue,
            };
            return stmt;
        }
    }

    /// The functions that return an int (`returns_int`) or unit and whose parameters `scope` can fill (an array
    /// parameter needs an array in scope).
    fn callable<'s>(&'s self, scope: &'s Scope, returns_int: bool) -> impl Iterator<Item = usize> + 's {
        (0..self.functions.len()).filter(move |&i| {
            let f = &self.functions[i];
            f.result.is_some() == returns_int
                && (!scope.arrays.is_empty() || f.params.iter().all(|(_, k)| *k != ParamKind::Array))
        })
    }

    /// A store of a random value into a cell or an array in scope, if there is one.
    fn store(&mut self, scope: &Scope) -> Option<Stmt> {
        if !scope.cells.is_empty() && (scope.arrays.is_empty() || self.rng.chance(60)) {
            let cell = self.rng.pick(&scope.cells).cloned().unwrap();
            return Some(Stmt::Store(cell, self.expr(scope, 2)));
        }
        let array = self.rng.pick(&scope.arrays).cloned()?;
        Some(Stmt::ElemStore(array, self.expr(scope, 1), self.expr(scope, 2)))
    }

    fn call(&mut self, scope: &Scope) -> Stmt {
        let candidates: Vec<usize> = self.callable(scope, false).collect();
        let Some(&function) = self.rng.pick(&candidates) else {
            self.next_barrier += 1;
            return Stmt::Barrier(self.next_barrier);
        };
        let args = self.args(scope, function);
        self.next_site += 1;
        Stmt::Call { function, args, site: self.next_site }
    }

    fn args(&mut self, scope: &Scope, function: usize) -> Vec<Arg> {
        let kinds: Vec<ParamKind> = self.functions[function].params.iter().map(|(_, k)| *k).collect();
        kinds
            .into_iter()
            .map(|kind| match kind {
                ParamKind::Int => Arg::Int(self.expr(scope, 2)),
                ParamKind::Cell => match self.rng.pick(&scope.cells).cloned() {
                    Some(cell) if !self.rng.chance(15) => Arg::Cell(cell),
                    _ => Arg::FreshCell(self.expr(scope, 1)),
                },
                ParamKind::Array => {
                    let first = self.rng.pick(&scope.arrays).cloned();
                    match first {
                        Some(first) if self.rng.chance(20) => {
                            let second = self.rng.pick(&scope.arrays).cloned().unwrap();
                            Arg::ChosenArray(self.cond(scope, 0), first, second)
                        }
                        Some(first) => Arg::Array(first),
                        None => unreachable!("`callable` leaves out functions whose arrays the scope cannot fill"),
                    }
                }
            })
            .collect()
    }

    /// Often, after a call, a barrier guarded by what a cell or array passed to it holds now (what the call's
    /// effects decide); after an array chosen by a condition, a store through it and a look at one of the arrays.
    fn observation_after(&mut self, stmt: &Stmt) -> Vec<Stmt> {
        if let Stmt::LetArrayChoice(b, _, a1, a2) = stmt {
            // A uniform store through an array chosen by a condition, and a look at one of the arrays.
            if !self.rng.chance(60) {
                return Vec::new();
            }
            let store = Stmt::ElemStore(b.clone(), Expr::Lit(self.rng.below(4) as i32), Expr::Lit(7));
            let seen = if self.rng.chance(50) { a1 } else { a2 };
            let read = Expr::Elem(seen.clone(), Box::new(Expr::Lit(self.rng.below(4) as i32)));
            self.next_barrier += 1;
            let observe = Stmt::If(Cond::Eq(read, Expr::Lit(7)), vec![Stmt::Barrier(self.next_barrier)], Vec::new());
            return vec![store, observe];
        }
        let (Stmt::Call { args, .. } | Stmt::AssignCall { args, .. }) = stmt else { return Vec::new() };
        let passed: Vec<Expr> = args
            .iter()
            .filter_map(|a| match a {
                Arg::Cell(r) => Some(Expr::Deref(r.clone())),
                Arg::Array(b) | Arg::ChosenArray(_, b, _) => {
                    Some(Expr::Elem(b.clone(), Box::new(Expr::Lit(self.rng.below(4) as i32))))
                }
                _ => None,
            })
            .collect();
        let Some(read) = self.rng.pick(&passed).cloned().filter(|_| self.rng.chance(60)) else { return Vec::new() };
        self.next_barrier += 1;
        let limit = Expr::Lit(self.rng.below(6) as i32);
        vec![Stmt::If(Cond::Lt(read, limit), vec![Stmt::Barrier(self.next_barrier)], Vec::new())]
    }

    /// A read of something whose level the analysis tracks: a variable, a cell, an element.
    fn observed(&mut self, scope: &Scope) -> Expr {
        for _ in 0..4 {
            match self.rng.below(3) {
                0 if !scope.ints.is_empty() => return Expr::Var(self.rng.pick(&scope.ints).cloned().unwrap()),
                1 if !scope.cells.is_empty() => return Expr::Deref(self.rng.pick(&scope.cells).cloned().unwrap()),
                2 if !scope.arrays.is_empty() => {
                    let array = self.rng.pick(&scope.arrays).cloned().unwrap();
                    return Expr::Elem(array, Box::new(Expr::Lit(self.rng.below(4) as i32)));
                }
                _ => {}
            }
        }
        self.expr(scope, 1)
    }

    fn cond(&mut self, scope: &Scope, depth: usize) -> Cond {
        match self.rng.below(if depth > 0 { 6 } else { 5 }) {
            // A comparison with a small constant splits the sampled threads (indices 0..63) often.
            0 => Cond::Lt(self.expr(scope, 1), Expr::Lit(self.rng.below(8) as i32)),
            1 => Cond::Lt(self.expr(scope, 1), self.expr(scope, 1)),
            2 => Cond::Eq(self.expr(scope, 1), Expr::Lit(self.rng.below(3) as i32)),
            3 | 4 => Cond::Eq(self.expr(scope, 1), self.expr(scope, 1)),
            _ => Cond::And(Box::new(self.cond(scope, depth - 1)), Box::new(self.cond(scope, depth - 1))),
        }
    }

    fn expr(&mut self, scope: &Scope, depth: usize) -> Expr {
        let leaf = depth == 0 || self.rng.chance(45);
        if leaf {
            return match self.rng.below(8) {
                0 | 1 => Expr::Lit(self.rng.below(6) as i32 - 1),
                2 => {
                    let sources = [Source::ThreadIdx, Source::LaneId, Source::WarpId, Source::BlockIdx, Source::N];
                    let count = if scope.in_kernel { 5 } else { 4 };
                    Expr::Source(sources[self.rng.below(count)])
                }
                3 | 4 if !scope.ints.is_empty() => Expr::Var(self.rng.pick(&scope.ints).cloned().unwrap()),
                5 | 6 if !scope.cells.is_empty() => Expr::Deref(self.rng.pick(&scope.cells).cloned().unwrap()),
                7 if !scope.arrays.is_empty() => {
                    let array = self.rng.pick(&scope.arrays).cloned().unwrap();
                    Expr::Elem(array, Box::new(self.expr(scope, 0)))
                }
                _ => Expr::Lit(self.rng.below(4) as i32),
            };
        }
        let a = Box::new(self.expr(scope, depth - 1));
        let b = Box::new(self.expr(scope, depth - 1));
        match self.rng.below(3) {
            0 => Expr::Add(a, b),
            1 => Expr::Sub(a, b),
            _ => Expr::Mul(a, b),
        }
    }
}

/// A program printed as `.sk`, with the byte offset of each barrier (by id) and whether it is a block barrier.
pub struct Printed {
    pub text: String,
    pub barriers: Vec<(usize, usize, bool)>,
}

pub fn print(program: &Program) -> Printed {
    let mut p = Printer { out: String::new(), barriers: Vec::new(), program };
    for function in &program.functions {
        p.function(function);
    }
    p.out.push_str("kernel k (out : int32 vector) (n : int32) =\n");
    p.block(&program.kernel, 1);
    p.out.push('\n');
    Printed { text: p.out, barriers: p.barriers }
}

struct Printer<'p> {
    out: String,
    barriers: Vec<(usize, usize, bool)>,
    program: &'p Program,
}

impl Printer<'_> {
    fn function(&mut self, f: &Function) {
        self.out.push_str(&format!("let {}", f.name));
        for (name, kind) in &f.params {
            let ty = match kind {
                ParamKind::Int => "int32",
                ParamKind::Cell => "int32 ref",
                ParamKind::Array => "int32 array",
            };
            self.out.push_str(&format!(" ({name} : {ty})"));
        }
        if f.result.is_some() {
            self.out.push_str(" : int32");
        }
        self.out.push_str(" =\n");
        let mut body = f.body.clone();
        let tail = f.result.clone();
        self.block_with_tail(&mut body, tail, 1);
        self.out.push_str("\n\n");
    }

    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
    }

    fn block(&mut self, stmts: &[Stmt], depth: usize) {
        let mut stmts = stmts.to_vec();
        self.block_with_tail(&mut stmts, None, depth);
    }

    /// Statements separated by `;` (a `let` scopes over the rest), then `tail` as the value (or `()`).
    fn block_with_tail(&mut self, stmts: &mut [Stmt], tail: Option<Expr>, depth: usize) {
        let mut pending_value = true;
        for (i, stmt) in stmts.iter().enumerate() {
            self.indent(depth);
            let binds = self.stmt(stmt, depth);
            let last = i + 1 == stmts.len();
            if binds {
                self.out.push_str(" in\n");
                pending_value = true;
            } else if last && tail.is_none() {
                self.out.push('\n');
                pending_value = false;
            } else {
                self.out.push_str(";\n");
                pending_value = true;
            }
        }
        if pending_value {
            self.indent(depth);
            match &tail {
                Some(e) => {
                    let text = self.expr(e);
                    self.out.push_str(&text);
                }
                None => self.out.push_str("()"),
            }
        }
    }

    /// Prints one statement; says whether it is a `let` (then `in` follows).
    fn stmt(&mut self, stmt: &Stmt, depth: usize) -> bool {
        match stmt {
            Stmt::Assign(x, e) => {
                let e = self.expr(e);
                self.out.push_str(&format!("{x} := {e}"));
            }
            Stmt::Store(r, e) => {
                let e = self.expr(e);
                self.out.push_str(&format!("{r} := {e}"));
            }
            Stmt::ElemStore(a, i, v) => {
                let (i, v) = (self.expr(i), self.expr(v));
                self.out.push_str(&format!("{a}.({i} land 3) <- {v}"));
            }
            Stmt::If(c, then_block, else_block) => {
                let c = self.cond(c);
                self.out.push_str(&format!("if {c} then begin\n"));
                self.block(then_block, depth + 1);
                self.out.push('\n');
                self.indent(depth);
                if else_block.is_empty() {
                    self.out.push_str("end");
                } else {
                    self.out.push_str("end else begin\n");
                    self.block(else_block, depth + 1);
                    self.out.push('\n');
                    self.indent(depth);
                    self.out.push_str("end");
                }
            }
            Stmt::Call { function, args, .. } => {
                let call = self.call(*function, args);
                self.out.push_str(&call);
            }
            Stmt::AssignCall { var, function, args, .. } => {
                let call = self.call(*function, args);
                self.out.push_str(&format!("{var} := {call}"));
            }
            Stmt::Barrier(id) => {
                self.barriers.push((*id, self.out.len(), true));
                self.out.push_str("Gpu.block_barrier");
            }
            Stmt::WarpBarrier(id) => {
                self.barriers.push((*id, self.out.len(), false));
                self.out.push_str("Gpu.warp_barrier");
            }
            Stmt::LetMut(x, e) => {
                let e = self.expr(e);
                self.out.push_str(&format!("let {x} = mut {e}"));
                return true;
            }
            Stmt::LetCell(r, e) => {
                let e = self.expr(e);
                self.out.push_str(&format!("let {r} = ref {e}"));
                return true;
            }
            Stmt::LetCellAlias(q, r) | Stmt::LetArrayAlias(q, r) => {
                self.out.push_str(&format!("let {q} = {r}"));
                return true;
            }
            Stmt::LetArrayChoice(b, c, a1, a2) => {
                let c = self.cond(c);
                self.out.push_str(&format!("let {b} = if {c} then {a1} else {a2}"));
                return true;
            }
            Stmt::LetArray(a) => {
                self.out.push_str(&format!("let%local ({a} : int32) = 4 in\n"));
                for i in 0..4 {
                    self.indent(depth);
                    self.out.push_str(&format!("{a}.({i}) <- 0;\n"));
                }
                self.indent(depth);
                self.out.push_str("()");
            }
            Stmt::Return(value) => match value {
                Some(e) => {
                    let e = self.expr(e);
                    self.out.push_str(&format!("return {e}"));
                }
                None => self.out.push_str("return"),
            },
            Stmt::Out(e) => {
                let e = self.expr(e);
                self.out.push_str(&format!("out.(global_idx) <- {e}"));
            }
        }
        false
    }

    fn call(&mut self, function: usize, args: &[Arg]) -> String {
        let mut text = self.program.functions[function].name.clone();
        for arg in args {
            let arg = match arg {
                Arg::Int(e) => self.expr(e),
                Arg::Cell(r) | Arg::Array(r) => r.clone(),
                Arg::FreshCell(e) => format!("(ref {})", self.expr(e)),
                Arg::ChosenArray(c, a1, a2) => format!("(if {} then {a1} else {a2})", self.cond(c)),
            };
            text.push(' ');
            text.push_str(&arg);
        }
        text
    }

    fn cond(&mut self, c: &Cond) -> String {
        match c {
            Cond::Lt(a, b) => format!("({} < {})", self.expr(a), self.expr(b)),
            Cond::Eq(a, b) => format!("({} = {})", self.expr(a), self.expr(b)),
            Cond::And(a, b) => format!("({} && {})", self.cond(a), self.cond(b)),
        }
    }

    fn expr(&mut self, e: &Expr) -> String {
        match e {
            Expr::Lit(v) if *v < 0 => format!("({v})"),
            Expr::Lit(v) => v.to_string(),
            Expr::Source(Source::ThreadIdx) => "thread_idx_x".into(),
            Expr::Source(Source::LaneId) => "lane_id".into(),
            Expr::Source(Source::WarpId) => "warp_id".into(),
            Expr::Source(Source::BlockIdx) => "block_idx_x".into(),
            Expr::Source(Source::N) => "n".into(),
            Expr::Var(x) => x.clone(),
            Expr::Deref(r) => format!("!{r}"),
            Expr::Elem(a, i) => format!("{a}.({} land 3)", self.expr(i)),
            Expr::Add(a, b) => format!("({} + {})", self.expr(a), self.expr(b)),
            Expr::Sub(a, b) => format!("({} - {})", self.expr(a), self.expr(b)),
            Expr::Mul(a, b) => format!("({} * {})", self.expr(a), self.expr(b)),
        }
    }
}

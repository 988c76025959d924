//! A delta-debugging minimiser of generated programs: it tries, one at a time, to delete a function or a
//! statement, to replace an `if` by one of its branches or a loop or superstep by its body, and to replace an
//! expression or condition by a literal or one of its parts, keeping every change after which the program still
//! fails (the caller's test), until no change keeps it failing. Candidates that no longer type-check simply fail
//! the test.

use super::program::*;

/// The smallest program reachable from `program` by the edits above for which `fails` holds (`fails(program)`
/// must hold).
pub fn minimise(program: &Program, fails: &dyn Fn(&Program) -> bool) -> Program {
    let mut best = program.clone();
    loop {
        // Only strictly shorter programs: every step makes progress, so the search ends.
        let length = best.render().len();
        match candidates(&best).into_iter().find(|c| c.render().len() < length && fails(c)) {
            Some(smaller) => best = smaller,
            None => return best,
        }
    }
}

/// Every program one edit away from `p`, smallest edits (deletions) first.
fn candidates(p: &Program) -> Vec<Program> {
    let mut out = Vec::new();
    for i in 0..p.functions.len() {
        let mut c = p.clone();
        c.functions.remove(i);
        renumber_calls(&mut c, i);
        out.push(c);
    }
    let (statements, expressions, conditions) = sizes(p);
    for edit in [Edit::Remove, Edit::Then, Edit::Else, Edit::Body] {
        for k in 0..statements {
            if let Some(c) = edit_statement(p, k, edit) {
                out.push(c);
            }
        }
    }
    for replacement in 0..3 {
        for k in 0..expressions {
            if let Some(c) = edit_expression(p, k, replacement) {
                out.push(c);
            }
        }
    }
    for replacement in 0..3 {
        for k in 0..conditions {
            if let Some(c) = edit_condition(p, k, replacement) {
                out.push(c);
            }
        }
    }
    out
}

/// After deleting function `removed`, calls of later functions move down one (calls of it stay broken).
fn renumber_calls(p: &mut Program, removed: usize) {
    let fix = |block: &mut Block| {
        walk_statements(block, &mut |s| {
            if let Stmt::Call { function, .. } = s {
                if *function > removed {
                    *function -= 1;
                }
            }
        })
    };
    for f in &mut p.functions {
        fix(&mut f.body);
    }
    fix(&mut p.kernel);
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Edit {
    Remove,
    /// An `if` by its `then` block.
    Then,
    /// An `if` by its `else` block.
    Else,
    /// A loop or superstep by its body.
    Body,
}

fn blocks_mut(p: &mut Program) -> Vec<&mut Block> {
    let mut out: Vec<&mut Block> = p.functions.iter_mut().map(|f| &mut f.body).collect();
    out.push(&mut p.kernel);
    out
}

fn walk_statements(block: &mut Block, f: &mut dyn FnMut(&mut Stmt)) {
    for s in block.iter_mut() {
        f(s);
        for inner in children_mut(s) {
            walk_statements(inner, f);
        }
    }
}

fn children_mut(s: &mut Stmt) -> Vec<&mut Block> {
    match s {
        Stmt::If { then, other, .. } => vec![then, other],
        Stmt::For { body, .. } | Stmt::While { body, .. } | Stmt::Superstep { body, .. } => vec![body],
        _ => Vec::new(),
    }
}

/// (statements, expressions, conditions) of `p`, in walk order.
fn sizes(p: &Program) -> (usize, usize, usize) {
    let mut p = p.clone();
    let mut statements = 0;
    for block in blocks_mut(&mut p) {
        walk_statements(block, &mut |_| statements += 1);
    }
    let (mut expressions, mut conditions) = (0, 0);
    visit_all(&mut p, &mut |_| expressions += 1, &mut |_| conditions += 1);
    (statements, expressions, conditions)
}

fn exprs_of(s: &mut Stmt) -> Vec<&mut Expr> {
    match s {
        Stmt::Let { value, .. } | Stmt::LetRef { value, .. } | Stmt::Assign { value, .. } => vec![value],
        Stmt::For { from, to, .. } => vec![from, to],
        Stmt::While { bound, .. } => vec![bound],
        Stmt::SharedStore { index, value, .. } | Stmt::Atomic { index, value } => vec![index, value],
        Stmt::Call { args, .. } => args
            .iter_mut()
            .filter_map(|a| match a {
                CallArg::Value(e) => Some(e),
                _ => None,
            })
            .collect(),
        Stmt::Return(Some(e)) => vec![e],
        _ => Vec::new(),
    }
}

fn visit_expr(e: &mut Expr, on_expr: &mut dyn FnMut(&mut Expr), on_cond: &mut dyn FnMut(&mut Cond)) {
    on_expr(e);
    match e {
        Expr::Bin(_, a, b) | Expr::Shuffle(_, a, b) | Expr::AtomicResult(a, b) => {
            visit_expr(a, on_expr, on_cond);
            visit_expr(b, on_expr, on_cond);
        }
        Expr::SharedLoad(_, a) | Expr::UniformLoad(_, a) => visit_expr(a, on_expr, on_cond),
        Expr::Ballot(c) => visit_cond(c, on_expr, on_cond),
        Expr::Select(c, a, b) => {
            visit_cond(c, on_expr, on_cond);
            visit_expr(a, on_expr, on_cond);
            visit_expr(b, on_expr, on_cond);
        }
        _ => {}
    }
}

fn visit_cond(c: &mut Cond, on_expr: &mut dyn FnMut(&mut Expr), on_cond: &mut dyn FnMut(&mut Cond)) {
    on_cond(c);
    match c {
        Cond::Cmp(_, a, b) => {
            visit_expr(a, on_expr, on_cond);
            visit_expr(b, on_expr, on_cond);
        }
        Cond::And(a, b) | Cond::Or(a, b) => {
            visit_cond(a, on_expr, on_cond);
            visit_cond(b, on_expr, on_cond);
        }
        Cond::Not(a) | Cond::Any(a) | Cond::All(a) => visit_cond(a, on_expr, on_cond),
        Cond::Lit(_) => {}
    }
}

/// Applies `edit` to the `k`-th statement (in walk order); `None` when it does not apply there.
fn edit_statement(p: &Program, k: usize, edit: Edit) -> Option<Program> {
    let mut c = p.clone();
    let mut seen = 0;
    let mut done = false;
    for block in blocks_mut(&mut c) {
        if !done {
            done = edit_in_block(block, k, edit, &mut seen);
        }
    }
    done.then_some(c)
}

fn edit_in_block(block: &mut Block, k: usize, edit: Edit, seen: &mut usize) -> bool {
    let mut i = 0;
    while i < block.len() {
        if *seen == k {
            *seen += 1;
            let replacement = match (&block[i], edit) {
                (_, Edit::Remove) => Some(Vec::new()),
                (Stmt::If { then, .. }, Edit::Then) => Some(then.clone()),
                (Stmt::If { other, .. }, Edit::Else) => Some(other.clone()),
                (Stmt::For { body, .. } | Stmt::While { body, .. } | Stmt::Superstep { body, .. }, Edit::Body) => {
                    Some(body.clone())
                }
                _ => None,
            };
            return match replacement {
                Some(r) => {
                    block.splice(i..=i, r);
                    true
                }
                None => false,
            };
        }
        *seen += 1;
        for inner in children_mut(&mut block[i]) {
            if edit_in_block(inner, k, edit, seen) {
                return true;
            }
            if *seen > k {
                return false;
            }
        }
        i += 1;
    }
    false
}

/// Replaces the `k`-th expression by 0 (`replacement` 0), 1 (1), or its first part (2).
fn edit_expression(p: &Program, k: usize, replacement: u8) -> Option<Program> {
    let mut c = p.clone();
    let mut seen = 0;
    let mut changed = false;
    let mut on_expr = |e: &mut Expr| {
        if seen == k {
            let new = match (replacement, &*e) {
                (0, Expr::Lit(0)) | (1, Expr::Lit(1)) => None,
                (0, _) => Some(Expr::Lit(0)),
                (1, _) => Some(Expr::Lit(1)),
                (_, Expr::Bin(_, a, _) | Expr::Shuffle(_, a, _) | Expr::Select(_, a, _)) => Some((**a).clone()),
                _ => None,
            };
            if let Some(new) = new {
                *e = new;
                changed = true;
            }
        }
        seen += 1;
    };
    visit_all(&mut c, &mut on_expr, &mut |_| {});
    changed.then_some(c)
}

/// Replaces the `k`-th condition by `true` (0), `false` (1), or its first part (2).
fn edit_condition(p: &Program, k: usize, replacement: u8) -> Option<Program> {
    let mut c = p.clone();
    let mut seen = 0;
    let mut changed = false;
    let mut on_cond = |x: &mut Cond| {
        if seen == k {
            let new = match (replacement, &*x) {
                (0, Cond::Lit(true)) | (1, Cond::Lit(false)) => None,
                (0, _) => Some(Cond::Lit(true)),
                (1, _) => Some(Cond::Lit(false)),
                (_, Cond::And(a, _) | Cond::Or(a, _) | Cond::Not(a) | Cond::Any(a) | Cond::All(a)) => {
                    Some((**a).clone())
                }
                _ => None,
            };
            if let Some(new) = new {
                *x = new;
                changed = true;
            }
        }
        seen += 1;
    };
    visit_all(&mut c, &mut |_| {}, &mut on_cond);
    changed.then_some(c)
}

fn visit_all(p: &mut Program, on_expr: &mut dyn FnMut(&mut Expr), on_cond: &mut dyn FnMut(&mut Cond)) {
    for block in blocks_mut(p) {
        walk_statements(block, &mut |s| {
            for e in exprs_of(s) {
                visit_expr(e, on_expr, on_cond);
            }
            if let Stmt::If { cond, .. } = s {
                visit_cond(cond, on_expr, on_cond);
            }
        });
    }
    for f in &mut p.functions {
        visit_expr(&mut f.result, on_expr, on_cond);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_everything_the_failure_does_not_need() {
        let program = Program {
            functions: vec![],
            kernel: vec![
                Stmt::Barrier,
                Stmt::If {
                    cond: Cond::Cmp(CmpOp::Lt, Expr::Name("thread_idx_x"), Expr::Lit(3)),
                    then: vec![Stmt::WarpBarrier, Stmt::Assign { name: "v".into(), value: Expr::Lit(7) }],
                    other: vec![Stmt::Barrier],
                },
            ],
        };
        // "Fails" while a warp barrier is left anywhere.
        let fails = |p: &Program| p.render().contains("warp_barrier");
        let small = minimise(&program, &fails);
        assert_eq!(small.kernel, vec![Stmt::WarpBarrier]);
    }
}

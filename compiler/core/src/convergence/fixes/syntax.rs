//! What the edits need to know about the syntax tree and the source: parents, the source text of a node, which
//! expressions may run in threads that did not run them before (no effect, no fault, no signed overflow, which is
//! undefined: signed `+ - *` only over small known ranges such as thread indices), which contain an operation
//! that needs converged threads or an exit, statement sequences, and fresh names.

use crate::builtins::{Builtin, Requirement};
use crate::source::{SourceMap, Span};
use crate::syntax::ast::{for_each_child, BinaryOp, ExprId, ExprKind, Item, Module, UnaryOp};
use crate::types::{FunctionId, Resolution, Type, TypeInfo};

use super::super::UniformityInfo;

/// One element of a statement sequence flattened through `;` and `let ... in`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece {
    /// `let x = v in` or `let%shared ... in`, whose body is the rest of the sequence.
    Binding(ExprId),
    Statement(ExprId),
}

pub struct Fixer<'a> {
    pub module: &'a Module,
    pub types: &'a TypeInfo,
    pub info: &'a UniformityInfo,
    pub sources: &'a SourceMap,
    /// The parent of each expression (`u32::MAX` for roots).
    parents: Vec<u32>,
}

impl<'a> Fixer<'a> {
    pub fn new(module: &'a Module, types: &'a TypeInfo, info: &'a UniformityInfo, sources: &'a SourceMap) -> Self {
        let mut parents = vec![u32::MAX; module.exprs.len()];
        for (index, kind) in module.exprs.iter().enumerate() {
            for_each_child(kind, |child| {
                if let Some(slot) = parents.get_mut(child.index()) {
                    *slot = index as u32;
                }
            });
        }
        Fixer { module, types, info, sources, parents }
    }

    pub fn kind(&self, e: ExprId) -> &ExprKind {
        self.module.expr(e)
    }

    pub fn span(&self, e: ExprId) -> Span {
        self.module.span(e)
    }

    pub fn parent(&self, e: ExprId) -> Option<ExprId> {
        self.parents.get(e.index()).filter(|&&p| p != u32::MAX).map(|&p| ExprId(p))
    }

    pub fn text(&self, e: ExprId) -> &str {
        self.sources.snippet(self.span(e))
    }

    /// The expression whose span is exactly `span` and that `wanted` accepts (the outermost, if several).
    pub fn find(&self, span: Span, wanted: impl Fn(&ExprKind) -> bool) -> Option<ExprId> {
        let found = self
            .module
            .expr_spans
            .iter()
            .enumerate()
            .filter(|(index, s)| **s == span && wanted(&self.module.exprs[*index]));
        found.map(|(index, _)| ExprId(index as u32)).max()
    }

    /// The outermost expression that `wanted` accepts.
    pub fn find_where(&self, wanted: impl Fn(ExprId, &ExprKind) -> bool) -> Option<ExprId> {
        let found = self.module.exprs.iter().enumerate().filter(|(index, kind)| wanted(ExprId(*index as u32), kind));
        found.map(|(index, _)| ExprId(index as u32)).max()
    }

    /// The kernel or function whose body holds `span`, and that item's span.
    pub fn item_at(&self, span: Span) -> Option<&'a Item> {
        self.module.items.iter().find(|item| {
            let s = item.span();
            s.file == span.file && s.start <= span.start && span.end <= s.end
        })
    }

    /// The leading whitespace of the line `span` starts on.
    pub fn indent_of(&self, span: Span) -> String {
        let text = &self.sources.file(span.file).text;
        let start = text[..span.start as usize].rfind('\n').map(|i| i + 1).unwrap_or(0);
        text[start..].chars().take_while(|c| *c == ' ' || *c == '\t').collect()
    }

    /// `base`, or `base_2`, `base_3`...: the first that no word of `span`'s text is (so it shadows nothing there).
    pub fn fresh_name(&self, base: &str, span: Span) -> String {
        let text = self.sources.snippet(span);
        let words: std::collections::HashSet<&str> =
            text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\'')).collect();
        let mut name = base.to_string();
        let mut n = 1;
        while words.contains(name.as_str()) {
            n += 1;
            name = format!("{base}_{n}");
        }
        name
    }

    pub fn builtin(&self, e: ExprId) -> Option<&'static Builtin> {
        match self.kind(e) {
            ExprKind::Var(_) | ExprKind::Call { .. } => self.types.builtin(e),
            _ => None,
        }
    }

    /// Can `e` run in threads that did not run it, without any effect and without a fault: literals, names,
    /// arithmetic (integer division and shifts only by a literal that makes them defined), comparisons, builtins
    /// without effects or requirements. With `loads`, element and field reads too (which may fault when their
    /// index was guarded).
    pub fn harmless(&self, e: ExprId, loads: bool) -> bool {
        match self.kind(e) {
            ExprKind::Int { .. }
            | ExprKind::Float { .. }
            | ExprKind::Bool(_)
            | ExprKind::Unit
            | ExprKind::Global(_) => true,
            ExprKind::Var(_) => match self.types.resolution(e) {
                Some(Resolution::Builtin(b)) => b.requirement == Requirement::None && !b.orders_memory,
                Some(Resolution::Local(_) | Resolution::Constant(_)) => true,
                _ => false,
            },
            ExprKind::Unary { op, operand } => {
                (loads || *op != UnaryOp::Deref)
                    && (*op != UnaryOp::Neg || !self.may_overflow(e))
                    && self.harmless(*operand, loads)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let wraps = matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Lsl);
                self.defined_operator(*op, e, *rhs)
                    && !(wraps && self.may_overflow(e))
                    && self.harmless(*lhs, loads)
                    && self.harmless(*rhs, loads)
            }
            ExprKind::Call { args, .. } => match self.builtin(e) {
                Some(b) => {
                    // A builtin given an array reads memory (`load_float4 a i`), which a load may not.
                    let reads_memory = args.iter().any(|&a| {
                        matches!(self.types.type_of(a), Type::Vector(_) | Type::Array { .. } | Type::ConstArray { .. })
                    });
                    b.requirement == Requirement::None
                        && !b.writes_first_arg
                        && !b.orders_memory
                        && (loads || !reads_memory)
                        && args.iter().all(|&a| self.harmless(a, loads))
                }
                None => false,
            },
            ExprKind::Index { array, index } => loads && self.harmless(*array, loads) && self.harmless(*index, loads),
            ExprKind::Field { record, .. } => self.harmless(*record, loads),
            ExprKind::Annot { expr, .. } => self.harmless(*expr, loads),
            ExprKind::If { cond, then_branch, else_branch: Some(else_branch) } => {
                [*cond, *then_branch, *else_branch].iter().all(|&x| self.harmless(x, loads))
            }
            _ => false,
        }
    }

    /// May `e`, a signed integer `+ - * lsl` or negation, overflow (which is undefined)? Not when its value is
    /// known to lie in a small range (`small_range`); unsigned arithmetic wraps and floats do not trap.
    fn may_overflow(&self, e: ExprId) -> bool {
        matches!(self.types.type_of(e), Type::Int32 | Type::Int64) && self.small_range(e).is_none()
    }

    /// Bounds of an integer expression made of literals, thread and lane indices, block sizes and the operators
    /// over them, when its every intermediate value fits in an `int32`.
    fn small_range(&self, e: ExprId) -> Option<(i64, i64)> {
        const LIMIT: i64 = i32::MAX as i64;
        let range = match self.kind(e) {
            ExprKind::Int { value, .. } => {
                let v = i64::try_from(*value).ok()?;
                (v, v)
            }
            ExprKind::Var(_) => match self.builtin(e)?.name {
                "thread_idx_x" | "thread_idx_y" | "thread_idx_z" => (0, 1023),
                "block_dim_x" | "block_dim_y" | "block_dim_z" => (1, 1024),
                "lane_id" | "warp_id" => (0, 31),
                "warp_size" => (32, 32),
                _ => return None,
            },
            ExprKind::Annot { expr, .. } => self.small_range(*expr)?,
            ExprKind::Unary { op: UnaryOp::Neg, operand } => {
                let (lo, hi) = self.small_range(*operand)?;
                (-hi, -lo)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let ((a, b), (c, d)) = (self.small_range(*lhs)?, self.small_range(*rhs)?);
                match op {
                    BinaryOp::Add => (a + c, b + d),
                    BinaryOp::Sub => (a - d, b - c),
                    BinaryOp::Mul => {
                        let products = [a * c, a * d, b * c, b * d];
                        (*products.iter().min()?, *products.iter().max()?)
                    }
                    BinaryOp::Div if c == d && c > 0 => (a / c, b / c),
                    BinaryOp::Mod if c == d && c > 0 && a >= 0 => (0, (c - 1).min(b)),
                    BinaryOp::Lsr | BinaryOp::Asr if c == d && (0..32).contains(&c) && a >= 0 => (a >> c, b >> c),
                    _ => return None,
                }
            }
            _ => return None,
        };
        (range.0 >= -LIMIT && range.1 <= LIMIT).then_some(range)
    }

    /// Is `lhs op rhs` defined whatever `lhs` is: an integer division or remainder by a non-zero literal, a shift
    /// by a literal below the width, any other operator?
    fn defined_operator(&self, op: BinaryOp, e: ExprId, rhs: ExprId) -> bool {
        let literal = match self.kind(rhs) {
            ExprKind::Int { value, .. } => Some(*value),
            _ => None,
        };
        let float = self.types.type_of(e).is_float();
        match op {
            BinaryOp::Div | BinaryOp::Mod => float || literal.is_some_and(|v| v != 0),
            BinaryOp::Lsl | BinaryOp::Lsr | BinaryOp::Asr => literal.is_some_and(|v| v < 32),
            _ => true,
        }
    }

    /// Does `e` hold an operation that needs converged threads: a barrier or collective, a superstep, a call of a
    /// function that holds one?
    pub fn contains_sync(&self, e: ExprId) -> bool {
        let mut visited = Vec::new();
        self.contains_sync_in(e, &mut visited)
    }

    fn contains_sync_in(&self, e: ExprId, visited: &mut Vec<FunctionId>) -> bool {
        let own = match self.kind(e) {
            ExprKind::Superstep { .. } => true,
            ExprKind::Var(_) | ExprKind::Call { .. } => match self.types.resolution(e) {
                Some(Resolution::Builtin(b)) => b.requirement != Requirement::None,
                Some(Resolution::Function(f)) if !visited.contains(&f) => {
                    visited.push(f);
                    match self.function_body(f) {
                        Some(body) => self.contains_sync_in(body, visited),
                        None => true,
                    }
                }
                _ => false,
            },
            _ => false,
        };
        let mut children = false;
        if !own {
            for_each_child(self.kind(e), |child| children = children || self.contains_sync_in(child, visited));
        }
        own || children
    }

    fn function_body(&self, f: FunctionId) -> Option<ExprId> {
        match self.module.items.get(self.types.function(f).item)? {
            Item::Function(function) => Some(function.body),
            _ => None,
        }
    }

    /// Does `e` hold a `return`, `break` or `continue`?
    pub fn contains_exit(&self, e: ExprId) -> bool {
        if matches!(self.kind(e), ExprKind::Return(_) | ExprKind::Break | ExprKind::Continue) {
            return true;
        }
        let mut found = false;
        for_each_child(self.kind(e), |child| found = found || self.contains_exit(child));
        found
    }

    /// `e` as a sequence: `a; b` gives the pieces of `a` then of `b`, and `let x = v in body` a binding then the
    /// pieces of `body` (only in the last position of a sequence, where its scope is the rest anyway).
    pub fn flatten(&self, e: ExprId, out: &mut Vec<Piece>) {
        match self.kind(e) {
            ExprKind::Seq(a, b) => {
                match self.kind(*a) {
                    ExprKind::Seq(..) => self.flatten(*a, out),
                    _ => out.push(Piece::Statement(*a)),
                }
                self.flatten(*b, out);
            }
            ExprKind::Let { body, .. } | ExprKind::LetArray { body, .. } => {
                out.push(Piece::Binding(e));
                self.flatten(*body, out);
            }
            _ => out.push(Piece::Statement(e)),
        }
    }

    /// The text of a binding up to its body (`let x = v in`), if every thread may evaluate it: its value is
    /// harmless (or it declares an array), and it is written as `let ... in` in the source.
    pub fn binding_header(&self, e: ExprId) -> Option<String> {
        let body = match self.kind(e) {
            ExprKind::Let { value, body, .. } => {
                let value = match self.kind(*value) {
                    ExprKind::Ref(inner) => *inner,
                    _ => *value,
                };
                if !self.harmless(value, false) {
                    return None;
                }
                *body
            }
            ExprKind::LetArray { body, .. } => *body,
            _ => return None,
        };
        let (start, body_start) = (self.span(e).start as usize, self.span(body).start as usize);
        let text = self.sources.file(self.span(e).file).text.get(start..body_start)?.trim_end();
        (text.starts_with("let") && text.ends_with(" in")).then(|| text.to_string())
    }
}

//! Operator expressions. The grammar reads `operand (operator operand)*`, each operand possibly behind prefix
//! operators, as one flat [`Chain`]; [`Scratch::resolve`] builds the tree by precedence. A grammar stratified by levels
//! gives the same trees but makes every operand climb the whole chain of levels one reduction at a time, which
//! was most of the parser's work.
//!
//! Levels, loosest first: `<-` `:=` (right) < `||` (right) < `&&` `&` (right) < comparisons (left) <
//! `+ - +. -.` (left) < `* / *. /. mod land lor lxor` (left) < prefix `- -. not lnot` < `** lsl lsr asr` (right).
//! A prefix operator takes a whole power (`-x ** 2.0` is `-(x ** 2.0)`), and binds tighter than the rest
//! (`-a * b` is `(-a) * b`).
//!
//! Resolution uses explicit stacks (shunting-yard), so a long right-associative chain cannot overflow the
//! native stack; how deep the result may nest is `syntax::depth`'s business.

use crate::syntax::ast::{BinaryOp, ExprId, UnaryOp};

/// A binary operator as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operator {
    Binary(BinaryOp),
    /// `<-`: an array element or a record field is written.
    Store,
    /// `:=`: a variable is written.
    Assign,
}

impl Operator {
    /// Binding strength: higher binds tighter.
    fn level(self) -> u8 {
        use BinaryOp::*;
        match self {
            Operator::Store | Operator::Assign => 1,
            Operator::Binary(op) => match op {
                Or => 2,
                And => 3,
                Eq | Ne | Lt | Le | Gt | Ge => 4,
                Add | Sub | FAdd | FSub => 5,
                Mul | Div | FMul | FDiv | Mod | Land | Lor | Lxor => 6,
                Pow | Lsl | Lsr | Asr => PREFIX_LEVEL + 1,
            },
        }
    }

    fn right_associative(self) -> bool {
        use BinaryOp::*;
        matches!(self, Operator::Store | Operator::Assign | Operator::Binary(Or | And | Pow | Lsl | Lsr | Asr))
    }
}

/// Prefix operators bind tighter than `*` and looser than `**`.
const PREFIX_LEVEL: u8 = 7;

/// One element of a chain, with the source positions the tree's spans are made of.
#[derive(Clone, Copy, Debug)]
pub enum ChainItem {
    /// An operand: its node and the range of its tokens (parentheses included).
    Operand {
        expr: ExprId,
        start: u32,
        end: u32,
    },
    /// A prefix operator and where it starts.
    Prefix {
        op: UnaryOp,
        start: u32,
    },
    Binary(Operator),
}

/// An operator expression as the grammar read it.
#[derive(Debug)]
pub enum Chain {
    /// A single operand without operators (most expressions): nothing to resolve, nothing allocated.
    Operand(ExprId),
    /// Operands and operators in source order: operand, then any number of (binary operator, operand), each
    /// operand preceded by its prefix operators.
    Items(Vec<ChainItem>),
}

/// What resolution builds: the nodes of the tree.
pub trait Nodes {
    fn binary(&mut self, op: Operator, lhs: ExprId, rhs: ExprId, start: u32, end: u32) -> ExprId;
    fn prefix(&mut self, op: UnaryOp, operand: ExprId, start: u32, end: u32) -> ExprId;
}

/// Memory kept from chain to chain: the stacks of [`Scratch::resolve`] and the item vectors of resolved
/// chains, so that a chain allocates nothing once a few have been read.
#[derive(Default)]
pub struct Scratch {
    operands: Vec<(ExprId, u32, u32)>,
    operators: Vec<Pending>,
    spare: Vec<Vec<ChainItem>>,
}

#[derive(Clone, Copy)]
enum Pending {
    Prefix(UnaryOp, u32),
    Binary(Operator),
}

impl Pending {
    fn level(self) -> u8 {
        match self {
            Pending::Prefix(..) => PREFIX_LEVEL,
            Pending::Binary(op) => op.level(),
        }
    }
}

impl Scratch {
    fn new_items(&mut self) -> Vec<ChainItem> {
        self.spare.pop().unwrap_or_else(|| Vec::with_capacity(8))
    }

    /// Appends the items of `chain` (whose tokens span `start..end`) to `items`.
    fn append(&mut self, items: &mut Vec<ChainItem>, chain: Chain, start: u32, end: u32) {
        match chain {
            Chain::Operand(expr) => items.push(ChainItem::Operand { expr, start, end }),
            Chain::Items(mut more) => {
                items.extend_from_slice(&more);
                more.clear();
                self.spare.push(more);
            }
        }
    }

    /// `lhs op rhs`, where `lhs` spans `lhs_start..lhs_end` and `rhs` spans `rhs_start..rhs_end`.
    #[allow(clippy::too_many_arguments)]
    pub fn binary(
        &mut self,
        lhs: Chain,
        lhs_start: u32,
        lhs_end: u32,
        op: Operator,
        rhs: Chain,
        rhs_start: u32,
        rhs_end: u32,
    ) -> Chain {
        let mut items = match lhs {
            Chain::Items(items) => items,
            Chain::Operand(expr) => {
                let mut items = self.new_items();
                items.push(ChainItem::Operand { expr, start: lhs_start, end: lhs_end });
                items
            }
        };
        items.push(ChainItem::Binary(op));
        self.append(&mut items, rhs, rhs_start, rhs_end);
        Chain::Items(items)
    }

    /// Prefix operator `op` at `start` before `operand`, which spans `operand_start..end`.
    pub fn prefixed(&mut self, start: u32, op: UnaryOp, operand_start: u32, operand: Chain, end: u32) -> Chain {
        let mut items = self.new_items();
        items.push(ChainItem::Prefix { op, start });
        self.append(&mut items, operand, operand_start, end);
        Chain::Items(items)
    }

    /// Builds the tree of `chain` and returns its root.
    pub fn resolve(&mut self, chain: Chain, nodes: &mut impl Nodes) -> ExprId {
        match chain {
            Chain::Operand(expr) => expr,
            Chain::Items(mut items) => {
                let root = self.resolve_items(&items, nodes);
                items.clear();
                self.spare.push(items);
                root
            }
        }
    }

    /// The tree of `items` (a well-formed chain: operands and binary operators alternate, prefixes only before
    /// operands).
    fn resolve_items(&mut self, items: &[ChainItem], nodes: &mut impl Nodes) -> ExprId {
        self.operands.clear();
        self.operators.clear();
        for &item in items {
            match item {
                ChainItem::Operand { expr, start, end } => self.operands.push((expr, start, end)),
                ChainItem::Prefix { op, start } => self.operators.push(Pending::Prefix(op, start)),
                ChainItem::Binary(op) => {
                    // Operators on the stack that bind tighter than `op` (or as tightly, when `op` groups to the
                    // left) take their operands now.
                    while let Some(&top) = self.operators.last() {
                        let level = top.level();
                        if level < op.level() || (level == op.level() && op.right_associative()) {
                            break;
                        }
                        self.operators.pop();
                        self.apply(top, nodes);
                    }
                    self.operators.push(Pending::Binary(op));
                }
            }
        }
        while let Some(top) = self.operators.pop() {
            self.apply(top, nodes);
        }
        self.operands.pop().expect("a chain has an operand").0
    }

    fn apply(&mut self, pending: Pending, nodes: &mut impl Nodes) {
        let (rhs, _, end) = self.operands.pop().expect("an operator has a right operand");
        let node = match pending {
            Pending::Prefix(op, start) => (nodes.prefix(op, rhs, start, end), start, end),
            Pending::Binary(op) => {
                let (lhs, start, _) = self.operands.pop().expect("a binary operator has a left operand");
                (nodes.binary(op, lhs, rhs, start, end), start, end)
            }
        };
        self.operands.push(node);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds a parenthesised rendering instead of nodes.
    #[derive(Default)]
    struct Render(Vec<String>);

    impl Render {
        fn leaf(&mut self, text: &str) -> ExprId {
            self.0.push(text.to_string());
            ExprId(self.0.len() as u32 - 1)
        }
    }

    impl Nodes for Render {
        fn binary(&mut self, op: Operator, lhs: ExprId, rhs: ExprId, start: u32, end: u32) -> ExprId {
            let text = format!("({} {op:?} {})[{start}..{end}]", self.0[lhs.index()], self.0[rhs.index()]);
            self.leaf(&text)
        }
        fn prefix(&mut self, op: UnaryOp, operand: ExprId, start: u32, end: u32) -> ExprId {
            let text = format!("({op:?} {})[{start}..{end}]", self.0[operand.index()]);
            self.leaf(&text)
        }
    }

    /// `words`: operands are single letters, operators are spelled as in the source (`~` is prefix `-`).
    fn resolved(words: &str) -> String {
        let mut render = Render::default();
        let mut items = Vec::new();
        for (position, word) in words.split_whitespace().enumerate() {
            let at = position as u32;
            let item = match word {
                "~" => ChainItem::Prefix { op: UnaryOp::Neg, start: at },
                "+" => ChainItem::Binary(Operator::Binary(BinaryOp::Add)),
                "-" => ChainItem::Binary(Operator::Binary(BinaryOp::Sub)),
                "*" => ChainItem::Binary(Operator::Binary(BinaryOp::Mul)),
                "**" => ChainItem::Binary(Operator::Binary(BinaryOp::Pow)),
                "<" => ChainItem::Binary(Operator::Binary(BinaryOp::Lt)),
                "||" => ChainItem::Binary(Operator::Binary(BinaryOp::Or)),
                "&&" => ChainItem::Binary(Operator::Binary(BinaryOp::And)),
                ":=" => ChainItem::Binary(Operator::Assign),
                leaf => ChainItem::Operand { expr: render.leaf(leaf), start: at, end: at + 1 },
            };
            items.push(item);
        }
        let root = Scratch::default().resolve(Chain::Items(items), &mut render);
        render.0[root.index()].clone()
    }

    #[test]
    fn levels_and_associativity() {
        assert_eq!(resolved("a - b - c"), "((a Binary(Sub) b)[0..3] Binary(Sub) c)[0..5]");
        assert_eq!(resolved("a + b * c"), "(a Binary(Add) (b Binary(Mul) c)[2..5])[0..5]");
        assert_eq!(resolved("a ** b ** c"), "(a Binary(Pow) (b Binary(Pow) c)[2..5])[0..5]");
        assert_eq!(resolved("a || b || c"), "(a Binary(Or) (b Binary(Or) c)[2..5])[0..5]");
        assert_eq!(resolved("a < b && c || d"), "(((a Binary(Lt) b)[0..3] Binary(And) c)[0..5] Binary(Or) d)[0..7]");
        assert_eq!(resolved("x := a + b"), "(x Assign (a Binary(Add) b)[2..5])[0..5]");
    }

    #[test]
    fn prefixes_take_a_power_and_bind_tighter_than_products() {
        assert_eq!(resolved("~ x ** y"), "(Neg (x Binary(Pow) y)[1..4])[0..4]");
        assert_eq!(resolved("~ a * b"), "((Neg a)[0..2] Binary(Mul) b)[0..4]");
        assert_eq!(resolved("a ** ~ b * c"), "((a Binary(Pow) (Neg b)[2..4])[0..4] Binary(Mul) c)[0..6]");
        assert_eq!(resolved("a * ~ b ** c"), "(a Binary(Mul) (Neg (b Binary(Pow) c)[3..6])[2..6])[0..6]");
        assert_eq!(resolved("~ ~ a"), "(Neg (Neg a)[1..3])[0..3]");
    }

    /// Records each node's depth only.
    #[derive(Default)]
    struct Depths(Vec<u32>);

    impl Nodes for Depths {
        fn binary(&mut self, _: Operator, lhs: ExprId, rhs: ExprId, _: u32, _: u32) -> ExprId {
            self.0.push(1 + self.0[lhs.index()].max(self.0[rhs.index()]));
            ExprId(self.0.len() as u32 - 1)
        }
        fn prefix(&mut self, _: UnaryOp, operand: ExprId, _: u32, _: u32) -> ExprId {
            self.0.push(1 + self.0[operand.index()]);
            ExprId(self.0.len() as u32 - 1)
        }
    }

    #[test]
    fn long_right_associative_chains_use_no_native_stack() {
        let mut depths = Depths::default();
        let mut items = Vec::new();
        for i in 0..200_000u32 {
            if i > 0 {
                items.push(ChainItem::Binary(Operator::Binary(BinaryOp::Pow)));
            }
            depths.0.push(0);
            items.push(ChainItem::Operand { expr: ExprId(i), start: i, end: i + 1 });
        }
        let root = Scratch::default().resolve(Chain::Items(items), &mut depths);
        assert_eq!(depths.0[root.index()], 199_999);
    }
}

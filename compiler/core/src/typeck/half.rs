//! What the 16-bit floats (`float16`, `bfloat16`) may do beyond `+. -. *. /.`, comparisons, negation, loads and
//! stores: the builtins whose result CUDA computes exactly as skc defines it (conversions, `abs`, `min`, `max`,
//! `fma`, `select`, `atomic_add`, rounded once per add) and the 2-wide vectors' construction, loads and stores. Any
//! other builtin on them, and `**`, is `E0234`, whose help says to convert to float32. The operand types are known
//! only after inference, hence a deferred check.

use crate::builtins::Builtin;
use crate::diagnostic::Diagnostic;
use crate::syntax::ast::ExprId;
use crate::types::Type;

use super::{Checker, Deferred};

/// The builtins defined on the 16-bit floats (with the prelude's overloads: `codegen::prelude`).
const HALF_BUILTINS: &[&str] = &[
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "int32",
    "int64",
    "uint32",
    "uint64",
    "abs",
    "fabs",
    "min",
    "max",
    "fmin",
    "fmax",
    "fma",
    "select",
    "ignore",
    "atomic_add",
    "make_float16x2",
    "make_bfloat16x2",
    "load_float16x2",
    "load_bfloat16x2",
    "store_float16x2",
    "store_bfloat16x2",
    "atomic_add_float16x2",
    "atomic_add_bfloat16x2",
];

/// An operation to check once its operands' types are known.
#[derive(Clone, Debug)]
pub(crate) enum HalfUse {
    /// A builtin call, with the types of its arguments and result.
    Builtin { builtin: &'static Builtin, types: Vec<Type> },
    /// `a ** b`, with the operands' type.
    Power { operand: Type },
}

/// Is `builtin` defined on 16-bit floats (so a call needs no check of its operands' types)?
pub(crate) fn allows_half(builtin: &Builtin) -> bool {
    HALF_BUILTINS.contains(&builtin.name)
}

impl Checker<'_> {
    pub(crate) fn defer_half_check(&mut self, expr: ExprId, what: HalfUse) {
        let allowed = match &what {
            HalfUse::Builtin { builtin, .. } => allows_half(builtin),
            HalfUse::Power { .. } => false,
        };
        if !allowed {
            self.deferred.push(Deferred::Half { expr, what });
        }
    }

    pub(crate) fn finish_half_check(&mut self, expr: ExprId, what: &HalfUse) {
        let types = match what {
            HalfUse::Builtin { types, .. } => types.as_slice(),
            HalfUse::Power { operand } => std::slice::from_ref(operand),
        };
        // A type that resolves to a scalar (most of them) is tested in place; the others are zonked (copied).
        let half_of = |t: &Type| match self.vars.resolve_ref(t) {
            resolved if resolved.is_numeric() || matches!(resolved, Type::Bool | Type::Unit | Type::Error) => {
                resolved.is_half().then(|| resolved.clone())
            }
            _ => Some(self.vars.zonk(t)).filter(|t| t.is_half() || half_array(t)),
        };
        let Some(half) = types.iter().find_map(half_of) else {
            return;
        };
        let shown = self.info.display(&half);
        let name = match &what {
            HalfUse::Builtin { builtin, .. } => format!("`{}`", builtin.name),
            HalfUse::Power { .. } => "`**`".to_string(),
        };
        let d = Diagnostic::error("E0234", format!("{name} is not defined on {shown}"))
            .primary(self.span(expr), format!("this uses a {shown}"))
            .note("a 16-bit float has conversions, arithmetic (`+. -. *. /.`), comparisons, `abs`, `min`, `max`, `fma` and `atomic_add`")
            .help("convert to float32 for the computation (`float32 x`) and back to the 16-bit type for the result");
        self.diagnostics.push(d);
    }
}

/// An array of 16-bit floats (an atomic's or a vector load's first argument).
fn half_array(ty: &Type) -> bool {
    ty.element().is_some_and(|e| e.is_half())
}

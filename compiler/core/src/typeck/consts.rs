//! Constant evaluation: the value of a top-level constant, of an array size or of `T[N]`, computed at compile time
//! with the arithmetic of the target types (wrapping 32/64-bit integers, float32 rounding). Also parses the values
//! of `-D NAME=VALUE` overrides.

use crate::builtins::Builtin;
use crate::syntax::ast::{BinaryOp, ExprId, ExprKind, UnaryOp};
use crate::types::{ConstValue, Resolution, Type};

use super::Checker;

/// Why an expression has no compile-time value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EvalError {
    /// This sub-expression is not computable at compile time.
    NotConstant(ExprId),
    /// Computable, but the operation is invalid (division by zero, shift out of range).
    Invalid(ExprId, &'static str),
    /// It uses a constant that already failed (already reported).
    Poisoned,
}

type Eval = Result<ConstValue, EvalError>;

/// Deepest nesting evaluated.
const MAX_EVAL_DEPTH: u32 = 500;

impl Checker<'_> {
    /// The compile-time value of an expression already type-checked.
    pub(crate) fn eval_const(&self, id: ExprId) -> Eval {
        self.eval_at(id, 0)
    }

    fn eval_at(&self, id: ExprId, depth: u32) -> Eval {
        if depth > MAX_EVAL_DEPTH {
            return Err(EvalError::NotConstant(id));
        }
        let depth = depth + 1;
        match self.kind(id) {
            ExprKind::Int { value, .. } => Ok(ConstValue::Int(wrap_int(*value as i128, &self.concrete_type(id)))),
            ExprKind::Float { value, .. } => Ok(ConstValue::Float(round_float(*value, &self.concrete_type(id)))),
            ExprKind::Bool(b) => Ok(ConstValue::Bool(*b)),
            ExprKind::Var(_) | ExprKind::Global(_) => self.eval_name(id),
            ExprKind::Unary { op, operand } => self.eval_unary(id, *op, *operand, depth),
            ExprKind::Binary { op, lhs, rhs } => self.eval_binary(id, *op, *lhs, *rhs, depth),
            ExprKind::Call { args, .. } => self.eval_call(id, args, depth),
            ExprKind::Annot { expr, .. } => self.eval_at(*expr, depth),
            ExprKind::ArrayLit(items) => {
                items.iter().map(|e| self.eval_at(*e, depth)).collect::<Result<Vec<_>, _>>().map(ConstValue::Array)
            }
            ExprKind::Index { array, index } => self.eval_index(id, *array, *index, depth),
            _ => Err(EvalError::NotConstant(id)),
        }
    }

    /// Can [`Checker::eval_const`] of `id` give a value? `false` where it surely fails whatever the types turn
    /// out to be: every operand is evaluated, and a name has a value only if it is a constant or a builtin with
    /// one. Asked by `check_if` while the condition's nodes are fresh in the cache, so that `finish` evaluates
    /// only the conditions that may be constant (most read a local or `thread_idx_x`).
    pub(crate) fn may_be_constant(&self, id: ExprId, depth: u32) -> bool {
        if depth > MAX_EVAL_DEPTH {
            return true;
        }
        let depth = depth + 1;
        match self.kind(id) {
            ExprKind::Var(_) | ExprKind::Global(_) => match self.info.resolution(id) {
                Some(Resolution::Constant(_)) => true,
                Some(Resolution::Builtin(builtin)) => builtin.value.is_some(),
                Some(Resolution::Local(_) | Resolution::Function(_)) | None => false,
            },
            ExprKind::Unary { operand, .. } => self.may_be_constant(*operand, depth),
            ExprKind::Binary { lhs, rhs, .. } => self.may_be_constant(*lhs, depth) && self.may_be_constant(*rhs, depth),
            ExprKind::Annot { expr, .. } => self.may_be_constant(*expr, depth),
            ExprKind::Call { args, .. } => match self.info.resolution(id) {
                Some(Resolution::Builtin(builtin)) if builtin.value.is_some() => true,
                Some(Resolution::Builtin(builtin))
                    if !builtin.params.is_empty() && builtin.params.len() == args.len() =>
                {
                    args.iter().all(|arg| self.may_be_constant(*arg, depth))
                }
                _ => false,
            },
            ExprKind::ArrayLit(items) => items.iter().all(|item| self.may_be_constant(*item, depth)),
            ExprKind::Index { array, index } => {
                self.may_be_constant(*array, depth) && self.may_be_constant(*index, depth)
            }
            ExprKind::Int { .. } | ExprKind::Float { .. } | ExprKind::Bool(_) => true,
            _ => false,
        }
    }

    /// The type of `id` with unbound variables read as their class default (evaluation can run before defaulting).
    pub(crate) fn concrete_type(&self, id: ExprId) -> Type {
        let ty = self.vars.zonk(&self.type_of(id));
        if let Some(class) = self.vars.class_of(&ty) {
            return class.default_type().unwrap_or(Type::Error);
        }
        ty
    }

    fn eval_name(&self, id: ExprId) -> Eval {
        match self.info.resolution(id) {
            Some(Resolution::Constant(c)) => {
                let index = c.0 as usize;
                if self.failed_constants.get(index).copied().unwrap_or(true) {
                    return Err(EvalError::Poisoned);
                }
                if !self.evaluated_constants.get(index).copied().unwrap_or(false) {
                    return Err(EvalError::NotConstant(id));
                }
                self.info.constants.get(index).map(|c| c.value.clone()).ok_or(EvalError::Poisoned)
            }
            // Most builtin names (`thread_idx_x`) have no constant value: their type is not worked out.
            Some(Resolution::Builtin(builtin)) if builtin.value.is_some() => {
                builtin_constant(builtin.get(), &self.concrete_type(id)).ok_or(EvalError::NotConstant(id))
            }
            Some(Resolution::Builtin(_)) => Err(EvalError::NotConstant(id)),
            None if self.type_of(id) == Type::Error => Err(EvalError::Poisoned),
            _ => Err(EvalError::NotConstant(id)),
        }
    }

    fn eval_unary(&self, id: ExprId, op: UnaryOp, operand: ExprId, depth: u32) -> Eval {
        let value = self.eval_at(operand, depth)?;
        let ty = self.concrete_type(id);
        match (op, value) {
            (UnaryOp::Neg | UnaryOp::FNeg, ConstValue::Int(v)) => Ok(ConstValue::Int(wrap_int(-as_wide(v, &ty), &ty))),
            (UnaryOp::Neg | UnaryOp::FNeg, ConstValue::Float(v)) => Ok(ConstValue::Float(-v)),
            (UnaryOp::Not, ConstValue::Bool(b)) => Ok(ConstValue::Bool(!b)),
            (UnaryOp::Lnot, ConstValue::Int(v)) => Ok(ConstValue::Int(wrap_int(!as_wide(v, &ty), &ty))),
            _ => Err(EvalError::NotConstant(id)),
        }
    }

    fn eval_binary(&self, id: ExprId, op: BinaryOp, lhs: ExprId, rhs: ExprId, depth: u32) -> Eval {
        let a = self.eval_at(lhs, depth)?;
        let b = self.eval_at(rhs, depth)?;
        let operand_ty = self.concrete_type(lhs);
        match (a, b) {
            (ConstValue::Int(a), ConstValue::Int(b)) => int_binary(op, a, b, &operand_ty).map_err(|why| why.at(id)),
            (ConstValue::Float(a), ConstValue::Float(b)) => {
                float_binary(op, a, b, &operand_ty).ok_or(EvalError::NotConstant(id))
            }
            (ConstValue::Bool(a), ConstValue::Bool(b)) => bool_binary(op, a, b).ok_or(EvalError::NotConstant(id)),
            _ => Err(EvalError::NotConstant(id)),
        }
    }

    fn eval_call(&self, id: ExprId, args: &[ExprId], depth: u32) -> Eval {
        let Some(Resolution::Builtin(builtin)) = self.info.resolution(id) else {
            return Err(EvalError::NotConstant(id));
        };
        if builtin.value.is_some() {
            return builtin_constant(builtin.get(), &self.concrete_type(id)).ok_or(EvalError::NotConstant(id));
        }
        if builtin.params.is_empty() || builtin.params.len() != args.len() {
            return Err(EvalError::NotConstant(id));
        }
        let values = args.iter().map(|a| self.eval_at(*a, depth)).collect::<Result<Vec<_>, _>>()?;
        let arg_ty = args.first().map(|a| self.concrete_type(*a)).unwrap_or(Type::Error);
        eval_builtin(builtin.get(), &values, &arg_ty, &self.concrete_type(id)).ok_or(EvalError::NotConstant(id))
    }

    fn eval_index(&self, id: ExprId, array: ExprId, index: ExprId, depth: u32) -> Eval {
        let (ConstValue::Array(items), ConstValue::Int(i)) = (self.eval_at(array, depth)?, self.eval_at(index, depth)?)
        else {
            return Err(EvalError::NotConstant(id));
        };
        usize::try_from(i).ok().and_then(|i| items.get(i).cloned()).ok_or(EvalError::Invalid(id, "index out of bounds"))
    }
}

/// A failed integer operation, before it is attached to its expression.
enum IntFailure {
    NotConstant,
    Invalid(&'static str),
}

impl IntFailure {
    fn at(self, id: ExprId) -> EvalError {
        match self {
            IntFailure::NotConstant => EvalError::NotConstant(id),
            IntFailure::Invalid(why) => EvalError::Invalid(id, why),
        }
    }
}

fn bit_width(ty: &Type) -> u32 {
    match ty {
        Type::Int64 | Type::UInt64 => 64,
        _ => 32,
    }
}

/// The mathematical value of stored bits `v` read as type `ty`.
fn as_wide(v: i64, ty: &Type) -> i128 {
    match ty {
        Type::UInt32 => v as u32 as i128,
        Type::UInt64 => v as u64 as i128,
        Type::Int64 => v as i128,
        _ => v as i32 as i128,
    }
}

/// Wraps a mathematical value to type `ty`, stored as the bits of an `i64` (`uint64` above `i64::MAX` included).
pub(crate) fn wrap_int(v: i128, ty: &Type) -> i64 {
    match ty {
        Type::UInt32 => v as u32 as i64,
        Type::UInt64 => v as u64 as i64,
        Type::Int64 => v as i64,
        _ => v as i32 as i64,
    }
}

pub(crate) fn round_float(v: f64, ty: &Type) -> f64 {
    match ty {
        Type::Float64 => v,
        Type::Float16 | Type::BFloat16 => {
            let format = ty.half_format().expect("a 16-bit float");
            format.to_f64(format.from_f64(v))
        }
        _ => v as f32 as f64,
    }
}

fn int_binary(op: BinaryOp, a: i64, b: i64, ty: &Type) -> Result<ConstValue, IntFailure> {
    use BinaryOp::*;
    let (x, y) = (as_wide(a, ty), as_wide(b, ty));
    let int = |v: i128| Ok(ConstValue::Int(wrap_int(v, ty)));
    match op {
        Add => int(x.wrapping_add(y)),
        Sub => int(x.wrapping_sub(y)),
        Mul => int(x.wrapping_mul(y)),
        Div | Mod if y == 0 => Err(IntFailure::Invalid("division by zero")),
        Div => int(x / y),
        Mod => int(x % y),
        Land => int(x & y),
        Lor => int(x | y),
        Lxor => int(x ^ y),
        Lsl | Lsr | Asr => shift(op, x, y, ty),
        Eq => Ok(ConstValue::Bool(x == y)),
        Ne => Ok(ConstValue::Bool(x != y)),
        Lt => Ok(ConstValue::Bool(x < y)),
        Le => Ok(ConstValue::Bool(x <= y)),
        Gt => Ok(ConstValue::Bool(x > y)),
        Ge => Ok(ConstValue::Bool(x >= y)),
        FAdd | FSub | FMul | FDiv | Pow | And | Or => Err(IntFailure::NotConstant),
    }
}

fn shift(op: BinaryOp, x: i128, amount: i128, ty: &Type) -> Result<ConstValue, IntFailure> {
    let width = bit_width(ty);
    if amount < 0 || amount >= width as i128 {
        return Err(IntFailure::Invalid("shift amount out of range"));
    }
    let amount = amount as u32;
    let mask: i128 = (1i128 << width) - 1;
    let signed = |v: i128| {
        if width == 32 {
            v as i32 as i128
        } else {
            v as i64 as i128
        }
    };
    let v = match op {
        BinaryOp::Lsl => x << amount,
        BinaryOp::Lsr => (x & mask) >> amount,
        _ => signed(x) >> amount,
    };
    Ok(ConstValue::Int(wrap_int(v, ty)))
}

fn float_binary(op: BinaryOp, a: f64, b: f64, ty: &Type) -> Option<ConstValue> {
    use BinaryOp::*;
    if let Some(format) = ty.half_format() {
        // The operands are values of the type (exact in f64); `half_float` rounds as the GPU does.
        let (x, y) = (format.from_f64(a), format.from_f64(b));
        let half = |bits: u16| Some(ConstValue::Float(format.to_f64(bits)));
        match op {
            Add | FAdd => return half(format.add(x, y)),
            Sub | FSub => return half(format.sub(x, y)),
            Mul | FMul => return half(format.mul(x, y)),
            Div | FDiv => return half(format.div(x, y)),
            Pow => return None,
            _ => {}
        }
    }
    let float = |v: f64| Some(ConstValue::Float(round_float(v, ty)));
    match op {
        Add | FAdd => float(a + b),
        Sub | FSub => float(a - b),
        Mul | FMul => float(a * b),
        Div | FDiv => float(a / b),
        Pow => float(a.powf(b)),
        Eq => Some(ConstValue::Bool(a == b)),
        Ne => Some(ConstValue::Bool(a != b)),
        Lt => Some(ConstValue::Bool(a < b)),
        Le => Some(ConstValue::Bool(a <= b)),
        Gt => Some(ConstValue::Bool(a > b)),
        Ge => Some(ConstValue::Bool(a >= b)),
        Mod | Land | Lor | Lxor | Lsl | Lsr | Asr | And | Or => None,
    }
}

fn bool_binary(op: BinaryOp, a: bool, b: bool) -> Option<ConstValue> {
    match op {
        BinaryOp::And => Some(ConstValue::Bool(a && b)),
        BinaryOp::Or => Some(ConstValue::Bool(a || b)),
        BinaryOp::Eq => Some(ConstValue::Bool(a == b)),
        BinaryOp::Ne => Some(ConstValue::Bool(a != b)),
        _ => None,
    }
}

/// The value of a named float constant (`infinity`, `max_float32`...) in its type.
fn builtin_constant(builtin: &Builtin, ty: &Type) -> Option<ConstValue> {
    let value = builtin.value?.value(*ty == Type::Float32);
    Some(ConstValue::Float(value))
}

/// `select`, the conversions, `min`, `max` and `abs` on constant arguments.
fn eval_builtin(builtin: &Builtin, args: &[ConstValue], arg_ty: &Type, result_ty: &Type) -> Option<ConstValue> {
    match (builtin.name, args) {
        ("select", [ConstValue::Bool(c), a, b]) => Some(if *c { a.clone() } else { b.clone() }),
        ("float32" | "float64" | "float16" | "bfloat16" | "int32" | "int64" | "uint32" | "uint64", [value]) => {
            convert(value, arg_ty, result_ty)
        }
        ("min" | "max", [ConstValue::Float(a), ConstValue::Float(b)]) if arg_ty.is_half() => {
            let format = arg_ty.half_format()?;
            let (x, y) = (format.from_f64(*a), format.from_f64(*b));
            let bits = if builtin.name == "min" { format.min(x, y) } else { format.max(x, y) };
            Some(ConstValue::Float(format.to_f64(bits)))
        }
        ("min" | "max", [a, b]) => min_max(builtin.name == "min", a, b, arg_ty),
        ("abs", [ConstValue::Int(v)]) => Some(ConstValue::Int(wrap_int(as_wide(*v, arg_ty).abs(), arg_ty))),
        ("abs", [ConstValue::Float(v)]) => Some(ConstValue::Float(v.abs())),
        ("pow" | "spoc_powint", [ConstValue::Int(a), ConstValue::Int(b)]) => {
            let signed = matches!(arg_ty, Type::Int32 | Type::Int64);
            // A signed overflow is undefined; the constant wraps, as `*` does here.
            let (value, _overflowed) = crate::integer_power::integer_power(
                as_wide(*a, arg_ty),
                as_wide(*b, arg_ty),
                bit_width(arg_ty),
                signed,
            );
            Some(ConstValue::Int(wrap_int(value, arg_ty)))
        }
        _ => None,
    }
}

fn convert(value: &ConstValue, from: &Type, to: &Type) -> Option<ConstValue> {
    let wide: f64 = match value {
        ConstValue::Int(v) if to.is_integer() => return Some(ConstValue::Int(wrap_int(as_wide(*v, from), to))),
        ConstValue::Int(v) if to.is_half() => {
            // Rounded once from the exact integer (through float64 it could round twice).
            let format = to.half_format()?;
            return Some(ConstValue::Float(format.to_f64(format.from_integer(as_wide(*v, from)))));
        }
        ConstValue::Int(v) => as_wide(*v, from) as f64,
        ConstValue::Float(v) => *v,
        _ => return None,
    };
    if to.is_float() {
        Some(ConstValue::Float(round_float(wide, to)))
    } else {
        Some(ConstValue::Int(float_to_integer(wide, to)))
    }
}

/// A float converted to an integer type as CUDA converts it at run time (`cvt.rzi`, `__float2int_rz`): truncated
/// toward zero, saturated to the type's range, NaN to 0. (Rust's `as` from a float has exactly these semantics.)
pub(crate) fn float_to_integer(value: f64, to: &Type) -> i64 {
    match to {
        Type::UInt32 => i64::from(value as u32),
        Type::UInt64 => value as u64 as i64,
        Type::Int64 => value as i64,
        _ => i64::from(value as i32),
    }
}

fn min_max(min: bool, a: &ConstValue, b: &ConstValue, ty: &Type) -> Option<ConstValue> {
    match (a, b) {
        (ConstValue::Int(x), ConstValue::Int(y)) => {
            let pick_x = (as_wide(*x, ty) <= as_wide(*y, ty)) == min;
            Some(ConstValue::Int(if pick_x { *x } else { *y }))
        }
        (ConstValue::Float(x), ConstValue::Float(y)) => {
            Some(ConstValue::Float(if min { x.min(*y) } else { x.max(*y) }))
        }
        _ => None,
    }
}

/// The value of `-D NAME=VALUE` for a constant of type `ty`, or why it does not fit.
pub(crate) fn parse_define(text: &str, ty: &Type) -> Result<ConstValue, String> {
    let text = text.trim();
    match ty {
        Type::Bool => match text {
            "true" => Ok(ConstValue::Bool(true)),
            "false" => Ok(ConstValue::Bool(false)),
            _ => Err("expected `true` or `false`".to_string()),
        },
        t if t.is_float() => {
            let digits = text.trim_end_matches(['f', 'd']).replace('_', "");
            let v: f64 = digits.parse().map_err(|_| "expected a float literal".to_string())?;
            let rounded = round_float(v, t);
            if !digits.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+' || c == '.') {
                return Err("expected a float literal".to_string());
            }
            if !rounded.is_finite() {
                return Err(format!("{text} is out of range for this type"));
            }
            Ok(ConstValue::Float(rounded))
        }
        t if t.is_integer() => parse_integer(text, t).map(ConstValue::Int),
        _ => Err("only numbers and booleans can be overridden".to_string()),
    }
}

fn parse_integer(text: &str, ty: &Type) -> Result<i64, String> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let digits = digits.trim_end_matches(['l', 'L', 'u', 'U']).replace('_', "");
    let magnitude = if let Some(hex) = digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
        i128::from_str_radix(hex, 16)
    } else {
        digits.parse::<i128>()
    }
    .map_err(|_| "expected an integer literal".to_string())?;
    let value = if negative { -magnitude } else { magnitude };
    let (min, max): (i128, i128) = match ty {
        Type::Int64 => (i64::MIN as i128, i64::MAX as i128),
        Type::UInt32 => (0, u32::MAX as i128),
        Type::UInt64 => (0, u64::MAX as i128),
        _ => (i32::MIN as i128, i32::MAX as i128),
    };
    if value < min || value > max {
        return Err(format!("{value} does not fit in this type"));
    }
    Ok(wrap_int(value, ty))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_arithmetic_wraps_per_type() {
        let int = |op, a, b, ty: Type| match int_binary(op, a, b, &ty) {
            Ok(ConstValue::Int(v)) => v,
            _ => panic!("not an int"),
        };
        assert_eq!(int(BinaryOp::Add, i32::MAX as i64, 1, Type::Int32), i32::MIN as i64);
        assert_eq!(int(BinaryOp::Sub, 0, 1, Type::UInt32), u32::MAX as i64);
        assert_eq!(int(BinaryOp::Lsr, -1, 28, Type::Int32), 15);
        assert_eq!(int(BinaryOp::Asr, -16, 2, Type::Int32), -4);
        assert_eq!(int(BinaryOp::Div, 7, -2, Type::Int32), -3);
        assert!(int_binary(BinaryOp::Div, 1, 0, &Type::Int32).is_err());
        assert!(int_binary(BinaryOp::Lsl, 1, 32, &Type::Int32).is_err());
    }

    #[test]
    fn float_to_integer_saturates() {
        assert_eq!(float_to_integer(3.9e9, &Type::Int32), i64::from(i32::MAX));
        assert_eq!(float_to_integer(-3.9e9, &Type::Int32), i64::from(i32::MIN));
        assert_eq!(float_to_integer(-1.5, &Type::UInt32), 0);
        assert_eq!(float_to_integer(1e30, &Type::Int64), i64::MAX);
        assert_eq!(float_to_integer(f64::NAN, &Type::Int64), 0);
        assert_eq!(float_to_integer(-2.9, &Type::Int32), -2);
        assert_eq!(float_to_integer(1e30, &Type::UInt64) as u64, u64::MAX);
    }

    #[test]
    fn defines_parse_by_type() {
        assert_eq!(parse_define("42", &Type::Int32), Ok(ConstValue::Int(42)));
        assert_eq!(parse_define("-3L", &Type::Int64), Ok(ConstValue::Int(-3)));
        assert!(parse_define("-1", &Type::UInt32).is_err());
        assert!(parse_define("1.5", &Type::Int32).is_err());
        assert_eq!(parse_define("0.5", &Type::Float64), Ok(ConstValue::Float(0.5)));
        assert!(parse_define("1e39", &Type::Float32).is_err());
        assert_eq!(parse_define("1e39", &Type::Float64), Ok(ConstValue::Float(1e39)));
        assert!(parse_define("inf", &Type::Float64).is_err());
        assert!(parse_define("nan", &Type::Float32).is_err());
        assert_eq!(parse_define("true", &Type::Bool), Ok(ConstValue::Bool(true)));
        assert!(parse_define("yes", &Type::Bool).is_err());
    }
}

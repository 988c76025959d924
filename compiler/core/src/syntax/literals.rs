//! Integer and float literals: their values, suffixes and ranges.

use crate::diagnostic::Diagnostic;
use crate::source::Span;
use crate::syntax::ast::{ExprKind, FloatSuffix, IntSuffix};

pub enum IntLiteral {
    Fits(ExprKind),
    /// Fits only as the operand of a unary minus (`2147483648` in `-2147483648`).
    OnlyNegated(ExprKind),
    OutOfRange,
}

/// An int32 literal written in decimal must fit int32; in hex or binary it may spell any 32-bit pattern.
pub fn int(text: &str) -> IntLiteral {
    let (digits, suffix) = split_int_suffix(text);
    let digits = without_underscores(digits);
    let decimal = !digits.starts_with("0x")
        && !digits.starts_with("0X")
        && !digits.starts_with("0b")
        && !digits.starts_with("0B");
    let parsed = if let Some(hex) = digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16)
    } else if let Some(bin) = digits.strip_prefix("0b").or(digits.strip_prefix("0B")) {
        u64::from_str_radix(bin, 2)
    } else {
        digits.parse::<u64>()
    };
    let Ok(value) = parsed else { return IntLiteral::OutOfRange };
    let fits = |negated: bool| {
        let limit = match suffix {
            None | Some(IntSuffix::L32) if decimal => i32::MAX as u64 + negated as u64,
            None | Some(IntSuffix::L32) => u32::MAX as u64,
            Some(IntSuffix::U32) => u32::MAX as u64,
            Some(IntSuffix::L64) | Some(IntSuffix::U64) => u64::MAX,
        };
        value <= limit && !(decimal && suffix == Some(IntSuffix::L64) && value > i64::MAX as u64 + negated as u64)
    };
    if fits(false) {
        IntLiteral::Fits(ExprKind::Int { value, suffix })
    } else if fits(true) {
        IntLiteral::OnlyNegated(ExprKind::Int { value, suffix })
    } else {
        IntLiteral::OutOfRange
    }
}

pub fn out_of_range(span: Span) -> Diagnostic {
    Diagnostic::error("E0102", "integer literal out of range")
        .primary(span, "does not fit its type")
        .help("add the suffix `L` for int64 or `UL` for uint64")
}

pub fn float(text: &str) -> Option<ExprKind> {
    let (digits, suffix) = match text.as_bytes().last() {
        Some(b'f') => (&text[..text.len() - 1], Some(FloatSuffix::F32)),
        Some(b'd') => (&text[..text.len() - 1], Some(FloatSuffix::F64)),
        Some(b'h') => (&text[..text.len() - 1], Some(FloatSuffix::F16)),
        _ => (text, None),
    };
    let value = without_underscores(digits).parse::<f64>().ok()?;
    Some(ExprKind::Float { value, suffix })
}

/// The digits of a literal without its `_` separators (borrowed when it has none, as nearly every literal).
fn without_underscores(digits: &str) -> std::borrow::Cow<'_, str> {
    if digits.contains('_') {
        std::borrow::Cow::Owned(digits.chars().filter(|&c| c != '_').collect())
    } else {
        std::borrow::Cow::Borrowed(digits)
    }
}

fn split_int_suffix(text: &str) -> (&str, Option<IntSuffix>) {
    for (suffix, kind) in [("UL", IntSuffix::U64), ("ul", IntSuffix::U64)] {
        if let Some(d) = text.strip_suffix(suffix) {
            return (d, Some(kind));
        }
    }
    let is_hex = text.starts_with("0x") || text.starts_with("0X");
    match text.as_bytes().last() {
        Some(b'l') => (&text[..text.len() - 1], Some(IntSuffix::L32)),
        Some(b'L') => (&text[..text.len() - 1], Some(IntSuffix::L64)),
        Some(b'u') | Some(b'U') if !is_hex || !text.ends_with(|c: char| c.is_ascii_hexdigit()) => {
            (&text[..text.len() - 1], Some(IntSuffix::U32))
        }
        _ => (text, None),
    }
}

//! C types and C literals for `.sk` types and values: `int32` is `int`, `float32 vector` a `float*`, a record its
//! `struct`; literals carry the suffix of their type (`1.0f`, `5LL`, `7u`, `9ull`) and never overflow C's own
//! literal rules (`INT_MIN` is `(-2147483647 - 1)`, infinities are `(1.0f / 0.0f)`).

use serde::Serialize;

use crate::types::{ConstValue, Type};

/// The scalar types a kernel parameter, a vector element or a dynamic shared array can have: the one description
/// of them that the emitter, skc-build and skc-runtime (as `ScalarType`) share.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ScalarKind {
    Int32,
    Int64,
    UInt32,
    UInt64,
    Float32,
    Float64,
    /// Carried as its 16 bits (`u16` on the host).
    Float16,
    /// Carried as its 16 bits (`u16` on the host).
    BFloat16,
    Bool,
}

impl ScalarKind {
    pub fn of(ty: &Type) -> Option<ScalarKind> {
        Some(match ty {
            Type::Int32 => ScalarKind::Int32,
            Type::Int64 => ScalarKind::Int64,
            Type::UInt32 => ScalarKind::UInt32,
            Type::UInt64 => ScalarKind::UInt64,
            Type::Float32 => ScalarKind::Float32,
            Type::Float64 => ScalarKind::Float64,
            Type::Float16 => ScalarKind::Float16,
            Type::BFloat16 => ScalarKind::BFloat16,
            Type::Bool => ScalarKind::Bool,
            _ => return None,
        })
    }

    /// The C spelling.
    pub fn c_name(self) -> &'static str {
        match self {
            ScalarKind::Int32 => "int",
            ScalarKind::Int64 => "long long",
            ScalarKind::UInt32 => "unsigned int",
            ScalarKind::UInt64 => "unsigned long long",
            ScalarKind::Float32 => "float",
            ScalarKind::Float64 => "double",
            ScalarKind::Float16 => "skc_float16",
            ScalarKind::BFloat16 => "skc_bfloat16",
            ScalarKind::Bool => "bool",
        }
    }

    /// Size in bytes (also the alignment).
    pub fn size(self) -> u32 {
        match self {
            ScalarKind::Bool => 1,
            ScalarKind::Float16 | ScalarKind::BFloat16 => 2,
            ScalarKind::Int32 | ScalarKind::UInt32 | ScalarKind::Float32 => 4,
            ScalarKind::Int64 | ScalarKind::UInt64 | ScalarKind::Float64 => 8,
        }
    }

    /// The `.sk` spelling (`float32`), as diagnostics and errors print it.
    pub fn sk_name(self) -> &'static str {
        match self {
            ScalarKind::Int32 => "int32",
            ScalarKind::Int64 => "int64",
            ScalarKind::UInt32 => "uint32",
            ScalarKind::UInt64 => "uint64",
            ScalarKind::Float32 => "float32",
            ScalarKind::Float64 => "float64",
            ScalarKind::Float16 => "float16",
            ScalarKind::BFloat16 => "bfloat16",
            ScalarKind::Bool => "bool",
        }
    }

    /// The Rust type that carries it on the host (`f32`).
    pub fn rust_name(self) -> &'static str {
        match self {
            ScalarKind::Int32 => "i32",
            ScalarKind::Int64 => "i64",
            ScalarKind::UInt32 => "u32",
            ScalarKind::UInt64 => "u64",
            ScalarKind::Float32 => "f32",
            ScalarKind::Float64 => "f64",
            ScalarKind::Float16 => "::skc_runtime::Float16",
            ScalarKind::BFloat16 => "::skc_runtime::BFloat16",
            ScalarKind::Bool => "bool",
        }
    }

    pub fn is_integer(self) -> bool {
        matches!(self, ScalarKind::Int32 | ScalarKind::Int64 | ScalarKind::UInt32 | ScalarKind::UInt64)
    }
}

impl std::fmt::Display for ScalarKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.sk_name())
    }
}

/// C type names of records, indexed by `RecordId`.
pub struct CTypes<'a> {
    pub record_names: &'a [String],
}

impl CTypes<'_> {
    /// The C type of a value of type `ty` (for declarations and casts). Arrays and vectors are pointers; a `ref`
    /// is its contents (the cell is a plain C local). Types that should not reach the emitter become `int`.
    pub fn c_type(&self, ty: &Type) -> String {
        match ty {
            Type::Unit => "void".into(),
            Type::Vector(elem) | Type::Array { elem, .. } => format!("{}*", self.c_type(elem)),
            Type::ConstArray { elem, .. } => format!("const {}*", self.c_type(elem)),
            Type::Ref(inner) => self.c_type(inner),
            Type::Record(id) => {
                self.record_names.get(id.0 as usize).cloned().unwrap_or_else(|| "int /* unknown record */".into())
            }
            Type::Var(_) | Type::Error => "int".into(),
            scalar => ScalarKind::of(scalar).map(|k| k.c_name().to_string()).unwrap_or_else(|| "int".into()),
        }
    }

    /// `T{}`: a value of the type, for code that is never reached but must compile.
    pub fn default_value(&self, ty: &Type) -> String {
        match ty {
            Type::Unit => String::new(),
            Type::Bool => "false".into(),
            Type::Vector(_) | Type::Array { .. } | Type::ConstArray { .. } => "nullptr".into(),
            other => format!("{}{{}}", self.c_type(other)),
        }
    }
}

/// An integer literal of type `ty` whose bits are `bits` (as the parser stores them).
pub fn int_literal(bits: u64, ty: &Type, hex: bool) -> String {
    match ty {
        Type::Int64 => signed_literal(bits as i64, i64::MIN, "LL", hex),
        Type::UInt32 => unsigned_literal(bits as u32 as u64, "u", hex),
        Type::UInt64 => unsigned_literal(bits, "ull", hex),
        Type::Float32 | Type::Float64 | Type::Float16 | Type::BFloat16 => float_literal(bits as f64, ty),
        _ => signed_literal(bits as u32 as i32 as i64, i32::MIN as i64, "", hex),
    }
}

fn signed_literal(value: i64, min: i64, suffix: &str, hex: bool) -> String {
    if value == min {
        // `-2147483648` is `-(2147483648)`, and 2147483648 does not fit an int.
        return format!("({}{suffix} - 1)", min + 1);
    }
    if value < 0 {
        return format!("{value}{suffix}");
    }
    if hex {
        format!("0x{value:X}{suffix}")
    } else {
        format!("{value}{suffix}")
    }
}

fn unsigned_literal(value: u64, suffix: &str, hex: bool) -> String {
    if hex {
        format!("0x{value:X}{suffix}")
    } else {
        format!("{value}{suffix}")
    }
}

/// A float literal of type `ty` (float32 unless `ty` is float64): shortest round-trip digits, always with a `.` or
/// an exponent; infinities and NaN as constant expressions.
pub fn float_literal(value: f64, ty: &Type) -> String {
    if let Some(format) = ty.half_format() {
        // A 16-bit float is a struct of its bits (`skc_float16{0x3C00}` is 1.0): a constant expression.
        let name = ScalarKind::of(ty).map(ScalarKind::c_name).unwrap_or("int");
        return format!("{name}{{0x{:04X}}}", format.from_f64(value));
    }
    let single = !matches!(ty, Type::Float64);
    let (one, zero) = if single { ("1.0f", "0.0f") } else { ("1.0", "0.0") };
    // Rounded to the type first: a float64 value beyond float32's range is a float32 infinity, whose digits
    // (`inf`) are no C token.
    let value = if single { value as f32 as f64 } else { value };
    if value.is_nan() {
        return format!("({zero} / {zero})");
    }
    if value.is_infinite() {
        let sign = if value < 0.0 { "-" } else { "" };
        return format!("({sign}{one} / {zero})");
    }
    let mut digits = if single { format!("{:?}", value as f32) } else { format!("{value:?}") };
    if !digits.contains(['.', 'e', 'E']) {
        digits.push_str(".0");
    }
    if single {
        digits.push('f');
    }
    digits
}

pub fn bool_literal(b: bool) -> &'static str {
    if b {
        "true"
    } else {
        "false"
    }
}

/// The C text of a constant's value (a brace list for arrays).
pub fn const_value(value: &ConstValue, ty: &Type) -> String {
    match value {
        ConstValue::Int(i) => int_literal(*i as u64, ty, false),
        ConstValue::Float(f) => float_literal(*f, ty),
        ConstValue::Bool(b) => bool_literal(*b).into(),
        ConstValue::Array(items) => {
            let elem = ty.element().cloned().unwrap_or(Type::Int32);
            let items: Vec<String> = items.iter().map(|v| const_value(v, &elem)).collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals() {
        assert_eq!(int_literal(5, &Type::Int32, false), "5");
        assert_eq!(int_literal(0x8000_0000, &Type::Int32, false), "(-2147483647 - 1)");
        assert_eq!(int_literal(0xFFFF_FFFF, &Type::Int32, true), "-1");
        assert_eq!(int_literal(0xFF, &Type::UInt32, true), "0xFFu");
        assert_eq!(int_literal(1 << 63, &Type::Int64, false), "(-9223372036854775807LL - 1)");
        assert_eq!(int_literal(9, &Type::UInt64, false), "9ull");
        assert_eq!(float_literal(1.0, &Type::Float32), "1.0f");
        assert_eq!(float_literal(0.1, &Type::Float32), "0.1f");
        assert_eq!(float_literal(1e-8, &Type::Float64), "1e-8");
        assert_eq!(float_literal(1e20, &Type::Float32), "1e20f");
        assert_eq!(float_literal(f64::INFINITY, &Type::Float32), "(1.0f / 0.0f)");
        assert_eq!(float_literal(f64::NEG_INFINITY, &Type::Float64), "(-1.0 / 0.0)");
        assert_eq!(float_literal(-2.5, &Type::Float64), "-2.5");
        assert_eq!(float_literal(1e39, &Type::Float32), "(1.0f / 0.0f)");
        assert_eq!(float_literal(-1e39, &Type::Float32), "(-1.0f / 0.0f)");
        assert_eq!(float_literal(1e39, &Type::Float64), "1e39");
        assert_eq!(float_literal(f64::NAN, &Type::Float32), "(0.0f / 0.0f)");
        assert_eq!(float_literal(1e-50, &Type::Float32), "0.0f");
        assert_eq!(float_literal(f64::from(f32::MAX), &Type::Float32), "3.4028235e38f");
        assert_eq!(float_literal(f64::MAX, &Type::Float64), "1.7976931348623157e308");
    }
}

//! Values as the interpreter stores them and as the host passes them: every scalar is one 64-bit word (32-bit
//! values zero-extended, floats as their IEEE bits, bools 0 or 1), a record is its fields' words in declaration
//! order (nested records flattened), and a vector is a [`Buffer`] of such elements. [`ValueType`] describes an
//! element, converts it to and from C's layout (natural alignment, as the emitted `struct`s have) and to JSON.

use skc_core::half_float::HalfFormat;
use skc_core::types::{Type, TypeInfo};

/// A scalar type of `.sk`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    Int32,
    Int64,
    UInt32,
    UInt64,
    Float32,
    Float64,
    /// Its 16 bits in the word's low half (`skc_core::half_float`).
    Float16,
    BFloat16,
    Bool,
}

impl Scalar {
    pub fn of(ty: &Type) -> Option<Scalar> {
        Some(match ty {
            Type::Int32 => Scalar::Int32,
            Type::Int64 => Scalar::Int64,
            Type::UInt32 => Scalar::UInt32,
            Type::UInt64 => Scalar::UInt64,
            Type::Float32 => Scalar::Float32,
            Type::Float64 => Scalar::Float64,
            Type::Float16 => Scalar::Float16,
            Type::BFloat16 => Scalar::BFloat16,
            Type::Bool => Scalar::Bool,
            _ => return None,
        })
    }

    /// The `.sk` spelling.
    pub fn name(self) -> &'static str {
        match self {
            Scalar::Int32 => "int32",
            Scalar::Int64 => "int64",
            Scalar::UInt32 => "uint32",
            Scalar::UInt64 => "uint64",
            Scalar::Float32 => "float32",
            Scalar::Float64 => "float64",
            Scalar::Float16 => "float16",
            Scalar::BFloat16 => "bfloat16",
            Scalar::Bool => "bool",
        }
    }

    /// Size in bytes in C (also the alignment).
    pub fn size(self) -> usize {
        match self {
            Scalar::Bool => 1,
            Scalar::Float16 | Scalar::BFloat16 => 2,
            Scalar::Int32 | Scalar::UInt32 | Scalar::Float32 => 4,
            Scalar::Int64 | Scalar::UInt64 | Scalar::Float64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::Float32 | Scalar::Float64 | Scalar::Float16 | Scalar::BFloat16)
    }

    pub fn is_half(self) -> bool {
        self.half_format().is_some()
    }

    /// The format of a 16-bit float type.
    pub fn half_format(self) -> Option<HalfFormat> {
        match self {
            Scalar::Float16 => Some(HalfFormat::Float16),
            Scalar::BFloat16 => Some(HalfFormat::BFloat16),
            _ => None,
        }
    }

    pub fn is_integer(self) -> bool {
        matches!(self, Scalar::Int32 | Scalar::Int64 | Scalar::UInt32 | Scalar::UInt64)
    }

    /// Keeps only the bits a value of this type has (32-bit values zero-extended, bools 0 or 1).
    pub fn normalise(self, bits: u64) -> u64 {
        match self {
            Scalar::Int32 | Scalar::UInt32 | Scalar::Float32 => bits & 0xFFFF_FFFF,
            Scalar::Float16 | Scalar::BFloat16 => bits & 0xFFFF,
            Scalar::Bool => (bits != 0) as u64,
            _ => bits,
        }
    }

    /// The word of an integer value (wrapping to the type's width).
    pub fn from_i128(self, v: i128) -> u64 {
        match self {
            Scalar::Int32 | Scalar::UInt32 => v as u32 as u64,
            Scalar::Int64 | Scalar::UInt64 => v as u64,
            Scalar::Float32 => (v as f32).to_bits() as u64,
            Scalar::Float64 => (v as f64).to_bits(),
            Scalar::Float16 => u64::from(HalfFormat::Float16.from_integer(v)),
            Scalar::BFloat16 => u64::from(HalfFormat::BFloat16.from_integer(v)),
            Scalar::Bool => (v != 0) as u64,
        }
    }

    /// The word of a float value (integers truncate and saturate, as the conversions do).
    pub fn from_f64(self, v: f64) -> u64 {
        match self {
            Scalar::Int32 => v as i32 as u32 as u64,
            Scalar::Int64 => v as i64 as u64,
            Scalar::UInt32 => v as u32 as u64,
            Scalar::UInt64 => v as u64,
            Scalar::Float32 => (v as f32).to_bits() as u64,
            Scalar::Float64 => v.to_bits(),
            Scalar::Float16 => u64::from(HalfFormat::Float16.from_f64(v)),
            Scalar::BFloat16 => u64::from(HalfFormat::BFloat16.from_f64(v)),
            Scalar::Bool => (v != 0.0) as u64,
        }
    }

    /// The value of a word as a float64 (exact for every type but the 64-bit integers beyond 2^53).
    pub fn to_f64(self, bits: u64) -> f64 {
        match self {
            Scalar::Int32 => bits as u32 as i32 as f64,
            Scalar::Int64 => bits as i64 as f64,
            Scalar::UInt32 => bits as u32 as f64,
            Scalar::UInt64 => bits as f64,
            Scalar::Float32 => f32::from_bits(bits as u32) as f64,
            Scalar::Float64 => f64::from_bits(bits),
            Scalar::Float16 => HalfFormat::Float16.to_f64(bits as u16),
            Scalar::BFloat16 => HalfFormat::BFloat16.to_f64(bits as u16),
            Scalar::Bool => bits as f64,
        }
    }

    /// The value of an integer word, exactly.
    pub fn to_i128(self, bits: u64) -> i128 {
        match self {
            Scalar::Int32 => bits as u32 as i32 as i128,
            Scalar::Int64 => bits as i64 as i128,
            Scalar::UInt32 => bits as u32 as i128,
            Scalar::UInt64 | Scalar::Bool => bits as i128,
            Scalar::Float32 | Scalar::Float64 | Scalar::Float16 | Scalar::BFloat16 => self.to_f64(bits) as i128,
        }
    }

    /// JSON form: integers exactly, floats as numbers (non-finite ones as the strings "nan", "inf", "-inf").
    pub fn to_json(self, bits: u64) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Scalar::Int32 => Value::from(bits as u32 as i32),
            Scalar::Int64 => Value::from(bits as i64),
            Scalar::UInt32 => Value::from(bits as u32),
            Scalar::UInt64 => Value::from(bits),
            Scalar::Bool => Value::from(bits != 0),
            Scalar::Float32 => float_json(f32::from_bits(bits as u32) as f64, true),
            Scalar::Float64 => float_json(f64::from_bits(bits), false),
            // Every 16-bit float is a float32: its shortest float32 digits.
            Scalar::Float16 | Scalar::BFloat16 => float_json(self.to_f64(bits), true),
        }
    }

    /// Reads this type's C bytes (little-endian).
    pub fn from_bytes(self, bytes: &[u8]) -> u64 {
        let mut word = [0u8; 8];
        word[..self.size()].copy_from_slice(&bytes[..self.size()]);
        self.normalise(u64::from_le_bytes(word))
    }

    /// Writes this type's C bytes (little-endian).
    pub fn write_bytes(self, bits: u64, out: &mut [u8]) {
        out[..self.size()].copy_from_slice(&bits.to_le_bytes()[..self.size()]);
    }
}

fn float_json(v: f64, single: bool) -> serde_json::Value {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if single {
        // The shortest decimal that reads back as the same float32.
        let text = format!("{:?}", v as f32);
        return serde_json::from_str(&text).unwrap_or(serde_json::Value::from(v));
    }
    serde_json::Value::from(v)
}

/// The type of a scalar value or of a vector's element: a scalar or a record.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ValueType {
    Scalar(Scalar),
    /// `align`: the alignment C gives the type beyond its fields' own (a vector type's size, `float4`: 16), else 1.
    Record {
        name: String,
        fields: Vec<(String, ValueType)>,
        align: usize,
    },
}

impl ValueType {
    /// The value type of a `.sk` type (scalars and records; `None` for anything else).
    pub fn of(ty: &Type, types: &TypeInfo) -> Option<ValueType> {
        if let Some(s) = Scalar::of(ty) {
            return Some(ValueType::Scalar(s));
        }
        let Type::Record(id) = ty else { return None };
        let info = types.records.get(id.0 as usize)?;
        let fields =
            info.fields.iter().map(|(n, t)| Some((n.clone(), ValueType::of(t, types)?))).collect::<Option<_>>()?;
        let align = info.vector.map_or(1, |k| k.size() as usize);
        Some(ValueType::Record { name: info.name.clone(), fields, align })
    }

    /// Words a value occupies.
    pub fn words(&self) -> usize {
        match self {
            ValueType::Scalar(_) => 1,
            ValueType::Record { fields, .. } => fields.iter().map(|(_, t)| t.words()).sum(),
        }
    }

    /// The scalar type of each word, in order.
    pub fn leaves(&self) -> Vec<Scalar> {
        let mut out = Vec::new();
        self.push_leaves(&mut out);
        out
    }

    fn push_leaves(&self, out: &mut Vec<Scalar>) {
        match self {
            ValueType::Scalar(s) => out.push(*s),
            ValueType::Record { fields, .. } => fields.iter().for_each(|(_, t)| t.push_leaves(out)),
        }
    }

    /// `.sk` spelling.
    pub fn name(&self) -> String {
        match self {
            ValueType::Scalar(s) => s.name().to_string(),
            ValueType::Record { name, .. } => name.clone(),
        }
    }

    /// C size and alignment (natural alignment, padding at the end to the alignment).
    pub fn c_size_align(&self) -> (usize, usize) {
        match self {
            ValueType::Scalar(s) => (s.size(), s.size()),
            ValueType::Record { fields, align: at_least, .. } => {
                let (mut offset, mut align) = (0usize, *at_least);
                for (_, t) in fields {
                    let (size, a) = t.c_size_align();
                    offset = offset.div_ceil(a) * a + size;
                    align = align.max(a);
                }
                (offset.div_ceil(align) * align, align)
            }
        }
    }

    /// Reads one element from its C bytes into `out` (its words).
    pub fn read_c(&self, bytes: &[u8], out: &mut Vec<u64>) {
        match self {
            ValueType::Scalar(s) => out.push(s.from_bytes(bytes)),
            ValueType::Record { fields, .. } => {
                let mut offset = 0usize;
                for (_, t) in fields {
                    let (size, align) = t.c_size_align();
                    offset = offset.div_ceil(align) * align;
                    t.read_c(&bytes[offset..offset + size], out);
                    offset += size;
                }
            }
        }
    }

    /// Writes one element (its words) as C bytes into `out` (the element's size); returns the words used.
    pub fn write_c(&self, words: &[u64], out: &mut [u8]) -> usize {
        match self {
            ValueType::Scalar(s) => {
                s.write_bytes(words[0], out);
                1
            }
            ValueType::Record { fields, .. } => {
                let (mut offset, mut used) = (0usize, 0usize);
                for (_, t) in fields {
                    let (size, align) = t.c_size_align();
                    offset = offset.div_ceil(align) * align;
                    used += t.write_c(&words[used..], &mut out[offset..offset + size]);
                    offset += size;
                }
                used
            }
        }
    }

    /// One element as JSON (a record as an object of its fields); returns the words used.
    pub fn to_json(&self, words: &[u64]) -> (serde_json::Value, usize) {
        match self {
            ValueType::Scalar(s) => (s.to_json(words[0]), 1),
            ValueType::Record { fields, .. } => {
                let mut object = serde_json::Map::new();
                let mut used = 0;
                for (name, t) in fields {
                    let (value, n) = t.to_json(&words[used..]);
                    object.insert(name.clone(), value);
                    used += n;
                }
                (serde_json::Value::Object(object), used)
            }
        }
    }
}

/// A vector argument: its element type and its elements' words.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    pub elem: ValueType,
    pub words: Vec<u64>,
}

impl Buffer {
    pub fn new(elem: ValueType, len: usize) -> Buffer {
        let words = vec![0; len * elem.words()];
        Buffer { elem, words }
    }

    /// A buffer of scalars from their words.
    pub fn from_words(elem: Scalar, words: Vec<u64>) -> Buffer {
        let words = words.into_iter().map(|w| elem.normalise(w)).collect();
        Buffer { elem: ValueType::Scalar(elem), words }
    }

    pub fn from_i32(values: &[i32]) -> Buffer {
        Buffer::from_words(Scalar::Int32, values.iter().map(|v| *v as u32 as u64).collect())
    }

    pub fn from_f32(values: &[f32]) -> Buffer {
        Buffer::from_words(Scalar::Float32, values.iter().map(|v| v.to_bits() as u64).collect())
    }

    pub fn from_f64(values: &[f64]) -> Buffer {
        Buffer::from_words(Scalar::Float64, values.iter().map(|v| v.to_bits()).collect())
    }

    /// Elements from their C bytes (what a device buffer holds).
    pub fn from_c_bytes(elem: ValueType, bytes: &[u8]) -> Buffer {
        let (size, _) = elem.c_size_align();
        let mut words = Vec::with_capacity(bytes.len() / size.max(1) * elem.words());
        for chunk in bytes.chunks_exact(size.max(1)) {
            elem.read_c(chunk, &mut words);
        }
        Buffer { elem, words }
    }

    /// The elements as C bytes.
    pub fn to_c_bytes(&self) -> Vec<u8> {
        let (size, _) = self.elem.c_size_align();
        let mut out = vec![0u8; self.len() * size];
        for (i, element) in self.words.chunks_exact(self.elem.words().max(1)).enumerate() {
            self.elem.write_c(element, &mut out[i * size..(i + 1) * size]);
        }
        out
    }

    pub fn len(&self) -> usize {
        self.words.len() / self.elem.words().max(1)
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    pub fn as_i32(&self) -> Vec<i32> {
        self.words.iter().map(|w| *w as u32 as i32).collect()
    }

    pub fn as_u32(&self) -> Vec<u32> {
        self.words.iter().map(|w| *w as u32).collect()
    }

    pub fn as_f32(&self) -> Vec<f32> {
        self.words.iter().map(|w| f32::from_bits(*w as u32)).collect()
    }

    pub fn as_f64(&self) -> Vec<f64> {
        self.words.iter().map(|w| f64::from_bits(*w)).collect()
    }

    /// The elements as a JSON array.
    pub fn to_json(&self) -> serde_json::Value {
        let n = self.elem.words().max(1);
        serde_json::Value::Array(self.words.chunks_exact(n).map(|e| self.elem.to_json(e).0).collect())
    }
}

/// One launch argument.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A scalar: its type and word.
    Scalar(Scalar, u64),
    /// A record by value: its type and words.
    Record(ValueType, Vec<u64>),
    /// A vector (global memory). The kernel's writes land here.
    Vector(Buffer),
}

impl Arg {
    pub fn i32(v: i32) -> Arg {
        Arg::Scalar(Scalar::Int32, v as u32 as u64)
    }
    pub fn u32(v: u32) -> Arg {
        Arg::Scalar(Scalar::UInt32, v as u64)
    }
    pub fn i64(v: i64) -> Arg {
        Arg::Scalar(Scalar::Int64, v as u64)
    }
    pub fn f32(v: f32) -> Arg {
        Arg::Scalar(Scalar::Float32, v.to_bits() as u64)
    }
    pub fn f64(v: f64) -> Arg {
        Arg::Scalar(Scalar::Float64, v.to_bits())
    }
    pub fn bool(v: bool) -> Arg {
        Arg::Scalar(Scalar::Bool, v as u64)
    }

    /// The buffer of a vector argument.
    pub fn buffer(&self) -> Option<&Buffer> {
        match self {
            Arg::Vector(b) => Some(b),
            _ => None,
        }
    }

    /// What the argument is, as a parameter type would be written (`float32 vector`, `int32`).
    pub fn describe(&self) -> String {
        match self {
            Arg::Scalar(s, _) => s.name().to_string(),
            Arg::Record(t, _) => t.name(),
            Arg::Vector(b) => format!("{} vector", b.elem.name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_layout_of_records_has_natural_alignment() {
        let inner = ValueType::Record {
            name: "p".into(),
            fields: vec![
                ("a".into(), ValueType::Scalar(Scalar::Bool)),
                ("b".into(), ValueType::Scalar(Scalar::Float64)),
            ],
            align: 1,
        };
        assert_eq!(inner.c_size_align(), (16, 8));
        let outer = ValueType::Record {
            name: "q".into(),
            fields: vec![("x".into(), ValueType::Scalar(Scalar::Int32)), ("p".into(), inner)],
            align: 1,
        };
        assert_eq!(outer.c_size_align(), (24, 8));
        let words = vec![7, 1, 2.5f64.to_bits()];
        let buffer = Buffer { elem: outer.clone(), words: words.clone() };
        let bytes = buffer.to_c_bytes();
        assert_eq!(bytes.len(), 24);
        assert_eq!(Buffer::from_c_bytes(outer, &bytes).words, words);
    }

    #[test]
    fn words_normalise_and_print() {
        assert_eq!(Scalar::Int32.from_i128(-1), 0xFFFF_FFFF);
        assert_eq!(Scalar::Int32.to_json(0xFFFF_FFFF), serde_json::json!(-1));
        assert_eq!(Scalar::Float32.to_json(0.1f32.to_bits() as u64).to_string(), "0.1");
        assert_eq!(Scalar::Float64.to_json(f64::NAN.to_bits()), serde_json::json!("nan"));
        assert_eq!(Scalar::UInt32.from_f64(-3.0), 0);
    }
}

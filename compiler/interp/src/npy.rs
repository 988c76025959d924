//! NumPy's `.npy` files, the numeric dtypes only: reading any of `b1 i1 i2 i4 i8 u1 u2 u4 u8 f4 f8` (either
//! byte order, C order, any shape, flattened) and writing a vector of scalars as a one-dimensional array
//! (little-endian, format version 1.0).

use crate::value::Scalar;

/// The values of an array, as read.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    Integers(Vec<i128>),
    Floats(Vec<f64>),
    Bools(Vec<bool>),
}

impl Values {
    pub fn len(&self) -> usize {
        match self {
            Values::Integers(v) => v.len(),
            Values::Floats(v) => v.len(),
            Values::Bools(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The words of these values as elements of type `to`; an error when a value does not fit exactly (a
    /// fraction or an out-of-range value for an integer type).
    pub fn to_words(&self, to: Scalar) -> Result<Vec<u64>, String> {
        let mut out = Vec::with_capacity(self.len());
        match self {
            Values::Bools(v) => out.extend(v.iter().map(|b| to.from_i128(*b as i128))),
            Values::Integers(v) => {
                for &x in v {
                    let word = to.from_i128(x);
                    if to.is_integer() && to.to_i128(word) != x {
                        return Err(format!("{x} does not fit in {}", to.name()));
                    }
                    out.push(word);
                }
            }
            Values::Floats(v) => {
                if !to.is_float() {
                    return Err(format!("float values cannot be passed as {}", to.name()));
                }
                out.extend(v.iter().map(|x| to.from_f64(*x)));
            }
        }
        Ok(out)
    }
}

/// Reads a `.npy` file's contents.
pub fn read(bytes: &[u8]) -> Result<Values, String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not a .npy file (no \\x93NUMPY magic)".into());
    }
    let (header_len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12),
        v => return Err(format!("unsupported .npy format version {v}")),
    };
    let header = bytes.get(start..start + header_len).ok_or("truncated .npy header")?;
    let header = std::str::from_utf8(header).map_err(|_| "the .npy header is not text")?;
    let descr = header_value(header, "descr").ok_or("the .npy header has no 'descr'")?;
    if header_value(header, "fortran_order").is_some_and(|v| v.trim() == "True") {
        return Err("Fortran-ordered .npy arrays are not supported; save with C order".into());
    }
    let shape = header_value(header, "shape").ok_or("the .npy header has no 'shape'")?;
    let count: usize = shape
        .trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<usize>().map_err(|_| format!("bad .npy shape {shape}")))
        .product::<Result<usize, String>>()?;
    let descr = descr.trim().trim_matches('\'').trim_matches('"');
    let (order, kind, size) = parse_descr(descr)?;
    let data = &bytes[start + header_len..];
    if data.len() < count * size {
        return Err(format!("the .npy file holds {} bytes of data, its shape needs {}", data.len(), count * size));
    }
    let word = |i: usize| {
        let mut raw = [0u8; 8];
        raw[..size].copy_from_slice(&data[i * size..(i + 1) * size]);
        if order == '>' {
            raw[..size].reverse();
        }
        u64::from_le_bytes(raw)
    };
    Ok(match kind {
        'b' => Values::Bools((0..count).map(|i| word(i) != 0).collect()),
        'i' => Values::Integers((0..count).map(|i| sign_extend(word(i), size)).collect()),
        'u' => Values::Integers((0..count).map(|i| word(i) as i128).collect()),
        _ => Values::Floats(
            (0..count)
                .map(|i| if size == 4 { f32::from_bits(word(i) as u32) as f64 } else { f64::from_bits(word(i)) })
                .collect(),
        ),
    })
}

fn sign_extend(word: u64, size: usize) -> i128 {
    let shift = 64 - 8 * size as u32;
    (((word << shift) as i64) >> shift) as i128
}

/// (byte order, kind, size) of a dtype like `<f4`, `|b1`, `>i8`.
fn parse_descr(descr: &str) -> Result<(char, char, usize), String> {
    let mut chars = descr.chars();
    let order = chars.next().ok_or("empty dtype")?;
    let kind = chars.next().ok_or("bad dtype")?;
    let size: usize = chars.as_str().parse().map_err(|_| format!("unsupported dtype {descr}"))?;
    let supported = matches!((kind, size), ('b', 1) | ('i' | 'u', 1 | 2 | 4 | 8) | ('f', 4 | 8));
    if !supported || !matches!(order, '<' | '>' | '|' | '=') {
        return Err(format!("unsupported dtype {descr} (numeric dtypes only: b1, i1-i8, u1-u8, f4, f8)"));
    }
    Ok((order, kind, size))
}

/// The text after `'key':` in a header dictionary, up to the next top-level comma.
fn header_value<'h>(header: &'h str, key: &str) -> Option<&'h str> {
    let at = header.find(&format!("'{key}'"))? + key.len() + 2;
    let rest = header[at..].trim_start().strip_prefix(':')?;
    let mut depth = 0;
    for (i, c) in rest.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' | '}' if depth == 0 => return Some(rest[..i].trim()),
            _ => {}
        }
    }
    Some(rest.trim())
}

/// A one-dimensional `.npy` file of `words` of type `ty`.
pub fn write(ty: Scalar, words: &[u64]) -> Vec<u8> {
    let descr = match ty {
        Scalar::Int32 => "<i4",
        Scalar::Int64 => "<i8",
        Scalar::UInt32 => "<u4",
        Scalar::UInt64 => "<u8",
        Scalar::Float32 => "<f4",
        Scalar::Float64 => "<f8",
        Scalar::Float16 => "<f2",
        // NumPy has no bfloat16: its bits, as uint16.
        Scalar::BFloat16 => "<u2",
        Scalar::Bool => "|b1",
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({},), }}", words.len());
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    let size = ty.size();
    for &w in words {
        out.extend_from_slice(&w.to_le_bytes()[..size]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let words: Vec<u64> = [1.5f32, -2.0, 0.25].iter().map(|v| v.to_bits() as u64).collect();
        let bytes = write(Scalar::Float32, &words);
        assert_eq!((bytes.len() - 3 * 4) % 64, 0);
        assert_eq!(read(&bytes).unwrap(), Values::Floats(vec![1.5, -2.0, 0.25]));
        let ints = write(Scalar::Int32, &[(-3i32) as u32 as u64, 7]);
        assert_eq!(read(&ints).unwrap(), Values::Integers(vec![-3, 7]));
        assert_eq!(read(&ints).unwrap().to_words(Scalar::Int64).unwrap(), vec![(-3i64) as u64, 7]);
        assert!(Values::Integers(vec![300]).to_words(Scalar::Int32).is_ok());
        assert!(Values::Integers(vec![-1]).to_words(Scalar::UInt32).is_err());
        assert!(Values::Floats(vec![1.0]).to_words(Scalar::Int32).is_err());
    }

    #[test]
    fn reads_numpy_headers() {
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        let header = "{'descr': '>i2', 'fortran_order': False, 'shape': (2, 2), }          \n";
        bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
        bytes.extend_from_slice(header.as_bytes());
        bytes.extend_from_slice(&[0, 1, 0xFF, 0xFE, 0, 3, 0, 4]);
        assert_eq!(read(&bytes).unwrap(), Values::Integers(vec![1, -2, 3, 4]));
    }
}

//! Device `printf` format strings: reading a `.sk` string literal, parsing its conversions, checking an argument's
//! type against each conversion, writing the literal back as a C string, and formatting the arguments the way C's
//! `printf` does (for the interpreter, which must print what the GPU prints).
//!
//! The accepted subset is the one CUDA's device `printf` formats for the scalar types of `.sk`: `%d %i` (int32),
//! `%u` (uint32), `%x %X %o` (int32 or uint32, as bits), the same with `l` or `ll` for int64 / uint64, `%c`
//! (int32), `%f %F %e %E %g %G` (float32 or float64; a float32 is promoted to double, as C's varargs do) and `%%`.
//! Flags `- + 0` and space, a decimal width and a decimal precision are accepted; `%s`, `%p`, `%n`, `*`, `#`,
//! `h`/`hh`/`j`/`z`/`t`/`L` are refused with a message that says so.
//!
//! Offsets in [`FormatError`] and [`Conversion`] are byte offsets into the literal's source text, quotes included,
//! so a caller turns them into a label on the offending conversion by adding the literal's start.

use std::ops::Range;

/// The scalar types a `printf` argument can have, as the caller's type checker names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrintfArg {
    Int32,
    UInt32,
    Int64,
    UInt64,
    Float32,
    Float64,
}

/// An argument's value, for [`format`]: integers as their 64-bit value, floats widened to `f64`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PrintfValue {
    Signed(i64),
    Unsigned(u64),
    Float(f64),
}

/// What an ill-formed format string reports: where (source offsets of the literal) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatError {
    pub range: Range<usize>,
    pub message: String,
    pub label: String,
}

/// One piece of a parsed format: text printed as is, or a conversion that consumes one argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    Text(String),
    Conversion(Conversion),
}

/// One `%...` conversion (never `%%`, which is text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conversion {
    /// Source offsets of the whole `%...` in the literal (quotes included).
    pub range: Range<usize>,
    /// The conversion as written (`%-8.3f`), for messages.
    pub written: String,
    pub left_align: bool,
    pub plus_sign: bool,
    pub space_sign: bool,
    pub zero_pad: bool,
    pub width: Option<usize>,
    pub precision: Option<usize>,
    /// `l` or `ll` was written: the argument is 64-bit (no effect on floats).
    pub long: bool,
    /// The conversion letter: one of `d i u x X o c f F e E g G`.
    pub letter: char,
}

impl Conversion {
    /// Whether an argument of type `ty` may be passed to this conversion.
    pub fn accepts(&self, ty: PrintfArg) -> bool {
        use PrintfArg::*;
        match (self.letter, self.long) {
            ('d' | 'i', false) => ty == Int32,
            ('d' | 'i', true) => ty == Int64,
            ('u', false) => ty == UInt32,
            ('u', true) => ty == UInt64,
            ('x' | 'X' | 'o', false) => matches!(ty, Int32 | UInt32),
            ('x' | 'X' | 'o', true) => matches!(ty, Int64 | UInt64),
            ('c', _) => ty == Int32,
            (_, _) => matches!(ty, Float32 | Float64),
        }
    }

    /// The types [`Conversion::accepts`] takes, in words, for a diagnostic ("int32", "float32 or float64").
    pub fn expected(&self) -> &'static str {
        match (self.letter, self.long) {
            ('d' | 'i', false) | ('c', _) => "int32",
            ('d' | 'i', true) => "int64",
            ('u', false) => "uint32",
            ('u', true) => "uint64",
            ('x' | 'X' | 'o', false) => "int32 or uint32",
            ('x' | 'X' | 'o', true) => "int64 or uint64",
            (_, _) => "float32 or float64",
        }
    }

    fn is_float(&self) -> bool {
        matches!(self.letter, 'f' | 'F' | 'e' | 'E' | 'g' | 'G')
    }
}

/// The C type an argument of type `ty` is cast to in the emitted `printf` call for conversion `c`, so that what is
/// passed is exactly what the conversion reads (`(double)` for every float).
pub fn c_argument_cast(c: &Conversion, ty: PrintfArg) -> &'static str {
    match (c.is_float(), ty) {
        (true, _) => "double",
        (false, PrintfArg::Int32) => "int",
        (false, PrintfArg::UInt32) => "unsigned int",
        (false, PrintfArg::Int64) => "long long",
        (false, _) => "unsigned long long",
    }
}

/// The characters of a `.sk` string literal (quotes included, as the lexer gives it), each with its source offset.
/// Escapes: `\n \t \r \\ \" \'`; any other is an error.
pub fn decode_literal(source: &str) -> Result<Vec<(char, usize)>, FormatError> {
    let inner_end = source.len().saturating_sub(1).max(1);
    let mut out = Vec::new();
    let mut chars = source[1.min(source.len())..inner_end].char_indices().map(|(i, c)| (c, i + 1));
    while let Some((c, at)) = chars.next() {
        if c != '\\' {
            out.push((c, at));
            continue;
        }
        let escaped = chars.next().map(|(e, _)| e);
        let decoded = match escaped {
            Some('n') => '\n',
            Some('t') => '\t',
            Some('r') => '\r',
            Some(e @ ('\\' | '"' | '\'')) => e,
            other => {
                let width = 1 + other.map_or(0, char::len_utf8);
                return Err(FormatError {
                    range: at..at + width,
                    message: "unknown escape in a format string (`\\n \\t \\r \\\\ \\\" \\'` are the ones there are)"
                        .to_string(),
                    label: "this escape".to_string(),
                });
            }
        };
        out.push((decoded, at));
    }
    Ok(out)
}

/// Parses a `.sk` string literal (quotes included) into text and conversions.
pub fn parse(source: &str) -> Result<Vec<Piece>, FormatError> {
    let chars = decode_literal(source)?;
    let end_of = |i: usize| chars.get(i).map_or(source.len().saturating_sub(1), |&(_, at)| at);
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut i = 0;
    while i < chars.len() {
        let (c, _) = chars[i];
        if c != '%' {
            text.push(c);
            i += 1;
            continue;
        }
        if chars.get(i + 1).map(|&(c, _)| c) == Some('%') {
            text.push('%');
            i += 2;
            continue;
        }
        let (conversion, next) = parse_conversion(&chars, i, &end_of)?;
        if !text.is_empty() {
            pieces.push(Piece::Text(std::mem::take(&mut text)));
        }
        pieces.push(Piece::Conversion(conversion));
        i = next;
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    Ok(pieces)
}

/// The conversion that starts at `chars[start]` (a `%`), and the index after it.
fn parse_conversion(
    chars: &[(char, usize)],
    start: usize,
    end_of: &dyn Fn(usize) -> usize,
) -> Result<(Conversion, usize), FormatError> {
    let at = |i: usize| chars.get(i).map(|&(c, _)| c);
    let error = |i: usize, message: String| FormatError {
        range: chars[start].1..end_of(i + 1),
        message,
        label: "this conversion".to_string(),
    };
    let mut c = Conversion {
        range: 0..0,
        written: String::new(),
        left_align: false,
        plus_sign: false,
        space_sign: false,
        zero_pad: false,
        width: None,
        precision: None,
        long: false,
        letter: ' ',
    };
    let mut i = start + 1;
    while let Some(flag @ ('-' | '+' | ' ' | '0' | '#')) = at(i) {
        match flag {
            '-' => c.left_align = true,
            '+' => c.plus_sign = true,
            ' ' => c.space_sign = true,
            '0' => c.zero_pad = true,
            _ => return Err(error(i, "the `#` flag is not supported in a device printf format".to_string())),
        }
        i += 1;
    }
    let (width, next) = decimal(chars, i);
    c.width = width;
    i = next;
    if at(i) == Some('.') {
        let (precision, next) = decimal(chars, i + 1);
        c.precision = Some(precision.unwrap_or(0));
        i = next;
    }
    if at(i) == Some('*') {
        return Err(error(i, "a `*` width or precision is not supported: write the number in the format".to_string()));
    }
    if at(i) == Some('l') {
        c.long = true;
        i += if at(i + 1) == Some('l') { 2 } else { 1 };
    }
    match at(i) {
        Some(letter @ ('d' | 'i' | 'u' | 'x' | 'X' | 'o' | 'c' | 'f' | 'F' | 'e' | 'E' | 'g' | 'G')) => {
            c.letter = letter
        }
        Some('s') => return Err(error(i, "`%s` is not supported: a kernel has no strings to print".to_string())),
        Some(other) => {
            let shown = other.escape_default();
            return Err(error(i, format!("unknown conversion `%{shown}` in a device printf format")));
        }
        None => return Err(error(i, "the format string ends inside a conversion".to_string())),
    }
    c.range = chars[start].1..end_of(i + 1);
    c.written = chars[start..=i].iter().map(|&(ch, _)| ch).collect();
    Ok((c, i + 1))
}

/// The decimal number at `chars[i..]`, if any, and the index after it.
fn decimal(chars: &[(char, usize)], mut i: usize) -> (Option<usize>, usize) {
    let mut value: Option<usize> = None;
    while let Some(digit) = chars.get(i).and_then(|&(c, _)| c.to_digit(10)) {
        value = Some(value.unwrap_or(0).saturating_mul(10).saturating_add(digit as usize));
        i += 1;
    }
    (value, i)
}

/// The parsed format as a C string literal (quotes included): `%%` doubled back, `\` and `"` escaped, control
/// characters and non-ASCII bytes as three-digit octal escapes (which never run into a following digit).
pub fn c_literal(pieces: &[Piece]) -> String {
    let mut out = String::from("\"");
    for piece in pieces {
        match piece {
            Piece::Text(text) => {
                for byte in text.bytes() {
                    match byte {
                        b'%' => out.push_str("%%"),
                        b'\\' => out.push_str("\\\\"),
                        b'"' => out.push_str("\\\""),
                        b'\n' => out.push_str("\\n"),
                        b'\t' => out.push_str("\\t"),
                        b' '..=b'~' => out.push(byte as char),
                        _ => out.push_str(&format!("\\{byte:03o}")),
                    }
                }
            }
            Piece::Conversion(c) => out.push_str(&c.written),
        }
    }
    out.push('"');
    out
}

/// The text C's `printf` writes for `pieces` with `values` (one per conversion, in order; a missing value prints
/// as zero, which a checked call never has).
pub fn format(pieces: &[Piece], values: &[PrintfValue]) -> String {
    let mut out = String::new();
    let mut values = values.iter();
    for piece in pieces {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Conversion(c) => out.push_str(&format_one(c, *values.next().unwrap_or(&PrintfValue::Signed(0)))),
        }
    }
    out
}

fn format_one(c: &Conversion, value: PrintfValue) -> String {
    if c.is_float() {
        let v = match value {
            PrintfValue::Float(v) => v,
            PrintfValue::Signed(v) => v as f64,
            PrintfValue::Unsigned(v) => v as f64,
        };
        return format_float(c, v);
    }
    let bits = match value {
        PrintfValue::Signed(v) => v as u64,
        PrintfValue::Unsigned(v) => v,
        PrintfValue::Float(v) => v as i64 as u64,
    };
    format_integer(c, bits)
}

fn format_integer(c: &Conversion, bits: u64) -> String {
    let bits = if c.long { bits } else { bits & 0xffff_ffff };
    let (negative, magnitude) = match c.letter {
        'd' | 'i' if c.long => ((bits as i64) < 0, (bits as i64).unsigned_abs()),
        'd' | 'i' => ((bits as u32 as i32) < 0, (bits as u32 as i32).unsigned_abs() as u64),
        _ => (false, bits),
    };
    if c.letter == 'c' {
        return pad(c, String::new(), ((bits as u8) as char).to_string(), false);
    }
    let mut digits = match c.letter {
        'x' => format!("{magnitude:x}"),
        'X' => format!("{magnitude:X}"),
        'o' => format!("{magnitude:o}"),
        _ => magnitude.to_string(),
    };
    if let Some(precision) = c.precision {
        if precision == 0 && magnitude == 0 {
            digits.clear();
        }
        while digits.len() < precision {
            digits.insert(0, '0');
        }
    }
    let signed = matches!(c.letter, 'd' | 'i');
    let sign = sign_text(c, negative, signed);
    pad(c, sign, digits, c.precision.is_none())
}

fn sign_text(c: &Conversion, negative: bool, signed: bool) -> String {
    match (negative, signed && c.plus_sign, signed && c.space_sign) {
        (true, _, _) => "-".to_string(),
        (false, true, _) => "+".to_string(),
        (false, false, true) => " ".to_string(),
        _ => String::new(),
    }
}

/// `sign` then `body` padded to the width: spaces before (or after, for `-`), or zeros between sign and body
/// when the `0` flag holds and `zeros_allowed`.
fn pad(c: &Conversion, sign: String, body: String, zeros_allowed: bool) -> String {
    let width = c.width.unwrap_or(0);
    let length = sign.chars().count() + body.chars().count();
    let fill = width.saturating_sub(length);
    match (c.left_align, c.zero_pad && zeros_allowed) {
        (true, _) => format!("{sign}{body}{}", " ".repeat(fill)),
        (false, true) => format!("{sign}{}{body}", "0".repeat(fill)),
        (false, false) => format!("{}{sign}{body}", " ".repeat(fill)),
    }
}

fn format_float(c: &Conversion, v: f64) -> String {
    let upper = c.letter.is_ascii_uppercase();
    let negative = v.is_sign_negative();
    let sign = sign_text(c, negative, true);
    if !v.is_finite() {
        let body = if v.is_nan() { "nan" } else { "inf" };
        let body = if upper { body.to_uppercase() } else { body.to_string() };
        return pad(c, sign, body, false);
    }
    let magnitude = v.abs();
    let precision = c.precision.unwrap_or(6);
    let body = match c.letter.to_ascii_lowercase() {
        'f' => format!("{magnitude:.precision$}"),
        'e' => exponent_form(magnitude, precision),
        _ => general_form(magnitude, precision),
    };
    let body = if upper { body.to_uppercase() } else { body };
    pad(c, sign, body, true)
}

/// C's `%e` of a non-negative finite value: `d.ddde+XX`, the exponent signed and at least two digits.
fn exponent_form(magnitude: f64, precision: usize) -> String {
    let rust = format!("{magnitude:.precision$e}");
    let (mantissa, exponent) = rust.split_once('e').unwrap_or((&rust, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.unsigned_abs())
}

/// C's `%g`: `%e` or `%f` by the exponent the value has once rounded to `precision` significant digits, trailing
/// zeros (and a trailing point) removed.
fn general_form(magnitude: f64, precision: usize) -> String {
    let significant = precision.max(1);
    let rounded = format!("{magnitude:.prec$e}", prec = significant - 1);
    let exponent: i64 = rounded.split_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0);
    let text = if exponent < -4 || exponent >= significant as i64 {
        exponent_form(magnitude, significant - 1)
    } else {
        let decimals = (significant as i64 - 1 - exponent) as usize;
        format!("{magnitude:.decimals$}")
    };
    strip_trailing_zeros(&text)
}

fn strip_trailing_zeros(text: &str) -> String {
    let (mantissa, exponent) = match text.find('e') {
        Some(at) => text.split_at(at),
        None => (text, ""),
    };
    let mantissa = match mantissa.contains('.') {
        true => mantissa.trim_end_matches('0').trim_end_matches('.'),
        false => mantissa,
    };
    format!("{mantissa}{exponent}")
}

#[cfg(test)]
mod tests;

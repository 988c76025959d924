//! The format parser's verdicts, the C literal it writes, and [`format`] compared with the C library's `printf`
//! on the same conversion and value.

use super::*;
use std::process::Command;

/// What the C library prints for the one-conversion format `written` and `value`, through the `printf` command
/// (coreutils hands each conversion to the C library's `printf`, with the value as `intmax_t`, `uintmax_t` or
/// `long double`, which hold every value exactly). A float is passed as its exact decimal expansion; an int32
/// printed unsigned (`%x`, `%o`) as the unsigned value C's conversion reads; a `%c` value as its character.
fn c_printf(written: &str, value: PrintfValue, ty: PrintfArg) -> String {
    let unsigned = matches!(written.chars().last(), Some('x' | 'X' | 'o' | 'u'));
    let text = match (value, ty) {
        // coreutils' `%c` prints its argument's first character.
        (PrintfValue::Signed(v), _) if written.ends_with('c') => char::from(v as u8).to_string(),
        (PrintfValue::Float(v), _) if v.is_finite() => format!("{v:.1100}"),
        (PrintfValue::Float(v), _) => v.to_string(),
        (PrintfValue::Signed(v), PrintfArg::Int32) if unsigned => (v as i32 as u32).to_string(),
        (PrintfValue::Signed(v), _) if unsigned => (v as u64).to_string(),
        (PrintfValue::Signed(v), _) => v.to_string(),
        (PrintfValue::Unsigned(v), _) => v.to_string(),
    };
    // coreutils reads `l` and `ll` itself (its integers are all `intmax_t`); the format it is given has none.
    let format = written.replace("ll", "").replace('l', "");
    let output = Command::new("printf").arg(&format).arg(&text).output().expect("the printf command runs");
    assert!(output.status.success(), "printf {format} {text}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).expect("printf prints UTF-8")
}

fn quoted(text: &str) -> String {
    format!("\"{text}\"")
}

fn only_conversion(written: &str) -> Conversion {
    match parse(&quoted(written)).unwrap().as_slice() {
        [Piece::Conversion(c), ..] => c.clone(),
        other => panic!("{written}: expected a conversion first, got {other:?}"),
    }
}

fn compare(written: &str, values: &[(PrintfValue, PrintfArg)]) {
    let conversion = only_conversion(written);
    for &(value, ty) in values {
        assert!(conversion.accepts(ty), "{written} should accept {ty:?}");
        let ours = format(&parse(&quoted(written)).unwrap(), &[value]);
        assert_eq!(ours, c_printf(written, value, ty), "{written} of {value:?}");
    }
}

const INTS: [i64; 7] = [0, 1, -1, 42, -123456, i32::MAX as i64, i32::MIN as i64];
const FLOATS: [f64; 16] = [
    0.0,
    -0.0,
    1.0,
    -1.5,
    0.5,
    2.5,
    0.125,
    std::f64::consts::PI,
    1e-5,
    123456.0,
    1234567.0,
    1e21,
    9.9999996e-5,
    0.0001,
    f64::INFINITY,
    f64::NAN,
];

#[test]
fn integers_print_as_c_prints_them() {
    let int32: Vec<_> = INTS.iter().map(|&v| (PrintfValue::Signed(v), PrintfArg::Int32)).collect();
    for written in ["%d", "%i", "%5d", "%-5d|", "%05d", "%+d", "% d", "%.3d", "%.0d", "%x", "%X", "%08x", "%o", "%c"] {
        let values: Vec<_> = match written {
            "%c" => vec![(PrintfValue::Signed(65), PrintfArg::Int32), (PrintfValue::Signed(122), PrintfArg::Int32)],
            _ => int32.clone(),
        };
        compare(written, &values);
    }
    let uint32: Vec<_> =
        [0u64, 7, u32::MAX as u64].iter().map(|&v| (PrintfValue::Unsigned(v), PrintfArg::UInt32)).collect();
    for written in ["%u", "%10u", "%x", "%-12X|"] {
        compare(written, &uint32);
    }
    let int64: Vec<_> =
        [0i64, -1, i64::MIN, i64::MAX].iter().map(|&v| (PrintfValue::Signed(v), PrintfArg::Int64)).collect();
    for written in ["%ld", "%lld", "%+21lld", "%lx"] {
        compare(written, &int64);
    }
    let uint64: Vec<_> = [0u64, u64::MAX].iter().map(|&v| (PrintfValue::Unsigned(v), PrintfArg::UInt64)).collect();
    for written in ["%lu", "%llu", "%llx"] {
        compare(written, &uint64);
    }
}

#[test]
fn floats_print_as_c_prints_them() {
    let mut values: Vec<_> = FLOATS.iter().map(|&v| (PrintfValue::Float(v), PrintfArg::Float64)).collect();
    values.push((PrintfValue::Float(-f64::INFINITY), PrintfArg::Float64));
    values.push((PrintfValue::Float(0.1f32 as f64), PrintfArg::Float32));
    for written in [
        "%f", "%.0f", "%.2f", "%10.3f", "%-10.1f|", "%+f", "% f", "%010.2f", "%F", "%e", "%.0e", "%.3e", "%E",
        "%12.4e", "%g", "%.0g", "%.1g", "%.3g", "%.10g", "%G", "%10g", "%-10g|", "%lf",
    ] {
        compare(written, &values);
    }
}

#[test]
fn types_each_conversion_accepts() {
    use PrintfArg::*;
    let accepted = |written: &str| {
        let c = only_conversion(written);
        [Int32, UInt32, Int64, UInt64, Float32, Float64].into_iter().filter(|&t| c.accepts(t)).collect::<Vec<_>>()
    };
    assert_eq!(accepted("%d"), [Int32]);
    assert_eq!(accepted("%i"), [Int32]);
    assert_eq!(accepted("%u"), [UInt32]);
    assert_eq!(accepted("%ld"), [Int64]);
    assert_eq!(accepted("%lld"), [Int64]);
    assert_eq!(accepted("%lu"), [UInt64]);
    assert_eq!(accepted("%x"), [Int32, UInt32]);
    assert_eq!(accepted("%llx"), [Int64, UInt64]);
    assert_eq!(accepted("%c"), [Int32]);
    assert_eq!(accepted("%f"), [Float32, Float64]);
    assert_eq!(accepted("%g"), [Float32, Float64]);
    assert_eq!(only_conversion("%ld").expected(), "int64");
    assert_eq!(only_conversion("%e").expected(), "float32 or float64");
}

#[test]
fn refused_formats_name_the_conversion() {
    let error = |source: &str| parse(source).unwrap_err();
    let e = error(r#""x=%s""#);
    assert_eq!((e.range.clone(), e.message.contains("`%s` is not supported")), (3..5, true));
    let e = error(r#""%q""#);
    assert_eq!((e.range.clone(), e.message.as_str()), (1..3, "unknown conversion `%q` in a device printf format"));
    assert!(error(r#""%*d""#).message.contains("`*`"));
    assert!(error(r#""%#x""#).message.contains("`#`"));
    assert!(error(r#""%hd""#).message.contains("unknown conversion `%h`"));
    let e = error(r#""ab%""#);
    assert_eq!((e.range.clone(), e.message.as_str()), (3..4, "the format string ends inside a conversion"));
    let e = error(r#""a\qb""#);
    assert_eq!((e.range, e.label.as_str()), (2..4, "this escape"));
}

#[test]
fn conversions_carry_their_source_range() {
    // The escape before the conversion takes two source bytes for one character.
    let pieces = parse(r#""\"%-8.3f\"""#).unwrap();
    let Piece::Conversion(c) = &pieces[1] else { panic!("{pieces:?}") };
    assert_eq!((c.range.clone(), c.written.as_str(), c.width, c.precision), (3..9, "%-8.3f", Some(8), Some(3)));
    assert!(c.left_align);
}

#[test]
fn the_c_literal_escapes_what_c_needs() {
    let source = r#""q=\" b=\\ 100%% x=%d\n\tend""#;
    let pieces = parse(source).unwrap();
    assert_eq!(c_literal(&pieces), r#""q=\" b=\\ 100%% x=%d\n\tend""#);
    assert_eq!(format(&pieces, &[PrintfValue::Signed(7)]), "q=\" b=\\ 100% x=7\n\tend");
    assert_eq!(c_literal(&parse("\"\u{e9}\r\"").unwrap()), r#""\303\251\015""#);
}

#[test]
fn arguments_are_cast_to_what_the_conversion_reads() {
    assert_eq!(c_argument_cast(&only_conversion("%f"), PrintfArg::Float32), "double");
    assert_eq!(c_argument_cast(&only_conversion("%d"), PrintfArg::Int32), "int");
    assert_eq!(c_argument_cast(&only_conversion("%x"), PrintfArg::UInt32), "unsigned int");
    assert_eq!(c_argument_cast(&only_conversion("%lld"), PrintfArg::Int64), "long long");
    assert_eq!(c_argument_cast(&only_conversion("%lu"), PrintfArg::UInt64), "unsigned long long");
}

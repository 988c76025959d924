//! float16 and bfloat16 in the interpreter: every operation on operands that cover the special values (signed
//! zeros, subnormals, the largest finite value, infinities, NaN) and rounding ties, against results written out
//! here from IEEE 754's definitions in float64 (exact for these operands) and the documented rules of
//! `skc_core::half_float` (canonical NaN 0x7FFF, `min`/`max` ignoring a NaN, -0 below +0).

use skc_core::half_float::{HalfFormat, CANONICAL_NAN};
#[path = "support/half_buffers.rs"]
mod half_buffers;

use half_buffers::{halves, words, zeros};
use skc_interp::{launch, Arg, Geometry, Options, Program, Scalar};

const SOURCE: &str = r#"
kernel k16 (xs : float16 vector) (ys : float16 vector) (out : float16 vector) (wide : float32 vector)
    (ints : int32 vector) (n : int32) =
  let i = global_idx in
  if i < n then begin
    let x = xs.(i) in
    let y = ys.(i) in
    out.(8 * i) <- x +. y;
    out.(8 * i + 1) <- x -. y;
    out.(8 * i + 2) <- x *. y;
    out.(8 * i + 3) <- x /. y;
    out.(8 * i + 4) <- fma x y x;
    out.(8 * i + 5) <- min x y;
    out.(8 * i + 6) <- max x y;
    out.(8 * i + 7) <- abs (-. x);
    wide.(i) <- float32 x;
    ints.(2 * i) <- (if x < y then 1 else 0) + (if x = y then 2 else 0);
    ints.(2 * i + 1) <- int32 x
  end

kernel kb (xs : bfloat16 vector) (ys : bfloat16 vector) (out : bfloat16 vector) (n : int32) =
  let i = global_idx in
  if i < n then begin
    let x = xs.(i) in
    let y = ys.(i) in
    out.(5 * i) <- x +. y;
    out.(5 * i + 1) <- x *. y;
    out.(5 * i + 2) <- x /. y;
    out.(5 * i + 3) <- fma x y y;
    out.(5 * i + 4) <- bfloat16 (float16 x)
  end
"#;

fn run(kernel: &str, args: &mut [Arg]) {
    let checked = skc_core::check("half.sk", SOURCE, &skc_core::NoModules, &Default::default());
    assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
    let program = Program::new(&checked);
    let outcome = launch(&program, kernel, &Geometry::linear(1, 64), args, &Options::default()).expect("launch");
    assert!(outcome.completed && outcome.reports.is_empty());
}

/// Operand pairs: ordinary values, a tie of rounding, signed zeros, subnormals, overflow, infinities and NaN.
const F16_PAIRS: [(u16, u16); 10] = [
    (0x3C00, 0x4000), // 1, 2
    (0x3C00, 0x1400), // 1 and 2^-10: their sum is exact
    (0x3C01, 0x1000), // (1 + 2^-10) + 2^-11: a tie, to even (1 + 2^-9)
    (0x8000, 0x0000), // -0, +0
    (0x0001, 0x0001), // the smallest subnormal, twice
    (0x7BFF, 0x7BFF), // 65504 + 65504 overflows
    (0x7C00, 0xFC00), // inf, -inf
    (0x7E01, 0x3C00), // a NaN with a payload, 1
    (0xC200, 0x4200), // -3, 3
    (0x3555, 0x3555), // 1/3 rounded, squared
];

#[test]
fn float16_operations_round_once_and_define_the_special_values() {
    let n = F16_PAIRS.len();
    let (xs, ys): (Vec<u16>, Vec<u16>) = F16_PAIRS.iter().copied().unzip();
    let mut args = [
        halves(Scalar::Float16, &xs),
        halves(Scalar::Float16, &ys),
        zeros(Scalar::Float16, 8 * n),
        zeros(Scalar::Float32, n),
        zeros(Scalar::Int32, 2 * n),
        Arg::Scalar(Scalar::Int32, n as u64),
    ];
    run("k16", &mut args);
    let (out, wide, ints) = (words(&args[2]), words(&args[3]), words(&args[4]));
    let f16 = HalfFormat::Float16;
    let value = |b: u16| f16.to_f64(b);
    for (i, &(a, b)) in F16_PAIRS.iter().enumerate() {
        let (x, y) = (value(a), value(b));
        // float64 holds these sums, differences and products exactly: one rounding to float16 is IEEE's result.
        let expected = [
            f16.from_f64(x + y),
            f16.from_f64(x - y),
            f16.from_f64(x * y),
            f16.from_f64(x / y),
            f16.from_f64(x.mul_add(y, x)),
            reference_min(a, b, x, y, true),
            reference_min(a, b, x, y, false),
            a & 0x7FFF,
        ];
        for (k, e) in expected.iter().enumerate() {
            assert_eq!(out[8 * i + k], u64::from(*e), "pair {i} ({a:#06x}, {b:#06x}), operation {k}");
        }
        let widened = if x.is_nan() { 0x7FFF_FFFF } else { (x as f32).to_bits() };
        assert_eq!(wide[i], u64::from(widened), "pair {i}: float32 of {a:#06x}");
        let compared = i32::from(x < y) + 2 * i32::from(x == y);
        assert_eq!(ints[2 * i] as u32 as i32, compared, "pair {i}: comparisons");
        assert_eq!(ints[2 * i + 1] as u32 as i32, x as i32, "pair {i}: int32 truncates, saturates, NaN is 0");
    }
    // The named cases, spelled out.
    assert_eq!(out[8 * 2], 0x3C02, "a tie rounds to even");
    assert_eq!(out[8 * 3], 0x0000, "-0 + +0 = +0");
    assert_eq!(out[8 * 3 + 5], 0x8000, "min(-0, +0) = -0");
    assert_eq!(out[8 * 3 + 6], 0x0000, "max(-0, +0) = +0");
    assert_eq!(out[8 * 4], 0x0002, "subnormals add exactly");
    assert_eq!(out[8 * 5], 0x7C00, "overflow is infinity");
    assert_eq!(out[8 * 6], u64::from(CANONICAL_NAN), "inf - inf is the canonical NaN");
    assert_eq!(out[8 * 7], u64::from(CANONICAL_NAN), "a NaN operand gives the canonical NaN");
    assert_eq!(out[8 * 7 + 5], 0x3C00, "min ignores a NaN");
    assert_eq!(out[8 * 7 + 7], 0x7E01, "abs keeps a NaN's payload");
}

/// `min`/`max` as `half_float` defines them, written from the rule.
fn reference_min(a: u16, b: u16, x: f64, y: f64, min: bool) -> u16 {
    match (x.is_nan(), y.is_nan()) {
        (true, true) => CANONICAL_NAN,
        (true, false) => b,
        (false, true) => a,
        _ if x == y && min => a | b,
        _ if x == y => a & b,
        _ if (x < y) == min => a,
        _ => b,
    }
}

#[test]
fn bfloat16_operations_round_once() {
    let pairs: [(u16, u16); 6] = [
        (0x3F80, 0x4000), // 1, 2
        (0x3F81, 0x3B80), // (1 + 2^-7) + 2^-8: a tie, to even
        (0x7F7F, 0x7F7F), // the largest finite, twice: overflow
        (0x0001, 0x8001), // subnormals of opposite signs
        (0x4040, 0x4040), // 3 and 3: 3 / 3, 3 * 3 + 3
        (0x7FC1, 0x3F80), // NaN
    ];
    let n = pairs.len();
    let (xs, ys): (Vec<u16>, Vec<u16>) = pairs.iter().copied().unzip();
    let mut args = [
        halves(Scalar::BFloat16, &xs),
        halves(Scalar::BFloat16, &ys),
        zeros(Scalar::BFloat16, 5 * n),
        Arg::Scalar(Scalar::Int32, n as u64),
    ];
    run("kb", &mut args);
    let out = words(&args[2]);
    let bf16 = HalfFormat::BFloat16;
    for (i, &(a, b)) in pairs.iter().enumerate() {
        let (x, y) = (bf16.to_f64(a), bf16.to_f64(b));
        let narrowed = HalfFormat::Float16.to_f64(HalfFormat::Float16.from_f64(x));
        let expected = [
            bf16.from_f64(x + y),
            bf16.from_f64(x * y),
            bf16.from_f64(x / y),
            bf16.from_f64(x.mul_add(y, y)),
            bf16.from_f64(narrowed),
        ];
        for (k, e) in expected.iter().enumerate() {
            assert_eq!(out[5 * i + k], u64::from(*e), "pair {i} ({a:#06x}, {b:#06x}), operation {k}");
        }
    }
    assert_eq!(out[5], 0x3F82, "a tie rounds to even");
    assert_eq!(out[10], 0x7F80, "overflow is infinity");
    assert_eq!(out[25], u64::from(CANONICAL_NAN));
}

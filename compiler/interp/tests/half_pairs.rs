//! float16x2 and bfloat16x2 in the interpreter: each lane of `+. -. *. /.`, negation and `fma` on a pair equals
//! the scalar operation on that lane (itself `skc_core::half_float`'s, tested exhaustively there), bit for bit,
//! over many random bit patterns (every class of value: NaNs with payloads, infinities, signed zeros, subnormals)
//! and every pair of the special values; and `atomic_add` on float16 and bfloat16 rounds once per add, to
//! nearest even, subnormals kept.

use skc_core::half_float::HalfFormat;
#[path = "support/half_buffers.rs"]
mod half_buffers;

use half_buffers::{halves, words, zeros};
use skc_interp::{launch, Arg, Buffer, Geometry, Options, Program, Scalar, ValueType};

const SOURCE: &str = r#"
kernel pairs16 (xs : float16 vector) (ys : float16 vector) (zs : float16 vector) (out : float16 vector)
    (n2 : int32) =
  let i = global_idx in
  if i < n2 then begin
    let x = load_float16x2 xs i in
    let y = load_float16x2 ys i in
    let z = load_float16x2 zs i in
    store_float16x2 out (6 * i) (x +. y);
    store_float16x2 out (6 * i + 1) (x -. y);
    store_float16x2 out (6 * i + 2) (x *. y);
    store_float16x2 out (6 * i + 3) (fma x y z);
    store_float16x2 out (6 * i + 4) (x /. y);
    store_float16x2 out (6 * i + 5) (-. x)
  end

kernel pairsb (xs : bfloat16 vector) (ys : bfloat16 vector) (zs : bfloat16 vector) (out : bfloat16 vector)
    (n2 : int32) =
  let i = global_idx in
  if i < n2 then begin
    let x = load_bfloat16x2 xs i in
    let y = load_bfloat16x2 ys i in
    let z = load_bfloat16x2 zs i in
    store_bfloat16x2 out (6 * i) (x + y);
    store_bfloat16x2 out (6 * i + 1) (x - y);
    store_bfloat16x2 out (6 * i + 2) (x * y);
    store_bfloat16x2 out (6 * i + 3) (fma x y z);
    store_bfloat16x2 out (6 * i + 4) (x / y);
    store_bfloat16x2 out (6 * i + 5) (-x)
  end

kernel pair_parts (out : float16 vector) =
  let p = mut make_float16x2 1.5h (-0.0h) in
  p.y <- p.y +. 0.0h;
  let q = make_float16x2 p.y p.x in
  out.(0) <- q.x;
  out.(1) <- q.y

kernel sum16 (hs : float16 vector) (bs : bfloat16 vector) (adds : float16 vector) (badds : bfloat16 vector)
    (olds : float16 vector) (n : int32) =
  let i = global_idx in
  if i < n then begin
    olds.(i) <- atomic_add hs i adds.(i);
    let _ = atomic_add bs i badds.(i) in
    ()
  end

kernel sum_pairs (ps : float16x2 vector) (bps : bfloat16x2 vector) (adds : float16x2 vector)
    (badds : bfloat16x2 vector) (olds : float16x2 vector) (n : int32) =
  let i = global_idx in
  if i < n then begin
    olds.(i) <- atomic_add_float16x2 ps i adds.(i);
    let _ = atomic_add_bfloat16x2 bps i badds.(i) in
    ()
  end

kernel count16 (hs : float16 vector) (bs : bfloat16 vector) =
  let _ = atomic_add hs 0 0.25h in
  if global_idx < 256 then begin
    let _ = atomic_add bs 0 (bfloat16 1.0) in
    ()
  end
"#;

fn run(kernel: &str, threads: u32, args: &mut [Arg]) {
    let checked = skc_core::check("pairs.sk", SOURCE, &skc_core::NoModules, &Default::default());
    assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
    let program = Program::new(&checked);
    let (blocks, block) = (threads.div_ceil(256), threads.min(256));
    let outcome =
        launch(&program, kernel, &Geometry::linear(blocks, block), args, &Options::default()).expect("launch");
    assert!(outcome.completed && outcome.reports.is_empty(), "{:?}", outcome.reports);
}

/// The special values of both formats: signed zeros, the smallest and largest subnormal and finite float16,
/// float16's infinities, NaNs with payloads, 1.0 of both formats, bfloat16's infinity.
const SPECIAL: [u16; 12] =
    [0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x7BFF, 0x7C00, 0xFC00, 0x7E01, 0x3C00, 0x7F80, 0x7FC1];

/// Bit patterns: the special values of both formats, then xorshift's, half of them drawn near 1.0 and near the
/// subnormals so that sums and products round (uniform bits are mostly far apart in magnitude).
fn patterns(count: usize, seed: u64) -> Vec<u16> {
    let mut state = seed;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut out: Vec<u16> = SPECIAL.to_vec();
    while out.len() < count {
        let r = next();
        let bits = match r % 4 {
            0 => (r >> 8) as u16,
            1 => 0x3800 | ((r >> 8) as u16 & 0x0FFF) | ((r >> 30) as u16 & 0x8000),
            2 => 0x3F00 | ((r >> 8) as u16 & 0x00FF) | ((r >> 30) as u16 & 0x8000),
            _ => (r >> 8) as u16 & 0x87FF,
        };
        out.push(bits);
    }
    out
}

fn check_pairs(kernel: &str, scalar: Scalar, format: HalfFormat, lanes: usize) {
    let (mut xs, mut ys, zs) =
        (patterns(lanes, 0x9E37_79B9_7F4A_7C15), patterns(lanes, 0xD1B5_4A32_D192_ED03), patterns(lanes, 7));
    // Every pair of special values (0 / 0, x / ±0, inf / inf, NaN / x...) in the lanes after the specials.
    let cross = SPECIAL.iter().flat_map(|&x| SPECIAL.iter().map(move |&y| (x, y)));
    for (k, (x, y)) in (SPECIAL.len()..).zip(cross) {
        (xs[k], ys[k]) = (x, y);
    }
    let n2 = lanes / 2;
    let mut args = [
        halves(scalar, &xs),
        halves(scalar, &ys),
        halves(scalar, &zs),
        zeros(scalar, 6 * lanes),
        Arg::Scalar(Scalar::Int32, n2 as u64),
    ];
    run(kernel, n2 as u32, &mut args);
    let out = words(&args[3]);
    for i in 0..n2 {
        for lane in 0..2 {
            let k = 2 * i + lane;
            let (x, y, z) = (xs[k], ys[k], zs[k]);
            let expected = [
                format.add(x, y),
                format.sub(x, y),
                format.mul(x, y),
                format.fma(x, y, z),
                format.div(x, y),
                format.neg(x),
            ];
            // Negation flips the sign bit only, a NaN's included, as the scalar `-.` and the prelude's xor do.
            assert_eq!(expected[5], x ^ 0x8000);
            for (op, e) in expected.iter().enumerate() {
                let got = out[12 * i + 2 * op + lane];
                assert_eq!(got, u64::from(*e), "{kernel}: pair {i} lane {lane} ({x:#06x}, {y:#06x}, {z:#06x}) op {op}");
            }
        }
    }
}

#[test]
fn float16x2_lanes_equal_the_scalar_operations() {
    check_pairs("pairs16", Scalar::Float16, HalfFormat::Float16, 1 << 15);
}

#[test]
fn bfloat16x2_lanes_equal_the_scalar_operations() {
    check_pairs("pairsb", Scalar::BFloat16, HalfFormat::BFloat16, 1 << 15);
}

#[test]
fn pair_construction_and_components() {
    let mut args = [zeros(Scalar::Float16, 2)];
    run("pair_parts", 1, &mut args);
    // -0 + +0 = +0 in the pair's lane as in a scalar; the components swap.
    assert_eq!(words(&args[0]), [0x0000, 0x3E00]);
}

/// Each add is rounded once, to nearest even, with subnormals kept (`atom.add.noftz`), and returns the value
/// before it: one add per element, so the result does not depend on the threads' order.
#[test]
fn sixteen_bit_atomic_adds_round_once_per_add() {
    // (element, added): 1 + 2^-11 and 1 + 3 * 2^-11 (ties, to even), subnormals, overflow, -0 + +0.
    let f16_cases: [(u16, u16); 6] =
        [(0x3C00, 0x1000), (0x3C00, 0x1600), (0x0001, 0x0001), (0x0001, 0x8001), (0x7BFF, 0x7BFF), (0x8000, 0x0000)];
    let bf16_cases: [(u16, u16); 6] =
        [(0x3F80, 0x3B80), (0x3F81, 0x3B80), (0x0001, 0x0001), (0x0001, 0x8001), (0x7F7F, 0x7F7F), (0x8000, 0x0000)];
    let n = f16_cases.len();
    let (hs, adds): (Vec<u16>, Vec<u16>) = f16_cases.iter().copied().unzip();
    let (bs, badds): (Vec<u16>, Vec<u16>) = bf16_cases.iter().copied().unzip();
    let mut args = [
        halves(Scalar::Float16, &hs),
        halves(Scalar::BFloat16, &bs),
        halves(Scalar::Float16, &adds),
        halves(Scalar::BFloat16, &badds),
        zeros(Scalar::Float16, n),
        Arg::Scalar(Scalar::Int32, n as u64),
    ];
    run("sum16", n as u32, &mut args);
    let (f16, bf16) = (HalfFormat::Float16, HalfFormat::BFloat16);
    let expected: Vec<u64> = f16_cases.iter().map(|&(a, b)| u64::from(f16.add(a, b))).collect();
    let bexpected: Vec<u64> = bf16_cases.iter().map(|&(a, b)| u64::from(bf16.add(a, b))).collect();
    assert_eq!(words(&args[0]), expected);
    assert_eq!(words(&args[1]), bexpected);
    assert_eq!(words(&args[4]), hs.iter().map(|&h| u64::from(h)).collect::<Vec<_>>(), "the old values");
    // Spelled out: ties to even, subnormals added exactly and cancelled to +0, overflow to infinity.
    assert_eq!(expected, [0x3C00, 0x3C02, 0x0002, 0x0000, 0x7C00, 0x0000]);
    assert_eq!(bexpected, [0x3F80, 0x3F82, 0x0002, 0x0000, 0x7F80, 0x0000]);
}

/// 512 threads each add 0.25 to a float16 element, 256 of them 1.0 to a bfloat16 element: every partial sum is
/// exact (at most 11 and 8 significant bits), so the totals are 128 and 256 in any order.
#[test]
fn sixteen_bit_atomic_adds_of_exact_sums_are_order_independent() {
    let mut args = [halves(Scalar::Float16, &[0]), halves(Scalar::BFloat16, &[0])];
    run("count16", 512, &mut args);
    assert_eq!(words(&args[0]), [0x5800], "128 in float16");
    assert_eq!(words(&args[1]), [0x4380], "256 in bfloat16");
}

/// A vector of pairs (`float16x2 vector`) from the lanes' bits, `x` first: two words per element.
fn pairs(scalar: Scalar, name: &str, bits: &[u16]) -> Arg {
    let lane = || ValueType::Scalar(scalar);
    let elem =
        ValueType::Record { name: name.into(), fields: vec![("x".into(), lane()), ("y".into(), lane())], align: 4 };
    Arg::Vector(Buffer { elem, words: bits.iter().map(|&b| u64::from(b)).collect() })
}

/// `atomic_add_float16x2` and `atomic_add_bfloat16x2`: each lane's sum is the scalar add's (rounded once,
/// subnormals kept), and the old pair comes back; one add per element, so the order does not matter.
#[test]
fn pair_atomic_adds_round_each_lane_once() {
    let n = 4096;
    let (a, b, c, d) = (patterns(2 * n, 3), patterns(2 * n, 5), patterns(2 * n, 11), patterns(2 * n, 13));
    let mut args = [
        pairs(Scalar::Float16, "float16x2", &a),
        pairs(Scalar::BFloat16, "bfloat16x2", &c),
        pairs(Scalar::Float16, "float16x2", &b),
        pairs(Scalar::BFloat16, "bfloat16x2", &d),
        pairs(Scalar::Float16, "float16x2", &vec![0; 2 * n]),
        Arg::Scalar(Scalar::Int32, n as u64),
    ];
    run("sum_pairs", n as u32, &mut args);
    let (f16, bf16) = (HalfFormat::Float16, HalfFormat::BFloat16);
    let sums: Vec<u64> = a.iter().zip(&b).map(|(&x, &y)| u64::from(f16.add(x, y))).collect();
    let bsums: Vec<u64> = c.iter().zip(&d).map(|(&x, &y)| u64::from(bf16.add(x, y))).collect();
    assert_eq!(words(&args[0]), sums);
    assert_eq!(words(&args[1]), bsums);
    assert_eq!(words(&args[4]), a.iter().map(|&x| u64::from(x)).collect::<Vec<_>>(), "the old pairs");
}

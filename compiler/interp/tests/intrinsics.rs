//! The bit intrinsics, barrier and warp reductions, shuffles within groups of lanes, float atomic min/max and
//! `ignore`, run by the interpreter and compared with CUDA's semantics written out here independently of the
//! interpreter's code (from the CUDA C++ Programming Guide and the Math API reference), on edge values and on a
//! block whose last warp is partial.

use skc_interp::{launch, Arg, Buffer, Geometry, Options, Program, Scalar, ValueType};

fn program(source: &str) -> Program {
    let checked = skc_core::check("intrinsics.sk", source, &skc_core::NoModules, &Default::default());
    assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
    Program::new(&checked)
}

fn run(source: &str, geometry: Geometry, args: &mut [Arg]) {
    let outcome = launch(&program(source), "k", &geometry, args, &Options::default()).expect("launch");
    let reports: Vec<String> = outcome.reports.iter().map(|r| r.diagnostic.message.clone()).collect();
    assert!(outcome.completed && reports.is_empty(), "{reports:?}");
}

fn zeros(scalar: Scalar, n: usize) -> Arg {
    Arg::Vector(Buffer::new(ValueType::Scalar(scalar), n))
}

fn buffer(args: &[Arg], i: usize) -> &Buffer {
    args[i].buffer().expect("a vector argument")
}

const WORDS: [i32; 9] = [0, 1, -1, i32::MIN, 0x00F0, 12_345_678, i32::MIN + 1, 0x4000_0000, -0x1234_5679];
const WIDE: [i64; 9] = [0, 1, -1, i64::MIN, 0xF0, 0x1234_5678_9ABC_DEF0, i64::MIN + 1, 1 << 40, -0x1234_5678_9ABC];

/// `__ffs`: the position of the least significant bit set, from 1; 0 for 0.
fn ffs(bits: u64, width: u32) -> i32 {
    (0..width).find(|b| bits >> b & 1 == 1).map(|b| b as i32 + 1).unwrap_or(0)
}

/// `__brev`: bit `b` of the result is bit `width - 1 - b` of the operand.
fn brev(bits: u64, width: u32) -> u64 {
    (0..width).filter(|b| bits >> b & 1 == 1).map(|b| 1u64 << (width - 1 - b)).sum()
}

fn clz(bits: u64, width: u32) -> i32 {
    (0..width).rev().take_while(|b| bits >> b & 1 == 0).count() as i32
}

fn popc(bits: u64, width: u32) -> i32 {
    (0..width).filter(|b| bits >> b & 1 == 1).count() as i32
}

#[test]
fn bit_intrinsics_follow_cuda() {
    let source = r#"
kernel k (xs : int32 vector) (ys : int64 vector) (out : int32 vector) (wide : int64 vector) (n : int32) =
  let i = global_idx in
  if i < n then begin
    let x = xs.(i) in
    let y = ys.(i) in
    out.(10 * i) <- popc x;
    out.(10 * i + 1) <- popc64 y;
    out.(10 * i + 2) <- clz x;
    out.(10 * i + 3) <- clz64 y;
    out.(10 * i + 4) <- ffs x;
    out.(10 * i + 5) <- ffs64 y;
    out.(10 * i + 6) <- brev x;
    out.(10 * i + 7) <- funnel_shift_left x xs.((i + 1) mod n) (3 * i);
    out.(10 * i + 8) <- funnel_shift_right x xs.((i + 1) mod n) (7 * i + 13);
    out.(10 * i + 9) <- funnel_shift_left x 0 (32 + i);
    wide.(i) <- brev64 y
  end
"#;
    let n = WORDS.len();
    let mut args = vec![
        Arg::Vector(Buffer::from_i32(&WORDS)),
        Arg::Vector(Buffer::from_words(Scalar::Int64, WIDE.iter().map(|y| *y as u64).collect())),
        zeros(Scalar::Int32, 10 * n),
        zeros(Scalar::Int64, n),
        Arg::i32(n as i32),
    ];
    run(source, Geometry::linear(1, 32), &mut args);
    let out = buffer(&args, 2).as_i32();
    let wide = &buffer(&args, 3).words;
    for i in 0..n {
        let (x, y) = (WORDS[i] as u32 as u64, WIDE[i] as u64);
        let next = WORDS[(i + 1) % n] as u32 as u64;
        // `__funnelshift_l(lo, hi, s)`: the high word of `hi:lo << (s & 31)`; `_r`: the low word of `>>`.
        let joined = next << 32 | x;
        let left = |s: u64| ((joined << (s & 31)) >> 32) as u32 as i32;
        let right = ((joined >> ((7 * i as u64 + 13) & 31)) & 0xFFFF_FFFF) as u32 as i32;
        let alone_left = ((x << ((32 + i as u64) & 31)) >> 32) as u32 as i32;
        let expected = [
            popc(x, 32),
            popc(y, 64),
            clz(x, 32),
            clz(y, 64),
            ffs(x, 32),
            ffs(y, 64),
            brev(x, 32) as u32 as i32,
            left(3 * i as u64),
            right,
            alone_left,
        ];
        assert_eq!(&out[10 * i..10 * i + 10], &expected, "x = {:#x}, y = {:#x}", x, y);
        assert_eq!(wide[i], brev(y, 64), "brev64 {y:#x}");
    }
    // A few values from the CUDA documentation, by hand.
    assert_eq!((out[0], out[2], out[4]), (0, 32, 0), "popc, clz and ffs of 0");
    assert_eq!((out[3], out[5]), (64, 0), "clz64 and ffs64 of 0");
    assert_eq!(out[10 * 3 + 6], 1, "brev of the sign bit");
    assert_eq!(out[10 * 4 + 4], 5, "ffs of 0xF0");
}

#[test]
fn barrier_reductions_count_every_thread_of_the_block() {
    let source = r#"
kernel k (out : int32 vector) =
  let t = thread_idx_x in
  let count = block_barrier_count (t mod 3 = 0) in
  let every = block_barrier_and (t < block_dim_x) in
  let some = block_barrier_or (t = block_dim_x - 1) in
  let not_every = syncthreads_and (t <> 50) in
  let none = syncthreads_or (t > 1000) in
  out.(5 * global_idx) <- count;
  out.(5 * global_idx + 1) <- select every 1 0;
  out.(5 * global_idx + 2) <- select some 1 0;
  out.(5 * global_idx + 3) <- select not_every 1 0;
  out.(5 * global_idx + 4) <- select none 1 0
"#;
    // 100 threads: the last warp is partial.
    let mut args = vec![zeros(Scalar::Int32, 5 * 200)];
    run(source, Geometry::linear(2, 100), &mut args);
    let out = buffer(&args, 0).as_i32();
    let count = (0..100).filter(|t| t % 3 == 0).count() as i32;
    for thread in 0..200 {
        assert_eq!(&out[5 * thread..5 * thread + 5], &[count, 1, 1, 0, 0], "thread {thread}");
    }
}

#[test]
fn warp_reductions_reduce_the_existing_lanes() {
    let source = r#"
kernel k (xs : int32 vector) (out : int32 vector) (uout : uint32 vector) =
  let x = xs.(global_idx) in
  let u = uint32 x in
  out.(6 * global_idx) <- warp_reduce_add x;
  out.(6 * global_idx + 1) <- warp_reduce_min x;
  out.(6 * global_idx + 2) <- warp_reduce_max x;
  out.(6 * global_idx + 3) <- warp_reduce_and x;
  out.(6 * global_idx + 4) <- warp_reduce_or x;
  out.(6 * global_idx + 5) <- warp_reduce_xor x;
  uout.(3 * global_idx) <- warp_reduce_add_uint32 u;
  uout.(3 * global_idx + 1) <- warp_reduce_min_uint32 u;
  uout.(3 * global_idx + 2) <- warp_reduce_max_uint32 u
"#;
    // 48 threads: a whole warp and a warp of 16 lanes.
    let n = 48;
    let xs: Vec<i32> =
        (0..n).map(|i: i32| ((i * 7919) % 1000 - 400).wrapping_add(if i == 40 { i32::MAX } else { 0 })).collect();
    let mut args =
        vec![Arg::Vector(Buffer::from_i32(&xs)), zeros(Scalar::Int32, 6 * 48), zeros(Scalar::UInt32, 3 * 48)];
    run(source, Geometry::linear(1, n as u32), &mut args);
    let out = buffer(&args, 1).as_i32();
    let uout = buffer(&args, 2).as_u32();
    for lane in 0..n as usize {
        let warp = &xs[lane / 32 * 32..(lane / 32 * 32 + 32).min(n as usize)];
        let unsigned: Vec<u32> = warp.iter().map(|x| *x as u32).collect();
        let expected = [
            warp.iter().fold(0i32, |a, x| a.wrapping_add(*x)),
            *warp.iter().min().unwrap(),
            *warp.iter().max().unwrap(),
            warp.iter().fold(-1, |a, x| a & x),
            warp.iter().fold(0, |a, x| a | x),
            warp.iter().fold(0, |a, x| a ^ x),
        ];
        assert_eq!(&out[6 * lane..6 * lane + 6], &expected, "lane {lane}");
        let expected_unsigned = [
            unsigned.iter().fold(0u32, |a, x| a.wrapping_add(*x)),
            *unsigned.iter().min().unwrap(),
            *unsigned.iter().max().unwrap(),
        ];
        assert_eq!(&uout[3 * lane..3 * lane + 3], &expected_unsigned, "lane {lane}");
    }
}

/// The lane whose value lane `lane` gets from `__shfl_*_sync(mask, v, operand, width)`, as the CUDA C++
/// Programming Guide describes each shuffle for a width that divides 32: `idx` reads lane `operand mod width` of
/// the lane's group; `up` and `down` leave the lane its own value past the edge of its group; `xor` may read an
/// earlier group's lane but gives the lane its own value for a later group's.
fn guide_source(mode: &str, lane: u32, operand: u32, width: u32) -> u32 {
    let group = lane / width;
    match mode {
        "idx" => group * width + operand % width,
        "up" if lane % width >= operand => lane - operand,
        "down" if lane % width + operand < width => lane + operand,
        "xor" if (lane ^ operand) / width <= group => lane ^ operand,
        _ => lane,
    }
}

#[test]
fn shuffles_with_a_width_follow_the_programming_guide() {
    let source = r#"
kernel k (out : int32 vector) (operand : int32) (width : int32) =
  let v = 100 + lane_id in
  out.(4 * global_idx) <- shfl_width v operand width;
  out.(4 * global_idx + 1) <- shfl_up_width v operand width;
  out.(4 * global_idx + 2) <- shfl_down_width v operand width;
  out.(4 * global_idx + 3) <- shfl_xor_width v operand width
"#;
    for width in [1u32, 2, 4, 8, 16, 32] {
        for operand in [0u32, 1, 2, 3, 5, 7, 12, 16, 31] {
            let mut args = vec![zeros(Scalar::Int32, 4 * 32), Arg::i32(operand as i32), Arg::i32(width as i32)];
            run(source, Geometry::linear(1, 32), &mut args);
            let out = buffer(&args, 0).as_i32();
            for lane in 0..32u32 {
                for (k, mode) in ["idx", "up", "down", "xor"].iter().enumerate() {
                    let expected = 100 + guide_source(mode, lane, operand, width) as i32;
                    assert_eq!(
                        out[4 * lane as usize + k],
                        expected,
                        "{mode}: lane {lane}, operand {operand}, width {width}"
                    );
                }
            }
        }
    }
}

#[test]
fn float_atomic_min_and_max_skip_nan() {
    let source = r#"
kernel k (xs : float32 vector) (ds : float64 vector) (lo : float32 vector) (hi : float64 vector) =
  let i = global_idx in
  ignore (atomic_min_float32 lo 0 xs.(i));
  ignore (atomic_max_float32 lo 1 xs.(i));
  ignore (atomic_min_float32 lo 2 xs.(i));
  ignore (atomic_min_float64 hi 0 ds.(i));
  ignore (atomic_max_float64 hi 1 ds.(i))
"#;
    let xs: Vec<f32> = (0..64).map(|i| if i % 9 == 4 { f32::NAN } else { (i as f32 - 20.5) * 1.25 }).collect();
    let ds: Vec<f64> = xs.iter().map(|x| f64::from(*x) * 1e300).collect();
    let mut args = vec![
        Arg::Vector(Buffer::from_f32(&xs)),
        Arg::Vector(Buffer::from_f64(&ds)),
        Arg::Vector(Buffer::from_f32(&[f32::INFINITY, f32::NEG_INFINITY, f32::NAN])),
        Arg::Vector(Buffer::from_f64(&[f64::INFINITY, -0.0])),
    ];
    run(source, Geometry::linear(2, 32), &mut args);
    let lo = buffer(&args, 2).as_f32();
    let hi = buffer(&args, 3).as_f64();
    let finite = xs.iter().filter(|x| !x.is_nan());
    assert_eq!(lo[0], finite.clone().fold(f32::INFINITY, |a, x| a.min(*x)), "min skips NaN operands");
    assert_eq!(lo[1], finite.fold(f32::NEG_INFINITY, |a, x| a.max(*x)), "max skips NaN operands");
    assert!(lo[2].is_nan(), "a NaN element is never replaced");
    let finite = ds.iter().filter(|x| !x.is_nan());
    assert_eq!(hi[0], finite.clone().fold(f64::INFINITY, |a, x| a.min(*x)));
    assert_eq!(hi[1], finite.fold(-0.0, |a, x| if *x > a { *x } else { a }));
}

#[test]
fn ignore_runs_its_argument() {
    let source = r#"
kernel k (c : int32 vector) =
  ignore (atomic_add c 0 1);
  ignore (atomic_add c 1 2 + 5)
"#;
    let mut args = vec![zeros(Scalar::Int32, 2)];
    run(source, Geometry::linear(3, 50), &mut args);
    assert_eq!(buffer(&args, 0).as_i32(), vec![150, 300]);
}

//! Tuples (`tests/codegen/tuples.sk`) run by the interpreter: values returned by device functions, destructured,
//! nested, chosen by `select`, and passed through a generic function, against a CPU reference.

use skc_interp::{launch, Arg, Buffer, Geometry, Options, Program, Scalar, ValueType};

#[path = "support/codegen.rs"]
mod codegen;

fn program() -> Program {
    codegen::codegen_program("tuples")
}

#[test]
fn tuples_carry_each_component() {
    let n = 300usize;
    let xs: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin() * 10.0).collect();
    let ys: Vec<f32> = (0..n).map(|i| (i as f32 * 0.11).cos() * 10.0).collect();
    let ks: Vec<i32> = (0..n as i32).map(|i| (i * 7919) % 201 - 100).collect();
    let mut args = vec![
        Arg::Vector(Buffer::from_f32(&xs)),
        Arg::Vector(Buffer::from_f32(&ys)),
        Arg::Vector(Buffer::from_i32(&ks)),
        Arg::Vector(Buffer::new(ValueType::Scalar(Scalar::Float32), 4 * n)),
        Arg::Vector(Buffer::new(ValueType::Scalar(Scalar::Int32), 2 * n)),
        Arg::i32(n as i32),
    ];
    let outcome =
        launch(&program(), "tuples", &Geometry::linear(2, 256), &mut args, &Options::default()).expect("launch");
    let reports: Vec<String> = outcome.reports.iter().map(|r| r.diagnostic.message.clone()).collect();
    assert!(outcome.completed && reports.is_empty(), "{reports:?}");
    let out = args[3].buffer().expect("out").as_f32();
    let iout = args[4].buffer().expect("iout").as_i32();
    for i in 0..n {
        let (x, y, k) = (xs[i], ys[i], ks[i]);
        let (lo, hi) = if x < y { (x, y) } else { (y, x) };
        let (q, r) = (k / 7, k % 7);
        let (label, value) = if k > 0 { (1, hi) } else { (0, lo) };
        assert_eq!(out[4 * i], hi - lo, "hi - lo at {i}");
        assert_eq!(out[4 * i + 1], (x + y) / 2.0, "mean at {i}");
        assert_eq!(out[4 * i + 2], lo + value, "smallest + value at {i}");
        assert_eq!(out[4 * i + 3], lo, "swapped lo at {i}");
        assert_eq!(iout[2 * i], q * 7 + r, "quotient and remainder, swapped twice, at {i}");
        assert_eq!(iout[2 * i + 1], label, "swapped label at {i}");
    }
}

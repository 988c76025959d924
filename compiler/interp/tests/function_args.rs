//! Device functions passed as arguments (`tests/codegen/function_args.sk`) run by the interpreter: a block
//! reduction specialised for `add`, `bit_or` and the builtin `max`, a function parameter passed on, and float
//! functions passed to a generic caller, against a CPU reference.

use skc_interp::{launch, Arg, Buffer, Geometry, Options, Program, Scalar, ValueType};

#[path = "support/codegen.rs"]
mod codegen;

fn program() -> Program {
    codegen::codegen_program("function_args")
}

#[test]
fn function_arguments_run_as_the_functions_passed() {
    let (blocks, n) = (3usize, 700usize);
    let xs: Vec<i32> = (0..n as i32).map(|i| (i * 7919) % 2001 - 1000).collect();
    let ys: Vec<f32> = (0..n).map(|i| 0.25 + i as f32 * 0.5).collect();
    let mut args = vec![
        Arg::Vector(Buffer::from_i32(&xs)),
        Arg::Vector(Buffer::from_f32(&ys)),
        Arg::Vector(Buffer::new(ValueType::Scalar(Scalar::Int32), 3 * blocks + blocks * 256)),
        Arg::Vector(Buffer::new(ValueType::Scalar(Scalar::Float32), n)),
        Arg::i32(n as i32),
    ];
    let outcome =
        launch(&program(), "function_args", &Geometry::linear(blocks as u32, 256), &mut args, &Options::default())
            .expect("launch");
    let reports: Vec<String> = outcome.reports.iter().map(|r| r.diagnostic.message.clone()).collect();
    assert!(outcome.completed && reports.is_empty(), "{reports:?}");
    let out = args[2].buffer().expect("out").as_i32();
    let fout = args[3].buffer().expect("fout").as_f32();
    for block in 0..blocks {
        let values: Vec<i32> = (block * 256..(block + 1) * 256).map(|i| if i < n { xs[i] } else { 0 }).collect();
        let sum = values.iter().fold(0i32, |a, b| a.wrapping_add(*b));
        assert_eq!(out[3 * block], sum, "sum of block {block}");
        assert_eq!(out[3 * block + 1], values.iter().fold(0, |a, b| a | b), "bit_or of block {block}");
        assert_eq!(out[3 * block + 2], *values.iter().max().expect("a block"), "max of block {block}");
        for (offset, x) in values.iter().enumerate() {
            let i = block * 256 + offset;
            if i < n {
                assert_eq!(out[3 * blocks + i], sum.wrapping_add(*x), "reduce_then add at {i}");
            }
        }
    }
    for i in 0..n {
        let want = 2.0 * ys[i].sqrt() + 2.0 * (ys[i] * 0.5);
        assert!((fout[i] - want).abs() <= 1e-6 * want.abs(), "fout[{i}] = {}, want {want}", fout[i]);
    }
}

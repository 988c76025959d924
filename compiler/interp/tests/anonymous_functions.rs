//! Anonymous functions passed to device functions (`tests/codegen/anonymous_functions.sk`) run by the
//! interpreter: a block reduction specialised for `(fun a b -> a +. b)` and an annotated `fmax`, and an integer
//! function given to a parameter with a written function type, against a CPU reference.

use skc_interp::{launch, Arg, Buffer, Geometry, Options, Program, Scalar, ValueType};

#[path = "support/codegen.rs"]
mod codegen;

fn program() -> Program {
    codegen::codegen_program("anonymous_functions")
}

#[test]
fn anonymous_functions_run_as_the_functions_written() {
    let (blocks, n) = (3usize, 700usize);
    let xs: Vec<f32> = (0..n).map(|i| ((i * 37) % 101) as f32 * 0.25 - 10.0).collect();
    let ks: Vec<i32> = (0..n as i32).map(|i| (i * 7919) % 2001 - 1000).collect();
    let mut args = vec![
        Arg::Vector(Buffer::from_f32(&xs)),
        Arg::Vector(Buffer::from_i32(&ks)),
        Arg::Vector(Buffer::new(ValueType::Scalar(Scalar::Float32), 2 * blocks)),
        Arg::Vector(Buffer::new(ValueType::Scalar(Scalar::Int32), n)),
        Arg::i32(n as i32),
    ];
    let geometry = Geometry::linear(blocks as u32, 256);
    let outcome = launch(&program(), "anonymous_functions", &geometry, &mut args, &Options::default()).expect("launch");
    let reports: Vec<String> = outcome.reports.iter().map(|r| r.diagnostic.message.clone()).collect();
    assert!(outcome.completed && reports.is_empty(), "{reports:?}");
    let out = args[2].buffer().expect("out").as_f32();
    let iout = args[3].buffer().expect("iout").as_i32();
    for block in 0..blocks {
        let values: Vec<f32> = (block * 256..(block + 1) * 256).map(|i| if i < n { xs[i] } else { 0.0 }).collect();
        // The tree's order of additions: quarters of a float are exact, so any order gives the same sum.
        let sum: f32 = values.iter().sum();
        let most = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(out[2 * block], sum, "sum of block {block}");
        assert_eq!(out[2 * block + 1], most, "max of block {block}");
    }
    for i in 0..n {
        assert_eq!(iout[i], ks[i].wrapping_mul(3).wrapping_add(1), "combine at {i}");
    }
}

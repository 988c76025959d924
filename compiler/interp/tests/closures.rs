//! Anonymous functions that capture variables (`tests/codegen/closures.sk`) run by the interpreter against a CPU
//! reference: a captured float scales a vector through one template, a captured `mut` variable's value and the
//! thread's index travel through a template that passes the function on to another, and a captured ref cell is
//! updated by reference.

use skc_interp::{launch, Arg, Buffer, Geometry, Options, Program, Scalar, ValueType};

#[path = "support/codegen.rs"]
mod codegen;

fn program() -> Program {
    codegen::codegen_program("closures")
}

#[test]
fn closures_see_the_values_they_capture() {
    let (n, shift) = (200usize, 7i32);
    let factors: Vec<f32> = (0..n).map(|i| (i % 9) as f32 * 0.5 - 2.0).collect();
    let buf: Vec<f32> = (0..4 * n).map(|j| (j % 13) as f32 * 0.25).collect();
    let ks: Vec<i32> = (0..n as i32).map(|i| (i * 31) % 17 - 8).collect();
    let mut args = vec![
        Arg::Vector(Buffer::from_f32(&factors)),
        Arg::Vector(Buffer::from_f32(&buf)),
        Arg::Vector(Buffer::from_i32(&ks)),
        Arg::Vector(Buffer::new(ValueType::Scalar(Scalar::Int32), n)),
        Arg::i32(n as i32),
        Arg::i32(shift),
    ];
    let geometry = Geometry::linear(2, 128);
    let outcome = launch(&program(), "closures", &geometry, &mut args, &Options::default()).expect("launch");
    let reports: Vec<String> = outcome.reports.iter().map(|r| r.diagnostic.message.clone()).collect();
    assert!(outcome.completed && reports.is_empty(), "{reports:?}");
    let scaled = args[1].buffer().expect("buf").as_f32();
    let out = args[3].buffer().expect("out").as_i32();
    for j in 0..4 * n {
        assert_eq!(scaled[j], buf[j] * factors[j / 4] + 1.0, "scaled element {j}");
    }
    for i in 0..n {
        let offset = shift + ks[i];
        let total: i32 = (0..3).map(|j| j * offset).sum();
        let term = |j: i32| j * offset + i as i32;
        let twice: i32 = (0..=3).map(term).sum::<i32>() + (3..=6).map(term).sum::<i32>();
        assert_eq!(out[i], twice + total, "out at {i}");
    }
}

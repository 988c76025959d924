//! An `if` whose condition is a compile-time constant runs its taken branch in the interpreter as on the GPU,
//! for each value of the module parameter that decides it (`tests/codegen/constant_if.sk`, whose CUDA C
//! snapshot shows only the taken branch).

use skc_interp::{launch, Arg, Buffer, Geometry, Options, Program};

fn run(defines: &[(&str, &str)], xs: &[f32]) -> Vec<f32> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/codegen/constant_if.sk");
    let text = std::fs::read_to_string(path).expect("constant_if.sk");
    let mut options = skc_core::driver::CheckOptions::default();
    options.typeck.defines = defines.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect();
    let checked = skc_core::check(path, &text, &skc_core::NoModules, &options);
    assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
    let program = Program::new(&checked);
    let n = xs.len() - 4;
    let mut args =
        vec![Arg::Vector(Buffer::from_f32(xs)), Arg::Vector(Buffer::from_f32(&vec![-1.0; n])), Arg::i32(n as i32)];
    let outcome =
        launch(&program, "constant_if", &Geometry::linear(1, 32), &mut args, &Options::default()).expect("launch");
    assert!(outcome.completed && outcome.reports.is_empty());
    args[1].buffer().expect("out").as_f32()
}

#[test]
fn the_taken_branch_of_a_constant_condition_runs() {
    let xs: Vec<f32> = (0..36).map(|i| i as f32 * 0.5).collect();
    let n = xs.len() - 4;
    // Defaults: wide = false, taps = 3: out = (x_i + x_{i+1}) * 0.5.
    let out = run(&[], &xs);
    for i in 0..n {
        assert_eq!(out[i], (xs[i] + xs[i + 1]) * 0.5, "out[{i}]");
    }
    // taps = 1 takes the inner else: out = x_i * 0.5.
    let out = run(&[("taps", "1")], &xs);
    for i in 0..n {
        assert_eq!(out[i], xs[i] * 0.5, "out[{i}]");
    }
    // wide = true: the sum of four, and `not wide` leaves out untouched.
    let out = run(&[("wide", "true")], &xs);
    assert!(out.iter().all(|v| *v == -1.0), "{out:?}");
    // taps = 5: the last if zeroes out.
    let out = run(&[("taps", "5")], &xs);
    assert!(out.iter().all(|v| *v == 0.0), "{out:?}");
}

use skc_interp::*;

fn program(src: &str) -> Program {
    let checked = skc_core::check("t.sk", src, &skc_core::NoModules, &Default::default());
    for d in &checked.diagnostics {
        eprintln!("{}", skc_core::diagnostic::render(d, &checked.sources, skc_core::diagnostic::ColorChoice::Never));
    }
    Program::new(&checked)
}

#[test]
fn vector_add() {
    let p = program(&std::fs::read_to_string("../../examples/kernels/vector_add.sk").unwrap());
    let n = 1000;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| 2.0 * i as f32).collect();
    let mut args = vec![
        Arg::Vector(Buffer::from_f32(&a)),
        Arg::Vector(Buffer::from_f32(&b)),
        Arg::Vector(Buffer::from_f32(&vec![0.0; n])),
        Arg::i32(n as i32),
    ];
    let out = launch(&p, "vector_add", &Geometry::linear(4, 256), &mut args, &Options::default()).unwrap();
    for r in &out.reports {
        eprintln!("{}", r.diagnostic.message);
    }
    let c = args[2].buffer().unwrap().as_f32();
    assert_eq!(c[999], 2997.0);
    assert!(out.completed);
}

#[test]
fn reduce() {
    let p = program(&std::fs::read_to_string("../../examples/kernels/reduce.sk").unwrap());
    let n = 1000;
    let x: Vec<i32> = (0..n).map(|i| i as i32).collect();
    let mut args =
        vec![Arg::Vector(Buffer::from_i32(&x)), Arg::Vector(Buffer::from_i32(&vec![0; 4])), Arg::i32(n as i32)];
    let out = launch(&p, "reduce", &Geometry::linear(4, 256), &mut args, &Options::default()).unwrap();
    for r in &out.reports {
        eprintln!("{}", r.diagnostic.message);
    }
    let s: i64 = args[1].buffer().unwrap().as_i32().iter().map(|&v| v as i64).sum();
    assert_eq!(s, (0..n as i64).sum::<i64>());
    assert!(out.completed);
}

//! Variant types and `match` (`tests/codegen/variants.sk`) run by the interpreter: a variant kernel parameter, a
//! vector of variants, a shared array of them, constructors with one, two and no payload values, a variant
//! holding a record, integer and constructor matches with `_`, names and alternatives, against a CPU reference.

use skc_interp::{launch, Arg, Buffer, Geometry, Options, Program, Scalar, ValueType};

#[path = "support/codegen.rs"]
mod codegen;

/// The CPU side of `shape` (`type shape = Circle of float32 | Rect of float32 * float32 | Empty`).
#[derive(Clone, Copy, Debug)]
enum Shape {
    Circle(f32),
    Rect(f32, f32),
    Empty,
}

/// The CPU side of `op` (`type op = Keep | Scale of float32 | Offset of int32 * float32`).
#[derive(Clone, Copy, Debug)]
enum Op {
    Keep,
    Scale(f32),
    Offset(i32, f32),
}

fn record(name: &str, fields: &[(&str, Scalar)]) -> ValueType {
    let fields = fields.iter().map(|(n, s)| (n.to_string(), ValueType::Scalar(*s))).collect();
    ValueType::Record { name: name.into(), fields, align: 1 }
}

fn shape_type() -> ValueType {
    use Scalar::*;
    record("shape", &[("Tag_shape", Int32), ("Circle_0", Float32), ("Rect_0", Float32), ("Rect_1", Float32)])
}

/// A value's words as the tagged record holds them: the tag, then every constructor's payload (zero but its own).
fn shape_words(s: Shape) -> [u64; 4] {
    let f = |x: f32| u64::from(x.to_bits());
    match s {
        Shape::Circle(r) => [0, f(r), 0, 0],
        Shape::Rect(w, h) => [1, 0, f(w), f(h)],
        Shape::Empty => [2, 0, 0, 0],
    }
}

fn op_arg(o: Op) -> Arg {
    use Scalar::*;
    let ty = record("op", &[("Tag_op", Int32), ("Scale_0", Float32), ("Offset_0", Int32), ("Offset_1", Float32)]);
    let f = |x: f32| u64::from(x.to_bits());
    let words = match o {
        Op::Keep => vec![0, 0, 0, 0],
        Op::Scale(s) => vec![1, f(s), 0, 0],
        Op::Offset(i, s) => vec![2, 0, u64::from(i as u32), f(s)],
    };
    Arg::Record(ty, words)
}

fn area(s: Shape) -> f32 {
    match s {
        Shape::Circle(r) => 3.0 * r * r,
        Shape::Rect(w, h) => w * h,
        Shape::Empty => 0.0,
    }
}

fn shape_of(k: i32, v: f32) -> Shape {
    match k % 3 {
        0 => Shape::Circle(v),
        1 => Shape::Rect(v, 2.0),
        _ => Shape::Empty,
    }
}

fn apply(o: Op, v: f32) -> f32 {
    match o {
        Op::Keep => v,
        Op::Scale(f) => v * f,
        Op::Offset(i, f) => v + i as f32 * f,
    }
}

fn reference(o: Op, k: i32, x: f32, given: Shape) -> f32 {
    let mine = shape_of(k, x);
    let extra = match mine {
        Shape::Circle(r) => r + r,
        Shape::Rect(w, h) => w + h,
        Shape::Empty => 0.0,
    };
    let given = match given {
        Shape::Empty => -1.0,
        s => area(s),
    };
    apply(o, area(mine)) + extra + given
}

#[test]
fn matches_take_the_constructor_each_value_was_built_with() {
    let program: Program = codegen::codegen_program("variants");
    let n = 500usize;
    let kinds: Vec<i32> = (0..n as i32).map(|i| (i * 7) % 11).collect();
    let xs: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin() * 4.0).collect();
    let shapes: Vec<Shape> =
        (0..n).map(|i| [Shape::Empty, Shape::Circle(i as f32 * 0.5), Shape::Rect(1.5, i as f32)][i % 3]).collect();
    for o in [Op::Keep, Op::Scale(1.5), Op::Offset(3, 0.25)] {
        let mut args = vec![
            op_arg(o),
            Arg::Vector(Buffer::from_i32(&kinds)),
            Arg::Vector(Buffer::from_f32(&xs)),
            Arg::Vector(Buffer { elem: shape_type(), words: shapes.iter().flat_map(|s| shape_words(*s)).collect() }),
            Arg::Vector(Buffer::from_f32(&vec![0.0; n])),
            Arg::i32(n as i32),
        ];
        let outcome =
            launch(&program, "variants", &Geometry::linear(2, 256), &mut args, &Options::default()).expect("launch");
        let reports: Vec<String> = outcome.reports.iter().map(|r| r.diagnostic.message.clone()).collect();
        assert!(outcome.completed && reports.is_empty(), "{reports:?}");
        let out = args[4].buffer().expect("out").as_f32();
        for i in 0..n {
            let expected = reference(o, kinds[i], xs[i], shapes[i]);
            assert_eq!(out[i].to_bits(), expected.to_bits(), "{o:?} at {i}: {} against {expected}", out[i]);
        }
    }
}

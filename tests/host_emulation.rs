//! What emitted code computes, run on the host (`skc_tests::host`: the CUDA C compiled as C++ with a shim, no
//! GPU): the trip count of `for` loops at every edge of every integer type (extreme bounds, empty and one-trip
//! loops, a runtime bound equal to the extreme, `continue` on the last iteration), and float-to-integer
//! conversions on one table of edge values, which the constant evaluator must agree with too. Needs a C++
//! compiler; with `SKC_REQUIRE_CXX=1` (CI) a missing one fails the test.

use skc_core::codegen::{emit_cuda, EmitOptions};
use skc_core::types::ConstValue;
use skc_core::{check, NoModules};
use skc_tests::host::{compile_and_run, cxx_compiler, host_source, work_dir, CUDA_HOST_SHIM};

/// An integer type: its `.sk` name, literal suffix, C type and range.
struct IntType {
    name: &'static str,
    suffix: &'static str,
    c: &'static str,
    min: i128,
    max: i128,
}

const INT_TYPES: [IntType; 4] = [
    IntType { name: "int32", suffix: "", c: "int", min: i32::MIN as i128, max: i32::MAX as i128 },
    IntType { name: "uint32", suffix: "u", c: "unsigned", min: 0, max: u32::MAX as i128 },
    IntType { name: "int64", suffix: "L", c: "long long", min: i64::MIN as i128, max: i64::MAX as i128 },
    IntType { name: "uint64", suffix: "UL", c: "unsigned long long", min: 0, max: u64::MAX as i128 },
];

/// A `.sk` literal of `value` in type `t` (the smallest signed value as `min + 1 - 1`, since `-2147483648`
/// written in decimal is fine but reads oddly next to the others).
fn literal(value: i128, t: &IntType) -> String {
    if value < 0 {
        format!("(-{}{})", -value, t.suffix)
    } else {
        format!("{value}{}", t.suffix)
    }
}

/// One loop: `for i = first to/downto last`, the last bound a literal or a kernel parameter, with or without a
/// `continue` taken on every iteration (so the last one leaves through it).
struct LoopCase {
    first: i128,
    last: i128,
    downto: bool,
    runtime_last: bool,
    continues: bool,
}

impl LoopCase {
    /// The trip count the language defines.
    fn trips(&self) -> i128 {
        let span = if self.downto { self.first - self.last } else { self.last - self.first };
        (span + 1).max(0)
    }
}

fn loop_cases(t: &IntType) -> Vec<LoopCase> {
    let case = |first, last, downto, runtime_last, continues| LoopCase { first, last, downto, runtime_last, continues };
    vec![
        case(t.max - 7, t.max, false, false, false),
        case(t.max - 7, t.max, false, true, false),
        case(t.max - 7, t.max, false, true, true),
        case(t.max, t.max, false, false, false),
        case(t.max, t.max - 1, false, true, false),
        case(t.max - 3, t.max - 1, false, false, false),
        case(t.min + 7, t.min, true, false, false),
        case(t.min + 7, t.min, true, true, false),
        case(t.min + 7, t.min, true, true, true),
        case(t.min, t.min, true, true, false),
        case(t.min, t.min + 1, true, false, false),
        case(t.min + 3, t.min + 1, true, true, false),
        case(5, 9, false, true, true),
    ]
}

/// A kernel per case: it counts the iterations and keeps the sum of `i - first` (or `first - i`), which tells
/// a loop that ran the right number of times over the wrong values.
fn loop_program() -> (String, String, Vec<String>) {
    let mut sk = String::new();
    let mut main = String::from("int main() {\n  long long out[2];\n");
    let mut expected = Vec::new();
    for t in &INT_TYPES {
        for (n, case) in loop_cases(t).iter().enumerate() {
            let kernel = format!("loop_{}_{n}", t.name);
            let last = if case.runtime_last { "last".to_string() } else { literal(case.last, t) };
            let (dir, offset) = if case.downto {
                ("downto", format!("{} - i", literal(case.first, t)))
            } else {
                ("to", format!("i - {}", literal(case.first, t)))
            };
            let step = if case.continues { "    if true then continue;\n" } else { "" };
            sk.push_str(&format!(
                "kernel {kernel} (out : int64 vector) (last : {ty}) =\n  let count = mut 0L in\n  let sum = mut 0L in\n  \
                 for i = {first} {dir} {last} do\n    count := count + 1L;\n    sum := sum + int64 ({offset});\n{step}  done;\n  \
                 out.(0) <- count;\n  out.(1) <- sum\n\n",
                ty = t.name,
                first = literal(case.first, t),
            ));
            main.push_str(&format!(
                "  {kernel}(out, ({c})({last}));\n  printf(\"{kernel} %lld %lld\\n\", out[0], out[1]);\n",
                c = t.c,
                last = c_literal(case.last, t),
            ));
            let trips = case.trips();
            expected.push(format!("{kernel} {trips} {}", trips * (trips - 1) / 2));
        }
    }
    main.push_str("  return 0;\n}\n");
    (sk, main, expected)
}

fn c_literal(value: i128, t: &IntType) -> String {
    match t.name {
        "int64" if value == i64::MIN as i128 => "LLONG_MIN".to_string(),
        "int32" if value == i32::MIN as i128 => "INT_MIN".to_string(),
        "uint64" => format!("{value}ull"),
        "int64" => format!("{value}ll"),
        _ => format!("{value}"),
    }
}

/// Checks `sk` (which must have no errors) and returns its emitted CUDA C in host form.
fn host_program(name: &str, sk: &str) -> (skc_core::Checked, String) {
    let checked = check(name, sk, &NoModules, &Default::default());
    let errors: Vec<_> = checked.diagnostics.iter().filter(|d| d.is_error()).map(|d| d.message.clone()).collect();
    assert!(errors.is_empty(), "{name} does not check: {errors:?}\n{sk}");
    let options = EmitOptions { line_directives: false, ..EmitOptions::default() };
    let cuda = emit_cuda(&checked.module, &checked.types, &checked.sources, &options);
    let source = host_source(&cuda.source);
    (checked, source)
}

#[test]
fn for_loops_run_their_defined_trip_count_at_every_edge() {
    let Some(cxx) = cxx_compiler("loop host emulation") else { return };
    let (sk, main, expected) = loop_program();
    let (_, source) = host_program("loops.sk", &sk);
    let dir = work_dir("skc-loops-host");
    let output = compile_and_run(&cxx, &dir, "loops", &format!("{CUDA_HOST_SHIM}\n{source}\n{main}"));
    std::fs::remove_dir_all(&dir).ok();
    let output = output.unwrap_or_else(|e| panic!("{e}\n{source}"));
    let actual: Vec<&str> = output.lines().collect();
    assert_eq!(actual.len(), expected.len(), "every kernel ran:\n{output}");
    let wrong: Vec<String> = expected
        .iter()
        .zip(&actual)
        .filter(|(e, a)| e.as_str() != **a)
        .map(|(e, a)| format!("expected `{e}`, ran `{a}`"))
        .collect();
    assert!(wrong.is_empty(), "{}\n{sk}", wrong.join("\n"));
}

// --- float to integer conversions ---------------------------------------------------------------------------

/// The edge values, as `.sk` float64 expressions and their values.
fn conversion_inputs() -> Vec<(&'static str, f64)> {
    vec![
        ("0.0d", 0.0),
        ("(-0.0d)", -0.0),
        ("2.9d", 2.9),
        ("(-2.9d)", -2.9),
        ("(-0.5d)", -0.5),
        ("(-1.5d)", -1.5),
        ("2147483647.0d", 2147483647.0),
        ("2147483647.9d", 2147483647.9),
        ("2147483648.0d", 2147483648.0),
        ("(-2147483648.0d)", -2147483648.0),
        ("(-2147483648.9d)", -2147483648.9),
        ("(-2147483649.0d)", -2147483649.0),
        ("3.9e9d", 3.9e9),
        ("(-3.9e9d)", -3.9e9),
        ("4294967295.0d", 4294967295.0),
        ("4294967296.0d", 4294967296.0),
        // The largest float64 below 2^63, 2^63, -2^63, the largest below 2^64, 2^64.
        ("9223372036854774784.0d", 9223372036854774784.0),
        ("9223372036854775808.0d", 9223372036854775808.0),
        ("(-9223372036854775808.0d)", -9223372036854775808.0),
        ("18446744073709549568.0d", 18446744073709549568.0),
        ("18446744073709551616.0d", 18446744073709551616.0),
        ("1e30d", 1e30),
        ("(-1e30d)", -1e30),
        ("(infinity : float64)", f64::INFINITY),
        ("(neg_infinity : float64)", f64::NEG_INFINITY),
        ("(nan : float64)", f64::NAN),
    ]
}

const TARGETS: [&str; 4] = ["int32", "uint32", "int64", "uint64"];

/// CUDA's conversion (`cvt.rzi`): truncate, saturate, NaN to 0; Rust's `as` has the same semantics. As the bits
/// of an `i64`, the form `ConstValue::Int` keeps.
fn expected_conversion(value: f64, target: &str) -> i64 {
    match target {
        "int32" => i64::from(value as i32),
        "uint32" => i64::from(value as u32),
        "int64" => value as i64,
        _ => value as u64 as i64,
    }
}

/// Printed as the host prints the target type.
fn shown(bits: i64, target: &str) -> String {
    match target {
        "uint32" => (bits as u32).to_string(),
        "uint64" => (bits as u64).to_string(),
        _ => bits.to_string(),
    }
}

/// Constants `c_<precision>_<target>_<n>` converting every input (float64 and its float32 rounding) to every
/// integer type, and one kernel per precision converting the same values at run time.
fn conversion_program() -> String {
    let mut sk = String::new();
    for (n, (input, _)) in conversion_inputs().iter().enumerate() {
        for target in TARGETS {
            sk.push_str(&format!("let c_f64_{target}_{n} = {target} {input}\n"));
            sk.push_str(&format!("let c_f32_{target}_{n} = {target} (float32 {input})\n"));
        }
    }
    for precision in ["float32", "float64"] {
        sk.push_str(&format!(
            "\nkernel convert_{precision} (xs : {precision} vector) (a : int32 vector) (b : uint32 vector) \
             (c : int64 vector) (d : uint64 vector) =\n  let i = global_idx in\n  a.(i) <- int32 xs.(i);\n  \
             b.(i) <- uint32 xs.(i);\n  c.(i) <- int64 xs.(i);\n  d.(i) <- uint64 xs.(i)\n"
        ));
    }
    // The constants reach the emitted code (and so the host) through a kernel that stores each.
    sk.push_str("\nkernel constants (a : int32 vector) (b : uint32 vector) (c : int64 vector) (d : uint64 vector) =\n");
    let mut stores = Vec::new();
    for n in 0..conversion_inputs().len() {
        for (precision, slot) in [("f64", 2 * n), ("f32", 2 * n + 1)] {
            stores.push(format!("  a.({slot}) <- c_{precision}_int32_{n}"));
            stores.push(format!("  b.({slot}) <- c_{precision}_uint32_{n}"));
            stores.push(format!("  c.({slot}) <- c_{precision}_int64_{n}"));
            stores.push(format!("  d.({slot}) <- c_{precision}_uint64_{n}"));
        }
    }
    sk.push_str(&stores.join(";\n"));
    sk.push('\n');
    sk
}

const CONVERSION_MAIN: &str = r#"
int main() {
  const double inputs[] = { INPUTS };
  const int n = sizeof inputs / sizeof inputs[0];
  std::vector<double> xs(inputs, inputs + n);
  std::vector<float> xs32(n);
  for (int i = 0; i < n; i++) xs32[i] = (float)xs[i];
  std::vector<int> a(2 * n); std::vector<unsigned> b(2 * n);
  std::vector<long long> c(2 * n); std::vector<unsigned long long> d(2 * n);
  for (int i = 0; i < n; i++) {
    threadIdx.x = i;
    convert_float64(xs.data(), a.data(), b.data(), c.data(), d.data());
  }
  for (int i = 0; i < n; i++) printf("run f64 %d %d %u %lld %llu\n", i, a[i], b[i], c[i], d[i]);
  for (int i = 0; i < n; i++) {
    threadIdx.x = i;
    convert_float32(xs32.data(), a.data(), b.data(), c.data(), d.data());
  }
  for (int i = 0; i < n; i++) printf("run f32 %d %d %u %lld %llu\n", i, a[i], b[i], c[i], d[i]);
  threadIdx.x = 0;
  constants(a.data(), b.data(), c.data(), d.data());
  for (int i = 0; i < n; i++) {
    printf("const f64 %d %d %u %lld %llu\n", i, a[2 * i], b[2 * i], c[2 * i], d[2 * i]);
    printf("const f32 %d %d %u %lld %llu\n", i, a[2 * i + 1], b[2 * i + 1], c[2 * i + 1], d[2 * i + 1]);
  }
  return 0;
}
"#;

/// The expected line for input `n` in one precision: `<what> <precision> n a b c d`.
fn expected_line(what: &str, precision: &str, n: usize, value: f64) -> String {
    let value = if precision == "f32" { f64::from(value as f32) } else { value };
    let results: Vec<String> = TARGETS.iter().map(|t| shown(expected_conversion(value, t), t)).collect();
    format!("{what} {precision} {n} {}", results.join(" "))
}

/// The constant evaluator folds every conversion of the table to CUDA's value.
#[test]
fn constant_float_to_integer_conversions_saturate() {
    let sk = conversion_program();
    let checked = check("conversions.sk", &sk, &NoModules, &Default::default());
    assert!(!checked.has_errors(), "{:?}", checked.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>());
    let mut wrong = Vec::new();
    for (n, (input, value)) in conversion_inputs().iter().enumerate() {
        for target in TARGETS {
            for (precision, rounded) in [("f64", *value), ("f32", f64::from(*value as f32))] {
                let name = format!("c_{precision}_{target}_{n}");
                let constant = checked.types.constants.iter().find(|c| c.name == name).expect("the constant exists");
                let expected = ConstValue::Int(expected_conversion(rounded, target));
                if constant.value != expected {
                    wrong.push(format!(
                        "{target} ({precision} {input}): folded {:?}, CUDA gives {expected:?}",
                        constant.value
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The emitted conversions (at run time, and the folded constants as emitted) agree with the same table.
#[test]
fn emitted_float_to_integer_conversions_match_the_table() {
    let Some(cxx) = cxx_compiler("conversion host emulation") else { return };
    let (_, source) = host_program("conversions.sk", &conversion_program());
    let inputs = conversion_inputs();
    let c_inputs: Vec<String> = inputs
        .iter()
        .map(|(_, v)| match v {
            v if v.is_nan() => "NAN".to_string(),
            v if v.is_infinite() && *v > 0.0 => "INFINITY".to_string(),
            v if v.is_infinite() => "-INFINITY".to_string(),
            v => format!("{v:e}"),
        })
        .collect();
    let main = CONVERSION_MAIN.replace("INPUTS", &c_inputs.join(", "));
    let dir = work_dir("skc-conversions-host");
    let output = compile_and_run(&cxx, &dir, "conversions", &format!("{CUDA_HOST_SHIM}\n{source}\n{main}"));
    std::fs::remove_dir_all(&dir).ok();
    let output = output.unwrap_or_else(|e| panic!("{e}"));
    let mut expected = Vec::new();
    for precision in ["f64", "f32"] {
        for (n, (_, value)) in inputs.iter().enumerate() {
            expected.push(expected_line("run", precision, n, *value));
        }
    }
    for (n, (_, value)) in inputs.iter().enumerate() {
        expected.push(expected_line("const", "f64", n, *value));
        expected.push(expected_line("const", "f32", n, *value));
    }
    let actual: Vec<&str> = output.lines().collect();
    assert_eq!(actual.len(), expected.len(), "{output}");
    let wrong: Vec<String> = expected
        .iter()
        .zip(&actual)
        .filter(|(e, a)| e.as_str() != **a)
        .map(|(e, a)| format!("expected `{e}`, got `{a}`"))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

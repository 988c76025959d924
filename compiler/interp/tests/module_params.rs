//! A program with two instances of one parameterised module (`tests/ui/modules/params_instances.sk`: float32 with
//! a function of the opening file, float64 with the defaults, and the shared copy) run by the interpreter, against
//! a CPU reference.

use skc_interp::{launch, Arg, Buffer, Geometry, Options, Program};

/// Loads modules from `tests/ui/modules`.
struct UiModules;

impl skc_core::ModuleLoader for UiModules {
    fn load(&self, module: &str, _importer: &str) -> Result<(String, String), String> {
        let mut name = module.to_string();
        name[..1].make_ascii_lowercase();
        let path = format!("{}/../../tests/ui/modules/{name}.sk", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).map(|text| (path, text)).map_err(|e| e.to_string())
    }
}

#[test]
fn two_instances_of_one_module_run_side_by_side() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/ui/modules/params_instances.sk");
    let text = std::fs::read_to_string(path).expect("params_instances.sk");
    let checked = skc_core::check(path, &text, &UiModules, &Default::default());
    assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
    let program = Program::new(&checked);
    let n = 64usize;
    let a: Vec<f32> = (0..n).map(|i| 0.5 + i as f32 * 0.25).collect();
    let b: Vec<f64> = (0..n).map(|i| -1.0 + i as f64 * 0.125).collect();
    let mut args = vec![Arg::Vector(Buffer::from_f32(&a)), Arg::Vector(Buffer::from_f64(&b))];
    let outcome = launch(&program, "both", &Geometry::linear(2, 32), &mut args, &Options::default()).expect("launch");
    assert!(outcome.completed && outcome.reports.is_empty());
    let (out_a, out_b) = (args[0].buffer().expect("a").as_f32(), args[1].buffer().expect("b").as_f64());
    for i in 0..n {
        // S32: real = float32, shape = twice: apply x = (2 x) x; S64 and the shared copy: shape = identity, and
        // S32.factor = 3.
        assert_eq!(out_a[i], (2.0 * a[i]) * a[i], "a[{i}]");
        assert_eq!(out_b[i], b[i] * b[i] + 3.0 + 1.0, "b[{i}]");
    }
    // The instances' kernels are there under their names, and the shared copy's under its own.
    for kernel in ["S32_scale", "S64_scale", "scale", "both"] {
        assert!(checked.module.kernels().any(|k| k.name.name.as_str() == kernel), "{kernel}");
    }
}

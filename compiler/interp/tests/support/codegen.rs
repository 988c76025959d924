//! A file of the codegen corpus (`tests/codegen/NAME.sk`), checked and compiled for the interpreter: the programs
//! whose emitted CUDA C the codegen snapshots show, run here against CPU references.

use skc_interp::Program;

/// `tests/codegen/{name}.sk`, which must check without errors.
pub fn codegen_program(name: &str) -> Program {
    let path = format!("{}/../../tests/codegen/{name}.sk", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let checked = skc_core::check(&path, &text, &skc_core::NoModules, &Default::default());
    assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
    Program::new(&checked)
}

//! Until the CUDA C emitter (`skc_core::codegen::emit_cuda`) is merged, the runtime builds without it and
//! `Program::from_source` says so; this sets `cfg(skc_codegen)` once the emitter is present. Remove after the
//! merge.

use std::path::Path;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(skc_codegen)");
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let codegen = Path::new(&manifest).join("../compiler/core/src/codegen/mod.rs");
    println!("cargo::rerun-if-changed={}", codegen.display());
    let present = std::fs::read_to_string(&codegen).map(|text| text.contains("pub fn emit_cuda")).unwrap_or(false);
    if present {
        println!("cargo::rustc-cfg=skc_codegen");
    }
}

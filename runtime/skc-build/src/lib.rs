//! Typed launch wrappers, generated at build time. In a crate's `build.rs`:
//!
//! ```ignore
//! fn main() {
//!     skc_build::wrap("kernels/vector_add.sk"); // writes $OUT_DIR/vector_add.rs, reruns when the file changes
//! }
//! ```
//!
//! and in the crate: `mod vector_add { include!(concat!(env!("OUT_DIR"), "/vector_add.rs")); }`. The module
//! holds the emitted CUDA C, a `#[repr(C)]` struct per record, and a struct named after the file
//! (`VectorAdd`) with `load(&Context)` and one `launch_<kernel>(&self, &LaunchConfig, ...)` per kernel whose
//! parameters have the Rust types of the kernel's: `&DeviceBuffer<f32>` for a vector it reads,
//! `&mut DeviceBuffer<f32>` for one it writes, `i32` for an `int32`. A wrong argument is then a Rust compile
//! error; the runtime still checks lengths and launch geometry.
//!
//! The `.sk` file is checked and emitted here, so its errors fail the build (with `skc check`'s rendering) and
//! the program needs no front end at run time, only NVRTC (through the compile cache).

mod emit;
mod names;

use std::path::{Path, PathBuf};

use skc_core::codegen::{emit_cuda, EmitOptions};
use skc_core::diagnostic::{self, ColorChoice};
use skc_core::ModuleLoader;

pub use emit::rust_module;

/// Generates the wrappers of `sk_file` into `$OUT_DIR/<stem>.rs` and tells cargo to rerun when the file (or a
/// module it opens) changes. Panics, printing the diagnostics, if the file has errors: for `build.rs`.
pub fn wrap(sk_file: impl AsRef<Path>) -> PathBuf {
    let sk_file = sk_file.as_ref();
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("skc_build::wrap runs in a build script"));
    let stem = sk_file.file_stem().and_then(|s| s.to_str()).unwrap_or("kernels");
    let out = out_dir.join(format!("{stem}.rs"));
    match generate(sk_file) {
        Ok(generated) => {
            for file in &generated.files {
                println!("cargo::rerun-if-changed={}", file.display());
            }
            std::fs::write(&out, generated.rust).unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
        }
        Err(message) => panic!("{message}"),
    }
    out
}

/// What [`generate`] produced.
pub struct Generated {
    /// The Rust module.
    pub rust: String,
    /// Every `.sk` file read (the root and the modules it opens).
    pub files: Vec<PathBuf>,
}

/// Checks and emits `sk_file` and returns the Rust module; `Err` holds the rendered diagnostics.
pub fn generate(sk_file: &Path) -> Result<Generated, String> {
    let text = std::fs::read_to_string(sk_file).map_err(|e| format!("cannot read {}: {e}", sk_file.display()))?;
    let name = sk_file.display().to_string();
    let checked = skc_core::check(&name, &text, &FileLoader, &Default::default());
    if checked.has_errors() {
        let rendered: Vec<String> =
            checked.diagnostics.iter().map(|d| diagnostic::render(d, &checked.sources, ColorChoice::Never)).collect();
        return Err(format!("{name} has {} error(s):\n{}", checked.error_count(), rendered.join("\n")));
    }
    let output = emit_cuda(&checked.module, &checked.types, &checked.sources, &EmitOptions::default());
    let file_name = sk_file.file_name().and_then(|s| s.to_str()).unwrap_or("kernels.sk");
    let files = checked.sources.files().map(|(_, f)| PathBuf::from(&f.name)).collect();
    Ok(Generated { rust: rust_module(file_name, &output), files })
}

/// Opened modules: `m.sk` or `M.sk` next to the importing file, then in `$SKC_STDLIB`.
struct FileLoader;

impl ModuleLoader for FileLoader {
    fn load(&self, module: &str, importer: &str) -> Result<(String, String), String> {
        let mut dirs: Vec<PathBuf> = vec![Path::new(importer).parent().map(Path::to_path_buf).unwrap_or_default()];
        if let Some(stdlib) = std::env::var_os("SKC_STDLIB") {
            dirs.push(PathBuf::from(stdlib));
        }
        let lower = names::lower_first(module);
        let mut searched = Vec::new();
        for dir in &dirs {
            for file in [format!("{lower}.sk"), format!("{module}.sk")] {
                let path = dir.join(file);
                if let Ok(text) = std::fs::read_to_string(&path) {
                    return Ok((path.display().to_string(), text));
                }
                searched.push(path.display().to_string());
            }
        }
        Err(format!("looked for {}", searched.join(", ")))
    }
}

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

use skc_core::session::{DiskFiles, Session};

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

/// Checks and emits `sk_file` (with the standard session: `open M` next to it, then in the standard library) and
/// returns the Rust module; `Err` holds the rendered diagnostics.
pub fn generate(sk_file: &Path) -> Result<Generated, String> {
    let files = DiskFiles::new();
    let compiled = Session::standard(&files).compile_file(sk_file).map_err(|e| e.to_string())?;
    let file_name = sk_file.file_name().and_then(|s| s.to_str()).unwrap_or("kernels.sk");
    let files = compiled.checked.sources.files().map(|(_, f)| PathBuf::from(&f.name)).collect();
    Ok(Generated { rust: rust_module(file_name, &compiled.cuda), files })
}

//! From `.sk` text to what the device loads, without touching a GPU: the front end (diagnostics rendered as
//! `skc check` prints them), the CUDA C emitter with each kernel's [`KernelSignature`], and NVRTC through the
//! shared on-disk cache, for a given architecture.

use std::path::{Path, PathBuf};

use skc_core::diagnostic::{self, ColorChoice};
use skc_core::ModuleLoader;
use skc_nvrtc::{Cache, CompileOptions, CompileOutput, Runner};

use crate::error::{Result, RuntimeError};
use crate::signature::KernelSignature;

/// The version recorded in compile-cache keys.
pub const COMPILER_VERSION: &str = concat!("skc-runtime ", env!("CARGO_PKG_VERSION"));

/// A translation unit of CUDA C and the signatures of its kernels.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The name NVRTC and error messages use (the `.sk` file's name).
    pub name: String,
    pub cuda_source: String,
    pub kernels: Vec<KernelSignature>,
    /// Does the code launch kernels from the device (`launch`)? Then it is compiled as relocatable device code
    /// and linked with the device runtime (`libcudadevrt.a`) when loaded.
    pub needs_device_runtime: bool,
}

impl Program {
    /// Runs the front end and the emitter over `text`; `name` is its file name (opened modules are looked up
    /// next to it, then in `$SKC_STDLIB`).
    pub fn from_source(name: &str, text: &str) -> Result<Program> {
        Program::from_source_with_defines(name, text, &[])
    }

    /// [`from_source`](Self::from_source) with `-D NAME=VALUE` overrides of top-level constants (as `skc check -D`):
    /// how a library selects its compile-time variants.
    pub fn from_source_with_defines(name: &str, text: &str, defines: &[(String, String)]) -> Result<Program> {
        let options = skc_core::driver::CheckOptions {
            typeck: skc_core::typeck::TypeckOptions { defines: defines.to_vec() },
            ..Default::default()
        };
        let checked = skc_core::check(name, text, &FileLoader, &options);
        if checked.has_errors() {
            let rendered: Vec<String> = checked
                .diagnostics
                .iter()
                .map(|d| diagnostic::render(d, &checked.sources, ColorChoice::Never))
                .collect();
            return Err(RuntimeError::Frontend {
                file: name.to_string(),
                error_count: checked.error_count(),
                rendered: rendered.join("\n"),
            });
        }
        emit(name, &checked)
    }

    /// [`from_source`](Self::from_source) of a file.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Program> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| RuntimeError::Io { path: path.into(), source })?;
        Program::from_source(&path.display().to_string(), &text)
    }

    /// Hand-written CUDA C with the signatures of its `extern "C"` kernels.
    pub fn from_cuda(name: &str, cuda_source: &str, kernels: Vec<KernelSignature>) -> Program {
        Program { name: name.to_string(), cuda_source: cuda_source.to_string(), kernels, needs_device_runtime: false }
    }

    /// Marks hand-written CUDA C as launching kernels from the device (compiled relocatable, linked with the device
    /// runtime when loaded).
    pub fn with_device_runtime(mut self) -> Program {
        self.needs_device_runtime = true;
        self
    }

    /// Compiles to PTX and a CUBIN for `arch` (`sm_90`) with NVRTC, through the on-disk cache (`SKC_CACHE_DIR`).
    /// Line tables are included so compute-sanitizer and profilers point at `.sk` lines. A program that needs the
    /// device runtime is compiled relocatable: its CUBIN is then an object to link (see `Module::from_program`).
    /// On a cache miss NVRTC runs in a worker process when one is found (`skc_nvrtc::Isolation::from_env`:
    /// `SKC_NVRTC_WORKER`, or `skc-nvrtc-worker` next to the executable), so that its crash is an error here
    /// (`NvrtcError::Crashed`), not the end of the program; otherwise in this process.
    pub fn compile(&self, arch: &str) -> Result<CompileOutput> {
        let options = CompileOptions {
            line_info: true,
            relocatable: self.needs_device_runtime,
            ..CompileOptions::for_arch(arch)
        };
        let cache = Cache::from_env();
        Runner::from_env()
            .compile_cached(&self.cuda_source, &self.name, &options, cache.as_ref(), COMPILER_VERSION)
            .map_err(|source| RuntimeError::Nvrtc { module: self.name.clone(), source })
    }

    pub fn kernel(&self, name: &str) -> Option<&KernelSignature> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

fn emit(name: &str, checked: &skc_core::Checked) -> Result<Program> {
    use skc_core::codegen::{emit_cuda, EmitOptions};
    let output = emit_cuda(&checked.module, &checked.types, &checked.sources, &EmitOptions::default());
    let kernels = output.kernels.iter().map(|k| crate::signature::from_codegen(k, &output.records)).collect();
    Ok(Program {
        name: name.to_string(),
        cuda_source: output.source,
        kernels,
        needs_device_runtime: output.needs_device_runtime,
    })
}

/// Finds opened modules: `m.sk` or `M.sk` next to the importing file, then in `$SKC_STDLIB`.
struct FileLoader;

impl ModuleLoader for FileLoader {
    fn load(&self, module: &str, importer: &str) -> Result<(String, String), String> {
        let mut dirs: Vec<PathBuf> = vec![Path::new(importer).parent().map(Path::to_path_buf).unwrap_or_default()];
        if let Some(stdlib) = std::env::var_os("SKC_STDLIB") {
            dirs.push(PathBuf::from(stdlib));
        }
        let mut lower = module.to_string();
        if let Some(first) = lower.get_mut(0..1) {
            first.make_ascii_lowercase();
        }
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

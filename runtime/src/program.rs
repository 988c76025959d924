//! From `.sk` text to what the device loads, without touching a GPU: the front end and the CUDA C emitter through
//! a [`Session`] (diagnostics rendered as `skc check` prints them), each kernel's [`KernelSignature`], and NVRTC
//! through the shared on-disk cache, for a given architecture.

use std::path::Path;

use skc_core::codegen::CudaOutput;
use skc_core::session::{Compiled, DiskFiles, Session};
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
    /// Runs the front end and the emitter over `text` through `session` (its files, search path, definitions,
    /// allowed warnings and emit options); `name` is the text's file name (opened modules are looked up next to it
    /// first).
    pub fn from_session(session: &Session, name: &str, text: &str) -> Result<Program> {
        Ok(Program::from_compiled(name, &session.compile(name, text)?))
    }

    /// [`from_session`](Self::from_session) of a file read through the session.
    pub fn from_session_file(session: &Session, path: impl AsRef<Path>) -> Result<Program> {
        let path = path.as_ref();
        Ok(Program::from_compiled(&path.display().to_string(), &session.compile_file(path)?))
    }

    /// The program of what a session compiled.
    pub fn from_compiled(name: &str, compiled: &Compiled) -> Program {
        Program::from_output(name, &compiled.cuda)
    }

    /// The program of the emitter's output (for hosts that keep the checked program apart: its constants).
    pub fn from_output(name: &str, output: &CudaOutput) -> Program {
        let kernels = output.kernels.iter().map(|k| crate::signature::from_codegen(k, &output.records)).collect();
        Program {
            name: name.to_string(),
            cuda_source: output.source.clone(),
            kernels,
            needs_device_runtime: output.needs_device_runtime,
        }
    }

    /// [`from_session`](Self::from_session) with the standard session: files from the disk, `open M` next to the
    /// file and in the standard library.
    pub fn from_source(name: &str, text: &str) -> Result<Program> {
        Program::from_session(&Session::standard(&DiskFiles::new()), name, text)
    }

    /// [`from_source`](Self::from_source) of a file.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Program> {
        Program::from_session_file(&Session::standard(&DiskFiles::new()), path)
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
        self.compile_with(CompileOptions { line_info: true, ..CompileOptions::for_arch(arch) })
    }

    /// [`compile`](Self::compile) with other NVRTC options (`relocatable` follows the program).
    pub fn compile_with(&self, options: CompileOptions) -> Result<CompileOutput> {
        let options = CompileOptions { relocatable: self.needs_device_runtime, ..options };
        let cache = Cache::from_env();
        Runner::from_env()
            .compile_cached(&self.cuda_source, &self.name, &options, cache.as_ref(), COMPILER_VERSION)
            .map_err(|source| RuntimeError::Nvrtc { module: self.name.clone(), source })
    }

    pub fn kernel(&self, name: &str) -> Option<&KernelSignature> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

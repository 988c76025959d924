//! [`Module`]: a [`Program`] compiled for the device's own architecture and loaded as CUBIN, and the lookup of
//! its kernels by `.sk` name.

use std::path::Path;
use std::sync::atomic::AtomicU32;
use std::sync::Arc;
use std::time::Duration;

use cudarc::driver::sys::CUfunction_attribute;
use cudarc::driver::CudaModule;
use cudarc::nvrtc::Ptx;
use skc_nvrtc::KernelResources;

use crate::check::Limits;
use crate::context::Context;
use crate::error::{Result, RuntimeError};
use crate::kernel::Kernel;
use crate::program::Program;
use crate::signature::KernelSignature;

/// How the module's code was produced.
#[derive(Clone, Debug)]
pub struct CompileReport {
    pub arch: String,
    pub cache_hit: bool,
    /// NVRTC's time, or the cache lookup's on a hit.
    pub elapsed: Duration,
    /// NVRTC's log (warnings and the ptxas report).
    pub log: String,
    /// Registers, spills and shared memory of each kernel, from ptxas.
    pub resources: Vec<KernelResources>,
    pub ptx: String,
    /// For a program that launches kernels from the device: the `libcudadevrt.a` it was linked with, and what the
    /// linker was given (the relocatable CUBIN, or the PTX if the linker refused it).
    pub device_runtime: Option<(std::path::PathBuf, crate::link::LinkInput)>,
}

pub(crate) struct ModuleInner {
    pub ctx: Context,
    pub program: Program,
    pub cuda: Arc<CudaModule>,
    pub report: CompileReport,
}

/// Compiled kernels loaded on a device. Cheap to clone.
#[derive(Clone)]
pub struct Module {
    inner: Arc<ModuleInner>,
}

impl Module {
    /// Compiles `.sk` source text (named `name`, e.g. its file name) and loads it.
    pub fn from_source(ctx: &Context, name: &str, text: &str) -> Result<Module> {
        Module::from_program(ctx, Program::from_source(name, text)?)
    }

    /// Compiles a `.sk` file and loads it.
    pub fn from_file(ctx: &Context, path: impl AsRef<Path>) -> Result<Module> {
        Module::from_program(ctx, Program::from_file(path)?)
    }

    /// Compiles hand-written CUDA C whose kernels have the given signatures, and loads it.
    pub fn from_cuda(ctx: &Context, name: &str, cuda_source: &str, kernels: Vec<KernelSignature>) -> Result<Module> {
        Module::from_program(ctx, Program::from_cuda(name, cuda_source, kernels))
    }

    /// Compiles a program for the device's architecture (a CUBIN, no JIT) and loads it. A program that launches
    /// kernels from the device is first linked with the device runtime (`libcudadevrt.a`, found by
    /// `skc_nvrtc::find_cudadevrt`: `SKC_CUDADEVRT`, `CUDA_PATH`, `/usr/local/cuda/lib64`, the wheels).
    pub fn from_program(ctx: &Context, program: Program) -> Result<Module> {
        let arch = ctx.device().arch.clone();
        let output = program.compile(&arch)?;
        Module::from_output(ctx, program, arch, output)
    }

    /// Loads what `program.compile(arch)` produced (`arch` must be the device's), keeping NVRTC's report: several
    /// devices of one architecture share one compile ([`DeviceSet::load`](crate::DeviceSet::load)).
    pub(crate) fn from_output(
        ctx: &Context,
        program: Program,
        arch: String,
        output: skc_nvrtc::CompileOutput,
    ) -> Result<Module> {
        let report = CompileReport {
            arch,
            cache_hit: output.cache_hit,
            elapsed: output.elapsed,
            log: output.log,
            resources: output.resources,
            ptx: output.ptx,
            device_runtime: None,
        };
        Module::load(ctx, program, output.cubin, report)
    }

    /// Loads a CUBIN built earlier from `program` for this device's architecture (by `Program::compile`, on a
    /// machine with NVRTC: a prebuilt bundle), with the program's kernel signatures. The report says nothing of
    /// how the CUBIN was compiled.
    pub fn from_cubin(ctx: &Context, program: Program, cubin: Vec<u8>) -> Result<Module> {
        let report = CompileReport {
            arch: ctx.device().arch.clone(),
            cache_hit: true,
            elapsed: Duration::ZERO,
            log: String::new(),
            resources: Vec::new(),
            ptx: String::new(),
            device_runtime: None,
        };
        Module::load(ctx, program, cubin, report)
    }

    /// Links `cubin` with the device runtime when the program needs it, and loads it.
    fn load(ctx: &Context, program: Program, cubin: Vec<u8>, mut report: CompileReport) -> Result<Module> {
        let image = if program.needs_device_runtime {
            let devrt = crate::link::find_device_runtime(&program.name, &skc_nvrtc::devrt_candidates())?;
            ctx.bind()?;
            let (image, input) = crate::link::link_with_device_runtime(&program.name, &cubin, &report.ptx, &devrt)?;
            report.device_runtime = Some((devrt, input));
            image
        } else {
            cubin
        };
        let cuda = ctx.cuda().load_module(Ptx::from_binary(image)).map_err(|e| ctx.error("cuModuleLoadData", e))?;
        Ok(Module { inner: Arc::new(ModuleInner { ctx: ctx.clone(), program, cuda, report }) })
    }

    /// The kernel named `name` in the `.sk` source.
    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        let program = &self.inner.program;
        let Some(signature) = program.kernels.iter().find(|k| k.name == name) else {
            return Err(RuntimeError::NoSuchKernel {
                module: program.name.clone(),
                kernel: name.to_string(),
                available: program.kernels.iter().map(|k| k.name.clone()).collect(),
            });
        };
        let ctx = &self.inner.ctx;
        let function = self
            .inner
            .cuda
            .load_function(&signature.symbol)
            .map_err(|e| RuntimeError::driver("cuModuleGetFunction", e, Some(signature.name.clone())))?;
        let attribute = |a: CUfunction_attribute| {
            function.get_attribute(a).map(|v| v.max(0) as u32).map_err(|e| ctx.error("cuFuncGetAttribute", e))
        };
        let device = ctx.device();
        let limits = Limits {
            max_threads_per_block: attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?
                .min(device.max_threads_per_block),
            max_block_dim: device.max_block_dim,
            max_grid_dim: device.max_grid_dim,
            static_shared_bytes: attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
            max_shared_optin: device.shared_per_block_optin,
        };
        Ok(Kernel::new(
            self.inner.clone(),
            Arc::new(signature.clone()),
            function,
            limits,
            Arc::new(AtomicU32::new(device.shared_per_block)),
        ))
    }

    /// Signatures of every kernel, in source order.
    pub fn kernels(&self) -> &[KernelSignature] {
        &self.inner.program.kernels
    }

    /// The CUDA C that was compiled.
    pub fn cuda_source(&self) -> &str {
        &self.inner.program.cuda_source
    }

    pub fn name(&self) -> &str {
        &self.inner.program.name
    }

    pub fn compile_report(&self) -> &CompileReport {
        &self.inner.report
    }

    pub fn context(&self) -> &Context {
        &self.inner.ctx
    }
}

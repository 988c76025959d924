//! skc-runtime: runs `.sk` kernels on a CUDA GPU.
//!
//! ```ignore
//! let ctx = Context::new(0)?;
//! let module = Module::from_file(&ctx, "vector_add.sk")?;          // front end, CUDA C, NVRTC (cached), CUBIN
//! let add = module.kernel("vector_add")?
//!     .require_len("a", Extent::param("n"))?;                       // checked at every launch
//! let (a, b) = (ctx.upload(&xs)?, ctx.upload(&ys)?);
//! let mut c = ctx.alloc_zeros::<f32>(xs.len())?;
//! add.launch(&LaunchConfig::for_elements(xs.len(), 256), args![&a, &b, &mut c, xs.len() as i32])?;
//! let sum = c.download()?;
//! ```
//!
//! Layout: `context` (device, streams, graphs, timers), `buffer` (device memory and copies), `untracked` (mapped
//! host memory and device memory without event tracking, for kernels that run while the host works), `program`
//! (front end and emitter through a session, NVRTC; no GPU needed), `module` (loading, from a program or a prebuilt
//! CUBIN), `kernel` (arguments and launches, plain or cooperative), `check` (the launch checks, pure), `link`
//! (linking programs that launch kernels from the device with the device runtime), `config` (geometry and declared
//! lengths), `signature` and `scalar` (the launch interface), `error` (the one error type), `devices` (several
//! devices of a host: a context each, peer access, a program loaded on all), `nccl` (communicators between them,
//! NCCL loaded at run time), `interp_args` (feature `interp`: a launch with the interpreter's arguments, as
//! `skc run --gpu` does).
//!
//! This is the only crate of skc that talks to the CUDA driver: the others launch, allocate and time through it
//! (`tests/architecture.rs` of skc-tests fails the build otherwise).

mod buffer;
mod check;
mod config;
mod context;
mod devices;
mod error;
#[cfg(feature = "interp")]
pub mod interp_args;
mod kernel;
mod link;
mod module;
pub mod nccl;
mod program;
mod scalar;
mod signature;
mod untracked;

pub use buffer::{DeviceBuffer, RawBuffer};
pub use config::{Dim3, Extent, LaunchConfig};
pub use context::{Context, DeviceInfo, Event, GpuTimer, Graph, Stream};
pub use devices::{device_count, split_aligned, DeviceSet};
pub use error::{Result, RuntimeError};
pub use kernel::{Arg, Call, Kernel};
pub use link::LinkInput;
pub use module::{CompileReport, Module};
pub use program::{Program, COMPILER_VERSION};
pub use scalar::{BFloat16, BFloat16x2, DeviceScalar, Float16, Float16x2, ScalarType, ScalarValue};
pub use signature::{DeviceElem, ElemType, KernelSignature, LaunchContract, ParamSignature, ParamType};
pub use untracked::{DeviceArray, HostMapped};

/// What [`sk_record!`] expands to; not an API.
#[doc(hidden)]
pub mod __private {
    pub use cudarc::driver::DeviceRepr;
}

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
//! Layout: `context` (device, streams, timers), `buffer` (device memory and copies), `program` (front end,
//! emitter and NVRTC, no GPU needed), `module` (loading), `kernel` (arguments and launches), `check` (the launch
//! checks, pure), `link` (linking programs that launch kernels from the device with the device runtime), `config`
//! (geometry and declared lengths), `signature` and `scalar` (the launch interface),
//! `error` (the one error type).

mod buffer;
mod check;
mod config;
mod context;
mod error;
mod kernel;
mod link;
mod module;
mod program;
mod scalar;
mod signature;

pub use buffer::{DeviceBuffer, RawBuffer};
pub use config::{Dim3, Extent, LaunchConfig};
pub use context::{Context, DeviceInfo, GpuTimer, Stream};
pub use error::{Result, RuntimeError};
pub use kernel::{Arg, Call, Kernel};
pub use link::LinkInput;
pub use module::{CompileReport, Module};
pub use program::{Program, COMPILER_VERSION};
pub use scalar::{DeviceScalar, ScalarType, ScalarValue};
pub use signature::{DeviceElem, ElemType, KernelSignature, ParamSignature, ParamType};

/// The cudarc this crate is built on, for raw driver calls next to checked ones.
pub use cudarc;

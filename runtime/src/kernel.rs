//! Checked launches. A [`Kernel`] knows its signature; [`Kernel::launch`] compares every [`Arg`] with it (count,
//! scalar types, vector element types, read-only loans of written vectors, declared lengths, grid, block and
//! dynamic shared memory) and only then calls the driver. A mismatch is a [`RuntimeError`] naming the kernel and
//! the parameter, never undefined behaviour.
//!
//! The borrow checker adds one more guarantee: a written vector is lent `&mut`, so it cannot also be passed as
//! another argument, which is what the `__restrict__` on every emitted vector parameter promises NVRTC. A buffer
//! type of the caller's own (a [`RawBuffer`] view into another allocation) and untracked memory (lent by shared
//! reference) escape it, so the launch also compares the device ranges: a vector the kernel only reads may not overlap one it writes (`check_aliasing`,
//! the memory rule's assumption).

use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use cudarc::driver::sys::CUfunction_attribute;
use cudarc::driver::{result, CudaFunction, CudaStream};
use smallvec::SmallVec;

use crate::buffer::{DeviceBuffer, RawBuffer};
use crate::check::{self, ArgInfo, LengthRule, Limits};
use crate::config::{Extent, LaunchConfig};
use crate::context::{Context, Stream};
use crate::error::{Result, RuntimeError};
use crate::module::ModuleInner;
use crate::scalar::ScalarValue;
use crate::signature::{DeviceElem, ElemType, KernelSignature};

/// One launch argument.
pub enum Arg<'a> {
    /// A scalar by value (`3i32.into()`).
    Scalar(ScalarValue),
    /// A buffer the kernel only reads (`(&buffer).into()`).
    Buffer(&'a dyn RawBuffer),
    /// A buffer the kernel may write (`(&mut buffer).into()`).
    BufferMut(&'a mut dyn RawBuffer),
    /// A record by value (see [`Arg::record`]).
    Record { elem: ElemType, bytes: &'a [u8] },
    /// Memory without event tracking ([`HostMapped`](crate::HostMapped), [`DeviceArray`](crate::DeviceArray)),
    /// lent writable through a shared reference: the caller orders its accesses with the kernel's itself.
    Untracked { elem: ElemType, len: usize, ptr: u64, context: &'a crate::Context },
}

impl<'a> Arg<'a> {
    /// A record value (a type declared with [`sk_record!`](crate::sk_record)).
    pub fn record<T: DeviceElem>(value: &'a T) -> Arg<'a> {
        // SAFETY: `T` is plain data of `size_of::<T>()` bytes (DeviceRepr), borrowed for 'a.
        let bytes = unsafe { std::slice::from_raw_parts(value as *const T as *const u8, std::mem::size_of::<T>()) };
        Arg::Record { elem: T::elem_type(), bytes }
    }

    fn info(&self) -> ArgInfo {
        match self {
            Arg::Scalar(v) => ArgInfo::Scalar(*v),
            Arg::Buffer(b) => ArgInfo::Buffer { elem: b.raw_elem(), len: b.raw_len(), writable: false },
            Arg::BufferMut(b) => ArgInfo::Buffer { elem: b.raw_elem(), len: b.raw_len(), writable: true },
            Arg::Record { elem, .. } => ArgInfo::Record(elem.clone()),
            Arg::Untracked { elem, len, .. } => ArgInfo::Buffer { elem: elem.clone(), len: *len, writable: true },
        }
    }
}

impl<T: Into<ScalarValue>> From<T> for Arg<'_> {
    fn from(value: T) -> Self {
        Arg::Scalar(value.into())
    }
}

impl<'a, T: DeviceElem> From<&'a DeviceBuffer<T>> for Arg<'a> {
    fn from(buffer: &'a DeviceBuffer<T>) -> Self {
        Arg::Buffer(buffer)
    }
}

impl<'a, T: DeviceElem> From<&'a mut DeviceBuffer<T>> for Arg<'a> {
    fn from(buffer: &'a mut DeviceBuffer<T>) -> Self {
        Arg::BufferMut(buffer)
    }
}

/// `args![&a, &mut b, n]`: an array of [`Arg`]s for [`Kernel::launch`].
#[macro_export]
macro_rules! args {
    ($($arg:expr),* $(,)?) => {
        [$($crate::Arg::from($arg)),*]
    };
}

/// A kernel of a loaded module, with the lengths declared for its vectors. Cheap to clone.
#[derive(Clone)]
pub struct Kernel {
    module: Arc<ModuleInner>,
    signature: Arc<KernelSignature>,
    function: CudaFunction,
    limits: Limits,
    rules: Vec<LengthRule>,
    /// The dynamic shared memory the function may use (raised on demand up to the device's opt-in limit).
    shared_allowed: Arc<AtomicU32>,
    /// This kernel's name index on the context (recorded at each launch for later error reports).
    name_id: usize,
}

impl Kernel {
    pub(crate) fn new(
        module: Arc<ModuleInner>,
        signature: Arc<KernelSignature>,
        function: CudaFunction,
        limits: Limits,
        shared_allowed: Arc<AtomicU32>,
    ) -> Kernel {
        let name_id = module.ctx.kernel_id(&signature.name);
        Kernel { module, signature, function, limits, rules: Vec::new(), shared_allowed, name_id }
    }

    pub fn signature(&self) -> &KernelSignature {
        &self.signature
    }

    pub fn name(&self) -> &str {
        &self.signature.name
    }

    /// The context the kernel's module is loaded on (its launches run on this context's stream).
    pub fn context(&self) -> &Context {
        &self.module.ctx
    }

    /// Declares that vector parameter `param` must hold at least `extent` elements at every launch (replacing
    /// an earlier declaration for it). Chains: `module.kernel("k")?.require_len("xs", Extent::param("n"))?`.
    pub fn require_len(mut self, param: &str, extent: Extent) -> Result<Kernel> {
        self.set_len(param, extent)?;
        Ok(self)
    }

    /// [`require_len`](Self::require_len) in place.
    pub fn set_len(&mut self, param: &str, extent: Extent) -> Result<()> {
        let rule = check::check_rule(&self.signature, param, &extent)?;
        self.rules.retain(|r| r.param != rule.param);
        self.rules.push(rule);
        Ok(())
    }

    /// The most threads a block of this kernel may have (its registers may lower the device's 1024).
    pub fn max_threads_per_block(&self) -> u32 {
        self.limits.max_threads_per_block
    }

    /// Registers per thread, from the driver.
    pub fn registers(&self) -> Result<u32> {
        self.function
            .get_attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS)
            .map(|v| v.max(0) as u32)
            .map_err(|e| self.error("cuFuncGetAttribute", e))
    }

    /// Blocks of `block_threads` threads that fit on one multiprocessor at once.
    pub fn max_active_blocks_per_sm(&self, block_threads: u32, dynamic_shared_bytes: usize) -> Result<u32> {
        self.function
            .occupancy_max_active_blocks_per_multiprocessor(block_threads, dynamic_shared_bytes, None)
            .map_err(|e| self.error("cuOccupancyMaxActiveBlocksPerMultiprocessor", e))
    }

    /// A launch builder: `kernel.call().arg(&a).arg(&mut b).arg(n).launch(&config)`.
    pub fn call<'k, 'a>(&'k self) -> Call<'k, 'a> {
        Call { kernel: self, args: Vec::with_capacity(self.signature.params.len()), stream: None }
    }

    /// Checks and launches on the context's stream. Returns once the launch is queued.
    pub fn launch<'a>(&self, config: &LaunchConfig, mut args: impl AsMut<[Arg<'a>]>) -> Result<()> {
        self.launch_inner(self.module.ctx.cuda_stream(), config, args.as_mut(), Launch::Plain)
    }

    /// Checks and launches on the context's stream as the dependent of the launch before it
    /// ([`launch_dependent_on`](Self::launch_dependent_on)).
    pub fn launch_dependent<'a>(&self, config: &LaunchConfig, mut args: impl AsMut<[Arg<'a>]>) -> Result<()> {
        self.launch_inner(self.module.ctx.cuda_stream(), config, args.as_mut(), Launch::Dependent)
    }

    /// Checks and launches on `stream`.
    pub fn launch_on(&self, stream: &Stream, config: &LaunchConfig, args: &mut [Arg<'_>]) -> Result<()> {
        if !stream.context().same(&self.module.ctx) {
            return Err(self.foreign_context());
        }
        self.launch_inner(stream.cuda(), config, args, Launch::Plain)
    }

    /// Checks and launches on `stream` as a cooperative launch (`cuLaunchCooperativeKernel`): the driver starts
    /// every block at once or refuses the launch, so the kernel's blocks may wait on each other. The driver also
    /// refuses it for code that launches kernels from the device.
    pub fn launch_cooperative_on(&self, stream: &Stream, config: &LaunchConfig, args: &mut [Arg<'_>]) -> Result<()> {
        if !stream.context().same(&self.module.ctx) {
            return Err(self.foreign_context());
        }
        self.launch_inner(stream.cuda(), config, args, Launch::Cooperative)
    }

    /// Checks and launches on `stream` as the dependent of the launch queued before it on that stream
    /// (programmatic stream serialization, sm_90 and later): the grid may start before the previous one ends, once
    /// every block of that one has called `trigger_dependent_launch ()` or exited, and must call
    /// `grid_dependency_sync ()` before reading what the previous grid writes. On an older GPU the attribute has no
    /// effect and the launch waits for the previous grid as any other.
    pub fn launch_dependent_on(&self, stream: &Stream, config: &LaunchConfig, args: &mut [Arg<'_>]) -> Result<()> {
        if !stream.context().same(&self.module.ctx) {
            return Err(self.foreign_context());
        }
        self.launch_inner(stream.cuda(), config, args, Launch::Dependent)
    }

    fn launch_inner(
        &self,
        stream: &CudaStream,
        config: &LaunchConfig,
        args: &mut [Arg<'_>],
        how: Launch,
    ) -> Result<()> {
        let infos: SmallVec<[ArgInfo; 8]> = args.iter().map(Arg::info).collect();
        check::check_arguments(&self.signature, &infos)?;
        check::check_config(&self.signature, config, &self.limits)?;
        check::check_lengths(&self.signature, &infos, &self.rules, config)?;
        self.check_contexts(args)?;
        self.allow_shared(config.dynamic_shared_bytes)?;
        self.module.ctx.cuda().bind_to_thread().map_err(|e| self.error("cuCtxSetCurrent", e))?;
        self.launch_checked(stream, config, args, how)
    }

    fn foreign_context(&self) -> RuntimeError {
        RuntimeError::LaunchConfig {
            kernel: self.name().to_string(),
            reason: "a buffer or the stream belongs to another context than the kernel's module".into(),
        }
    }

    fn check_contexts(&self, args: &[Arg<'_>]) -> Result<()> {
        let ctx = &self.module.ctx;
        let foreign = |c: &crate::Context| !c.same(ctx);
        let wrong = args.iter().any(|a| match a {
            Arg::Buffer(b) => foreign(b.raw_context()),
            Arg::BufferMut(b) => foreign(b.raw_context()),
            Arg::Untracked { context, .. } => foreign(context),
            _ => false,
        });
        if wrong {
            return Err(self.foreign_context());
        }
        Ok(())
    }

    /// Raises the function's dynamic shared memory limit when a launch asks for more than the default 48 KiB.
    fn allow_shared(&self, bytes: u32) -> Result<()> {
        if bytes <= self.shared_allowed.load(Ordering::Relaxed) {
            return Ok(());
        }
        let attribute = CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
        self.function.set_attribute(attribute, bytes as i32).map_err(|e| self.error("cuFuncSetAttribute", e))?;
        self.shared_allowed.fetch_max(bytes, Ordering::Relaxed);
        Ok(())
    }

    fn launch_checked(
        &self,
        cuda_stream: &CudaStream,
        config: &LaunchConfig,
        args: &mut [Arg<'_>],
        how: Launch,
    ) -> Result<()> {
        let mut slots: SmallVec<[u64; 8]> = SmallVec::with_capacity(args.len());
        // Where each buffer lies, for the aliasing rule: sizes now, addresses once they are taken below.
        let mut ranges: SmallVec<[Option<check::DeviceRange>; 8]> = args
            .iter()
            .map(|arg| {
                let (len, elem) = match arg {
                    Arg::Buffer(b) => (b.raw_len(), b.raw_elem()),
                    Arg::BufferMut(b) => (b.raw_len(), b.raw_elem()),
                    // Lent through a shared reference: the borrow checker does not keep it from standing for a
                    // read-only vector and a written one at once, so its range is compared too.
                    Arg::Untracked { elem, len, .. } => (*len, elem.clone()),
                    Arg::Scalar(_) | Arg::Record { .. } => return None,
                };
                let bytes = (len as u64).saturating_mul(elem.size() as u64);
                Some(check::DeviceRange { address: 0, bytes })
            })
            .collect();
        let mut records: SmallVec<[(usize, *const u8); 2]> = SmallVec::new();
        let mut guards: SmallVec<[_; 8]> = SmallVec::with_capacity(args.len());
        for (index, arg) in args.iter_mut().enumerate() {
            match arg {
                Arg::Scalar(v) => slots.push(v.to_slot()),
                Arg::Buffer(b) => {
                    let (ptr, guard) = b.raw_ptr(cuda_stream);
                    slots.push(ptr);
                    guards.push(guard);
                }
                Arg::BufferMut(b) => {
                    let (ptr, guard) = b.raw_ptr_mut(cuda_stream);
                    slots.push(ptr);
                    guards.push(guard);
                }
                Arg::Record { bytes, .. } => {
                    slots.push(0);
                    records.push((index, bytes.as_ptr()));
                }
                Arg::Untracked { ptr, .. } => slots.push(*ptr),
            }
        }
        for (range, address) in ranges.iter_mut().zip(&slots) {
            if let Some(range) = range {
                range.address = *address;
            }
        }
        check::check_aliasing(&self.signature, &ranges)?;
        check::check_alignment(&self.signature, &ranges)?;
        let mut params: SmallVec<[*mut c_void; 8]> = slots.iter_mut().map(|s| s as *mut u64 as *mut c_void).collect();
        for (index, ptr) in records {
            params[index] = ptr as *mut c_void;
        }
        let (grid, block) = (config.grid, config.block);
        // SAFETY: the arguments were checked against the kernel's signature: one parameter pointer per parameter,
        // each pointing at a value of the parameter's size (scalars in little-endian 8-byte slots, device
        // addresses of live buffers of the right element type, record bytes), all alive until the call returns.
        let (f, grid, block) = (self.function.cu_function(), (grid.x, grid.y, grid.z), (block.x, block.y, block.z));
        let (shared, stream) = (config.dynamic_shared_bytes, cuda_stream.cu_stream());
        let launched = match how {
            // SAFETY: as above.
            Launch::Plain => unsafe { result::launch_kernel(f, grid, block, shared, stream, &mut params) },
            // SAFETY: as above.
            Launch::Cooperative => unsafe {
                result::launch_cooperative_kernel(f, grid, block, shared, stream, &mut params)
            },
            // SAFETY: as above.
            Launch::Dependent => unsafe { launch_dependent(f, grid, block, shared, stream, &mut params) },
        };
        drop(guards);
        self.module.ctx.set_last_kernel(self.name_id);
        let call = match how {
            Launch::Plain => "cuLaunchKernel",
            Launch::Cooperative => "cuLaunchCooperativeKernel",
            Launch::Dependent => "cuLaunchKernelEx",
        };
        launched.map_err(|e| self.error(call, e))
    }

    fn error(&self, call: &'static str, e: cudarc::driver::DriverError) -> RuntimeError {
        RuntimeError::driver(call, e, Some(self.signature.name.clone()))
    }
}

/// How a checked launch is issued.
#[derive(Clone, Copy)]
enum Launch {
    Plain,
    Cooperative,
    /// With programmatic stream serialization: the dependent of the previous launch on its stream.
    Dependent,
}

/// `cuLaunchKernelEx` with the one attribute `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 1`.
///
/// # Safety
/// As `cuLaunchKernel`: `params` holds one pointer per kernel parameter, each to a live value of its size.
unsafe fn launch_dependent(
    f: cudarc::driver::sys::CUfunction,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    shared: u32,
    stream: cudarc::driver::sys::CUstream,
    params: &mut [*mut c_void],
) -> std::result::Result<(), cudarc::driver::DriverError> {
    use cudarc::driver::sys::{self, CUlaunchAttribute, CUlaunchAttributeID, CUlaunchAttributeValue, CUlaunchConfig};
    let mut value: CUlaunchAttributeValue = std::mem::zeroed();
    value.programmaticStreamSerializationAllowed = 1;
    let mut attribute = CUlaunchAttribute {
        id: CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
        pad: [0; 4],
        value,
    };
    let config = CUlaunchConfig {
        gridDimX: grid.0,
        gridDimY: grid.1,
        gridDimZ: grid.2,
        blockDimX: block.0,
        blockDimY: block.1,
        blockDimZ: block.2,
        sharedMemBytes: shared,
        hStream: stream,
        attrs: &mut attribute,
        numAttrs: 1,
    };
    sys::cuLaunchKernelEx(&config, f, params.as_mut_ptr(), std::ptr::null_mut()).result()
}

/// A launch being assembled argument by argument.
pub struct Call<'k, 'a> {
    kernel: &'k Kernel,
    args: Vec<Arg<'a>>,
    stream: Option<&'k Stream>,
}

impl<'k, 'a> Call<'k, 'a> {
    pub fn arg(mut self, arg: impl Into<Arg<'a>>) -> Self {
        self.args.push(arg.into());
        self
    }

    pub fn on(mut self, stream: &'k Stream) -> Self {
        self.stream = Some(stream);
        self
    }

    pub fn launch(mut self, config: &LaunchConfig) -> Result<()> {
        match self.stream {
            Some(stream) => self.kernel.launch_on(stream, config, &mut self.args),
            None => {
                self.kernel.launch_inner(self.kernel.module.ctx.cuda_stream(), config, &mut self.args, Launch::Plain)
            }
        }
    }
}

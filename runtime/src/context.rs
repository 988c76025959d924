//! A CUDA device opened for kernels: [`Context`] (the device, its properties and its default stream), [`Stream`]
//! (an ordered queue of work) and [`GpuTimer`] (event timing on a stream).
//!
//! Errors that the GPU reports later than the call that caused them (an out-of-bounds access is reported by the
//! next synchronising call) are attributed to the last kernel launched on the context.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use cudarc::driver::sys::{CUdevice_attribute, CUevent_flags, CUlimit, CUresult};
use cudarc::driver::{CudaContext, CudaEvent, CudaStream, DriverError};

use crate::error::{Result, RuntimeError};

/// What the runtime needs to know about the device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    pub ordinal: usize,
    pub name: String,
    /// (major, minor), e.g. (9, 0) for an H100.
    pub compute_capability: (i32, i32),
    /// The NVRTC architecture kernels are compiled for: the device's own (`sm_90`), loaded as CUBIN.
    pub arch: String,
    pub multiprocessors: u32,
    /// 32-bit registers of one multiprocessor (65,536 on an H100).
    pub registers_per_sm: u32,
    /// The multiprocessors' peak clock, in kHz.
    pub clock_khz: u32,
    pub max_threads_per_block: u32,
    pub max_block_dim: [u32; 3],
    pub max_grid_dim: [u32; 3],
    /// Shared memory a block gets without opting in (48 KiB).
    pub shared_per_block: u32,
    /// Shared memory a block may opt into (227 KiB on an H100).
    pub shared_per_block_optin: u32,
    pub total_memory: usize,
}

struct ContextInner {
    cuda: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    device: DeviceInfo,
    /// Names of the kernels looked up on this context; a kernel is launched by its index here.
    kernel_names: Mutex<Vec<String>>,
    /// Index in `kernel_names` of the last kernel launched (`usize::MAX`: none yet), to name it in errors that
    /// surface later. An atomic, so a launch pays no lock.
    last_kernel: AtomicUsize,
}

/// An opened CUDA device. Cheap to clone (shared).
#[derive(Clone)]
pub struct Context {
    inner: Arc<ContextInner>,
}

/// A queue of work on the device; work on one stream runs in order.
#[derive(Clone)]
pub struct Stream {
    ctx: Context,
    cuda: Arc<CudaStream>,
}

impl Context {
    /// Opens device `ordinal` (its primary context). Fails with [`RuntimeError::NoDriver`] on a machine without
    /// an NVIDIA driver and [`RuntimeError::NoDevice`] when the ordinal is out of range.
    pub fn new(ordinal: usize) -> Result<Context> {
        // SAFETY: only checks whether libcuda can be opened.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(RuntimeError::NoDriver { reason: "libcuda.so could not be loaded".into() });
        }
        let count = guarded("cuDeviceGetCount", CudaContext::device_count)?;
        if ordinal >= count.max(0) as usize {
            return Err(RuntimeError::NoDevice { ordinal, count: count.max(0) as usize });
        }
        let cuda = guarded("cuDevicePrimaryCtxRetain", || CudaContext::new(ordinal))?;
        let device = device_info(&cuda).map_err(|e| RuntimeError::driver("cuDeviceGetAttribute", e, None))?;
        let stream = cuda.default_stream();
        let inner = ContextInner {
            cuda,
            stream,
            device,
            kernel_names: Mutex::new(Vec::new()),
            last_kernel: AtomicUsize::new(usize::MAX),
        };
        Ok(Context { inner: Arc::new(inner) })
    }

    pub fn device(&self) -> &DeviceInfo {
        &self.inner.device
    }

    /// The context's stream (the device's default stream), used by every call that names none.
    pub fn stream(&self) -> Stream {
        Stream { ctx: self.clone(), cuda: self.inner.stream.clone() }
    }

    /// A new stream. Buffers used on several streams are then ordered by events (cudarc's tracking).
    pub fn new_stream(&self) -> Result<Stream> {
        let cuda = self.inner.cuda.new_stream().map_err(|e| self.error("cuStreamCreate", e))?;
        Ok(Stream { ctx: self.clone(), cuda })
    }

    /// Waits for all work on the device.
    pub fn synchronize(&self) -> Result<()> {
        self.inner.cuda.synchronize().map_err(|e| self.error("cuCtxSynchronize", e))?;
        self.check_deferred()
    }

    /// The cudarc context.
    pub(crate) fn cuda(&self) -> &Arc<CudaContext> {
        &self.inner.cuda
    }

    /// Makes this context current on the calling thread (driver calls act on the current context).
    pub(crate) fn bind(&self) -> Result<()> {
        self.inner.cuda.bind_to_thread().map_err(|e| self.error("cuCtxSetCurrent", e))
    }

    /// Sets `cudaLimitDevRuntimePendingLaunchCount`: device launches that may wait for a free slot (2048 by
    /// default; past it a device launch fails). Call it before launching a kernel that launches children.
    pub fn set_pending_launch_limit(&self, launches: usize) -> Result<()> {
        self.bind()?;
        // SAFETY: sets a context limit.
        unsafe { cudarc::driver::sys::cuCtxSetLimit(CUlimit::CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT, launches) }
            .result()
            .map_err(|e| self.error("cuCtxSetLimit", e))
    }

    pub(crate) fn cuda_stream(&self) -> &Arc<CudaStream> {
        &self.inner.stream
    }

    /// The index a kernel named `name` is launched under (see `set_last_kernel`).
    pub(crate) fn kernel_id(&self, name: &str) -> usize {
        let mut names = self.inner.kernel_names.lock().unwrap_or_else(|p| p.into_inner());
        names.iter().position(|n| n == name).unwrap_or_else(|| {
            names.push(name.to_string());
            names.len() - 1
        })
    }

    pub(crate) fn set_last_kernel(&self, id: usize) {
        self.inner.last_kernel.store(id, Ordering::Relaxed);
    }

    /// A driver error from a call that may report an earlier kernel's fault: names the last kernel launched.
    pub(crate) fn error(&self, call: &'static str, error: DriverError) -> RuntimeError {
        let id = self.inner.last_kernel.load(Ordering::Relaxed);
        let last = self.inner.kernel_names.lock().unwrap_or_else(|p| p.into_inner()).get(id).cloned();
        RuntimeError::driver_on(call, error, last, Some(self.inner.device.ordinal))
    }

    /// Errors cudarc recorded in calls that cannot return one (drops, guards).
    pub(crate) fn check_deferred(&self) -> Result<()> {
        self.inner.cuda.check_err().map_err(|e| self.error("(deferred)", e))
    }

    pub(crate) fn same(&self, other: &Context) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl Stream {
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// Whether every launch and copy queued on this stream has finished (`cuStreamQuery`): never blocks, so a
    /// kernel that does not finish can be waited for with a timeout.
    pub fn is_idle(&self) -> Result<bool> {
        self.ctx.bind()?;
        // SAFETY: a live stream of this context.
        match unsafe { cudarc::driver::sys::cuStreamQuery(self.cuda.cu_stream()) } {
            CUresult::CUDA_SUCCESS => Ok(true),
            CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            other => Err(self.ctx.error("cuStreamQuery", other.result().unwrap_err())),
        }
    }

    /// Waits for the work queued on this stream; a fault of a kernel launched earlier is reported here.
    pub fn synchronize(&self) -> Result<()> {
        self.cuda.synchronize().map_err(|e| self.ctx.error("cuStreamSynchronize", e))?;
        self.ctx.check_deferred()
    }

    /// Starts timing the work queued on this stream from now on.
    pub fn start_timer(&self) -> Result<GpuTimer> {
        let start = self.timing_event()?;
        start.record(&self.cuda).map_err(|e| self.ctx.error("cuEventRecord", e))?;
        Ok(GpuTimer { start, stream: self.clone() })
    }

    fn timing_event(&self) -> Result<CudaEvent> {
        self.ctx
            .inner
            .cuda
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(|e| self.ctx.error("cuEventCreate", e))
    }

    pub(crate) fn cuda(&self) -> &Arc<CudaStream> {
        &self.cuda
    }

    /// Marks the work queued on this stream so far, for another stream (of any device) to wait for.
    pub fn record_event(&self) -> Result<Event> {
        let flags = Some(CUevent_flags::CU_EVENT_DISABLE_TIMING);
        let event = self.cuda.record_event(flags).map_err(|e| self.ctx.error("cuEventRecord", e))?;
        Ok(Event { event, device: self.ctx.device().ordinal })
    }

    /// Makes the work queued on this stream from now on wait for `event` (recorded on any stream, any device of
    /// the host), without blocking the host.
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        self.cuda.wait(&event.event).map_err(|e| self.ctx.error("cuStreamWaitEvent", e))
    }

    /// Records what `work` queues on this stream (launches on this stream, not run now) into a CUDA graph, which
    /// [`Graph::launch`] replays as one unit. The stream must be one of [`Context::new_stream`]'s: the legacy
    /// default stream cannot be captured.
    pub fn capture(&self, work: impl FnOnce() -> Result<()>) -> Result<Graph> {
        let mode = cudarc::driver::sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED;
        self.cuda.begin_capture(mode).map_err(|e| self.ctx.error("cuStreamBeginCapture", e))?;
        let recorded = work();
        let ended = self
            .cuda
            .end_capture(cudarc::driver::sys::CUgraphInstantiate_flags(0))
            .map_err(|e| self.ctx.error("cuStreamEndCapture", e));
        recorded?;
        match ended? {
            Some(graph) => Ok(Graph { graph, ctx: self.ctx.clone() }),
            None => Err(RuntimeError::LaunchConfig { kernel: "(graph)".into(), reason: "nothing was captured".into() }),
        }
    }
}

/// A point in a stream's work ([`Stream::record_event`]), which other streams can wait for.
pub struct Event {
    event: CudaEvent,
    device: usize,
}

impl Event {
    /// The device whose stream recorded the event.
    pub fn device(&self) -> usize {
        self.device
    }
}

/// Launches captured on a stream by [`Stream::capture`], replayed on that stream.
pub struct Graph {
    graph: cudarc::driver::CudaGraph,
    ctx: Context,
}

impl Graph {
    /// Queues one replay of every captured launch on the stream it was captured on.
    pub fn launch(&self) -> Result<()> {
        self.graph.launch().map_err(|e| self.ctx.error("cuGraphLaunch", e))
    }
}

/// Measures device time between two points of a stream.
pub struct GpuTimer {
    start: CudaEvent,
    stream: Stream,
}

impl GpuTimer {
    /// Stops the timer, waits for the timed work, and returns its duration in milliseconds.
    pub fn stop(self) -> Result<f32> {
        self.stop_after(|| Ok::<(), RuntimeError>(()))
    }

    /// Stops the timer, then lets `wait` wait for the timed work its own way (polling [`Stream::is_idle`] with a
    /// timeout, for work that may hang), and returns the duration in milliseconds.
    pub fn stop_after<E: From<RuntimeError>>(self, wait: impl FnOnce() -> Result<(), E>) -> Result<f32, E> {
        let end = self.stream.timing_event()?;
        let ctx = &self.stream.ctx;
        end.record(&self.stream.cuda).map_err(|e| ctx.error("cuEventRecord", e))?;
        wait()?;
        end.synchronize().map_err(|e| ctx.error("cuEventSynchronize", e))?;
        Ok(self.start.elapsed_ms(&end).map_err(|e| ctx.error("cuEventElapsedTime", e))?)
    }
}

/// Runs a cudarc call that may panic (a symbol missing from an old driver) and turns both failures into errors.
fn guarded<T>(call: &'static str, f: impl FnOnce() -> Result<T, DriverError>) -> Result<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result.map_err(|e| RuntimeError::driver(call, e, None)),
        Err(panic) => {
            let reason = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "the driver library could not be used".into());
            Err(RuntimeError::NoDriver { reason })
        }
    }
}

fn device_info(cuda: &Arc<CudaContext>) -> Result<DeviceInfo, DriverError> {
    use CUdevice_attribute as A;
    let attr = |a: A| cuda.attribute(a).map(|v| v.max(0) as u32);
    let compute_capability = cuda.compute_capability()?;
    Ok(DeviceInfo {
        ordinal: cuda.ordinal(),
        name: cuda.name()?,
        compute_capability,
        arch: format!("sm_{}{}", compute_capability.0, compute_capability.1),
        multiprocessors: attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
        registers_per_sm: attr(A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)?,
        clock_khz: attr(A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)?,
        max_threads_per_block: attr(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
        max_block_dim: [
            attr(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
            attr(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
            attr(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
        ],
        max_grid_dim: [
            attr(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
            attr(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
            attr(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
        ],
        shared_per_block: attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
        shared_per_block_optin: attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
        total_memory: cuda.total_mem()?,
    })
}

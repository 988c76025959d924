//! [`DeviceBuffer<T>`]: a typed array in device memory, with checked host<->device and device<->device copies.
//! Its element type ([`DeviceElem`]) is what a launch compares with the kernel's vector parameter.

use std::fmt;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, SyncOnDrop};

use crate::context::{Context, Stream};
use crate::error::{Result, RuntimeError};
use crate::signature::{DeviceElem, ElemType};

/// `len` elements of `T` in device memory, owned. Freed when dropped (after the work using it).
pub struct DeviceBuffer<T> {
    slice: CudaSlice<T>,
    ctx: Context,
}

impl<T> fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceBuffer").field("len", &self.slice.len()).finish()
    }
}

impl Context {
    /// A buffer of `len` zeroed elements.
    pub fn alloc_zeros<T: DeviceElem>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let stream = self.cuda_stream();
        // SAFETY: the memory is zeroed below before anything can read it.
        let slice = unsafe { stream.alloc::<T>(len) }.map_err(|e| self.error("cuMemAlloc", e))?;
        let mut buffer = DeviceBuffer { slice, ctx: self.clone() };
        buffer.fill_zero()?;
        Ok(buffer)
    }

    /// A buffer holding a copy of `data`.
    pub fn upload<T: DeviceElem>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        let slice = self.cuda_stream().clone_htod(data).map_err(|e| self.error("cuMemcpyHtoD", e))?;
        Ok(DeviceBuffer { slice, ctx: self.clone() })
    }
}

impl Stream {
    /// A buffer holding a copy of `data`, copied on this stream (the host waits until `data` has been read, or
    /// staged when it is pageable).
    pub fn upload<T: DeviceElem>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        let ctx = self.context();
        let slice = self.cuda().clone_htod(data).map_err(|e| ctx.error("cuMemcpyHtoD", e))?;
        Ok(DeviceBuffer { slice, ctx: ctx.clone() })
    }

    /// A buffer of `len` zeroed elements, allocated and zeroed in this stream's order.
    pub fn alloc_zeros<T: DeviceElem>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let ctx = self.context();
        // SAFETY: zeroed below, on this stream, before anything can read it.
        let slice = unsafe { self.cuda().alloc::<T>(len) }.map_err(|e| ctx.error("cuMemAlloc", e))?;
        let mut buffer = DeviceBuffer { slice, ctx: ctx.clone() };
        let bytes = len * std::mem::size_of::<T>();
        let (ptr, _guard) = buffer.slice.device_ptr_mut(self.cuda());
        // SAFETY: `ptr` addresses `bytes` bytes owned by the buffer.
        unsafe { cudarc::driver::result::memset_d8_async(ptr, 0, bytes, self.cuda().cu_stream()) }
            .map_err(|e| ctx.error("cuMemsetD8", e))?;
        drop(_guard);
        Ok(buffer)
    }
}

impl<T: DeviceElem> DeviceBuffer<T> {
    /// Copies the buffer into `out` (same length) after the work queued on `stream`, then waits for `stream`.
    pub fn copy_to_host_on(&self, out: &mut [T], stream: &Stream) -> Result<()> {
        check_len("copy to host", self.len(), out.len())?;
        stream.cuda().memcpy_dtoh(&self.slice, out).map_err(|e| self.ctx.error("cuMemcpyDtoH", e))?;
        stream.synchronize()
    }

    pub fn len(&self) -> usize {
        self.slice.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slice.len() == 0
    }

    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// Copies the buffer to a new `Vec`, after the work queued before it.
    pub fn download(&self) -> Result<Vec<T>> {
        let mut out = vec![T::default(); self.len()];
        self.copy_to_host(&mut out)?;
        Ok(out)
    }

    /// Copies the buffer into `out`, which must have the same length.
    pub fn copy_to_host(&self, out: &mut [T]) -> Result<()> {
        check_len("copy to host", self.len(), out.len())?;
        let stream = self.ctx.cuda_stream();
        stream.memcpy_dtoh(&self.slice, out).map_err(|e| self.ctx.error("cuMemcpyDtoH", e))?;
        self.ctx.stream().synchronize()
    }

    /// Overwrites the buffer with `data`, which must have the same length.
    pub fn copy_from_host(&mut self, data: &[T]) -> Result<()> {
        check_len("copy from host", self.len(), data.len())?;
        let stream = self.ctx.cuda_stream().clone();
        stream.memcpy_htod(data, &mut self.slice).map_err(|e| self.ctx.error("cuMemcpyHtoD", e))?;
        self.ctx.check_deferred()
    }

    /// Overwrites the buffer with the contents of `source` (same length), on the device, asynchronously.
    pub fn copy_from(&mut self, source: &DeviceBuffer<T>) -> Result<()> {
        self.copy_from_on(source, &self.ctx.stream())
    }

    /// [`copy_from`](Self::copy_from) on a given stream.
    pub fn copy_from_on(&mut self, source: &DeviceBuffer<T>, stream: &Stream) -> Result<()> {
        check_len("device-to-device copy", self.len(), source.len())?;
        stream.cuda().memcpy_dtod(&source.slice, &mut self.slice).map_err(|e| self.ctx.error("cuMemcpyDtoD", e))
    }

    /// Sets every byte to zero, asynchronously.
    pub fn fill_zero(&mut self) -> Result<()> {
        let stream = self.ctx.cuda_stream().clone();
        let bytes = self.len() * std::mem::size_of::<T>();
        let (ptr, _guard) = self.slice.device_ptr_mut(&stream);
        // SAFETY: `ptr` addresses `bytes` bytes owned by this buffer.
        unsafe { cudarc::driver::result::memset_d8_async(ptr, 0, bytes, stream.cu_stream()) }
            .map_err(|e| self.ctx.error("cuMemsetD8", e))
    }
}

fn check_len(operation: &'static str, device_len: usize, other_len: usize) -> Result<()> {
    if device_len == other_len {
        Ok(())
    } else {
        Err(RuntimeError::CopyLength { operation, device_len, other_len })
    }
}

/// A device buffer seen without its element type, as a kernel argument. Implemented by [`DeviceBuffer`];
/// its methods are the launch's business.
pub trait RawBuffer: Send + Sync {
    #[doc(hidden)]
    fn raw_len(&self) -> usize;
    #[doc(hidden)]
    fn raw_elem(&self) -> ElemType;
    #[doc(hidden)]
    fn raw_context(&self) -> &Context;
    /// The device address, for a kernel that reads it on `stream`.
    #[doc(hidden)]
    fn raw_ptr<'s>(&'s self, stream: &'s CudaStream) -> (u64, SyncOnDrop<'s>);
    /// The device address, for a kernel that may write it on `stream`.
    #[doc(hidden)]
    fn raw_ptr_mut<'s>(&'s mut self, stream: &'s CudaStream) -> (u64, SyncOnDrop<'s>);
}

impl<T: DeviceElem> RawBuffer for DeviceBuffer<T> {
    fn raw_len(&self) -> usize {
        self.slice.len()
    }
    fn raw_elem(&self) -> ElemType {
        T::elem_type()
    }
    fn raw_context(&self) -> &Context {
        &self.ctx
    }
    fn raw_ptr<'s>(&'s self, stream: &'s CudaStream) -> (u64, SyncOnDrop<'s>) {
        self.slice.device_ptr(stream)
    }
    fn raw_ptr_mut<'s>(&'s mut self, stream: &'s CudaStream) -> (u64, SyncOnDrop<'s>) {
        self.slice.device_ptr_mut(stream)
    }
}

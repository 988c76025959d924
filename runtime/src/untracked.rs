//! Memory for kernels that run while the host keeps working (a persistent kernel that only returns when told to),
//! allocated with plain driver calls so that no cudarc event tracking is attached to it: a tracked buffer makes
//! later copies and launches that touch it wait for the kernel that last used it, and that kernel may never end.
//!
//! - [`HostMapped`]: pinned host memory mapped into the device's address space (`cuMemHostAlloc` with
//!   `DEVICEMAP`), for words the host and the kernel exchange while it runs. Memory the host polls must not be
//!   write-combined (write-combined memory is uncached for host reads); task slots the host only writes may be.
//! - [`DeviceArray`]: device memory (`cuMemAlloc`), zeroed, copied to or from the host only while no kernel uses it.
//!
//! Both are lent to a launch as [`Arg::Untracked`](crate::Arg::Untracked) through a shared reference: the kernel
//! may write them, and the caller orders its own accesses with the kernel's (atomics on mapped words, or only
//! after the kernel has exited). They are freed when dropped; free them only after every kernel using them exited.

use std::marker::PhantomData;
use std::sync::atomic::AtomicU64;

use cudarc::driver::{result, sys};

use crate::context::{Context, Stream};
use crate::error::{Result, RuntimeError};
use crate::kernel::Arg;
use crate::signature::DeviceElem;

/// `len` elements of `T` in pinned host memory mapped for the device, zeroed. `T` is plain data.
pub struct HostMapped<T> {
    ctx: Context,
    host: *mut T,
    device: u64,
    len: usize,
    _marker: PhantomData<T>,
}

// SAFETY: plain data owned by this value; the host's concurrent accesses go through atomics or raw pointers whose
// users keep one writer per word.
unsafe impl<T> Send for HostMapped<T> {}
unsafe impl<T> Sync for HostMapped<T> {}

impl Context {
    /// Zeroed pinned host memory mapped for the device. `write_combined` only for memory the host writes and
    /// never reads.
    pub fn host_mapped<T: DeviceElem>(&self, len: usize, write_combined: bool) -> Result<HostMapped<T>> {
        self.bind()?;
        let bytes = len.max(1) * std::mem::size_of::<T>();
        let mut flags = sys::CU_MEMHOSTALLOC_DEVICEMAP | sys::CU_MEMHOSTALLOC_PORTABLE;
        if write_combined {
            flags |= sys::CU_MEMHOSTALLOC_WRITECOMBINED;
        }
        // SAFETY: a plain allocation, zeroed before anything reads it.
        let host = unsafe { result::malloc_host(bytes, flags) }.map_err(|e| self.error("cuMemHostAlloc", e))? as *mut T;
        // SAFETY: `host` addresses `bytes` bytes just allocated.
        unsafe { std::ptr::write_bytes(host as *mut u8, 0, bytes) };
        let mut device = 0u64;
        // SAFETY: `host` was returned by cuMemHostAlloc with DEVICEMAP.
        let status = unsafe { sys::cuMemHostGetDevicePointer_v2(&mut device, host as *mut _, 0) };
        if let Err(e) = status.result() {
            // SAFETY: allocated above, not shared yet.
            unsafe { result::free_host(host as *mut _) }.ok();
            return Err(self.error("cuMemHostGetDevicePointer", e));
        }
        Ok(HostMapped { ctx: self.clone(), host, device, len, _marker: PhantomData })
    }

    /// Zeroed device memory without event tracking.
    pub fn device_array<T: DeviceElem>(&self, len: usize) -> Result<DeviceArray<T>> {
        self.bind()?;
        let bytes = len.max(1) * std::mem::size_of::<T>();
        // SAFETY: a plain allocation, zeroed right after.
        let ptr = unsafe { result::malloc_sync(bytes) }.map_err(|e| self.error("cuMemAlloc", e))?;
        let array = DeviceArray { ctx: self.clone(), ptr, len, _marker: PhantomData };
        array.zero()?;
        Ok(array)
    }
}

impl<T: DeviceElem> HostMapped<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The host address of element `i`, for volatile or atomic access while a kernel runs.
    pub fn ptr(&self, i: usize) -> *mut T {
        assert!(i < self.len, "index {i} out of {}", self.len);
        // SAFETY: in bounds.
        unsafe { self.host.add(i) }
    }
}

impl<T: DeviceElem> HostMapped<T> {
    /// The same memory lent to a launch as elements of `U` (whose size divides `T`'s), for a kernel that reads it
    /// both ways: records with ordinary loads, their words with atomics.
    pub fn view_as<U: DeviceElem>(&self) -> Arg<'_> {
        let (whole, part) = (std::mem::size_of::<T>(), std::mem::size_of::<U>());
        assert!(part > 0 && whole % part == 0, "a view of {whole}-byte elements as {part}-byte ones");
        Arg::Untracked { elem: U::elem_type(), len: self.len * (whole / part), ptr: self.device, context: &self.ctx }
    }
}

impl HostMapped<u64> {
    /// Element `i` as an atomic the host can load and store while a kernel uses it.
    pub fn atomic(&self, i: usize) -> &AtomicU64 {
        // SAFETY: in bounds (checked by `ptr`), 8-byte aligned (pinned allocations are page-aligned), and only
        // accessed atomically by the host.
        unsafe { AtomicU64::from_ptr(self.ptr(i)) }
    }
}

impl<T> Drop for HostMapped<T> {
    fn drop(&mut self) {
        self.ctx.bind().ok();
        // SAFETY: allocated by cuMemHostAlloc; the owner frees it only after the kernels using it exited.
        unsafe { result::free_host(self.host as *mut _) }.ok();
    }
}

/// `len` elements of `T` in device memory, without event tracking.
pub struct DeviceArray<T> {
    ctx: Context,
    ptr: u64,
    len: usize,
    _marker: PhantomData<T>,
}

// SAFETY: a device address; every access is a driver call or a kernel.
unsafe impl<T> Send for DeviceArray<T> {}
unsafe impl<T> Sync for DeviceArray<T> {}

impl<T: DeviceElem> DeviceArray<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn bytes(&self) -> usize {
        self.len.max(1) * std::mem::size_of::<T>()
    }

    /// Zeroes the array, synchronously (only while no kernel uses it).
    pub fn zero(&self) -> Result<()> {
        self.ctx.bind()?;
        // SAFETY: `ptr` addresses `bytes()` bytes.
        unsafe { result::memset_d8_sync(self.ptr, 0, self.bytes()) }.map_err(|e| self.ctx.error("cuMemsetD8", e))
    }

    /// Copies `data` into the start of the array, synchronously (only while no kernel uses it).
    pub fn upload_prefix(&self, data: &[T]) -> Result<()> {
        assert!(data.len() <= self.len, "{} elements into an array of {}", data.len(), self.len);
        if data.is_empty() {
            return Ok(());
        }
        self.ctx.bind()?;
        // SAFETY: `data` fits in the array.
        unsafe { result::memcpy_htod_sync(self.ptr, data) }.map_err(|e| self.ctx.error("cuMemcpyHtoD", e))
    }

    /// The device address of element 0.
    pub(crate) fn device_ptr(&self) -> u64 {
        self.ptr
    }

    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// Copies elements `source.start..source.end` to the elements from `destination` on, queued on `stream` (a
    /// stream of the array's device). The two ranges must not overlap.
    pub fn copy_within_on(&self, source: std::ops::Range<usize>, destination: usize, stream: &Stream) -> Result<()> {
        let count = source.end.saturating_sub(source.start);
        let fits = source.start <= source.end && source.end <= self.len && destination + count <= self.len;
        let disjoint = destination >= source.end || destination + count <= source.start;
        if !fits || !disjoint {
            return Err(RuntimeError::CopyLength {
                operation: "copy within a device array (ranges out of bounds or overlapping)",
                device_len: self.len,
                other_len: source.end.max(destination + count),
            });
        }
        if count == 0 {
            return Ok(());
        }
        let size = std::mem::size_of::<T>() as u64;
        let (dst, src) = (self.ptr + destination as u64 * size, self.ptr + source.start as u64 * size);
        self.ctx.bind()?;
        // SAFETY: both ranges lie in the array and do not overlap (checked above).
        unsafe { result::memcpy_dtod_async(dst, src, count * size as usize, stream.cuda().cu_stream()) }
            .map_err(|e| self.ctx.error("cuMemcpyDtoDAsync", e))
    }

    /// Copies `data` to the elements from `start` on, synchronously (only while no kernel uses them).
    pub fn upload_at(&self, start: usize, data: &[T]) -> Result<()> {
        if start + data.len() > self.len {
            return Err(RuntimeError::CopyLength {
                operation: "upload into a device array",
                device_len: self.len,
                other_len: start + data.len(),
            });
        }
        if data.is_empty() {
            return Ok(());
        }
        self.ctx.bind()?;
        let dst = self.ptr + (start * std::mem::size_of::<T>()) as u64;
        // SAFETY: `data` fits from `start` on.
        unsafe { result::memcpy_htod_sync(dst, data) }.map_err(|e| self.ctx.error("cuMemcpyHtoD", e))
    }

    /// Copies the array to the host, synchronously (only after the kernels using it exited).
    pub fn download(&self) -> Result<Vec<T>> {
        self.ctx.bind()?;
        let mut out = vec![T::default(); self.len];
        // SAFETY: `out` has `len` elements of `T`, the array as many.
        unsafe { result::memcpy_dtoh_sync(&mut out, self.ptr) }.map_err(|e| self.ctx.error("cuMemcpyDtoH", e))?;
        Ok(out)
    }
}

impl<T> Drop for DeviceArray<T> {
    fn drop(&mut self) {
        self.ctx.bind().ok();
        // SAFETY: allocated by cuMemAlloc; the owner frees it only after the kernels using it exited.
        unsafe { result::free_sync(self.ptr) }.ok();
    }
}

impl<'a, T: DeviceElem> From<&'a HostMapped<T>> for Arg<'a> {
    fn from(memory: &'a HostMapped<T>) -> Self {
        Arg::Untracked { elem: T::elem_type(), len: memory.len, ptr: memory.device, context: &memory.ctx }
    }
}

#[cfg(feature = "interp")]
impl DeviceArray<u32> {
    /// The array's bytes as a vector of `len` elements of `elem` (records in C's layout that the caller wrote
    /// into it), for a launch whose arguments were read as words (`interp_args`).
    pub(crate) fn as_elements(&self, elem: crate::signature::ElemType, len: usize) -> Arg<'_> {
        Arg::Untracked { elem, len, ptr: self.ptr, context: &self.ctx }
    }
}

impl<'a, T: DeviceElem> From<&'a DeviceArray<T>> for Arg<'a> {
    fn from(memory: &'a DeviceArray<T>) -> Self {
        Arg::Untracked { elem: T::elem_type(), len: memory.len, ptr: memory.ptr, context: &memory.ctx }
    }
}

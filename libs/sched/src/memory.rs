//! Memory the persistent kernel uses while it runs, allocated with raw driver calls so that no cudarc event
//! tracking is attached to it: a safe cudarc launch or copy touching a tracked buffer would wait on the
//! persistent kernel (which never returns by itself) and deadlock.
//!
//! - [`HostMapped`]: pinned host memory mapped into the device's address space (`cuMemHostAlloc` with
//!   `DEVICEMAP`). Words the host polls (completion records, ring heads) must not be write-combined: WC memory is
//!   uncached for host reads. Only the task slots, which the host writes and never reads back, are WC.
//! - [`DeviceArray`]: device memory (`cuMemAlloc`), read back only after the kernel has exited.

use std::marker::PhantomData;
use std::sync::atomic::AtomicU64;

use skc_runtime::cudarc::driver::{result, sys};

use crate::error::{Result, SchedError};
use crate::scheduler::MAIN_KERNEL;

/// `len` elements of `T` in pinned, mapped host memory, zeroed. `T` must be plain data (any bit pattern valid).
pub struct HostMapped<T> {
    host: *mut T,
    device: u64,
    len: usize,
    _marker: PhantomData<T>,
}

// SAFETY: the memory is plain data owned by this value; concurrent access goes through atomics or raw pointers
// whose users uphold the ring protocol (single writer per word).
unsafe impl<T> Send for HostMapped<T> {}
unsafe impl<T> Sync for HostMapped<T> {}

impl<T> HostMapped<T> {
    /// Allocates and zeroes. `write_combined` only for memory the host writes and never reads.
    pub fn new(len: usize, write_combined: bool) -> Result<HostMapped<T>> {
        let bytes = (len.max(1)) * std::mem::size_of::<T>();
        let mut flags = sys::CU_MEMHOSTALLOC_DEVICEMAP | sys::CU_MEMHOSTALLOC_PORTABLE;
        if write_combined {
            flags |= sys::CU_MEMHOSTALLOC_WRITECOMBINED;
        }
        // SAFETY: plain allocation; the memory is zeroed before anything reads it.
        let host = unsafe { result::malloc_host(bytes, flags) }
            .map_err(|e| SchedError::cuda("cuMemHostAlloc", MAIN_KERNEL, e))? as *mut T;
        // SAFETY: `host` addresses `bytes` bytes just allocated.
        unsafe { std::ptr::write_bytes(host as *mut u8, 0, bytes) };
        let mut device = 0u64;
        // SAFETY: `host` was returned by cuMemHostAlloc with DEVICEMAP.
        let status = unsafe { sys::cuMemHostGetDevicePointer_v2(&mut device, host as *mut _, 0) };
        if let Err(e) = status.result() {
            // SAFETY: allocated above, not shared yet.
            unsafe { result::free_host(host as *mut _) }.ok();
            return Err(SchedError::cuda("cuMemHostGetDevicePointer", MAIN_KERNEL, e));
        }
        Ok(HostMapped { host, device, len, _marker: PhantomData })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The address kernels use.
    pub fn device_ptr(&self) -> u64 {
        self.device
    }

    /// The host address of element `i`.
    pub fn ptr(&self, i: usize) -> *mut T {
        assert!(i < self.len, "index {i} out of {}", self.len);
        // SAFETY: in bounds.
        unsafe { self.host.add(i) }
    }
}

impl HostMapped<u64> {
    /// Element `i` as an atomic the host can load and store while the GPU uses it.
    pub fn atomic(&self, i: usize) -> &AtomicU64 {
        // SAFETY: in bounds (checked by `ptr`), 8-byte aligned (pinned allocations are page-aligned), and only
        // accessed atomically by the host.
        unsafe { AtomicU64::from_ptr(self.ptr(i)) }
    }
}

impl<T> Drop for HostMapped<T> {
    fn drop(&mut self) {
        // SAFETY: allocated by cuMemHostAlloc; the scheduler frees memory only after its kernel has exited.
        unsafe { result::free_host(self.host as *mut _) }.ok();
    }
}

/// `len` elements of `T` in device memory, zeroed, without event tracking.
pub struct DeviceArray<T> {
    ptr: u64,
    len: usize,
    _marker: PhantomData<T>,
}

// SAFETY: a device address; all access is through driver calls or kernels.
unsafe impl<T> Send for DeviceArray<T> {}
unsafe impl<T> Sync for DeviceArray<T> {}

impl<T: Copy + Default> DeviceArray<T> {
    pub fn new(len: usize) -> Result<DeviceArray<T>> {
        let bytes = len.max(1) * std::mem::size_of::<T>();
        // SAFETY: plain allocation, zeroed right after.
        let ptr = unsafe { result::malloc_sync(bytes) }.map_err(|e| SchedError::cuda("cuMemAlloc", MAIN_KERNEL, e))?;
        // SAFETY: `ptr` addresses `bytes` bytes.
        unsafe { result::memset_d8_sync(ptr, 0, bytes) }.map_err(|e| SchedError::cuda("cuMemsetD8", MAIN_KERNEL, e))?;
        Ok(DeviceArray { ptr, len, _marker: PhantomData })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }

    /// Zeroes the array (synchronously; only while no kernel uses it).
    pub fn zero(&self) -> Result<()> {
        let bytes = self.len.max(1) * std::mem::size_of::<T>();
        // SAFETY: `ptr` addresses `bytes` bytes.
        unsafe { result::memset_d8_sync(self.ptr, 0, bytes) }
            .map_err(|e| SchedError::cuda("cuMemsetD8", MAIN_KERNEL, e))
    }

    /// Copies the array to the host (synchronously; only after the kernel using it has exited).
    pub fn download(&self) -> Result<Vec<T>> {
        let mut out = vec![T::default(); self.len];
        // SAFETY: `out` has `len` elements of `T`, the array as many.
        unsafe { result::memcpy_dtoh_sync(&mut out, self.ptr) }
            .map_err(|e| SchedError::cuda("cuMemcpyDtoH", MAIN_KERNEL, e))?;
        Ok(out)
    }
}

impl<T> Drop for DeviceArray<T> {
    fn drop(&mut self) {
        // SAFETY: allocated by cuMemAlloc; freed only after the kernel has exited.
        unsafe { result::free_sync(self.ptr) }.ok();
    }
}

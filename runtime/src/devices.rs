//! Several CUDA devices of one host: [`device_count`], and [`DeviceSet`] (a context per device, peer access
//! between them, a program compiled once per architecture and loaded on each device).
//!
//! Every device keeps its own context, streams and memory; work is spread by the caller (one stream or host
//! thread per device), and data moves between devices by NCCL ([`crate::nccl`]) or by peer copies.

use std::collections::HashMap;

use cudarc::driver::sys::CUresult;

use crate::context::Context;
use crate::error::{Result, RuntimeError};
use crate::module::Module;
use crate::program::Program;

/// How many CUDA devices the driver reports (0 without a driver is an error: [`RuntimeError::NoDriver`]).
pub fn device_count() -> Result<usize> {
    // SAFETY: only checks whether libcuda can be opened.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(RuntimeError::NoDriver { reason: "libcuda.so could not be loaded".into() });
    }
    let count = std::panic::catch_unwind(cudarc::driver::CudaContext::device_count)
        .map_err(|_| RuntimeError::NoDriver { reason: "cuDeviceGetCount is missing from the driver".into() })?
        .map_err(|e| RuntimeError::driver("cuDeviceGetCount", e, None))?;
    Ok(count.max(0) as usize)
}

/// Devices opened together; index `i` of the set is device `ordinals()[i]`. Cheap to clone.
#[derive(Clone)]
pub struct DeviceSet {
    contexts: Vec<Context>,
}

impl DeviceSet {
    /// Opens the devices of these ordinals, in this order (each at most once).
    pub fn open(ordinals: &[usize]) -> Result<DeviceSet> {
        for (i, ordinal) in ordinals.iter().enumerate() {
            if ordinals[..i].contains(ordinal) {
                return Err(RuntimeError::DuplicateDevice { ordinal: *ordinal });
            }
        }
        let contexts = ordinals.iter().map(|&ordinal| Context::new(ordinal)).collect::<Result<Vec<_>>>()?;
        Ok(DeviceSet { contexts })
    }

    /// Devices 0 .. count-1. Fails with [`RuntimeError::NotEnoughDevices`] when the host has fewer.
    pub fn first(count: usize) -> Result<DeviceSet> {
        let present = device_count()?;
        if count == 0 || count > present {
            return Err(RuntimeError::NotEnoughDevices { asked: count, present });
        }
        DeviceSet::open(&(0..count).collect::<Vec<_>>())
    }

    /// Every device of the host.
    pub fn all() -> Result<DeviceSet> {
        DeviceSet::first(device_count()?)
    }

    /// Contexts already opened, as a set.
    pub fn from_contexts(contexts: Vec<Context>) -> Result<DeviceSet> {
        let ordinals: Vec<usize> = contexts.iter().map(|c| c.device().ordinal).collect();
        for (i, ordinal) in ordinals.iter().enumerate() {
            if ordinals[..i].contains(ordinal) {
                return Err(RuntimeError::DuplicateDevice { ordinal: *ordinal });
            }
        }
        Ok(DeviceSet { contexts })
    }

    pub fn len(&self) -> usize {
        self.contexts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.contexts.is_empty()
    }

    pub fn contexts(&self) -> &[Context] {
        &self.contexts
    }

    /// The context of the set's `index`-th device.
    pub fn context(&self, index: usize) -> &Context {
        &self.contexts[index]
    }

    /// The driver ordinals, in the set's order.
    pub fn ordinals(&self) -> Vec<usize> {
        self.contexts.iter().map(|c| c.device().ordinal).collect()
    }

    /// Whether the set's device `from` can read and write the memory of its device `to` directly (NVLink or
    /// PCIe peer-to-peer).
    pub fn can_access_peer(&self, from: usize, to: usize) -> Result<bool> {
        let (a, b) = (&self.contexts[from], &self.contexts[to]);
        let mut can = 0;
        // SAFETY: two valid device handles.
        unsafe { cudarc::driver::sys::cuDeviceCanAccessPeer(&mut can, a.cuda().cu_device(), b.cuda().cu_device()) }
            .result()
            .map_err(|e| a.error("cuDeviceCanAccessPeer", e))?;
        Ok(can != 0)
    }

    /// Enables peer access between every ordered pair of the set's devices that supports it; returns the pairs
    /// (set indices) now enabled. Pairs without support are left alone: NCCL and copies then go through the host.
    pub fn enable_peer_access(&self) -> Result<Vec<(usize, usize)>> {
        let mut enabled = Vec::new();
        for from in 0..self.len() {
            for to in 0..self.len() {
                if from == to || !self.can_access_peer(from, to)? {
                    continue;
                }
                let (a, b) = (&self.contexts[from], &self.contexts[to]);
                a.bind()?;
                // SAFETY: `a` is current; `b`'s context is alive while the set is.
                let status = unsafe { cudarc::driver::sys::cuCtxEnablePeerAccess(b.cuda().cu_ctx(), 0) };
                match status {
                    CUresult::CUDA_SUCCESS | CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => {
                        enabled.push((from, to))
                    }
                    other => return Err(a.error("cuCtxEnablePeerAccess", other.result().unwrap_err())),
                }
            }
        }
        Ok(enabled)
    }

    /// Compiles `program` once per distinct architecture of the set and loads it on every device; module `i`
    /// lives on the set's device `i`.
    pub fn load(&self, program: &Program) -> Result<Vec<Module>> {
        let mut compiled = HashMap::new();
        let mut modules = Vec::with_capacity(self.len());
        for ctx in &self.contexts {
            let arch = ctx.device().arch.clone();
            if !compiled.contains_key(&arch) {
                compiled.insert(arch.clone(), program.compile(&arch)?);
            }
            let output = compiled[&arch].clone();
            modules.push(Module::from_output(ctx, program.clone(), arch, output)?);
        }
        Ok(modules)
    }
}

/// `count` items split into `parts` contiguous ranges, each non-empty one starting at a multiple of `align`: every
/// range holds `count / parts` items to within one `align` unit, the last one also short of its unit's remainder,
/// so two sizes differ by less than `2 align`. When `count` is small the last ranges are empty (`count..count`).
pub fn split_aligned(count: usize, parts: usize, align: usize) -> Vec<std::ops::Range<usize>> {
    assert!(parts > 0 && align > 0, "split_aligned: {parts} parts aligned to {align}");
    let units = count.div_ceil(align);
    let mut ranges = Vec::with_capacity(parts);
    let mut start = 0;
    for part in 0..parts {
        // The first `units % parts` parts get one unit more.
        let take = units / parts + usize::from(part < units % parts);
        let end = (start + take * align).min(count);
        ranges.push(start..end);
        start = end;
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::split_aligned;

    #[test]
    fn aligned_splits_cover_everything_in_order() {
        for count in [0, 1, 31, 32, 33, 1000, 4096, 100_003] {
            for parts in 1..=5 {
                for align in [1, 32, 256] {
                    let ranges = split_aligned(count, parts, align);
                    assert_eq!(ranges.len(), parts);
                    assert_eq!(ranges[0].start, 0);
                    assert_eq!(ranges[parts - 1].end, count);
                    for pair in ranges.windows(2) {
                        assert_eq!(pair[0].end, pair[1].start);
                    }
                    // Empty ranges (past the end) start at `count`; every other starts aligned.
                    for r in ranges.iter().filter(|r| !r.is_empty()) {
                        assert_eq!(r.start % align, 0, "{count} {parts} {align}: {ranges:?}");
                    }
                    let sizes: Vec<usize> = ranges.iter().map(|r| r.len()).collect();
                    let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
                    assert!(hi - lo < 2 * align, "{count} {parts} {align}: {sizes:?}");
                }
            }
        }
    }
}

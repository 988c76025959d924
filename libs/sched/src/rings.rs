//! The host rings: pinned memory mapped for the device that the scheduler warps read and the producers write, one
//! ring per producer (its slots, its published tail, the head the GPU reports back, the completion records the
//! workers write), the stop word, and each ring's state (idle, busy submitting, closed by `stop`).

use std::sync::atomic::AtomicU8;
use std::time::Duration;

use skc_runtime::{Context, HostMapped};

use crate::error::Result;
use crate::layout::{RingSlot, RING_WORD_STRIDE};

/// Ring states: a producer marks its ring busy while it submits; `stop` closes idle rings.
pub(crate) const IDLE: u8 = 0;
pub(crate) const BUSY: u8 = 1;
pub(crate) const CLOSED: u8 = 2;

/// The host-visible rings, shared by the scheduler and its producers.
pub(crate) struct Rings {
    /// `[0]`: the stop request.
    pub hctl: HostMapped<u64>,
    pub slots: HostMapped<RingSlot>,
    pub tails: HostMapped<u64>,
    pub heads: HostMapped<u64>,
    pub done: HostMapped<u64>,
    pub states: Vec<AtomicU8>,
    pub capacity: usize,
    pub write_combined: bool,
    pub timeout: Duration,
}

impl Rings {
    /// `rings` rings of `capacity` slots (task slots write-combined if asked: the host only writes them), every
    /// word the host polls in ordinary cached pinned memory.
    pub fn allocate(
        ctx: &Context,
        rings: usize,
        capacity: usize,
        write_combined: bool,
        timeout: Duration,
    ) -> Result<Rings> {
        let n = rings.max(1);
        Ok(Rings {
            hctl: ctx.host_mapped(16, false)?,
            slots: ctx.host_mapped(n * capacity, write_combined)?,
            tails: ctx.host_mapped(n * RING_WORD_STRIDE, false)?,
            heads: ctx.host_mapped(n * RING_WORD_STRIDE, false)?,
            done: ctx.host_mapped(n * capacity, false)?,
            states: (0..rings).map(|_| AtomicU8::new(IDLE)).collect(),
            capacity,
            write_combined,
            timeout,
        })
    }
}

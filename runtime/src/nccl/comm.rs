//! [`Communicator`]: one rank of an NCCL communicator on one device, its creation, point-to-point sends and
//! receives and the sum all-reduce, queued on the caller's streams.

use std::ffi::{c_int, c_void};
use std::ops::Range;

use crate::buffer::{DeviceBuffer, RawBuffer};
use crate::context::{Context, Stream};
use crate::devices::DeviceSet;
use crate::error::{Result, RuntimeError};
use crate::nccl::library::{nccl, RawComm, RawUniqueId};
use crate::signature::DeviceElem;
use crate::untracked::DeviceArray;

/// NCCL's `ncclUint8`: sends and receives move bytes.
const NCCL_UINT8: c_int = 1;
/// NCCL's `ncclSum`.
const NCCL_SUM: c_int = 0;

/// The element types NCCL can reduce, with NCCL's number for them.
pub trait NcclElem: DeviceElem {
    #[doc(hidden)]
    const NCCL_TYPE: c_int;
}

impl NcclElem for i32 {
    const NCCL_TYPE: c_int = 2;
}
impl NcclElem for u32 {
    const NCCL_TYPE: c_int = 3;
}
impl NcclElem for i64 {
    const NCCL_TYPE: c_int = 4;
}
impl NcclElem for u64 {
    const NCCL_TYPE: c_int = 5;
}
impl NcclElem for f32 {
    const NCCL_TYPE: c_int = 7;
}
impl NcclElem for f64 {
    const NCCL_TYPE: c_int = 8;
}

/// The token every rank of one communicator is created with (`ncclUniqueId`, 128 bytes). Rank 0 creates it
/// and sends [`UniqueId::to_bytes`] to the other ranks' processes.
#[derive(Clone, Copy)]
pub struct UniqueId(RawUniqueId);

impl UniqueId {
    /// A new id (`ncclGetUniqueId`; it also starts NCCL's bootstrap listener on this host).
    pub fn new() -> Result<UniqueId> {
        let api = nccl()?;
        let mut raw = RawUniqueId { internal: [0; 128] };
        // SAFETY: writes 128 bytes.
        api.check("ncclGetUniqueId", unsafe { (api.get_unique_id)(&mut raw) }, None, None, None)?;
        Ok(UniqueId(raw))
    }

    pub fn to_bytes(&self) -> [u8; 128] {
        self.0.internal.map(|c| c as u8)
    }

    pub fn from_bytes(bytes: &[u8; 128]) -> UniqueId {
        UniqueId(RawUniqueId { internal: bytes.map(|b| b as std::ffi::c_char) })
    }
}

/// One rank of an NCCL communicator, living on one device. Destroyed when dropped (after its device's work).
pub struct Communicator {
    raw: RawComm,
    rank: usize,
    size: usize,
    ctx: Context,
}

// SAFETY: an NCCL communicator may be used from any thread, one call at a time (`&self` calls are queued on
// streams; the caller orders them as NCCL requires).
unsafe impl Send for Communicator {}
unsafe impl Sync for Communicator {}

impl Communicator {
    /// One communicator over every device of the set, from this thread (`ncclCommInitAll`): rank `i` lives on
    /// the set's device `i`.
    pub fn init_all(devices: &DeviceSet) -> Result<Vec<Communicator>> {
        let api = nccl()?;
        let ordinals: Vec<c_int> = devices.ordinals().iter().map(|&o| o as c_int).collect();
        let mut raw = vec![std::ptr::null_mut(); ordinals.len()];
        devices.context(0).bind()?;
        // SAFETY: `raw` has room for one handle per device.
        let code = unsafe { (api.comm_init_all)(raw.as_mut_ptr(), ordinals.len() as c_int, ordinals.as_ptr()) };
        api.check("ncclCommInitAll", code, None, None, Some(devices.ordinals()[0]))?;
        let size = raw.len();
        Ok(raw
            .into_iter()
            .enumerate()
            .map(|(rank, raw)| Communicator { raw, rank, size, ctx: devices.context(rank).clone() })
            .collect())
    }

    /// The same communicator as [`init_all`](Self::init_all), created the way several processes create one: a
    /// [`UniqueId`], then [`init_rank`](Self::init_rank) on one thread per device.
    pub fn init_threads(devices: &DeviceSet) -> Result<Vec<Communicator>> {
        let id = UniqueId::new()?;
        let size = devices.len();
        std::thread::scope(|scope| {
            let handles: Vec<_> = devices
                .contexts()
                .iter()
                .enumerate()
                .map(|(rank, ctx)| scope.spawn(move || Communicator::init_rank(ctx, &id, rank, size)))
                .collect();
            handles.into_iter().map(|h| h.join().expect("an NCCL init thread panicked")).collect()
        })
    }

    /// Rank `rank` of a communicator of `size` ranks on device `ctx` (`ncclCommInitRank`). Blocks until every
    /// rank has called it with the same id: call it for each rank from its own thread or process.
    pub fn init_rank(ctx: &Context, id: &UniqueId, rank: usize, size: usize) -> Result<Communicator> {
        let api = nccl()?;
        ctx.bind()?;
        let mut raw = std::ptr::null_mut();
        // SAFETY: one handle written; the id is passed by value as nccl.h declares.
        let code = unsafe { (api.comm_init_rank)(&mut raw, size as c_int, id.0, rank as c_int) };
        api.check("ncclCommInitRank", code, None, Some(rank), Some(ctx.device().ordinal))?;
        Ok(Communicator { raw, rank, size, ctx: ctx.clone() })
    }

    pub fn rank(&self) -> usize {
        self.rank
    }

    pub fn size(&self) -> usize {
        self.size
    }

    pub fn context(&self) -> &Context {
        &self.ctx
    }

    fn device(&self) -> usize {
        self.ctx.device().ordinal
    }

    fn check(&self, call: &'static str, code: c_int) -> Result<()> {
        nccl()?.check(call, code, Some(self.raw), Some(self.rank), Some(self.device()))
    }

    /// The stream must be one of this rank's device, the peer a rank of the communicator.
    fn check_use(&self, call: &'static str, stream: &Stream, peer: usize) -> Result<()> {
        let device = stream.context().device().ordinal;
        let reason = if device != self.device() {
            format!("the stream is on device {device}, the communicator's rank on device {}", self.device())
        } else if peer >= self.size {
            format!("peer {peer} is not a rank of this communicator of {} ranks", self.size)
        } else {
            return Ok(());
        };
        Err(RuntimeError::Nccl {
            call,
            code: "ncclInvalidUsage".into(),
            description: reason,
            rank: Some(self.rank),
            device: Some(self.device()),
        })
    }

    /// Sends `data[range]` to rank `peer`, queued on `stream` (a stream of this rank's device). Inside a
    /// [`group`] when one thread drives several ranks.
    pub fn send<T: DeviceElem>(
        &self,
        data: &DeviceArray<T>,
        range: Range<usize>,
        peer: usize,
        stream: &Stream,
    ) -> Result<()> {
        self.check_use("ncclSend", stream, peer)?;
        let ptr = element_address::<T>(data.device_ptr(), data.len(), &range, "NCCL send")?;
        self.send_raw(ptr, range.len() * std::mem::size_of::<T>(), peer, stream)
    }

    /// Receives `data[range]` from rank `peer`, queued on `stream`.
    pub fn recv<T: DeviceElem>(
        &self,
        data: &DeviceArray<T>,
        range: Range<usize>,
        peer: usize,
        stream: &Stream,
    ) -> Result<()> {
        self.check_use("ncclRecv", stream, peer)?;
        let ptr = element_address::<T>(data.device_ptr(), data.len(), &range, "NCCL receive")?;
        self.recv_raw(ptr, range.len() * std::mem::size_of::<T>(), peer, stream)
    }

    /// [`send`](Self::send) from a tracked buffer (ordered after the buffer's earlier writers).
    pub fn send_buffer<T: DeviceElem>(
        &self,
        data: &DeviceBuffer<T>,
        range: Range<usize>,
        peer: usize,
        stream: &Stream,
    ) -> Result<()> {
        self.check_use("ncclSend", stream, peer)?;
        let (base, _guard) = data.raw_ptr(stream.cuda());
        let ptr = element_address::<T>(base, data.len(), &range, "NCCL send")?;
        self.send_raw(ptr, range.len() * std::mem::size_of::<T>(), peer, stream)
    }

    /// [`recv`](Self::recv) into a tracked buffer.
    pub fn recv_buffer<T: DeviceElem>(
        &self,
        data: &mut DeviceBuffer<T>,
        range: Range<usize>,
        peer: usize,
        stream: &Stream,
    ) -> Result<()> {
        self.check_use("ncclRecv", stream, peer)?;
        let len = data.len();
        let (base, _guard) = data.raw_ptr_mut(stream.cuda());
        let ptr = element_address::<T>(base, len, &range, "NCCL receive")?;
        self.recv_raw(ptr, range.len() * std::mem::size_of::<T>(), peer, stream)
    }

    /// Sums `data` over every rank, in place (every rank's buffer must have the same length), on `stream`.
    pub fn all_reduce_sum<T: NcclElem>(&self, data: &mut DeviceBuffer<T>, stream: &Stream) -> Result<()> {
        self.check_use("ncclAllReduce", stream, 0)?;
        let api = nccl()?;
        let len = data.len();
        let (ptr, _guard) = data.raw_ptr_mut(stream.cuda());
        self.ctx.bind()?;
        let (p, s) = (ptr as *mut c_void, stream.cuda().cu_stream());
        // SAFETY: `len` elements of T at `ptr`, on a stream of this rank's device.
        let code = unsafe { (api.all_reduce)(p, p, len, T::NCCL_TYPE, NCCL_SUM, self.raw, s) };
        self.check("ncclAllReduce", code)
    }

    fn send_raw(&self, ptr: u64, bytes: usize, peer: usize, stream: &Stream) -> Result<()> {
        let api = nccl()?;
        self.ctx.bind()?;
        let s = stream.cuda().cu_stream();
        // SAFETY: `bytes` bytes at `ptr` on this rank's device (checked by the callers).
        let code = unsafe { (api.send)(ptr as *const c_void, bytes, NCCL_UINT8, peer as c_int, self.raw, s) };
        self.check("ncclSend", code)
    }

    fn recv_raw(&self, ptr: u64, bytes: usize, peer: usize, stream: &Stream) -> Result<()> {
        let api = nccl()?;
        self.ctx.bind()?;
        let s = stream.cuda().cu_stream();
        // SAFETY: as in send_raw.
        let code = unsafe { (api.recv)(ptr as *mut c_void, bytes, NCCL_UINT8, peer as c_int, self.raw, s) };
        self.check("ncclRecv", code)
    }
}

impl Drop for Communicator {
    fn drop(&mut self) {
        let Ok(api) = nccl() else { return };
        // Queued sends and receives must finish first.
        self.ctx.synchronize().ok();
        self.ctx.bind().ok();
        // SAFETY: created by NCCL, destroyed once.
        unsafe { (api.comm_destroy)(self.raw) };
    }
}

/// The address of element `range.start` of an array of `len` elements of T at `base`.
fn element_address<T>(base: u64, len: usize, range: &Range<usize>, operation: &'static str) -> Result<u64> {
    if range.start > range.end || range.end > len {
        return Err(RuntimeError::CopyLength { operation, device_len: len, other_len: range.end });
    }
    Ok(base + (range.start * std::mem::size_of::<T>()) as u64)
}

/// Runs `work` between `ncclGroupStart` and `ncclGroupEnd`: the NCCL calls inside are launched together, which
/// one thread driving several ranks needs (each rank's call would otherwise wait for the others), and which
/// lets matching sends and receives proceed at once.
pub fn group<R>(work: impl FnOnce() -> Result<R>) -> Result<R> {
    let api = nccl()?;
    // SAFETY: no arguments.
    api.check("ncclGroupStart", unsafe { (api.group_start)() }, None, None, None)?;
    let result = work();
    // SAFETY: closes the group opened above, also when `work` failed (NCCL then launches what was queued).
    let end = api.check("ncclGroupEnd", unsafe { (api.group_end)() }, None, None, None);
    let value = result?;
    end?;
    Ok(value)
}

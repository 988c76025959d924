//! Measurements the benchmark binary (`sched-bench`) prints, and the baselines it measures in the same process:
//! plain launches and a CUDA graph of the same empty or compute kernel, from `sched.sk` itself.

use std::ffi::c_void;
use std::time::{Duration, Instant};

use skc_runtime::cudarc::driver::{result, sys, CudaFunction};
use skc_runtime::{Context, Module};

use crate::error::{Result, SchedError};
use crate::layout::Task;
use crate::memory::{DeviceArray, HostMapped};
use crate::scheduler::{program, Config, Scheduler};

const BASELINE: &str = "sched_empty/sched_compute";

fn cuda<T>(call: &'static str, r: std::result::Result<T, skc_runtime::cudarc::driver::DriverError>) -> Result<T> {
    r.map_err(|e| SchedError::cuda(call, BASELINE, e))
}

/// The baseline kernels on a stream of their own.
pub struct Baseline {
    _module: Module,
    empty: CudaFunction,
    compute: CudaFunction,
    stream: sys::CUstream,
    sink: u64,
}

impl Baseline {
    pub fn new(ctx: &Context) -> Result<Baseline> {
        let module = Module::from_program(ctx, program(&Config::default())?)?;
        let empty = module.kernel("sched_empty")?.cuda_function().clone();
        let compute = module.kernel("sched_compute")?.cuda_function().clone();
        cuda("cuCtxSetCurrent", ctx.cuda().bind_to_thread())?;
        let stream = cuda("cuStreamCreate", result::stream::create(result::stream::StreamKind::NonBlocking))?;
        // SAFETY: a 4-byte allocation, freed in Drop.
        let sink = cuda("cuMemAlloc", unsafe { result::malloc_sync(4) })?;
        Ok(Baseline { _module: module, empty, compute, stream, sink })
    }

    /// Queues one launch: the empty kernel (`iters` None) or one warp of `iters` compute iterations.
    fn launch(&self, iters: Option<i32>) -> Result<()> {
        let mut sink = self.sink;
        let mut iters_v = iters.unwrap_or(0);
        let mut id = 0i64;
        // SAFETY: parameter lists of sched_empty (sink) and sched_compute (sink, iters, id).
        unsafe {
            match iters {
                None => {
                    let mut params = [&mut sink as *mut u64 as *mut c_void];
                    result::launch_kernel(self.empty.cu_function(), (1, 1, 1), (32, 1, 1), 0, self.stream, &mut params)
                }
                Some(_) => {
                    let mut params = [
                        &mut sink as *mut u64 as *mut c_void,
                        &mut iters_v as *mut i32 as *mut c_void,
                        &mut id as *mut i64 as *mut c_void,
                    ];
                    result::launch_kernel(
                        self.compute.cu_function(),
                        (1, 1, 1),
                        (32, 1, 1),
                        0,
                        self.stream,
                        &mut params,
                    )
                }
            }
        }
        .map_err(|e| SchedError::cuda("cuLaunchKernel", BASELINE, e))
    }

    fn sync(&self) -> Result<()> {
        // SAFETY: this baseline's stream.
        cuda("cuStreamSynchronize", unsafe { sys::cuStreamSynchronize(self.stream) }.result())
    }

    /// Seconds for `n` launches queued back to back on one stream, until the last finished.
    pub fn plain_launches(&self, n: usize, iters: Option<i32>) -> Result<f64> {
        self.launch(iters)?;
        self.sync()?;
        let begin = Instant::now();
        for _ in 0..n {
            self.launch(iters)?;
        }
        self.sync()?;
        Ok(begin.elapsed().as_secs_f64())
    }

    /// Seconds for `replays` launches of a graph of `per_graph` kernels captured from this stream.
    pub fn graph(&self, per_graph: usize, replays: usize, iters: Option<i32>) -> Result<f64> {
        // SAFETY: capture on this baseline's own stream, ended below; the graph is destroyed before returning.
        unsafe {
            cuda(
                "cuStreamBeginCapture",
                sys::cuStreamBeginCapture_v2(self.stream, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED)
                    .result(),
            )?;
            for _ in 0..per_graph {
                self.launch(iters)?;
            }
            let mut graph = std::ptr::null_mut();
            cuda("cuStreamEndCapture", sys::cuStreamEndCapture(self.stream, &mut graph).result())?;
            let mut exec = std::ptr::null_mut();
            cuda("cuGraphInstantiate", sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0).result())?;
            cuda("cuGraphLaunch", sys::cuGraphLaunch(exec, self.stream).result())?;
            self.sync()?;
            let begin = Instant::now();
            for _ in 0..replays {
                cuda("cuGraphLaunch", sys::cuGraphLaunch(exec, self.stream).result())?;
            }
            self.sync()?;
            let seconds = begin.elapsed().as_secs_f64();
            sys::cuGraphExecDestroy(exec);
            sys::cuGraphDestroy(graph);
            Ok(seconds)
        }
    }

    /// Device time of one compute task as a one-warp kernel (mean of `n` back-to-back launches, by events).
    pub fn task_time(&self, iters: i32, n: usize) -> Result<f64> {
        // SAFETY: events created, recorded on this stream and destroyed here.
        unsafe {
            let start = cuda("cuEventCreate", result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT))?;
            let stop = cuda("cuEventCreate", result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT))?;
            self.launch(Some(iters))?;
            cuda("cuEventRecord", result::event::record(start, self.stream))?;
            for _ in 0..n {
                self.launch(Some(iters))?;
            }
            cuda("cuEventRecord", result::event::record(stop, self.stream))?;
            self.sync()?;
            let ms = cuda("cuEventElapsedTime", result::event::elapsed(start, stop))?;
            result::event::destroy(start).ok();
            result::event::destroy(stop).ok();
            Ok(ms as f64 * 1e-3 / n as f64)
        }
    }
}

impl Drop for Baseline {
    fn drop(&mut self) {
        // SAFETY: allocated and created in `new`; nothing runs on the stream after a sync.
        unsafe {
            result::free_sync(self.sink).ok();
            result::stream::destroy(self.stream).ok();
        }
    }
}

/// What one ping-pong run measured (see `sched_pingpong` in sched.sk).
pub struct PingPong {
    /// Host: from the ping's store to the pong seen, sorted.
    pub round_trips: Vec<Duration>,
    /// Device: from seeing ping i to having written pong i (the reply's cost as the GPU sees it), sorted.
    pub reply: Vec<Duration>,
    /// Device: from seeing ping i to seeing ping i + 1 (the round trip as the GPU sees it), sorted.
    pub device_round_trips: Vec<Duration>,
    /// Mean cost (ns) of single operations, named by [`PINGPONG_COSTS`] (sched_pingpong in sched.sk).
    pub costs: [u64; 11],
}

pub const PINGPONG_COSTS: [&str; 11] = [
    "ld.relaxed.sys",
    "ld.acquire.sys",
    "the scheduler's poll (4 slot words, 2 more lines, 3 registers: one round trip)",
    "ld.relaxed.sys + fence.acquire.sys",
    "st.release.sys",
    "fence.release.sys + st.relaxed.sys",
    "fence.sc.sys + st.relaxed.sys",
    "st.relaxed.sys alone",
    "the same poll into one register (each load waits for the previous)",
    "the poll with all 32 lanes loading",
    "st.release.gpu to device memory",
];

/// Host <-> GPU ping-pong through pinned mapped host memory (not write-combined, like the ring's tail and the
/// completion records): the host stores ping = i and spins until pong = i, `n` times after 200 warm-up rounds.
/// `mode` picks the GPU's load and store flavour and whether a second warp polls host memory next to it
/// (sched_pingpong in sched.sk). Same module, same context, same
/// process as the scheduler's benchmark.
pub fn pingpong(ctx: &Context, mode: i32, n: usize, reps: i32) -> Result<PingPong> {
    const KERNEL: &str = "sched_pingpong";
    let module = Module::from_program(ctx, program(&Config::default())?)?;
    let f = module.kernel(KERNEL)?.cuda_function().clone();
    cuda("cuCtxSetCurrent", ctx.cuda().bind_to_thread())?;
    let ping = HostMapped::<u64>::new(16, false)?;
    let pong = HostMapped::<u64>::new(16, false)?;
    let words = HostMapped::<u64>::new(32, false)?;
    let total = n + 200;
    let stamps = DeviceArray::<u64>::new(2 * total + 2)?;
    let costs = DeviceArray::<u64>::new(16)?;
    let stream = cuda("cuStreamCreate", result::stream::create(result::stream::StreamKind::NonBlocking))?;
    let (mut p_ping, mut p_pong, mut p_words) = (ping.device_ptr(), pong.device_ptr(), words.device_ptr());
    let (mut n_i, mut mode_v, mut reps_v) = (total as i32, mode, reps);
    let (mut p_stamps, mut p_costs) = (stamps.device_ptr(), costs.device_ptr());
    let mut params = [
        &mut p_ping as *mut u64 as *mut c_void,
        &mut p_pong as *mut u64 as *mut c_void,
        &mut p_words as *mut u64 as *mut c_void,
        &mut n_i as *mut i32 as *mut c_void,
        &mut mode_v as *mut i32 as *mut c_void,
        &mut reps_v as *mut i32 as *mut c_void,
        &mut p_stamps as *mut u64 as *mut c_void,
        &mut p_costs as *mut u64 as *mut c_void,
    ];
    // SAFETY: the parameters match sched_pingpong's signature; every buffer outlives the kernel (the stream is
    // synchronised before they drop).
    unsafe { result::launch_kernel(f.cu_function(), (1, 1, 1), (64, 1, 1), 0, stream, &mut params) }
        .map_err(|e| SchedError::cuda("cuLaunchKernel", KERNEL, e))?;
    let (ping_w, pong_w) = (ping.atomic(0), pong.atomic(0));
    let mut round_trips = Vec::with_capacity(n);
    let timeout = Duration::from_secs(10);
    let mut failed = None;
    'rounds: for i in 1..=total as u64 {
        let begin = Instant::now();
        ping_w.store(i, std::sync::atomic::Ordering::Release);
        let mut spins = 0u32;
        while pong_w.load(std::sync::atomic::Ordering::Acquire) < i {
            spins += 1;
            if spins.is_multiple_of(4096) && begin.elapsed() > timeout {
                failed = Some(i);
                break 'rounds;
            }
            std::hint::spin_loop();
        }
        if i > 200 {
            round_trips.push(begin.elapsed());
        }
    }
    if let Some(i) = failed {
        // Unblock the kernel so that the stream can be synchronised and the memory freed.
        ping_w.store(u64::MAX, std::sync::atomic::Ordering::Release);
        // SAFETY: this function's stream.
        unsafe { sys::cuStreamSynchronize(stream) };
        return Err(SchedError::Timeout { kernel: KERNEL, what: format!("pong {i}"), waited: timeout });
    }
    // SAFETY: this function's stream; destroyed after its kernel finished.
    unsafe {
        cuda("cuStreamSynchronize", sys::cuStreamSynchronize(stream).result())?;
        result::stream::destroy(stream).ok();
    }
    let st = stamps.download()?;
    let c = costs.download()?;
    let measured = 201..=total;
    let mut reply: Vec<Duration> = measured.clone().map(|i| Duration::from_nanos(st[2 * i + 1] - st[2 * i])).collect();
    let mut device_round_trips: Vec<Duration> =
        measured.filter(|&i| i < total).map(|i| Duration::from_nanos(st[2 * i + 2] - st[2 * i])).collect();
    round_trips.sort();
    reply.sort();
    device_round_trips.sort();
    let mut costs_out = [0u64; 11];
    costs_out.copy_from_slice(&c[..11]);
    Ok(PingPong { round_trips, reply, device_round_trips, costs: costs_out })
}

/// Percentile of sorted samples.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i]
}

/// Submits `tasks` through `sched`'s producers from one thread each, in batches, and waits for all of them.
/// Returns seconds from the first submission to the last completion seen.
pub fn run_producers(sched: &mut Scheduler, per_producer: Vec<Vec<Task>>, batch: usize) -> Result<f64> {
    let producers = sched.producers();
    let begin = Instant::now();
    let results: Vec<Result<()>> = std::thread::scope(|scope| {
        let handles: Vec<_> = producers
            .into_iter()
            .zip(per_producer)
            .map(|(mut producer, tasks)| {
                scope.spawn(move || -> Result<()> {
                    for chunk in tasks.chunks(batch.max(1)) {
                        producer.submit_batch(chunk)?;
                    }
                    producer.wait_all()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("producer thread panicked")).collect()
    });
    let seconds = begin.elapsed().as_secs_f64();
    results.into_iter().collect::<Result<Vec<()>>>()?;
    Ok(seconds)
}

//! Measurements the benchmark binary (`sched-bench`) prints, and the baselines it measures in the same process:
//! plain launches and a CUDA graph of the same empty or compute kernel, from `sched.sk` itself.

use std::ffi::c_void;
use std::time::{Duration, Instant};

use skc_runtime::cudarc::driver::{result, sys, CudaFunction};
use skc_runtime::{Context, Module};

use crate::error::{Result, SchedError};
use crate::layout::Task;
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

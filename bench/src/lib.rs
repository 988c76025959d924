//! skc-bench: the measurements of docs/performance.md, each with its baselines measured in the same process. The
//! binaries (`src/bin/`) run on the GPU machine (`bash scripts/gpu.sh bundle SUITE` here, then `bash
//! .carry/gpu/gpu.sh run SUITE` there); the peers' scripts are in `peers/`, the plots' data in `results/`.
//!
//! Layout: `sched` (the scheduler's baselines: plain launches and CUDA graphs of the same kernels, the host <-> GPU
//! ping-pong floor, producer threads), `queue` (the device queue alone, checked for conservation, against the
//! Broker Queue), `weno` (the WENO variants against the fixed-order floor). The example kernels, ODE and metrics
//! benchmarks are binaries over their crates' APIs; `timing` is how they time themselves beside a peer (the spinner
//! that hides the host's enqueue, the caller's wait, one JSON line per measurement).

pub mod queue;
pub mod sched;
pub mod timing;
pub mod weno;

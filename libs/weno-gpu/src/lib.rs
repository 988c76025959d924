//! The GPU side of stdlib/weno: the list of compile-time variants (`variants`), building them with skc and
//! NVRTC (`build`: CUBIN plus the ptxas register/spill report, written to a folder with a manifest so that a
//! machine without a Rust toolchain or NVRTC can load them), the kernels' launches over skc-runtime (`device`),
//! and the correctness checks against the float64 CPU reference (`check`). `decomposition` (slab bounds and halo
//! ranges of a grid cut along z, pure) and `slab` (3-D advection over several GPUs, halos through NCCL) run the
//! tracer across the GPUs of a host. The benchmarks are skc-bench's `weno-bench` and `multigpu-bench`.

pub mod build;
pub mod check;
pub mod decomposition;
pub mod device;
pub mod problem;
pub mod slab;
pub mod variants;

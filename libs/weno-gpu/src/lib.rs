//! The GPU side of stdlib/weno: the list of compile-time variants (`variants`), building them with skc and
//! NVRTC (`build`: CUBIN plus the ptxas register/spill report, written to a folder with a manifest so that a
//! machine without a Rust toolchain or NVRTC can load them), the kernels' launches over skc-runtime (`device`),
//! and the correctness checks against the float64 CPU reference (`check`). The benchmark is skc-bench's
//! `weno-bench`.

pub mod build;
pub mod check;
pub mod device;
pub mod problem;
pub mod variants;

//! The runnable examples: each `.sk` kernel in `kernels/` with the host code that launches it, a CPU reference,
//! and a `check` that runs both and compares. The programs in `examples/` (`cargo run --release --example NAME`)
//! print what `check` returns; the GPU tests and the benchmarks call the same code.

pub mod common;
pub mod half_precision;
pub mod histogram;
pub mod kernels;
pub mod matmul;
pub mod reduce;
pub mod scan;
pub mod softmax;
pub mod spmv;
pub mod stencil;
pub mod transpose;
pub mod vector_add;
pub mod warp_reduce;

pub use common::Outcome;

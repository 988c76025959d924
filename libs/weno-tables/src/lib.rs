//! WENO tables for skc's standard library: an exact-rational generator (`tables`, with its identities asserted
//! at generation time), the `.sk` writer (`sk`), and a float64 CPU reference of WENO-Z with per-point reduced
//! order (`reference`) used by the convergence tests and to check the GPU kernels.

pub mod advection;
pub mod poly;
pub mod rational;
pub mod reference;
pub mod sk;
pub mod tables;

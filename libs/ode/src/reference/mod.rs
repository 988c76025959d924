//! The float64 CPU reference: every stepper, controller and the integration loop, written to mirror the `.sk`
//! kernels of `stdlib/ode/` operation for operation (the GPU tests compare against it), including the warp-wide
//! FSAL vote: runs are integrated in lockstep groups of 32 lanes, as a warp runs them.
//!
//! `system` (the right-hand side trait and the test systems), `linalg` (the small LU with the tournament pivoting
//! of the kernels), `stepper` (ERK and DIRK steps, Newton iterations), `controller` (error norm, step-size
//! controllers), `driver` (the loop: save times, landing, status bits, counters, NaN masking, the batch).

pub mod controller;
pub mod driver;
pub mod linalg;
pub mod stepper;
pub mod system;

pub use driver::{integrate, replay_batch, solve_batch, Batch, ForcedStep, FsalVote, Run, StepRecord};
pub use system::System;

//! skc-ode: batched ODE solving with the `.sk` steppers of `stdlib/ode/`.
//!
//! Layout: `method` (the methods by name), `tableau` (Butcher tableaus with exact coefficients), `order` (order
//! conditions over rooted trees, used by the tests), `config` (solver settings, defaults and their validation,
//! shared by the CPU reference and the GPU host API), `reference` (the float64 CPU reference of every stepper,
//! controller and the integration loop), `sk` (the generated `.sk` tableau and precision modules and the
//! compile-time definitions of the solver modules' parameters: method, controller, precision), `program` (a solver
//! program: a system file and its stepper, front end, CUDA C), `gpu` (the host API: compile once, solve batches on a GPU through skc-runtime), `deal` (which
//! trajectories each device of an ensemble solves: blocks dealt in turn, gather and scatter maps), `ensemble` (one
//! batch over several GPUs of a host, bit-identical to one GPU), `summaries`
//! (summary metrics computed in the loop: the chain, its generated `.sk` module, the float64 updates of the
//! reference loop and the recomputation from saved trajectories).

pub mod config;
pub mod deal;
pub mod ensemble;
pub mod gpu;
pub mod method;
pub mod order;
pub mod program;
pub mod reference;
pub mod sk;
pub mod summaries;
pub mod tableau;

pub use config::{Config, ConfigError, ControllerKind, JacobianKind, Precision, Status};
pub use method::Method;
pub use tableau::Tableau;

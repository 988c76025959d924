//! What the ODE tests that run emitted CUDA C on the host share.

// The host shim, the host form of emitted CUDA C, the C++ compiler and scratch folders are the ones every
// host-emulation test shares.
pub use skc_tests::host::{cxx_compiler, host_source, work_dir, CUDA_HOST_SHIM};

/// The solver kernel's scalar parameters after the sizes, in its order, as the host mains read them (float64
/// each; counts converted).
pub fn loop_scalars(cfg: &skc_ode::Config) -> [f64; 20] {
    let g = &cfg.gains;
    [
        cfg.t0,
        cfg.duration,
        cfg.dt,
        cfg.save_every.unwrap_or(0.0),
        cfg.dt_min,
        cfg.dt_max,
        cfg.max_steps as f64,
        cfg.atol,
        cfg.rtol,
        g.safety,
        g.k_i,
        g.k_p,
        g.k_d,
        g.min_shrink,
        g.max_growth,
        g.deadband_low,
        g.deadband_high,
        g.damping,
        cfg.newton_tol,
        cfg.max_newton as f64,
    ]
}

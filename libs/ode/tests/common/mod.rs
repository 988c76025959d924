//! What the ODE tests that run emitted CUDA C on the host share.

/// CUDA's device-side names for a host C++ compiler: one thread, one lane per warp, votes that return the
/// lane's own predicate, and host stand-ins for CUDA's fast math (within a few ulps of the device's).
pub const CUDA_HOST_SHIM: &str = r#"
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
using std::isnan; using std::isfinite;
struct dim3 { unsigned x, y, z; };
static dim3 threadIdx{0,0,0}, blockIdx{0,0,0}, blockDim{1,1,1}, gridDim{1,1,1};
#define __global__
#define __device__
#define __forceinline__ inline
#define __constant__
#define __restrict__
static int __all_sync(unsigned, int p) { return p; }
static int __any_sync(unsigned, int p) { return p; }
static unsigned __activemask() { return 1u; }
// CUDA's reciprocal square roots (the device's float one is within 2 ulps of this).
static float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static double rsqrt(double x) { return 1.0 / sqrt(x); }
// CUDA's fast float32 power and division (the device's are within a few ulps of these; glibc declares a
// __powf of its own, hence the macros).
static float skc_host_powf(float x, float y) { return exp2f(y * log2f(x)); }
static float skc_host_fdividef(float x, float y) { return x / y; }
#define __powf skc_host_powf
#define __fdividef skc_host_fdividef
"#;

/// The emitted CUDA C for the host: without `#line` directives, and with the prelude helpers that are inline PTX
/// (the hardware approximations `rcp_approx`, `exp2_approx`, `log2_approx`) replaced by the exact functions,
/// which the device's are within a few ulps of.
pub fn host_source(cuda: &str) -> String {
    const HOST: &[(&str, &str)] = &[
        ("float skc_rcp_approx(float x)", "{ return 1.0f / x; }"),
        ("double skc_rcp_approx(double x)", "{ return 1.0 / x; }"),
        ("float skc_ex2_approx(float x)", "{ return exp2f(x); }"),
        ("float skc_lg2_approx(float x)", "{ return log2f(x); }"),
    ];
    let lines: Vec<String> = cuda
        .lines()
        .filter(|l| !l.starts_with("#line"))
        .map(|l| match HOST.iter().find(|(head, _)| l.contains(head) && l.contains("asm(")) {
            Some((head, body)) => format!("static inline {head} {body}"),
            None => l.to_string(),
        })
        .collect();
    lines.join("\n")
}

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

/// A C++ compiler for the host-emulation tests, or None with a note that `what` is skipped
/// (`skc_tests::require::cxx`).
pub fn cxx_compiler(what: &str) -> Option<String> {
    skc_tests::require::cxx(what)
}

/// A per-process scratch folder `{prefix}-{pid}` under the system's temporary folder.
pub fn work_dir(prefix: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("{prefix}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

//! Running emitted CUDA C on the host: a C++ compiler (`$CXX`, `c++`, `g++` or `clang++`) builds it with a shim
//! that gives CUDA's device-side names host meanings (one thread, one lane per warp, votes that return the lane's
//! own predicate, host stand-ins for CUDA's fast math and for its float-to-integer conversions). What a kernel
//! computes then runs without a GPU: the trip counts of loops, the values of conversions, a solver's steps. The
//! ODE tests and `tests/host_emulation.rs` use it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// CUDA's device-side names for a host C++ compiler.
pub const CUDA_HOST_SHIM: &str = r#"
#include <climits>
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
// CUDA's float-to-integer conversions (PTX cvt.rzi): truncate toward zero, saturate to the range, NaN to 0.
#define SKC_HOST_TO_INT(name, from, to, lo, hi) \
  static to name(from x) { \
    if (x != x) return 0; \
    if (x <= (from)(lo)) return lo; \
    if (x >= (from)(hi)) return hi; \
    return (to)x; \
  }
SKC_HOST_TO_INT(__float2int_rz, float, int, INT_MIN, INT_MAX)
SKC_HOST_TO_INT(__double2int_rz, double, int, INT_MIN, INT_MAX)
SKC_HOST_TO_INT(__float2uint_rz, float, unsigned, 0u, UINT_MAX)
SKC_HOST_TO_INT(__double2uint_rz, double, unsigned, 0u, UINT_MAX)
SKC_HOST_TO_INT(__float2ll_rz, float, long long, LLONG_MIN, LLONG_MAX)
SKC_HOST_TO_INT(__double2ll_rz, double, long long, LLONG_MIN, LLONG_MAX)
SKC_HOST_TO_INT(__float2ull_rz, float, unsigned long long, 0ull, ULLONG_MAX)
SKC_HOST_TO_INT(__double2ull_rz, double, unsigned long long, 0ull, ULLONG_MAX)
"#;

/// The emitted CUDA C for the host: without `#line` directives; with the prelude helpers that are inline PTX
/// (the hardware approximations `rcp_approx`, `exp2_approx`, `log2_approx`) replaced by the exact functions,
/// which the device's are within a few ulps of; and with `static constexpr` constants made `static const`, since
/// a C++ compiler does not take `(1.0f / 0.0f)` (how the emitter spells an infinity, which NVRTC folds) as a
/// constant expression.
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
            None => l.replacen("static constexpr ", "static const ", 1),
        })
        .collect();
    lines.join("\n")
}

/// A C++ compiler for the host-emulation tests, or None with a note that `what` is skipped
/// ([`crate::require::cxx`]: with `SKC_REQUIRE_CXX=1` a missing compiler fails the test instead).
pub fn cxx_compiler(what: &str) -> Option<String> {
    crate::require::cxx(what)
}

/// A per-process scratch folder `{prefix}-{pid}` under the system's temporary folder.
pub fn work_dir(prefix: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("{prefix}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Compiles `source` (a whole C++ program) as `dir/name` and runs it; its standard output, or why it failed.
pub fn compile_and_run(cxx: &str, dir: &Path, name: &str, source: &str) -> Result<String, String> {
    let cpp = dir.join(format!("{name}.cpp"));
    std::fs::write(&cpp, source).map_err(|e| e.to_string())?;
    let exe = dir.join(name);
    let built = Command::new(cxx).args(["-O1", "-w", "-o"]).arg(&exe).arg(&cpp).output().map_err(|e| e.to_string())?;
    if !built.status.success() {
        return Err(format!("{name}: {}", String::from_utf8_lossy(&built.stderr)));
    }
    let result = run_with_timeout(&exe, RUN_TIMEOUT).map_err(|why| format!("{name}: {why}"));
    // Removed once run, so repeated test runs do not fill the temporary folder.
    let _ = (std::fs::remove_file(&exe), std::fs::remove_file(&cpp));
    result
}

/// How long a compiled test program may run: loops that never end (the failure some tests look for) must fail,
/// not hang.
const RUN_TIMEOUT: Duration = Duration::from_secs(30);

fn run_with_timeout(exe: &Path, timeout: Duration) -> Result<String, String> {
    let mut child =
        Command::new(exe).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().map_err(|e| e.to_string())?;
    // Read while it runs: a full pipe would stop it.
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            if let Some(mut pipe) = pipe {
                pipe.read_to_end(&mut text).ok();
            }
            String::from_utf8_lossy(&text).into_owned()
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    let started = Instant::now();
    let status = loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(status) => break status,
            None if started.elapsed() > timeout => {
                child.kill().ok();
                child.wait().ok();
                return Err(format!("still running after {} s: killed", timeout.as_secs()));
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    let (stdout, stderr) = (stdout.join().unwrap_or_default(), stderr.join().unwrap_or_default());
    if !status.success() {
        return Err(format!("failed ({status}): {stderr}"));
    }
    Ok(stdout)
}

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

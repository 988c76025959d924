// CUDA built-ins for running emitted CUDA C on the host, one thread at a time (no barriers may matter: only
// kernels whose shared memory is unused qualify; each lane is its own warp).
#include <cmath>
#include <cstring>
using std::isnan; using std::isfinite;
struct dim3 { unsigned x, y, z; };
static dim3 threadIdx{0,0,0}, blockIdx{0,0,0}, blockDim{1,1,1}, gridDim{1,1,1};
#define __global__
#define __device__
#define __forceinline__ inline
#define __constant__
#define __restrict__
#define __shared__
static void __syncthreads() {}
static int __all_sync(unsigned, int p) { return p; }
static int __any_sync(unsigned, int p) { return p; }
static double rsqrt(double x) { return 1 / sqrt(x); }
static float rsqrtf(float x) { return 1 / sqrtf(x); }
// rcp.approx stand-ins: float32 the rounded reciprocal; float64 the reciprocal cut to its top 20 mantissa bits,
// a seed no better than the hardware's, so that the Newton step is exercised.
static float skc_rcp_approx_host(float x) { return (float)(1.0 / (double)x); }
static double skc_rcp_approx_host(double x) {
  double r = 1.0 / x;
  unsigned long long b;
  memcpy(&b, &r, 8);
  b &= ~0xffffffffULL;
  memcpy(&r, &b, 8);
  return r;
}

//! The helper functions the builtin templates call (`skc_lane_id()`, `skc_warp_mask()`, `skc_min`...). Only the
//! helpers the emitted code uses are printed, with the helpers they need, in a fixed order; of an overloaded
//! helper (`skc_min`), only the overloads called.

use std::collections::BTreeSet;

struct Helper {
    name: &'static str,
    needs: &'static [&'static str],
    /// The definition; for overloaded helpers (`skc_min`), one line per overload, each naming its C type in its
    /// parameter list, so that only the overloads the code calls are printed.
    code: &'static str,
}

const HELPERS: &[Helper] = &[
    Helper {
        name: "skc_thread_rank",
        needs: &[],
        code: "\
// Linear index of the calling thread in its block (x fastest), as the hardware numbers threads into warps.
__device__ __forceinline__ int skc_thread_rank() {
  return (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}",
    },
    Helper {
        name: "skc_globaltimer",
        needs: &[],
        code: "\
// The global nanosecond timer; `volatile` keeps two readings from being merged or moved.
__device__ __forceinline__ unsigned long long skc_globaltimer() {
  unsigned long long t;
  asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));
  return t;
}",
    },
    Helper {
        name: "skc_grid_dependency_sync",
        needs: &[],
        code: "\
// Programmatic dependent launch (sm_90 and later; before, a dependent launch waits for the whole previous grid):
// wait for the grid this one depends on, and let the next grid start early.
__device__ __forceinline__ void skc_grid_dependency_sync() {
#if __CUDA_ARCH__ >= 900
  asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");
#endif
}",
    },
    Helper {
        name: "skc_trigger_dependent_launch",
        needs: &[],
        code: "\
__device__ __forceinline__ void skc_trigger_dependent_launch() {
#if __CUDA_ARCH__ >= 900
  asm volatile(\"griddepcontrol.launch_dependents;\" ::: \"memory\");
#endif
}",
    },
    Helper {
        name: "skc_lane_id",
        needs: &["skc_thread_rank"],
        code: "\
// Index of the calling thread in its warp (0..31).
__device__ __forceinline__ int skc_lane_id() {
  return skc_thread_rank() & 31;
}",
    },
    Helper {
        name: "skc_warp_id",
        needs: &["skc_thread_rank"],
        code: "\
// Index of the calling thread's warp in its block.
__device__ __forceinline__ int skc_warp_id() {
  return skc_thread_rank() / 32;
}",
    },
    Helper {
        name: "skc_global_thread_id",
        needs: &["skc_thread_rank"],
        code: "\
// Linear index of the calling thread in the whole grid (x fastest).
__device__ __forceinline__ int skc_global_thread_id() {
  const int block = (int)(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
  const int threads_per_block = (int)(blockDim.x * blockDim.y * blockDim.z);
  return block * threads_per_block + skc_thread_rank();
}",
    },
    Helper {
        name: "skc_warp_mask",
        needs: &["skc_thread_rank"],
        code: "\
// The lanes of the calling thread's warp that exist in the block: all 32, except in the last warp of a block
// whose thread count is not a multiple of 32. The convergence analysis proved that every warp collective is
// reached in warp-uniform control flow, so every existing lane of the warp executes the collective together:
// this mask is exact (it names no absent lane, as __activemask() could under divergence, and omits none).
__device__ __forceinline__ unsigned int skc_warp_mask() {
  const int threads = (int)(blockDim.x * blockDim.y * blockDim.z);
  const int lanes = threads - (skc_thread_rank() & ~31);
  return lanes >= 32 ? 0xFFFFFFFFu : ((1u << lanes) - 1u);
}",
    },
    Helper {
        name: "skc_abs",
        needs: &[],
        code: "\
__device__ __forceinline__ int skc_abs(int x) { return x < 0 ? -x : x; }
__device__ __forceinline__ long long skc_abs(long long x) { return x < 0 ? -x : x; }
__device__ __forceinline__ unsigned int skc_abs(unsigned int x) { return x; }
__device__ __forceinline__ unsigned long long skc_abs(unsigned long long x) { return x; }
__device__ __forceinline__ float skc_abs(float x) { return fabsf(x); }
__device__ __forceinline__ double skc_abs(double x) { return fabs(x); }",
    },
    Helper {
        name: "skc_min",
        needs: &[],
        code: "\
__device__ __forceinline__ int skc_min(int a, int b) { return a < b ? a : b; }
__device__ __forceinline__ long long skc_min(long long a, long long b) { return a < b ? a : b; }
__device__ __forceinline__ unsigned int skc_min(unsigned int a, unsigned int b) { return a < b ? a : b; }
__device__ __forceinline__ unsigned long long skc_min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
__device__ __forceinline__ float skc_min(float a, float b) { return fminf(a, b); }
__device__ __forceinline__ double skc_min(double a, double b) { return fmin(a, b); }",
    },
    Helper {
        name: "skc_max",
        needs: &[],
        code: "\
__device__ __forceinline__ int skc_max(int a, int b) { return a > b ? a : b; }
__device__ __forceinline__ long long skc_max(long long a, long long b) { return a > b ? a : b; }
__device__ __forceinline__ unsigned int skc_max(unsigned int a, unsigned int b) { return a > b ? a : b; }
__device__ __forceinline__ unsigned long long skc_max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
__device__ __forceinline__ float skc_max(float a, float b) { return fmaxf(a, b); }
__device__ __forceinline__ double skc_max(double a, double b) { return fmax(a, b); }",
    },
    Helper {
        name: "skc_ipow",
        needs: &[],
        // `pow` on integers (crate::integer_power): by squaring, in unsigned arithmetic (signed overflow is
        // undefined in the language; this wraps); a negative exponent gives the truncation of 1 / base^-exponent.
        code: "\
__device__ __forceinline__ int skc_ipow(int a, int b) { if (b < 0) return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0; unsigned int r = 1u, s = (unsigned int)a; for (unsigned int e = (unsigned int)b; e != 0u; e >>= 1) { if (e & 1u) r *= s; s *= s; } return (int)r; }
__device__ __forceinline__ long long skc_ipow(long long a, long long b) { if (b < 0) return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0; unsigned long long r = 1ull, s = (unsigned long long)a; for (unsigned long long e = (unsigned long long)b; e != 0ull; e >>= 1) { if (e & 1ull) r *= s; s *= s; } return (long long)r; }
__device__ __forceinline__ unsigned int skc_ipow(unsigned int a, unsigned int b) { unsigned int r = 1u; for (; b != 0u; b >>= 1) { if (b & 1u) r *= a; a *= a; } return r; }
__device__ __forceinline__ unsigned long long skc_ipow(unsigned long long a, unsigned long long b) { unsigned long long r = 1ull; for (; b != 0ull; b >>= 1) { if (b & 1ull) r *= a; a *= a; } return r; }",
    },
    Helper {
        name: "skc_rcp_approx",
        needs: &[],
        code: "\
__device__ __forceinline__ float skc_rcp_approx(float x) { float r; asm(\"rcp.approx.ftz.f32 %0, %1;\" : \"=f\"(r) : \"f\"(x)); return r; }
__device__ __forceinline__ double skc_rcp_approx(double x) { double r; asm(\"rcp.approx.ftz.f64 %0, %1;\" : \"=d\"(r) : \"d\"(x)); return r; }",
    },
    Helper {
        name: "skc_ex2_approx",
        needs: &[],
        code: "\
__device__ __forceinline__ float skc_ex2_approx(float x) { float r; asm(\"ex2.approx.ftz.f32 %0, %1;\" : \"=f\"(r) : \"f\"(x)); return r; }",
    },
    Helper {
        name: "skc_lg2_approx",
        needs: &[],
        code: "\
__device__ __forceinline__ float skc_lg2_approx(float x) { float r; asm(\"lg2.approx.ftz.f32 %0, %1;\" : \"=f\"(r) : \"f\"(x)); return r; }",
    },
    Helper {
        name: "skc_uniform_load",
        needs: &[],
        code: "\
// a[i], read between two block barriers: every thread of the block gets the same value (the first barrier
// orders earlier writes before the read, the second keeps later writes after every thread has read).
template <typename T>
__device__ __forceinline__ T skc_uniform_load(const T* a, int i) {
  __syncthreads();
  const T value = a[i];
  __syncthreads();
  return value;
}",
    },
    Helper {
        name: "skc_atomic_add",
        needs: &[],
        code: "\
__device__ __forceinline__ int skc_atomic_add(int* p, int v) { return atomicAdd(p, v); }
__device__ __forceinline__ unsigned int skc_atomic_add(unsigned int* p, unsigned int v) { return atomicAdd(p, v); }
__device__ __forceinline__ long long skc_atomic_add(long long* p, long long v) { return (long long)atomicAdd((unsigned long long*)p, (unsigned long long)v); }
__device__ __forceinline__ unsigned long long skc_atomic_add(unsigned long long* p, unsigned long long v) { return atomicAdd(p, v); }
__device__ __forceinline__ float skc_atomic_add(float* p, float v) { return atomicAdd(p, v); }
__device__ __forceinline__ double skc_atomic_add(double* p, double v) { return atomicAdd(p, v); }
__device__ __forceinline__ skc_float16 skc_atomic_add(skc_float16* p, skc_float16 v) { skc_float16 old; asm volatile(\"atom.add.noftz.f16 %0, [%1], %2;\" : \"=h\"(old.bits) : \"l\"(p), \"h\"(v.bits) : \"memory\"); return old; }
__device__ __forceinline__ skc_bfloat16 skc_atomic_add(skc_bfloat16* p, skc_bfloat16 v) { skc_bfloat16 old; asm volatile(\"atom.add.noftz.bf16 %0, [%1], %2;\" : \"=h\"(old.bits) : \"l\"(p), \"h\"(v.bits) : \"memory\"); return old; }
__device__ __forceinline__ skc_float16x2 skc_atomic_add(skc_float16x2* p, skc_float16x2 v) { unsigned int old; asm volatile(\"atom.add.noftz.f16x2 %0, [%1], %2;\" : \"=r\"(old) : \"l\"(p), \"r\"(skc_float16x2_bits(v)) : \"memory\"); return skc_float16x2_of_bits(old); }
__device__ __forceinline__ skc_bfloat16x2 skc_atomic_add(skc_bfloat16x2* p, skc_bfloat16x2 v) { unsigned int old; asm volatile(\"atom.add.noftz.bf16x2 %0, [%1], %2;\" : \"=r\"(old) : \"l\"(p), \"r\"(skc_bfloat16x2_bits(v)) : \"memory\"); return skc_bfloat16x2_of_bits(old); }",
    },
    Helper {
        name: "skc_atomic_sub",
        needs: &[],
        code: "\
__device__ __forceinline__ int skc_atomic_sub(int* p, int v) { return atomicSub(p, v); }
__device__ __forceinline__ unsigned int skc_atomic_sub(unsigned int* p, unsigned int v) { return atomicSub(p, v); }
__device__ __forceinline__ long long skc_atomic_sub(long long* p, long long v) { return (long long)atomicAdd((unsigned long long*)p, 0ull - (unsigned long long)v); }
__device__ __forceinline__ unsigned long long skc_atomic_sub(unsigned long long* p, unsigned long long v) { return atomicAdd(p, 0ull - v); }",
    },
    Helper {
        name: "skc_atomic_exch",
        needs: &[],
        code: "\
__device__ __forceinline__ int skc_atomic_exch(int* p, int v) { return atomicExch(p, v); }
__device__ __forceinline__ unsigned int skc_atomic_exch(unsigned int* p, unsigned int v) { return atomicExch(p, v); }
__device__ __forceinline__ long long skc_atomic_exch(long long* p, long long v) { return (long long)atomicExch((unsigned long long*)p, (unsigned long long)v); }
__device__ __forceinline__ unsigned long long skc_atomic_exch(unsigned long long* p, unsigned long long v) { return atomicExch(p, v); }
__device__ __forceinline__ float skc_atomic_exch(float* p, float v) { return atomicExch(p, v); }
__device__ __forceinline__ double skc_atomic_exch(double* p, double v) { return __longlong_as_double((long long)atomicExch((unsigned long long*)p, (unsigned long long)__double_as_longlong(v))); }",
    },
    Helper {
        name: "skc_atomic_cas",
        needs: &[],
        code: "\
__device__ __forceinline__ int skc_atomic_cas(int* p, int expected, int v) { return atomicCAS(p, expected, v); }
__device__ __forceinline__ unsigned int skc_atomic_cas(unsigned int* p, unsigned int expected, unsigned int v) { return atomicCAS(p, expected, v); }
__device__ __forceinline__ long long skc_atomic_cas(long long* p, long long expected, long long v) { return (long long)atomicCAS((unsigned long long*)p, (unsigned long long)expected, (unsigned long long)v); }
__device__ __forceinline__ unsigned long long skc_atomic_cas(unsigned long long* p, unsigned long long expected, unsigned long long v) { return atomicCAS(p, expected, v); }",
    },
    Helper {
        name: "skc_atomic_and",
        needs: &[],
        code: "\
__device__ __forceinline__ int skc_atomic_and(int* p, int v) { return atomicAnd(p, v); }
__device__ __forceinline__ unsigned int skc_atomic_and(unsigned int* p, unsigned int v) { return atomicAnd(p, v); }
__device__ __forceinline__ long long skc_atomic_and(long long* p, long long v) { return (long long)atomicAnd((unsigned long long*)p, (unsigned long long)v); }
__device__ __forceinline__ unsigned long long skc_atomic_and(unsigned long long* p, unsigned long long v) { return atomicAnd(p, v); }",
    },
    Helper {
        name: "skc_atomic_or",
        needs: &[],
        code: "\
__device__ __forceinline__ int skc_atomic_or(int* p, int v) { return atomicOr(p, v); }
__device__ __forceinline__ unsigned int skc_atomic_or(unsigned int* p, unsigned int v) { return atomicOr(p, v); }
__device__ __forceinline__ long long skc_atomic_or(long long* p, long long v) { return (long long)atomicOr((unsigned long long*)p, (unsigned long long)v); }
__device__ __forceinline__ unsigned long long skc_atomic_or(unsigned long long* p, unsigned long long v) { return atomicOr(p, v); }",
    },
    Helper {
        name: "skc_warp_reduce_and",
        needs: &["skc_warp_mask"],
        code: "\
__device__ __forceinline__ int skc_warp_reduce_and(int v) { return (int)__reduce_and_sync(skc_warp_mask(), (unsigned int)v); }
__device__ __forceinline__ unsigned int skc_warp_reduce_and(unsigned int v) { return __reduce_and_sync(skc_warp_mask(), v); }",
    },
    Helper {
        name: "skc_warp_reduce_or",
        needs: &["skc_warp_mask"],
        code: "\
__device__ __forceinline__ int skc_warp_reduce_or(int v) { return (int)__reduce_or_sync(skc_warp_mask(), (unsigned int)v); }
__device__ __forceinline__ unsigned int skc_warp_reduce_or(unsigned int v) { return __reduce_or_sync(skc_warp_mask(), v); }",
    },
    Helper {
        name: "skc_warp_reduce_xor",
        needs: &["skc_warp_mask"],
        code: "\
__device__ __forceinline__ int skc_warp_reduce_xor(int v) { return (int)__reduce_xor_sync(skc_warp_mask(), (unsigned int)v); }
__device__ __forceinline__ unsigned int skc_warp_reduce_xor(unsigned int v) { return __reduce_xor_sync(skc_warp_mask(), v); }",
    },
    Helper {
        name: "skc_assert",
        needs: &[],
        code: "\
// `assert c`: CUDA's failed assertion (what <assert.h>'s `assert` calls), which prints the condition, the .sk
// file and line, the block and the thread, and ends the launch with cudaErrorAssert.
__device__ __forceinline__ void skc_assert(bool holds, const char* condition, const char* file, int line) {
  if (!holds) __assertfail(condition, file, (unsigned int)line, \"\", 1);
}",
    },
    Helper {
        name: "skc_atomic_min_float",
        needs: &[],
        code: "\
// CUDA has no float atomicMin: a compare-and-swap loop on the element's bits. `v` is written only while it is
// below the element, so a NaN on either side never replaces it and -0.0 and +0.0 compare equal. The old value.
__device__ __forceinline__ float skc_atomic_min_float(float* p, float v) {
  unsigned int* bits = (unsigned int*)p;
  unsigned int old = *(volatile unsigned int*)bits;
  while (v < __uint_as_float(old)) {
    const unsigned int seen = atomicCAS(bits, old, __float_as_uint(v));
    if (seen == old) break;
    old = seen;
  }
  return __uint_as_float(old);
}
__device__ __forceinline__ double skc_atomic_min_float(double* p, double v) {
  unsigned long long* bits = (unsigned long long*)p;
  unsigned long long old = *(volatile unsigned long long*)bits;
  while (v < __longlong_as_double((long long)old)) {
    const unsigned long long seen = atomicCAS(bits, old, (unsigned long long)__double_as_longlong(v));
    if (seen == old) break;
    old = seen;
  }
  return __longlong_as_double((long long)old);
}",
    },
    Helper {
        name: "skc_atomic_max_float",
        needs: &[],
        code: "\
// CUDA has no float atomicMax: a compare-and-swap loop on the element's bits. `v` is written only while it is
// above the element, so a NaN on either side never replaces it and -0.0 and +0.0 compare equal. The old value.
__device__ __forceinline__ float skc_atomic_max_float(float* p, float v) {
  unsigned int* bits = (unsigned int*)p;
  unsigned int old = *(volatile unsigned int*)bits;
  while (v > __uint_as_float(old)) {
    const unsigned int seen = atomicCAS(bits, old, __float_as_uint(v));
    if (seen == old) break;
    old = seen;
  }
  return __uint_as_float(old);
}
__device__ __forceinline__ double skc_atomic_max_float(double* p, double v) {
  unsigned long long* bits = (unsigned long long*)p;
  unsigned long long old = *(volatile unsigned long long*)bits;
  while (v > __longlong_as_double((long long)old)) {
    const unsigned long long seen = atomicCAS(bits, old, (unsigned long long)__double_as_longlong(v));
    if (seen == old) break;
    old = seen;
  }
  return __longlong_as_double((long long)old);
}",
    },
    Helper {
        name: "skc_atomic_xor",
        needs: &[],
        code: "\
__device__ __forceinline__ int skc_atomic_xor(int* p, int v) { return atomicXor(p, v); }
__device__ __forceinline__ unsigned int skc_atomic_xor(unsigned int* p, unsigned int v) { return atomicXor(p, v); }
__device__ __forceinline__ long long skc_atomic_xor(long long* p, long long v) { return (long long)atomicXor((unsigned long long*)p, (unsigned long long)v); }
__device__ __forceinline__ unsigned long long skc_atomic_xor(unsigned long long* p, unsigned long long v) { return atomicXor(p, v); }",
    },
    Helper {
        name: "skc_rmw_word",
        needs: &[],
        code: "\
// The types the ordered-atomic helpers hand to CUDA's __nv_atomic_* built-ins: a signed 64-bit add goes through
// unsigned long long (the built-in rejects it; two's complement makes the bits the same). `skc_same` keeps a
// value parameter out of template deduction, so `1` passed for a `long long` element is converted, not a clash.
template <typename T> struct skc_rmw_word { typedef T type; };
template <> struct skc_rmw_word<long long> { typedef unsigned long long type; };
template <typename T> struct skc_same { typedef T type; };",
    },
    Helper {
        name: "skc_atomic_load_ordered",
        needs: &["skc_rmw_word"],
        code: "\
// An atomic load with a memory order and a scope (CUDA 12.8+ built-in; O and S stay literal constants, as it
// requires). The element may be const (a vector the kernel never writes): the built-in only takes a plain pointer.
template <int O, int S, typename T>
__device__ __forceinline__ T skc_atomic_load_ordered(const T* p) {
  return __nv_atomic_load_n(const_cast<T*>(p), O, S);
}",
    },
    Helper {
        name: "skc_atomic_store_ordered",
        needs: &["skc_rmw_word"],
        code: "\
template <int O, int S, typename T>
__device__ __forceinline__ void skc_atomic_store_ordered(T* p, typename skc_same<T>::type v) {
  __nv_atomic_store_n(p, v, O, S);
}",
    },
    Helper {
        name: "skc_atomic_add_ordered",
        needs: &["skc_rmw_word"],
        code: "\
template <int O, int S, typename T>
__device__ __forceinline__ T skc_atomic_add_ordered(T* p, typename skc_same<T>::type v) {
  typedef typename skc_rmw_word<T>::type W;
  return (T)__nv_atomic_fetch_add((W*)p, (W)v, O, S);
}",
    },
    Helper {
        name: "skc_atomic_exch_ordered",
        needs: &["skc_rmw_word"],
        code: "\
template <int O, int S, typename T>
__device__ __forceinline__ T skc_atomic_exch_ordered(T* p, typename skc_same<T>::type v) {
  return __nv_atomic_exchange_n(p, v, O, S);
}",
    },
    Helper {
        name: "skc_atomic_cas_ordered",
        needs: &["skc_rmw_word"],
        code: "\
// Compare-and-swap with the success order O and failure order F; returns the old value (equal to `expected`
// iff the swap happened).
template <int O, int F, int S, typename T>
__device__ __forceinline__ T skc_atomic_cas_ordered(T* p, typename skc_same<T>::type expected,
                                                    typename skc_same<T>::type desired) {
  T old = expected;
  __nv_atomic_compare_exchange_n(p, &old, desired, false, O, F, S);
  return old;
}",
    },
    Helper {
        name: "skc_named_barrier",
        needs: &[],
        code: "\
// PTX named barrier `id` for `count` threads (a multiple of 32). The convergence analysis proved the whole warp
// reaches it with the same id and count; `memory` keeps memory accesses on their side of it.
__device__ __forceinline__ void skc_named_barrier(int id, int count) {
  asm volatile(\"bar.sync %0, %1;\" :: \"r\"(id), \"r\"(count) : \"memory\");
}",
    },
    Helper {
        name: "skc_named_barrier_arrive",
        needs: &[],
        code: "\
// Arrives at named barrier `id` (counted towards `count` threads) without waiting.
__device__ __forceinline__ void skc_named_barrier_arrive(int id, int count) {
  asm volatile(\"bar.arrive %0, %1;\" :: \"r\"(id), \"r\"(count) : \"memory\");
}",
    },
    Helper {
        name: "skc_launch_status",
        needs: &[],
        code: "\
// The status of the device-side launch just made by this thread: 0 (cudaSuccess) or the cudaError_t code
// (the launch's own error: cudaGetLastError reads and clears this thread's last error).
__device__ __forceinline__ int skc_launch_status() {
  return (int)cudaGetLastError();
}",
    },
];

const HALF_HELPERS: &[Helper] = &[
    Helper {
        name: "skc_round_to_odd",
        needs: &[],
        // A 16-bit float from a wider value rounds once: the value is first rounded to odd (toward zero, the last
        // bit set when inexact) in float64 and then float32, and rounding that to nearest at 11 or 8 bits is the
        // value's correct rounding (round to odd at p bits, then to nearest at q <= p - 2 bits, rounds once).
        code: "\
// x rounded to odd in float32 (toward zero; the last bit set when inexact).
__device__ __forceinline__ float skc_round_to_odd(double x) {
  const float toward_zero = __double2float_rz(x);
  return (double)toward_zero == x || x != x ? toward_zero : __int_as_float(__float_as_int(toward_zero) | 1);
}
// x rounded to odd in float64.
__device__ __forceinline__ double skc_round_to_odd(long long x) {
  const double toward_zero = __ll2double_rz(x);
  return (long long)toward_zero == x ? toward_zero : __longlong_as_double(__double_as_longlong(toward_zero) | 1);
}
__device__ __forceinline__ double skc_round_to_odd(unsigned long long x) {
  const double toward_zero = __ull2double_rz(x);
  return (unsigned long long)toward_zero == x ? toward_zero : __longlong_as_double(__double_as_longlong(toward_zero) | 1);
}",
    },
    Helper {
        name: "skc_half_min",
        needs: &[],
        code: "\
// min and max of 16-bit floats (exact in float32): a NaN operand is ignored (two NaNs give the canonical NaN 0x7FFF),
// and -0 is below +0.
template <typename H> __device__ __forceinline__ H skc_half_min(H a, H b) {
  const float x = (float)a, y = (float)b;
  if (x != x) return y != y ? H{0x7FFF} : b;
  if (y != y) return a;
  if (x != y) return x < y ? a : b;
  return H{(unsigned short)(a.bits | b.bits)};
}
template <typename H> __device__ __forceinline__ H skc_half_max(H a, H b) {
  const float x = (float)a, y = (float)b;
  if (x != x) return y != y ? H{0x7FFF} : b;
  if (y != y) return a;
  if (x != y) return x > y ? a : b;
  return H{(unsigned short)(a.bits & b.bits)};
}",
    },
    Helper {
        name: "skc_float16",
        needs: &["skc_round_to_odd", "skc_half_min"],
        code: "\
// float16 (IEEE binary16), kept as its bits, with skc's arithmetic in PTX (no cuda_fp16.h): every operation rounds
// once, to nearest even; subnormals are kept; a conversion that makes a NaN makes 0x7FFF.
struct __align__(2) skc_float16 {
  unsigned short bits;
  // Exact; a NaN becomes float32's canonical NaN.
  __device__ explicit operator float() const {
    float f;
    asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(bits));
    return f != f ? __int_as_float(0x7FFFFFFF) : f;
  }
};
__device__ __forceinline__ skc_float16 skc_to_float16(float x) {
  skc_float16 h;
  asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h.bits) : \"f\"(x));
  return x != x ? skc_float16{0x7FFF} : h;
}
__device__ __forceinline__ skc_float16 skc_to_float16(double x) { return skc_to_float16(skc_round_to_odd(x)); }
__device__ __forceinline__ skc_float16 skc_to_float16(int x) { return skc_to_float16((double)x); }
__device__ __forceinline__ skc_float16 skc_to_float16(unsigned int x) { return skc_to_float16((double)x); }
__device__ __forceinline__ skc_float16 skc_to_float16(long long x) { return skc_to_float16(skc_round_to_odd(x)); }
__device__ __forceinline__ skc_float16 skc_to_float16(unsigned long long x) { return skc_to_float16(skc_round_to_odd(x)); }
__device__ __forceinline__ skc_float16 operator+(skc_float16 a, skc_float16 b) {
  skc_float16 r;
  asm(\"add.rn.f16 %0, %1, %2;\" : \"=h\"(r.bits) : \"h\"(a.bits), \"h\"(b.bits));
  return r;
}
__device__ __forceinline__ skc_float16 operator-(skc_float16 a, skc_float16 b) {
  skc_float16 r;
  asm(\"sub.rn.f16 %0, %1, %2;\" : \"=h\"(r.bits) : \"h\"(a.bits), \"h\"(b.bits));
  return r;
}
__device__ __forceinline__ skc_float16 operator*(skc_float16 a, skc_float16 b) {
  skc_float16 r;
  asm(\"mul.rn.f16 %0, %1, %2;\" : \"=h\"(r.bits) : \"h\"(a.bits), \"h\"(b.bits));
  return r;
}
// PTX has no f16 division: the float32 quotient (div.rn.f32) rounded once more is the correctly rounded quotient.
__device__ __forceinline__ skc_float16 operator/(skc_float16 a, skc_float16 b) {
  return skc_to_float16(__fdiv_rn((float)a, (float)b));
}
__device__ __forceinline__ skc_float16 skc_fma(skc_float16 a, skc_float16 b, skc_float16 c) {
  skc_float16 r;
  asm(\"fma.rn.f16 %0, %1, %2, %3;\" : \"=h\"(r.bits) : \"h\"(a.bits), \"h\"(b.bits), \"h\"(c.bits));
  return r;
}
__device__ __forceinline__ skc_float16 operator-(skc_float16 a) { return skc_float16{(unsigned short)(a.bits ^ 0x8000)}; }
__device__ __forceinline__ bool operator==(skc_float16 a, skc_float16 b) { return (float)a == (float)b; }
__device__ __forceinline__ bool operator!=(skc_float16 a, skc_float16 b) { return (float)a != (float)b; }
__device__ __forceinline__ bool operator<(skc_float16 a, skc_float16 b) { return (float)a < (float)b; }
__device__ __forceinline__ bool operator<=(skc_float16 a, skc_float16 b) { return (float)a <= (float)b; }
__device__ __forceinline__ bool operator>(skc_float16 a, skc_float16 b) { return (float)a > (float)b; }
__device__ __forceinline__ bool operator>=(skc_float16 a, skc_float16 b) { return (float)a >= (float)b; }
__device__ __forceinline__ skc_float16 skc_abs(skc_float16 a) { return skc_float16{(unsigned short)(a.bits & 0x7FFF)}; }
__device__ __forceinline__ skc_float16 skc_min(skc_float16 a, skc_float16 b) { return skc_half_min(a, b); }
__device__ __forceinline__ skc_float16 skc_max(skc_float16 a, skc_float16 b) { return skc_half_max(a, b); }",
    },
    Helper {
        name: "skc_bfloat16",
        needs: &["skc_round_to_odd", "skc_half_min"],
        // sm_80's fma.rn.bf16 rounds once; with 1.0 or -0.0 as an operand it is an exact add, sub or mul.
        code: "\
// bfloat16 (float32's upper 16 bits), kept as its bits, with skc's arithmetic in PTX (sm_80 and newer; no
// cuda_bf16.h): every operation rounds once, to nearest even; subnormals are kept; a conversion that makes a NaN
// makes 0x7FFF.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error \"bfloat16 needs sm_80 or newer\"
#endif
struct __align__(2) skc_bfloat16 {
  unsigned short bits;
  // Exact; a NaN becomes float32's canonical NaN.
  __device__ explicit operator float() const {
    const float f = __uint_as_float((unsigned int)bits << 16);
    return f != f ? __int_as_float(0x7FFFFFFF) : f;
  }
};
__device__ __forceinline__ skc_bfloat16 skc_to_bfloat16(float x) {
  skc_bfloat16 h;
  asm(\"cvt.rn.bf16.f32 %0, %1;\" : \"=h\"(h.bits) : \"f\"(x));
  return x != x ? skc_bfloat16{0x7FFF} : h;
}
__device__ __forceinline__ skc_bfloat16 skc_to_bfloat16(double x) { return skc_to_bfloat16(skc_round_to_odd(x)); }
__device__ __forceinline__ skc_bfloat16 skc_to_bfloat16(int x) { return skc_to_bfloat16(skc_round_to_odd((double)x)); }
__device__ __forceinline__ skc_bfloat16 skc_to_bfloat16(unsigned int x) { return skc_to_bfloat16(skc_round_to_odd((double)x)); }
__device__ __forceinline__ skc_bfloat16 skc_to_bfloat16(long long x) { return skc_to_bfloat16(skc_round_to_odd(skc_round_to_odd(x))); }
__device__ __forceinline__ skc_bfloat16 skc_to_bfloat16(unsigned long long x) { return skc_to_bfloat16(skc_round_to_odd(skc_round_to_odd(x))); }
__device__ __forceinline__ skc_bfloat16 skc_fma(skc_bfloat16 a, skc_bfloat16 b, skc_bfloat16 c) {
  skc_bfloat16 r;
  asm(\"fma.rn.bf16 %0, %1, %2, %3;\" : \"=h\"(r.bits) : \"h\"(a.bits), \"h\"(b.bits), \"h\"(c.bits));
  return r;
}
__device__ __forceinline__ skc_bfloat16 operator+(skc_bfloat16 a, skc_bfloat16 b) { return skc_fma(a, skc_bfloat16{0x3F80}, b); }
__device__ __forceinline__ skc_bfloat16 operator-(skc_bfloat16 a, skc_bfloat16 b) { return skc_fma(b, skc_bfloat16{0xBF80}, a); }
__device__ __forceinline__ skc_bfloat16 operator*(skc_bfloat16 a, skc_bfloat16 b) { return skc_fma(a, b, skc_bfloat16{0x8000}); }
// PTX has no bf16 division: the float32 quotient (div.rn.f32) rounded once more is the correctly rounded quotient.
__device__ __forceinline__ skc_bfloat16 operator/(skc_bfloat16 a, skc_bfloat16 b) {
  return skc_to_bfloat16(__fdiv_rn((float)a, (float)b));
}
__device__ __forceinline__ skc_bfloat16 operator-(skc_bfloat16 a) { return skc_bfloat16{(unsigned short)(a.bits ^ 0x8000)}; }
__device__ __forceinline__ bool operator==(skc_bfloat16 a, skc_bfloat16 b) { return (float)a == (float)b; }
__device__ __forceinline__ bool operator!=(skc_bfloat16 a, skc_bfloat16 b) { return (float)a != (float)b; }
__device__ __forceinline__ bool operator<(skc_bfloat16 a, skc_bfloat16 b) { return (float)a < (float)b; }
__device__ __forceinline__ bool operator<=(skc_bfloat16 a, skc_bfloat16 b) { return (float)a <= (float)b; }
__device__ __forceinline__ bool operator>(skc_bfloat16 a, skc_bfloat16 b) { return (float)a > (float)b; }
__device__ __forceinline__ bool operator>=(skc_bfloat16 a, skc_bfloat16 b) { return (float)a >= (float)b; }
__device__ __forceinline__ skc_bfloat16 skc_abs(skc_bfloat16 a) { return skc_bfloat16{(unsigned short)(a.bits & 0x7FFF)}; }
__device__ __forceinline__ skc_bfloat16 skc_min(skc_bfloat16 a, skc_bfloat16 b) { return skc_half_min(a, b); }
__device__ __forceinline__ skc_bfloat16 skc_max(skc_bfloat16 a, skc_bfloat16 b) { return skc_half_max(a, b); }",
    },
    Helper {
        name: "skc_float16x2",
        needs: &["skc_float16"],
        code: "\
// float16x2: two float16 in one 32-bit register (x in the low half), aligned to 4 bytes so that one instruction
// loads or stores it. + - * and fma are PTX's f16x2 instructions, / the scalar division on each lane: each lane
// rounded once, as the scalar operation.
struct __align__(4) skc_float16x2 {
  skc_float16 x, y;
};
__device__ __forceinline__ skc_float16x2 skc_float16x2_make(skc_float16 x, skc_float16 y) { return skc_float16x2{x, y}; }
__device__ __forceinline__ unsigned int skc_float16x2_bits(skc_float16x2 v) { return (unsigned int)v.x.bits | ((unsigned int)v.y.bits << 16); }
__device__ __forceinline__ skc_float16x2 skc_float16x2_of_bits(unsigned int r) {
  return skc_float16x2{skc_float16{(unsigned short)(r & 0xFFFF)}, skc_float16{(unsigned short)(r >> 16)}};
}
__device__ __forceinline__ skc_float16x2 operator+(skc_float16x2 a, skc_float16x2 b) {
  unsigned int r;
  asm(\"add.rn.f16x2 %0, %1, %2;\" : \"=r\"(r) : \"r\"(skc_float16x2_bits(a)), \"r\"(skc_float16x2_bits(b)));
  return skc_float16x2_of_bits(r);
}
__device__ __forceinline__ skc_float16x2 operator-(skc_float16x2 a, skc_float16x2 b) {
  unsigned int r;
  asm(\"sub.rn.f16x2 %0, %1, %2;\" : \"=r\"(r) : \"r\"(skc_float16x2_bits(a)), \"r\"(skc_float16x2_bits(b)));
  return skc_float16x2_of_bits(r);
}
__device__ __forceinline__ skc_float16x2 operator*(skc_float16x2 a, skc_float16x2 b) {
  unsigned int r;
  asm(\"mul.rn.f16x2 %0, %1, %2;\" : \"=r\"(r) : \"r\"(skc_float16x2_bits(a)), \"r\"(skc_float16x2_bits(b)));
  return skc_float16x2_of_bits(r);
}
__device__ __forceinline__ skc_float16x2 skc_fma(skc_float16x2 a, skc_float16x2 b, skc_float16x2 c) {
  unsigned int r;
  asm(\"fma.rn.f16x2 %0, %1, %2, %3;\" : \"=r\"(r) : \"r\"(skc_float16x2_bits(a)), \"r\"(skc_float16x2_bits(b)), \"r\"(skc_float16x2_bits(c)));
  return skc_float16x2_of_bits(r);
}
// Negation flips each lane's sign bit, NaN included, as the scalar's does (neg.f16x2 leaves a NaN unspecified).
__device__ __forceinline__ skc_float16x2 operator-(skc_float16x2 a) { return skc_float16x2_of_bits(skc_float16x2_bits(a) ^ 0x80008000u); }
// PTX has no f16x2 division: the scalar division on each lane.
__device__ __forceinline__ skc_float16x2 operator/(skc_float16x2 a, skc_float16x2 b) { return skc_float16x2{a.x / b.x, a.y / b.y}; }",
    },
    Helper {
        name: "skc_bfloat16x2",
        needs: &["skc_bfloat16"],
        // As the scalar's: fma.rn.bf16x2 with 1.0, -1.0 or -0.0 in both lanes is an exact add, sub or mul.
        code: "\
// bfloat16x2: two bfloat16 in one 32-bit register (x in the low half), aligned to 4 bytes. fma is PTX's
// fma.rn.bf16x2 (sm_80), + - * are fma with 1.0, -1.0 or -0.0 as the scalar's are, / the scalar division on each
// lane: each lane rounded once.
struct __align__(4) skc_bfloat16x2 {
  skc_bfloat16 x, y;
};
__device__ __forceinline__ skc_bfloat16x2 skc_bfloat16x2_make(skc_bfloat16 x, skc_bfloat16 y) { return skc_bfloat16x2{x, y}; }
__device__ __forceinline__ unsigned int skc_bfloat16x2_bits(skc_bfloat16x2 v) { return (unsigned int)v.x.bits | ((unsigned int)v.y.bits << 16); }
__device__ __forceinline__ skc_bfloat16x2 skc_bfloat16x2_of_bits(unsigned int r) {
  return skc_bfloat16x2{skc_bfloat16{(unsigned short)(r & 0xFFFF)}, skc_bfloat16{(unsigned short)(r >> 16)}};
}
__device__ __forceinline__ unsigned int skc_bfloat16x2_fma_bits(unsigned int a, unsigned int b, unsigned int c) {
  unsigned int r;
  asm(\"fma.rn.bf16x2 %0, %1, %2, %3;\" : \"=r\"(r) : \"r\"(a), \"r\"(b), \"r\"(c));
  return r;
}
__device__ __forceinline__ skc_bfloat16x2 skc_fma(skc_bfloat16x2 a, skc_bfloat16x2 b, skc_bfloat16x2 c) {
  return skc_bfloat16x2_of_bits(skc_bfloat16x2_fma_bits(skc_bfloat16x2_bits(a), skc_bfloat16x2_bits(b), skc_bfloat16x2_bits(c)));
}
__device__ __forceinline__ skc_bfloat16x2 operator+(skc_bfloat16x2 a, skc_bfloat16x2 b) {
  return skc_bfloat16x2_of_bits(skc_bfloat16x2_fma_bits(skc_bfloat16x2_bits(a), 0x3F803F80u, skc_bfloat16x2_bits(b)));
}
__device__ __forceinline__ skc_bfloat16x2 operator-(skc_bfloat16x2 a, skc_bfloat16x2 b) {
  return skc_bfloat16x2_of_bits(skc_bfloat16x2_fma_bits(skc_bfloat16x2_bits(b), 0xBF80BF80u, skc_bfloat16x2_bits(a)));
}
__device__ __forceinline__ skc_bfloat16x2 operator*(skc_bfloat16x2 a, skc_bfloat16x2 b) {
  return skc_bfloat16x2_of_bits(skc_bfloat16x2_fma_bits(skc_bfloat16x2_bits(a), skc_bfloat16x2_bits(b), 0x80008000u));
}
// Negation flips each lane's sign bit, NaN included, as the scalar's does (neg.bf16x2 leaves a NaN unspecified).
__device__ __forceinline__ skc_bfloat16x2 operator-(skc_bfloat16x2 a) { return skc_bfloat16x2_of_bits(skc_bfloat16x2_bits(a) ^ 0x80008000u); }
// PTX has no bf16x2 division: the scalar division on each lane.
__device__ __forceinline__ skc_bfloat16x2 operator/(skc_bfloat16x2 a, skc_bfloat16x2 b) { return skc_bfloat16x2{a.x / b.x, a.y / b.y}; }",
    },
];

/// The prelude for code whose text is `code`: every helper it calls, with their dependencies, in table order.
/// `overloads` lists the (helper, C argument type) pairs the code uses; an overloaded helper prints only those.
pub fn prelude_for(code: &str, overloads: &BTreeSet<(String, String)>, full_warps: bool) -> String {
    // A call is `name(` or, for the templates of the ordered atomics, `name<`.
    // A type helper (`skc_float16`) is wanted wherever its name appears.
    let called = |name: &str| {
        code.contains(&format!("{name}("))
            || code.contains(&format!("{name}<"))
            || (is_type(name) && code.contains(name))
    };
    let mut wanted: Vec<&str> = all_helpers().filter(|h| called(h.name)).map(|h| h.name).collect();
    let mut i = 0;
    while i < wanted.len() {
        if let Some(h) = helper(wanted[i], full_warps) {
            for need in h.needs {
                if !wanted.contains(need) {
                    wanted.push(need);
                }
            }
        }
        i += 1;
    }
    let blocks: Vec<String> = all_helpers()
        .filter(|h| wanted.contains(&h.name))
        .filter_map(|h| helper(h.name, full_warps))
        .map(|h| helper_code(h, overloads))
        .filter(|code| !code.is_empty())
        .collect();
    if blocks.is_empty() {
        return String::new();
    }
    let mut out = String::from("// ---- skc prelude ----\n\n");
    out.push_str(&blocks.join("\n\n"));
    out.push('\n');
    out
}

/// `skc_warp_mask` under [`super::EmitOptions::full_warps`]: the launcher promises blocks of whole warps, so every
/// warp has all 32 lanes and the mask is a constant (ptxas then checks no convergence before each collective).
const FULL_WARP_MASK: Helper = Helper {
    name: "skc_warp_mask",
    needs: &[],
    code: "\
// Every block this program is launched with has a multiple of 32 threads (the emitter's full_warps option, a
// promise of the launcher): every warp has all 32 lanes, and the convergence analysis proved that all of them
// execute each warp collective together.
__device__ __forceinline__ unsigned int skc_warp_mask() { return 0xFFFFFFFFu; }",
};

/// The helper called `name`: the table's, or under `full_warps` the constant mask in place of `skc_warp_mask`.
fn helper(name: &str, full_warps: bool) -> Option<&'static Helper> {
    if full_warps && name == FULL_WARP_MASK.name {
        return Some(&FULL_WARP_MASK);
    }
    all_helpers().find(|h| h.name == name)
}

/// Every helper in print order: the 16-bit float types (which later helpers' overloads may name) first.
fn all_helpers() -> impl Iterator<Item = &'static Helper> {
    HALF_HELPERS.iter().chain(HELPERS)
}

/// Is this helper a type (printed wherever its name appears, not only where it is called)?
fn is_type(name: &str) -> bool {
    matches!(name, "skc_float16" | "skc_bfloat16" | "skc_float16x2" | "skc_bfloat16x2")
}

/// The code of a helper; of an overloaded one, the overloads for the types in `overloads` (all if none is listed).
fn helper_code(helper: &Helper, overloads: &BTreeSet<(String, String)>) -> String {
    let types: Vec<&str> =
        overloads.iter().filter(|(name, _)| name == helper.name).map(|(_, ty)| ty.as_str()).collect();
    let lines: Vec<&str> = helper.code.lines().collect();
    let is_overloaded = lines.len() > 1 && lines.iter().all(|l| l.starts_with("__device__"));
    if !is_overloaded || types.is_empty() {
        return helper.code.to_string();
    }
    let chosen: Vec<&str> = lines
        .into_iter()
        .filter(|l| types.iter().any(|ty| l.contains(&format!("({ty} ")) || l.contains(&format!("({ty}* "))))
        .collect();
    if chosen.is_empty() && types.iter().all(|ty| is_type(ty)) {
        // Only the 16-bit floats' overloads, which their types' blocks define.
        String::new()
    } else if chosen.is_empty() {
        helper.code.to_string()
    } else {
        chosen.join("\n")
    }
}

/// Every helper, as one block (for tests and documentation).
pub fn full_prelude() -> String {
    let all: String = all_helpers().map(|h| format!("{}(", h.name)).collect();
    prelude_for(&all, &BTreeSet::new(), false)
}

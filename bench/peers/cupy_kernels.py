#!/usr/bin/env python3
"""CuPy's numbers beside skc's benchmarks (bench/src/bin/kernels-bench.rs), on the same device and the same data:
device-to-device copy of 2^28 float32, cupy.sum of the same 2^28 values (CUB's device reduction) and of 2^28
int32, and cuBLAS SGEMM 4096^3 through cupy.matmul (FP32, no TF32). GPU time with the host's work hidden
(hidden_timing.py: a spinner kernel queued before the start event, so CuPy's Python that prepares a launch does
not count; only samples whose enqueue took less than the spinner count), medians. Lines starting RESULT are for
scripts."""
import os
import sys

os.environ.setdefault("CUPY_ACCELERATORS", "cub")  # cupy.sum through CUB's DeviceReduce
import cupy as cp  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hidden_timing  # noqa: E402

N = 1 << 28


SPINNER = None
STREAM = None


def median_ms(fn, reps):
    """Median GPU time of `fn` (which queues its work on CuPy's current stream) with the host's work hidden."""
    global SPINNER, STREAM
    if SPINNER is None:
        SPINNER = hidden_timing.Spinner()
        STREAM = cp.cuda.Stream(non_blocking=True)
    with STREAM:
        fn()
    STREAM.synchronize()

    def call():
        with STREAM:
            fn()

    samples = [SPINNER.hidden(STREAM, call) for _ in range(reps)]
    timing = hidden_timing.summarise(samples, [], SPINNER.ms)
    if timing["gpu_ms"] is None:
        raise SystemExit(f"no valid sample: enqueue up to {timing['enqueue_ms_max']:.2f} ms, spinner {SPINNER.ms:.1f} ms")
    return timing["gpu_ms"]


def main():
    props = cp.cuda.runtime.getDeviceProperties(0)
    print(f"cupy {cp.__version__}, accelerators {cp._core.get_routine_accelerators()}, device {props['name'].decode()}")
    i = cp.arange(N, dtype=cp.int64)
    x = ((i * 7919) % 1000).astype(cp.float32) / cp.float32(1000)  # the data kernels-bench builds
    del i
    y = cp.empty_like(x)

    def copy():
        cp.cuda.runtime.memcpyAsync(y.data.ptr, x.data.ptr, x.nbytes, cp.cuda.runtime.memcpyDeviceToDevice, cp.cuda.get_current_stream().ptr)

    ms = median_ms(copy, 20)
    copy_gbs = 2 * x.nbytes / (ms * 1e-3) / 1e9
    print(f"copy        1 GiB device-to-device     {ms:8.3f} ms  {copy_gbs:7.1f} GB/s (read + write)")
    print(f"RESULT cupy_copy_gbs={copy_gbs:.1f}")

    result = {}

    def total():
        result["sum"] = cp.sum(x)

    ms = median_ms(total, 20)
    gbs = x.nbytes / (ms * 1e-3) / 1e9
    print(f"cupy.sum    2^28 float32 (CUB)          {ms:8.3f} ms  {gbs:7.1f} GB/s = {100 * gbs / copy_gbs:.1f}% of copy  (sum {float(result['sum']):.6e})")
    print(f"RESULT cupy_sum_gbs={gbs:.1f} cupy_sum_ms={ms:.4f}")
    del x, y

    ints = cp.random.default_rng(9).integers(-50, 50, N, dtype=cp.int32)

    def int_total():
        result["int_sum"] = cp.sum(ints, dtype=cp.int32)

    ms = median_ms(int_total, 20)
    gbs = ints.nbytes / (ms * 1e-3) / 1e9
    print(f"cupy.sum    2^28 int32 (CUB)            {ms:8.3f} ms  {gbs:7.1f} GB/s = {100 * gbs / copy_gbs:.1f}% of copy  (sum {int(result['int_sum'])})")
    print(f"RESULT cupy_int_sum_gbs={gbs:.1f} cupy_int_sum_ms={ms:.4f}")
    del ints

    n = 4096
    rng = cp.random.default_rng(0)
    a = rng.random((n, n), dtype=cp.float32) * 2 - 1
    b = rng.random((n, n), dtype=cp.float32) * 2 - 1
    c = cp.empty((n, n), dtype=cp.float32)
    ms = median_ms(lambda: cp.matmul(a, b, out=c), 10)
    gflops = 2 * n**3 / (ms * 1e-3) / 1e9
    print(f"cuBLAS      SGEMM 4096^3 float32        {ms:8.3f} ms  {gflops:7.0f} GFLOP/s")
    print(f"RESULT cublas_sgemm_gflops={gflops:.0f}")


if __name__ == "__main__":
    main()

"""CuBIE on the Lorenz sweep (rho = linspace(0, 21, N) in float32, computed as ode-bench computes it, u0 = (1, 0,
0), t in [0, 1], final state and iteration counters), timed as bench/peers/hidden_timing.py says: GPU time of
`solve(..., on_device=True)` on device-resident inputs with the host's enqueue hidden behind a spinner on CuBIE's
stream, and the time a caller waits for `solve()` from host arrays to host arrays (state and counters as numpy
arrays); medians over RUNS runs (CUBIE_RUNS, default 5) after a warm-up solve. One JSON line per measurement;
the error is the largest |y - ref| / max(|ref|, 1) against the float64 reference $REF_DIR/ref_N.f64 written by
`ode-bench` (Vern7, float64, atol = rtol = 1e-14).

    python3 cubie_lorenz.py [sweep] N [N ...]
        Tsit5 with fixed dt = 1e-3, Tsit5 and DP5 with the I controller at atol = rtol = 1e-6 (exponent 1/5, safety
        0.9, clamp [0.2, 10], no dead band, dt0 1e-3, dt_min 1e-6), float32. CUBIE_CONFIGS (comma-separated
        names, e.g. tsit5-adaptive,dp5-adaptive) keeps only those.
    python3 cubie_lorenz.py work-precision f32|f64 N [N ...]
        Tsit5 and DP5 with the same controller at atol = rtol = 1e-3 ... 1e-8 (float32) or 1e-3 ... 1e-12 (float64).
        CuBIE floors a relative tolerance at 4 ulps of the precision (4.8e-7 in float32): `rtol_used` says so.
"""
import gc
import os
import sys
import time

os.environ.setdefault("CUBIE_CUDA_BACKEND", "numba-cuda")
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hidden_timing  # noqa: E402

t_import = time.time()
import cubie  # noqa: E402
from cubie import Solver, create_ODE_system  # noqa: E402

IMPORT_S = time.time() - t_import
PEER = "cubie " + cubie.__version__
RUNS = int(os.environ.get("CUBIE_RUNS", "5"))
ADAPTIVE = dict(dt_min=1e-6, dt_max=1.0, safety=0.9, min_step_shrink=0.2, max_step_growth=10.0,
                deadband_min=1.0, deadband_max=1.0)
ALGORITHMS = {"tsit5": "tsit5", "dp5": "dormand-prince-54"}
SWEEP = [("tsit5-fixed", "tsit5", None), ("tsit5-adaptive", "tsit5", 1e-6), ("dp5-adaptive", "dp5", 1e-6)]


def lorenz(dtype):
    return create_ODE_system(
        ["dx = 10.0*(y - x)", "dy = x*(rho - z) - y", "dz = x*y - (8.0/3.0)*z"],
        states={"x": 1.0, "y": 0.0, "z": 0.0},
        parameters={"rho": 21.0},
        precision=dtype,
        name="lorenz_sweep_" + np.dtype(dtype).name,
    )


def rho_of(n):
    """ode-bench's rho: (21 i / (n - 1)) in float64, rounded to float32."""
    return (21.0 * np.arange(n, dtype=np.float64) / max(n - 1, 1)).astype(np.float32)


def inputs(n, dtype):
    inits = np.zeros((3, n), dtype=dtype)
    inits[0, :] = 1.0
    return inits, rho_of(n).astype(dtype).reshape(1, n)


def reference(n):
    path = os.path.join(os.environ.get("REF_DIR", "/tmp"), f"ref_{n}.f64")
    if not os.path.exists(path):
        return None
    return np.fromfile(path, dtype=np.float64).reshape(n, 3)


def error(final, ref):
    if ref is None:
        return None
    rel = np.abs(final.astype(np.float64) - ref) / np.maximum(np.abs(ref), 1.0)
    return float(np.nanmax(rel))


def make_solver(system, method, tolerance):
    settings = dict(algorithm=ALGORITHMS[method], dt=1e-3)
    if tolerance is None:
        settings.update(step_controller="fixed")
    else:
        settings.update(step_controller="i", atol=tolerance, rtol=tolerance, **ADAPTIVE)
    return Solver(system, output_types=["state", "iteration_counters"], time_logging_level=None, **settings)


def host_solve(solver, inits, params):
    """What a caller gets: state and counters on the host (copied: CuBIE reuses its host buffers once the result
    is collected)."""
    result = solver.solve(inits, params, duration=1.0)
    counters = result.iteration_counters
    return np.array(result.state), (None if counters is None else np.array(counters))


def measure(spinner, solver, n, dtype):
    """(final states, counters, first-solve seconds, timing fields) of one solver at n runs."""
    from numba import cuda
    inits, params = inputs(n, dtype)
    t0 = time.time()
    state, counters = host_solve(solver, inits, params)
    first_s = time.time() - t0
    d_inits, d_params = cuda.to_device(inits), cuda.to_device(params)
    solver.solve(d_inits, d_params, duration=1.0, on_device=True)
    cuda.synchronize()
    stream = spinner.external(getattr(solver, "stream", None) or getattr(solver.kernel, "stream", None))
    samples = [spinner.hidden(stream, lambda: solver.solve(d_inits, d_params, duration=1.0, on_device=True))
               for _ in range(RUNS)]
    cuda.synchronize()
    waits = [hidden_timing.wall_ms(lambda: host_solve(solver, inits, params)) for _ in range(RUNS)]
    # (samples, states, runs): the last sample is the final state; counters (samples, counters, runs).
    final = state[-1].T
    return final, counters, first_s, hidden_timing.summarise(samples, waits, spinner.ms)


def report(spinner, bench, config, method, tolerance, n, dtype, solver):
    try:
        final, counters, first_s, timing = measure(spinner, solver, n, dtype)
        steps = None if counters is None else float(counters[-1][2].astype(np.float64).mean())
        rejected = None if counters is None else float(counters[-1][3].astype(np.float64).mean())
        eps4 = 4.0 * float(np.finfo(dtype).eps)
        print(hidden_timing.record(
            PEER, bench, spinner.card, config=config, method=method,
            controller="fixed" if tolerance is None else "i", N=n, precision=np.dtype(dtype).name,
            tolerance=tolerance, rtol_used=None if tolerance is None else max(tolerance, eps4), **timing,
            gpu_ms_method="spinner", steps=steps, rejected=rejected, error=error(final, reference(n)),
            sample=[float(v) for v in final[-1]], first_solve_s=first_s, import_s=IMPORT_S), flush=True)
    except Exception as exc:  # report and go on with the other measurements
        print(hidden_timing.record(PEER, bench, spinner.card, config=config, method=method, N=n,
                                   precision=np.dtype(dtype).name, tolerance=tolerance,
                                   failure=repr(exc)[:2000]), flush=True)


def run_configs(spinner, bench, configs, sizes, dtype):
    """configs: (name, method, tolerance or None); one compiled solver per config, reused for every size."""
    system = lorenz(dtype)
    for name, method, tolerance in configs:
        t0 = time.time()
        solver = make_solver(system, method, tolerance)
        print(f"# {name} {tolerance} {np.dtype(dtype).name}: solver built in {time.time() - t0:.1f} s",
              file=sys.stderr, flush=True)
        for n in sizes:
            report(spinner, bench, name, method, tolerance, n, dtype, solver)
        del solver
        gc.collect()


def main():
    mode, args = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("", [])
    if mode.isdigit():  # the sweep's sizes alone
        mode, args = "sweep", sys.argv[1:]
    spinner = hidden_timing.Spinner()
    if mode == "sweep":
        wanted = os.environ.get("CUBIE_CONFIGS")
        configs = [c for c in SWEEP if wanted is None or c[0] in wanted.split(",")]
        run_configs(spinner, "lorenz-sweep", configs, [int(a) for a in args], np.float32)
    elif mode == "work-precision" and args and args[0] in ("f32", "f64"):
        dtype, tightest = (np.float32, 8) if args[0] == "f32" else (np.float64, 12)
        configs = [(f"{m}-adaptive", m, 10.0 ** -k) for m in ("tsit5", "dp5") for k in range(3, tightest + 1)]
        run_configs(spinner, "work-precision", configs, [int(a) for a in args[1:]], dtype)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()

"""CuBIE on the Lorenz sweep (rho = linspace(0, 21, N) in float32, u0 = (1, 0, 0), t in [0, 1], final state
only): Tsit5 with fixed dt = 1e-3, Tsit5 and DP5 with the I controller at atol = rtol = 1e-6 (exponent 1/5,
safety 0.9, clamp [0.2, 10], dt0 1e-3). Prints one JSON line per (config, N): GPU time of the solve (CUDA
events around the kernel launch, device-resident inputs and outputs), steps, and the error against the float64
reference in $REF_DIR/ref_N.f64 when present. Usage: python3 cubie_lorenz.py N [N ...]; CUBIE_CONFIGS (a
comma-separated list of config names, e.g. tsit5-adaptive,dp5-adaptive) keeps only those."""
import json
import os
import sys
import time

os.environ.setdefault("CUBIE_CUDA_BACKEND", "numba-cuda")
import numpy as np  # noqa: E402

t_import = time.time()
import cubie  # noqa: E402
from cubie import Solver, create_ODE_system  # noqa: E402

IMPORT_S = time.time() - t_import
SIM = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"

CONFIGS = [
    ("tsit5-fixed", dict(algorithm="tsit5", step_controller="fixed", dt=1e-3)),
    ("tsit5-adaptive", dict(algorithm="tsit5", step_controller="i", dt=1e-3, atol=1e-6, rtol=1e-6)),
    ("dp5-adaptive", dict(algorithm="dormand-prince-54", step_controller="i", dt=1e-3, atol=1e-6, rtol=1e-6)),
]
ADAPTIVE = dict(dt_min=1e-6, dt_max=1.0, safety=0.9, min_step_shrink=0.2, max_step_growth=10.0,
                deadband_min=1.0, deadband_max=1.0)


def lorenz():
    return create_ODE_system(
        ["dx = 10.0*(y - x)", "dy = x*(rho - z) - y", "dz = x*y - (8.0/3.0)*z"],
        states={"x": 1.0, "y": 0.0, "z": 0.0},
        parameters={"rho": 21.0},
        precision=np.float32,
        name="lorenz_sweep",
    )


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


def run(system, name, settings, n, reps):
    rho = np.linspace(0.0, 21.0, n, dtype=np.float32)
    inits = np.zeros((3, n), dtype=np.float32)
    inits[0, :] = 1.0
    params = rho.reshape(1, n)
    extra = ADAPTIVE if settings["step_controller"] != "fixed" else {}
    t0 = time.time()
    solver = Solver(system, output_types=["state", "iteration_counters"], **settings, **extra,
                    time_logging_level=None)
    result = solver.solve(inits, params, duration=1.0, blocksize=None if SIM else 256)
    compile_s = time.time() - t0
    times, walls = [], []
    if not SIM:
        from numba import cuda
        d_inits, d_params = cuda.to_device(inits), cuda.to_device(params)
        solver.solve(d_inits, d_params, duration=1.0, on_device=True)
        cuda.synchronize()
        stream = getattr(solver.kernel, "stream", 0)
        for _ in range(reps):
            start, stop = cuda.event(), cuda.event()
            wall = time.time()
            start.record(stream)
            solver.solve(d_inits, d_params, duration=1.0, on_device=True)
            stop.record(stream)
            stop.synchronize()
            cuda.synchronize()
            walls.append((time.time() - wall) * 1e3)
            times.append(cuda.event_elapsed_time(start, stop))
    state = np.asarray(result.state)
    counters = result.iteration_counters
    return state, (None if counters is None else np.asarray(counters)), compile_s, times, walls


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [32]
    system = lorenz()
    wanted = os.environ.get("CUBIE_CONFIGS")
    configs = [c for c in CONFIGS if wanted is None or c[0] in wanted.split(",")]
    for name, settings in configs:
        for n in sizes:
            # best of CUBIE_REPS timed solves (after the warm-up solve); one solve at 2^23 varied by 13% between runs
            reps = int(os.environ.get("CUBIE_REPS", "5"))
            try:
                state, counters, compile_s, times, walls = run(system, name, settings, n, reps)
                final = state[-1].T  # (samples, states, runs): the last sample is the final state
                steps = counters[-1][2].astype(np.float64) if counters is not None else None
                rejected = counters[-1][3].astype(np.float64) if counters is not None else None
                print(json.dumps(dict(engine="cubie " + cubie.__version__, config=name, n=n,
                                      steps=None if steps is None else float(steps.mean()),
                                      rejected=None if rejected is None else float(rejected.mean()),
                                      error=error(final, reference(n)),
                                      sample=[float(v) for v in final[-1]],
                                      gpu_ms=min(times) if times else None, all_ms=times,
                                      wall_ms=min(walls) if walls else None,
                                      first_solve_s=compile_s, import_s=IMPORT_S)), flush=True)
            except Exception as exc:  # report and go on with the other configurations
                print(json.dumps(dict(engine="cubie", config=name, n=n, failure=repr(exc)[:2000])), flush=True)


if __name__ == "__main__":
    main()

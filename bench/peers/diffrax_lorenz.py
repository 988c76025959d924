"""diffrax on the Lorenz sweep (rho = linspace(0, 21, N) in float32, u0 = (1, 0, 0), t in [0, 1], final state
only), jit(vmap(diffeqsolve)): Tsit5 with fixed dt = 1e-3, Tsit5 and Dopri5 with the I controller
(PIDController, pcoeff 0, icoeff 1, safety 0.9, clamp [0.2, 10]) at atol = rtol = 1e-6, dt0 1e-3.

What is timed: jax.jit compiles the whole vmapped solve into one XLA program (its step loop is an XLA while loop,
whose condition XLA's GPU runtime evaluates between iterations), launched on a stream of XLA's own that Python
cannot reach, so no spinner can be queued before it. `gpu_ms` is the wall time of one call of the compiled
program on a device-resident rho up to block_until_ready of its device-resident outputs (an upper bound of its
GPU time; `gpu_ms_method` says "xla-program-wall"); `wait_ms` the wall time from a numpy rho to numpy outputs.
Medians over the stated runs after a first call that compiles (3, or 1 for fixed steps from 2^22 on). One JSON
line per measurement (bench/peers/hidden_timing.py's form), with mean steps and rejections and the error against
the float64 reference in $REF_DIR/ref_N.f64 when present. Usage: python3 diffrax_lorenz.py N [N ...]"""
import json
import os
import sys
import time

import numpy as np
import jax

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hidden_timing  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import diffrax  # noqa: E402

jax.config.update("jax_enable_x64", False)


def lorenz(t, y, rho):
    return jnp.stack([10.0 * (y[1] - y[0]), y[0] * (rho - y[2]) - y[1], y[0] * y[1] - (8.0 / 3.0) * y[2]])


def make(solver, adaptive):
    controller = (diffrax.PIDController(rtol=1e-6, atol=1e-6, pcoeff=0.0, icoeff=1.0, dcoeff=0.0, safety=0.9,
                                        factormin=0.2, factormax=10.0)
                  if adaptive else diffrax.ConstantStepSize())

    def one(rho):
        y0 = jnp.array([1.0, 0.0, 0.0], dtype=jnp.float32)
        sol = diffrax.diffeqsolve(diffrax.ODETerm(lorenz), solver, 0.0, 1.0, 1e-3, y0, args=rho,
                                  stepsize_controller=controller, saveat=diffrax.SaveAt(t1=True),
                                  max_steps=2000 if not adaptive else 100_000, throw=False)
        return sol.ys[-1], sol.stats["num_steps"], sol.stats["num_rejected_steps"]

    return jax.jit(jax.vmap(one))


# The fixed-step configuration last: it takes most of the time (about 7 s a call at 2^23).
CONFIGS = [
    ("tsit5-adaptive", "tsit5", diffrax.Tsit5(), True),
    ("dp5-adaptive", "dp5", diffrax.Dopri5(), True),
    ("tsit5-fixed", "tsit5", diffrax.Tsit5(), False),
]


def reference(n):
    path = os.path.join(os.environ.get("REF_DIR", "/tmp"), f"ref_{n}.f64")
    if not os.path.exists(path):
        return None
    return np.fromfile(path, dtype=np.float64).reshape(n, 3)


def rho_of(n):
    """ode-bench's rho: (21 i / (n - 1)) in float64, rounded to float32."""
    return (21.0 * np.arange(n, dtype=np.float64) / max(n - 1, 1)).astype(np.float32)


def measure(fn, n, runs):
    """(final states, steps, rejected, first-call seconds, timing fields) of the compiled solve at n runs."""
    host_rho = rho_of(n)
    rho = jax.device_put(host_rho)
    t0 = time.time()
    ys, steps, rejected = jax.block_until_ready(fn(rho))
    first = time.time() - t0
    device = [hidden_timing.wall_ms(lambda: jax.block_until_ready(fn(rho))) for _ in range(runs)]
    waits = [hidden_timing.wall_ms(lambda: [np.asarray(v) for v in fn(jnp.asarray(host_rho))]) for _ in range(runs)]
    timing = dict(gpu_ms=hidden_timing.median(device), wait_ms=hidden_timing.median(waits), runs=runs,
                  gpu_ms_all=device, wait_ms_all=waits)
    return np.asarray(ys, dtype=np.float64), np.asarray(steps), np.asarray(rejected), first, timing


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [32]
    peer = "diffrax " + diffrax.__version__
    card = jax.devices()[0].device_kind
    for name, method, solver, adaptive in CONFIGS:
        fn = make(solver, adaptive)
        for n in sizes:
            try:
                runs = 1 if (n >= 1 << 22 and not adaptive) else 3
                final, steps, rejected, first, timing = measure(fn, n, runs)
                ref = reference(n)
                err = None if ref is None else float(np.nanmax(np.abs(final - ref) / np.maximum(np.abs(ref), 1.0)))
                print(hidden_timing.record(
                    peer, "lorenz-sweep", card, config=name, method=method,
                    controller="i" if adaptive else "fixed", N=n, precision="float32",
                    tolerance=1e-6 if adaptive else None, **timing, gpu_ms_method="xla-program-wall",
                    steps=float(np.mean(steps)), rejected=float(np.mean(rejected)), error=err,
                    sample=[float(v) for v in final[-1]], first_call_s=first, jax=jax.__version__), flush=True)
            except Exception as exc:
                print(hidden_timing.record(peer, "lorenz-sweep", card, config=name, method=method, N=n,
                                           failure=repr(exc)[:2000]), flush=True)


if __name__ == "__main__":
    main()

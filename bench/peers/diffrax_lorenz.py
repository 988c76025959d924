"""diffrax on the Lorenz sweep (rho = linspace(0, 21, N) in float32, u0 = (1, 0, 0), t in [0, 1], final state
only), jit(vmap(diffeqsolve)): Tsit5 with fixed dt = 1e-3, Tsit5 and Dopri5 with the I controller
(PIDController, pcoeff 0, icoeff 1, safety 0.9, clamp [0.2, 10]) at atol = rtol = 1e-6, dt0 1e-3. Prints one
JSON line per (config, N): wall time of the jitted call on device-resident inputs (block_until_ready, best of the
repetitions after a warm-up that compiles), mean steps and rejections, and the error against the float64
reference in $REF_DIR/ref_N.f64 when present. Usage: python3 diffrax_lorenz.py N [N ...]"""
import json
import os
import sys
import time

import numpy as np
import jax
import jax.numpy as jnp
import diffrax

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


CONFIGS = [
    ("tsit5-fixed", diffrax.Tsit5(), False),
    ("tsit5-adaptive", diffrax.Tsit5(), True),
    ("dp5-adaptive", diffrax.Dopri5(), True),
]


def reference(n):
    path = os.path.join(os.environ.get("REF_DIR", "/tmp"), f"ref_{n}.f64")
    if not os.path.exists(path):
        return None
    return np.fromfile(path, dtype=np.float64).reshape(n, 3)


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [32]
    for name, solver, adaptive in CONFIGS:
        fn = make(solver, adaptive)
        for n in sizes:
            try:
                rho = jax.device_put(jnp.linspace(0.0, 21.0, n, dtype=jnp.float32))
                t0 = time.time()
                ys, steps, rejected = jax.block_until_ready(fn(rho))
                first = time.time() - t0
                reps = 1 if (n >= 1 << 22 and not adaptive) else 3
                times = []
                for _ in range(reps):
                    t0 = time.time()
                    jax.block_until_ready(fn(rho))
                    times.append((time.time() - t0) * 1e3)
                final = np.asarray(ys, dtype=np.float64)
                ref = reference(n)
                err = None if ref is None else float(np.nanmax(np.abs(final - ref) / np.maximum(np.abs(ref), 1.0)))
                print(json.dumps(dict(engine="diffrax " + diffrax.__version__, config=name, n=n,
                                      wall_ms=min(times), all_ms=times, first_call_s=first,
                                      steps=float(np.mean(np.asarray(steps))),
                                      rejected=float(np.mean(np.asarray(rejected))), error=err,
                                      sample=[float(v) for v in final[-1]],
                                      device=str(jax.devices()[0]))), flush=True)
            except Exception as exc:
                print(json.dumps(dict(engine="diffrax", config=name, n=n, failure=repr(exc)[:2000])), flush=True)


if __name__ == "__main__":
    main()

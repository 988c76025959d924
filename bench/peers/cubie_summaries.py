"""CuBIE's summaries on its headline problem, side by side with skc's (bench/src/bin/metrics-bench.rs vdp DIR):
Van der Pol (dx = v, dv = mu (1 - x^2) v - x) over 1024 x0 in [1, 2] by 1024 mu in [1, 3] (run = i_x0 * 1024
+ i_mu, v0 = 0), duration 20, dormand-prince-54 with the I controller (atol 1e-6, rtol 1e-3, dt0 1e-3, safety
0.9, clamp [0.2, 10], no dead band), float32; summaries of x and v every 5 time units from samples every 0.05
(mean, std, rms, max, min, max_magnitude, peaks[3], negative_peaks[3], dxdt_max/min, d2xdt2_max/min).
Prints JSON lines: CuBIE's GPU time with and without summaries, timed as bench/peers/hidden_timing.py says (the
host's enqueue of solve(on_device=True) hidden behind a spinner on CuBIE's stream; the time a caller waits for
solve() from host arrays to host arrays; medians of 5 runs after a warm-up), then per output the agreement with skc's values read from DIR/skc_vdp.f32 and
DIR/skc_vdp.names. CuBIE writes 0 in an unfilled peak slot where skc writes -1: those count as equal.
Usage: python3 cubie_summaries.py DIR"""
import json
import os
import sys
import time

os.environ.setdefault("CUBIE_CUDA_BACKEND", "numba-cuda")
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hidden_timing  # noqa: E402
import cubie  # noqa: E402
from cubie import Solver, create_ODE_system  # noqa: E402

SIDE = 1024
N = SIDE * SIDE
METRICS = ["mean", "std", "rms", "max", "min", "max_magnitude", "peaks[3]", "negative_peaks[3]", "dxdt_max",
           "dxdt_min", "d2xdt2_max", "d2xdt2_min"]
SETTINGS = dict(algorithm="dormand-prince-54", step_controller="i", dt=1e-3, atol=1e-6, rtol=1e-3, dt_min=1e-6,
                dt_max=1.0, safety=0.9, min_step_shrink=0.2, max_step_growth=10.0, deadband_min=1.0,
                deadband_max=1.0)


def vdp():
    return create_ODE_system(["dx = v", "dv = mu*(1 - x**2)*v - x"], states={"x": 1.0, "v": 0.0},
                             parameters={"mu": 1.0}, precision=np.float32, name="vdp_summaries")


def inputs(state_order):
    """Initial values in CuBIE's state order (it need not be the order of the `states` dict: ask the solver)."""
    x0 = np.repeat(np.linspace(1.0, 2.0, SIDE), SIDE).astype(np.float32)
    mu = np.tile(np.linspace(1.0, 3.0, SIDE), SIDE).astype(np.float32)
    inits = np.zeros((2, N), dtype=np.float32)
    inits[list(state_order).index("x")] = x0
    return inits, mu.reshape(1, N)


def state_order(solver):
    order = list(solver.summarised_states)
    assert sorted(order) == ["v", "x"], order
    return order


def timed(spinner, solver, inits, params, runs=5):
    """The timing fields (hidden_timing.summarise) of one solver on the grid."""
    from numba import cuda
    d_inits, d_params = cuda.to_device(inits), cuda.to_device(params)
    solver.solve(d_inits, d_params, duration=20.0, on_device=True)
    cuda.synchronize()
    stream = spinner.external(getattr(solver, "stream", None) or getattr(solver.kernel, "stream", None))
    samples = [spinner.hidden(stream, lambda: solver.solve(d_inits, d_params, duration=20.0, on_device=True))
               for _ in range(runs)]
    cuda.synchronize()

    def host():
        result = solver.solve(inits, params, duration=20.0)
        summaries = getattr(result, "state_summaries", None)
        return np.asarray(result.state if summaries is None or np.size(summaries) == 0 else summaries)

    waits = [hidden_timing.wall_ms(host) for _ in range(runs)]
    return hidden_timing.summarise(samples, waits, spinner.ms)


def by_run_time_column(arr, order):
    """CuBIE's summary array as (run, window, column)."""
    return np.transpose(arr, (order.index("run"), order.index("time"), order.index("variable")))


def cubie_heading(ours):
    """skc's `x.peaks[3].0` -> CuBIE's (`x`, `peaks_1`); `x.dxdt_max` -> (`x`, `dxdt_max`)."""
    var, rest = ours.split(".", 1)
    for metric in ("negative_peaks", "peaks"):
        if rest.startswith(metric + "["):
            return var, f"{metric}_{int(rest.rsplit('.', 1)[1]) + 1}"
    return var, rest


def probe():
    """The first 8 runs of the grid (x0 = 1, mu_0 .. mu_7) with the trajectory saved every 0.05: where CuBIE's
    summary rows sit in time, printed for run 7 next to its samples."""
    solver = Solver(vdp(), output_types=METRICS + ["state"], summarise_every=5.0, sample_summaries_every=0.05,
                    save_every=0.05, summarised_state_indices=[0, 1], time_logging_level=None, **SETTINGS)
    order_of_states = state_order(solver)
    inits, params = inputs(order_of_states)
    inits, params = np.ascontiguousarray(inits[:, :8]), np.ascontiguousarray(params[:, :8])
    result = solver.solve(inits, params, duration=20.0, grid_type="verbatim")
    order = list(result._stride_order)
    state = np.transpose(np.asarray(result.state), (order.index("run"), order.index("time"), order.index("variable")))
    cub = by_run_time_column(np.asarray(result.state_summaries), order)
    legend = result.summaries_legend
    labels = [legend[i] for i in sorted(legend)]
    xi = order_of_states.index("x")
    print(json.dumps(dict(probe="state", states=order_of_states, shape=list(state.shape),
                          run7_x_at=[[i, float(state[7, i, xi])] for i in (0, 1, 2, 100, 101, 114, 115, 116)],
                          run0_first=[float(v) for v in state[0, 0]])), flush=True)
    for w in range(cub.shape[1]):
        row = {labels[c]: float(cub[7, w, c]) for c in range(len(labels)) if labels[c].startswith("x ")}
        print(json.dumps(dict(probe="summaries run 7", row=w, **row)), flush=True)
    x = state[7, :, xi].astype(np.float64)
    for w in range(4):
        seg = x[1 + 100 * w:101 + 100 * w]
        print(json.dumps(dict(probe="from cubie's own samples 1 + 100 w .. 100 (w + 1)", window=w, mean=float(seg.mean()),
                              max=float(seg.max()), min=float(seg.min()))), flush=True)


def main():
    if sys.argv[2:] == ["probe"]:
        probe()
        return
    out_dir = sys.argv[1]
    spinner = hidden_timing.Spinner()
    system = vdp()
    t0 = time.time()
    solver = Solver(system, output_types=METRICS, summarise_every=5.0, sample_summaries_every=0.05,
                    summarised_state_indices=[0, 1], time_logging_level=None, **SETTINGS)
    inits, params = inputs(state_order(solver))
    plain = Solver(system, output_types=["state"], time_logging_level=None, **SETTINGS)
    peer = "cubie " + cubie.__version__
    common = dict(method="dp5", controller="i", N=N, precision="float32", tolerance=1e-3, atol=1e-6,
                  gpu_ms_method="spinner")
    print(hidden_timing.record(peer, "vdp-summaries", spinner.card, variant="none", **common,
                               **timed(spinner, plain, inits, params), setup_s=time.time() - t0), flush=True)
    t0 = time.time()
    print(hidden_timing.record(peer, "vdp-summaries", spinner.card, variant="summaries", **common,
                               **timed(spinner, solver, inits, params), setup_s=time.time() - t0), flush=True)
    result = solver.solve(inits, params, duration=20.0, grid_type="verbatim")
    legend = result.summaries_legend
    order = list(result._stride_order)
    cub = by_run_time_column(np.asarray(result.state_summaries), order)
    print(json.dumps(dict(cubie_shape=list(cub.shape), stride_order=order,
                          legend=[legend[i] for i in sorted(legend)][:40])), flush=True)
    names = open(os.path.join(out_dir, "skc_vdp.names")).read().split("\n")
    ours = np.fromfile(os.path.join(out_dir, "skc_vdp.f32"), dtype=np.float32)
    windows = ours.size // (N * len(names))
    ours = ours.reshape(N, windows, len(names))
    # CuBIE's first summary row is written at t0 (before any sample) when there is no settling time.
    if cub.shape[1] == windows + 1:
        cub = cub[:, 1:, :]
    labels = [legend[i] for i in sorted(legend)]
    for c, name in enumerate(names):
        var, heading = cubie_heading(name)
        matches = [i for i, l in enumerate(labels)
                   if l.startswith(var) and l[len(var):].lstrip(" _.:") == heading]
        if not matches:
            print(json.dumps(dict(output=name, missing_in_cubie=heading)), flush=True)
            continue
        a = ours[:, :, c].astype(np.float64)
        b = cub[:, :, matches[0]].astype(np.float64)
        if "peaks" in name:
            eq = (a == b) | ((a == -1.0) & (b == 0.0))
            print(json.dumps(dict(output=name, cubie=labels[matches[0]], equal_fraction=float(eq.mean()),
                                  example=[float(a[7, 1]), float(b[7, 1])])), flush=True)
            continue
        scale = np.maximum(np.abs(b), 1.0)
        rel = np.abs(a - b) / scale
        print(json.dumps(dict(output=name, cubie=labels[matches[0]], max_rel=float(np.nanmax(rel)),
                              median_rel=float(np.nanmedian(rel)), within_1e5=float(np.mean(rel <= 1e-5)),
                              within_1e3=float(np.mean(rel <= 1e-3)), nan_ours=int(np.isnan(a).sum()),
                              nan_cubie=int(np.isnan(b).sum()), example=[float(a[7, 1]), float(b[7, 1])])),
              flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The summary tables (markdown) of scripts/gpu_perf.sh's measurements: the Lorenz sweep at the largest sizes, the
summary metrics, the work-precision study per precision, and the float64 point of N = 2^19 at atol = rtol = 1e-6
with, per (peer, method), the GPU time interpolated at GRADSOLVE's published error of 3.2e-7. Each GPU time
carries its count of valid runs when some run was invalid (the host's enqueue outlasted the spinner), and skc's
count of failed trajectories when there were any.

    python3 bench/perf_summary.py RESULTS.jsonl [RESULTS.jsonl ...]
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perf_data  # noqa: E402
from perf_data import fmt_err, fmt_ms  # noqa: E402

SWEEP_CONFIGS = ["tsit5-fixed", "tsit5-adaptive", "dp5-adaptive"]
GRADSOLVE_ERROR = 3.2e-7


def gpu_cell(row):
    if row is None:
        return "-"
    text = fmt_ms(row.get("gpu_ms"))
    runs, valid = row.get("runs"), row.get("valid_runs")
    if valid is not None and runs is not None and valid < runs:
        text += f" ({valid}/{runs} valid)"
    if row.get("failed"):
        text += f" ({row['failed']} trajectories failed)"
    return text


def table(header, lines):
    out = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    out += ["| " + " | ".join(str(c) for c in line) + " |" for line in lines]
    return "\n".join(out)


def first(rows, **wanted):
    found = perf_data.select(rows, **wanted)
    return found[0] if found else None


def sweep(rows):
    peers = sorted({r["peer"] for r in perf_data.select(rows, bench="lorenz-sweep")}, key=lambda p: p != "skc")
    measured = {r["N"] for r in perf_data.select(rows, bench="lorenz-sweep")}
    sizes = [n for n in (1 << 20, 1 << 23) if n in measured]
    out = []
    for n in sizes:
        lines = []
        for config in SWEEP_CONFIGS:
            cells = [config]
            for peer in peers:
                r = first(rows, bench="lorenz-sweep", config=config, N=n, peer=peer)
                cells.append("-" if r is None else f"{gpu_cell(r)} / {fmt_ms(r.get('wait_ms'))} / {fmt_err(r.get('error'))}")
            lines.append(cells)
        out.append(f"Lorenz sweep, N = {n}: GPU time (ms) / caller's wait (ms) / error\n\n"
                   + table(["config"] + peers, lines))
    return out


def metrics(rows):
    lines = []
    for r in perf_data.select(rows, bench="lorenz-metrics") + perf_data.select(rows, bench="vdp-summaries"):
        lines.append([r["bench"], r["peer"], r.get("variant", ""), r["N"], gpu_cell(r), fmt_ms(r.get("wait_ms"))])
    if not lines:
        return []
    return ["Summary metrics\n\n" + table(["bench", "peer", "variant", "N", "GPU ms", "wait ms"], lines)]


def work_precision(rows, precision):
    chosen = perf_data.select(rows, bench="work-precision", precision=precision)
    if not chosen:
        return []
    keys = sorted({(r["peer"], r["method"]) for r in chosen}, key=lambda k: (k[0] != "skc", k))
    out = []
    for n in sorted({r["N"] for r in chosen}):
        lines = []
        for tol in sorted({r["tolerance"] for r in chosen if r.get("tolerance") is not None}, reverse=True):
            cells = [f"{tol:.0e}"]
            for peer, method in keys:
                r = first(chosen, N=n, peer=peer, method=method, tolerance=tol)
                cells.append("-" if r is None else f"{gpu_cell(r)} / {fmt_err(r.get('error'))}")
            lines.append(cells)
        header = ["tolerance"] + [f"{p} {m}" for p, m in keys]
        out.append(f"Work-precision, {precision}, N = {n}: GPU time (ms) / error\n\n" + table(header, lines))
    return out


def at_error(points, error):
    """GPU time at `error`, interpolated log-log between the two measured points around it; None outside."""
    points = sorted((e, ms) for _, ms, e in points if ms is not None and e is not None and e > 0)
    for (e0, ms0), (e1, ms1) in zip(points, points[1:]):
        if e0 <= error <= e1 and e0 < e1:
            f = (math.log(error) - math.log(e0)) / (math.log(e1) - math.log(e0))
            return math.exp(math.log(ms0) + f * (math.log(ms1) - math.log(ms0)))
    return None


def published_point(rows):
    n = 1 << 19
    chosen = perf_data.select(rows, bench="work-precision", precision="float64", N=n)
    if not chosen:
        return []
    lines = []
    for peer, method in sorted({(r["peer"], r["method"]) for r in chosen}, key=lambda k: (k[0] != "skc", k)):
        own = [(r["tolerance"], r.get("gpu_ms"), r.get("error")) for r in chosen
               if r["peer"] == peer and r["method"] == method]
        at_1e6 = first(chosen, peer=peer, method=method, tolerance=1e-6)
        matched = at_error(own, GRADSOLVE_ERROR)
        lines.append([peer, method, gpu_cell(at_1e6), fmt_err(None if at_1e6 is None else at_1e6.get("error")),
                      fmt_ms(matched)])
    return ["Lorenz N = 2^19, float64 (published: GRADSOLVE 0.657 ms at an error of 3.2e-7, DiffEqGPU GPUTsit5 "
            "1.922 ms, H200 NVL)\n\n"
            + table(["peer", "method", "GPU ms at 1e-6", "error at 1e-6", "GPU ms at error 3.2e-7"], lines)]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rows = perf_data.load(*sys.argv[1:])
    print(f"cards: {', '.join(perf_data.cards(rows)) or '-'}; {len(rows)} measurements\n")
    invalid = [r for r in rows if r.get("valid_runs") is not None and r.get("valid_runs") < r.get("runs", 0)]
    failures = [r for r in rows if "failure" in r]
    if invalid:
        print(f"**{len(invalid)} measurements had invalid runs** (host enqueue longer than the spinner)\n")
    for r in failures:
        print(f"FAILED: {r['peer']} {r['bench']} {r.get('config')} N={r.get('N')}: {r['failure'][:300]}\n")
    sections = sweep(rows) + metrics(rows) + work_precision(rows, "float32") + work_precision(rows, "float64")
    sections += published_point(rows)
    print("\n\n".join(sections))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Plots the Lorenz work-precision study (rows with bench "work-precision" of `ode-bench work-precision` and
`cubie_lorenz.py work-precision`) with matplotlib: for one precision, one panel per N, the largest relative error
of a final state against the float64 reference (Vern7 at 1e-14) against the GPU time with the host hidden, one
line per (peer, method) through its tolerances (1e-3 at the left end). In float64 the panel of N = 2^19 also
shows GRADSOLVE's published point (0.657 ms at an error of 3.2e-7) and DiffEqGPU's GPUTsit5 time (1.922 ms),
both theirs, on an H200 NVL.

    python3 bench/plot_work_precision.py float32|float64 OUT.svg RESULTS.jsonl [RESULTS.jsonl ...]
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perf_data  # noqa: E402

METHOD_COLOURS = {"tsit5": "tab:red", "dp5": "tab:blue", "vern7": "tab:purple"}
PEER_STYLES = {"skc": ("-", "o"), "cubie": ("--", "s")}
PUBLISHED_N = 1 << 19


def curves(rows, precision, n):
    """{(peer, method): [(tolerance, gpu_ms, error), ...]} sorted from the loosest tolerance."""
    out = {}
    for r in perf_data.select(rows, bench="work-precision", precision=precision, N=n):
        if r.get("gpu_ms") is None or r.get("error") is None or r.get("tolerance") is None:
            continue
        out.setdefault((r["peer"], r["method"]), []).append((r["tolerance"], r["gpu_ms"], r["error"]))
    return {key: sorted(points, reverse=True) for key, points in out.items()}


def published(ax):
    ax.plot([0.657], [3.2e-7], marker="*", markersize=12, color="black", linestyle="none",
            label="GRADSOLVE, published (H200 NVL)")
    ax.axvline(1.922, color="grey", linestyle=":", linewidth=1.2, label="DiffEqGPU GPUTsit5, published 1.922 ms")


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("float32", "float64"):
        sys.exit(__doc__)
    precision, target = sys.argv[1], sys.argv[2]
    rows = perf_data.load(*sys.argv[3:])
    sizes = sorted({r["N"] for r in perf_data.select(rows, bench="work-precision", precision=precision)})
    if not sizes:
        sys.exit(f"no work-precision rows in {precision}")
    fig, axes = plt.subplots(1, len(sizes), figsize=(5.2 * len(sizes), 4.8), squeeze=False)
    for ax, n in zip(axes[0], sizes):
        for (peer, method), points in sorted(curves(rows, precision, n).items()):
            _, ms, err = zip(*points)
            style, marker = PEER_STYLES.get(perf_data.family(peer), (":", "^"))
            ax.plot(ms, err, linestyle=style, marker=marker, markersize=4, linewidth=1.5,
                    color=METHOD_COLOURS.get(method, "black"), label=f"{peer} {method}")
        if precision == "float64" and n == PUBLISHED_N:
            published(ax)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.grid(True, which="major", color="#dddddd", linewidth=0.8)
        ax.set_title(f"N = 2^{n.bit_length() - 1}" if n & (n - 1) == 0 else f"N = {n}", fontsize=11)
        ax.set_xlabel("GPU time (ms), host hidden")
        ax.set_ylabel("largest relative error of a final state")
        ax.legend(fontsize=7.5)
    cards = ", ".join(perf_data.cards(rows)) or "unknown card"
    fig.suptitle(f"Lorenz work-precision, {precision}, I controller, tolerances 1e-3 (left) and tighter ({cards})",
                 fontsize=11)
    fig.tight_layout()
    fig.savefig(target, format="svg", metadata={"Date": None})
    print(f"wrote {target}")


if __name__ == "__main__":
    main()

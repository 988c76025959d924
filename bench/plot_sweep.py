#!/usr/bin/env python3
"""Plots the Lorenz sweep (rows with bench "lorenz-sweep" of ode-bench, cubie_lorenz.py and diffrax_lorenz.py) with
matplotlib as an SVG: one column per configuration (Tsit5 fixed, Tsit5 adaptive, DP5 adaptive); the top row the
GPU time with the host hidden against N, the bottom row the time a caller waits; one line per peer, log-log.
diffrax's GPU time is the wall time of its XLA program (no spinner reaches XLA's stream).

    python3 bench/plot_sweep.py OUT.svg RESULTS.jsonl [RESULTS.jsonl ...]
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perf_data  # noqa: E402

CONFIGS = [("tsit5-fixed", "Tsit5, fixed dt = 1e-3"), ("tsit5-adaptive", "Tsit5, adaptive 1e-6"),
           ("dp5-adaptive", "DP5, adaptive 1e-6")]
COLOURS = {"skc": "tab:red", "cubie": "tab:blue", "diffrax": "tab:green"}
COLUMNS = [("gpu_ms", "GPU time (ms)"), ("wait_ms", "caller's wait (ms)")]


def series(rows, config, column):
    """{peer: [(N, ms), ...]} of one configuration and column."""
    out = {}
    for r in perf_data.select(rows, bench="lorenz-sweep", config=config, precision="float32"):
        if r.get(column) is not None:
            out.setdefault(r["peer"], []).append((r["N"], r[column]))
    return {peer: sorted(points) for peer, points in out.items()}


def label(peer, column):
    if column == "gpu_ms" and perf_data.family(peer) == "diffrax":
        return peer + " (XLA program wall)"
    return peer


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rows = perf_data.load(*sys.argv[2:])
    fig, axes = plt.subplots(2, len(CONFIGS), figsize=(4.2 * len(CONFIGS), 7.2), sharex=True, sharey="row",
                             squeeze=False)
    for j, (config, title) in enumerate(CONFIGS):
        for i, (column, ylabel) in enumerate(COLUMNS):
            ax = axes[i][j]
            for peer, points in sorted(series(rows, config, column).items()):
                ns, ms = zip(*points)
                ax.plot(ns, ms, marker="o", markersize=3.5, linewidth=1.6, label=label(peer, column),
                        color=COLOURS.get(perf_data.family(peer), "black"))
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.grid(True, which="major", color="#dddddd", linewidth=0.8)
            if i == 0:
                ax.set_title(title, fontsize=11)
            if i == len(COLUMNS) - 1:
                ax.set_xlabel("trajectories N")
            if j == 0:
                ax.set_ylabel(ylabel)
            ax.legend(fontsize=7.5, loc="upper left")
    cards = ", ".join(perf_data.cards(rows)) or "unknown card"
    fig.suptitle(f"Lorenz sweep, float32, final state ({cards})", fontsize=12)
    fig.tight_layout()
    fig.savefig(sys.argv[1], format="svg", metadata={"Date": None})
    print(f"wrote {sys.argv[1]}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Plots the multi-GPU scaling of `multigpu-bench` (rows with bench "multigpu-ode-strong", "multigpu-ode-weak",
"multigpu-weno-strong", "multigpu-weno-weak") with matplotlib as an SVG: speed-up (strong scaling) and efficiency
(weak scaling) against the number of GPUs, one line per workload, with the ideal line.

    python3 bench/plot_multigpu.py OUT.svg RESULTS.jsonl [RESULTS.jsonl ...]
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rows(paths):
    out = []
    for path in paths:
        with open(path) as f:
            out.extend(json.loads(line) for line in f if line.startswith("{"))
    return out


def workload(r):
    """The line a row belongs to, and its ratio against one GPU."""
    if r["bench"].startswith("multigpu-ode"):
        name = f"ODE Tsit5 {r['controller']}"
        ratio = r.get("speedup_compute", r.get("efficiency_compute"))
    else:
        name = "WENO5 slabs"
        ratio = r.get("speedup", r.get("efficiency"))
    return name, ratio


def main():
    out, paths = sys.argv[1], sys.argv[2:]
    data = rows(paths)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, scaling, ylabel in [(axes[0], "strong", "speed-up against one GPU"),
                                (axes[1], "weak", "efficiency against one GPU")]:
        lines = {}
        for r in data:
            if r["bench"].endswith(scaling):
                name, ratio = workload(r)
                lines.setdefault(name, []).append((r["gpus"], ratio))
        most = 1
        for name, points in sorted(lines.items()):
            points.sort()
            most = max(most, points[-1][0])
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=name)
        ideal = list(range(1, most + 1))
        ax.plot(ideal, ideal if scaling == "strong" else [1.0] * len(ideal), "k--", linewidth=0.8, label="ideal")
        ax.set_xlabel("GPUs")
        ax.set_ylabel(ylabel)
        ax.set_xticks(ideal)
        ax.set_title(f"{scaling} scaling")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    card = data[0]["card"] if data else ""
    fig.suptitle(f"skc on several GPUs ({card})")
    fig.tight_layout()
    fig.savefig(out)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Plots the Lorenz sweep of the ode suite of scripts/gpu.sh ($OUT/ode-results.jsonl; the plotted run is
results/ode-lorenz-sweep.jsonl) as an SVG: device time against N on log-log axes, one panel per configuration, one
line per engine. Standard library only (the machines here have no matplotlib).

    python3 bench/plot_sweep.py bench/results/ode-lorenz-sweep.jsonl docs/img/ode-lorenz-sweep.svg
"""
import json
import math
import sys

CONFIGS = [("tsit5-fixed", "Tsit5, fixed dt = 1e-3"), ("tsit5-adaptive", "Tsit5, adaptive 1e-6"),
           ("dp5-adaptive", "DP5, adaptive 1e-6")]
COLOURS = {"skc": "#d62728", "cubie": "#1f77b4", "diffrax": "#2ca02c"}
PANEL_W, PANEL_H, MARGIN_L, MARGIN_B, MARGIN_T = 300, 260, 60, 45, 40


def engine_family(engine):
    """'cubie 0.14.2' -> 'cubie'; the colour and legend follow the family."""
    return engine.split()[0].lower()


def load(path):
    """{config: {engine: [(n, ms), ...]}} from the rows that carry an engine; skc's own experiments (-lb5) skipped."""
    series = {}
    for line in open(path):
        row = json.loads(line)
        if "engine" not in row or row["config"] not in dict(CONFIGS):
            continue
        ms = row.get("gpu_ms") if row.get("gpu_ms") is not None else row.get("wall_ms")
        series.setdefault(row["config"], {}).setdefault(row["engine"], []).append((row["n"], ms))
    return series


def axis_range(values):
    return 10 ** math.floor(math.log10(min(values))), 10 ** math.ceil(math.log10(max(values)))


def panel(out, x0, title, lines, n_range, ms_range):
    """One log-log panel at horizontal offset x0."""
    def px(n):
        return x0 + MARGIN_L + (math.log10(n) - math.log10(n_range[0])) / math.log10(n_range[1] / n_range[0]) * PANEL_W

    def py(ms):
        frac = (math.log10(ms) - math.log10(ms_range[0])) / math.log10(ms_range[1] / ms_range[0])
        return MARGIN_T + (1 - frac) * PANEL_H

    out.append(f'<text x="{x0 + MARGIN_L + PANEL_W / 2}" y="22" text-anchor="middle" font-weight="bold">{title}</text>')
    out.append(f'<rect x="{x0 + MARGIN_L}" y="{MARGIN_T}" width="{PANEL_W}" height="{PANEL_H}" fill="none" '
               'stroke="#444"/>')
    decade = ms_range[0]
    while decade <= ms_range[1] * 1.0001:
        y = py(decade)
        out.append(f'<line x1="{x0 + MARGIN_L}" x2="{x0 + MARGIN_L + PANEL_W}" y1="{y}" y2="{y}" stroke="#ddd"/>')
        out.append(f'<text x="{x0 + MARGIN_L - 4}" y="{y + 4}" text-anchor="end" font-size="11">{decade:g}</text>')
        decade *= 10
    for exp in range(int(math.log2(n_range[0])), int(math.log2(n_range[1])) + 1, 3):
        x = px(2 ** exp)
        out.append(f'<text x="{x}" y="{MARGIN_T + PANEL_H + 16}" text-anchor="middle" font-size="11">2^{exp}</text>')
    out.append(f'<text x="{x0 + MARGIN_L + PANEL_W / 2}" y="{MARGIN_T + PANEL_H + 36}" text-anchor="middle" '
               'font-size="12">trajectories N</text>')
    for engine, points in sorted(lines.items()):
        points = sorted(points)
        colour = COLOURS.get(engine_family(engine), "#000")
        path = " ".join(f"{px(n):.1f},{py(ms):.1f}" for n, ms in points)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for n, ms in points:
            out.append(f'<circle cx="{px(n):.1f}" cy="{py(ms):.1f}" r="3" fill="{colour}"/>')


def main():
    series = load(sys.argv[1])
    all_n = [n for lines in series.values() for pts in lines.values() for n, _ in pts]
    all_ms = [ms for lines in series.values() for pts in lines.values() for _, ms in pts]
    n_range = (2 ** math.floor(math.log2(min(all_n))), 2 ** math.ceil(math.log2(max(all_n))))
    ms_range = axis_range(all_ms)
    width = len(CONFIGS) * (PANEL_W + MARGIN_L + 20)
    height = MARGIN_T + PANEL_H + MARGIN_B + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
           'font-size="13">', f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="14" y="{MARGIN_T + PANEL_H / 2}" transform="rotate(-90 14 {MARGIN_T + PANEL_H / 2})" '
           'text-anchor="middle" font-size="12">device time (ms; diffrax: wall time)</text>']
    for i, (config, title) in enumerate(CONFIGS):
        panel(out, i * (PANEL_W + MARGIN_L + 20), title, series.get(config, {}), n_range, ms_range)
    engines = sorted({e for lines in series.values() for e in lines})
    for i, engine in enumerate(engines):
        x = MARGIN_L + 20 + i * 170
        colour = COLOURS.get(engine_family(engine), "#000")
        out.append(f'<line x1="{x}" x2="{x + 24}" y1="{height - 12}" y2="{height - 12}" stroke="{colour}" '
                   'stroke-width="3"/>')
        out.append(f'<text x="{x + 30}" y="{height - 8}">{engine}</text>')
    out.append("</svg>")
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()

"""The measurement lines of ode-bench, metrics-bench and the peer scripts (one JSON object per line, in the form of
bench/peers/hidden_timing.py and bench/src/timing.rs), read back for the plots and the summary. Plain Python."""
import json


def load(*paths):
    """Every measurement row (an object with `peer` and `bench`) of the given JSON-lines files; other lines (logs,
    kernels, ratios) are skipped."""
    rows = []
    for path in paths:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if "peer" in row and "bench" in row:
                    rows.append(row)
    return rows


def family(peer):
    """'cubie 0.14.2' -> 'cubie'."""
    return peer.split()[0].lower()


def select(rows, **wanted):
    """The rows whose fields equal every `wanted` value."""
    return [r for r in rows if all(r.get(k) == v for k, v in wanted.items())]


def cards(rows):
    return sorted({r.get("card") for r in rows if r.get("card")})


def fmt_ms(ms):
    if ms is None:
        return "-"
    return f"{ms:.3f}" if ms < 10 else f"{ms:.1f}"


def fmt_err(err):
    return "-" if err is None else f"{err:.1e}"

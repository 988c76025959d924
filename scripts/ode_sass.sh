#!/usr/bin/env bash
# SASS instructions per accepted adaptive attempt (Tsit5 and DP5, float32 Lorenz, final state only, as ode-bench's
# sweep compiles them), with registers and spills: ode-dump writes the CUBINs, cuobjdump disassembles them and
# scripts/ode_sass.py counts the accepted path through the attempt loop. Needs NVRTC (SKC_NVRTC_PATH) and
# cuobjdump (CUOBJDUMP, or on PATH).
#
# usage: bash scripts/ode_sass.sh [DIR]   (DIR keeps the CUDA C, PTX, CUBIN and SASS; default a temporary folder)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CUOBJDUMP="${CUOBJDUMP:-cuobjdump}"
command -v "$CUOBJDUMP" >/dev/null || { echo "cuobjdump not found: set CUOBJDUMP" >&2; exit 1; }
DIR="${1:-$(mktemp -d)}"
mkdir -p "$DIR"
cd "$ROOT"
cargo run -q -p skc-bench --bin ode-dump -- "$DIR" | sed -n 's/^\([a-z0-9-]*\): .*registers: \([0-9]*\),.*spill_store_bytes: \([0-9]*\), spill_load_bytes: \([0-9]*\).*/\1: \2 registers, spill stores \3 B, loads \4 B/p'
for name in tsit5-adaptive dp5-adaptive; do
  "$CUOBJDUMP" -sass "$DIR/$name.cubin" >"$DIR/$name.sass"
  python3 "$ROOT/scripts/ode_sass.py" "$DIR/$name.sass"
done

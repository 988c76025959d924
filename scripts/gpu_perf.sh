#!/usr/bin/env bash
# The ODE and summary-metric figures of docs/performance.md beside their peers, every peer timed the same way
# (bench/peers/hidden_timing.py, bench/src/timing.rs), in two halves:
#
#   bash scripts/gpu_perf.sh bundle     here (cargo, network; no GPU): the release binaries ode-bench and
#                                       metrics-bench and the CuBIE 0.14.2 wheels into .carry/perf (about 25 MiB)
#   bash scripts/gpu_perf.sh run        on the GPU machine (no Rust toolchain, no network), from the root of a
#                                       checkout of the same commit that carries .carry/perf
#
# `run` measures, in this order, within RUN_LIMIT seconds (default 570; each step also has a limit of its own):
#   1. skc's Lorenz sweep N = 2^10 ... 2^23 (writes the float64 references for the peers),
#   2. CuBIE's Lorenz sweep at 2^10, 2^16, 2^20, 2^23,
#   3. the summary metrics (Lorenz overhead at 2^20; Van der Pol with skc and CuBIE),
#   4. the work-precision study of skc (Tsit5, DP5, Vern7), float32 at 2^20 and 2^23, float64 at 2^19, 2^20, 2^23,
#   5. the same for CuBIE (Tsit5, DP5),
#   6. diffrax's Lorenz sweep at 2^10, 2^16, 2^20, 2^23,
# then draws the plots and the tables from what it measured. $OUT (default /tmp/perf-out) receives at most six
# files: results.jsonl (every JSON line, one object per measurement), summary.md (the tables), log.txt (every
# step's output), ode-lorenz-sweep.svg, ode-work-precision-float32.svg, ode-work-precision-float64.svg.
set -uo pipefail

# ---- bundle (here) ---------------------------------------------------------------------------------------------

# CuBIE 0.14.2 runs on the GPU machine's numba-cuda; these are what it needs that the machine lacks.
WHEELS="cubie==0.14.2 Pint==0.24.4 flexcache==0.3 flexparser==0.4 platformdirs==4.3.8 rdflib==7.1.4"

bundle() {
  set -e
  local root dest json
  root="$(cd "$(dirname "$0")/.." && pwd)"
  cd "$root"
  dest="${DEST:-$root/.carry/perf}"
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
  rm -rf "$dest"
  mkdir -p "$dest/bin" "$dest/whl"
  json="$(mktemp)"
  trap 'rm -f "$json"' RETURN
  # The features of scripts/gpu.sh's ode and metrics suites, so that both share one build.
  cargo build --release --locked -p skc-ode -p skc-bench --bin ode-bench --bin metrics-bench \
    --features skc-ode/gpu-tests --message-format=json >"$json"
  python3 - "$json" "$dest/bin" <<'PY'
import json, shutil, sys
wanted = {"ode-bench", "metrics-bench"}
for line in open(sys.argv[1]):
    msg = json.loads(line)
    if msg.get("reason") == "compiler-artifact" and msg.get("executable") and msg["target"]["name"] in wanted:
        shutil.copy(msg["executable"], f"{sys.argv[2]}/{msg['target']['name']}")
        wanted.discard(msg["target"]["name"])
if wanted:
    sys.exit(f"not built: {sorted(wanted)}")
PY
  strip --strip-debug "$dest"/bin/* 2>/dev/null || true
  # shellcheck disable=SC2086
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64 -d "$dest/whl" $WHEELS
  echo "$root" >"$dest/build_root"
  du -sh "$dest"
}

# ---- run (on the GPU machine) ----------------------------------------------------------------------------------

# step NAME LIMIT COMMAND...: runs COMMAND under min(LIMIT, what is left of RUN_LIMIT less the plots' reserve);
# its stdout and stderr are appended to log.txt, its JSON lines to results.jsonl; prints its verdict and time.
step() {
  local name="$1" limit="$2" left
  shift 2
  left=$((RUN_LIMIT - SECONDS - RESERVE))
  if [ "$left" -lt 15 ]; then
    printf '%-28s skipped (no time left)\n' "$name" | tee -a "$LOGS/steps.txt"
    return
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  local started=$SECONDS
  timeout "$limit" "$@" >"$LOGS/$name.out" 2>"$LOGS/$name.err"
  local rc=$?
  { echo "==== $name (rc $rc, $((SECONDS - started)) s): $*"; cat "$LOGS/$name.err" "$LOGS/$name.out"; } >>"$LOGS/log.txt"
  grep '^{' "$LOGS/$name.out" >>"$OUT/results.jsonl"
  printf '%-28s rc=%-3s %4ss\n' "$name" "$rc" $((SECONDS - started)) | tee -a "$LOGS/steps.txt"
}

run() {
  BUNDLE="$ROOT/.carry/perf"
  local B="$BUNDLE/bin" P="$ROOT/bench/peers" build_root
  OUT="${OUT:-/tmp/perf-out}"
  RUN_LIMIT="${RUN_LIMIT:-570}"
  RESERVE=30
  LOGS="$(mktemp -d)"
  mkdir -p "$OUT"
  : >"$OUT/results.jsonl"
  build_root="$(cat "$BUNDLE/build_root")"
  # The binaries read .sk files at the paths they were built from.
  if [ ! -e "$build_root" ]; then mkdir -p "$(dirname "$build_root")" && ln -s "$ROOT" "$build_root"; fi
  export SKC_NVRTC_PATH="${SKC_NVRTC_PATH:-/usr/local/cuda/lib64}" SKC_CACHE_DIR="${SKC_CACHE_DIR:-/tmp/skc-cache}"
  export PYTHONUNBUFFERED=1 CUBIE_CUDA_BACKEND=numba-cuda REF_DIR=/tmp/perf-ref
  mkdir -p "$REF_DIR" /tmp/perf-vdp
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader | tee "$LOGS/steps.txt"
  if python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
    "$BUNDLE"/whl/*.whl >"$LOGS/pip.txt" 2>&1; then
    export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
  else
    cat "$LOGS/pip.txt" >>"$LOGS/log.txt"
    echo "CuBIE's wheels did not install: its steps will fail" | tee -a "$LOGS/steps.txt"
  fi
  local sweep="" k
  for k in $(seq 10 23); do sweep="$sweep $((1 << k))"; done
  local peers="1024 65536 1048576 8388608" wp32="1048576 8388608" wp64="524288 1048576 8388608"
  # shellcheck disable=SC2086
  {
    step skc-sweep 120 "$B/ode-bench" sweep $sweep
    step cubie-sweep 120 python3 "$P/cubie_lorenz.py" sweep $peers
    step skc-metrics-lorenz 90 "$B/metrics-bench" lorenz 1048576
    step skc-metrics-vdp 90 "$B/metrics-bench" vdp /tmp/perf-vdp
    step cubie-summaries 150 python3 "$P/cubie_summaries.py" /tmp/perf-vdp
    step skc-wp-f32 90 "$B/ode-bench" work-precision f32 $wp32
    step skc-wp-f64 150 "$B/ode-bench" work-precision f64 $wp64
    step cubie-wp-f32 120 python3 "$P/cubie_lorenz.py" work-precision f32 $wp32
    step cubie-wp-f64 200 python3 "$P/cubie_lorenz.py" work-precision f64 $wp64
    step diffrax-sweep 150 python3 "$P/diffrax_lorenz.py" $peers
  }
  # The plots and tables, from whatever was measured.
  RESERVE=0
  step plot-sweep 60 python3 "$ROOT/bench/plot_sweep.py" "$OUT/ode-lorenz-sweep.svg" "$OUT/results.jsonl"
  for precision in float32 float64; do
    step "plot-wp-$precision" 60 python3 "$ROOT/bench/plot_work_precision.py" "$precision" \
      "$OUT/ode-work-precision-$precision.svg" "$OUT/results.jsonl"
  done
  python3 "$ROOT/bench/perf_summary.py" "$OUT/results.jsonl" >"$OUT/summary.md" 2>>"$LOGS/log.txt"
  cat "$LOGS/steps.txt" "$LOGS/log.txt" >"$OUT/log.txt"
  echo
  cat "$OUT/summary.md"
}

ROOT="$PWD"
case "${1:-}" in
bundle) shift && bundle "$@" ;;
run) shift && run "$@" ;;
*) sed -n '2,20p' "$0" && exit 2 ;;
esac

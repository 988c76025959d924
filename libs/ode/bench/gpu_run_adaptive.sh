#!/usr/bin/env bash
# A reduced gpu_run.sh (about a minute of GPU machine time), from the root of a checkout whose .carry/ode holds the
# bundle of build_bundle.sh: the GPU tests, ode_bench's sweep at 2^20 and 2^23 only, and CuBIE's adaptive Tsit5 and
# DP5 rows at the same sizes (no diffrax, ncu, FSAL experiment or full sweep). Results go to $OUT (or ./ode-results).
set -uo pipefail
B="${B:-$PWD/.carry/ode}"
OUT="${OUT:-$PWD/ode-results}"
mkdir -p "$OUT"
export SKC_STDLIB="$B/stdlib" SKC_ODE_SYSTEMS="$B/systems" SKC_CACHE_DIR=/tmp/skc-cache REF_DIR=/tmp/ode-ref
export PYTHONUNBUFFERED=1
mkdir -p "$REF_DIR"
step() { echo "== $* ($(date +%T))"; }
R="$OUT/results.jsonl"
exec > >(tee -a "$OUT/log.txt") 2>&1
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm,driver_version --format=csv
step sass
for f in "$B"/cubin/*.cubin; do cuobjdump -sass "$f" > "$OUT/$(basename "$f" .cubin).sass" 2>&1; done
step gpu tests
timeout 75 "$B/bin/gpu" --nocapture > "$OUT/gpu_tests.log" 2>&1
grep -E "worst final|test result|panicked|FAILED|failed" "$OUT/gpu_tests.log" | tail -40
step sweep
timeout 40 "$B/bin/ode_bench" sweep 1048576 8388608 | tee -a "$R"
step cubie
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$B"/whl/*.whl \
  > /tmp/pip.log 2>&1 || tail -3 /tmp/pip.log
PYTHONPATH=/tmp/site CUBIE_CUDA_BACKEND=numba-cuda CUBIE_CONFIGS=tsit5-adaptive,dp5-adaptive timeout 70 \
  python3 "$B/bench/cubie_lorenz.py" 1048576 8388608 2>/tmp/cubie.err | tee -a "$R"
tail -n 5 /tmp/cubie.err
step done

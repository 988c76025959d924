#!/usr/bin/env bash
# Runs on the GPU machine, from the root of a checkout whose .carry/ode holds the bundle that
# ode/bench/build_bundle.sh made: the GPU tests, the Lorenz example, the sweep, the FSAL vote experiment with
# ncu's counters, and the peers (diffrax, CuBIE 0.14.2 from wheels). Results go to $OUT (or ./ode-results).
set -uo pipefail
B="$PWD/.carry/ode"
OUT="${OUT:-$PWD/ode-results}"
mkdir -p "$OUT"
export SKC_STDLIB="$B/stdlib" SKC_ODE_SYSTEMS="$B/systems" SKC_CACHE_DIR=/tmp/skc-cache REF_DIR=/tmp/ode-ref
export PYTHONUNBUFFERED=1
mkdir -p "$REF_DIR"
step() { echo "== $* ($(date +%T))"; }
{
  nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm,clocks.max.mem,memory.total,driver_version --format=csv
  nproc
} > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

step gpu tests
timeout 150 "$B/bin/gpu" --nocapture 2>&1 | tee "$OUT/gpu_tests.log" | grep -E "worst final|test result|panicked|FAILED|failed" | tail -60

step lorenz example
timeout 60 "$B/bin/lorenz" 1048576 2>&1 | tee "$OUT/lorenz.log"

step sweep
SIZES=""
for k in $(seq 10 23); do SIZES="$SIZES $((1 << k))"; done
timeout 150 "$B/bin/ode_bench" sweep $SIZES > "$OUT/sweep.jsonl" 2> "$OUT/sweep.err"
tail -n 4 "$OUT/sweep.jsonl"; tail -n 3 "$OUT/sweep.err"

step fsal
timeout 60 "$B/bin/ode_bench" fsal 1048576 | tee "$OUT/fsal.jsonl"

step ncu
NCU="$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)"
METRICS="gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum,smsp__thread_inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_fmul_pred_on.sum,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"
for mode in lorenz-once fsal-once; do
  timeout 90 "$NCU" --clock-control none --kernel-name ode_solve --metrics "$METRICS" "$B/bin/ode_bench" "$mode" 1048576 \
    > "$OUT/ncu_$mode.txt" 2>&1 || echo "ncu $mode failed: $(tail -3 "$OUT/ncu_$mode.txt")"
  grep -E "ode_solve|duration|per_second|inst_executed|ratio|steps" "$OUT/ncu_$mode.txt" | head -40
done

step diffrax
timeout 200 python3 "$B/bench/diffrax_lorenz.py" 1024 65536 1048576 8388608 2>"$OUT/diffrax.err" | tee "$OUT/diffrax.jsonl"
tail -n 3 "$OUT/diffrax.err"

step cubie
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$B"/whl/*.whl \
  > "$OUT/pip.log" 2>&1 || tail -3 "$OUT/pip.log"
PYTHONPATH=/tmp/site CUBIE_CUDA_BACKEND=numba-cuda timeout 200 python3 "$B/bench/cubie_lorenz.py" 1024 65536 1048576 8388608 \
  2>"$OUT/cubie.err" | tee "$OUT/cubie.jsonl"
tail -n 5 "$OUT/cubie.err"
step done

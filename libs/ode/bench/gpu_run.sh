#!/usr/bin/env bash
# Runs on the GPU machine, from the root of a checkout whose .carry/ode holds the bundle that
# libs/ode/bench/build_bundle.sh made: the GPU tests, the Lorenz example, the sweep, the FSAL vote experiment with
# ncu's counters, and the peers (diffrax, CuBIE 0.14.2 from wheels). Results go to $OUT (or ./ode-results):
# log.txt (everything printed), results.jsonl (one JSON line per measurement), gpu_tests.log, ncu.txt, and the
# SASS of the benchmark kernels (NAME.sass, from the CUBINs ode_dump wrote into the bundle).
set -uo pipefail
B="$PWD/.carry/ode"
OUT="${OUT:-$PWD/ode-results}"
mkdir -p "$OUT"
export SKC_STDLIB="$B/stdlib" SKC_ODE_SYSTEMS="$B/systems" SKC_CACHE_DIR=/tmp/skc-cache REF_DIR=/tmp/ode-ref
export PYTHONUNBUFFERED=1
mkdir -p "$REF_DIR"
step() { echo "== $* ($(date +%T))"; }
R="$OUT/results.jsonl"
exec > >(tee -a "$OUT/log.txt") 2>&1
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm,clocks.max.mem,memory.total,driver_version --format=csv
nproc

step sass
for f in "$B"/cubin/*.cubin; do cuobjdump -sass "$f" > "$OUT/$(basename "$f" .cubin).sass" 2>&1; done

step gpu tests
timeout 120 "$B/bin/gpu" --nocapture > "$OUT/gpu_tests.log" 2>&1
grep -E "worst final|test result|panicked|FAILED|failed|run [0-9]+:" "$OUT/gpu_tests.log" | tail -70

step lorenz example
timeout 45 "$B/bin/lorenz" 1048576

step sweep
SIZES=""
for k in $(seq 10 23); do SIZES="$SIZES $((1 << k))"; done
timeout 120 "$B/bin/ode_bench" sweep $SIZES | tee -a "$R" | grep -E '"n":(1024|1048576|8388608),|registers' 

step fsal
timeout 45 "$B/bin/ode_bench" fsal 1048576 | tee -a "$R"

step ncu
NCU="$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)"
METRICS="gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum,smsp__thread_inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_fmul_pred_on.sum,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_fp64.sum,smsp__inst_executed_pipe_xu.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active"
for mode in lorenz-once adaptive-once fsal-once; do
  echo "-- ncu $mode" >> "$OUT/ncu.txt"
  timeout 60 "$NCU" --clock-control none --kernel-name ode_solve --metrics "$METRICS" "$B/bin/ode_bench" "$mode" 1048576 \
    >> "$OUT/ncu.txt" 2>&1 || echo "ncu $mode failed"
done
grep -E "^-- ncu|duration|per_second|inst_executed|ratio|issue_active|warps_active|steps|ERR|rror" "$OUT/ncu.txt" | head -80

step diffrax
timeout 170 python3 "$B/bench/diffrax_lorenz.py" 1024 65536 1048576 8388608 2>/tmp/diffrax.err | tee -a "$R"
tail -n 3 /tmp/diffrax.err

step cubie
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$B"/whl/*.whl \
  > /tmp/pip.log 2>&1 || tail -3 /tmp/pip.log
PYTHONPATH=/tmp/site CUBIE_CUDA_BACKEND=numba-cuda timeout 130 python3 "$B/bench/cubie_lorenz.py" 1024 65536 1048576 8388608 \
  2>/tmp/cubie.err | tee -a "$R"
tail -n 5 /tmp/cubie.err
step done
sleep 1

#!/usr/bin/env bash
# Runs on the GPU machine, from the root of a checkout whose .carry/metrics holds the bundle that
# libs/ode/bench/build_metrics_bundle.sh made: the summary GPU tests, the Lorenz overhead of all 18
# metrics, and the Van der Pol summaries of skc and CuBIE 0.14.2 (installed from the wheels in the bundle).
# Results go to $OUT (or ./metrics-results): log.txt, results.jsonl.
set -uo pipefail
B="$PWD/.carry/metrics"
OUT="${OUT:-$PWD/metrics-results}"
mkdir -p "$OUT"
export SKC_STDLIB="$B/stdlib" SKC_ODE_SYSTEMS="$B/systems" SKC_CACHE_DIR=/tmp/skc-cache PYTHONUNBUFFERED=1
R="$OUT/results.jsonl"
exec > >(tee -a "$OUT/log.txt") 2>&1
step() { echo "== $* ($(date +%T))"; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv

step gpu tests
timeout 150 "$B/bin/gpu_summaries" --nocapture --test-threads=1 2>&1 | grep -E "agree|test result|panicked|FAILED|failed|mismatch|!=" | head -40

step lorenz overhead
timeout 90 "$B/bin/metrics_bench" lorenz 1048576 | tee -a "$R"

step ncu lorenz fixed: none, mean of x, all 18
NCU="$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)"
METRICS="gpu__time_duration.sum,smsp__inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,dram__bytes_write.sum,smsp__average_warp_latency_issue_stalled_long_scoreboard,smsp__inst_executed_op_local_ld.sum"
timeout 90 "$NCU" --clock-control none --kernel-name ode_solve --metrics "$METRICS" "$B/bin/metrics_bench" lorenz-once 1048576 \
  > "$OUT/ncu.txt" 2>&1 || echo "ncu failed"
grep -E "ode_solve|duration|inst_executed|ratio|warps_active|bytes|stalled|ERR|rror" "$OUT/ncu.txt" | head -40

step vdp skc
mkdir -p /tmp/vdp
timeout 90 "$B/bin/metrics_bench" vdp /tmp/vdp | tee -a "$R"

step vdp cubie
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$B"/whl/*.whl \
  2>&1 | tail -2
export CUBIE_CUDA_BACKEND=numba-cuda PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
if [ "${METRICS_CUBIE_PROBE:-0}" = 1 ]; then
  timeout 120 python3 "$B/bench/cubie_summaries.py" /tmp/vdp probe 2>/tmp/cubie_probe.err | tee -a "$R"
  tail -n 15 /tmp/cubie_probe.err
fi
timeout 240 python3 "$B/bench/cubie_summaries.py" /tmp/vdp 2>/tmp/cubie.err | tee -a "$R"
tail -n 15 /tmp/cubie.err
step done

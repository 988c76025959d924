#!/bin/bash
# The queue-alone benchmark on a machine without a Rust toolchain (bundle built by queue_bundle.sh): the GPU tests
# (conservation, exact ids), then the sweep. Run from anywhere: bash BUNDLE/queue_run.sh [queue-bench options]
# Environment: OUT (logs, default /tmp/queue-out).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/queue-out}
mkdir -p "$OUT"
# queue_bench.sk opens Sched: sched.sk lies next to it in the bundle.
export SKC_QUEUE_BENCH_SK="$HERE/queue_bench.sk" SKC_CACHE_DIR=${SKC_CACHE_DIR:-/tmp/skc-cache}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
status=0
timeout 120 "$HERE/queue-gpu-tests" --test-threads=1 --nocapture >"$OUT/queue-tests.log" 2>&1 || status=1
echo "== queue_gpu tests: rc=$status"
tail -n 20 "$OUT/queue-tests.log"
timeout 240 "$HERE/queue-bench" "$@" 2>&1 | tee "$OUT/queue-bench.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
exit $status

#!/bin/bash
# One device call (runs 8-10 of docs/performance.md): the ping-pong floor and this branch's round trips, main's
# benchmark in the same call (main-sched-bench and main-sched.sk, copied into the bundle by build_bundle.sh with
# MAIN_BUNDLE set), this branch's other benchmarks, smoke, GPU tests (IDS stress ids, default 1e8), memcheck and
# racecheck. Logs under $OUT. Run from anywhere: bash BUNDLE/compare_with_main.sh
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export SKC_CACHE_DIR=/tmp/skc-cache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
source "$HERE/timed_step.sh"
S4="env SKC_SCHED_SK=$HERE/sched.sk"
MAIN="env SKC_SCHED_SK=$HERE/main-sched.sk"
timed_step s4-latency 150 $S4 "$HERE/sched-bench" bench latency
timed_step main-bench 200 $MAIN "$HERE/main-sched-bench" bench
timed_step s4-bench 300 $S4 "$HERE/sched-bench" bench inject,devgen,compute,children
timed_step s4-smoke 60 $S4 "$HERE/sched-bench" smoke
timed_step s4-tests 240 $S4 SKC_SCHED_STRESS_IDS=${IDS:-100000000} "$HERE/gpu-tests" --test-threads=1 --nocapture
timed_step s4-memcheck 150 $S4 compute-sanitizer --tool memcheck --error-exitcode 9 "$HERE/sched-bench" smoke
timed_step s4-racecheck 150 $S4 compute-sanitizer --tool racecheck --error-exitcode 9 "$HERE/sched-bench" smoke
exit 0

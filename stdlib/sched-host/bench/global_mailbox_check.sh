#!/bin/bash
# One device call (run 11 of docs/performance.md, branch sched5): whether the global-memory mailbox lifts the
# 2,048-launch cap on children with the fast path on, and what it costs. Children first (the question), then
# the round trip, the GPU tests (IDS stress ids, default 2e7), memcheck on smoke, injection and device-generated
# rates. Logs under $OUT; every step has its own time limit so that the call stays under 300 s.
# Run from anywhere: bash BUNDLE/global_mailbox_check.sh (the bundle of build_bundle.sh, with this script in it).
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export SKC_CACHE_DIR=/tmp/skc-cache SKC_SCHED_SK="$HERE/sched.sk"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
source "$HERE/timed_step.sh"
timed_step children 35 "$HERE/sched-bench" bench children
timed_step latency 50 "$HERE/sched-bench" bench latency
timed_step tests 45 env SKC_SCHED_STRESS_IDS=${IDS:-20000000} "$HERE/gpu-tests" --test-threads=1 --nocapture
timed_step memcheck 90 compute-sanitizer --tool memcheck --error-exitcode 9 "$HERE/sched-bench" smoke
timed_step inject-devgen 60 "$HERE/sched-bench" bench inject,devgen
exit 0

#!/bin/bash
# The scheduler's GPU checks and benchmark on a machine without a Rust toolchain. Built by
# libs/sched/bench/build_bundle.sh; run from anywhere: bash BUNDLE/run.sh [STEPS]
# STEPS (comma-separated, default all): smoke, tests, bench, memcheck, racecheck.
# Environment: OUT (logs, default /tmp/sched-out), IDS (stress task ids, default 100000000), QUICK=1 (smaller
# benchmark sizes).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/sched-out}
mkdir -p "$OUT"
export SKC_SCHED_SK="$HERE/sched.sk" SKC_CACHE_DIR=${SKC_CACHE_DIR:-/tmp/skc-cache}
STEPS=",${1:-smoke,tests,bench,memcheck,racecheck},"
status=0

step() {
  local name=$1
  shift
  case "$STEPS" in *",$name,"*) ;; *) return 0 ;; esac
  local begin=$(date +%s%N)
  "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  echo "== $name: rc=$rc in $((($(date +%s%N) - begin) / 1000000)) ms: $*"
  grep -v '^\s*$' "$OUT/$name.log" | tail -n 30
  [ $rc -eq 0 ] || status=1
  return $rc
}

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
step smoke timeout 90 "$HERE/sched-bench" smoke || exit 1
step tests env SKC_SCHED_STRESS_IDS=${IDS:-100000000} timeout 240 "$HERE/gpu-tests" --test-threads=1 --nocapture
step bench env ${QUICK:+SKC_SCHED_QUICK=1} timeout 300 "$HERE/sched-bench" bench
step memcheck timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 "$HERE/sched-bench" smoke
step racecheck timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 "$HERE/sched-bench" smoke
exit $status

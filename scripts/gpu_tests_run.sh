#!/usr/bin/env bash
# Runs, on the GPU machine, every GPU test executable that scripts/gpu_tests_bundle.sh put next to this script,
# from the root of a checkout of the same commit (the tests read .sk files at their build-time paths: if those
# are not this checkout's, it links them). Then compute-sanitizer memcheck over the scheduler's runtime tests.
# Summary on stdout and in $OUT/summary.txt, one log per executable in $OUT. Exit status 0 only if all passed.
#
#   bash .carry/gpu-tests/gpu_tests_run.sh [BUILD_ROOT]   # BUILD_ROOT: where the checkout was when built
set -u
ROOT="$PWD"
HERE="$(cd "$(dirname "$0")" && pwd)"
BUILD_ROOT="${1:-/work/main}"
if [ ! -e "$BUILD_ROOT" ]; then mkdir -p "$(dirname "$BUILD_ROOT")" && ln -s "$ROOT" "$BUILD_ROOT"; fi
export SKC_NVRTC_PATH="${SKC_NVRTC_PATH:-/usr/local/cuda/lib64}" SKC_CACHE_DIR="${SKC_CACHE_DIR:-/tmp/skc-cache}"
export SKC_SCHED_STRESS_IDS="${SKC_SCHED_STRESS_IDS:-100000000}"
export PATH="$PATH:/usr/local/cuda/bin"
OUT="${OUT:-/tmp/gpu-tests}"
mkdir -p "$OUT"
nvidia-smi -L | tee "$OUT/summary.txt"
failed=0
for exe in "$HERE"/bin/*; do
  name="$(basename "$exe")"
  start=$SECONDS
  timeout "${STEP_TIMEOUT:-300}" "$exe" --test-threads=1 >"$OUT/$name.log" 2>&1
  rc=$?
  [ $rc -ne 0 ] && failed=1
  printf '%-28s rc=%s %4ss  %s\n' "$name" "$rc" $((SECONDS - start)) \
    "$(grep -E '^test result' "$OUT/$name.log" | tail -n 1)" | tee -a "$OUT/summary.txt"
done
if [ -x "$HERE/bin/skc_runtime_gpu_sched" ]; then
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 99 "$HERE/bin/skc_runtime_gpu_sched" \
    --test-threads=1 >"$OUT/memcheck_gpu_sched.log" 2>&1
  rc=$?
  [ $rc -ne 0 ] && failed=1
  echo "memcheck skc_runtime_gpu_sched rc=$rc $(grep -E 'ERROR SUMMARY' "$OUT/memcheck_gpu_sched.log" | tail -n 1)" |
    tee -a "$OUT/summary.txt"
fi
exit $failed

#!/usr/bin/env bash
# The GPU check, on a machine with an NVIDIA GPU and no Rust toolchain: runs the executables that
# scripts/build_gpu_bundle.sh built (the GPU tests, the examples, the benchmark), every example under
# compute-sanitizer (memcheck, racecheck, synccheck: all must be clean), and CuPy's numbers for comparison.
#
#   bash .carry/runtime/gpu_check.sh    # the bundle is the folder this script is in
#
# Logs go to $OUT (default /tmp/skc-gpu-check): gpu_check.log (everything), summary.txt, bench.txt,
# bench_cupy.txt. Exit status 0 only if every step passed.
set -uo pipefail
BUNDLE="$(cd "$(dirname "$0")" && pwd)"
BIN="$BUNDLE/bin"
OUT="${OUT:-/tmp/skc-gpu-check}"
mkdir -p "$OUT"
export SKC_NVRTC_PATH="${SKC_NVRTC_PATH:-/usr/local/cuda/lib64}"
export SKC_CACHE_DIR="${SKC_CACHE_DIR:-/tmp/skc-cache}"
export PATH="$PATH:/usr/local/cuda/bin"
export PYTHONUNBUFFERED=1
LOG="$OUT/gpu_check.log"
SUMMARY="$OUT/summary.txt"
: >"$LOG"
: >"$SUMMARY"
failed=0

# step NAME COMMAND...: runs COMMAND, appends its output to the log, records pass/fail with its time.
step() {
  local name="$1"
  shift
  local started=$SECONDS
  echo "=== $name: $*" >>"$LOG"
  timeout "${STEP_TIMEOUT:-240}" "$@" >"/tmp/skc-step.log" 2>&1
  local rc=$?
  cat /tmp/skc-step.log >>"$LOG"
  local verdict=ok
  if [ $rc -ne 0 ]; then
    verdict="FAILED (exit $rc)"
    failed=1
  fi
  printf '%-40s %s (%ss)\n' "$name" "$verdict" $((SECONDS - started)) | tee -a "$SUMMARY"
  echo "=== $name: $verdict" >>"$LOG"
}

{
  nvidia-smi -L
  compute-sanitizer --version | tail -n 1
  ls /usr/local/cuda/lib64/libnvrtc.so* 2>&1 | head -n 3
} | tee -a "$SUMMARY"

step "tests: runtime" "$BIN/gpu" --test-threads=1
# Device-side launch (linked with libcudadevrt), ordered atomics, a named barrier; memcheck over them too
# (synccheck is left out: it reports the named barriers of warp-specialised kernels as false positives).
step "tests: scheduler language" "$BIN/gpu_sched" --test-threads=1
step "sanitizer memcheck: gpu_sched" compute-sanitizer --tool memcheck --error-exitcode 99 "$BIN/gpu_sched" --test-threads=1
step "tests: examples" "$BIN/gpu_examples" --test-threads=1
step "tests: typed wrappers" "$BIN/wrappers" --test-threads=1

# Small sizes that are not multiples of the block: the sanitizers slow kernels down a lot.
EXAMPLES=("vector_add 100003" "reduce 100003" "warp_reduce 1000003" "scan 100003" "histogram 1000003"
  "transpose 1000 777" "matmul 256")
for tool in memcheck racecheck synccheck; do
  for example in "${EXAMPLES[@]}"; do
    # shellcheck disable=SC2086
    step "sanitizer $tool: ${example%% *}" compute-sanitizer --tool "$tool" --error-exitcode 99 "$BIN/"$example
  done
done

for example in vector_add reduce warp_reduce scan histogram transpose matmul; do
  step "example: $example" "$BIN/$example"
done

step "bench" "$BIN/bench"
cp /tmp/skc-step.log "$OUT/bench.txt"
step "bench: cupy" python3 "$BUNDLE/bench_cupy.py"
cp /tmp/skc-step.log "$OUT/bench_cupy.txt"

if [ $failed -eq 0 ]; then echo "ALL PASSED" | tee -a "$SUMMARY"; else echo "SOME STEPS FAILED" | tee -a "$SUMMARY"; fi
exit $failed

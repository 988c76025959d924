#!/usr/bin/env bash
# The GPU differential of the interpreter (docs/interp.md, property 3): generated programs that the checker
# accepts and that run race-free on the interpreter must write the same on a GPU (integers exactly, floats within
# 1e-5 relative). Runs on a GPU machine without a Rust toolchain, from two release binaries built elsewhere:
#
#   cargo build --release -p skc --features gpu                      # target/release/skc (skc run --gpu)
#   cargo build --release -p skc-interp --example fuzz_compiler      # target/release/examples/fuzz_compiler
#
# Usage: scripts/interp_gpu_diff.sh BIN_DIR [CASES] [WORK_DIR] [JOBS]
#   BIN_DIR holds skc and fuzz_compiler; CASES (10000) cases go to WORK_DIR (interp-gpu-diff); JOBS (16) run at
#   once. Each case's GPU output is WORK_DIR/NAME.gpu.json, its messages NAME.gpu.log. Exit status 0 when every
#   case agrees. NVRTC is found as skc finds it (SKC_NVRTC_PATH, CUDA_PATH, /usr/local/cuda).
#   INTERP=1 runs the same cases with `skc run --interp` instead (a check of the pipeline without a GPU).
set -euo pipefail
bin="$(cd "$1" && pwd)"
cases="${2:-10000}"
work="${3:-interp-gpu-diff}"
jobs="${4:-16}"
backend="--gpu"
if [[ "${INTERP:-0}" == 1 ]]; then backend="--interp"; fi
mkdir -p "$work"
"$bin/fuzz_compiler" --write-corpus "$work" --cases "$cases"
run_case() {
  local name="$1" grid="$2" block="$3"
  if ! "$bin/skc" run "$work/$name.sk" --kernel k --grid "$grid" --block "$block" --args "$work/$name.json" \
      "$backend" --out "$work/$name.gpu.json" > /dev/null 2> "$work/$name.gpu.log"; then
    echo "$name: skc run $backend failed (see $work/$name.gpu.log)"
  fi
}
export -f run_case
export bin work backend
start=$(date +%s)
tr '\t' ' ' < "$work/cases.tsv" | xargs -P "$jobs" -L 1 bash -c 'run_case "$0" "$1" "$2"'
echo "ran $(wc -l < "$work/cases.tsv") cases with skc run $backend in $(( $(date +%s) - start )) s"
"$bin/fuzz_compiler" --compare "$work"

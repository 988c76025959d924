#!/usr/bin/env bash
# The GPU differential of the interpreter (docs/interp.md, property 3): generated programs that the checker
# accepts, that compute nothing order-dependent and that run without any report on the interpreter must write the
# same on a GPU (integers and bools exactly, floats within 1e-5 relative). Runs on a GPU machine with no Rust
# toolchain, from the bundle scripts/interp_gpu_diff_bundle.sh builds (bin/skc and bin/skc-run-batch with the gpu
# feature, bin/fuzz_compiler, and this script):
#
#   bash .carry/interp-gpu-diff/interp_gpu_diff.sh [CASES] [START]
#
# CASES (10000): the first CASES differential cases from seed START (0); seeds of different runs should not
# overlap (a second run of 10000: START 100000). The cases run in one process, `skc-run-batch` (one CUDA context;
# the front end and NVRTC on JOBS threads), started again for the rest when it stops early (a kernel that hangs
# past CASE_TIMEOUT seconds, or a CUDA error that may have broken the context). PER_PROCESS=1 runs one
# `skc run --gpu` process per case instead, JOBS at a time. Environment: JOBS (16); TIME_LIMIT (420) seconds after
# which no new case starts (those are counted as not run), so that one call fits a 10-minute limit; CASE_TIMEOUT
# (10); OUT (/tmp/interp-gpu-diff) gets summary.txt and the files of every case that disagrees or fails (at most
# 50: NAME.sk, .json arguments, .expected.json from the interpreter, .gpu.json, .gpu.log); WORK
# (/tmp/interp-gpu-diff-work) holds all cases; BIN (the bin/ folder next to this script). NVRTC is found as skc
# finds it (SKC_NVRTC_PATH, default here /usr/local/cuda/lib64). INTERP=1 runs the interpreter instead of the GPU
# (a check of the pipeline without a GPU). Exit status 0 when every case that ran agrees.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${BIN:-$here/bin}"
cases="${1:-10000}"
start_seed="${2:-0}"
jobs="${JOBS:-16}"
time_limit="${TIME_LIMIT:-420}"
case_timeout="${CASE_TIMEOUT:-10}"
out="${OUT:-/tmp/interp-gpu-diff}"
work="${WORK:-/tmp/interp-gpu-diff-work}"
backend="--gpu"
if [[ "${INTERP:-0}" == 1 ]]; then backend="--interp"; fi
export SKC_NVRTC_PATH="${SKC_NVRTC_PATH:-/usr/local/cuda/lib64}" SKC_CACHE_DIR="${SKC_CACHE_DIR:-/tmp/skc-cache}"
rm -rf "$work"
mkdir -p "$work" "$out"
{
  if [[ "$backend" == --gpu ]]; then nvidia-smi -L || true; fi
  "$bin/fuzz_compiler" --write-corpus "$work" --cases "$cases" --start "$start_seed" --threads "$jobs"
} | tee "$out/summary.txt"
deadline=$(( $(date +%s) + time_limit ))
# One `skc run` process per case (PER_PROCESS=1).
run_case() {
  local name="$1" grid="$2" block="$3"
  if (( $(date +%s) >= deadline )); then return 0; fi
  local rc=0
  timeout 120 "$bin/skc" run "$work/$name.sk" --kernel k --grid "$grid" --block "$block" \
    --args "$work/$name.json" "$backend" --out "$work/$name.gpu.json" > /dev/null 2> "$work/$name.gpu.log" || rc=$?
  if (( rc != 0 )); then echo "skc run $backend: exit status $rc" >> "$work/$name.gpu.log"; fi
}
# The finished cases (an output or a log each).
finished() { find "$work" -maxdepth 1 -name '*.gpu.*' | wc -l; }
# One batch process, started again while it stops early (exit status 3, or a crash) and finished more cases.
run_batch() {
  local rc left before
  while :; do
    left=$(( deadline - $(date +%s) ))
    if (( left <= 0 )); then break; fi
    before=$(finished)
    rc=0
    "$bin/skc-run-batch" "$work" "$backend" --threads "$jobs" --seconds "$left" --case-timeout "$case_timeout" \
      || rc=$?
    if (( rc == 0 )); then break; fi
    if (( rc == 2 )); then echo "skc-run-batch: usage or I/O error (exit status 2)"; return 2; fi
    if (( $(finished) <= before )); then echo "skc-run-batch: exit status $rc with no case finished; giving up"; return 1; fi
    echo "skc-run-batch: exit status $rc; starting it again for the rest"
  done
}
export -f run_case
export bin work backend deadline
began=$(date +%s)
batch_status=0
if [[ "${PER_PROCESS:-0}" == 1 ]]; then
  tr '\t' ' ' < "$work/cases.tsv" | xargs -P "$jobs" -L 1 bash -c 'run_case "$0" "$1" "$2"'
  echo "skc run $backend: $(( $(date +%s) - began )) s for the cases that ran, $jobs at a time" | tee -a "$out/summary.txt"
else
  run_batch 2>&1 | tee -a "$out/summary.txt" || batch_status=$?
  echo "skc-run-batch $backend: $(( $(date +%s) - began )) s for the cases that ran" | tee -a "$out/summary.txt"
fi
status=0
"$bin/fuzz_compiler" --compare "$work" > "$work/compare.txt" || status=$?
cat "$work/compare.txt" >> "$out/summary.txt"
findings="$(grep -v '^summary:' "$work/compare.txt" || true)"
for name in $(printf '%s\n' "$findings" | head -n 50 | sed -n 's/.*(\(case[0-9]*\)).*/\1/p'); do
  cp "$work/$name".* "$out/"
done
if [ -n "$findings" ]; then printf '%s\n' "$findings" | head -n 20; fi
grep '^summary:' "$work/compare.txt"
if (( status == 0 && batch_status != 0 )); then status=$batch_status; fi
exit "$status"

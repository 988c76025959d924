#!/usr/bin/env bash
# The long fuzz run: generated .sk programs through `check` and `emit`, and every accepted program with new CUDA C
# through NVRTC (many per translation unit, in worker processes), looking for a panic, a front end over 5 s on an
# input under 100 KB, or a program that checks but does not build. Findings are saved in the output folder
# (default target/fuzz), grouped by kind in summary.txt; the exit status is 1 when there is one.
#
#   bash scripts/fuzz.sh                                  # 1,000,000 programs, NVRTC with ptxas (as skc build)
#   bash scripts/fuzz.sh --programs 100000 --seed 7       # another slice
#   bash scripts/fuzz.sh --arch compute_90 --ptxas-every 10   # PTX only, ptxas on every 10th batch: ~2x faster
#
# Every option of the `fuzz` example is accepted (see tests/fuzz_run.rs). The CI slice of this run is the test
# `generated_programs_check_emit_and_build` in tests/fuzz.rs.
set -euo pipefail
cd "$(dirname "$0")/.."
SKC_NVRTC_PATH="${SKC_NVRTC_PATH:-$(bash scripts/install-nvrtc.sh .nvrtc | tail -n 1)}"
export SKC_NVRTC_PATH
cargo build --release --locked -p skc-tests --example fuzz
# A copy, so that rebuilding during the run does not change the binary its workers start.
bin="$(mktemp -d)/fuzz"
cp target/release/examples/fuzz "$bin"
has_programs=0
for arg in "$@"; do [ "$arg" = "--programs" ] && has_programs=1; done
if [ "$has_programs" = 0 ]; then set -- --programs 1000000 "$@"; fi
exec "$bin" "$@"

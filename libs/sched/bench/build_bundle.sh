#!/bin/bash
# Builds the scheduler's GPU bundle (release benchmark binary, GPU test executable, sched.sk, run.sh) into DEST
# (default .carry/sched of the repository this script is in). Then, on the GPU machine: bash DEST/run.sh.
# Binaries are stripped (the device call carries at most 64 MiB).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
DEST=${1:-$ROOT/.carry/sched}
cd "$ROOT"
cargo build --release -p skc-sched --bins
TESTS=$(cargo test --release -p skc-sched --features gpu-tests --no-run --message-format=json 2>/dev/null \
  | grep '"executable"' | grep -o '"executable":"[^"]*/gpu-[^"]*"' | cut -d'"' -f4)
mkdir -p "$DEST"
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
cp "$TARGET/release/sched-bench" "$DEST/sched-bench"
cp "$TESTS" "$DEST/gpu-tests"
cp stdlib/sched/sched.sk libs/sched/bench/run.sh "$DEST/"
strip "$DEST/sched-bench" "$DEST/gpu-tests" 2>/dev/null || true
echo "bundle in $DEST: $(ls "$DEST" | tr '\n' ' ')"

#!/bin/bash
# Builds the queue-alone benchmark's GPU bundle (release queue-bench, the queue_gpu test executable, queue_bench.sk
# and the sched.sk it opens, queue_run.sh) into DEST (default .carry/schedq of the repository this script is in).
# Then, on the GPU machine: bash DEST/queue_run.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
DEST=${1:-$ROOT/.carry/schedq}
cd "$ROOT"
cargo build --release -p skc-sched --bin queue-bench
TESTS=$(cargo test --release -p skc-sched --features gpu-tests --test queue_gpu --no-run --message-format=json 2>/dev/null \
  | grep -o '"executable":"[^"]*queue_gpu-[^"]*"' | cut -d'"' -f4)
mkdir -p "$DEST"
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
cp "$TARGET/release/queue-bench" "$DEST/queue-bench"
cp "$TESTS" "$DEST/queue-gpu-tests"
cp stdlib/sched/sched.sk stdlib/sched/queue_bench.sk libs/sched/bench/queue_run.sh "$DEST/"
echo "bundle in $DEST: $(ls "$DEST" | tr '\n' ' ')"

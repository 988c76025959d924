#!/usr/bin/env bash
# Builds, on a machine with cargo (no GPU needed), what the GPU differential of the interpreter needs on a GPU
# machine that has no Rust toolchain and no network (docs/interp.md, "The GPU differential"): `skc` and
# `skc-run-batch` with the `gpu` feature (`skc run --gpu`, and every case in one process) and the `fuzz_compiler`
# example (writes the cases, compares), stripped, with scripts/interp_gpu_diff.sh next to them. Then runs that
# script here on a few cases with the interpreter standing in for the GPU (INTERP=1), through the batch runner and
# through one `skc run` per case (PER_PROCESS=1), to check both pipelines before they travel.
#
#   bash scripts/interp_gpu_diff_bundle.sh [DEST]     # default .carry/interp-gpu-diff (git-ignored)
#
# On the GPU machine, from the root of a checkout (the folder need not be the one it was built in):
#   bash .carry/interp-gpu-diff/interp_gpu_diff.sh 10000
set -euo pipefail
cd "$(dirname "$0")/.."
DEST="${1:-$PWD/.carry/interp-gpu-diff}"
cargo build --release --locked -p skc --features gpu
cargo build --release --locked -p skc-interp --example fuzz_compiler
rm -rf "$DEST"
mkdir -p "$DEST/bin"
cp target/release/skc target/release/skc-run-batch target/release/examples/fuzz_compiler "$DEST/bin/"
strip --strip-debug "$DEST"/bin/*
cp scripts/interp_gpu_diff.sh "$DEST/"
check="$(mktemp -d)"
trap 'rm -rf "$check"' EXIT
INTERP=1 OUT="$check/out" WORK="$check/work" bash "$DEST/interp_gpu_diff.sh" 40
INTERP=1 PER_PROCESS=1 OUT="$check/out-per-process" WORK="$check/work" bash "$DEST/interp_gpu_diff.sh" 40
du -sh "$DEST"

#!/usr/bin/env bash
# Builds, on a machine with cargo (x86-64 Linux), everything scripts/gpu_check.sh runs on the GPU machine, and
# puts it in one folder (default: .carry/runtime/ of this checkout; .carry/ is git-ignored): release builds of
# the examples and the benchmark, the GPU test executables, the check script and the CuPy script. Debug info is
# stripped so the bundle stays small (about 25 MB).
#
#   bash scripts/build_gpu_bundle.sh [DEST]
set -euo pipefail
cd "$(dirname "$0")/.."
DEST="${1:-$PWD/.carry/runtime}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
EXAMPLES=(vector_add reduce warp_reduce scan histogram transpose matmul bench)

cargo build --release --locked -p skc-examples --examples
tests_json="$(mktemp)"
trap 'rm -f "$tests_json"' EXIT
cargo test --release --locked --no-run -p skc-runtime -p skc-examples \
  --features skc-runtime/gpu-tests,skc-examples/gpu-tests --message-format=json >"$tests_json"

rm -rf "$DEST/bin"
mkdir -p "$DEST/bin"
for example in "${EXAMPLES[@]}"; do
  cp "$CARGO_TARGET_DIR/release/examples/$example" "$DEST/bin/"
done
# The GPU test targets' executables, by target name (`gpu`, `gpu_examples`).
python3 - "$tests_json" "$DEST/bin" <<'PY'
import json, shutil, sys
wanted = {"gpu", "gpu_sched", "gpu_examples", "wrappers"}
found = set()
for line in open(sys.argv[1]):
    msg = json.loads(line)
    if msg.get("reason") == "compiler-artifact" and msg.get("executable") and msg["target"]["name"] in wanted:
        shutil.copy(msg["executable"], f"{sys.argv[2]}/{msg['target']['name']}")
        found.add(msg["target"]["name"])
missing = wanted - found
if missing:
    sys.exit(f"test executables not built: {sorted(missing)}")
PY
strip --strip-debug "$DEST"/bin/*
cp scripts/gpu_check.sh scripts/bench_cupy.py "$DEST/"
du -sh "$DEST"
ls -l "$DEST/bin"

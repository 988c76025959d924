#!/usr/bin/env bash
# The main job: check an example, compile it to CUDA C and PTX with NVRTC, and print its per-kernel resources.
# Installs NVRTC 13.0 from PyPI into .nvrtc/ (idempotent); needs no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
SKC_NVRTC_PATH="$(bash scripts/install-nvrtc.sh .nvrtc | tail -n 1)"
export SKC_NVRTC_PATH
example="${1:-examples/kernels/reduce.sk}"
cargo build --release --locked -p skc
echo "== skc check $example"
./target/release/skc check "$example" && echo "no diagnostics"
echo "== skc build $example --emit cuda,ptx -o target/demo"
./target/release/skc build "$example" --emit cuda,ptx -o target/demo
echo "== target/demo/$(basename "${example%.sk}").cu"
cat "target/demo/$(basename "${example%.sk}").cu"
echo "== PTX: $(wc -l < "target/demo/$(basename "${example%.sk}").ptx") lines in target/demo/$(basename "${example%.sk}").ptx"

#!/usr/bin/env bash
# Builds, where cargo is (x86-64 Linux), what libs/ode/bench/gpu_run.sh runs on the GPU machine, into $DEST (default:
# .carry/ode of the checkout given as the first argument, else this one; .carry/ is git-ignored): release builds
# of the Lorenz example, ode_bench and the GPU test executable, the stdlib/ode modules, the example systems, the
# peer scripts, the benchmark kernels' CUBINs. The CuBIE wheels are expected in DEST/whl (see docs/ode.md).
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT="${1:-$PWD}"
DEST="${DEST:-$ROOT/.carry/ode}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --release --locked -p skc-ode --examples
tests_json="$(mktemp)"
trap 'rm -f "$tests_json"' EXIT
cargo test --release --locked --no-run -p skc-ode --features gpu-tests --message-format=json > "$tests_json"
mkdir -p "$DEST/bin" "$DEST/stdlib" "$DEST/systems" "$DEST/bench"
cp "$CARGO_TARGET_DIR/release/examples/lorenz" "$CARGO_TARGET_DIR/release/examples/ode_bench" "$DEST/bin/"
python3 - "$tests_json" "$DEST/bin" <<'PY'
import json, shutil, sys
for line in open(sys.argv[1]):
    msg = json.loads(line)
    if msg.get("reason") == "compiler-artifact" and msg.get("executable") and msg["target"]["name"] == "gpu":
        shutil.copy(msg["executable"], f"{sys.argv[2]}/gpu")
        break
else:
    sys.exit("the gpu test executable was not built")
PY
strip --strip-debug "$DEST"/bin/*
rm -rf "$DEST/stdlib/ode" && cp -r stdlib/ode "$DEST/stdlib/ode"
# Every solver program opens the summary hooks (stdlib/metrics/summaries.sk), found under $SKC_STDLIB/metrics.
rm -rf "$DEST/stdlib/metrics" && cp -r stdlib/metrics "$DEST/stdlib/metrics"
cp libs/ode/systems/*.sk "$DEST/systems/"
cp libs/ode/bench/*.py libs/ode/bench/gpu_run.sh libs/ode/bench/gpu_run_adaptive.sh "$DEST/bench/"
# The benchmark kernels' CUBINs, for their SASS (ode_dump needs NVRTC here: SKC_NVRTC_PATH).
rm -rf "$DEST/cubin" && "$CARGO_TARGET_DIR/release/examples/ode_dump" "$DEST/cubin" > /dev/null
du -sh "$DEST"

#!/usr/bin/env bash
# Builds, where cargo is, what libs/ode/bench/metrics_gpu_run.sh runs on the GPU machine, into
# ROOT/.carry/metrics (ROOT: the first argument, else this checkout; .carry/ is git-ignored): metrics_bench and
# the gpu_summaries test executable (release), stdlib/ode and stdlib/metrics, the example systems, the scripts,
# and the CuBIE 0.14.2 wheels from ROOT/.carry/ode/whl (see docs/ode.md).
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT="${1:-$PWD}"
DEST="$ROOT/.carry/metrics"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --release --locked -p skc-ode --example metrics_bench
tests_json="$(mktemp)"
trap 'rm -f "$tests_json"' EXIT
cargo test --release --locked --no-run -p skc-ode --features gpu-tests --test gpu_summaries --message-format=json > "$tests_json"
mkdir -p "$DEST/bin" "$DEST/stdlib" "$DEST/systems" "$DEST/bench" "$DEST/whl"
cp "$CARGO_TARGET_DIR/release/examples/metrics_bench" "$DEST/bin/"
python3 - "$tests_json" "$DEST/bin" <<'PY'
import json, shutil, sys
for line in open(sys.argv[1]):
    msg = json.loads(line)
    if msg.get("reason") == "compiler-artifact" and msg.get("executable") and msg["target"]["name"] == "gpu_summaries":
        shutil.copy(msg["executable"], f"{sys.argv[2]}/gpu_summaries")
        break
else:
    sys.exit("the gpu_summaries test executable was not built")
PY
strip --strip-debug "$DEST"/bin/*
rm -rf "$DEST/stdlib/ode" "$DEST/stdlib/metrics"
cp -r stdlib/ode "$DEST/stdlib/ode"
cp -r stdlib/metrics "$DEST/stdlib/metrics"
cp libs/ode/systems/*.sk "$DEST/systems/"
cp libs/ode/bench/cubie_summaries.py libs/ode/bench/metrics_gpu_run.sh "$DEST/bench/"
cp "$ROOT"/.carry/ode/whl/*.whl "$DEST/whl/"
du -sh "$DEST"

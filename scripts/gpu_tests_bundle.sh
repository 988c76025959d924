#!/usr/bin/env bash
# Builds, on a machine with cargo, every GPU test executable of the workspace (the `gpu-tests` feature of each
# crate that has one) into one folder for the GPU machine, which has no Rust toolchain; scripts/gpu_tests_run.sh
# runs them there. Executables are named PACKAGE_TARGET (several crates have a test target called `gpu`) and
# stripped (about 20 MB in all).
#
#   bash scripts/gpu_tests_bundle.sh [DEST]     # default .carry/gpu-tests (git-ignored)
set -euo pipefail
cd "$(dirname "$0")/.."
DEST="${1:-$PWD/.carry/gpu-tests}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
CRATES=(skc-runtime skc-examples skc-ode skc-sched skc-weno-gpu)
# Test targets that need the GPU (the others run in CI and need not travel).
GPU_TARGETS="gpu gpu_sched gpu_examples wrappers gpu_summaries queue_gpu"

features=""
packages=()
for crate in "${CRATES[@]}"; do
  features="$features,$crate/gpu-tests"
  packages+=(-p "$crate")
done
json="$(mktemp)"
trap 'rm -f "$json"' EXIT
cargo test --release --locked --no-run "${packages[@]}" --features "${features#,}" --message-format=json >"$json"

rm -rf "$DEST/bin"
mkdir -p "$DEST/bin"
python3 - "$json" "$DEST/bin" "$GPU_TARGETS" <<'PY'
import json, shutil, sys
wanted = set(sys.argv[3].split())
copied = []
for line in open(sys.argv[1]):
    msg = json.loads(line)
    if msg.get("reason") != "compiler-artifact" or not msg.get("executable") or not msg["profile"]["test"]:
        continue
    if msg["target"]["name"] not in wanted:
        continue
    # package ids: "path+file:///dir#name@1.0", "path+file:///name#1.0" or (older cargo) "name 1.0 (path...)"
    pid = msg["package_id"]
    if "#" in pid:
        url, frag = pid.split("#", 1)
        package = frag.split("@")[0] if "@" in frag else url.rstrip("/").split("/")[-1]
    else:
        package = pid.split()[0]
    package = package.replace("-", "_")
    name = f"{package}_{msg['target']['name']}"
    shutil.copy(msg["executable"], f"{sys.argv[2]}/{name}")
    copied.append(name)
if not copied:
    sys.exit("no GPU test executable was built")
print("\n".join(sorted(copied)))
PY
strip --strip-debug "$DEST"/bin/*
cp scripts/gpu_tests_run.sh "$DEST/"
du -sh "$DEST"

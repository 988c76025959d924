#!/usr/bin/env bash
# Runs every test of the workspace on a machine without a GPU. Installs NVRTC 13.0 from PyPI into .nvrtc/
# (idempotent) and makes NVRTC-dependent tests fail, not skip, if it still cannot be loaded.
set -euo pipefail
cd "$(dirname "$0")/.."
SKC_NVRTC_PATH="$(bash scripts/install-nvrtc.sh .nvrtc | tail -n 1)"
export SKC_NVRTC_PATH
export SKC_REQUIRE_NVRTC=1
cargo test --workspace --locked "$@"

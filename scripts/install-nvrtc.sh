#!/usr/bin/env bash
# Installs NVRTC (the CUDA runtime compiler library skc loads at run time) from
# the nvidia-cuda-nvrtc wheel into a folder, and prints the folder holding
# libnvrtc.so.13 on the last line of stdout:
#
#   export SKC_NVRTC_PATH=$(bash scripts/install-nvrtc.sh .nvrtc | tail -1)
#
# Usage: install-nvrtc.sh [TARGET_DIR]   (default: .nvrtc in the repository root)
# Idempotent: an existing install of the pinned version is reused.
# The version is pinned to 13.0.x: the GPU machines' driver is CUDA 13.0 and
# rejects PTX produced by a newer NVRTC. All progress output goes to stderr.
set -euo pipefail

NVRTC_VERSION="13.0.88"
PACKAGE="nvidia-cuda-nvrtc==${NVRTC_VERSION}"

log() { echo "install-nvrtc: $*" >&2; }
die() { log "error: $*"; exit 1; }

repo_root() { cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd; }

# Runs a command as root, through sudo when we are not root.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else return 1
    fi
}

apt_install() {
    command -v apt-get >/dev/null 2>&1 || return 1
    log "installing $* with apt-get"
    as_root apt-get update -qq >&2 && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
}

ensure_python() {
    command -v python3 >/dev/null 2>&1 && return 0
    apt_install python3 python3-pip || die "python3 is missing and could not be installed"
}

has_pip() { python3 -m pip --version >/dev/null 2>&1; }

ensure_pip() {
    has_pip && return 0
    log "pip is missing; trying python3 -m ensurepip"
    # Debian's system python disables ensurepip; apt's python3-pip is the fallback.
    python3 -m ensurepip --upgrade >&2 2>/dev/null && has_pip && return 0
    apt_install python3-pip && has_pip && return 0
    die "pip is not available: install python3-pip (apt-get install -y python3-pip)"
}

# The wheel puts the libraries under nvidia/cu13/lib.
lib_dir_of() { echo "$1/nvidia/cu13/lib"; }

already_installed() {
    local target="$1"
    [ -f "$(lib_dir_of "$target")/libnvrtc.so.13" ] &&
        [ -d "$target/nvidia_cuda_nvrtc-${NVRTC_VERSION}.dist-info" ]
}

main() {
    local target="${1:-$(repo_root)/.nvrtc}"
    mkdir -p "$target"
    target="$(cd "$target" && pwd)"
    if already_installed "$target"; then
        log "NVRTC ${NVRTC_VERSION} already installed in $target"
    else
        ensure_python
        ensure_pip
        log "installing ${PACKAGE} into $target"
        # --target skips PEP 668's externally-managed check and touches no site-packages;
        # --upgrade replaces a different version left in the folder.
        PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
            --upgrade --target "$target" "$PACKAGE" >&2
        already_installed "$target" || die "pip finished but $(lib_dir_of "$target")/libnvrtc.so.13 is missing"
    fi
    lib_dir_of "$target"
}

main "$@"

#!/usr/bin/env bash
# ensure_deps.sh - make sure the CPU-side test dependencies exist: pkg-config, Criterion,
# gnuplot (for the plot checks), clang-format (the style check) and the CUDA toolkit's
# nvcc/cuobjdump.
# Installs missing Debian packages when run as root with apt-get; otherwise says exactly what
# to install and exits 1. Usage: scripts/ensure_deps.sh
set -u
missing=()
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
if ! pkg-config --exists criterion 2>/dev/null; then missing+=(libcriterion-dev); fi
command -v gnuplot >/dev/null 2>&1 || missing+=(gnuplot-nox)
# the style is pinned to clang-format 14 (Debian 12's clang-format)
command -v clang-format-14 >/dev/null 2>&1 || command -v clang-format >/dev/null 2>&1 ||
    missing+=(clang-format)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "ensure_deps: installing ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >/dev/null && apt-get install -y -qq "${missing[@]}" >/dev/null ||
            { echo "ensure_deps: apt-get install ${missing[*]} failed" >&2; exit 1; }
    else
        echo "ensure_deps: missing ${missing[*]}; install them, e.g. sudo apt-get install ${missing[*]}" >&2
        exit 1
    fi
fi
# cuobjdump (SASS checks): the toolkit's, or the one NVIDIA publishes on PyPI with nvdisasm
if [ -z "$(scripts/find_cuobjdump.sh 2>/dev/null)" ]; then
    if command -v python3 >/dev/null 2>&1; then
        echo "ensure_deps: installing cuobjdump and nvdisasm from PyPI (nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm)"
        python3 -m pip install -q nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm >/dev/null 2>&1 ||
            echo "ensure_deps: could not install cuobjdump; the SASS checks will be skipped" >&2
    fi
fi
command -v ${NVCC:-nvcc} >/dev/null 2>&1 || {
    echo "ensure_deps: nvcc not found: install the CUDA toolkit (12.x or 13.x) and put its bin/ on PATH" >&2
    exit 1; }
exit 0

#!/usr/bin/env bash
# find_cuobjdump.sh - prints the path of a cuobjdump that can disassemble (nvdisasm next to it
# or on PATH), or nothing and exit 1. Looks at PATH, the CUDA toolkit, then the PyPI package
# nvidia-cuda-cuobjdump (installed by scripts/ensure_deps.sh).
for c in "$(command -v cuobjdump 2>/dev/null)" /usr/local/cuda/bin/cuobjdump; do
    if [ -n "$c" ] && [ -x "$c" ]; then echo "$c"; exit 0; fi
done
loc=$(python3 -m pip show nvidia-cuda-cuobjdump 2>/dev/null | sed -n 's/^Location: //p')
for c in "$loc"/nvidia/cu*/bin/cuobjdump; do
    if [ -x "$c" ]; then echo "$c"; exit 0; fi
done
exit 1

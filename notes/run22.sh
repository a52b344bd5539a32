#!/usr/bin/env bash
# run22.sh - session 3: make bench of every lesson at one commit (plots/data/NVIDIA_H200.csv),
# then the GPU tests of lessons 01-04 (relinked with the harness change of this session).
set -u
OUT=${OUT:-/tmp/run22}; mkdir -p "$OUT"
OUT=$OUT STEPS="bench" bash scripts/gpu_check.sh 2>&1 | grep -E "4096 +4096 +4096|bench:|summary|bench: " | head -40
OUT=$OUT LESSONS="01_naive 02_layout 03_tiled 04_copy" STEPS="test" bash scripts/gpu_check.sh 2>&1 | tail -4

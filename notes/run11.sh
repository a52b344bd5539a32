#!/usr/bin/env bash
# run11.sh - session 2's validation, part 2: ceilings, ncu bank conflicts of 05/06 and the
# benchmark of every lesson (make bench's sweep) -> $OUT/bench.csv for plots/data.
set -u
OUT=${OUT:-/tmp/run11}; mkdir -p "$OUT"
OUT=$OUT STEPS="ncu bench" bash scripts/gpu_check.sh 2>&1 | tail -45

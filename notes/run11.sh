#!/usr/bin/env bash
# run11.sh - session 2's validation, part 2: lesson 05's new default through the GPU tests and
# compute-sanitizer, then ncu bank conflicts of 05/06 and the benchmark of every lesson
# (make bench's sweep, with the ceilings) -> $OUT/bench.csv and bench_probe.csv for plots/data.
set -u
OUT=${OUT:-/tmp/run11}; mkdir -p "$OUT"
OUT=$OUT LESSONS=05_mma STEPS="test sanitize" bash scripts/gpu_check.sh 2>&1 | tail -12
OUT=$OUT STEPS="ncu bench" bash scripts/gpu_check.sh 2>&1 | tail -40
rm -f "$OUT/bench.txt"

#!/usr/bin/env bash
# run21.sh - session 3, issue 5 final: GPU tests of 05 and 06 (05 was not re-run after 7fbdeee),
# sanitizers of 06 with beta 0 and 0.5 on sizes where persistent CTAs walk several tiles (the
# new gpu_check sanitize step), then make bench's sweep for lesson 06 -> $OUT/bench06.csv.
set -u
OUT=${OUT:-/tmp/run21}; mkdir -p "$OUT"
OUT=$OUT LESSONS="05_mma 06_swizzle" STEPS="test" bash scripts/gpu_check.sh 2>&1 | tail -4
mv "$OUT/test-gpu.txt" "$OUT/test-gpu-0506.txt"
OUT=$OUT LESSONS="06_swizzle" STEPS="sanitize" bash scripts/gpu_check.sh 2>&1 | tail -16
BUILD=build BENCH_CSV="$OUT/bench06.csv" PROBE_CSV="$OUT/bench06_probe.csv" bash scripts/bench.sh 06_swizzle > "$OUT/bench06.txt" 2>&1
grep -E "4096 +4096 +4096|8192 +8192 +8192|2048 +2048 +2048|bench:" "$OUT/bench06.txt"

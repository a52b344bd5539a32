#!/usr/bin/env bash
# run20.sh - session 3, issue 5 final validation of lesson 06 (persistent default, staged
# epilogue): GPU tests, compute-sanitizer (memcheck all variants, racecheck/synccheck default),
# ncu bank conflicts of every 05/06 variant, racecheck of the persistent kernel alone on sizes
# where CTAs walk several tiles.
set -u
OUT=${OUT:-/tmp/run20}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
OUT=$OUT LESSONS=06_swizzle STEPS="test sanitize ncu" bash scripts/gpu_check.sh 2>&1 | tail -30
R=build/06_swizzle/run
for tool in memcheck racecheck synccheck; do
  compute-sanitizer --tool $tool --kernel-name kns=gemm_swizzle --error-exitcode 99 $R --check-only \
    --variant 128x256x64_s3_persistent,128x256x64_s3 --dtype fp16,bf16 --layout TN \
    --size 600x9000x72,1500x4000x100,1000x3000x300 --beta 0.5 > "$OUT/cs_$tool.txt" 2>&1
  echo "$tool exit $?: $(grep -E 'SUMMARY' "$OUT/cs_$tool.txt" | tr '\n' ' ') $(grep -E 'passed' "$OUT/cs_$tool.txt")"
  head -c 600 "$OUT/cs_$tool.txt" | grep -i "error\|usage\|unrecognized" | head -3
done

#!/usr/bin/env bash
# run10.sh - session 2's validation, part 1: lesson 05's try_ candidates against its default,
# then the GPU tests and compute-sanitizer of every lesson (scripts/gpu_check.sh).
set -u
OUT=${OUT:-/tmp/run10}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
for d in fp16 bf16; do
  build/05_mma/run --variant padded_128x256,try_128x256_k128,try_128x256_raster,padded --dtype $d \
    --size 4096x4096x4096 --iters 20 2>&1 | grep -E "^(padded|try)"
done
OUT=$OUT STEPS="test sanitize" bash scripts/gpu_check.sh 2>&1 | tail -25
grep -E "FAIL|refused" $OUT/test-gpu.txt | head -20
grep -c "^ok" $OUT/test-gpu.txt

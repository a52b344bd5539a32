#!/usr/bin/env bash
# run12.sh - after the epilogue / launch refactors of lessons 04 and 05: their GPU tests,
# compute-sanitizer, and the defaults' timing at 4096^3 against run 11.
set -u
OUT=${OUT:-/tmp/run12}; mkdir -p "$OUT"
OUT=$OUT LESSONS="04_copy 05_mma" STEPS="test sanitize" bash scripts/gpu_check.sh 2>&1 | tail -14
grep -E "^FAIL" $OUT/test-gpu.txt | head
build/04_copy/run --variant default --size 4096x4096x4096,2048x2048x2048 --iters 20 2>&1 | grep -E "^ldg|FAIL"
build/05_mma/run --variant default --dtype fp16,bf16 --size 4096x4096x4096 --iters 20 2>&1 | grep -E "^padded|FAIL"

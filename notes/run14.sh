#!/usr/bin/env bash
# run14.sh - the final GPU tests of every lesson after session 2's harness changes (grouped
# refusals, split build), and the no-argument run of lesson 05 as a user types it.
set -u
OUT=${OUT:-/tmp/run14}; mkdir -p "$OUT"
OUT=$OUT STEPS="test" bash scripts/gpu_check.sh 2>&1 | tail -6
grep -E "^(FAIL|refused)" $OUT/test-gpu.txt | cut -c1-220
build/05_mma/run 2>&1 | tail -12

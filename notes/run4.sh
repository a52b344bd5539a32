#!/usr/bin/env bash
# GPU run 4: lesson 02's slicing variant vs lesson 01; lesson 04 with ldg128_128x256x8 as the
# default and the failing 2-CTA variant removed: GPU tests, compute-sanitizer, bench rows.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/out4}; mkdir -p "$OUT/logs"
{
  echo "## lesson 02 (every variant) vs lesson 01 coalesced, 4096^3 TT"
  build/01_naive/run --variant coalesced --size 4096x4096x4096 --iters 10 | tail -2
  build/02_layout/run --size 4096x4096x4096 --iters 10 | tail -4
  build/01_naive/run --variant coalesced --size 4096x4096x4096 --iters 10 | tail -2
} 2>&1 | tee "$OUT/logs/timing.txt"
STEPS=test LESSONS="02_layout 04_copy" bash scripts/gpu_check.sh 2>&1 | grep -v "^ok " | tail -30
STEPS=sanitize LESSONS="04_copy 02_layout" bash scripts/gpu_check.sh 2>&1 | tail -8
STEPS=bench LESSONS="02_layout 04_copy" bash scripts/gpu_check.sh 2>&1 | tail -6

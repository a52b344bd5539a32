#!/usr/bin/env bash
# GPU run 3 (final of the session): lesson 02 vs 01 and lesson 04 tuning timings, the GPU tests
# of every lesson, compute-sanitizer on the lessons not yet sanitized (02, 03, 04; 05/06 were
# sanitized in the tuning run on the same code), and make bench's sweep. Everything under $OUT
# comes back (8 files at most).
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/out3}; mkdir -p "$OUT/logs"
ALL="01_naive 02_layout 03_tiled 04_copy 05_mma 06_swizzle"
{
  echo "## issue 3: lesson 02 (layouts) vs lesson 01 coalesced, 4096^3 TT"
  build/01_naive/run --variant coalesced --size 4096x4096x4096 --iters 10 | tail -3
  build/02_layout/run --size 4096x4096x4096 --iters 10 | tail -4
  echo "## lesson 03 at 4096^3, every operand order"
  build/03_tiled/run --size 4096x4096x4096 --layout all --iters 10 | tail -6
  echo "## lesson 04 tuning"
  OUT=$OUT/logs TUNE04_CASES=0 bash notes/tune_04.sh
} 2>&1 | tee "$OUT/logs/timing.txt"
STEPS=test LESSONS="$ALL" bash scripts/gpu_check.sh 2>&1 | tail -45
STEPS=sanitize LESSONS="02_layout 03_tiled 04_copy" bash scripts/gpu_check.sh 2>&1 | tail -12
STEPS=bench LESSONS="$ALL" bash scripts/gpu_check.sh 2>&1 | tail -8

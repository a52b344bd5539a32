#!/usr/bin/env bash
# run18.sh - session 3, issue 5: where do the ~35-40 us of K-independent time go at M=N=4096?
# build/06_diag/run = lesson 06 at badd675 with the epilogue's global stores removed (timing
# only; its checks fail by design). Small K isolates the per-tile fixed cost.
set -u
R=build/06_swizzle/run; D=build/06_diag/run
V=128x256x64_s3,128x256x64_s3_p
for S in 4096x4096x4096 4096x4096x64 4096x4096x512 8192x8192x64; do
  $R --variant $V --dtype fp16 --size $S --iters 30 2>&1 | grep -E "PASS|FAIL" | sed 's/^/FULL    /'
  $D --variant $V --dtype fp16 --size $S --iters 30 2>&1 | grep -E "PASS|FAIL" | sed 's/^/NOSTORE /'
done

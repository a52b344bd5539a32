#!/usr/bin/env bash
# run16.sh - session 3, issue 5: control run. build/06_old/run is lesson 06 at 5697f20 (before
# the persistent change), timed next to the new binary in the same call; racecheck details of
# the persistent variant.
set -u
OUT=${OUT:-/tmp/run16}; mkdir -p "$OUT"
R=build/06_swizzle/run; O=build/06_old/run
export PATH=/usr/local/cuda/bin:$PATH
compute-sanitizer --tool racecheck --error-exitcode 99 $R --check-only --variant 128x256x64_s3_p --dtype fp16 \
  --layout TN --size 1500x4000x100 --beta 0.5 > "$OUT/racecheck.txt" 2>&1; head -c 3000 "$OUT/racecheck.txt"
compute-sanitizer --tool racecheck --error-exitcode 99 $O --check-only --variant 128x256x64_s3 --dtype fp16 \
  --layout TN --size 1500x4000x100 --beta 0.5 2>&1 | grep SUMMARY | sed 's/^/old: /'
S=4096x4096x4096
for i in 1 2; do
  $O --variant 128x256x64_s3,128x128x64_s3 --dtype fp16,bf16 --size $S --iters 30 --csv "$OUT/perf.csv" 2>&1 | grep PASS | sed 's/^/OLD /'
  $R --variant 128x256x64_s3,128x256x64_s3_p,128x256x64_s4_p,128x128x64_s3,128x128x64_s3_p --dtype fp16,bf16 --size $S --iters 30 --csv "$OUT/perf.csv" 2>&1 | grep PASS | sed 's/^/NEW /'
done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv

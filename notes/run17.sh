#!/usr/bin/env bash
# run17.sh - session 3, issue 5: the steady-state loop restored (interior loop without loader
# state); old binary (5697f20) as control in the same call; racecheck of the persistent
# variants where CTAs walk several tiles.
set -u
OUT=${OUT:-/tmp/run17}; mkdir -p "$OUT"
R=build/06_swizzle/run; O=build/06_old/run
export PATH=/usr/local/cuda/bin:$PATH
for v in 128x256x64_s3_p 128x128x64_s3_p; do
compute-sanitizer --tool racecheck --error-exitcode 99 $R --check-only --variant $v --dtype fp16 \
  --layout TN --size 600x9000x72,1500x4000x100 --beta 0.5 > "$OUT/racecheck_$v.txt" 2>&1; grep -E "SUMMARY|passed" "$OUT/racecheck_$v.txt"; grep -m3 -A12 "Error\|Hazard" "$OUT/racecheck_$v.txt" | head -40
done
$R --check-only --variant all --dtype all --layout all --size 3000x5000x200,4093x2000x300,705x705x705,128x128x8 --beta 0.5 2>&1 | tail -1
S=4096x4096x4096
for i in 1 2; do
  $O --variant 128x256x64_s3 --dtype fp16,bf16 --size $S --iters 30 --csv "$OUT/perf.csv" 2>&1 | grep PASS | sed 's/^/OLD /'
  $R --variant 128x256x64_s3,128x256x64_s3_p,128x256x64_s4_p,128x128x64_s3,128x128x64_s3_p --dtype fp16,bf16 --size $S --iters 30 --csv "$OUT/perf.csv" 2>&1 | grep PASS | sed 's/^/NEW /'
done
$R --variant 128x256x64_s3,128x256x64_s3_p --dtype fp16 --size 8192x8192x8192,4096x4096x2048,4096x4096x16384 --iters 10 --csv "$OUT/perf.csv" 2>&1 | grep PASS

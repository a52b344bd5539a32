#!/usr/bin/env bash
# run15.sh - session 3, issue 5: persistent CTAs for lesson 06 (the pipeline runs on across
# tiles). Correctness of every variant (gpu_cases + sanitizers on sizes where CTAs walk several
# tiles), then 4096^3 / 8192^3 timings and a K sweep (per-tile overhead = intercept).
set -u
OUT=${OUT:-/tmp/run15}; mkdir -p "$OUT"
R=build/06_swizzle/run
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv > "$OUT/smi.txt"
OUT=$OUT LESSONS=06_swizzle STEPS="test" bash scripts/gpu_check.sh 2>&1 | tail -6
for v in 128x256x64_s3_p 128x128x64_s3_p; do
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 99 $R --check-only --variant $v --dtype fp16 \
      --layout TN --size 1500x4000x100,600x9000x72 --beta 0.5 2>&1 | grep -E "SUMMARY|passed|FAIL" | sed "s/^/$tool $v: /"
  done
done
P="128x256x64_s3,128x256x64_s3_p,128x256x64_s4_p,128x128x64_s3,128x128x64_s3_p"
$R --variant $P --dtype fp16,bf16 --size 4096x4096x4096 --iters 30 --csv "$OUT/perf.csv" 2>&1 | grep -vi "passed\|^ *$" | tail -14
$R --variant $P --dtype fp16,bf16 --size 4096x4096x4096 --iters 30 --csv "$OUT/perf.csv" 2>&1 | grep -i "TFLOP\|tflop" | tail -12
$R --variant 128x256x64_s3,128x256x64_s3_p,128x256x64_s4_p --dtype fp16 --size 8192x8192x8192,4096x4096x2048,4096x4096x8192,4096x4096x16384,2048x2048x2048 --iters 10 --csv "$OUT/perf.csv" > "$OUT/sweep.txt" 2>&1
cat "$OUT/sweep.txt" | tail -20
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv >> "$OUT/smi.txt"

#!/usr/bin/env bash
# run19.sh - session 3, issue 5: epilogue through smem (16-byte stores of whole 128-byte lines)
# for full tiles with beta = 0; persistent variant with its own C staging blocks.
# Control: build/06_old/run (5697f20) in the same call.
set -u
OUT=${OUT:-/tmp/run19}; mkdir -p "$OUT"
R=build/06_swizzle/run; O=build/06_old/run
export PATH=/usr/local/cuda/bin:$PATH
$R --check-only --variant all --dtype all --layout all --size 4096x4096x4096,3000x5000x200,4093x2000x300,705x705x705,128x128x8,1x705x705 2>&1 | tail -1
$R --check-only --variant all --dtype all --layout TN --size 3000x5000x200,705x705x705 --beta 0.5 --pad 3 2>&1 | tail -1
$R --check-only --variant all --dtype all --layout TN --size 3000x5000x200,705x705x705 --offset 1 2>&1 | tail -1
$R --check-only --variant all --dtype all --layout TN --size 3000x5000x200,705x705x705 --pad 8 --poison inf --alpha 1.5 2>&1 | tail -1
for v in 128x256x64_s3 128x256x64_s3_p; do for tool in memcheck racecheck; do
  compute-sanitizer --tool $tool --error-exitcode 99 --kernel-name regex:gemm_swizzle $R --check-only --variant $v --dtype fp16 \
    --layout TN --size 600x9000x72,1500x4000x100 2>&1 | grep -E "SUMMARY" | sed "s/^/$tool $v: /"
done; done
S=4096x4096x4096
for i in 1 2; do
  $O --variant 128x256x64_s3 --dtype fp16,bf16 --size $S --iters 30 2>&1 | grep PASS | sed 's/^/OLD /'
  $R --variant 128x256x64_s3,128x256x64_s3_p,128x128x64_s3 --dtype fp16,bf16 --size $S --iters 30 --csv "$OUT/perf.csv" 2>&1 | grep PASS | sed 's/^/NEW /'
done
$O --variant 128x256x64_s3 --dtype fp16 --size 4096x4096x64,8192x8192x8192 --iters 20 2>&1 | grep PASS | sed 's/^/OLD /'
$R --variant 128x256x64_s3,128x256x64_s3_p --dtype fp16 --size 4096x4096x64,8192x8192x8192,4096x4096x16384 --iters 20 --csv "$OUT/perf.csv" 2>&1 | grep PASS

#!/usr/bin/env bash
# bench_epilogue.sh - lesson 07's measurements on a GPU, every number timed in the same run as
# its references (the harness times the lesson's kernel, cuBLAS, cuBLASLt with the epilogue
# fused, and cuBLAS + a separate bias/activation kernel in one process, row by row):
#   1. plain, fused bias, fused bias+GELU (fp16 and bf16 in, the input type out; fp16 in,
#      fp32 out) at 2048^3, 4096^3, 8192^3 and LLM shapes (8192x1024x4096: tokens x features
#      of a projection; 2048x14336x4096: an MLP up-projection)
#   2. beta != 0 against beta = 0 at 4096^3 and 8192^3
#   3. the accumulator: fp16 against fp32 accumulation, speed at 4096^3 and 8192^3; error
#      against float64 as K grows, all-ones and random operands (the "error against float64"
#      line under each fp16-accumulation row)
# Writes $EPI_CSV (default build/bench_07_epilogue.csv; the CSV's lt_ms and unfused_ms columns
# hold the cuBLASLt-fused and unfused times) and prints the tables. About 5 minutes on an H200.
# Usage (on the GPU machine, after `make lesson07` here): BUILD=build bash lessons/07_epilogue/bench_epilogue.sh
set -u
BUILD=${BUILD:-build}
run=$BUILD/07_epilogue/run
CSV=${EPI_CSV:-$BUILD/bench_07_epilogue.csv}
[ -x "$run" ] || { echo "bench_epilogue: $run not built (make lesson07)" >&2; exit 2; }
rm -f "$CSV"
status=0
SIZES=2048x2048x2048,4096x4096x4096,8192x8192x8192,8192x1024x4096,2048x14336x4096
echo "== 1. plain, fused bias, fused bias+GELU (the input type out)"
"$run" --variant default --dtype fp16,bf16 --epilogue none,bias,bias_gelu --size $SIZES --iters 20 --csv "$CSV" || status=1
echo "== 1. fp16 in, fp32 out (mixed precision)"
"$run" --variant default --dtype fp16 --out fp32 --epilogue none,bias,bias_gelu --size $SIZES --iters 20 --csv "$CSV" || status=1
echo "== 1. bias along m, GELU's erf form"
"$run" --variant default --dtype fp16 --epilogue bias_gelu --bias-axis m --size 4096x4096x4096,8192x8192x8192 --iters 20 --csv "$CSV" || status=1
"$run" --variant default --dtype fp16 --epilogue bias_gelu --gelu erf --size 4096x4096x4096,8192x8192x8192 --iters 20 --csv "$CSV" || status=1
echo "== 2. beta != 0 (C read through shared memory) against beta = 0"
"$run" --variant default --dtype fp16,bf16 --beta 1 --size 4096x4096x4096,8192x8192x8192 --iters 20 --csv "$CSV" || status=1
echo "== 3. fp16 against fp32 accumulation: speed"
"$run" --variant default,acc16_128x256x64_s3 --dtype fp16 --size 4096x4096x4096,8192x8192x8192 --iters 20 --csv "$CSV" || status=1
echo "== 3. fp16 accumulation: error against float64 as K grows (all-ones, then random operands)"
"$run" --variant acc16_128x256x64_s3,default --dtype fp16 --init ones --check-only --size 256x256x1024,256x256x2048,256x256x4096,256x256x8192 --csv "$CSV" || status=1
"$run" --variant acc16_128x256x64_s3,default --dtype fp16 --check-only --size 256x256x1024,256x256x2048,256x256x4096,256x256x8192 --csv "$CSV" || status=1
echo "bench_epilogue: wrote $CSV"
exit $status

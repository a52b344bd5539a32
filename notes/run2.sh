#!/usr/bin/env bash
# GPU run 2: tests + sanitizer for 05/06, timings of 01 (TT), 04, 05, 06, ncu bank conflicts.
set -u
OUT=${OUT:-/tmp/out2}; mkdir -p $OUT
export PATH=/usr/local/cuda/bin:$PATH
STEPS="test sanitize" LESSONS="05_mma 06_swizzle" bash scripts/gpu_check.sh > $OUT/check.txt 2>&1; tail -25 $OUT/check.txt
T="--csv $OUT/times.csv"
build/01_naive/run --size 4096x4096x4096 --iters 5 --layout TT,TN $T 2>&1 | tail -6
build/04_copy/run --size 4096x4096x4096 --iters 10 $T 2>&1 | tail -9
build/04_copy/run --size 2048x2048x2048,8192x8192x8192,4095x4095x4096 --variant fast --iters 10 $T 2>&1 | tail -5
build/05_mma/run --size 4096x4096x4096 --dtype all --variant all $T 2>&1 | tail -6
build/06_swizzle/run --size 4096x4096x4096 --dtype all --variant all $T 2>&1 | tail -8
build/06_swizzle/run --size 2048x2048x2048,8192x8192x8192,4093x4093x4096 --dtype fp16 $T 2>&1 | tail -5
M="l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
for v in padded unpadded; do
  ncu --clock-control none -k regex:gemm_mma --launch-skip 1 --launch-count 1 --metrics $M build/05_mma/run --variant $v --dtype fp16 --size 4096x4096x4096 --iters 1 --warmup 1 > $OUT/ncu_05_$v.txt 2>&1
  echo "ncu 05 $v:"; grep -E "bank_conflicts|wavefronts" $OUT/ncu_05_$v.txt | head -4
done
ncu --clock-control none -k regex:gemm_swizzle --launch-skip 1 --launch-count 1 --metrics $M build/06_swizzle/run --dtype fp16 --size 4096x4096x4096 --iters 1 --warmup 1 > $OUT/ncu_06.txt 2>&1
echo "ncu 06:"; grep -E "bank_conflicts|wavefronts|gemm" $OUT/ncu_06.txt | head -6

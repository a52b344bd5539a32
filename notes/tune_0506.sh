#!/usr/bin/env bash
# tune_0506.sh - timing and checks for lessons 05/06 on the GPU (one device call per phase).
#   PHASE=tune  every variant of 05 and 06 at 4096^3 (fp16, bf16), quick checks, ncu stall
#               breakdown of the 06 candidates
#   PHASE=final the kept variants: timing, the gpu_cases.txt of both lessons, the brief's
#               correctness pass, ncu bank conflicts of the 06 default
# Needs build/05_mma/run and build/06_swizzle/run (built on the CPU machine, carried over).
set -u
PHASE=${PHASE:-tune}
OUT=${OUT:-/tmp/tune0506}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
S=4096x4096x4096
T="--csv $OUT/times.csv"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader
if [ "$PHASE" = tune ]; then
    build/06_swizzle/run --variant all --dtype fp16 --size $S --iters 20 $T 2>&1 | tee -a $OUT/log.txt | tail -12
    build/05_mma/run --variant all --dtype fp16,bf16 --size $S --iters 10 $T 2>&1 | tee -a $OUT/log.txt | tail -12
    build/06_swizzle/run --variant all --dtype bf16 --size $S --iters 10 $T 2>&1 | tee -a $OUT/log.txt | tail -12
    echo "== checks"
    build/06_swizzle/run --check-only --dtype all --layout TN --size 705x705x705,129x257x33,4093x4093x4096,300x300x40,1x705x705,256x256x8192,300x300x16,130x260x100 --beta 0.5 2>&1 | grep -E "FAIL|passed"
    for v in ${GEN_06:-128x128x32_s5 128x128x64_s3 128x256x64_s3}; do
        build/06_swizzle/run --variant $v --check-only --dtype all --layout all --size 705x705x705,129x257x33,64x64x705,128x128x8 --beta 0.5 2>&1 | grep -E "FAIL|passed"
        build/06_swizzle/run --variant $v --check-only --dtype all --size 705x705x705,4093x4093x4096 --offset 1 --beta -0.75 2>&1 | grep -E "FAIL|passed"
    done
    build/05_mma/run --check-only --dtype all --size 1x704x712,705x712x704,64x64x8,128x128x8,4093x4096x4096 2>&1 | grep -E "FAIL|passed"
    build/05_mma/run --check-only --dtype all --size 705x705x705,129x257x33 --pad 7 --beta 0.5 2>&1 | grep -E "FAIL|passed"
    build/05_mma/run --check-only --dtype all --size 1000x1000x1000,256x256x8192 --offset 8 --alpha 1.5 --beta -0.75 2>&1 | grep -E "FAIL|passed"
    echo "== ncu (full reports in \$OUT/ncu_*.txt)"
    SEC="--section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section Occupancy"
    STALL='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
    for v in ${NCU_06:-128x256x64_s3 128x128x64_s3}; do
        timeout 60 ncu --clock-control none -k regex:gemm_swizzle --launch-skip 1 --launch-count 1 $SEC \
            build/06_swizzle/run --variant $v --dtype fp16 --size $S --iters 1 --warmup 1 > $OUT/ncu_06_$v.txt 2>&1
        timeout 60 ncu --clock-control none -k regex:gemm_swizzle --launch-skip 1 --launch-count 1 --metrics "$STALL" \
            build/06_swizzle/run --variant $v --dtype fp16 --size $S --iters 1 --warmup 1 > $OUT/ncu_stall_06_$v.txt 2>&1
        echo "-- ncu 06 $v"; grep -E "Duration|SM Frequency|Compute \(SM\) Th|Memory Through|L2 Cache Th|Warp Cycles Per Issued|Issue Slots Busy|Achieved Occ" $OUT/ncu_06_$v.txt | head -12
        grep -E "stalled" $OUT/ncu_stall_06_$v.txt | sort -k3 -g -r | head -8
    done
    timeout 60 ncu --clock-control none -k regex:gemm_mma --launch-skip 1 --launch-count 1 --metrics "$STALL" --section SpeedOfLight \
        build/05_mma/run --variant padded --dtype fp16 --size $S --iters 1 --warmup 1 > $OUT/ncu_05.txt 2>&1
    echo "-- ncu 05 padded"; grep -E "Duration|SM Frequency|stalled" $OUT/ncu_05.txt | sort -k3 -g -r | head -10
else
    build/06_swizzle/run --variant all --dtype fp16,bf16 --size $S --iters 20 $T 2>&1 | tee -a $OUT/log.txt | tail -9
    build/05_mma/run --variant all --dtype fp16,bf16 --size $S --iters 20 $T 2>&1 | tee -a $OUT/log.txt | tail -9
    echo "== correctness (brief): 06 every variant, every layout, beta 0.5"
    build/06_swizzle/run --check-only --dtype all --layout all --size 705x705x705,129x257x33,4093x4093x4096 --beta 0.5 2>&1 | tee -a $OUT/log.txt | grep -E "FAIL|passed"
    echo "== ncu bank conflicts (shared ld / st) and tensor pipe"
    M="l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,sm__cycles_elapsed.avg.per_second"
    timeout 40 ncu --clock-control none -k regex:gemm_swizzle --launch-skip 1 --launch-count 1 --metrics $M build/06_swizzle/run --dtype fp16 --size $S --iters 1 --warmup 1 > $OUT/ncu_final_06.txt 2>&1
    grep -E "bank_conflicts|wavefronts|per_second" $OUT/ncu_final_06.txt | head -5
    timeout 40 ncu --clock-control none -k regex:gemm_mma --launch-skip 1 --launch-count 1 --metrics $M build/05_mma/run --variant padded --dtype fp16 --size $S --iters 1 --warmup 1 > $OUT/ncu_final_05.txt 2>&1
    grep -E "bank_conflicts|wavefronts|per_second" $OUT/ncu_final_05.txt | head -5
    echo "== gpu tests (tests/gpu/run_gpu_tests.sh 05_mma 06_swizzle)"
    BUILD=build GPU_TEST_LOG=$OUT/gpu_tests.log timeout 100 bash tests/gpu/run_gpu_tests.sh 05_mma 06_swizzle > $OUT/gpu_tests.txt 2>&1
    grep -vE "^ok" $OUT/gpu_tests.txt | tail -8; echo "ok lines: $(grep -c '^ok' $OUT/gpu_tests.txt)"
    echo "== compute-sanitizer (interior main loop + edges + generic path)"
    for tool in memcheck racecheck synccheck; do
        for l in 06_swizzle 05_mma; do
            timeout 40 compute-sanitizer --tool $tool --error-exitcode 99 build/$l/run --check-only --dtype fp16 --size 256x256x512,300x260x520 --beta 0.5 > $OUT/san_${tool}_$l.txt 2>&1
            echo "$tool $l TN exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/san_${tool}_$l.txt | head -1)"
        done
        timeout 30 compute-sanitizer --tool $tool --error-exitcode 99 build/06_swizzle/run --variant 128x256x64_s3 --check-only --dtype bf16 --layout NT --size 129x257x130 --offset 1 > $OUT/san_${tool}_06_nt.txt 2>&1
        echo "$tool 06 NT/offset exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/san_${tool}_06_nt.txt | head -1)"
    done
fi

#!/usr/bin/env bash
# run7.sh - lesson 04: the ldg128 x-major fix (debug tool + every case with smem poisoned by the
# harness), ncu of the 04 default and of cuBLAS's SGEMM kernel side by side.
set -u
OUT=${OUT:-/tmp/run7}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader
echo "== debug tool (A=1, B tagged by k_tile; C must be exact)"
for L in 0 1 2 3; do for v in 0 6 7; do dbg/ldg04_debug $v $L 128 128 72 0 | grep -v "^  " | head -1; done; done
dbg/ldg04_debug 0 1 256 256 64 7 | grep -v "^  " | head -1
echo "== gpu_cases 04 (every variant)"
grep -v '^#' lessons/04_copy/gpu_cases.txt | while read -r args; do
  [ -z "$args" ] && continue
  build/04_copy/run $args 2>&1 | grep -E "FAIL|passed|refused|error" | head -5
done
build/04_copy/run --check-only --layout all --size 4093x4093x4096,1000x1000x1000 --beta 0.5 2>&1 | grep -E "FAIL|passed"
echo "== ncu 04 default vs cuBLAS (4096^3 TN)"
SEC="--section SpeedOfLight --section WarpStateStats --section LaunchStats --section Occupancy --section ComputeWorkloadAnalysis --section InstructionStats"
timeout 150 ncu --clock-control none -k 'regex:^(?!fill|poison).*' $SEC \
  build/04_copy/run --check-only --size 4096x4096x4096 > $OUT/ncu_04.txt 2>&1
grep -E "^  [a-zA-Z_].*\(|Duration|SM Frequency|Registers Per|Block Size|Grid Size|Shared Memory Config|Dynamic Shared|Achieved Occ|Issue Slots Busy|Issued Ipc|Warp Cycles Per Issued|Executed Ipc A|Theoretical Occ|Compute \(SM\) Th" $OUT/ncu_04.txt | head -60
STALL='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
timeout 100 ncu --clock-control none -k 'regex:^(?!fill|poison).*' --metrics "$STALL" \
  build/04_copy/run --check-only --size 4096x4096x4096 > $OUT/ncu_04_stall.txt 2>&1
awk '/^  [a-zA-Z_].*\(/ {print; n=0} /stalled/ {if ($3+0 > 0.05) print}' $OUT/ncu_04_stall.txt | head -60

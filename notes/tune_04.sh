#!/usr/bin/env bash
# Lesson 04 tuning run (issue 4): every variant at 4096^3, then the best two at 2048^3, 8192^3
# and 4095x4095x4096 (edge tiles). Run from the repository root on the GPU machine after
# `make` (default ARCH="80 90"). Output: the tables on stdout, CSV in $OUT/tune_04.csv.
# Picking the default: the variant with the highest TFLOP/s at 4096^3 that also holds >= 80%
# of cuBLAS at 2048^3 and 8192^3 becomes the first entry of variants[] in
# lessons/04_copy/gemm.cu (the first entry is the default).
set -u
OUT=${OUT:-/tmp/out_tune04}; mkdir -p "$OUT"
T="--csv $OUT/tune_04.csv"
R=build/04_copy/run
grep -c "0 bytes spill stores" build/04_copy/ptxas.txt  # kernels built without spills (expect all)
# 1. correctness of every variant (the lesson's cases; each line must exit 0)
[ "${TUNE04_CASES:-1}" = 1 ] && while IFS= read -r line; do
    case "$line" in ''|'#'*) continue;; esac
    # shellcheck disable=SC2086
    $R $line > "$OUT/case.txt" 2>&1; echo "rc=$? $line: $(tail -1 "$OUT/case.txt")"
done < lessons/04_copy/gpu_cases.txt
# 2. every variant at 4096^3 (TN)
$R --variant all --size 4096x4096x4096 --iters 10 $T 2>&1 | tee "$OUT/all_4096.txt" | tail -14
# 3. the best two at 4096^3 (by TFLOP/s in the CSV), at the other sizes
BEST=$(awk -F, 'NR==1{for(i=1;i<=NF;i++){if($i=="variant")v=i;if($i=="tflops")t=i;if($i=="m")m=i}next}
    $m==4096{print $t, $v}' "$OUT/tune_04.csv" | sort -gr | head -2 | awk '{print $2}')
echo "best two at 4096^3: $BEST"
for v in $BEST; do
    $R --variant "$v" --size 2048x2048x2048,8192x8192x8192,4095x4095x4096,4096x4096x4096 \
        --iters 10 $T 2>&1 | tail -6
done

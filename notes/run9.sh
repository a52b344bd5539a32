#!/usr/bin/env bash
# run9.sh - lesson 02 (slices with 64-bit k strides) vs lesson 01, then notes/tune_0506b.sh.
set -u
OUT=${OUT:-/tmp/run9}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
echo "== 02 vs 01, 4096^3"
for L in TT NT NN TN; do
  build/01_naive/run --variant coalesced --layout $L --size 4096x4096x4096 --iters 5 2>&1 | grep -E "^coalesced"
  build/02_layout/run --layout $L --size 4096x4096x4096 --iters 5 2>&1 | grep -E "^(layout|hand)"
done
build/02_layout/run --check-only --layout all --pad 3 --offset 1 --size 127x129x131,1000x1000x1000 --beta 0.5 2>&1 | grep -E "FAIL|passed"
echo "== 05/06"
OUT=$OUT bash notes/tune_0506b.sh > $OUT/tune.txt 2>&1
cat $OUT/summary.txt

#!/usr/bin/env bash
# run25.sh - lesson 04 indexed through the layout library (common/layout_tv.h), on the H200:
#   1. correctness: every case of lessons/04_copy/gpu_cases.txt, every variant and layout
#      (scripts/gpu_check.sh STEPS=test), and memcheck on odd sizes (STEPS=sanitize);
#   2. speed: the default (ldg128_128x128x8_4w) against the b20ee34 build of the same kernel
#      (hand-written indices), timed in the same call, alternating, at 2048^3, 4096^3, 8192^3
#      and 4095x4095x4096, TN and NN: each within 2% is the goal.
# Usage (repository root, build/ from `make all` carried, the b20ee34 lesson-04 binary at
# $BASE): BASE=.base/04_copy/run bash notes/run25.sh
set -u
OUT=${OUT:-/tmp/run25}; mkdir -p "$OUT"
BASE=${BASE:-.base/04_copy/run}
NEW=build/04_copy/run
[ -x "$BASE" ] || { echo "run25: no b20ee34 build at $BASE"; exit 2; }
OUT=$OUT LESSONS=04_copy STEPS="test sanitize" bash scripts/gpu_check.sh 2>&1 | tail -14
SIZES="--size 2048x2048x2048 --size 4096x4096x4096 --size 8192x8192x8192 --size 4095x4095x4096"
for rep in 1 2; do
    for who in new base; do
        bin=$NEW; [ $who = base ] && bin=$BASE
        for lay in TN NN; do
            echo "== $who rep $rep $lay"
            "$bin" --variant default --layout $lay $SIZES --iters 30 --csv "$OUT/time_$who.csv" 2>&1 |
                tail -n 6
        done
    done
done
# median TFLOP/s per (size, layout) of each build, and new/base
python3 - "$OUT/time_new.csv" "$OUT/time_base.csv" <<'PY' 2>/dev/null || echo "(python3 missing: compare $OUT/time_*.csv by hand)"
import csv, sys, statistics
def load(p):
    out = {}
    for r in csv.DictReader(open(p)):
        k = (r['m'], r['n'], r['k'], r['layout'])
        out.setdefault(k, []).append((float(r['tflops']), float(r['cublas_tflops'])))
    return {k: (statistics.median(a for a, _ in v), statistics.median(b for _, b in v))
            for k, v in out.items()}
new, base = load(sys.argv[1]), load(sys.argv[2])
for k in sorted(new):
    if k in base:
        (tn, cn), (tb, cb) = new[k], base[k]
        print("%sx%sx%s %s: new %.2f base %.2f TFLOP/s (cuBLAS %.2f / %.2f)  new/base %.3f"
              % (*k, tn, tb, cn, cb, tn / tb))
PY

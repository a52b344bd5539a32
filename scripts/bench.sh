#!/usr/bin/env bash
# bench.sh - make bench: the ceilings probe, then every built lesson against cuBLAS (timed in
# the same run), one CSV row per (lesson, variant, dtype, layout, M, N, K).
#   - each lesson's default variant (the first in its table), every dtype it claims, in its
#     default operand order, over the bench sweep: squares 256..8192 (powers of two) plus
#     127^3, 1000^3, 4093^3, 4096x4096x1024, 8192x1024x4096, 1024x8192x4096;
#   - every other variant at 4096^3 (the per-lesson step charts).
# Every row is checked against cuBLAS (and float64 samples) before it is timed.
# Output: $BENCH_CSV (default plots/data/<device>.csv, spaces in the device name as '_') and
# $PROBE_CSV (default <same>_probe.csv). Fits in one device call (< 10 min on an H200).
# Usage: BUILD=build bash scripts/bench.sh 01_naive 02_layout ...
set -u
BUILD=${BUILD:-build}
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | tr ' ' '_')
[ -n "$dev" ] || { echo "bench: no GPU on this machine (make bench needs an NVIDIA GPU)" >&2; exit 3; }
CSV=${BENCH_CSV:-plots/data/$dev.csv}
PROBE_CSV=${PROBE_CSV:-${CSV%.csv}_probe.csv}
mkdir -p "$(dirname "$CSV")"
rm -f "$CSV" "$PROBE_CSV"
"$BUILD/tools/probe" --csv "$PROBE_CSV" || exit 3
status=0
n=$#; i=0; t0=$(date +%s)
for l in "$@"; do
    i=$((i+1))
    run="$BUILD/$l/run"
    # the naive lessons time fewer runs (a 8192^3 naive GEMM takes seconds)
    iters=10; [ $((10#${l%%_*})) -le 2 ] && iters=3
    echo "[$i/$n] $l: the default variant over the sweep, other variants at 4096^3 ($(( $(date +%s) - t0 )) s so far)" >&2
    "$run" --variant default --sweep bench --dtype all --iters $iters --warmup 1 --csv "$CSV" || status=1
    for v in $("$run" --list | awk 'NR>2 {print $1}'); do
        "$run" --variant "$v" --size 4096x4096x4096 --dtype all --iters $iters --warmup 1 --csv "$CSV" || status=1
    done
done
echo "bench: wrote $CSV and $PROBE_CSV in $(( $(date +%s) - t0 )) s"
exit $status

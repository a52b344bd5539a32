#!/usr/bin/env bash
# bench.sh - make bench: every built lesson (each variant, each dtype it claims, TN) and
# cuBLAS over the bench sweep (squares 256..8192 plus odd and non-square shapes), one CSV row
# per (lesson, variant, dtype, layout, M, N, K), plus the ceilings probe.
# Output: $BENCH_CSV (default plots/data/<device>.csv, device name with spaces as '_').
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
n=$#; i=0
for l in "$@"; do
    i=$((i+1))
    echo "[$i/$n] $l" >&2
    # the slow lessons time fewer runs; every row is still checked against cuBLAS first
    iters=10; [ "${l%%_*}" -le 2 ] && iters=3
    "$BUILD/$l/run" --sweep bench --dtype all --iters $iters --warmup 1 --csv "$CSV" || status=1
done
echo "bench: wrote $CSV and $PROBE_CSV"
exit $status

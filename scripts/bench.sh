#!/usr/bin/env bash
# bench.sh - make bench: the ceilings probe, then every built lesson against cuBLAS (timed in
# the same run), one CSV row per (lesson, variant, dtype, layout, M, N, K).
#   - each lesson's default variant (the first in its table), every dtype it claims, in its
#     default operand order, over the bench sweep: squares 256..8192 (powers of two) plus
#     127^3, 1000^3, 4093^3, 4096x4096x1024, 8192x1024x4096, 1024x8192x4096;
#   - every other variant at 4096^3 (the per-lesson step charts);
#   - lesson 07 (the epilogue chart): its default with --epilogue none,bias,bias_gelu (bias
#     along n), fp16 and bf16 in, the input type out, at 2048^3, 4096^3, 8192^3,
#     8192x1024x4096 and 2048x14336x4096; each row also holds cuBLASLt with the epilogue fused
#     (lt_ms) and cuBLAS + a separate bias/activation kernel (unfused_ms);
#   - lesson 08 (the shapes chart): its default (the dispatcher) over plots/data/shapes.txt in
#     fp16, bf16 and fp32, and the single kernels one has without dispatch over the same
#     shapes: lesson 06's default (fp16, bf16) and lesson 04's (fp32). Shapes a kernel
#     refuses have no row.
# Every row is checked against cuBLAS (and float64 samples) before it is timed.
# Output: $BENCH_CSV (default plots/data/<device>.csv, spaces in the device name as '_'),
# $PROBE_CSV (default <same>_probe.csv), and next to it $EPI_CSV (<same>_epilogue.csv, the
# lesson 07 part) and $SHAPES_CSV (<same>_shapes.csv, the lesson 08 part), kept apart so that
# their rows do not mix with the sweep's rows of the same lesson, variant and size.
# A run replaces only what it measured: the rows of the lessons it was given (other lessons'
# rows in $BENCH_CSV stay), the probe CSV, and the epilogue and shapes CSVs when 07 and 08 are
# among the lessons; so `bash scripts/bench.sh 09_wgmma` redoes lesson 09's rows alone.
# Fits in one device call: an estimated 5 min on an H200 (the sweeps and steps took about
# 2.5 min in earlier runs; the epilogue part, 30 cases, and the shape suite, 94 cases, add an
# estimated 40 s and 75 s, mostly the checks of the large cases; each part prints its time).
# Usage: BUILD=build bash scripts/bench.sh 01_naive 02_layout ...
set -u
BUILD=${BUILD:-build}
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | tr ' ' '_')
[ -n "$dev" ] || { echo "bench: no GPU on this machine (make bench needs an NVIDIA GPU)" >&2; exit 3; }
CSV=${BENCH_CSV:-plots/data/$dev.csv}
PROBE_CSV=${PROBE_CSV:-${CSV%.csv}_probe.csv}
EPI_CSV=${EPI_CSV:-${CSV%.csv}_epilogue.csv}
SHAPES_CSV=${SHAPES_CSV:-${CSV%.csv}_shapes.csv}
# have LESSON ARGS...: whether LESSON is among ARGS (the lessons being benched)
have() { local l=$1; shift; case " $* " in *" $l "*) return 0 ;; esac; return 1; }
mkdir -p "$(dirname "$CSV")"
NEW_CSV=$CSV.new; rm -f "$NEW_CSV" "$PROBE_CSV"
have 07_epilogue "$@" && rm -f "$EPI_CSV"
have 08_dispatch "$@" && rm -f "$SHAPES_CSV"
"$BUILD/tools/probe" --csv "$PROBE_CSV" || exit 3
status=0
n=$#; i=0; t0=$(date +%s)
for l in "$@"; do
    i=$((i+1))
    run="$BUILD/$l/run"
    # the naive lessons time fewer runs (a 8192^3 naive GEMM takes seconds)
    iters=10; [ $((10#${l%%_*})) -le 2 ] && iters=3
    echo "[$i/$n] $l: the default variant over the sweep, other variants at 4096^3 ($(( $(date +%s) - t0 )) s so far)" >&2
    "$run" --variant default --sweep bench --dtype all --iters $iters --warmup 1 --csv "$NEW_CSV" || status=1
    for v in $("$run" --list | awk 'NR>2 {print $1}'); do
        "$run" --variant "$v" --size 4096x4096x4096 --dtype all --iters $iters --warmup 1 --csv "$NEW_CSV" || status=1
    done
done
echo "bench: the sweeps and steps took $(( $(date +%s) - t0 )) s" >&2
# $CSV: the rows of the lessons not benched now (column 1 is the lesson), then the new rows;
# an old file with another header (columns changed since) keeps none of its rows
if [ -s "$NEW_CSV" ]; then
    [ -s "$CSV" ] && [ "$(head -n 1 "$CSV")" != "$(head -n 1 "$NEW_CSV")" ] && {
        echo "bench: $CSV has other columns; its other lessons' rows are dropped" >&2; rm -f "$CSV"; }
    { head -n 1 "$NEW_CSV"
      [ -s "$CSV" ] && awk -F, -v now=" $* " 'NR > 1 && index(now, " " $1 " ") == 0' "$CSV"
      tail -n +2 "$NEW_CSV"; } > "$NEW_CSV.all" && mv "$NEW_CSV.all" "$CSV"
    rm -f "$NEW_CSV"
fi
wrote="$CSV and $PROBE_CSV"

# lesson 07: plain, fused bias, fused bias+GELU against cuBLASLt fused and cuBLAS + a separate
# kernel (30 cases, 20 timed runs each; the time goes to the checks of the 8192^3 cases)
if have 07_epilogue "$@"; then
    t1=$(date +%s)
    echo "[epilogue] 07_epilogue: none, bias, bias_gelu at 5 shapes, fp16 and bf16" >&2
    "$BUILD/07_epilogue/run" --variant default --dtype fp16,bf16 --epilogue none,bias,bias_gelu \
        --bias-axis n --size 2048x2048x2048,4096x4096x4096,8192x8192x8192,8192x1024x4096,2048x14336x4096 \
        --iters 20 --warmup 3 --csv "$EPI_CSV" || status=1
    echo "bench: the epilogue part took $(( $(date +%s) - t1 )) s" >&2
    wrote="$wrote, $EPI_CSV"
fi

# lesson 08: the shape suite through the dispatcher, and the one-kernel baselines (06 for
# fp16/bf16, 04 for fp32) over the same shapes (94 cases: 48 + 30, lesson 06 refuses 4093^3,
# + 16; 10 timed runs each)
if have 08_dispatch "$@"; then
    t1=$(date +%s)
    shapes=$(grep -v '^#' plots/data/shapes.txt | grep . | paste -sd, -)
    echo "[shapes] 08_dispatch default over plots/data/shapes.txt, fp16 bf16 fp32" >&2
    "$BUILD/08_dispatch/run" --variant default --dtype fp16,bf16,fp32 --size "$shapes" \
        --iters 10 --warmup 3 --csv "$SHAPES_CSV" || status=1
    # the baselines run whenever they are built, also when only lesson 08 is benched
    for base in 06_swizzle:fp16,bf16 04_copy:fp32; do
        l=${base%%:*} dts=${base#*:}
        if [ -x "$BUILD/$l/run" ]; then
            echo "[shapes] $l default (one kernel for every shape), $dts" >&2
            "$BUILD/$l/run" --variant default --dtype "$dts" --size "$shapes" \
                --iters 10 --warmup 3 --csv "$SHAPES_CSV" || status=1
        else
            echo "bench: $BUILD/$l/run not built: the shapes chart has no $dts baseline" >&2
        fi
    done
    echo "bench: the shape suite took $(( $(date +%s) - t1 )) s" >&2
    wrote="$wrote, $SHAPES_CSV"
fi
echo "bench: wrote $wrote in $(( $(date +%s) - t0 )) s"
exit $status

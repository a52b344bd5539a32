#!/usr/bin/env bash
# tune_0506b.sh - second tuning round for lessons 05/06 (issue #5), one device call, < ~3 min.
#   0. a smoke test of each candidate (one that fails or hangs is left out of the timing)
#   1. every variant of 05 and 06 at 4096^3, fp16 and bf16, --iters 20, two passes (the
#      candidates and the current defaults side by side, twice, to see the run-to-run noise);
#      SM clock and power sampled meanwhile (clocks.csv)
#   2. quick correctness of the new variants: odd sizes, beta 0.5, K not a multiple of the
#      tile, K-tile counts around the unrolled loops' turn lengths, --offset 1 where accepted
#   3. (NCU=1) ncu stall breakdown of the best candidates (adds ~1-2 min)
# PASSES=1 halves part 1.
# Candidates (see the variant tables; run 9 at d689988 timed 05 padded_db, padded_db_int,
# db_int_128x256 and 06 128x256x64_s3_u, 128x128x64_s3_u, 128x256x64_s4_mb): now 05
# padded_128x256x128 (run 10: the new default) against padded_128x256; no 06 candidate.
# Needs build/05_mma/run and build/06_swizzle/run (built on the CPU machine, carried over):
#   run tool: carry ["build/05_mma", "build/06_swizzle", "build/common"], command
#   "bash notes/tune_0506b.sh"; results under $OUT (summary.txt, log.txt, times.csv).
set -u
OUT=${OUT:-/tmp/tune0506b}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
S=4096x4096x4096
L05=build/05_mma/run
L06=build/06_swizzle/run
NEW05="padded_128x256x128"
NEW06=""
T0=$(date +%s)
say() { echo "$@" | tee -a "$OUT/summary.txt" >&2; }  # stderr: usable inside $(...)
# run LIMIT_S ARGS...: one harness call, output to log.txt, exit status noted on failure
run() {
    local lim=$1; shift
    echo "### $* " >> "$OUT/log.txt"
    timeout "$lim" "$@" >> "$OUT/log.txt" 2>&1
    local rc=$?
    [ $rc = 0 ] || say "  !! exit $rc: $*"
    return $rc
}
# the result rows of the last harness call (variant dtype ... TFLOP/s %cuBLAS check)
rows() { awk '/^### /{buf=""; next} {buf=buf $0 "\n"} END{printf "%s", buf}' "$OUT/log.txt" |
         grep -E "^[A-Za-z0-9_]+ +(fp16|bf16) +TN " | awk '{printf "  %-18s %-5s %9s TFLOP/s %6s%% %s\n", $1, $2, $8, $10, $12}'; }

nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv,noheader | tee "$OUT/gpu.txt"
say "== commit $(cat build/commit.txt 2>/dev/null)"

echo "== 0. smoke test of each candidate (a broken or hanging one is left out of the timing)"
ok_list() { # binary new-variants -> comma list: the lesson's old variants + candidates that pass
    local bin=$1; shift
    local all; all=$($bin --list | awk 'NR > 1 {print $1}')
    local keep=""
    for v in $all; do
        case " $* " in
            *" $v "*) if run 30 $bin --variant $v --check-only --dtype fp16,bf16 --size 256x512x1024,300x260x520 --beta 0.5; then
                          keep="$keep,$v"; else say "  candidate $v FAILED its smoke test: left out"; fi ;;
            *) keep="$keep,$v" ;;
        esac
    done
    echo "${keep#,}"
}
V06=$(ok_list $L06 $NEW06); V05=$(ok_list $L05 $NEW05)
say "   timing 06: $V06"
say "   timing 05: $V05"

echo "== 1. timing 4096^3 (median of 20)"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv,noheader -lms 250 > "$OUT/clocks.csv" 2>/dev/null &
SMI=$!
for pass in $(seq 1 ${PASSES:-2}); do
    say "-- pass $pass: 06"
    run 150 $L06 --variant $V06 --dtype fp16,bf16 --size $S --iters 20 --csv "$OUT/times.csv"; rows | tee -a "$OUT/summary.txt"
    say "-- pass $pass: 05"
    run 150 $L05 --variant $V05 --dtype fp16,bf16 --size $S --iters 20 --csv "$OUT/times.csv"; rows | tee -a "$OUT/summary.txt"
done
kill $SMI 2>/dev/null; wait $SMI 2>/dev/null
say "   SM clock under load (MHz, min/median/max of samples > 1000 MHz): $(awk -F', ' '{gsub(/ MHz/,"",$2); if ($2+0 > 1000) print $2+0}' "$OUT/clocks.csv" | sort -n | awk '{a[NR]=$1} END{if (NR) print a[1], a[int((NR+1)/2)], a[NR]}')"
say "   ($(( $(date +%s) - T0 )) s so far)"

echo "== 2. correctness of the new variants"
say "== 2. checks (all new variants of a lesson per line; harness summary, then any FAIL lines)"
C05=$(echo $NEW05 | tr ' ' ','); C06=$(echo $NEW06 | tr ' ' ',')
chk() { # lesson-binary variants label args...
    local bin=$1 v=$2 label=$3; shift 3
    [ -n "$v" ] || return 0  # no candidate in this lesson
    run 90 "$bin" --variant "$v" --check-only "$@"
    say "  ${bin#build/} $label: $(tail -1 "$OUT/log.txt")"
    awk '/^### /{buf=""; next} {buf=buf $0 "\n"} END{printf "%s", buf}' "$OUT/log.txt" | grep -E "FAIL|error" | head -5 | tee -a "$OUT/summary.txt"
}
KT="256x512x64,256x512x128,256x512x192,256x512x256,256x512x320,256x512x384,256x512x448,256x512x512,256x512x576,256x512x640,256x512x704,256x512x768,256x512x1088,1000x1000x1000,256x256x8192"
# 05 (align 8: every leading dimension a multiple of 8, so N = K mod 8 with --pad 7)
chk $L05 "$C05" "odd sizes, pad 7, beta 0.5" --dtype all --beta 0.5 --pad 7 --size 705x705x705,129x257x33,64x65x705
chk $L05 "$C05" "edges, K=8, beta 0.5" --dtype all --beta 0.5 --size 4093x4088x4096,128x128x8,1x704x712,64x64x8
chk $L05 "$C05" "K tiles 1..17, 1000, 8192" --dtype fp16 --size $KT
chk $L05 "$C05" "offset 8, alpha/beta" --dtype all --offset 8 --alpha 1.5 --beta -0.75 --size 1000x1000x1000
# 06 (every layout and offset accepted; fast path needs lda, ldb multiples of 8)
chk $L06 "$C06" "odd sizes, beta 0.5 (generic + fast)" --dtype all --beta 0.5 --size 705x705x705,129x257x33,4093x4093x4096,128x128x8,64x64x705
chk $L06 "$C06" "odd sizes, pad 7 (fast path)" --dtype all --beta 0.5 --pad 7 --size 705x705x705,129x257x33,64x64x705
chk $L06 "$C06" "K tiles 1..17, 1000, 8192, short K" --dtype fp16 --size $KT,300x300x40,130x260x100
chk $L06 "$C06" "offset 1 (generic)" --dtype all --offset 1 --beta -0.75 --size 705x705x705,129x257x33
chk $L06 "$C06" "every layout" --dtype bf16 --layout all --size 129x257x33,128x128x8
say "   ($(( $(date +%s) - T0 )) s so far)"

echo "== compute-sanitizer on the 05 candidates (small, interior + edges)"
for tv in "memcheck padded_128x256x128 $L05" "racecheck padded_128x256x128 $L05"; do
    set -- $tv
    timeout 60 compute-sanitizer --tool $1 --error-exitcode 99 $3 --variant $2 --check-only --dtype fp16 --size 256x512x512,300x260x520 --beta 0.5 > "$OUT/san_$1_$2.txt" 2>&1
    say "  $1 $2: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san_$1_$2.txt" | head -1)"
done
say "   ($(( $(date +%s) - T0 )) s so far)"

if [ "${NCU:-0}" = 1 ]; then
    echo "== 3. ncu stall breakdown"
    STALL='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
    M="sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum"
    for vb in "padded_128x256 $L05 gemm_mma_db" "padded_128x256x128 $L05 gemm_mma_db"; do
        set -- $vb
        timeout 60 ncu --clock-control none -k regex:$3 --launch-skip 1 --launch-count 1 --metrics "$STALL" \
            $2 --variant $1 --dtype fp16 --size $S --iters 1 --warmup 1 > "$OUT/ncu_stall_$1.txt" 2>&1
        timeout 60 ncu --clock-control none -k regex:$3 --launch-skip 1 --launch-count 1 --metrics "$M" \
            $2 --variant $1 --dtype fp16 --size $S --iters 1 --warmup 1 > "$OUT/ncu_$1.txt" 2>&1
        say "-- ncu $1"
        grep -E "per_second|pct_of_peak|inst_executed" "$OUT/ncu_$1.txt" | tee -a "$OUT/summary.txt"
        grep -E "stalled" "$OUT/ncu_stall_$1.txt" | sort -k3 -g -r | head -8 | tee -a "$OUT/summary.txt"
    done
fi
say "== done in $(( $(date +%s) - T0 )) s"

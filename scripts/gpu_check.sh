#!/usr/bin/env bash
# gpu_check.sh - everything the GPU machine has to do, in ONE run of this script:
#   probe     measured ceilings (FFMA, mma.sync, HBM copy, cuBLAS)       -> $OUT/probe.csv
#   test      tests/gpu/run_gpu_tests.sh over the lessons                -> $OUT/test-gpu.txt
#   sanitize  compute-sanitizer memcheck (all lessons), racecheck and synccheck (03+), beta 0.5 and 0
#             on small odd sizes, and with --pad 7 (aligned leading dimensions, odd extents:
#             the 16-byte copies' partial chunks); SANITIZE_RUNS="dtype:beta:pad ..." picks
#             the runs (default fp32/fp16 x beta 0.5/0 unpadded, fp32:0.5:7 fp16:0.5:7 fp16:0:7)
#                                                                          -> $OUT/sanitize.txt
#   ncu       Nsight Compute shared-memory bank conflicts of 05 and 06    -> $OUT/ncu.txt
#   bench     scripts/bench.sh (make bench's sweep)   -> $OUT/bench.csv, $OUT/bench_probe.csv
#                                                        (+ bench_epilogue.csv with 07,
#                                                        bench_shapes.csv with 08)
# Steps not in the default list (name them in STEPS):
#   layouts   lesson 02's layout kernel vs lesson 01's coalesced kernel at 4096^3 in every
#             operand order: fails when the layout kernel is more than 5% slower  -> $OUT/layouts.txt
#   ksweep    each lesson's default variant and cuBLAS at M = N = 4096, K = 64 ... 16384; the
#             least-squares fit time = fixed + per_K * K separates the per-launch cost (prologue,
#             epilogue, last wave) from the steady state                      -> $OUT/ksweep.txt
#   stalls    Nsight Compute of each lesson's default variant and of cuBLAS's kernel at 4096^3:
#             speed of light, issue slots, occupancy, the largest stall reasons -> $OUT/stalls.txt
#   cases_memcheck  every line of each lesson's gpu_cases.txt under compute-sanitizer memcheck
#                                                                             -> $OUT/cases_memcheck.txt
#   grade     the assignments: every staff solution must score 100, every untouched skeleton
#             less (with a clean exit), every deliberately wrong solution must lose correctness
#             points (tests/grade/grade_all.sh --check)  -> $OUT/grade.txt (the score table last)
#             needs `make grade-build` on the CPU machine (binaries + Criterion's libraries in
#             build/grade/lib, for a machine without Criterion)
#   tune      lesson 08's --tune over plots/data/shapes.txt plus shapes off the suite (TUNE_EXTRA),
#             fp16, bf16 and fp32 TN: every candidate of the registry checked once and timed
#             (--iters 10 --warmup 2); the winners as a table; then the table read back
#             (--tuned --explain) and the same shapes timed through `default` with the table and
#             cuBLAS   -> $OUT/tune.txt, $OUT/tune_08.txt (the table), $OUT/tune_suite.csv
#             (about 1085 candidates, 1000 TFLOP of timed work: 1-2 min on an H200, 4 at most)
#   versus    each pair of VERSUS ("lesson:variant=base_lesson:variant ...") timed in the same
#             run, alternating new and base builds twice, at VERSUS_SIZES (default 2048^3,
#             4096^3, 8192^3, 4095x4095x4096) in the lesson's default layouts and dtypes (or
#             VERSUS_DTYPES, e.g. fp16,bf16): the base build is $BASE_BUILD/base_lesson/run
#             (an older commit's `make all`); prints
#             the median TFLOP/s of each and new/base                     -> $OUT/versus.txt
# Full logs (and nvidia-smi, env) go to one archive, $OUT/logs_<steps>.tar.gz, so that a run
# leaves few files to copy back.
# The binaries are built on the CPU machine (make all) and travel in build/ (carry it).
# Usage (on the GPU machine): STEPS="probe test sanitize bench" LESSONS="01_naive 02_layout" \
#                             bash scripts/gpu_check.sh
# Prints a short summary last; exits non-zero when a step failed.
set -u
OUT=${OUT:-/tmp/gpu_check_out}
mkdir -p "$OUT/logs"
LOGS=$OUT/logs
BUILD=${BUILD:-build}
STEPS=${STEPS:-probe test sanitize bench}
LESSONS=${LESSONS:-$(ls -d lessons/*/ | xargs -n1 basename | tr '\n' ' ')}
export PATH=/usr/local/cuda/bin:$PATH
summary=()
step_ok() { summary+=("$1: ok"); }
step_fail() { summary+=("$1: FAILED ($2)"); status=1; }
status=0
{ date -u; nvidia-smi; git log -1 --oneline 2>/dev/null; cat "$BUILD/commit.txt" 2>/dev/null; } > "$LOGS/env.txt" 2>&1
for s in $STEPS; do
    t0=$(date +%s)
    case $s in
    probe)
        "$BUILD/tools/probe" --csv "$OUT/probe.csv" 2>&1 | tee "$OUT/probe.txt" && step_ok probe || step_fail probe "see probe.txt" ;;
    test)
        progs=()
        for p in "$BUILD"/tests/gpu/*; do [ -x "$p" ] && progs+=("$p"); done
        GPU_TEST_LOG="$LOGS/test-gpu.log" BUILD=$BUILD bash tests/gpu/run_gpu_tests.sh $LESSONS -- "${progs[@]}" \
            > "$OUT/test-gpu.txt" 2>&1
        rc=$?; tail -n 40 "$OUT/test-gpu.txt"
        [ $rc = 0 ] && step_ok test || step_fail test "see test-gpu.txt" ;;
    sanitize)
        : > "$LOGS/sanitize.log"; : > "$OUT/sanitize.txt"; bad=0
        for l in $LESSONS; do
            num=$((10#${l%%_*}))
            tools="memcheck"; [ $num -ge 3 ] && tools="memcheck racecheck synccheck"
            for tool in $tools; do
                for run in ${SANITIZE_RUNS:-"fp32:0.5:0" "fp16:0.5:0" "fp32:0:0" "fp16:0:0" "fp32:0.5:7" "fp16:0.5:7" "fp16:0:7"}; do
                    IFS=: read -r dt beta pad <<< "$run"
                    # beta 0.5 reads C; beta 0 (C prefilled with NaN) takes the kernels' beta = 0
                    # epilogues (lesson 06: staged through smem); 1000x9000x72 has more CTA
                    # tiles than an H200 has SMs (persistent CTAs walk several)
                    sizes=127x129x67,65x33x200,200x136x72,1000x9000x72
                    # --pad 7 makes the leading dimensions multiples of 8 (TN 127x129x65: lda
                    # = ldb = 72, ldc = 136; NT 121x125x67: lda = 128, ldb = 132) at extents that
                    # are not: the 16-byte copies then meet a partial chunk at the end of every
                    # row, the last row's at the end of an exactly-sized allocation
                    [ "$pad" != 0 ] && sizes=127x129x65,121x125x67,1x705x65
                    args=(--check-only --layout all --dtype $dt --size $sizes --beta $beta --pad $pad)
                    # memcheck every variant; racecheck/synccheck (slow) the default variant
                    [ $tool != memcheck ] && args+=(--variant default)
                    "$BUILD/$l/run" --list | grep -qE "[ ,]$dt([ ,]|\$)" || continue
                    out=$(compute-sanitizer --tool $tool --error-exitcode 99 "$BUILD/$l/run" "${args[@]}" 2>&1); rc=$?
                    printf '\n### %s %s %s (exit %d)\n%s\n' "$tool" "$l" "${args[*]}" $rc "$out" >> "$LOGS/sanitize.log"
                    dt="$dt beta $beta pad $pad"
                    errs=$(printf '%s' "$out" | grep -m1 -E "ERROR SUMMARY|RACECHECK SUMMARY" || true)
                    # racecheck also watches the cuBLAS reference (seen: a hazard inside
                    # nvjet_sm90_hsh_128x120_64x6_2x1_v_bx_TNT at 600x9000x72); when every
                    # reported access lies in a cuBLAS kernel (nvjet*, *xmma*, cutlass*), it is
                    # not ours: say so and pass
                    races=$(printf '%s' "$out" | grep -E "(Read|Write) access at" | sed -E 's/.*access at //' | sort -u)
                    if [ $tool = racecheck ] && [ $rc = 99 ] && [ -n "$races" ] &&
                       ! printf '%s\n' "$races" | grep -qvE '^(nvjet|sm[0-9]+_xmma|cutlass)'; then
                        rc=0; errs="$errs (all in cuBLAS: $(printf '%s\n' "$races" | sed -E 's/\+0x.*//' | sort -u | tr '\n' ' '))"
                    fi
                    if [ $rc = 0 ]; then
                        echo "sanitize ok   $tool $l $dt: $errs" | tee -a "$OUT/sanitize.txt"
                    else bad=1; echo "sanitize FAIL $tool $l $dt (exit $rc): $errs" | tee -a "$OUT/sanitize.txt"; fi
                done
            done
        done
        [ $bad = 0 ] && step_ok sanitize || step_fail sanitize "see logs/sanitize.log" ;;
    ncu)
        M=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
        : > "$OUT/ncu.txt"
        for lv in 05_mma:gemm_mma 06_swizzle:gemm_swizzle; do
            l=${lv%%:*}; k=${lv##*:}
            [ -x "$BUILD/$l/run" ] || continue
            for v in $("$BUILD/$l/run" --list | awk 'NR>1 {print $1}'); do
                ncu --clock-control none -k "regex:$k" --launch-skip 1 --launch-count 1 --metrics $M \
                    "$BUILD/$l/run" --variant "$v" --dtype fp16 --size 4096x4096x4096 --iters 1 --warmup 1 \
                    > "$LOGS/ncu_${l}_$v.txt" 2>&1
                { echo "## $l $v (fp16 4096^3, one launch)"; grep -E "bank_conflicts|wavefronts" "$LOGS/ncu_${l}_$v.txt"; } | tee -a "$OUT/ncu.txt"
            done
        done
        step_ok ncu ;;
    bench)
        BUILD=$BUILD BENCH_CSV="$OUT/bench.csv" PROBE_CSV="$OUT/bench_probe.csv" bash scripts/bench.sh $LESSONS > "$OUT/bench.txt" 2>&1
        rc=$?; tail -n 30 "$OUT/bench.txt"
        [ $rc = 0 ] && step_ok bench || step_fail bench "see bench.txt" ;;
    layouts)
        # the claim of lesson 02: indexing through layouts costs nothing against lesson 01
        : > "$OUT/layouts.txt"; csv=$LOGS/layouts.csv; rm -f "$csv"
        if [ -x "$BUILD/01_naive/run" ] && [ -x "$BUILD/02_layout/run" ]; then
            for L in TT NT NN TN; do
                "$BUILD/01_naive/run" --variant coalesced --layout $L --size 4096x4096x4096 --iters 5 --csv "$csv" >> "$LOGS/layouts.log" 2>&1
                "$BUILD/02_layout/run" --variant layout,hand --layout $L --size 4096x4096x4096 --iters 5 --csv "$csv" >> "$LOGS/layouts.log" 2>&1
            done
            # csv columns: 1 lesson, 2 variant, 4 layout, 10 ms, 17 status
            awk -F, 'NR > 1 && $17 == "PASS" { ms[$4 "," $1 "," $2] = $10; lay[$4] = 1 }
                END { bad = 0
                      for (L in lay) {
                          b = ms[L ",01_naive,coalesced"]; l = ms[L ",02_layout,layout"]; h = ms[L ",02_layout,hand"]
                          if (b == "" || l == "") { printf "layouts %s: missing rows\n", L; bad = 1; continue }
                          d = 100 * (l - b) / b
                          printf "layouts %s 4096^3: lesson 01 coalesced %.3f ms, 02 layout %.3f ms (%+.1f%%), 02 hand %s ms%s\n", L, b, l, d, h, (d > 5 ? "  FAIL (> 5%)" : "")
                          if (d > 5) bad = 1 }
                      exit bad }' "$csv" | sort | tee "$OUT/layouts.txt"
            [ "${PIPESTATUS[0]}" = 0 ] && step_ok layouts || step_fail layouts "see layouts.txt"
        else
            step_fail layouts "needs $BUILD/01_naive/run and $BUILD/02_layout/run"
        fi ;;
    ksweep)
        : > "$OUT/ksweep.txt"; bad=0
        for l in $LESSONS; do
            [ -x "$BUILD/$l/run" ] || continue
            csv=$LOGS/ksweep_$l.csv; rm -f "$csv"
            "$BUILD/$l/run" --variant default --size 4096x4096x64,4096x4096x512,4096x4096x1024,4096x4096x2048,4096x4096x4096,4096x4096x8192,4096x4096x16384 \
                --iters 10 --warmup 1 --csv "$csv" > "$LOGS/ksweep_$l.log" 2>&1 || bad=1
            # least squares of ms against K, for the lesson (column 10) and cuBLAS (column 12)
            awk -F, -v l="$l" 'NR > 1 && $17 == "PASS" { n++; k = $7; x += k; xx += k * k
                    y1 += $10; xy1 += k * $10; y2 += $12; xy2 += k * $12; v = $2; dt = $3 }
                function fit(y, xy,   b) { b = (n * xy - x * y) / (n * xx - x * x); A = (y - b * x) / n; B = b }
                END { if (n < 3) { printf "ksweep %s: fewer than 3 passing sizes\n", l; exit 1 }
                      fit(y1, xy1); a1 = A; b1 = B; fit(y2, xy2)
                      printf "ksweep %s %s %s, M = N = 4096: time = %.1f us + %.4f us * K (steady state %.1f TFLOP/s); cuBLAS %.1f us + %.4f us * K (%.1f TFLOP/s)\n",
                             l, v, dt, 1000 * a1, 1000 * b1, 2 * 4096 * 4096 / (b1 * 1e9), 1000 * A, 1000 * B, 2 * 4096 * 4096 / (B * 1e9) }' "$csv" \
                | tee -a "$OUT/ksweep.txt"
            [ "${PIPESTATUS[0]}" = 0 ] || bad=1
        done
        [ $bad = 0 ] && step_ok ksweep || step_fail ksweep "see logs/ksweep_*.log" ;;
    stalls)
        : > "$OUT/stalls.txt"
        STALL='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
        for l in $LESSONS; do
            [ -x "$BUILD/$l/run" ] || continue
            # every kernel of one checked launch except the harness's fills and smem poisoning:
            # the cuBLAS reference and the lesson's kernel
            timeout 300 ncu --clock-control none -k 'regex:^(?!fill|poison).*' --launch-count 4 \
                --section SpeedOfLight --section WarpStateStats --section LaunchStats --section Occupancy --metrics "$STALL" \
                "$BUILD/$l/run" --variant default --size 4096x4096x4096 --check-only > "$LOGS/stalls_$l.txt" 2>&1
            { echo "## $l (default variant, 4096^3, --check-only: the cuBLAS reference and the lesson's kernel)"
              awk '/^  [A-Za-z_].*\(/ { print; next }
                   /Duration|SM Frequency|Compute \(SM\) Throughput|Memory Throughput|Registers Per Thread|Block Size|Achieved Occupancy|Issue Slots Busy|Warp Cycles Per Issued Instruction/ { print; next }
                   /stalled_.*ratio/ { if ($NF + 0 > 0.1) print }' "$LOGS/stalls_$l.txt"; } | tee -a "$OUT/stalls.txt"
        done
        step_ok stalls ;;
    cases_memcheck)
        : > "$OUT/cases_memcheck.txt"; bad=0
        for l in $LESSONS; do
            f=lessons/$l/gpu_cases.txt
            [ -f "$f" ] && [ -x "$BUILD/$l/run" ] || continue
            while IFS= read -r args; do
                case "$args" in ''|'#'*) continue ;; esac
                # shellcheck disable=SC2086
                out=$(timeout 300 compute-sanitizer --tool memcheck --error-exitcode 99 "$BUILD/$l/run" $args 2>&1); rc=$?
                printf '\n### memcheck %s %s (exit %d)\n%s\n' "$l" "$args" $rc "$out" >> "$LOGS/cases_memcheck.log"
                summary_line=$(printf '%s' "$out" | grep -E "passed,|ERROR SUMMARY" | tr '\n' ' ')
                if [ $rc = 0 ]; then echo "memcheck ok   $l $args: $summary_line"
                else bad=1; echo "memcheck FAIL $l $args (exit $rc): $summary_line"; fi
            done < "$f" | tee -a "$OUT/cases_memcheck.txt"
        done
        grep -q "^memcheck FAIL" "$OUT/cases_memcheck.txt" && bad=1
        [ $bad = 0 ] && step_ok cases_memcheck || step_fail cases_memcheck "see logs/cases_memcheck.log" ;;
    versus)
        : > "$OUT/versus.txt"; bad=0
        BASE_BUILD=${BASE_BUILD:-.base}
        sizes=${VERSUS_SIZES:-2048x2048x2048,4096x4096x4096,8192x8192x8192,4095x4095x4096}
        dts=${VERSUS_DTYPES:-}
        for pair in ${VERSUS:-}; do
            new=${pair%%=*}; base=${pair#*=}
            nb="$BUILD/${new%%:*}/run"; bb="$BASE_BUILD/${base%%:*}/run"
            if [ ! -x "$nb" ] || [ ! -x "$bb" ]; then
                echo "versus: $pair: no binary ($nb or $bb)" | tee -a "$OUT/versus.txt"; bad=1; continue
            fi
            rm -f "$LOGS/v_new.csv" "$LOGS/v_base.csv"
            for rep in 1 2; do
                "$nb" --variant "${new#*:}" --size "$sizes" ${dts:+--dtype "$dts"} --iters 20 --csv "$LOGS/v_new.csv" >> "$LOGS/versus.log" 2>&1 || bad=1
                "$bb" --variant "${base#*:}" --size "$sizes" ${dts:+--dtype "$dts"} --iters 20 --csv "$LOGS/v_base.csv" >> "$LOGS/versus.log" 2>&1 || bad=1
            done
            python3 - "$LOGS/v_new.csv" "$LOGS/v_base.csv" "$new" "$base" <<'PY' | tee -a "$OUT/versus.txt"
import csv, sys, statistics
def load(p):
    out = {}
    for r in csv.DictReader(open(p)):
        k = (r['m'], r['n'], r['k'], r['layout'], r['dtype'])
        out.setdefault(k, []).append((float(r['tflops']), float(r['cublas_tflops'])))
    return {k: [statistics.median(x[i] for x in v) for i in (0, 1)] for k, v in out.items()}
new, base = load(sys.argv[1]), load(sys.argv[2])
print("== %s vs %s" % (sys.argv[3], sys.argv[4]))
for k in sorted(new):
    if k in base:
        (tn, cn), (tb, cb) = new[k], base[k]
        print("  %sx%sx%s %s %s: new %.1f base %.1f TFLOP/s (cuBLAS %.1f / %.1f)  new/base %.3f"
              % (*k, tn, tb, cn, cb, tn / tb))
PY
        done
        [ $bad = 0 ] && step_ok versus || step_fail versus "see versus.txt" ;;
    tune)
        bin="$BUILD/08_dispatch/run"
        extra=${TUNE_EXTRA:-32x4096x4096,256x4096x4096,768x768x768,1536x1536x1536,3072x3072x3072,4096x11008x4096,96x8192x8192}
        sizes="$(grep -v '^#' plots/data/shapes.txt | paste -sd,),$extra"
        rm -f "$OUT/tune_08.txt" "$OUT/tune_suite.csv"
        timeout 300 "$bin" --tune --tune-out "$OUT/tune_08.txt" --dtype fp16,bf16,fp32 --layout TN \
            --size "$sizes" --iters 10 --warmup 2 > "$OUT/tune.txt" 2>&1
        rc=$?
        { echo "== --tuned --explain"; "$bin" --tuned "$OUT/tune_08.txt" --explain --dtype fp16,bf16,fp32 --size "$sizes"; } >> "$OUT/tune.txt" 2>&1 || rc=1
        { echo "== default with the table and cuBLAS (--iters 10)"
          timeout 200 "$bin" --tuned "$OUT/tune_08.txt" --variant default --dtype fp16,bf16,fp32 --size "$sizes" \
              --iters 10 --csv "$OUT/tune_suite.csv"; } >> "$OUT/tune.txt" 2>&1 || rc=1
        grep -E "problems tuned|FAIL|passed," "$OUT/tune.txt"
        [ $rc = 0 ] && step_ok tune || step_fail tune "see tune.txt" ;;
    grade)
        ex_lessons=$(ls lessons/*/exercise/rubric.txt 2>/dev/null | sed 's|lessons/\([^/]*\)/.*|\1|' | tr '\n' ' ')
        BUILD=$BUILD GRADE_TIMEOUT=${GRADE_TIMEOUT:-120} bash tests/grade/grade_all.sh --check \
            --tags "solution exercise wrong" $ex_lessons > "$OUT/grade.txt" 2>&1
        rc=$?
        mkdir -p "$LOGS/grade"
        (cd "$BUILD/grade" && find . -name '*.json' -o -name '*.log' -o -name '*.tap' -o -name '*.csv' | tar -cf - -T -) |
            tar -xf - -C "$LOGS/grade" 2>/dev/null
        sed -n '/^== grades/,$p' "$OUT/grade.txt"
        [ $rc = 0 ] && step_ok grade || step_fail grade "see grade.txt" ;;
    *) step_fail "$s" "unknown step" ;;
    esac
    echo "== step $s took $(( $(date +%s) - t0 )) s"
done
tar -C "$OUT" -czf "$OUT/logs_$(echo $STEPS | tr ' ' '_').tar.gz" logs && rm -rf "$LOGS"
echo "== gpu_check summary"
printf '  %s\n' "${summary[@]}"
exit $status

#!/usr/bin/env bash
# gpu_check.sh - everything the GPU machine has to do, in ONE call of the device tool:
#   probe     measured ceilings (FFMA, mma.sync, HBM copy, cuBLAS)       -> $OUT/probe.csv
#   test      tests/gpu/run_gpu_tests.sh over the lessons                -> $OUT/test-gpu.txt
#   sanitize  compute-sanitizer memcheck (all lessons), racecheck and synccheck (03+), beta 0.5 and 0
#             on small odd sizes                                          -> $OUT/sanitize.txt
#   ncu       Nsight Compute shared-memory bank conflicts of 05 and 06    -> $OUT/ncu.txt
#   bench     scripts/bench.sh (make bench's sweep)   -> $OUT/bench.csv, $OUT/bench_probe.csv
#   grade     the assignments: every staff solution must score 100, every untouched skeleton
#             less (with a clean exit), every deliberately wrong solution must lose correctness
#             points (tests/grade/grade_all.sh --check)  -> $OUT/grade.txt (the score table last)
#             needs `make grade-build` on the CPU machine (binaries + Criterion's libraries in
#             build/grade/lib, for a machine without Criterion)
# Full logs (and nvidia-smi, env) go to $OUT/logs_<steps>.tar.gz (the device tool returns at
# most 8 files).
# The binaries are built on the CPU machine (make all) and travel in build/ (carry it).
# Usage (device tool): STEPS="probe test sanitize bench" LESSONS="01_naive 02_layout" \
#                      bash scripts/gpu_check.sh
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
                for run in "fp32 0.5" "fp16 0.5" "fp32 0" "fp16 0"; do
                    set -- $run; dt=$1
                    # beta 0.5 reads C; beta 0 (C prefilled with NaN) takes the kernels' beta = 0
                    # epilogues (lesson 06: staged through smem); 1000x9000x72 has more CTA
                    # tiles than an H200 has SMs (persistent CTAs walk several)
                    args=(--check-only --layout all --dtype $dt --size 127x129x67,65x33x200,200x136x72,1000x9000x72 --beta $2)
                    # memcheck every variant; racecheck/synccheck (slow) the default variant
                    [ $tool != memcheck ] && args+=(--variant default)
                    "$BUILD/$l/run" --list | grep -q " $dt" || continue
                    out=$(compute-sanitizer --tool $tool --error-exitcode 99 "$BUILD/$l/run" "${args[@]}" 2>&1); rc=$?
                    printf '\n### %s %s %s (exit %d)\n%s\n' "$tool" "$l" "${args[*]}" $rc "$out" >> "$LOGS/sanitize.log"
                    dt="$dt beta $2"
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

#!/usr/bin/env bash
# gpu_check.sh - everything the GPU machine has to do, in ONE call of the device tool:
#   probe     measured ceilings (FFMA, mma.sync, HBM copy, cuBLAS)       -> $OUT/probe.csv
#   test      tests/gpu/run_gpu_tests.sh over the lessons                -> $OUT/test-gpu.log
#   sanitize  compute-sanitizer memcheck (all lessons), racecheck and synccheck (03+)
#             on small odd sizes                                          -> $OUT/sanitize.log
#   bench     scripts/bench.sh (make bench's sweep)                      -> $OUT/bench.csv
# The binaries are built on the CPU machine (make all) and travel in build/ (carry it).
# Usage (device tool): STEPS="probe test sanitize bench" LESSONS="01_naive 02_layout" \
#                      bash scripts/gpu_check.sh
# Prints a short summary last; exits non-zero when a step failed.
set -u
OUT=${OUT:-/tmp/gpu_check_out}
mkdir -p "$OUT"
BUILD=${BUILD:-build}
STEPS=${STEPS:-probe test sanitize bench}
LESSONS=${LESSONS:-$(ls -d lessons/*/ | xargs -n1 basename | tr '\n' ' ')}
export PATH=/usr/local/cuda/bin:$PATH
summary=()
step_ok() { summary+=("$1: ok"); }
step_fail() { summary+=("$1: FAILED ($2)"); status=1; }
status=0
{ date -u; nvidia-smi; git log -1 --oneline 2>/dev/null; cat "$BUILD/commit.txt" 2>/dev/null; } > "$OUT/env.txt" 2>&1
for s in $STEPS; do
    t0=$(date +%s)
    case $s in
    probe)
        "$BUILD/tools/probe" --csv "$OUT/probe.csv" 2>&1 | tee "$OUT/probe.txt" && step_ok probe || step_fail probe "see probe.txt" ;;
    test)
        progs=()
        for p in "$BUILD"/tests/gpu/*; do [ -x "$p" ] && progs+=("$p"); done
        GPU_TEST_LOG="$OUT/test-gpu.log" BUILD=$BUILD bash tests/gpu/run_gpu_tests.sh $LESSONS -- "${progs[@]}" \
            > "$OUT/test-gpu.txt" 2>&1
        rc=$?; tail -n 40 "$OUT/test-gpu.txt"
        [ $rc = 0 ] && step_ok test || step_fail test "see test-gpu.txt" ;;
    sanitize)
        : > "$OUT/sanitize.log"; bad=0
        for l in $LESSONS; do
            num=$((10#${l%%_*}))
            tools="memcheck"; [ $num -ge 3 ] && tools="memcheck racecheck synccheck"
            for tool in $tools; do
                for dt in fp32 fp16; do
                    args=(--check-only --layout all --dtype $dt --size 127x129x67,65x33x200,200x136x72 --beta 0.5)
                    "$BUILD/$l/run" --list | grep -q " $dt" || continue
                    out=$(compute-sanitizer --tool $tool --error-exitcode 99 "$BUILD/$l/run" "${args[@]}" 2>&1); rc=$?
                    printf '\n### %s %s %s (exit %d)\n%s\n' "$tool" "$l" "${args[*]}" $rc "$out" >> "$OUT/sanitize.log"
                    errs=$(printf '%s' "$out" | grep -m1 -E "ERROR SUMMARY|RACECHECK SUMMARY" || true)
                    if [ $rc = 0 ]; then
                        echo "sanitize ok   $tool $l $dt: $errs"
                    else bad=1; echo "sanitize FAIL $tool $l $dt (exit $rc): $errs"; fi
                done
            done
        done
        [ $bad = 0 ] && step_ok sanitize || step_fail sanitize "see sanitize.log" ;;
    bench)
        BUILD=$BUILD BENCH_CSV="$OUT/bench.csv" bash scripts/bench.sh $LESSONS > "$OUT/bench.txt" 2>&1
        rc=$?; tail -n 30 "$OUT/bench.txt"
        [ $rc = 0 ] && step_ok bench || step_fail bench "see bench.txt" ;;
    *) step_fail "$s" "unknown step" ;;
    esac
    echo "== step $s took $(( $(date +%s) - t0 )) s"
done
echo "== gpu_check summary"
printf '  %s\n' "${summary[@]}"
exit $status

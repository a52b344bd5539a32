#!/usr/bin/env bash
# run_gpu_tests.sh - the GPU tests of every lesson (make test-gpu). For each lesson:
#   1. its default variant over the default sweep (127, 1000, 1021x513x2049, 4093, 4096),
#      every layout and dtype it claims, beta = 0 with C prefilled with NaN; every variant over
#      the sweep's sizes below 4093
#   2. the same with alpha = 1.5, beta = -0.75
#   3. C prefilled with +Inf, alpha = 1.5, beta = 0, odd small shapes
#   4. padded leading dimensions (+3) and base pointers offset by one element, beta = 0.5:
#      must pass, or be refused with a clear line (exit 2 and "refused:")
#   5. the lesson's own cases: each line of lessons/NN_name/gpu_cases.txt is one ./run
#      argument list that must pass
# plus every standalone GPU test program named in the arguments after "--".
# With no GPU: prints "SKIP: no GPU" and exits 0.
# Usage: BUILD=build bash tests/gpu/run_gpu_tests.sh 01_naive 02_layout ... [-- prog ...]
set -u
BUILD=${BUILD:-build}
LOG=${GPU_TEST_LOG:-/dev/null}
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q GPU; then
    echo "SKIP: no GPU on this machine (make test-gpu needs an NVIDIA GPU, sm_80 or newer)"
    exit 0
fi
lessons=(); progs=()
while [ $# -gt 0 ]; do
    if [ "$1" = -- ]; then shift; progs=("$@"); break; fi
    lessons+=("$1"); shift
done
pass=0; fail=0; refused=0
run_case() { # may_refuse lesson args...
    local may_refuse=$1 l=$2; shift 2
    local out rc
    # a hang (e.g. a lost mbarrier phase) is killed after GPU_CASE_TIMEOUT seconds and fails
    out=$(timeout -s KILL "${GPU_CASE_TIMEOUT:-300}" "$BUILD/$l/run" "$@" 2>&1); rc=$?
    [ $rc = 137 ] && out="$out
FAIL: killed after ${GPU_CASE_TIMEOUT:-300} s (hang?)"
    printf '\n### %s %s (exit %d)\n%s\n' "$l" "$*" "$rc" "$out" >> "$LOG"
    if [ $rc = 0 ]; then
        pass=$((pass+1)); echo "ok      $l $*"
    elif [ $rc = 2 ] && [ "$may_refuse" = 1 ] && printf '%s' "$out" | grep -q "refused:"; then
        refused=$((refused+1)); echo "refused $l $* ($(printf '%s' "$out" | grep -m1 'refused:'))"
    else
        fail=$((fail+1)); echo "FAIL    $l $* (exit $rc)"
        printf '%s\n' "$out" | grep -E "FAIL|error|refused" | head -5 | sed 's/^/        /'
    fi
}
for l in "${lessons[@]}"; do
    # the default variant over the whole default sweep; every variant over its odd small sizes
    run_case 0 "$l" --check-only --layout all --dtype all --variant default
    run_case 0 "$l" --check-only --layout all --dtype all --alpha 1.5 --beta -0.75 --seed 7 --variant default
    run_case 1 "$l" --check-only --layout all --dtype all --size 127x127x127,1000x1000x1000,1021x513x2049
    run_case 1 "$l" --check-only --layout all --dtype all --alpha 1.5 --beta -0.75 --seed 7 --size 127x127x127,1021x513x2049
    run_case 1 "$l" --check-only --layout all --dtype all --poison inf --alpha 1.5 --size 129x257x33,1x705x705,705x1x64
    run_case 1 "$l" --check-only --layout all --dtype all --pad 3 --offset 1 --beta 0.5 --size 127x129x131,384x128x256
    f="lessons/$l/gpu_cases.txt"
    if [ -f "$f" ]; then
        while IFS= read -r line; do
            case "$line" in ''|'#'*) continue;; esac
            # shellcheck disable=SC2086
            run_case 0 "$l" $line
        done < "$f"
    fi
done
for p in "${progs[@]}"; do
    out=$("$p" 2>&1); rc=$?
    printf '\n### %s (exit %d)\n%s\n' "$p" "$rc" "$out" >> "$LOG"
    if [ $rc = 0 ]; then pass=$((pass+1)); echo "ok      $p"; else fail=$((fail+1)); echo "FAIL    $p"; printf '%s\n' "$out" | tail -5; fi
done
echo "gpu tests: $pass passed, $fail failed ($refused refused as documented)"
[ $fail = 0 ]

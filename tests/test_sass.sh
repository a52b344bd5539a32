#!/usr/bin/env bash
# test_sass.sh - instruction checks on the lessons' machine code (cuobjdump), per DESIGN.md §5:
#   every lesson: no local memory (no LDL/STL) in its kernels
#   04+: LDGSTS (cp.async);  05+: HMMA and LDSM (Tensor Cores through ldmatrix)
#   07+: 16-byte global stores (STG.E.128: the epilogue staged through smem)
#   05-08: the default kernels' main loop within tests/sass_budget.txt (instructions per K
#   tile, ldmatrix placement between the MMAs; tests/sass_loops.py), when python3 exists
# Checks the sm_90 and sm_80 code. Skips with a message when no cuobjdump can be found.
# Usage: BUILD=build bash tests/test_sass.sh 01_naive 04_copy ...
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
cuobj=$("$here/scripts/find_cuobjdump.sh") || { echo "sass: SKIP (no cuobjdump; run scripts/ensure_deps.sh)"; exit 0; }
export PATH="$(dirname "$cuobj"):$PATH"   # nvdisasm lives next to it
pass=0; fail=0
expect() { # lesson arch what pattern present(1)/absent(0) sassfile
    local l=$1 arch=$2 what=$3 pat=$4 want=$5 f=$6 n
    n=$(grep -c -E "$pat" "$f")
    if { [ "$want" = 1 ] && [ "$n" -gt 0 ]; } || { [ "$want" = 0 ] && [ "$n" = 0 ]; }; then
        pass=$((pass+1))
    else
        fail=$((fail+1)); echo "FAIL $l sm_$arch: $what ($n matches of /$pat/)"
    fi
}
for l in "$@"; do
    bin="$BUILD/$l/run"
    [ -x "$bin" ] || { echo "FAIL $l: $bin not built"; fail=$((fail+1)); continue; }
    num=${l%%_*}; num=$((10#$num))
    for arch in 90 80; do
        f="$BUILD/$l/sass_sm$arch.txt"
        if ! "$cuobj" -sass -arch "sm_$arch" "$bin" > "$f" 2>"$f.err"; then
            echo "FAIL $l: cuobjdump failed: $(head -1 "$f.err")"; fail=$((fail+1)); continue
        fi
        expect "$l" "$arch" "has code for sm_$arch" 'Function :' 1 "$f"
        expect "$l" "$arch" "no local memory" '\b(LDL|STL)\b' 0 "$f"
        [ "$num" -ge 4 ] && expect "$l" "$arch" "uses cp.async" 'LDGSTS' 1 "$f"
        [ "$num" -ge 5 ] && expect "$l" "$arch" "uses Tensor Cores" 'HMMA' 1 "$f"
        [ "$num" -ge 5 ] && expect "$l" "$arch" "uses ldmatrix" 'LDSM' 1 "$f"
        [ "$num" -ge 7 ] && expect "$l" "$arch" "stores C in 16-byte chunks" 'STG\.E\.128' 1 "$f"
    done
    # the main loop of the default kernels: no longer, no more bunched than recorded
    if command -v python3 >/dev/null 2>&1; then
        while read -r bl arch kern per budget hrun lrun; do
            case "$bl" in ''|'#'*) continue;; esac
            [ "$bl" = "$l" ] || continue
            got=$(python3 "$here/tests/sass_loops.py" "$BUILD/$l/sass_sm$arch.txt" "$kern" "$per" 2>&1)
            n=$(printf '%s' "$got" | sed -n 's/.*instr_per_ktile=\([0-9.]*\).*/\1/p')
            h=$(printf '%s' "$got" | sed -n 's/.*max_hmma_run=\([0-9]*\).*/\1/p')
            s=$(printf '%s' "$got" | sed -n 's/.*max_ldsm_run=\([0-9]*\).*/\1/p')
            loc=$(printf '%s' "$got" | sed -n 's/.*local=\([0-9]*\).*/\1/p')
            if [ -n "$n" ] && awk -v n="$n" -v b="$budget" 'BEGIN{exit !(n <= b)}' &&
               [ "$h" -le "$hrun" ] && [ "$s" -le "$lrun" ] && [ "$loc" = 0 ]; then
                pass=$((pass+1))
            else
                fail=$((fail+1))
                echo "FAIL $l sm_$arch: main loop of $kern over budget ($budget instructions per K tile, HMMA run $hrun, LDSM run $lrun): $got"
            fi
        done < "$here/tests/sass_budget.txt"
    else
        echo "sass: note: no python3, main-loop budgets of $l not checked"
    fi
    # the compiler's own report: no kernel with a stack frame or spills
    if grep -E '[1-9][0-9]* bytes stack frame|[1-9][0-9]* bytes spill' "$BUILD/$l/ptxas.txt" >/dev/null; then
        fail=$((fail+1)); echo "FAIL $l: ptxas reports a stack frame or spills:"
        grep -E '[1-9][0-9]* bytes stack frame|[1-9][0-9]* bytes spill' "$BUILD/$l/ptxas.txt" | head -3
    else pass=$((pass+1)); fi
done
echo "sass: $pass passed, $fail failed"
[ $fail = 0 ]

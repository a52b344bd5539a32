#!/usr/bin/env bash
# test_sass.sh - instruction checks on the lessons' machine code (cuobjdump):
#   every lesson: no local memory (no LDL/STL) in its kernels
#   04+: LDGSTS (cp.async);  05+: HMMA and LDSM (Tensor Cores through ldmatrix)
#   07-08: 16-byte global stores (STG.E.128: the epilogue staged through smem)
#   09: HGMMA (wgmma), UTMALDG / UTMASTG (TMA loads and stores), SYNCS (mbarrier),
#       USETMAXREG (setmaxnreg), BAR.ARV (the ping-pong hand-over), STSM (stmatrix, step 9's
#       epilogue), none of the sm_80 path
#       (HMMA, LDSM, LDGSTS), and no kernel whose wgmma ptxas serialized (its performance
#       warnings C7511, C7514, C7518)
#   04-09: the main loops of the kernels of every step within tests/sass_budget.txt
#   (tests/sass_loops.py: instructions per trip or per K tile, and for 05-08 the ldmatrix
#   placement between the MMAs; 09: per K tile of HGMMA): a main loop no longer than recorded,
#   the layouts the kernels index through cost nothing; 07: its epilogue's element loops
#   (straight-line blocks) no longer than recorded
#   04: every fragment load (LDS.128) of every kernel at the offsets its layouts give
#       (tests/frag_offsets_04.c, tests/sass_loops.py frags), and the same check fails on the
#       machine code with one fragment load deleted
# Checks the sm_90 and sm_80 code (lesson 09: its sm_90a code only). Skips with a message when
# no cuobjdump can be found.
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
# Lesson 04: every fragment load of every kernel reads the offset the layouts give
# (tests/frag_offsets_04.c prints them, tests/sass_loops.py frags compares; nvcc 13.0 once
# merged one B load per k_tile with another: a wrong answer that no CPU run of the source shows).
# The check must see a lost load: the same listing with one LDS.128 deleted has to fail it.
frag04() { # arch sassfile
    local arch=$1 f=$2 exe="$BUILD/tests/frag_offsets_04" out drop
    mkdir -p "$BUILD/tests"
    if ! ${CC:-gcc} -std=c11 -O2 -Wall -Wextra -I"$here/common" -I"$here/lessons/04_copy" \
            "$here/tests/frag_offsets_04.c" -o "$exe" || ! "$exe" > "$exe.txt"; then
        fail=$((fail+1)); echo "FAIL 04_copy: tests/frag_offsets_04.c does not build or run"; return
    fi
    if ! command -v python3 >/dev/null 2>&1; then
        fail=$((fail+1)); echo "FAIL 04_copy: python3 is needed to check the fragment loads (tests/sass_loops.py)"; return
    fi
    out=$(python3 "$here/tests/sass_loops.py" frags "$exe.txt" "$f")
    if [ $? = 0 ] && [ -n "$out" ] && ! printf '%s\n' "$out" | grep -q '^FAIL'; then
        pass=$((pass+1))
        echo "sass: 04_copy sm_$arch: fragment loads at the layouts' offsets ($(printf '%s\n' "$out" | wc -l) kernels)"
    else
        fail=$((fail+1)); echo "FAIL 04_copy sm_$arch: fragment loads (LDS.128) not at the layouts' offsets:"
        printf '%s\n' "$out" | grep '^FAIL' | sed 's/^/    /'
        return
    fi
    # negative check: the same listing without one fragment load (one whose offset is in
    # exactly BODIES loads, the least the check accepts) must fail with few= (or missing=)
    drop=$(python3 "$here/tests/sass_loops.py" frag-line-to-drop "$exe.txt" "$f")
    if [ -z "$drop" ] || [ "$drop" = 0 ]; then
        fail=$((fail+1)); echo "FAIL 04_copy sm_$arch: every offset has spare loads: a single lost load would not show"
    elif out=$(python3 "$here/tests/sass_loops.py" frags "$exe.txt" <(sed "${drop}d" "$f"));
         printf '%s\n' "$out" | grep -q -E '^FAIL .*(few|missing)='; then
        pass=$((pass+1))
        echo "sass: 04_copy sm_$arch: the check fails with fragment load at line $drop deleted"
    else
        fail=$((fail+1)); echo "FAIL 04_copy sm_$arch: deleting the fragment load at line $drop of $f goes unnoticed"
    fi
}
for l in "$@"; do
    bin="$BUILD/$l/run"
    [ -x "$bin" ] || { echo "FAIL $l: $bin not built"; fail=$((fail+1)); continue; }
    num=${l%%_*}; num=$((10#$num))
    archs="90 80"; [ "$num" -ge 9 ] && archs="90a"
    for arch in $archs; do
        f="$BUILD/$l/sass_sm$arch.txt"
        if ! "$cuobj" -sass -arch "sm_$arch" "$bin" > "$f" 2>"$f.err"; then
            echo "FAIL $l: cuobjdump failed: $(head -1 "$f.err")"; fail=$((fail+1)); continue
        fi
        expect "$l" "$arch" "has code for sm_$arch" 'Function :' 1 "$f"
        expect "$l" "$arch" "no local memory" '\b(LDL|STL)\b' 0 "$f"
        if [ "$num" -le 8 ]; then
            [ "$num" -ge 4 ] && expect "$l" "$arch" "uses cp.async" 'LDGSTS' 1 "$f"
            [ "$num" -ge 5 ] && expect "$l" "$arch" "uses Tensor Cores" 'HMMA' 1 "$f"
            [ "$num" -ge 5 ] && expect "$l" "$arch" "uses ldmatrix" 'LDSM' 1 "$f"
            [ "$num" -ge 7 ] && expect "$l" "$arch" "stores C in 16-byte chunks" 'STG\.E\.128' 1 "$f"
            [ "$l" = 04_copy ] && frag04 "$arch" "$f"
        else
            expect "$l" "$arch" "uses wgmma" 'HGMMA\.64x256x16' 1 "$f"
            expect "$l" "$arch" "loads tiles with TMA" 'UTMALDG\.2D' 1 "$f"
            expect "$l" "$arch" "multicasts with TMA" 'UTMALDG\.2D\.MULTICAST' 1 "$f"
            expect "$l" "$arch" "stores C with TMA" 'UTMASTG\.2D' 1 "$f"
            expect "$l" "$arch" "waits on mbarriers" 'SYNCS\.PHASECHK' 1 "$f"
            expect "$l" "$arch" "reallocates registers" 'USETMAXREG' 1 "$f"
            expect "$l" "$arch" "hands turns on with bar.arrive" 'BAR\.ARV' 1 "$f"
            expect "$l" "$arch" "stores the fragment with stmatrix" '\bSTSM' 1 "$f"
            expect "$l" "$arch" "no mma.sync / ldmatrix / cp.async" '\b(HMMA|LDSM|LDGSTS)\b' 0 "$f"
        fi
    done
    # main loops: no longer, no more bunched than recorded (tests/sass_budget.txt)
    if grep -q "^$l " "$here/tests/sass_budget.txt"; then
        if command -v python3 >/dev/null 2>&1; then
            out=$(python3 "$here/tests/sass_loops.py" check "$here/tests/sass_budget.txt" "$l" "$BUILD" 2>&1)
            printf '%s\n' "$out" | sed 's/^ok   /sass: /'
            pass=$((pass + $(printf '%s\n' "$out" | grep -c '^ok ')))
            fail=$((fail + $(printf '%s\n' "$out" | grep -c -v '^ok ')))
        else
            fail=$((fail+1)); echo "FAIL $l: python3 is needed to check the main loops (tests/sass_loops.py)"
        fi
    fi
    # lesson 09: ptxas serializes every wgmma of a kernel when it must insert waits of its own
    # (C7518) or cannot prove a read of the accumulators safe (C7511, C7514: step 12's halves);
    # no kernel of any step may carry it (steps 2 and 3 did, and ran 1.35-1.57x and
    # 1.07-1.16x slower for it: lessons/09_wgmma/README.md, section 7)
    if [ "$num" -ge 9 ]; then
        ser='wgmma.mma_async instructions are serialized'
        if grep "$ser" "$BUILD/$l/ptxas.txt" >/dev/null; then
            fail=$((fail+1)); echo "FAIL $l: ptxas serialized the wgmma of a kernel:"
            grep "$ser" "$BUILD/$l/ptxas.txt" | head -2
        else pass=$((pass+1)); fi
    fi
    # the compiler's own report: no kernel with a stack frame or spills
    if grep -E '[1-9][0-9]* bytes stack frame|[1-9][0-9]* bytes spill' "$BUILD/$l/ptxas.txt" >/dev/null; then
        fail=$((fail+1)); echo "FAIL $l: ptxas reports a stack frame or spills:"
        grep -E '[1-9][0-9]* bytes stack frame|[1-9][0-9]* bytes spill' "$BUILD/$l/ptxas.txt" | head -3
    else pass=$((pass+1)); fi
done
echo "sass: $pass passed, $fail failed"
[ $fail = 0 ]

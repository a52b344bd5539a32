#!/usr/bin/env bash
# test_cli.sh - the lessons' command line as a user meets it, without a GPU:
# bad flags exit 2 with one line, refused requests exit 2 before any GPU work, and with no
# CUDA device every lesson exits 3 with one sentence (a plain ./run with nothing else: its
# default sweep's skips would come after the table). On a machine with a GPU the no-device
# check is skipped (the GPU tests cover that machine).
# Usage: BUILD=build bash tests/test_cli.sh
set -u
BUILD=${BUILD:-build}
pass=0; fail=0
check() { # name expected_status needle cmd...
    local name=$1 want=$2 needle=$3; shift 3
    local out rc
    out=$("$@" 2>&1 >/dev/null); rc=$?
    local lines; lines=$(printf '%s\n' "$out" | grep -c .)
    if [ "$rc" = "$want" ] && printf '%s' "$out" | grep -q -- "$needle"; then
        pass=$((pass+1))
    else
        fail=$((fail+1)); echo "FAIL $name: status $rc (want $want), stderr: $out"
    fi
    if [ "$want" != 0 ] && [ "$lines" -gt 3 ]; then
        fail=$((fail+1)); echo "FAIL $name: error message is $lines lines"
    fi
}
has_gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then has_gpu=1; fi
for run in "$BUILD"/*/run; do
    [ -x "$run" ] || continue
    l=$(basename "$(dirname "$run")")
    check "$l bad flag" 2 "unknown option '--frobnicate'" "$run" --frobnicate
    check "$l bad size" 2 "bad --size" "$run" --size 12x0x3
    check "$l two extents" 2 "bad --size '100x100': expected MxNxK, or N for NxNxN" "$run" --size 100x100
    check "$l bad layout" 2 "bad --layout" "$run" --layout XX
    check "$l unknown variant" 2 "has no variant" "$run" --variant no_such_variant
    "$run" --help >/dev/null 2>&1 || { fail=$((fail+1)); echo "FAIL $l --help"; }
    "$run" --list | grep -q "$l" || { fail=$((fail+1)); echo "FAIL $l --list"; }
    if [ $has_gpu = 0 ]; then
        check "$l no GPU" 3 "no CUDA device is available" "$run" --size 64x64x64 --check-only
        # one number is accepted (a cube): the run gets as far as the missing device
        check "$l one extent" 3 "no CUDA device is available" "$run" --size 96 --check-only
        check "$l no GPU, plain ./run" 3 "no CUDA device is available" "$run"
        # a plain ./run never opens with a refusal: the default sweep's skips are one line
        # after the table, so without a GPU the one line is the missing device
        out=$("$run" 2>&1)
        [ "$(printf '%s\n' "$out" | grep -c .)" = 1 ] ||
            { fail=$((fail+1)); echo "FAIL $l plain ./run without a GPU prints more than one line: $out"; }
    fi
done
# explicit sizes a lesson refuses are reported before the GPU is touched: exit 2 when nothing
# can run (lesson 05: leading dimensions must be multiples of 8)
if [ -x "$BUILD/05_mma/run" ]; then
    check "05 odd size refused" 2 "refused: .* multiples of 8 elements (first: 127x127x127 fp16 TN, lda=127" \
        "$BUILD/05_mma/run" --size 127x127x127
    n=$("$BUILD/05_mma/run" --size 127x127x127 2>&1 | grep -c "refused:")
    [ "$n" = 1 ] || { fail=$((fail+1)); echo "FAIL 05 odd size: want 1 refusal line, got $n"; }
    if [ $has_gpu = 0 ]; then  # something runnable: refusal line first, then the missing device
        out=$("$BUILD/05_mma/run" --size 127x127x127,128x128x128 2>&1); rc=$?
        { [ $rc = 3 ] && printf '%s' "$out" | head -1 | grep -q "refused: 5 cases" &&
          printf '%s' "$out" | grep -q "no CUDA device"; } ||
            { fail=$((fail+1)); echo "FAIL 05 partly refused sizes (rc $rc): $out"; }
    fi
fi
# an unsupported dtype is refused before the GPU is touched
if [ -x "$BUILD/01_naive/run" ]; then
    check "01 fp16 refused" 2 "does not support dtype fp16" "$BUILD/01_naive/run" --dtype fp16
    n=$("$BUILD/01_naive/run" --dtype fp16 --variant coalesced 2>&1 | grep -c "refused:")
    [ "$n" = 1 ] || { fail=$((fail+1)); echo "FAIL refusal should be one line, got $n"; }
    # --variant takes a comma-separated list: each name is checked, each selected one planned
    check "01 variant list, bad name" 2 "has no variant 'nope'" \
        "$BUILD/01_naive/run" --variant coalesced,nope
    check "01 variant list, empty" 2 "bad --variant" "$BUILD/01_naive/run" --variant ,
    check "01 variant list with all" 2 "--variant all stands alone" "$BUILD/01_naive/run" --variant all,coalesced
    # refusals are grouped by reason: one line naming both listed variants
    n=$("$BUILD/01_naive/run" --dtype fp16 --variant coalesced,uncoalesced 2>&1 | grep -c "refused: .* of coalesced, uncoalesced: does not support dtype fp16")
    [ "$n" = 1 ] || { fail=$((fail+1)); echo "FAIL two listed variants: want 1 grouped refusal line, got $n"; }
    # 'default' names the first variant of the table
    first=$("$BUILD/01_naive/run" --list | awk 'NR==2 {print $1}')
    n=$("$BUILD/01_naive/run" --dtype fp16 --variant default 2>&1 | grep -c "refused: .* of $first: ")
    [ "$n" = 1 ] || { fail=$((fail+1)); echo "FAIL --variant default: want 1 refusal of $first, got $n"; }
    # -h is --help; a stray word says how options look
    "$BUILD/01_naive/run" -h >/dev/null 2>&1 || { fail=$((fail+1)); echo "FAIL -h"; }
    check "01 stray argument" 2 "options start with --" "$BUILD/01_naive/run" 4096
    check "01 iters range" 2 "expected an integer in 1..100000" "$BUILD/01_naive/run" --iters 0
fi
# --explain: lesson 08's dispatcher says what it would run, one line per case, with no GPU;
# a lesson without a dispatcher refuses it in one line
if [ -x "$BUILD/08_dispatch/run" ]; then
    out=$("$BUILD/08_dispatch/run" --explain --size 4096x4096x4096,127x127x127 --dtype fp16 --layout TN,NN 2>&1); rc=$?
    n=$(printf '%s\n' "$out" | grep -c ' fp16 \(TN\|NN\): .* (rule [A-Z][0-9]*: ')
    if [ $rc = 0 ] && [ "$n" = 4 ]; then pass=$((pass+1))
    else fail=$((fail+1)); echo "FAIL 08 --explain (rc $rc, $n rule lines): $out"; fi
    # --size N is the cube NxNxN
    out=$("$BUILD/08_dispatch/run" --explain --size 100,200x300x400 --dtype fp32 2>&1); rc=$?
    if [ $rc = 0 ] && printf '%s\n' "$out" | grep -q '^100x100x100 fp32 TN: ' &&
       printf '%s\n' "$out" | grep -q '^200x300x400 fp32 TN: '; then pass=$((pass+1))
    else fail=$((fail+1)); echo "FAIL 08 --explain --size 100 (rc $rc): $out"; fi
fi
if [ -x "$BUILD/01_naive/run" ]; then
    check "01 --explain refused" 2 "has no dispatcher" "$BUILD/01_naive/run" --explain
    check "01 --tune refused" 2 "has no dispatcher to tune" "$BUILD/01_naive/run" --tune
    check "01 --tuned refused" 2 "has no dispatcher to tune" "$BUILD/01_naive/run" --tuned x.txt
    check "01 --tune-out alone" 2 "--tune-out needs --tune" "$BUILD/01_naive/run" --tune-out x.txt
    check "01 --tune --variant" 2 "takes no --variant" "$BUILD/01_naive/run" --tune --variant default
fi
# --tuned FILE: lesson 08 reads the table before anything runs; --explain names the entry's line;
# a bad table is one line and exit 2
if [ -x "$BUILD/08_dispatch/run" ]; then
    tdir=$(mktemp -d)
    printf '# t\nfp16 TN 512 512 512 none -> 64x128x64_s3_splitk 2 C direct 0.5\n' > "$tdir/good.txt"
    out=$("$BUILD/08_dispatch/run" --tuned "$tdir/good.txt" --explain --dtype fp16 --size 512x512x512,600x512x512 2>&1); rc=$?
    if [ $rc = 0 ] && printf '%s' "$out" | grep -q "512x512x512 fp16 TN: 64x128x64_s3_splitk, K split 2 (tuned ($tdir/good.txt line 2))" &&
        printf '%s' "$out" | grep -q "600x512x512 fp16 TN: .*(rule T"; then pass=$((pass+1))
    else fail=$((fail+1)); echo "FAIL 08 --tuned --explain (rc $rc): $out"; fi
    printf 'fp16 TN 512 512 512 none -> 64x128x64_s3_splitk 2 C\n' > "$tdir/short.txt"
    printf 'fp16 TN 512 512 512 none -> 512x512x64_s1 2 C direct 1\n' > "$tdir/name.txt"
    printf 'fp16 NN 512 512 512 none -> 64x128x64_s3_splitk 2 C direct 1\n' > "$tdir/refuse.txt"
    check "08 --tuned malformed" 2 "short.txt line 1: expected" "$BUILD/08_dispatch/run" --tuned "$tdir/short.txt" --explain
    check "08 --tuned unknown name" 2 "unknown configuration '512x512x64_s1'" "$BUILD/08_dispatch/run" --tuned "$tdir/name.txt" --size 64x64x64
    check "08 --tuned refusing entry" 2 "refuse.txt line 1: 64x128x64_s3_splitk refuses" "$BUILD/08_dispatch/run" --tuned "$tdir/refuse.txt" --size 64x64x64
    check "08 --tuned missing file" 2 "cannot read" "$BUILD/08_dispatch/run" --tuned "$tdir/none.txt" --explain
    # the entry's split-K tile cannot read A one element off: refused before any launch
    check "08 --tuned entry vs --offset" 2 "which refuses this problem" "$BUILD/08_dispatch/run" --tuned "$tdir/good.txt" --variant default --dtype fp16 --size 512x512x512 --offset 1
    rm -rf "$tdir"
fi
# --help names the lesson's own default operand order (lessons 01 and 02: TT; from 03 on: TN),
# lists the epilogue options only where a variant takes them (else one sentence names lesson
# 07) and the dispatcher's options only in lesson 08 (else one sentence names lesson 08)
for l in 01_naive:TT 02_layout:TT 03_tiled:TN; do
    run=$BUILD/${l%%:*}/run
    [ -x "$run" ] || continue
    h=$("$run" --help)
    if printf '%s\n' "$h" | grep -q -- "--layout .*(default here: ${l##*:})"; then pass=$((pass+1))
    else fail=$((fail+1)); echo "FAIL ${l%%:*} --help does not name its default order ${l##*:}"; fi
    if printf '%s\n' "$h" | grep -q "This lesson's variants have none of lesson 07's fused epilogues" &&
       ! printf '%s\n' "$h" | grep -q -- '^  --bias-axis'; then pass=$((pass+1))
    else fail=$((fail+1)); echo "FAIL ${l%%:*} --help: epilogue options listed, or no sentence saying it has none"; fi
    if printf '%s\n' "$h" | grep -q "This lesson has no dispatcher: --explain, --tune and --tuned are lesson 08's" &&
       ! printf '%s\n' "$h" | grep -q -- '^  --tune '; then pass=$((pass+1))
    else fail=$((fail+1)); echo "FAIL ${l%%:*} --help: dispatcher options listed, or no sentence saying it has none"; fi
done
if [ -x "$BUILD/08_dispatch/run" ]; then
    h=$("$BUILD/08_dispatch/run" --help)
    if printf '%s\n' "$h" | grep -q -- '^  --explain ' && printf '%s\n' "$h" | grep -q -- '^  --tuned FILE'; then
        pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL 08 --help does not list --explain and --tuned"; fi
fi
# the CPU bank-conflict counter: --help prints its usage (exit 0), anything else one line, exit 2
bc=$BUILD/tools/bank_conflicts
if [ -x "$bc" ]; then
    if "$bc" --help | grep -q "^usage: bank_conflicts" && ! "$bc" --help | grep -q '^|'; then
        pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL bank_conflicts --help"; fi
    check "bank_conflicts bad flag" 2 "unknown argument '--frobnicate'" "$bc" --frobnicate
    check "bank_conflicts stray word" 2 "unknown argument 'x'" "$bc" x
    "$bc" | grep -q '^|    64 | swizzled ' || { fail=$((fail+1)); echo "FAIL bank_conflicts: no table"; }
fi
# make profile without Nsight Compute or without a GPU: one line, exit 3; a bad lesson: exit 2
if [ -x "$BUILD/08_dispatch/run" ] && { [ $has_gpu = 0 ] || ! command -v ncu >/dev/null 2>&1; }; then
    check "profile without ncu/GPU" 3 "profile: " env NCU=/nonexistent/ncu BUILD="$BUILD" bash scripts/profile.sh 08 --size 64x64x64
    check "profile of no lesson" 2 "no lesson matches" env BUILD="$BUILD" bash scripts/profile.sh 77
fi
# make profile's table: ncu prints scaled units (msecond, Kbyte, Ghz, Gbyte); the table converts
# them (tests/data/profile_raw_h200.csv: the values of an H200 run at 8192^3)
prof=$(bash scripts/profile.sh --table tests/data/profile_raw_h200.csv 2>&1)
for want in "duration  *2190 us" "SM clock  *1.7 GHz" "dynamic smem / CTA  *216 KiB" \
    "DRAM read  *1431 MiB" "DRAM write  *126 MiB" "L2 bytes (all clients)  *10300 MiB" \
    "smem load bank conflicts  *770816" "wait  *2.49"; do
    if printf '%s\n' "$prof" | grep -q -- "$want"; then pass=$((pass+1)); else
        fail=$((fail+1)); echo "FAIL profile --table: no line '$want' in: $prof"; fi
done
check "profile --table without a file" 2 "needs a readable CSV" bash scripts/profile.sh --table /nonexistent.csv
# tools/lt_algos (cuBLASLt's configurations, timed): bad options exit 2, no device exits 3
if [ -x "$BUILD/tools/lt_algos" ]; then
    lt=$BUILD/tools/lt_algos
    check "lt_algos unknown option" 2 "unknown option: --frobnicate" "$lt" --frobnicate
    check "lt_algos bad size" 2 "bad value: --size 0x64x64" "$lt" --size 0x64x64
    check "lt_algos size past 65536" 2 "bad value: --size 65537x8x8" "$lt" --size 65537x8x8
    check "lt_algos bad dtype" 2 "bad value: --dtype fp32" "$lt" --dtype fp32
    check "lt_algos iters" 2 "bad value: --iters 65" "$lt" --iters 65
    check "lt_algos no value" 2 "needs a value: --top" "$lt" --top
    if [ $has_gpu = 0 ]; then check "lt_algos no GPU" 3 "lt_algos: no CUDA device" "$lt"; fi
else
    fail=$((fail+1)); echo "FAIL $BUILD/tools/lt_algos was not built"
fi
echo "cli: $pass passed, $fail failed"
[ $fail = 0 ]

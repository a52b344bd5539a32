#!/usr/bin/env bash
# test_layouts_cli.sh - the layout explorer (build/tools/layouts) as a user meets it: show
# prints the layout once and its table, the TV grids, mma / ldmatrix / copy / slice / bankmap
# commands print the real values (PTX ISA fragment tables, the worked ldmatrix examples of the
# course's syllabus), --help explains the notation, and bad input gives one line on stderr and
# exit status 2.
# Usage: BUILD=build bash tests/test_layouts_cli.sh
set -u
BUILD=${BUILD:-build}
L="$BUILD/tools/layouts"
[ -x "$L" ] || { echo "FAIL: $L not built"; exit 1; }
pass=0; fail=0
has() { # name needle cmd...   (stdout of cmd, status 0, contains needle as a fixed string)
    local name=$1 needle=$2; shift 2
    local out rc; out=$("$@" 2>&1); rc=$?
    if [ $rc = 0 ] && printf '%s\n' "$out" | grep -qF -- "$needle"; then pass=$((pass+1))
    else fail=$((fail+1)); echo "FAIL $name: status $rc, no '$needle' in:"; printf '%s\n' "$out" | head -5; fi
}
row() { # name 'cmd args' grid-row-label want   (the cells of one grid row, blanks squeezed)
    local name=$1 cmd=$2 r=$3 want=$4 got
    got=$(eval "$cmd" | awk -v r="$r" 'p == 2 && $1 == r {$1 = ""; sub(/^ /, ""); print; exit} p == 1 {p = 2} /cell: thread/ {p = 1}')
    if [ "$got" = "$want" ]; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL $name: row $r is '$got', want '$want'"; fi
}
bad() { # name needle cmd...   (exit 2, one line on stderr containing needle)
    local name=$1 needle=$2; shift 2
    local err rc; err=$("$@" 2>&1 >/dev/null); rc=$?
    if [ $rc = 2 ] && [ "$(printf '%s\n' "$err" | grep -c .)" = 1 ] && printf '%s' "$err" | grep -qF -- "$needle"; then
        pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL $name: status $rc, stderr: $err"; fi
}
# mma.sync m16n8k16 fragments (PTX ISA 9.7.14.5.8)
row "mma C row 0" "$L mma C" 0 "T0V0 T0V1 T1V0 T1V1 T2V0 T2V1 T3V0 T3V1"
row "mma C row 9" "$L mma C" 9 "T4V2 T4V3 T5V2 T5V3 T6V2 T6V3 T7V2 T7V3"
row "mma A row 1" "$L mma A" 1 "T4V0 T4V1 T5V0 T5V1 T6V0 T6V1 T7V0 T7V1 T4V4 T4V5 T5V4 T5V5 T6V4 T6V5 T7V4 T7V5"
row "mma B row 2" "$L mma B" 2 "T8V0 T8V1 T9V0 T9V1 T10V0 T10V1 T11V0 T11V1 T8V2 T8V3 T9V2 T9V3 T10V2 T10V3 T11V2 T11V3"
# worked example: thread 5 holds A[1][2..3], A[9][2..3], A[1][10..11], A[9][10..11]
has "mma A thread 5" "T5: (1,2) (1,3) (9,2) (9,3) (1,10) (1,11) (9,10) (9,11)" "$L" mma A --threads
has "mma A layout" "TV ((4,8),(2,2,2)):((32,1),(16,8,128))" "$L" mma A
# ldmatrix (PTX ISA 9.7.14.5.15); worked example: .x1 lane 5 receives row 1, cols 2-3
row "ldmatrix x1 dst row 1" "$L ldmatrix x1 | sed -n '/^destination/,\$p'" 1 "T4V0 T4V1 T5V0 T5V1 T6V0 T6V1 T7V0 T7V1"
row "ldmatrix x4 trans dst row 1" "$L ldmatrix x4 trans | sed -n '/^destination/,\$p'" 1 "T0V1 T4V1 T8V1 T12V1 T16V1 T20V1 T24V1 T28V1"
has "ldmatrix x4 A derived" "op o right_inverse(dst) o src = ((16,2),8):((1,128),16)" "$L" ldmatrix x4 A
row "ldmatrix x4 A rows" "$L ldmatrix x4 A | sed -n '/^rows each lane/,\$p'" 9 "T9V0 T9V1 T9V2 T9V3 T9V4 T9V5 T9V6 T9V7 T25V0 T25V1 T25V2 T25V3 T25V4 T25V5 T25V6 T25V7"
has "ldmatrix x2 B trans derived" "= ((16,2),8):((8,0),1)" "$L" ldmatrix x2 trans B
# tiled copy (lesson 04's K-major LDG.128 copy, 128 threads)
has "copy TV" "copy tile TV     ((2,64),4):((256,1),64)" "$L" copy '(64,2):(2,1)' '(1,4):(0,1)' 128 8
row "copy row 1" "$L copy '(64,2):(2,1)' '(1,4):(0,1)' 128 8" 1 "T2V0 T2V1 T2V2 T2V3 T3V0 T3V1 T3V2 T3V3"
row "copy row 64" "$L copy '(64,2):(2,1)' '(1,4):(0,1)' 128 8" 64 "T0V4 T0V5 T0V6 T0V7 T1V4 T1V5 T1V6 T1V7"
has "mma fma" "TV ((8,4),(4,4)):((64,4),(1,16))" "$L" mma fma 4 8 4 4
# grid of any TV layout, slice
row "grid" "$L grid '((2,2),2):((1,4),2)' '(4,2):(1,4)'" 2 "T0V1 T2V1"
has "slice layout" "slice            (4):(8)" "$L" slice '(4,8):(8,1)' '(_,3)'
has "slice offset" "offset           3" "$L" slice '(4,8):(8,1)' '(_,3)'
has "slice nested" "offset           13" "$L" slice '(4,(2,4)):(8,(1,2))' '(1,5)'
# bank maps of smem tiles (lessons 05 and 06): padded rows, plain rows, Sw<3,3,3>, Sw<2,3,3>
has "bankmap padded row 1" "        1   4   8  12  16  20  24  28   0   4   8  12  16  20  24  28   0" "$L" bankmap '(8,128):(136,1)' 2
has "bankmap padded free" "one chunk column (an ldmatrix matrix): conflict-free" "$L" bankmap '(8,128):(136,1)' 2
has "bankmap plain 8-way" "8-way bank conflict" "$L" bankmap '(8,64):(64,1)' 2
has "bankmap plain 32 4-way" "4-way bank conflict" "$L" bankmap '(16,32):(32,1)' 2
has "bankmap swizzled row 3" "        3  12   8   4   0  28  24  20  16" "$L" bankmap '(8,64):(64,1)' 2 3 3 3
has "bankmap swizzled free" "Sw<3,3,3> o 0 o (8,64):(64,1)" "$L" bankmap '(8,64):(64,1)' 2 3 3 3
has "swizzle without a layout: its header" "Sw<3,3,3>(x) for x = 0..4095, 16 per row" "$L" swizzle 3 3 3
has "swizzle without a layout: row 4" "72 73 74 75 76 77 78 79 64 65 66 67 68 69 70 71" "$L" swizzle 3 3 3
has "bankmap Sw<2,3,3> free" "conflict-free" "$L" bankmap '(8,32):(32,1)' 2 2 3 3
has "bankmap floats" "        1   4   8  12  16  20  24  28   0" "$L" bankmap '(8,32):(36,1)' 4
# --help explains the notation
has "help notation" "Sw<3,3,3> o 0 o L" "$L" --help
has "help ldmatrix" "ldmatrix x1|x2|x4 [trans] [A|B]" "$L" --help
# show: the layout's text once (its first line), then size etc., then the table's cells
out=$("$L" show '(4,8):(8,1)')
n=$(printf '%s\n' "$out" | grep -c -F '(4,8):(8,1)')
if [ "$n" = 1 ] && [ "$(printf '%s\n' "$out" | head -1)" = "layout           (4,8):(8,1)" ] &&
   [ "$(printf '%s\n' "$out" | sed -n 3p)" = "      0    1    2    3    4    5    6    7" ] &&
   printf '%s\n' "$out" | grep -qF ' 2 | 16 | 17 | 18 | 19 | 20 | 21 | 22 | 23 |'; then pass=$((pass+1))
else fail=$((fail+1)); echo "FAIL show: the layout's text $n times (want 1), or not the table:"; printf '%s\n' "$out" | head -5; fi
has "show rank 3" "size 8  cosize 8  rank 3  depth 1" "$L" show '(2,2,2):(1,2,4)'
# bad input
bad "ldmatrix x3" "not x1, x2 or x4" "$L" ldmatrix x3
bad "ldmatrix A x2" "takes x4" "$L" ldmatrix x2 A
bad "mma D" "unknown operand 'D'" "$L" mma D
bad "slice bad crd" "bad coordinate list" "$L" slice '(4,8):(8,1)' '(_,x)'
bad "slice rank" "one coordinate per mode" "$L" slice '(4,8):(8,1)' '(1)'
bad "copy not dividing" "does not divide" "$L" copy '(64,2):(2,1)' '(1,4):(0,1)' 100 8
bad "grid outside" "cannot draw" "$L" grid '(4,2):(1,4)' '(2,2):(1,2)'
bad "bankmap not contiguous" "not contiguous" "$L" bankmap '(128,8):(1,132)' 4
bad "bankmap partial chunk" "whole 16-byte chunks" "$L" bankmap '(8,60):(64,1)' 2
bad "bankmap element size" "element size" "$L" bankmap '(8,64):(64,1)' 3
echo "layouts cli: $pass passed, $fail failed"
[ $fail = 0 ]

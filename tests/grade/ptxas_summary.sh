#!/usr/bin/env bash
# ptxas_summary.sh - prints a compile log of an exercise kernel (nvcc ... -Xptxas -v) for the
# learner: every message except ptxas's info lines, then one line per kernel and architecture
# with what ptxas reported: registers, stack frame and spills (a stack frame or a spill means
# some layout did not fold to index arithmetic: see the lesson's README).
#     bash tests/grade/ptxas_summary.sh build/grade/03_tiled/exercise/kernel.o.build.log
set -u
log=$1
[ -f "$log" ] || exit 0
grep -v -E '^ptxas info|^ +[0-9]+ bytes stack frame' "$log"
awk '
    # "_Z9ex03_gemmiiif..." -> "ex03_gemm" (the name of a plain, unqualified function);
    # integer template arguments are kept: "_Z9ex05_gemmILi1EEv..." -> "ex05_gemm<1>"
    function name(s,   n, f, t, a) {
        if (!match(s, /^_Z[0-9]+/)) return s
        n = substr(s, 3, RLENGTH - 2) + 0; f = substr(s, RLENGTH + 1, n); t = substr(s, RLENGTH + 1 + n)
        if (substr(t, 1, 1) != "I") return f
        t = substr(t, 2); a = ""
        while (match(t, /^Li-?[0-9]+E/)) { a = a (a == "" ? "" : ",") substr(t, 3, RLENGTH - 3); t = substr(t, RLENGTH + 1) }
        return a == "" ? f : f "<" a ">"
    }
    /Compiling entry function/ { split($0, q, "\047"); fn = name(q[2]); arch = q[4] }
    /bytes stack frame/ && fn != "" { sub(/^ +/, ""); frame[fn " " arch] = $0 }
    /Used [0-9]+ registers/ && fn != "" {
        r = $0; sub(/.*Used /, "", r); sub(/ registers.*/, "", r)
        printf "ptxas %s %s: %s registers, %s\n", arch, fn, r, frame[fn " " arch]
        fn = ""
    }' "$log"

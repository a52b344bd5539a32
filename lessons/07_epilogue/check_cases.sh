#!/usr/bin/env bash
# check_cases.sh - every line of lessons/07_epilogue/gpu_cases.txt plans without a refusal:
# lesson 07 needs lda, ldb, ldc multiples of 8, and a case it refuses would pass on the GPU
# untested (the harness runs the rest and exits 0). Without a GPU each line must stop at the
# missing device (exit 3) with no "refused:" line before it. Skipped on a machine with a GPU
# (make test-gpu runs the lines there). Part of make test (lessons/07_epilogue/lesson.mk).
# Usage: BUILD=build bash lessons/07_epilogue/check_cases.sh
set -u
BUILD=${BUILD:-build}
run=$BUILD/07_epilogue/run
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then
    echo "07 gpu_cases: SKIP (a GPU is present: make test-gpu runs them)"; exit 0
fi
[ -x "$run" ] || { echo "FAIL 07 gpu_cases: $run not built"; exit 1; }
n=0 bad=0
while IFS= read -r line; do
    case "$line" in ''|'#'*) continue;; esac
    n=$((n+1))
    # shellcheck disable=SC2086
    out=$("$run" $line 2>&1); rc=$?
    if [ $rc != 3 ] || printf '%s' "$out" | grep -q "refused:"; then
        bad=$((bad+1)); echo "FAIL 07 gpu_cases (exit $rc): $line"; printf '%s\n' "$out" | head -2 | sed 's/^/    /'
    fi
done < lessons/07_epilogue/gpu_cases.txt
echo "07 gpu_cases: $n lines, $bad refused or malformed"
[ $bad = 0 ]

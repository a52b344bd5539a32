#!/usr/bin/env bash
# check_cases.sh - every epilogue line of lessons/08_dispatch/gpu_cases.txt (one with --out or
# --epilogue) plans without a refusal: a case the dispatcher or a forced configuration declined
# would pass on the GPU untested (the harness runs the rest and exits 0). Without a GPU each
# such line must stop at the missing device (exit 3) with no "refused:" line before it. (The
# other lines force every configuration on purpose, declining where it must.) Skipped on a
# machine with a GPU (make test-gpu runs the lines there). Part of make test (lesson.mk).
# Usage: BUILD=build bash lessons/08_dispatch/check_cases.sh
set -u
BUILD=${BUILD:-build}
run=$BUILD/08_dispatch/run
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then
    echo "08 gpu_cases: SKIP (a GPU is present: make test-gpu runs them)"; exit 0
fi
[ -x "$run" ] || { echo "FAIL 08 gpu_cases: $run not built"; exit 1; }
n=0 bad=0
while IFS= read -r line; do
    case "$line" in ''|'#'*) continue;; esac
    case " $line " in *" --out "*|*" --epilogue "*) ;; *) continue;; esac
    n=$((n+1))
    # shellcheck disable=SC2086
    out=$("$run" $line 2>&1); rc=$?
    if [ $rc != 3 ] || printf '%s' "$out" | grep -q "refused:"; then
        bad=$((bad+1)); echo "FAIL 08 gpu_cases (exit $rc): $line"; printf '%s\n' "$out" | head -2 | sed 's/^/    /'
    fi
done < lessons/08_dispatch/gpu_cases.txt
echo "08 gpu_cases: $n epilogue lines, $bad refused or malformed"
[ $n -gt 0 ] && [ $bad = 0 ]

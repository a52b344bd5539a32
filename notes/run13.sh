#!/usr/bin/env bash
# run13.sh - issue 4's cases (lessons/03_tiled and 04_copy gpu_cases.txt, every variant) under
# compute-sanitizer memcheck.
set -u
export PATH=/usr/local/cuda/bin:$PATH
for l in 03_tiled 04_copy; do
  grep -v '^#' lessons/$l/gpu_cases.txt | while read -r args; do
    [ -z "$args" ] && continue
    out=$(timeout 200 compute-sanitizer --tool memcheck --error-exitcode 99 build/$l/run $args 2>&1); rc=$?
    echo "$l rc=$rc $(printf '%s' "$out" | grep -E 'passed|ERROR SUMMARY' | tr '\n' ' ') :: $args"
  done
done

#!/bin/sh
# tests/test_zero_cost.sh -- layouts built from constants must cost nothing on the GPU.
# Compiles tests/zero_cost/kernel.cu (a GEMM-like kernel indexing A, B, C and shared memory
# through common/layout.h) with `nvcc -arch=sm_90 -Xptxas -v -cubin` and fails if ptxas reports
# a non-zero stack frame or any spill, or (when cuobjdump exists) the SASS has LDL/STL
# (local-memory loads/stores). No GPU needed. Env: NVCC (nvcc), BUILD (build).
set -u
NVCC=${NVCC:-nvcc}
BUILD=${BUILD:-build}
SRC=${ZC_SRC:-tests/zero_cost/kernel.cu}
OUT=$BUILD/tests/zero_cost
mkdir -p "$OUT"
if ! command -v "$NVCC" >/dev/null 2>&1; then
  echo "test_zero_cost: SKIP: $NVCC not found"
  exit 0
fi
REPORT=$OUT/ptxas.txt
if ! "$NVCC" -arch=sm_90 -Xptxas -v -cubin -Icommon -o "$OUT/kernel.cubin" "$SRC" >"$REPORT" 2>&1; then
  cat "$REPORT"
  echo "test_zero_cost: FAIL: $SRC does not compile"
  exit 1
fi
fail=0
if ! grep -q "bytes stack frame" "$REPORT"; then
  cat "$REPORT"; echo "test_zero_cost: FAIL: no ptxas -v report"; exit 1
fi
if grep "bytes stack frame" "$REPORT" | grep -vq "^ *0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"; then
  grep -B2 "bytes stack frame" "$REPORT"
  echo "test_zero_cost: FAIL: stack frame or spills (layouts did not fold to index math)"
  fail=1
fi
if grep -qi "lmem\|local memory" "$REPORT"; then
  cat "$REPORT"; echo "test_zero_cost: FAIL: local memory in the ptxas report"; fail=1
fi
CUOBJDUMP=${CUOBJDUMP:-$(sh scripts/find_cuobjdump.sh 2>/dev/null || true)}
[ -n "$CUOBJDUMP" ] && PATH="$(dirname "$CUOBJDUMP"):$PATH"   # nvdisasm next to it
[ -z "$CUOBJDUMP" ] && [ -x "$(dirname "$(command -v "$NVCC")")/cuobjdump" ] && \
  CUOBJDUMP="$(dirname "$(command -v "$NVCC")")/cuobjdump"
if [ -n "$CUOBJDUMP" ]; then
  "$CUOBJDUMP" -sass "$OUT/kernel.cubin" >"$OUT/kernel.sass" 2>&1
  if grep -Eq "\b(LDL|STL)(\.|\b)" "$OUT/kernel.sass"; then
    grep -E "\b(LDL|STL)" "$OUT/kernel.sass" | head
    echo "test_zero_cost: FAIL: local-memory instructions in the SASS"
    fail=1
  fi
else
  echo "test_zero_cost: note: cuobjdump not found, SASS check skipped"
fi
[ $fail -eq 0 ] && echo "test_zero_cost: PASS (0 bytes stack frame, no spills$( [ -n "$CUOBJDUMP" ] && echo ', no LDL/STL'))"
exit $fail

#!/bin/sh
# tests/test_zero_cost.sh -- layouts built from constants must cost nothing on the GPU.
# Compiles each tests/zero_cost/*.cu (kernel.cu: a GEMM-like kernel indexing A, B, C and shared
# memory through common/layout.h; tv_kernel.cu: tiled copy, tiled MMA and ldmatrix addresses
# through common/layout_tv.h) with `nvcc -arch=sm_90 -Xptxas -v -cubin` and fails if ptxas
# reports a non-zero stack frame or any spill, or (when cuobjdump exists) the SASS has LDL/STL
# (local-memory loads/stores). No GPU needed. Env: NVCC (nvcc), BUILD (build), ZC_SRC (one
# source instead of all).
set -u
NVCC=${NVCC:-nvcc}
BUILD=${BUILD:-build}
SRCS=${ZC_SRC:-$(ls tests/zero_cost/*.cu)}
OUT=$BUILD/tests/zero_cost
mkdir -p "$OUT"
if ! command -v "$NVCC" >/dev/null 2>&1; then
  echo "test_zero_cost: SKIP: $NVCC not found"
  exit 0
fi
CUOBJDUMP=${CUOBJDUMP:-$(sh scripts/find_cuobjdump.sh 2>/dev/null || true)}
[ -n "$CUOBJDUMP" ] && PATH="$(dirname "$CUOBJDUMP"):$PATH"   # nvdisasm next to it
[ -z "$CUOBJDUMP" ] && [ -x "$(dirname "$(command -v "$NVCC")")/cuobjdump" ] && \
  CUOBJDUMP="$(dirname "$(command -v "$NVCC")")/cuobjdump"
fail=0
for SRC in $SRCS; do
  name=$(basename "$SRC" .cu)
  REPORT=$OUT/$name.ptxas.txt
  if ! "$NVCC" -arch=sm_90 -Xptxas -v -cubin -Icommon -o "$OUT/$name.cubin" "$SRC" >"$REPORT" 2>&1; then
    cat "$REPORT"
    echo "test_zero_cost: FAIL: $SRC does not compile"
    fail=1; continue
  fi
  if ! grep -q "bytes stack frame" "$REPORT"; then
    cat "$REPORT"; echo "test_zero_cost: FAIL: $SRC: no ptxas -v report"; fail=1; continue
  fi
  if grep "bytes stack frame" "$REPORT" | grep -vq "^ *0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"; then
    grep -B2 "bytes stack frame" "$REPORT"
    echo "test_zero_cost: FAIL: $SRC: stack frame or spills (layouts did not fold to index math)"
    fail=1
  fi
  if grep -qi "lmem\|local memory" "$REPORT"; then
    cat "$REPORT"; echo "test_zero_cost: FAIL: $SRC: local memory in the ptxas report"; fail=1
  fi
  if [ -n "$CUOBJDUMP" ]; then
    "$CUOBJDUMP" -sass "$OUT/$name.cubin" >"$OUT/$name.sass" 2>&1
    if grep -Eq "\b(LDL|STL)(\.|\b)" "$OUT/$name.sass"; then
      grep -E "\b(LDL|STL)" "$OUT/$name.sass" | head
      echo "test_zero_cost: FAIL: $SRC: local-memory instructions in the SASS"
      fail=1
    fi
  fi
done
[ -z "$CUOBJDUMP" ] && echo "test_zero_cost: note: cuobjdump not found, SASS check skipped"
[ $fail -eq 0 ] && echo "test_zero_cost: PASS ($(echo $SRCS | wc -w) kernels: 0 bytes stack frame, no spills$( [ -n "$CUOBJDUMP" ] && echo ', no LDL/STL'))"
exit $fail

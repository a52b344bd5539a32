#!/usr/bin/env bash
# GPU run 5: lesson 02 unroll experiments vs lesson 01; lesson 04 with ldg variants TN-only.
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/out5}; mkdir -p "$OUT/logs"
build/01_naive/run --variant coalesced --size 4096x4096x4096 --iters 10 | tail -2
build/02_layout/run --size 4096x4096x4096 --iters 10 | tail -6
build/02_layout/run --size 4096x4096x4096 --iters 10 --layout TN,NT,NN | tail -16 | grep -E "layout |hand "
STEPS=test LESSONS="04_copy" bash scripts/gpu_check.sh 2>&1 | tail -16
STEPS=sanitize LESSONS="04_copy" bash scripts/gpu_check.sh 2>&1 | tail -6

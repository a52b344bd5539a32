#!/usr/bin/env bash
# run23.sh - session 3, after review: lesson 06's sanitizers on 1000x9000x72 (288 tiles of
# 128x256 for 132 SMs: every persistent CTA walks at least two, so racecheck sees tile
# boundaries and the reuse of the C staging blocks), beta 0.5 and 0; GPU tests of 06 again
# (host-side refusal change, SASS-identical epilogue refactor).
set -u
OUT=${OUT:-/tmp/run23}; mkdir -p "$OUT"
OUT=$OUT LESSONS=06_swizzle STEPS="sanitize test" bash scripts/gpu_check.sh 2>&1 | tail -14

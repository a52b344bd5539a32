#!/usr/bin/env bash
# run8.sh - lesson 04: the 4-warp, 2-CTA/SM register-staged variants against the default.
set -u
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv,noheader
R=build/04_copy/run
for v in ldg128_128x128x8_4w ldg128_128x128x8_4w_8x16; do
  grep -v '^#' lessons/04_copy/gpu_cases.txt | while read -r args; do
    [ -z "$args" ] && continue
    $R --variant $v $args 2>&1 | grep -E "FAIL|passed|refused|error" | head -3
  done
done
for v in ldg128_128x256x8 ldg128_128x128x8_4w ldg128_128x128x8_4w_8x16 ldg128_128x128x8; do
  $R --variant $v --size 4096x4096x4096 --iters 20 2>&1 | grep -E "^$v|FAIL"
done
for v in ldg128_128x256x8 ldg128_128x128x8_4w ldg128_128x128x8_4w_8x16; do
  $R --variant $v --size 2048x2048x2048,8192x8192x8192,4095x4095x4096 --iters 10 2>&1 | grep -E "^$v|FAIL"
done
for v in ldg128_128x128x8_4w ldg128_128x256x8; do
  $R --variant $v --layout all --size 4096x4096x4096 --iters 10 2>&1 | grep -E "^$v|FAIL"
done

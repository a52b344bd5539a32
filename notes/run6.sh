#!/usr/bin/env bash
# GPU run 6: lesson 02 batched k loop (layout_batch / hand_batch) vs lesson 01; correctness.
set -u
export PATH=/usr/local/cuda/bin:$PATH
build/01_naive/run --variant coalesced --size 4096x4096x4096 --iters 10 | tail -2
build/02_layout/run --size 4096x4096x4096 --iters 10 | tail -7
build/01_naive/run --variant coalesced --size 4096x4096x4096 --iters 10 | tail -2
build/02_layout/run --size 4096x4096x4096 --iters 10 --layout NT --variant layout_batch | tail -2
build/02_layout/run --check-only --layout all --size 127x127x127,1000x1000x1000,1021x513x2049,4093x4093x4093 | tail -1
build/02_layout/run --check-only --layout all --alpha 1.5 --beta -0.75 --pad 3 --offset 1 --size 127x129x131,33x65x17 | tail -1
build/02_layout/run --check-only --layout all --poison inf --init ones --size 128x128x1,128x128x72,1x705x705 | tail -1
compute-sanitizer --tool memcheck build/02_layout/run --check-only --layout all --size 127x129x67,65x33x200 --beta 0.5 2>&1 | tail -2

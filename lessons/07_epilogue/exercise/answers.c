/* answers.c - lesson 07 assignment, part 3: your answers to the questions of README.md.
 * Replace each EX07_TODO by a number (work it out on paper first), then `make grade07`.
 */
#include "answers.h"

/* Q1. Bytes of shared memory the 8 warps' staging blocks take for an fp32 output. */
long ex07_q1_staging_bytes_fp32(void) { return EX07_TODO; }

/* Q2. 16-byte global store instructions one warp executes for its 64 x 64 block of a full
 * tile, fp16 output. */
long ex07_q2_stores_per_warp(void) { return EX07_TODO; }

/* Q3. Wavefronts of one warp's 4-byte fragment store (accumulators c0c1 of one atom, fp16
 * output) into a staging block of rows of 64 halves, without the pad. */
long ex07_q3_wavefronts_unpadded(void) { return EX07_TODO; }

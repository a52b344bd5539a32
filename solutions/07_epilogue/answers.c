/* answers.c - lesson 07 assignment, part 3: the answers, with their working.
 * Staff solution. GEMM-COURSE-SOLUTION (make handout leaves solutions/ out)
 */
#include "answers.h"

/* Q1. Bytes of shared memory the 8 warps' staging blocks take for an fp32 output. */
/* 8 warps x 64 rows x (64 + 8) floats x 4 bytes: exactly the 3 stages of (128 + 256) x 64
 * halves the K loop used (147,456 bytes) */
long ex07_q1_staging_bytes_fp32(void) { return 8L * 64 * 72 * 4; }

/* Q2. 16-byte global store instructions one warp executes for its 64 x 64 block of a full
 * tile, fp16 output. */
/* 64 x 64 halves = 8192 bytes = 512 chunks of 16 bytes, 32 per warp instruction */
long ex07_q2_stores_per_warp(void) { return 16; }

/* Q3. Wavefronts of one warp's 4-byte fragment store (accumulators c0c1 of one atom, fp16
 * output) into a staging block of rows of 64 halves, without the pad. */
/* lane 4g + t writes word t of row g; rows of 64 halves are 32 words: all 8 rows start in
 * bank 0, so banks 0..3 each serve 8 different words */
long ex07_q3_wavefronts_unpadded(void) { return 8; }

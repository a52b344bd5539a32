/* answers.c - lesson 06 assignment, part 3: the answers, with their working.
 * Staff solution. GEMM-COURSE-SOLUTION (make handout leaves solutions/ out)
 */
#include "answers.h"

/* Q1. The offset (halves) of element (m, k) = (13, 42) in the swizzled (128, 64) tile. */
/* unswizzled 13*64 + 42 = 874: row 13, chunk 5 (halves 40-47), half 2 of it; Sw<3,3,3> XORs
 * the chunk with the row mod 8: 5 ^ 5 = 0, so 13*64 + 0*8 + 2 */
long ex06_q1_swizzled_offset(void) { return 834; }

/* Q2. Bytes of shared memory the kernel's stages save against rows padded by 16 bytes. */
/* 3 stages x (128 rows of sA + 128 of sB) x 16 bytes */
long ex06_q2_bytes_saved(void) { return 12288; }

/* Q3. N of cp.async.wait_group N in the main loop of a 5-stage ring. */
/* 4 K tiles ahead: at the wait of iteration kt, groups up to kt+3 are committed; kt must be
 * complete, the 3 newer ones may be in flight */
long ex06_q3_wait_n_5stages(void) { return 3; }

/* Q4. How many stages of this kernel's tiles fit in the 227 KiB an H100/H200 CTA may have. */
/* one stage: (128 + 128) rows x 128 bytes = 32 KiB; 227 / 32 = 7.09 */
long ex06_q4_stages_fit(void) { return 7; }

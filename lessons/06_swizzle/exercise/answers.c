/* answers.c - lesson 06 assignment, part 3: your answers to the questions of README.md.
 * Replace each EX06_TODO_ANSWER by a number (work it out on paper first), then `make grade06`.
 */
#include "answers.h"

/* Q1. The offset (halves) of element (m, k) = (13, 42) in the swizzled (128, 64) tile. */
long ex06_q1_swizzled_offset(void) { return EX06_TODO_ANSWER; }

/* Q2. Bytes of shared memory the kernel's stages save against rows padded by 16 bytes. */
long ex06_q2_bytes_saved(void) { return EX06_TODO_ANSWER; }

/* Q3. N of cp.async.wait_group N in the main loop of a 5-stage ring. */
long ex06_q3_wait_n_5stages(void) { return EX06_TODO_ANSWER; }

/* Q4. How many stages of this kernel's tiles fit in the 227 KiB an H100/H200 CTA may have. */
long ex06_q4_stages_fit(void) { return EX06_TODO_ANSWER; }

/* answers.c - lesson 04 assignment, part 3: your answers to the questions of README.md.
 * Replace each EX04_TODO by a number (work it out on paper first), then `make grade04`.
 */
#include "answers.h"

/* Q1. Bytes of shared memory the kernel's two stages of sA and sB take. */
long ex04_q1_smem_bytes(void) { return EX04_TODO; }

/* Q2. N of cp.async.wait_group N in the main loop of a 3-stage pipeline. */
long ex04_q2_wait_n_3stages(void) { return EX04_TODO; }

/* Q3. cp.async instructions one thread issues over a 4096^3 GEMM in the order TN. */
long ex04_q3_cp_async_TN(void) { return EX04_TODO; }

/* Q4. The same in the order NT (lda, ldb multiples of 4, aligned bases). */
long ex04_q4_cp_async_NT(void) { return EX04_TODO; }

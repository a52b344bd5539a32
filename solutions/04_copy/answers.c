/* answers.c - lesson 04 assignment, part 3: the answers, with their working.
 * Staff solution. GEMM-COURSE-SOLUTION (make handout leaves solutions/ out)
 */
#include "answers.h"

/* Q1. Bytes of shared memory the kernel's two stages of sA and sB take. */
/* 2 stages x 2 operands x 8 k rows x 132 floats x 4 bytes */
long ex04_q1_smem_bytes(void) { return 2L * 2 * 8 * 132 * 4; }

/* Q2. N of cp.async.wait_group N in the main loop of a 3-stage pipeline. */
/* at the wait of iteration t, k_tiles 0..t+1 are committed (STAGES-1 ahead): k_tile t must
 * be done, t+1 may still be in flight: N = STAGES-2 = 1 */
long ex04_q2_wait_n_3stages(void) { return 1; }

/* Q3. cp.async instructions one thread issues over a 4096^3 GEMM in the order TN. */
/* TN: both K-major, 4-byte copies: 4 per operand per k_tile, 512 k_tiles: 2 * 4 * 512 */
long ex04_q3_cp_async_TN(void) { return 4096; }

/* Q4. The same in the order NT (lda, ldb multiples of 4, aligned bases). */
/* NT: both x-major and aligned, one 16-byte copy per operand per k_tile: 2 * 1 * 512 */
long ex04_q4_cp_async_NT(void) { return 1024; }

/* answers.c - lesson 05 assignment, part 3: the answers, with their working.
 * Staff solution. GEMM-COURSE-SOLUTION (make handout leaves solutions/ out)
 */
#include "answers.h"

/* Q1. Thread 117, A, atom row i = 2, k-step kk = 1: the (m, k) of its ldmatrix row. */
/* warp 3 = (1, 1): rows 64..127; lane 21: the x4 matrices are (rows 0-7, k 0-7), (8-15, 0-7),
 * (0-7, 8-15), (8-15, 8-15) of the atom, lanes 8q..8q+7 give matrix q: lane 21 is row 5 of
 * matrix 2, i.e. (5, 8) in the atom; atom row 2 is 32 rows down, k-step 1 is 16 k further:
 * (64 + 32 + 5, 16 + 8) */
long ex05_q1_m(void) { return 101; }
long ex05_q1_k(void) { return 24; }

/* Q2. Thread 117, B, the load of atoms j = 2 and 3 at k-step kk = 2: the (n, k) of its row. */
/* warp 3: columns 64..127; the x4 matrices are (atom j, k 0-7), (j, 8-15), (j+1, 0-7),
 * (j+1, 8-15): lane 21 is row 5 of matrix 2, n 5 of atom j+1 = 3 at k 0 of the k-step:
 * (64 + 8*3 + 5, 16*2 + 0) */
long ex05_q2_n(void) { return 93; }
long ex05_q2_k(void) { return 32; }

/* Q3. Wavefronts of one ldmatrix.x4 of A from rows of exactly 64 halves (no padding). */
/* 128-byte rows: the 8 rows of each phase start on the same 4 banks, 8 distinct words on each:
 * 8 wavefronts per phase, 4 phases */
long ex05_q3_wavefronts_unpadded(void) { return 32; }

/* Q4. Bytes of shared memory one warp reads with ldmatrix per K tile. */
/* per k-step MI = 4 loads of A and NI/2 = 4 of B, 512 bytes each (32 rows of 16 bytes), 4
 * k-steps: 32 * 512 */
long ex05_q4_ldmatrix_bytes(void) { return 16384; }

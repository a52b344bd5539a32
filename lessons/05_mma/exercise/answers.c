/* answers.c - lesson 05 assignment, part 3: your answers to the questions of README.md.
 * Replace each EX05_TODO by a number (work it out on paper first), then `make grade05`.
 */
#include "answers.h"

/* Q1. Thread 117, A, atom row i = 2, k-step kk = 1: the (m, k) of its ldmatrix row. */
long ex05_q1_m(void) { return EX05_TODO; }
long ex05_q1_k(void) { return EX05_TODO; }

/* Q2. Thread 117, B, the load of atoms j = 2 and 3 at k-step kk = 2: the (n, k) of its row. */
long ex05_q2_n(void) { return EX05_TODO; }
long ex05_q2_k(void) { return EX05_TODO; }

/* Q3. Wavefronts of one ldmatrix.x4 of A from rows of exactly 64 halves (no padding). */
long ex05_q3_wavefronts_unpadded(void) { return EX05_TODO; }

/* Q4. Bytes of shared memory one warp reads with ldmatrix per K tile. */
long ex05_q4_ldmatrix_bytes(void) { return EX05_TODO; }

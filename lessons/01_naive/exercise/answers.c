/* answers.c - lesson 01 assignment, part 3: your answers to the questions of README.md.
 * Replace each EX01_TODO by a number (work it out on paper first), then `make grade01`.
 */
#include "answers.h"

/* Q1. FLOP per byte of a 4096^3 fp32 GEMM that moves A, B and C across the memory bus once. */
double ex01_q1_intensity_ideal(void) { return EX01_TODO; }

/* Q2. FLOP per byte of the naive kernel if every load of A and B went to memory (no cache). */
double ex01_q2_intensity_naive(void) { return EX01_TODO; }

/* Q3. 32-byte sectors that one warp's load of A(m,k) touches: uncoalesced mapping, TT. */
double ex01_q3_sectors_uncoalesced_A_TT(void) { return EX01_TODO; }

/* Q4. 32-byte sectors that one warp's load of B(n,k) touches: coalesced mapping, TT. */
double ex01_q4_sectors_coalesced_B_TT(void) { return EX01_TODO; }

/* Q5. The same as Q4 in the order TN. */
double ex01_q5_sectors_coalesced_B_TN(void) { return EX01_TODO; }

/* answers.c - lesson 01 assignment, part 3: the answers, with their working.
 * Staff solution. GEMM-COURSE-SOLUTION (make handout leaves solutions/ out)
 */
#include "answers.h"

/* Q1. FLOP per byte of a 4096^3 fp32 GEMM that moves A, B and C across the memory bus once. */
/* 2*4096^3 FLOP / (4 bytes * 3 * 4096^2) = 2*4096 / 12 = 682.67 */
double ex01_q1_intensity_ideal(void) { return 2.0 * 4096 / 12.0; }

/* Q2. FLOP per byte of the naive kernel if every load of A and B went to memory (no cache). */
/* per k a thread does 2 FLOP (one FMA) and loads 2 floats (8 bytes): 2/8 */
double ex01_q2_intensity_naive(void) { return 0.25; }

/* Q3. 32-byte sectors that one warp's load of A(m,k) touches: uncoalesced mapping, TT. */
/* TT: A(m,k) at A[m*4096 + k]; 32 consecutive m are 16 KiB apart: one sector each */
double ex01_q3_sectors_uncoalesced_A_TT(void) { return 32; }

/* Q4. 32-byte sectors that one warp's load of B(n,k) touches: coalesced mapping, TT. */
/* TT: B(n,k) at B[n + k*4096]; 32 consecutive n from a multiple of 32: 128 aligned bytes */
double ex01_q4_sectors_coalesced_B_TT(void) { return 4; }

/* Q5. The same as Q4 in the order TN. */
/* TN: B(n,k) at B[n*4096 + k]; 32 consecutive n are 16 KiB apart */
double ex01_q5_sectors_coalesced_B_TN(void) { return 32; }

/* answers.c - lesson 09 assignment, part 3: the answers, with their working.
 * Staff solution. GEMM-COURSE-SOLUTION (make handout leaves solutions/ out)
 */
#include "answers.h"

/* Q1. The parity the producer waits for on empty[s] in K-iteration 22 of the 4-stage ring. */
/* 22 = 5 * 4 + 2: the 6th use of stage 2 (use 5); its previous use 4 was released by the
 * completion of empty[2]'s phase 4, parity 0: (5 & 1) ^ 1 = 0 */
long ex09_q1_empty_parity(void) { return 0; }

/* Q2. Bytes of one stage (the A tile and the B tile), the tx bytes of full[s]. */
/* (128 + 256) rows x 64 elements x 2 bytes */
long ex09_q2_stage_bytes(void) { return 49152; }

/* Q3. How many stages fit in the 227 KiB an H100/H200 CTA may have (1024 bytes of alignment
 * slack and 16 bytes of barriers per stage included). */
/* (232448 - 1024) / (49152 + 16) = 4.7 */
long ex09_q3_stages_fit(void) { return 4; }

/* Q4. The value of the descriptor's stride-dimension field (bits 32-45). */
/* 8 rows x 128 bytes = 1024 bytes, in 16-byte units */
long ex09_q4_sbo_field(void) { return 64; }

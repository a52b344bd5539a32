/* answers.c - lesson 09 assignment, part 3: your answers to the questions of README.md.
 * Replace each EX09_TODO_ANSWER by a number (work it out on paper first), then `make grade09`.
 */
#include "answers.h"

/* Q1. The parity the producer waits for on empty[s] in K-iteration 22 of the 4-stage ring. */
long ex09_q1_empty_parity(void) { return EX09_TODO_ANSWER; }

/* Q2. Bytes of one stage (the A tile and the B tile), the tx bytes of full[s]. */
long ex09_q2_stage_bytes(void) { return EX09_TODO_ANSWER; }

/* Q3. How many stages fit in the 227 KiB an H100/H200 CTA may have (1024 bytes of alignment
 * slack and 16 bytes of barriers per stage included). */
long ex09_q3_stages_fit(void) { return EX09_TODO_ANSWER; }

/* Q4. The value of the descriptor's stride-dimension field (bits 32-45). */
long ex09_q4_sbo_field(void) { return EX09_TODO_ANSWER; }

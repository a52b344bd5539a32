/* answers.c - lesson 02 assignment: your answers (questions in README.md, this folder).
 * Replace each EX02_TODO / EX02_TODO_LAYOUT by your answer, then run `make grade02`.
 * Work by hand; check a step with build/tools/layouts if you are stuck (make build/tools/layouts).
 */
#include "answers.h"

/* Q1. The offset of coordinate (2,3) in (4,8):(9,1). */
lay_off ex02_q1_offset(void) { return EX02_TODO; }

/* Q2. The offset of 1-D index 13 in (4,8):(9,1) (colexicographic!). */
lay_off ex02_q2_index(void) { return EX02_TODO; }

/* Q3. coalesce(((2,4),3):((1,2),8)). */
lay_layout ex02_q3_coalesce(void) { return EX02_TODO_LAYOUT; }

/* Q4. A 16x16 (M,K) tile of A, K-major, each row padded by 4 floats. */
lay_layout ex02_q4_padded_tile(void) { return EX02_TODO_LAYOUT; }

/* Q5. mB for the operand order TT, N = 6, K = 4, ldb = 8. */
lay_layout ex02_q5_mB_TT(void) { return EX02_TODO_LAYOUT; }

/* Q6. (4,8):(8,1) o (8,4):(4,1). */
lay_layout ex02_q6_compose(void) { return EX02_TODO_LAYOUT; }

/* Q7. complement(4:2, 24). */
lay_layout ex02_q7_complement(void) { return EX02_TODO_LAYOUT; }

/* Q8. zipped_divide((8,8):(8,1), <4:1,4:1>). */
lay_layout ex02_q8_zipped_divide(void) { return EX02_TODO_LAYOUT; }

/* Q9. blocked_product((2,2):(1,2), (2,3):(1,2)). */
lay_layout ex02_q9_blocked_product(void) { return EX02_TODO_LAYOUT; }

/* Q10. The swizzled BYTE offset Sw<3,4,3>(byte offset of (1,4)) in the float tile
 * (8,32):(32,1). */
lay_off ex02_q10_swizzle(void) { return EX02_TODO; }

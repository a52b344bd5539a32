/* solutions/02_layout/answers.c - lesson 02 assignment: the staff solution.
 * GEMM-COURSE-SOLUTION (the marker `make handout` checks: no file of the handout carries it)
 * `make grade-solutions` grades it; `make handout` leaves solutions/ out.
 * Each answer with its working, as the README asks the student to do it.
 */
#include "answers.h"

/* (2,3) -> 2*9 + 3*1 */
lay_off ex02_q1_offset(void) { return 21; }

/* 13 = 1 + 4*3 -> coordinate (1,3) -> 1*9 + 3*1 */
lay_off ex02_q2_index(void) { return 12; }

/* (2,4):(1,2) -> 2*1 == 2: merge to 8:1; then 8*1 == 8: merge with 3:8 -> 24:1 */
lay_layout ex02_q3_coalesce(void) { return ex02_layout("24:1"); }

/* K contiguous (stride 1), next row 16 + 4 floats away */
lay_layout ex02_q4_padded_tile(void) { return ex02_layout("(16,16):(20,1)"); }

/* TT: B(n,k) at B[n + k*ldb], shape (N,K) */
lay_layout ex02_q5_mB_TT(void) { return ex02_layout("(6,4):(1,8)"); }

/* B(i) = 4*c0 + c1 for i = c0 + 8*c1; A(x) = 8*(x%4) + x/4, so A(B(i)) = 8*c1 + c0 */
lay_layout ex02_q6_compose(void) { return ex02_layout("(8,4):(1,8)"); }

/* 4:2 covers 0,2,4,6: fill the gaps (2:1) and repeat to 24 (3:8) */
lay_layout ex02_q7_complement(void) { return ex02_layout("(2,3):(1,8)"); }

/* tile (4,4):(8,1) of the row-major matrix; tiles 4 rows (32) and 4 columns (4) apart */
lay_layout ex02_q8_zipped_divide(void) { return ex02_layout("((4,4),(2,2)):((8,1),(32,4))"); }

/* rows: (2 inside the block, stride 1; 2 blocks, each block 4 offsets) -> (2,2):(1,4);
 * columns: (2 inside the block, stride 2; 3 blocks, 2*4 = 8 apart) -> (2,3):(2,8) */
lay_layout ex02_q9_blocked_product(void) { return ex02_layout("((2,2),(2,3)):((1,4),(2,8))"); }

/* element offset 1*32 + 4 = 36, byte offset 144 = 0b10010000; 144 >> 3 = 0b10010, masked to
 * bits 4..6 (0b1110000): 0b10000 = 16; 144 ^ 16 = 128 (= 4 * Sw<3,2,3>(36) = 4 * 32) */
lay_off ex02_q10_swizzle(void) { return 128; }

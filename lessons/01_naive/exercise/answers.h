/* answers.h - lesson 01 assignment, part 3: the questions of README.md, one function each.
 * Write your answers in answers.c; `make grade01` checks them without a GPU. Leave
 * EX01_TODO in a function you have not answered yet.
 */
#ifndef EX01_ANSWERS_H
#define EX01_ANSWERS_H

#define EX01_TODO (-1.0) /* "not answered yet": no question has a negative answer */

double ex01_q1_intensity_ideal(void);
double ex01_q2_intensity_naive(void);
double ex01_q3_sectors_uncoalesced_A_TT(void);
double ex01_q4_sectors_coalesced_B_TT(void);
double ex01_q5_sectors_coalesced_B_TN(void);

#endif /* EX01_ANSWERS_H */

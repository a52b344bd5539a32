/* answers.h - lesson 05 assignment, part 3: the questions of README.md, one function each.
 * Write your answers in answers.c; `make grade05` checks them without a GPU. Leave
 * EX05_TODO in a function you have not answered yet.
 */
#ifndef EX05_ANSWERS_H
#define EX05_ANSWERS_H

#define EX05_TODO (-1L) /* "not answered yet": no question has a negative answer */

long ex05_q1_m(void);
long ex05_q1_k(void);
long ex05_q2_n(void);
long ex05_q2_k(void);
long ex05_q3_wavefronts_unpadded(void);
long ex05_q4_ldmatrix_bytes(void);

#endif /* EX05_ANSWERS_H */

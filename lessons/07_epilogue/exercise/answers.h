/* answers.h - lesson 07 assignment, part 3: the questions of README.md, one function each.
 * Write your answers in answers.c; `make grade07` checks them without a GPU. Leave EX07_TODO
 * in a function you have not answered yet.
 */
#ifndef EX07_ANSWERS_H
#define EX07_ANSWERS_H

#define EX07_TODO (-1L) /* "not answered yet": no question has a negative answer */

long ex07_q1_staging_bytes_fp32(void);
long ex07_q2_stores_per_warp(void);
long ex07_q3_wavefronts_unpadded(void);

#endif /* EX07_ANSWERS_H */

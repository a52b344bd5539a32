/* answers.h - lesson 04 assignment, part 3: the questions of README.md, one function each.
 * Write your answers in answers.c; `make grade04` checks them without a GPU. Leave
 * EX04_TODO in a function you have not answered yet.
 */
#ifndef EX04_ANSWERS_H
#define EX04_ANSWERS_H

#define EX04_TODO (-1L) /* "not answered yet": no question has a negative answer */

long ex04_q1_smem_bytes(void);
long ex04_q2_wait_n_3stages(void);
long ex04_q3_cp_async_TN(void);
long ex04_q4_cp_async_NT(void);

#endif /* EX04_ANSWERS_H */

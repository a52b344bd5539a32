/* answers.h - lesson 06 assignment, part 3: the questions of README.md, one function each.
 * Write your answers in answers.c; `make grade06` checks them without a GPU. Leave
 * EX06_TODO_ANSWER in a function you have not answered yet.
 */
#ifndef EX06_ANSWERS_H
#define EX06_ANSWERS_H

#define EX06_TODO_ANSWER (-1L) /* "not answered yet": no question has a negative answer */

long ex06_q1_swizzled_offset(void);
long ex06_q2_bytes_saved(void);
long ex06_q3_wait_n_5stages(void);
long ex06_q4_stages_fit(void);

#endif /* EX06_ANSWERS_H */

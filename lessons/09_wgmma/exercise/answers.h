/* answers.h - lesson 09 assignment, part 3: the questions of README.md, one function each.
 * Write your answers in answers.c; `make grade09` checks them without a GPU. Leave
 * EX09_TODO_ANSWER in a function you have not answered yet.
 */
#ifndef EX09_ANSWERS_H
#define EX09_ANSWERS_H

#define EX09_TODO_ANSWER (-1L) /* "not answered yet": no question has a negative answer */

long ex09_q1_empty_parity(void);
long ex09_q2_stage_bytes(void);
long ex09_q3_stages_fit(void);
long ex09_q4_sbo_field(void);

#endif /* EX09_ANSWERS_H */

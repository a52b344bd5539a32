/* answers.h - lesson 02 assignment: the functions you fill in (answers.c) and two helpers.
 * The questions are in README.md (same folder); the grader is tests/test_exercise_02.c:
 *     make grade02
 * Each function returns your answer. Work it out by hand first, then write it as a literal:
 *     return 42;                              a value
 *     return ex02_layout("(4,8):(8,1)");      a layout, in the notation of build/tools/layouts
 * Leave EX02_TODO / EX02_TODO_LAYOUT in a function you have not answered yet.
 */
#ifndef EX02_ANSWERS_H
#define EX02_ANSWERS_H

#include "layout.h"
#include "layout_print.h"

/* "not answered yet": a value no question has, and the invalid layout (size 0). */
#define EX02_TODO (-999999)
#define EX02_TODO_LAYOUT lay_l1(0, 0)

/* A layout from text; the invalid layout (which fails its question) when the text is not
 * a layout. e.g. ex02_layout("((2,4),3):((1,2),8)") */
static inline lay_layout ex02_layout(const char *text) {
    lay_layout L;
    if (lay_parse(text, &L) != LAY_OK) return EX02_TODO_LAYOUT;
    return L;
}

lay_off ex02_q1_offset(void);
lay_off ex02_q2_index(void);
lay_layout ex02_q3_coalesce(void);
lay_layout ex02_q4_padded_tile(void);
lay_layout ex02_q5_mB_TT(void);
lay_layout ex02_q6_compose(void);
lay_layout ex02_q7_complement(void);
lay_layout ex02_q8_zipped_divide(void);
lay_layout ex02_q9_blocked_product(void);
lay_off ex02_q10_swizzle(void);

#endif /* EX02_ANSWERS_H */

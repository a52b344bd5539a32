/* rule_ex.h - lesson 08 assignment: rule S1, the dispatcher's pick for 17 to 64 rows (K <= 2048).
 *
 * YOU WRITE the rule (README.md of this folder): its predicate, ex08_s1_applies (TODO 1: which
 * problems it takes and which configuration of the registry it names), and its row in
 * DISP_EXERCISE_RULES (TODO 2: when, why, measured, as in the lesson's table). Everything else
 * is the lesson's dispatcher, unchanged.
 *
 * How it is used: the grading build defines DISP_EXERCISE; dispatch.h then includes this file
 * just before its rules table (so every type and helper above that point is yours to use:
 * disp_in, disp_configs, disp_tiles_of, disp_split_for, ...) and puts DISP_EXERCISE_RULES first
 * in the table. disp_choose tries your rule before T1..T9; when it applies and the
 * configuration it names accepts the problem (disp_refusal, with the K split disp_split_for
 * picks), the problem is yours; otherwise the lesson's rules decide, as before. The CPU grader
 * (tests/test_exercise_08.c) and the `exercise` variant of the graded binary run this very
 * code. Host-only C11 (gcc and nvcc).
 *
 * Check, run, grade:  make grade08                         (without a GPU: the CPU part)
 *                     make exercise08 && ./run --explain --size 17x4096x2048
 */
#ifndef EX08_RULE_EX_H
#define EX08_RULE_EX_H

#define EX08_TODO "TODO" /* a string of the row not written yet */

/* TODO 1. Rule S1 takes the problems of the class "17 to 64 rows, K up to 2048" (README.md,
 * "The shape class": the dtype, the smallest and the largest M, the longest K, with their
 * borders; N is any) and names, in *cfg, the registry configuration (disp_configs, by its
 * name) that you measured to be fastest on them. Return 1 when it takes the problem, 0
 * otherwise. Leave *t at 0 (the problem as it is, not C^T). in->p is the problem the rules see
 * (after rule R1's K-major copies, when there are copies); the K split is not yours to pick
 * (disp_split_for picks it for the configuration you name). in->d is the GPU: the class does
 * not depend on it (the grader asks about a GPU of 64 SMs too). */
static inline int ex08_s1_applies(const disp_in *in, const char **cfg, int *t) {
    (void)in;
    (void)cfg;
    (void)t;
    return 0;
}

/* TODO 2. The rule's row: id (given), when (the class in words, as --explain prints it), why
 * (what the configuration does better there than T3's 64x128 tile), measured (the run you
 * chose by: command or shapes, device, what you saw). */
#define DISP_EXERCISE_RULES {"S1", EX08_TODO, EX08_TODO, EX08_TODO, ex08_s1_applies},

#endif /* EX08_RULE_EX_H */

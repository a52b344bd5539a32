/* rule_ex.h - lesson 08 assignment: rule S1, the dispatcher's pick for few tiles and a short K.
 *
 * YOU WRITE the rule (README.md of this folder): its predicate, ex08_s1_applies (TODO 1: which
 * problems it takes and which configuration of the registry it names), and its row in
 * DISP_EXERCISE_RULES (TODO 2: when, why, measured, as in the lesson's table). Everything else
 * is the lesson's dispatcher, unchanged.
 *
 * How it is used: the grading build defines DISP_EXERCISE; dispatch.h then includes this file
 * just before its rules table (so every type and helper above that point is yours to use:
 * disp_in, disp_configs, disp_tiles_of, disp_split_for, ...) and puts DISP_EXERCISE_RULES first
 * in the table. disp_choose tries your rule before T1..T8; when it applies and the
 * configuration it names accepts the problem (disp_refusal, with the K split disp_split_for
 * picks), the problem is yours; otherwise the lesson's rules decide, as before. The CPU grader
 * (tests/test_exercise_08.c) and the `exercise` variant of the graded binary run this very
 * code. Host-only C11 (gcc and nvcc).
 *
 * Check, run, grade:  make grade08                         (without a GPU: the CPU part)
 *                     make exercise08 && ./run --explain --size 1024x1024x1024
 */
#ifndef EX08_RULE_EX_H
#define EX08_RULE_EX_H

#define EX08_TODO "TODO" /* a string of the row not written yet */

/* TODO 1. Rule S1 takes the problems of the class "few tiles, short K" (README.md, "The shape
 * class": the dtype, the smallest M and N, the longest K, and the tile count, with their
 * borders) and names, in *cfg, the registry configuration (disp_configs, by its name) that you
 * measured to be fastest on them. Return 1 when it takes the problem, 0 otherwise. Leave *t at
 * 0 (the problem as it is, not C^T). in->p is the problem the rules see (after rule R1's
 * K-major copies, when there are copies); in->d the GPU (in->d->sms: its multiprocessors). */
static inline int ex08_s1_applies(const disp_in *in, const char **cfg, int *t) {
    (void)in;
    (void)cfg;
    (void)t;
    return 0;
}

/* TODO 2. The rule's row: id (given), when (the class in words, as --explain prints it), why
 * (what the configuration does better there than what the lesson picked), measured (the run
 * you chose by: command or shapes, device, what you saw). */
#define DISP_EXERCISE_RULES {"S1", EX08_TODO, EX08_TODO, EX08_TODO, ex08_s1_applies},

#endif /* EX08_RULE_EX_H */

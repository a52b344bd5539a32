/* rule_ex.h - lesson 08 assignment: rule S1, the dispatcher's pick for few tiles and a short K.
 *
 * Staff solution. GEMM-COURSE-SOLUTION (make handout leaves solutions/ out)
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

/* Rule S1: fp16/bf16, M > 64 and N > 64 (smaller ones are T2..T5's), K <= 1024, and fewer
 * 128x128 tiles than SMs. There the lesson runs 128x128 tiles: split K ways by T6 (each split
 * at least 256 of K) or, below K = 512, unsplit by T7 with SMs left idle. T3's 64x128 tile has
 * twice the tiles: disp_split_for fills the same CTA slots with a split no larger (fewer fp32
 * partial sums through the workspace), and below K = 512 it runs twice the CTAs unsplit. */
static inline int ex08_s1_applies(const disp_in *in, const char **cfg, int *t) {
    const gemm_problem *p = in->p;
    (void)t;
    if (p->dtype == GEMM_FP32 || p->m <= 64 || p->n <= 64 || p->k > 1024) return 0;
    if (disp_tiles_of("128x128x64_s3", p->m, p->n) >= in->d->sms) return 0;
    *cfg = "64x128x64_s3_splitk";
    return 1;
}

#define DISP_EXERCISE_RULES                                                                      \
    {"S1", "fp16/bf16, M > 64, N > 64, K <= 1024, fewer 128x128 tiles than SMs",                 \
     "128x128 tiles fill the SMs only split (T6: fp32 partial sums) or not at all (T7); 64x128 " \
     "tiles give twice the CTAs for the same split, so a smaller split (or none) fills the GPU", \
     "H200, 2026-12-01 (--tune): 1024^3 fp16 0.0143 ms against T6 split 4 0.0224 ms (1.57x)",    \
     ex08_s1_applies},

#endif /* EX08_RULE_EX_H */

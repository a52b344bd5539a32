/* rule_ex.h - lesson 08 assignment: rule S1, the dispatcher's pick for 17 to 64 rows (K <= 2048).
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

/* Rule S1: fp16/bf16, 16 < M <= 64 (M <= 16 is T2's, M > 64 the other rules'), K <= 2048,
 * any N. There the lesson runs T3's 64x128 tile, which computes 64 rows for the M that exist
 * (M = 17: 47 of 64 wasted) and, where K caps the split (each split at least 256 of K), leaves
 * SMs idle (64x1024x1024: 8 tiles, split 4, 32 CTAs for 132 SMs). T2's 16x128 tile wastes at
 * most 15 rows and gives ceil(M/16) tiles for T3's one, up to 4x the CTAs: disp_split_for fills
 * the SMs with a smaller split (fewer fp32 partial sums through the workspace), or none where
 * the 16-row tiles alone fill them (64x8192x1024: 256 tiles, split 1, against T3's split 4).
 * The 64-row tile reuses each B fragment twice, the 16-row one once, which counts once K is
 * long: at K = 4096 the runs were mixed (17..48x4096x4096 and 32x14336x4096: 16-row tiles
 * 1.03-1.16x faster; the suite's 64x4096x4096: T3's pick 1.06x faster), so the class ends at
 * K = 2048, where they won every shape measured. */
static inline int ex08_s1_applies(const disp_in *in, const char **cfg, int *t) {
    const gemm_problem *p = in->p;
    (void)t;
    if (p->dtype == GEMM_FP32 || p->m <= 16 || p->m > 64 || p->k > 2048) return 0;
    *cfg = "16x128x64_s4_splitk";
    return 1;
}

#define DISP_EXERCISE_RULES                                                                     \
    {"S1", "fp16/bf16, 16 < M <= 64, K <= 2048",                                                \
     "T3's 64-row tile computes up to 4x the rows that exist and, where K caps the split, "     \
     "leaves SMs idle; 16-row tiles waste at most 15 rows and give up to 4x the CTAs, so the "  \
     "split that fills the GPU is smaller, or 1",                                               \
     "H200, 2026-12-02 (fp16, the split S1 runs, against T3's pick): 64x8192x1024 0.0129 ms / " \
     "0.0179 (1.39x), 63x4093x2048 0.0194 / 0.0253 (1.30x), 64x1024x1024 1.13x, 64x2048x512 "   \
     "1.30x (run 16-7), 40x2048x2048 1.03-1.06x; at K = 4096 mixed (64x4096x4096: T3 1.06x "    \
     "faster)",                                                                                 \
     ex08_s1_applies},

#endif /* EX08_RULE_EX_H */

/* exercise.h - what a lesson's exercise kernel (lessons/NN_name/exercise/kernel.cu) provides.
 *
 * The learner's kernel is one more variant of the lesson. kernel.cu defines it:
 *
 *     #include "exercise.h"
 *     extern "C" const gemm_variant gemm_exercise_variant = {
 *         "exercise", "what it is", GEMM_DT_BIT(GEMM_FP32), GEMM_LAYOUT_ALL, 1, check, launch};
 *
 * and the grader links it with the lesson's own object (build/NN_name/gemm.o, unchanged) and
 * tests/grade/grade_wrap.c, which hands the harness the lesson's variants plus this one: the
 * lesson's default kernel first (so `--variant default` names it), then this one, always
 * named "exercise", then the lesson's other variants. So the harness checks the exercise exactly as it checks the lesson's kernels
 * (odd sizes, every operand order, alpha/beta, C prefilled with NaN/Inf, shared memory
 * NaN-filled before each launch) and times both in the same run. See common/harness.h for
 * gemm_variant's contract (what launch and check must do).
 */
#ifndef GEMM_EXERCISE_H
#define GEMM_EXERCISE_H

#include "harness.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The learner's kernel as a harness variant (defined in the exercise's kernel.cu). */
extern const gemm_variant gemm_exercise_variant;

/* Optional: what the exercise sets up before the harness runs, called by the grader's
 * harness_main when kernel.cu defines it (lesson 08: --explain prints the choice of the
 * exercise's dispatcher, harness_set_explain). */
void gemm_exercise_setup(void);

#ifdef __cplusplus
}
#endif

#endif /* GEMM_EXERCISE_H */

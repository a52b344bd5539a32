/* grade_wrap.c - turns a lesson's binary into the grader's binary, without touching the lesson.
 *
 * The graded program is linked from the lesson's own object (build/NN_name/gemm.o, the one
 * `make lessonNN` builds: its main() is `return harness_main(argc, argv, &lesson);`), the
 * learner's kernel (exercise/kernel.cu, which defines gemm_exercise_variant, see exercise.h),
 * the harness, and this file, with the linker option --wrap=harness_main. The linker then
 * sends the lesson's call of harness_main to __wrap_harness_main below, with the lesson's
 * descriptor; we call the real harness (__real_harness_main) with the lesson's variants plus
 * the learner's kernel:
 *
 *     0  the lesson's default kernel (its first variant)  -> `--variant default`
 *     1  the learner's kernel, named "exercise"            -> `--variant exercise`
 *     2… the lesson's other variants, by their names       -> `--variant cp_async_2stage`
 *
 * Everything else (options, checks, timing, the table, --csv, exit status) is the harness's.
 * So `build/grade/NN_name/exercise/run --variant exercise --check-only` checks the learner's
 * kernel like the lesson's own, and `--variant default,exercise` times both in one run (a
 * rubric's speed check may name another of the lesson's variants as the one to compare with).
 * C11, compiled by gcc.
 */
#include <stdio.h>

#include "exercise.h"
#include "harness.h"

int __real_harness_main(int argc, char **argv, const gemm_lesson *lesson);
/* weak: NULL unless the exercise's kernel.cu defines it (exercise.h) */
void gemm_exercise_setup(void) __attribute__((weak));
int __wrap_harness_main(int argc, char **argv, const gemm_lesson *lesson);

int __wrap_harness_main(int argc, char **argv, const gemm_lesson *lesson) {
    static gemm_variant variants[HARNESS_MAX_VARIANTS];
    static char title[256];
    if (!lesson || lesson->nvariants < 1) {
        fprintf(stderr, "grader: the lesson has no kernel variant to compare with\n");
        return HARNESS_EXIT_USAGE;
    }
    int n = 0;
    variants[n++] = lesson->variants[0];
    variants[n] = gemm_exercise_variant;
    variants[n].name = "exercise"; /* the grader asks for it by this name */
    if (!variants[n].summary) variants[n].summary = "the exercise";
    ++n;
    for (int i = 1; i < lesson->nvariants && n < HARNESS_MAX_VARIANTS; ++i)
        variants[n++] = lesson->variants[i];
    snprintf(title, sizeof title, "%s, with the exercise", lesson->title);
    if (gemm_exercise_setup) gemm_exercise_setup();
    gemm_lesson graded = {lesson->id, title, n, variants, lesson->default_layouts};
    return __real_harness_main(argc, argv, &graded);
}

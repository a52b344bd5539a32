/* grade_wrap.c - turns a lesson's binary into the grader's binary, without touching the lesson.
 *
 * The graded program is linked from the lesson's own object (build/NN_name/gemm.o, the one
 * `make lessonNN` builds: its main() is `return harness_main(argc, argv, &lesson);`), the
 * learner's kernel (exercise/kernel.cu, which defines gemm_exercise_variant, see exercise.h),
 * the harness, and this file, with the linker option --wrap=harness_main. The linker then
 * sends the lesson's call of harness_main to __wrap_harness_main below, with the lesson's
 * descriptor; we call the real harness (__real_harness_main) with a lesson of two variants:
 *
 *     0  the lesson's default kernel (its first variant)  -> `--variant default`
 *     1  the learner's kernel, named "exercise"            -> `--variant exercise`
 *
 * Everything else (options, checks, timing, the table, --csv, exit status) is the harness's.
 * So `build/grade/NN_name/exercise/run --variant exercise --check-only` checks the learner's
 * kernel like the lesson's own, and `--variant default,exercise` times both in one run.
 * C11, compiled by gcc.
 */
#include <stdio.h>

#include "exercise.h"
#include "harness.h"

int __real_harness_main(int argc, char **argv, const gemm_lesson *lesson);
int __wrap_harness_main(int argc, char **argv, const gemm_lesson *lesson);

int __wrap_harness_main(int argc, char **argv, const gemm_lesson *lesson) {
    static gemm_variant variants[2];
    static char title[256];
    if (!lesson || lesson->nvariants < 1) {
        fprintf(stderr, "grader: the lesson has no kernel variant to compare with\n");
        return HARNESS_EXIT_USAGE;
    }
    variants[0] = lesson->variants[0];
    variants[1] = gemm_exercise_variant;
    variants[1].name = "exercise"; /* the grader asks for it by this name */
    if (!variants[1].summary) variants[1].summary = "the exercise";
    snprintf(title, sizeof title, "%s, with the exercise", lesson->title);
    gemm_lesson graded = {lesson->id, title, 2, variants, lesson->default_layouts};
    return __real_harness_main(argc, argv, &graded);
}

/* tests/harness_tests.h - helpers shared by the harness's CPU suites (test_harness.c,
 * test_epilogue.c). Include after <criterion/criterion.h> and harness.h.
 *
 * parse(o, err, argc, argv): harness_parse into o with a 256-byte err; returns its result.
 *   e.g. const char *argv[] = {"run", "--size", "64"}; cr_assert_eq(parse(&o, err, 3, argv), 0);
 * no_launch(p, s): a variant's launch that enqueues nothing and returns cudaSuccess (the
 *   suites test refusals and plans, never a kernel).
 * plan_cases_of(lesson, pl, argc, argv): parses argv and plans the cases of `lesson` into pl;
 *   a parse or plan error fails the test with the harness's message.
 *   e.g. plan_cases_of(&plan_lesson, &pl, sizeof argv / sizeof *argv, argv);
 * assert_rejected(bad, n): each of the n command lines is refused with HARNESS_EXIT_USAGE and
 *   a one-line message that contains its needle.
 *   e.g. static const bad_cmdline bad[] = {{{"run", "--iters"}, 2, "needs a value"}};
 *        assert_rejected(bad, sizeof bad / sizeof bad[0]); */
#ifndef TESTS_HARNESS_TESTS_H
#define TESTS_HARNESS_TESTS_H

#include <stddef.h>
#include <string.h>

static inline int parse(harness_opts *o, char *err, int argc, const char *const *argv) {
    return harness_parse(argc, (char **)argv, o, err, 256);
}

static inline cudaError_t no_launch(const gemm_problem *p, cudaStream_t s) {
    (void)p;
    (void)s;
    return cudaSuccess;
}

static inline void plan_cases_of(const gemm_lesson *lesson, harness_plan *pl, int argc,
                                 const char **argv) {
    harness_opts o;
    char err[256];
    cr_assert_eq(harness_parse(argc, (char **)argv, &o, err, sizeof err), 0, "%s", err);
    cr_assert_eq(harness_plan_cases(lesson, &o, pl, err, sizeof err), 0, "%s", err);
}

/* A command line that must be refused: argv[0 .. argc-1] and a part of the expected message. */
typedef struct {
    const char *argv[4];
    int argc;
    const char *needle;
} bad_cmdline;

static inline void assert_rejected(const bad_cmdline *bad, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        harness_opts o;
        char err[256];
        int rc = parse(&o, err, bad[i].argc, bad[i].argv);
        cr_assert_eq(rc, HARNESS_EXIT_USAGE, "case %zu (%s) was accepted", i, bad[i].needle);
        cr_assert(strstr(err, bad[i].needle), "case %zu: message '%s' lacks '%s'", i, err,
                  bad[i].needle);
        cr_assert(!strchr(err, '\n'), "case %zu: the message must be one line", i);
    }
}

#endif /* TESTS_HARNESS_TESTS_H */

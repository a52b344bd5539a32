/* harness_commit.c - the commit written into every result row (CSV "commit" column, table
 * header). Its own object, compiled by the Makefile with -DGEMM_GIT_COMMIT='"<hash>"', so that
 * a new commit (or an edited, "-dirty" tree) only recompiles this file and relinks the lessons
 * instead of recompiling every kernel. The GEMM_COMMIT environment variable overrides it at
 * run time (harness.c). */
#ifndef GEMM_GIT_COMMIT
#define GEMM_GIT_COMMIT "unknown"
#endif
const char harness_git_commit[] = GEMM_GIT_COMMIT;

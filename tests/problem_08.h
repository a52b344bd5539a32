/* tests/problem_08.h - the stand-in problem of lesson 08's CPU tests (test_dispatch_08.c,
 * test_tune_08.c, test_exercise_08.c): a gemm_problem as the harness makes it, with no memory
 * behind it. Include after lessons/08_dispatch/dispatch.h (gemm_problem, GEMM_*).
 *
 * problem(m, n, k, dt, l, pad, offset): M x N x K of dtype dt in operand order l; every
 * leading dimension is its matrix's contiguous extent plus `pad` elements; A, B, C are
 * 256-byte aligned stand-in addresses plus `offset` elements (so disp_fast_path and the
 * alignment refusals see what the harness would give them). Never dereferenced.
 *   e.g. problem(512, 512, 512, GEMM_FP16, GEMM_TN, 0, 0): lda = ldb = ldc = 512, aligned */
#ifndef TESTS_PROBLEM_08_H
#define TESTS_PROBLEM_08_H

#include <stdint.h>
#include <string.h>

static gemm_problem problem(int m, int n, int k, gemm_dtype dt, gemm_layout l, int pad,
                            int offset) {
    gemm_problem p;
    memset(&p, 0, sizeof p);
    p.m = m;
    p.n = n;
    p.k = k;
    p.layout = l;
    p.dtype = p.c_dtype = dt;
    p.alpha = 1.0f;
    p.a_kmajor = l == GEMM_TN || l == GEMM_TT;
    p.b_kmajor = l == GEMM_TN || l == GEMM_NN;
    p.lda = (p.a_kmajor ? k : m) + pad;
    p.ldb = (p.b_kmajor ? k : n) + pad;
    p.ldc = n + pad;
    const uintptr_t off = (uintptr_t)offset * (dt == GEMM_FP32 ? 4 : 2);
    p.A = (const void *)(0x100000 + off);
    p.B = (const void *)(0x200000 + off);
    p.C = (void *)(0x300000 + off);
    return p;
}

#endif /* TESTS_PROBLEM_08_H */

/* mapping.h - lesson 01 assignment, part 1: which thread computes which element of C.
 *
 * YOU WRITE the two functions marked TODO. kernel.cu calls them (on the GPU) and the CPU
 * grader tests/test_exercise_01.c calls them too (on the CPU, without a GPU), so the CPU checks
 * test exactly the mapping your kernel runs.
 *
 * The launch (kernel.cu) uses CTAs of EX01_BLOCK_X x EX01_BLOCK_Y threads; the grader also
 * tries other block shapes (bdx a multiple of 32), so use bdx and bdy, not the constants.
 * Threads are numbered inside a CTA as tid = tx + bdx * ty, and a warp is 32 consecutive tid
 * (CUDA C++ Programming Guide, "Thread Hierarchy" and "SIMT Architecture").
 */
#ifndef EX01_MAPPING_H
#define EX01_MAPPING_H

#include "layout.h" /* LAY_HD: __host__ __device__ under nvcc, nothing in plain C */

#define EX01_BLOCK_X 32 /* threads per CTA along x (blockDim.x) */
#define EX01_BLOCK_Y 32 /* threads per CTA along y (blockDim.y) */

/* The element (m,n) of C (M,N) that thread (tx,ty) of CTA (bx,by) computes, for CTAs of
 * bdx x bdy threads. Requirements (each is a check of the rubric):
 *   - together with ex01_grid, every element of C has exactly one thread; a thread may get an
 *     (m,n) outside C (the kernel sends it home);
 *   - the 32 lanes of a warp get one row m and 32 consecutive columns n, n+1, ..., n+31: C is
 *     row-major, so their stores of C are one 128-byte line.
 * Write *m and *n. */
LAY_HD static inline void ex01_thread_element(int bx, int by, int tx, int ty, int bdx, int bdy,
                                               int *m, int *n) {
    /* TODO: compute m and n from the CTA and thread coordinates. */
    (void)bx; (void)by; (void)tx; (void)ty; (void)bdx; (void)bdy; /* delete when used */
    *m = -1;
    *n = -1;
}

/* The grid: how many CTAs along x (*gx) and y (*gy) for an M x N matrix C and CTAs of
 * bdx x bdy threads, matching ex01_thread_element: enough CTAs to cover C, and no CTA that
 * has no element of C at all. */
LAY_HD static inline void ex01_grid(int M, int N, int bdx, int bdy, int *gx, int *gy) {
    /* TODO: compute gx and gy. */
    (void)M; (void)N; (void)bdx; (void)bdy; /* delete when used */
    *gx = 1;
    *gy = 1;
}

#endif /* EX01_MAPPING_H */

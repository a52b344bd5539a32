/* epilogue_ex.h - lesson 07 assignment, part 1: the arithmetic and the remap of a bias + GELU
 * epilogue.
 *
 * Staff solution. GEMM-COURSE-SOLUTION (make handout leaves solutions/ out)
 *
 * YOU WRITE ex07_gelu (TODO 1), ex07_value (TODO 2) and ex07_stage_offset (TODO 3). kernel.cu
 * calls them for every accumulator, and the CPU grader (tests/test_exercise_07.c) checks the
 * very same functions without a GPU: GELU's known values, the order of operations, and that the
 * remap lands every accumulator in its own slot of the staging block with conflict-free stores.
 *
 * The configuration is the lesson's default variant, 128x256x64_s3: 8 warps of (64, 64) warp
 * tiles, each 4 x 8 MMA atoms of m16n8k16, so a lane holds 4 x 8 x 4 = 128 fp32 accumulators.
 * Accumulator value v of a lane (v = c + 4 (i + 4 j): value c = 0..3 of atom (i, j)) sits at
 * (m, n) = lay_tiled_mma_c_crd(&mma, lane, v) of its warp's tile, mma = ex07_warp_mma() (the
 * lesson's plan_mma for one warp: warp-local coordinates). The warp stages its tile of D in
 * shared memory as plan_cstage(64, 64) = (64,64):(72,1): row-major, rows padded by 8 elements.
 *
 * Plain C over common/layout.h and the lesson's plan.h: compiles with gcc (the CPU grader) and
 * nvcc (the kernel).
 */
#ifndef EX07_EPILOGUE_EX_H
#define EX07_EPILOGUE_EX_H

#include <math.h>

#include "plan.h"
#include "ptx.h"

#ifdef __CUDACC__
#define EX07_INLINE static __host__ __device__ __forceinline__
#else
#define EX07_INLINE static inline
#endif

#define EX07_WTM 64 /* warp tile */
#define EX07_WTN 64
#define EX07_TODO_INT (-1) /* "not written yet" for the int functions */

/* GIVEN. The one warp's tiled MMA: lay_tiled_mma_c_crd(&m, lane, v, ...) gives accumulator v
 * of lane at warp-local (m, n). */
EX07_INLINE lay_tiled_mma ex07_warp_mma(void) { return plan_mma(1, 1, EX07_WTM, EX07_WTN, 64); }

/* GIVEN. tanh: on the GPU tanh.approx.f32 (one instruction, relative error about 2^-11,
 * common/ptx.h), on the CPU the C library's tanhf. */
EX07_INLINE float ex07_tanh(float x) {
#ifdef __CUDA_ARCH__
    return ptx_tanh_approx(x);
#else
    return tanhf(x);
#endif
}

/* TODO 1. GELU in its tanh form (cuBLASLt's): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))),
 * in fp32, with ex07_tanh. */
EX07_INLINE float ex07_gelu(float x) {
    const float z = 0.79788456f * (x + 0.044715f * x * x * x); /* sqrt(2/pi) = 0.79788456 */
    return 0.5f * x * (1.0f + ex07_tanh(z));
}

/* TODO 2. One output before its rounding: gelu(alpha * acc + beta * c + bias), in fp32, in this
 * order (the bias before the activation, as cuBLASLt's CUBLASLT_EPILOGUE_GELU_BIAS). beta = 0
 * never reads C: then c may hold anything (NaN), and must not reach the result. */
EX07_INLINE float ex07_value(float acc, float alpha, float beta, float c, float bias) {
    float v = alpha * acc;
    if (beta != 0.0f) v += beta * c;
    return ex07_gelu(v + bias);
}

/* TODO 3. The remap: the element offset, in the warp's staging block plan_cstage(64, 64), of
 * accumulator value v (0..127) of lane (0..31): the staging layout evaluated at the (m, n) the
 * MMA's C fragment layout gives (lay_tiled_mma_c_crd of ex07_warp_mma(), lay_crd2idx2). */
EX07_INLINE int ex07_stage_offset(int lane, int v) {
    const lay_tiled_mma mma = ex07_warp_mma();
    int m, n;
    lay_tiled_mma_c_crd(&mma, lane, v, &m, &n);
    return (int)lay_crd2idx2(plan_cstage(EX07_WTM, EX07_WTN), m, n);
}

#endif /* EX07_EPILOGUE_EX_H */

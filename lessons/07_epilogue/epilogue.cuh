/* epilogue.cuh - lesson 07's fused epilogue, included by gemm.cu.
 *
 *     D = act(alpha * acc + beta * C + bias)      rounded ONCE to the output type
 *
 * One path for every tile and every option. After the K loop each warp holds its (WTM, WTN)
 * block of fp32 accumulators in registers, in the MMA's C fragment layout. The warp
 *   1. (beta != 0 only) copies its block of C into its staging block in shared memory with
 *      16-byte cp.async, whole row segments per 8 lanes (coalesced), zero-filling what lies
 *      outside C;
 *   2. computes, for each accumulator pair, alpha * acc (+ beta * C from the staging block)
 *      (+ the bias) -> act -> one conversion, and writes the pair into the staging block at
 *      the same place: the accumulator -> output remap is lay_tiled_mma_c_crd composed with
 *      plan_cstage, conflict-free both ways (plan.h);
 *   3. copies the block out to D (written over C) in 16-byte chunks, whole rows of 128 bytes
 *      (halves) or 256 bytes (floats) per warp store, element by element only in a chunk that
 *      N cuts.
 * The block is the warp's alone: __syncwarp() orders its steps, no CTA barrier is needed.
 * Everything is in fp32 until the one conversion, as cuBLASLt does (common/harness.h).
 *
 * The epilogue is a type, epi_fused<OUT, ACT>, that the kernel takes as a template parameter
 * and calls as EPI::store(...): the output type (GEMM_FP32 / GEMM_FP16 / GEMM_BF16) and the
 * activation are compile-time constants, so each combination is its own kernel with only the
 * instructions it needs (the plain kernel has no bias or activation code at all); bias and
 * beta are uniform run-time branches around the element loop. The assignment
 * (exercise/kernel.cu) plugs its own type in the same place.
 */
#ifndef LESSON07_EPILOGUE_CUH
#define LESSON07_EPILOGUE_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "harness.h"
#include "plan.h"
#include "ptx.h"

/* The activations (a template parameter of the epilogue). */
enum { ACT_NONE = 0, ACT_RELU = 1, ACT_GELU_TANH = 2, ACT_GELU_ERF = 3 };

/* gelu, erf form: x Phi(x) = 0.5 x (1 + erf(x / sqrt 2)). erf through Abramowitz & Stegun
 * 7.1.26 (|error| <= 1.5e-7): for u >= 0, erfc(u) = q = (a1 t + ... + a5 t^5) exp(-u^2) with
 * t = 1 / (1 + p u). With u = |x| / sqrt 2, 0.5 (1 + erf(x / sqrt 2)) is 1 - q/2 for x >= 0
 * and q/2 for x < 0, so the negative side has no cancellation. About 15 instructions (two MUFU
 * ops); CUDA's erff takes more registers, which the 128 live accumulators cannot spare (it
 * spills in the half-output kernels). */
static __device__ __forceinline__ float gelu_erf(float x) {
    const float u = fabsf(x) * 0.70710678f;
    const float t = __frcp_rn(fmaf(0.3275911f, u, 1.0f));
    float poly = fmaf(1.061405429f, t, -1.453152027f);
    poly = fmaf(poly, t, 1.421413741f);
    poly = fmaf(poly, t, -0.284496736f);
    poly = fmaf(poly, t, 0.254829592f);
    const float q = poly * t * __expf(-u * u); /* erfc(u) */
    return x * (x < 0.0f ? 0.5f * q : fmaf(-0.5f, q, 1.0f));
}

/* act(x) in fp32. relu keeps NaN (x < 0 is false for NaN; fmaxf(x, 0) would return 0).
 * gelu, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), with tanh.approx (one
 * MUFU op, relative error about 2^-11, below an fp16 output's rounding); erf form: gelu_erf.
 * The two forms differ by up to 4.7e-4 (at |x| = 2.70). */
template <int ACT>
static __device__ __forceinline__ float activation(float x) {
    if (ACT == ACT_RELU) return x < 0.0f ? 0.0f : x;
    if (ACT == ACT_GELU_TANH) {
        const float z = 0.79788456f * fmaf(0.044715f * x, x * x, x); /* sqrt(2/pi) (x + c x^3) */
        const float h = 0.5f * x;
        return fmaf(h, ptx_tanh_approx(z), h);
    }
    if (ACT == ACT_GELU_ERF) return gelu_erf(x);
    return x;
}

/* Bytes of one output element, and output pairs to / from the staging block (element offset
 * o, even: the pair is 4 or 8 bytes aligned). */
template <int OUT>
struct out_elem {
    enum { BYTES = OUT == GEMM_FP32 ? 4 : 2 };
};

template <int OUT>
static __device__ __forceinline__ void stage_store_pair(char *s, int o, float lo, float hi) {
    if (OUT == GEMM_FP32) {
        *(float2 *)(s + 4 * o) = make_float2(lo, hi);
    } else if (OUT == GEMM_FP16) {
        *(__half2 *)(s + 2 * o) = __floats2half2_rn(lo, hi); /* lo in the low half */
    } else {
        *(__nv_bfloat162 *)(s + 2 * o) = __floats2bfloat162_rn(lo, hi);
    }
}

template <int OUT>
static __device__ __forceinline__ float2 stage_load_pair(const char *s, int o) {
    if (OUT == GEMM_FP32) return *(const float2 *)(s + 4 * o);
    if (OUT == GEMM_FP16) return __half22float2(*(const __half2 *)(s + 2 * o));
    return __bfloat1622float2(*(const __nv_bfloat162 *)(s + 2 * o));
}

/* One bias value as fp32; the bias may have another type than the output (--bias-dtype). */
static __device__ __forceinline__ float load_bias(const void *bias, int dtype, int i) {
    if (dtype == GEMM_FP32) return ((const float *)bias)[i];
    if (dtype == GEMM_FP16) return __half2float(((const __half *)bias)[i]);
    return __bfloat162float(((const __nv_bfloat16 *)bias)[i]);
}

/* The warp's block of D: where it lies in C and in shared memory. */
typedef struct warp_block {
    char *s;        /* its staging block, plan_cstage(WTM, WTN) of ES-byte elements */
    char *g;        /* its element (0, 0) in C (maybe outside C: then never dereferenced) */
    int m0, n0;     /* that element's coordinates in C */
    int mrem, nrem; /* rows / columns of the block inside C (<= 0: none) */
    int lane;
} warp_block;

/* The block of this thread's warp: the one lane 0's first accumulator lies in (the tiled MMA's
 * warp layout), staging block number (warp index) of the CTA's smem. */
template <int ES, int WTM, int WTN>
static __device__ __forceinline__ warp_block warp_block_of(const kargs *p, const lay_tiled_mma *mma,
                                                           char *smem, int m0, int n0) {
    const lay_layout mC = lay_l2(p->M, p->N, (int)p->ldc, 1); /* (M,N):(ldc,1) */
    warp_block b;
    b.lane = threadIdx.x % 32;
    b.s = smem + threadIdx.x / 32 * plan_cstage_size(WTM, WTN) * ES;
    lay_tiled_mma_c_crd(mma, threadIdx.x - b.lane, 0, &b.m0, &b.n0);
    b.m0 += m0;
    b.n0 += n0;
    b.mrem = p->M - b.m0;
    b.nrem = p->N - b.n0;
    b.g = (char *)p->C + ES * lay_crd2idx2(mC, b.m0, b.n0);
    return b;
}

/* Step 1: C -> the staging block, 16 bytes per cp.async (plan_cstage_copy), the bytes outside C
 * zero-filled (src-size; a chunk wholly outside reads nothing). Waits for the copies and
 * __syncwarp()s: afterwards any lane may read any element of the block. */
template <int ES, int WTM, int WTN>
static __device__ __forceinline__ void stage_load_c(const warp_block *b, const kargs *p) {
    enum { PASSES = WTM * WTN * ES / (32 * 16) };
    const lay_layout sCL = plan_cstage(WTM, WTN), mC = lay_l2(p->M, p->N, (int)p->ldc, 1);
    const lay_tiled_copy cp = plan_cstage_copy(WTN, ES);
#pragma unroll 4
    for (int it = 0; it < PASSES; ++it) {
        int r, c;
        lay_tiled_copy_crd(cp, WTM, WTN, b->lane, 0, it, &r, &c);
        int nb = r < b->mrem ? ES * (b->nrem - c) : 0;
        nb = nb < 0 ? 0 : (nb > 16 ? 16 : nb);
        const char *src = nb ? b->g + ES * lay_crd2idx2(mC, r, c) : (const char *)p->C;
        ptx_copy16_zfill(ptx_smem_u32(b->s + ES * lay_crd2idx2(sCL, r, c)), src, nb);
    }
    ptx_cp_async_wait_all();
    __syncwarp(); /* every lane's copies have landed before any lane reads a pair */
}

/* Step 3: the staging block -> D, 16-byte chunks (plan_cstage_copy); the elements outside C
 * are not written, a chunk that N cuts goes element by element. Call after a __syncwarp()
 * that follows the last write into the block. */
template <int ES, int WTM, int WTN>
static __device__ __forceinline__ void stage_write_d(const warp_block *b, const kargs *p) {
    enum { VEC = 16 / ES, PASSES = WTM * WTN / (32 * VEC) };
    const lay_layout sCL = plan_cstage(WTM, WTN), mC = lay_l2(p->M, p->N, (int)p->ldc, 1);
    const lay_tiled_copy cp = plan_cstage_copy(WTN, ES);
#pragma unroll 4
    for (int it = 0; it < PASSES; ++it) {
        int r, c;
        lay_tiled_copy_crd(cp, WTM, WTN, b->lane, 0, it, &r, &c);
        if (r >= b->mrem || c >= b->nrem) continue;
        char *g = b->g + ES * lay_crd2idx2(mC, r, c);
        const char *s = b->s + ES * lay_crd2idx2(sCL, r, c);
        if (c + VEC <= b->nrem) {
            *(uint4 *)g = *(const uint4 *)s;
        } else {
#pragma unroll
            for (int e = 0; e < VEC; ++e) {
                if (c + e >= b->nrem) break;
                if (ES == 4) ((float *)g)[e] = ((const float *)s)[e];
                else ((uint16_t *)g)[e] = ((const uint16_t *)s)[e];
            }
        }
    }
}

template <int OUT, int ACT>
struct epi_fused {
    enum { ES = out_elem<OUT>::BYTES };

    /* Step 2 for one combination: every accumulator pair of the lane through the arithmetic,
     * into the staging block. BETA: read C's pair from the block first; BIAS: add bm[i][h]
     * (bias along m: rows) + bn[j][e] (along n: columns), one of them all zeros. */
    template <int BETA, int BIAS, int MI, int NI>
    static __device__ __forceinline__ void compute(float (&acc)[MI][NI][4], const kargs *p,
                                                   const lay_tiled_mma *mma, char *sC,
                                                   const int *rh, const int *ch,
                                                   const float (*bm)[2], const float (*bn)[2]) {
        const lay_layout sCL = plan_cstage(MI * 16, NI * 8); /* (WTM,WTN):(WTN+8,1) */
#pragma unroll
        for (int i = 0; i < MI; ++i)
#pragma unroll
            for (int j = 0; j < NI; ++j)
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    /* accumulators 2h, 2h+1 of atom (i, j): (rh[h] + 16 i, ch[h] + 8 j + {0, 1}) */
                    const int o = (int)lay_crd2idx2(sCL, rh[h] + i * mma->atom.m,
                                                    ch[h] + j * mma->atom.n);
                    float v0 = p->alpha * acc[i][j][2 * h], v1 = p->alpha * acc[i][j][2 * h + 1];
                    if (BETA) {
                        const float2 c = stage_load_pair<OUT>(sC, o);
                        v0 = fmaf(p->beta, c.x, v0);
                        v1 = fmaf(p->beta, c.y, v1);
                    }
                    if (BIAS) {
                        v0 += bm[i][h] + bn[j][0];
                        v1 += bm[i][h] + bn[j][1];
                    }
                    stage_store_pair<OUT>(sC, o, activation<ACT>(v0), activation<ACT>(v1));
                }
    }

    /* The warp's epilogue: steps 1-3 above. acc: the warp's accumulators (fp32), atom (i, j)
     * value c at lay_tiled_mma_c_crd(mma, tid, c + 4*(i + MI*j)) of the CTA tile at (m0, n0).
     * smem: the CTA's dynamic shared memory, free (the caller waited for every copy and every
     * warp's ldmatrix); this warp's staging block is the (warp index)-th. p: the kernel's
     * arguments (gemm.cu). Needs ldc % (16 / ES) == 0 and C 16-byte aligned (the variants'
     * align = 8 and the launch's check). acc is passed by reference so that the compiler reads
     * MI and NI off its type: the kernel calls EPI::store(acc, ...) whatever EPI is. */
    template <int MI, int NI>
    static __device__ __forceinline__ void store(float (&acc)[MI][NI][4], const kargs *p,
                                                 const lay_tiled_mma *mma, char *smem, int m0,
                                                 int n0) {
        enum { WTM = MI * 16, WTN = NI * 8 };
        const warp_block b = warp_block_of<ES, WTM, WTN>(p, mma, smem, m0, n0);
        const int beta = p->beta != 0.0f;
        if (beta) stage_load_c<ES, WTM, WTN>(&b, p); /* 1. C -> the block */

        int rh[2], ch[2]; /* accumulators 0 and 2 of atom (0, 0), warp-local (tests/plans_tc.h) */
        lay_tiled_mma_c_crd(mma, b.lane, 0, &rh[0], &ch[0]);
        lay_tiled_mma_c_crd(mma, b.lane, 2, &rh[1], &ch[1]);
        float bm[MI][2], bn[NI][2]; /* the lane's bias values along m (rows) and n (columns) */
#pragma unroll
        for (int i = 0; i < MI; ++i)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int r = rh[h] + i * mma->atom.m;
                bm[i][h] = p->bias && p->bias_axis == 1 && r < b.mrem
                               ? load_bias(p->bias, p->bias_dtype, b.m0 + r)
                               : 0.0f;
            }
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                const int c = ch[0] + j * mma->atom.n + e;
                bn[j][e] = p->bias && p->bias_axis == 0 && c < b.nrem
                               ? load_bias(p->bias, p->bias_dtype, b.n0 + c)
                               : 0.0f;
            }

        /* 2. the arithmetic, into the block (uniform branches: one loop per case) */
        if (beta) {
            if (p->bias) compute<1, 1>(acc, p, mma, b.s, rh, ch, bm, bn);
            else         compute<1, 0>(acc, p, mma, b.s, rh, ch, bm, bn);
        } else {
            if (p->bias) compute<0, 1>(acc, p, mma, b.s, rh, ch, bm, bn);
            else         compute<0, 0>(acc, p, mma, b.s, rh, ch, bm, bn);
        }
        __syncwarp(); /* every lane's pairs are in the block before any lane copies a row */
        stage_write_d<ES, WTM, WTN>(&b, p); /* 3. the block -> D */
    }
};

#endif /* LESSON07_EPILOGUE_CUH */

/* epilogue.cuh - lesson 07's fused epilogue, included by gemm.cu.
 *
 *     D = act(alpha * acc + beta * C + bias)      rounded ONCE to the output type
 *
 * One path for every tile and every option. After the K loop each warp holds its (WTM, WTN)
 * block of fp32 accumulators in registers, in the MMA's C fragment layout. The warp loads its
 * lane's bias values (one per column or row it holds), then
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
 * instructions it needs (the plain kernel has no activation code at all); beta, the bias,
 * its axis and its type are uniform run-time branches around the element loop, one loop per
 * case (six: beta zero or not x no bias, bias along n, along m). The assignment
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

/* act_prescale<ACT>(): the factor S the epilogue computes its values at, S * (alpha * acc +
 * beta * C + bias), so that activation<ACT> gets s = S x. 1/2 for GELU's tanh form, 1 for the
 * rest. It costs nothing: S multiplies alpha, beta and the lane's bias values once, and
 * scaling by a power of two is exact in binary floating point (outside the subnormal range,
 * below 2^-126), so s is exactly x / 2 with every rounding of x unchanged. */
template <int ACT>
static __device__ __forceinline__ float act_prescale(void) {
    return ACT == ACT_GELU_TANH ? 0.5f : 1.0f;
}

/* act(x) in fp32, from s = act_prescale<ACT>() * x. relu keeps NaN (x < 0 is false for NaN;
 * fmaxf(x, 0) would return 0). gelu, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715
 * x^3))), written in h = x / 2 as h + h tanh(h (a + b h^2)) with a = 2 sqrt(2/pi) and b =
 * 8 * 0.044715 sqrt(2/pi): three FP32 instructions, tanh.approx (one MUFU op, relative error
 * about 2^-11, below an fp16 output's rounding) and one FFMA per element, where the same
 * formula in x takes five and the MUFU op (x^2, 0.044715 x, the FFMA, sqrt(2/pi) *, x / 2).
 * erf form: gelu_erf. The two forms differ by up to 4.7e-4 (at |x| = 2.70). */
template <int ACT>
static __device__ __forceinline__ float activation(float s) {
    if (ACT == ACT_RELU) return s < 0.0f ? 0.0f : s;
    if (ACT == ACT_GELU_TANH) {
        const float z = s * fmaf(0.285419255f, s * s, 1.59576917f); /* sqrt(2/pi)(x + c x^3) */
        return fmaf(s, ptx_tanh_approx(z), s);
    }
    if (ACT == ACT_GELU_ERF) return gelu_erf(s);
    return s;
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

/* The same with the bias type BT a compile-time constant; bias_pair_at: bias[i] and bias[i+1]
 * in one 4-byte (halves) or 8-byte (floats) load, i even (the launch checks that the vector
 * starts on a multiple of two elements). */
template <int BT>
static __device__ __forceinline__ float bias_at(const void *bias, int i) {
    return load_bias(bias, BT, i);
}
template <int BT>
static __device__ __forceinline__ float2 bias_pair_at(const void *bias, int i) {
    if (BT == GEMM_FP32) return ((const float2 *)bias)[i / 2];
    if (BT == GEMM_FP16) return __half22float2(((const __half2 *)bias)[i / 2]);
    return __bfloat1622float2(((const __nv_bfloat162 *)bias)[i / 2]);
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

/* The lane's bias values times scale, bias type BT. Along n (bias_axis 0): bv[j][e] for its
 * columns ch0 + 8 j + e, the values of c0/c1 (and c2/c3) of atom column j, a pair in one load;
 * one warp-uniform branch takes the blocks whose 64 columns all lie inside C past the column
 * tests. Along m: bv[i][h] for its rows rh[h] + 16 i, those of accumulators 2h, 2h+1 of atom
 * row i. bv has rows for the larger of MI and NI; the axis says which are filled. A value
 * outside the vector is 0 and not read (the harness allocates the bias at exactly its length:
 * compute-sanitizer's memcheck sees an over-read). */
template <int BT, int MI, int NI>
static __device__ __forceinline__ void load_bias_lane(const kargs *p, const warp_block *b,
                                                      const lay_tiled_mma *mma, const int *rh,
                                                      int ch0, float scale, float (*bv)[2]) {
    const int AM = mma->atom.m, AN = mma->atom.n;
    if (p->bias_axis == 0 && b->nrem >= NI * AN) { /* the block's columns all inside C */
#pragma unroll
        for (int j = 0; j < NI; ++j) {
            const float2 v = bias_pair_at<BT>(p->bias, b->n0 + ch0 + j * AN);
            bv[j][0] = scale * v.x;
            bv[j][1] = scale * v.y;
        }
    } else if (p->bias_axis == 0) {
#pragma unroll
        for (int j = 0; j < NI; ++j) {
            const int c = ch0 + j * AN; /* even: a pair */
            float2 v = make_float2(0.0f, 0.0f);
            if (c + 1 < b->nrem) v = bias_pair_at<BT>(p->bias, b->n0 + c);
            else if (c < b->nrem) v.x = bias_at<BT>(p->bias, b->n0 + c);
            bv[j][0] = scale * v.x;
            bv[j][1] = scale * v.y;
        }
    } else {
#pragma unroll
        for (int i = 0; i < MI; ++i)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int r = rh[h] + i * AM;
                bv[i][h] = r < b->mrem ? scale * bias_at<BT>(p->bias, b->m0 + r) : 0.0f;
            }
    }
}

/* Bias axis of the element loop (its template parameter: one loop per case). */
enum { EPI_BIAS_NONE = 0, EPI_BIAS_N = 1, EPI_BIAS_M = 2 };

template <int OUT, int ACT>
struct epi_fused {
    enum { ES = out_elem<OUT>::BYTES };

    /* Step 2 for one combination: every accumulator pair of the lane through the arithmetic,
     * into the staging block, at S = act_prescale<ACT>() (alpha, beta and bv already scaled):
     *   beta = 0:   S x = fmaf(S alpha, acc, S bias)          (no bias: S alpha * acc)
     *   beta != 0:  S x = fmaf(S beta, C, S alpha * acc) + S bias
     * in the order of D = act(alpha*acc + beta*C + bias) (common/harness.h), every value
     * exactly S times the one computed without S (act_prescale).
     * BETA: read C's pair from the block first. BIAS: EPI_BIAS_N adds bv[j][e] (columns),
     * EPI_BIAS_M bv[i][h] (rows): one FFMA or FADD per element, whichever the axis. */
    template <int BETA, int BIAS, int MI, int NI>
    static __device__ __forceinline__ void compute(float (&acc)[MI][NI][4], float alpha,
                                                   float beta, const lay_tiled_mma *mma, char *sC,
                                                   const int *rh, const int *ch,
                                                   const float (*bv)[2]) {
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
                    const float b0 = BIAS == EPI_BIAS_N ? bv[j][0] : BIAS ? bv[i][h] : 0.0f;
                    const float b1 = BIAS == EPI_BIAS_N ? bv[j][1] : b0;
                    float v0, v1;
                    if (BETA) {
                        const float2 c = stage_load_pair<OUT>(sC, o);
                        v0 = fmaf(beta, c.x, alpha * acc[i][j][2 * h]);
                        v1 = fmaf(beta, c.y, alpha * acc[i][j][2 * h + 1]);
                        if (BIAS) {
                            v0 += b0;
                            v1 += b1;
                        }
                    } else if (BIAS) {
                        v0 = fmaf(alpha, acc[i][j][2 * h], b0);
                        v1 = fmaf(alpha, acc[i][j][2 * h + 1], b1);
                    } else {
                        v0 = alpha * acc[i][j][2 * h];
                        v1 = alpha * acc[i][j][2 * h + 1];
                    }
                    stage_store_pair<OUT>(sC, o, activation<ACT>(v0), activation<ACT>(v1));
                }
    }

    /* Step 2's loop for the run-time case: beta (0 or not) x the bias axis (none, n, m);
     * uniform branches, one loop each. */
    template <int BETA, int MI, int NI>
    static __device__ __forceinline__ void compute_case(float (&acc)[MI][NI][4], const kargs *p,
                                                        float alpha, float beta,
                                                        const lay_tiled_mma *mma, char *sC,
                                                        const int *rh, const int *ch,
                                                        const float (*bv)[2]) {
        if (!p->bias)
            compute<BETA, EPI_BIAS_NONE>(acc, alpha, beta, mma, sC, rh, ch, bv);
        else if (p->bias_axis == 0)
            compute<BETA, EPI_BIAS_N>(acc, alpha, beta, mma, sC, rh, ch, bv);
        else
            compute<BETA, EPI_BIAS_M>(acc, alpha, beta, mma, sC, rh, ch, bv);
    }

    /* The warp's epilogue: steps 1-3 above. acc: the warp's accumulators (fp32), atom (i, j)
     * value c at lay_tiled_mma_c_crd(mma, tid, c + 4*(i + MI*j)) of the CTA tile at (m0, n0).
     * smem: the CTA's dynamic shared memory, free (the caller waited for every copy and every
     * warp's ldmatrix); this warp's staging block is the (warp index)-th. p: the kernel's
     * arguments (gemm.cu). Needs ldc % (16 / ES) == 0, C 16-byte aligned and the bias vector
     * aligned to two of its elements (the variants' align = 8 and the launch's checks); beta
     * != 0 reads C, beta = 0 never does. acc is passed
     * by reference so that the compiler reads MI and NI off its type: the kernel calls
     * EPI::store(acc, ...) whatever EPI is. */
    template <int MI, int NI>
    static __device__ __forceinline__ void store(float (&acc)[MI][NI][4], const kargs *p,
                                                 const lay_tiled_mma *mma, char *smem, int m0,
                                                 int n0) {
        enum { WTM = MI * 16, WTN = NI * 8, NB = MI > NI ? MI : NI };
        const warp_block b = warp_block_of<ES, WTM, WTN>(p, mma, smem, m0, n0);
        const float S = act_prescale<ACT>();

        int rh[2], ch[2]; /* accumulators 0 and 2 of atom (0, 0), warp-local (tests/plans_tc.h) */
        lay_tiled_mma_c_crd(mma, b.lane, 0, &rh[0], &ch[0]);
        lay_tiled_mma_c_crd(mma, b.lane, 2, &rh[1], &ch[1]);
        /* the lane's bias values (its columns along n, its rows along m), loaded before C's
         * copies so that the two latencies overlap; one uniform branch on the bias type */
        float bv[NB][2];
        if (p->bias) {
            if (p->bias_dtype == GEMM_FP32)
                load_bias_lane<GEMM_FP32, MI, NI>(p, &b, mma, rh, ch[0], S, bv);
            else if (p->bias_dtype == GEMM_FP16)
                load_bias_lane<GEMM_FP16, MI, NI>(p, &b, mma, rh, ch[0], S, bv);
            else
                load_bias_lane<GEMM_BF16, MI, NI>(p, &b, mma, rh, ch[0], S, bv);
        }
        const int beta = p->beta != 0.0f;
        if (beta) stage_load_c<ES, WTM, WTN>(&b, p); /* 1. C -> the block */

        /* 2. the arithmetic, into the block */
        if (beta) compute_case<1>(acc, p, S * p->alpha, S * p->beta, mma, b.s, rh, ch, bv);
        else      compute_case<0>(acc, p, S * p->alpha, 0.0f, mma, b.s, rh, ch, bv);
        __syncwarp(); /* every lane's pairs are in the block before any lane copies a row */
        stage_write_d<ES, WTM, WTN>(&b, p); /* 3. the block -> D */
    }
};

#endif /* LESSON07_EPILOGUE_CUH */

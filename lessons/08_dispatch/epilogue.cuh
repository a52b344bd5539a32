/* epilogue.cuh - lesson 08's epilogue arithmetic, included by gemm.cu (its fused stores) and
 * splitk.cuh (splitk_reduce):
 *
 *     D = act(alpha * acc + beta * C + bias)      rounded ONCE to the output type
 *
 * in fp32 until the one conversion, in this order (common/harness.h, THE EPILOGUE). The
 * activations and the bias load are lesson 07's (lessons/07_epilogue/epilogue.cuh), copied
 * unchanged; what lesson 08 adds is where they run (dispatch.h, disp_epi_where): in the
 * store of the configurations that fuse them (gemm.cu: store_c, store_c_staged with an
 * epilogue), or once per element in splitk_reduce, after the K splits are summed, so a bias
 * is added once whatever the split.
 *
 *   activation<ACT>    act(x): identity, relu, gelu (tanh form with tanh.approx, erf form)
 *   load_bias          one bias value as fp32, of any bias dtype
 *   epi_value          act(alpha*acc + beta*c + bias) of one element (alpha*acc given)
 *   elem_to_f32, f32_to_elem, f32x2_to_pair   fp16/bf16 bits <-> fp32
 *   out_load, out_store, out_store2           C and D elements of output type OUT <-> fp32
 */
#ifndef LESSON08_EPILOGUE_CUH
#define LESSON08_EPILOGUE_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "harness.h"
#include "ptx.h"

/* ---- lesson 07's elementwise part (lessons/07_epilogue/epilogue.cuh), unchanged ---------- */

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

/* One bias value as fp32; the bias may have another type than the output (--bias-dtype). */
static __device__ __forceinline__ float load_bias(const void *bias, int dtype, int i) {
    if (dtype == GEMM_FP32) return ((const float *)bias)[i];
    if (dtype == GEMM_FP16) return __half2float(((const __half *)bias)[i]);
    return __bfloat162float(((const __nv_bfloat16 *)bias)[i]);
}

/* ---- lesson 08: one element, and the output type ----------------------------------------- */

/* The activation of problem p as an ACT_* value (the kernels' act, splitk_reduce's ACT). */
static inline int act_of(const gemm_problem *p) {
    switch (GEMM_EPI_ACT(p->epilogue)) {
    case GEMM_ACT_RELU: return ACT_RELU;
    case GEMM_ACT_GELU: return p->gelu == GEMM_GELU_ERF ? ACT_GELU_ERF : ACT_GELU_TANH;
    default: return ACT_NONE;
    }
}

/* act(ax + beta * c + bias) for ax = alpha * acc: the order of lesson 07's epilogue and of
 * cuBLASLt. beta = 0: c is not used (the caller does not read C: a NaN-poisoned C stays out);
 * BIAS = 0: no bias term (adding 0 would turn -0 into +0). */
template <int ACT, int BIAS>
static __device__ __forceinline__ float epi_value(float ax, float beta, float c, float bias) {
    float v = ax;
    if (beta != 0.0f) v = fmaf(beta, c, v);
    if (BIAS) v += bias;
    return activation<ACT>(v);
}

/* fp16 / bf16 bit patterns <-> fp32 (round to nearest even), and two adjacent outputs (lo at
 * the lower address) as one 4-byte word. */
static __device__ __forceinline__ float elem_to_f32(uint16_t v, int bf16) {
    return bf16 ? __bfloat162float(__ushort_as_bfloat16(v)) : __half2float(__ushort_as_half(v));
}
static __device__ __forceinline__ uint16_t f32_to_elem(float x, int bf16) {
    return bf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(x))
                : __half_as_ushort(__float2half_rn(x));
}
static __device__ __forceinline__ uint32_t f32x2_to_pair(float lo, float hi, int bf16) {
    return (uint32_t)f32_to_elem(lo, bf16) | ((uint32_t)f32_to_elem(hi, bf16) << 16);
}

/* Elements of output type OUT (GEMM_FP32 / GEMM_FP16 / GEMM_BF16) at element offset i of C:
 * read as fp32, written from fp32 with one rounding, and (out_store2) an adjacent pair in one
 * 8-byte (fp32) or 4-byte (halves) store, lo at the lower address: the caller guarantees the
 * pair's alignment (kargs.pair_ok). */
template <int OUT>
static __device__ __forceinline__ float out_load(const void *C, long long i) {
    if (OUT == GEMM_FP32) return ((const float *)C)[i];
    return elem_to_f32(((const uint16_t *)C)[i], OUT == GEMM_BF16);
}
template <int OUT>
static __device__ __forceinline__ void out_store(void *C, long long i, float x) {
    if (OUT == GEMM_FP32) ((float *)C)[i] = x;
    else ((uint16_t *)C)[i] = f32_to_elem(x, OUT == GEMM_BF16);
}
template <int OUT>
static __device__ __forceinline__ void out_store2(void *C, long long i, float lo, float hi) {
    if (OUT == GEMM_FP32) *(float2 *)((float *)C + i) = make_float2(lo, hi);
    else *(uint32_t *)((uint16_t *)C + i) = f32x2_to_pair(lo, hi, OUT == GEMM_BF16);
}

#endif /* LESSON08_EPILOGUE_CUH */

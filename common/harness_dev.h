/* harness_dev.h - device-side helpers of the harness (implemented in harness_kernels.cu,
 * compiled by nvcc, called from harness.c through extern "C"). Internal to the harness and its
 * tools (tools/lt_algos fills its operands with harness_dev_fill). */
#ifndef GEMM_HARNESS_DEV_H
#define GEMM_HARNESS_DEV_H

#include "harness.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills n elements of dtype at p with a seeded, position-dependent value: for
 * HARNESS_INIT_RANDOM uniform in [-1, 1) (splitmix64 hash of seed and index, so the values do
 * not depend on the launch shape), for HARNESS_INIT_ONES 1.0, for HARNESS_INIT_INT integers
 * in [-2, 2] (exact in every dtype, so products are exact too). Returns the launch error. */
cudaError_t harness_dev_fill(void *p, gemm_dtype dtype, long long n, unsigned long long seed,
                             harness_init init, cudaStream_t s);

/* Sets n elements of dtype at p to the float value v (e.g. +Inf or NaN). */
cudaError_t harness_dev_fill_value(void *p, gemm_dtype dtype, long long n, float v, cudaStream_t s);

/* Fills the shared memory of every SM with 0xFF bytes (NaN in every dtype) by running a
 * kernel that takes the opt-in maximum of dynamic shared memory per block, 4 blocks per SM.
 * Run before each checked launch, so a kernel that reads shared memory it has not written
 * in this launch reads NaN (and fails the check) instead of whatever the previous kernel
 * left there, which may happen to be right. Best effort: the hardware does not promise which
 * SM runs which block. Returns the first CUDA error. */
cudaError_t harness_dev_poison_smem(cudaStream_t s);

/* What harness_dev_compare found in its part of C (one record per block; the caller adds
 * them up in block order, so the sums do not depend on timing). */
typedef struct harness_dev_cmp_part {
    double sum_d2;       /* sum over finite pairs of (out - ref)^2 */
    double max_abs;      /* worst |out - ref| */
    double worst_scaled; /* worst |out - ref| / (|ref| + rms) */
    long long worst;     /* its element index m*N + n (-1: none) */
    long long nonfinite; /* outputs that are NaN or Inf */
    long long first_bad; /* the first of them, m*N + n (-1: none) */
    long long pad_diff;  /* elements between N and ldc (rows 0..M-2) that differ from C0 */
} harness_dev_cmp_part;
#define HARNESS_DEV_CMP_PARTS 256
/* Compares the (M,N):(ldc,1) output C with the reference R (same layout), both of dtype dt,
 * on the device, as harness_compare does on the host (rms: the reference's root mean square
 * over its finite elements, computed once by the caller), and checks that the padding of C
 * between N and ldc still equals C0's bytes. Writes HARNESS_DEV_CMP_PARTS records to parts
 * (device memory). Returns the launch error. */
cudaError_t harness_dev_compare(const void *C, const void *R, const void *C0, gemm_dtype dt,
                                long long ldc, int M, int N, double rms,
                                harness_dev_cmp_part *parts, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif

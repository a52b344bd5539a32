/* harness_dev.h - device-side helpers of the harness (implemented in harness_kernels.cu,
 * compiled by nvcc, called from harness.c through extern "C"). Internal to the harness. */
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

#ifdef __cplusplus
}
#endif

#endif

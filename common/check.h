/* check.h - error checks for CUDA runtime and cuBLAS calls (header-only, C and CUDA C).
 *
 * Contract: each macro evaluates its expression once. On failure it prints one line
 *     file:line: <expression> failed: <error name>: <error string>
 * to stderr and exits with status 3 (the harness's "CUDA error" status, see harness.h).
 * Kernels report launch errors only through cudaGetLastError(), so call CUDA_CHECK_LAST()
 * right after every launch.
 *
 * Example:
 *     float *d;
 *     CUDA_CHECK(cudaMalloc((void **)&d, 1024 * sizeof(float)));
 *     my_kernel<<<grid, block>>>(d);
 *     CUDA_CHECK_LAST();
 *     CUBLAS_CHECK(cublasCreate(&handle));
 */
#ifndef GEMM_CHECK_H
#define GEMM_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include <cublas_api.h>

/* Exit status used for every CUDA/cuBLAS failure (matches HARNESS_EXIT_CUDA). */
#define CHECK_EXIT_STATUS 3

#define CUDA_CHECK(expr)                                                             \
    do {                                                                             \
        cudaError_t check_err_ = (expr);                                             \
        if (check_err_ != cudaSuccess) {                                             \
            fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #expr, \
                    cudaGetErrorName(check_err_), cudaGetErrorString(check_err_));   \
            exit(CHECK_EXIT_STATUS);                                                 \
        }                                                                            \
    } while (0)

/* Checks the error state left by the last kernel launch (bad configuration, too much
 * shared memory, ...). Does not synchronize: faults inside the kernel surface at the next
 * synchronizing call, which CUDA_CHECK reports. */
#define CUDA_CHECK_LAST() CUDA_CHECK(cudaGetLastError())

#define CUBLAS_CHECK(expr)                                                             \
    do {                                                                               \
        cublasStatus_t check_st_ = (expr);                                             \
        if (check_st_ != CUBLAS_STATUS_SUCCESS) {                                      \
            fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #expr,   \
                    cublasGetStatusName(check_st_), cublasGetStatusString(check_st_)); \
            exit(CHECK_EXIT_STATUS);                                                   \
        }                                                                              \
    } while (0)

#endif /* GEMM_CHECK_H */

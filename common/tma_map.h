/* tma_map.h - host side of TMA: a tensor map (CUtensorMap) over a row-major matrix of 16-bit
 * elements, for cp.async.bulk.tensor loads and stores (lesson 09 and its assignment).
 *
 * Header-only host C (static inline), for .cu and .c files that include <cuda.h> for the
 * types. The encoder cuTensorMapEncodeTiled is a driver API function; it is looked up at run
 * time through the runtime's cudaGetDriverEntryPointByVersion, so nothing links libcuda.
 *
 * Facts from the CUDA Driver API reference, "Tensor Map Object Management",
 * cuTensorMapEncodeTiled:
 *   - globalAddress 16-byte aligned; globalStrides (bytes, one per dimension past the first)
 *     multiples of 16 and below 2^40; globalDim each in [1, 2^32];
 *   - boxDim each in [1, 256]; with CU_TENSOR_MAP_SWIZZLE_128B the inner box dimension times
 *     the element size is at most 128 bytes (64 16-bit elements);
 *   - the map is 128 bytes, 64-byte aligned; a kernel takes it as a `const __grid_constant__`
 *     parameter (CUDA C++ Programming Guide, "Using TMA to transfer multi-dimensional arrays").
 * Out-of-bounds elements of a box read as zero (CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) and are not
 * written by a store, which is how the lesson handles any M, N and K.
 */
#ifndef GEMM_TMA_MAP_H
#define GEMM_TMA_MAP_H

#include <cuda.h> /* CUtensorMap and its enums (types only: the function comes at run time) */
#include <cuda_runtime.h>

/* The signature of cuTensorMapEncodeTiled (CUDA 12.0 ABI). */
typedef CUresult (*tma_encode_tiled_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                                        const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,
                                        const cuuint32_t *, CUtensorMapInterleave,
                                        CUtensorMapSwizzle, CUtensorMapL2promotion,
                                        CUtensorMapFloatOOBfill);

/* tma_encode_tiled: cuTensorMapEncodeTiled from the driver, looked up once per process (the
 * 12.0 version of the function). Returns NULL when the runtime or driver does not have it
 * (and asks again on the next call).
 *   e.g. tma_encode_tiled_fn fn = tma_encode_tiled(); if (!fn) return cudaErrorNotSupported; */
static inline tma_encode_tiled_fn tma_encode_tiled(void) {
    static tma_encode_tiled_fn fn = NULL;
    if (!fn) {
        void *f = NULL;
        cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault,
                                             &q) == cudaSuccess &&
            q == cudaDriverEntryPointSuccess)
            fn = (tma_encode_tiled_fn)f;
    }
    return fn;
}

/* tma_map_rowmajor16: a 2-D tensor map over the row-major (rows, cols):(ld, 1) matrix at base
 * of fp16 (bf16 = 0) or bf16 (bf16 = 1) elements. Dimension 0 of the map is cols (the
 * contiguous one), dimension 1 the rows; the box is (box_cols, box_rows) elements, 128-byte
 * swizzled (box_cols * 2 <= 128), zero fill out of bounds, L2 promotion of 256 bytes.
 * rows or cols of 0 are encoded as 1 (the driver refuses 0; a kernel with an empty extent
 * issues no copy through the map).
 * Preconditions: base 16-byte aligned, ld (elements) a multiple of 8, 1 <= box_rows <= 256 —
 * the caller checks them before launch and names what refuses.
 * Returns 0, or -1 when the encoder is missing or the driver refuses the map.
 *   e.g. a (128, 64) box of A, (M, K):(lda, 1) fp16:
 *        CUtensorMap tmA;
 *        if (tma_map_rowmajor16(&tmA, A, M, K, lda, 0, 64, 128)) return cudaErrorInvalidValue; */
static inline int tma_map_rowmajor16(CUtensorMap *map, const void *base, int rows, int cols,
                                     long long ld, int bf16, int box_cols, int box_rows) {
    tma_encode_tiled_fn fn = tma_encode_tiled();
    if (!fn) return -1;
    const cuuint64_t dims[2] = {(cuuint64_t)(cols > 0 ? cols : 1),
                                (cuuint64_t)(rows > 0 ? rows : 1)};
    const cuuint64_t strides[1] = {(cuuint64_t)ld * 2}; /* bytes, a multiple of 16 */
    const cuuint32_t box[2] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows};
    const cuuint32_t estrides[2] = {1, 1};
    CUresult r = fn(map, bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                    2, (void *)base, dims, strides, box, estrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                    CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? 0 : -1;
}

#endif /* GEMM_TMA_MAP_H */

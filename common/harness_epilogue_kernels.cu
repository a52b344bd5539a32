/* harness_epilogue_kernels.cu - the harness's device code for the epilogue: the reference and
 * unfused bias/activation kernel, a transpose, the index fill of --init ones / int biases.
 * See harness_epilogue.h. Plain, obviously correct code: one thread per element, grid-stride
 * loops, no shared memory; the arithmetic is hepi_apply (tested on the CPU). */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "harness_epilogue.h"

static __device__ __forceinline__ float load_as(const void *p, gemm_dtype dt, long long i) {
    if (dt == GEMM_FP32) return ((const float *)p)[i];
    if (dt == GEMM_FP16) return __half2float(((const __half *)p)[i]);
    return __bfloat162float(((const __nv_bfloat16 *)p)[i]);
}

static __device__ __forceinline__ void store_as(void *p, gemm_dtype dt, long long i, float v) {
    if (dt == GEMM_FP32) ((float *)p)[i] = v;
    else if (dt == GEMM_FP16) ((__half *)p)[i] = __float2half_rn(v);
    else ((__nv_bfloat16 *)p)[i] = __float2bfloat16_rn(v);
}

typedef struct epi_args {
    void *D;
    const void *C, *T, *bias;
    gemm_dtype d_dt, t_dt, bias_dt;
    long long ldd, ldt, rows, cols;
    float beta;
    gemm_bias_axis axis;
    gemm_epi e;
    gemm_gelu form;
} epi_args;

/* One thread per element in a 2-D grid-stride loop: consecutive threads take consecutive
 * columns of one row (coalesced), no division per element. Also the "unfused" bias/activation
 * kernel the harness times after cuBLAS, so it is a plain memory-bound pass. */
__global__ void epilogue_ref_kernel(epi_args a) {
    const int has_bias = a.bias != NULL;
    for (long long i = blockIdx.y; i < a.rows; i += gridDim.y)
        for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < a.cols;
             j += (long long)gridDim.x * blockDim.x) {
            const float t = load_as(a.T, a.t_dt, i * a.ldt + j);
            const float c = a.beta != 0.0f ? load_as(a.C, a.d_dt, i * a.ldd + j) : 0.0f;
            const float b =
                has_bias ? load_as(a.bias, a.bias_dt, a.axis == GEMM_BIAS_N ? j : i) : 0.0f;
            store_as(a.D, a.d_dt, i * a.ldd + j,
                     hepi_apply(t, a.beta, c, has_bias, b, GEMM_EPI_ACT(a.e), a.form));
        }
}

static unsigned grid_for(long long n) {
    long long b = (n + 255) / 256;
    return (unsigned)(b < 8192 ? (b > 0 ? b : 1) : 8192);
}

extern "C" cudaError_t harness_dev_epilogue(void *D, const void *C, gemm_dtype d_dt, long long ldd,
                                            const void *T, gemm_dtype t_dt, long long ldt,
                                            long long rows, long long cols, float beta,
                                            const void *bias, gemm_dtype bias_dt,
                                            gemm_bias_axis axis, gemm_epi e, gemm_gelu form,
                                            cudaStream_t s) {
    epi_args a;
    a.D = D;
    a.C = C;
    a.T = T;
    a.bias = GEMM_EPI_HAS_BIAS(e) ? bias : NULL;
    a.d_dt = d_dt;
    a.t_dt = t_dt;
    a.bias_dt = bias_dt;
    a.ldd = ldd;
    a.ldt = ldt;
    a.rows = rows;
    a.cols = cols;
    a.beta = beta;
    a.axis = axis;
    a.e = e;
    a.form = form;
    const long long bx = (cols + 255) / 256, by = rows < 4096 ? rows : 4096;
    const dim3 grid((unsigned)(bx < 64 ? (bx > 0 ? bx : 1) : 64), (unsigned)(by > 0 ? by : 1));
    epilogue_ref_kernel<<<grid, 256, 0, s>>>(a);
    return cudaGetLastError();
}

template <typename T>
__global__ void transpose_kernel(T *dst, long long ld_dst, const T *src, long long ld_src,
                                 long long rows, long long cols) {
    const long long n = rows * cols;
    for (long long x = blockIdx.x * (long long)blockDim.x + threadIdx.x; x < n;
         x += (long long)gridDim.x * blockDim.x) {
        const long long i = x % rows, j = x / rows; /* consecutive threads: consecutive dst */
        dst[j * ld_dst + i] = src[i * ld_src + j];
    }
}

extern "C" cudaError_t harness_dev_transpose(void *dst, long long ld_dst, const void *src,
                                             long long ld_src, long long rows, long long cols,
                                             size_t elem_bytes, cudaStream_t s) {
    if (elem_bytes == 4)
        transpose_kernel<unsigned><<<grid_for(rows * cols), 256, 0, s>>>(
            (unsigned *)dst, ld_dst, (const unsigned *)src, ld_src, rows, cols);
    else
        transpose_kernel<unsigned short><<<grid_for(rows * cols), 256, 0, s>>>(
            (unsigned short *)dst, ld_dst, (const unsigned short *)src, ld_src, rows, cols);
    return cudaGetLastError();
}

__global__ void fill_index_kernel(void *p, gemm_dtype dt, long long n) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        store_as(p, dt, i, (float)i);
}

extern "C" cudaError_t harness_dev_fill_index(void *p, gemm_dtype dt, long long n, cudaStream_t s) {
    fill_index_kernel<<<grid_for(n), 256, 0, s>>>(p, dt, n);
    return cudaGetLastError();
}

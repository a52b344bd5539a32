/* harness_kernels.cu - the harness's own device code: seeded fills. See harness_dev.h. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "harness_dev.h"

/* splitmix64 finalizer: a good 64-bit mix of (seed, index), so element i gets the same value
 * whatever the grid shape. */
static __device__ __forceinline__ unsigned long long mix64(unsigned long long x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static __device__ __forceinline__ void store_as(void *p, gemm_dtype dt, long long i, float v) {
    if (dt == GEMM_FP32) ((float *)p)[i] = v;
    else if (dt == GEMM_FP16) ((__half *)p)[i] = __float2half_rn(v);
    else ((__nv_bfloat16 *)p)[i] = __float2bfloat16_rn(v);
}

__global__ void fill_kernel(void *p, gemm_dtype dt, long long n, unsigned long long seed,
                            harness_init init) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        unsigned long long h = mix64(seed * 0x100000001B3ull ^ (unsigned long long)i);
        float v;
        if (init == HARNESS_INIT_ONES) v = 1.0f;
        else if (init == HARNESS_INIT_INT) v = (float)((int)(h % 5) - 2);
        else /* top 24 bits -> [0,1) exactly representable in fp32, then [-1,1) */
            v = (float)(h >> 40) * (1.0f / 16777216.0f) * 2.0f - 1.0f;
        store_as(p, dt, i, v);
    }
}

__global__ void fill_value_kernel(void *p, gemm_dtype dt, long long n, float v) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        store_as(p, dt, i, v);
}

static unsigned grid_for(long long n) {
    long long b = (n + 255) / 256;
    return (unsigned)(b < 4096 ? (b > 0 ? b : 1) : 4096);
}

extern "C" cudaError_t harness_dev_fill(void *p, gemm_dtype dt, long long n,
                                        unsigned long long seed, harness_init init,
                                        cudaStream_t s) {
    fill_kernel<<<grid_for(n), 256, 0, s>>>(p, dt, n, seed, init);
    return cudaGetLastError();
}

extern "C" cudaError_t harness_dev_fill_value(void *p, gemm_dtype dt, long long n, float v,
                                              cudaStream_t s) {
    fill_value_kernel<<<grid_for(n), 256, 0, s>>>(p, dt, n, v);
    return cudaGetLastError();
}

/* Writes 0xFF bytes (a NaN in fp32, fp16 and bf16) over all the dynamic shared memory of the
 * block. Launched with the opt-in maximum so each block covers an SM's whole carve-out. */
__global__ void poison_smem_kernel(int words) {
    extern __shared__ unsigned poison_smem[];
    for (int i = threadIdx.x; i < words; i += blockDim.x) poison_smem[i] = 0xFFFFFFFFu;
    __syncthreads(); /* keep the stores: the block ends only after all of them */
}

extern "C" cudaError_t harness_dev_poison_smem(cudaStream_t s) {
    int dev, sms, bytes;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(poison_smem_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 bytes);
    if (e != cudaSuccess) return e;
    /* one block fills one SM; 4 waves so that every SM gets at least one block */
    poison_smem_kernel<<<4 * sms, 1024, (size_t)bytes, s>>>(bytes / 4);
    return cudaGetLastError();
}

static __device__ __forceinline__ double load_f64(const void *p, gemm_dtype dt, long long i) {
    if (dt == GEMM_FP32) return ((const float *)p)[i];
    if (dt == GEMM_FP16) return __half2float(((const __half *)p)[i]);
    return __bfloat162float(((const __nv_bfloat16 *)p)[i]);
}

/* One block of harness_dev_compare: a grid-stride walk over the M*N elements (index
 * e = m*N + n), then a tree reduction in shared memory; the worst element is the largest
 * scaled error, the lowest index among equals (as the host's first-found). */
__global__ void __launch_bounds__(256)
    compare_kernel(const void *C, const void *R, const void *C0, gemm_dtype dt, long long ldc,
                   int M, int N, double rms, harness_dev_cmp_part *parts) {
    __shared__ harness_dev_cmp_part sh[256];
    harness_dev_cmp_part a = {0.0, 0.0, 0.0, -1, 0, -1, 0};
    const long long total = (long long)M * N, stride = (long long)gridDim.x * blockDim.x;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total; e += stride) {
        const long long i = (e / N) * ldc + e % N;
        const double o = load_f64(C, dt, i), r = load_f64(R, dt, i);
        if (!isfinite(o)) {
            if (a.nonfinite++ == 0) a.first_bad = e;
            continue;
        }
        if (!isfinite(r)) continue;
        const double d = fabs(o - r), den = fabs(r) + rms;
        const double sc = den > 0 ? d / den : (d > 0 ? INFINITY : 0.0);
        a.sum_d2 += d * d;
        if (d > a.max_abs) a.max_abs = d;
        if (a.worst < 0 || sc > a.worst_scaled) {
            a.worst_scaled = sc;
            a.worst = e;
        }
    }
    /* the padding: elements (m, N..ldc-1) of rows 0..M-2 must keep C0's bytes */
    const long long pw = ldc - N, ptotal = M > 1 ? (long long)(M - 1) * pw : 0;
    const size_t es = dt == GEMM_FP32 ? 4 : 2;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < ptotal; e += stride) {
        const long long i = (e / pw) * ldc + N + e % pw;
        const unsigned char *x = (const unsigned char *)C + i * es,
                            *y = (const unsigned char *)C0 + i * es;
        a.pad_diff += es == 4 ? *(const unsigned *)x != *(const unsigned *)y
                              : *(const unsigned short *)x != *(const unsigned short *)y;
    }
    sh[threadIdx.x] = a;
    __syncthreads();
    for (int w = 128; w > 0; w >>= 1) { /* pairs (t, t + w): the lower index comes first */
        if (threadIdx.x < w) {
            harness_dev_cmp_part *p = &sh[threadIdx.x];
            const harness_dev_cmp_part q = sh[threadIdx.x + w];
            p->sum_d2 += q.sum_d2;
            if (q.max_abs > p->max_abs) p->max_abs = q.max_abs;
            if (q.worst >= 0 && (p->worst < 0 || q.worst_scaled > p->worst_scaled ||
                                 (q.worst_scaled == p->worst_scaled && q.worst < p->worst))) {
                p->worst_scaled = q.worst_scaled;
                p->worst = q.worst;
            }
            if (q.nonfinite && (p->first_bad < 0 || q.first_bad < p->first_bad))
                p->first_bad = q.first_bad;
            p->nonfinite += q.nonfinite;
            p->pad_diff += q.pad_diff;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) parts[blockIdx.x] = sh[0];
}

extern "C" cudaError_t harness_dev_compare(const void *C, const void *R, const void *C0,
                                           gemm_dtype dt, long long ldc, int M, int N, double rms,
                                           harness_dev_cmp_part *parts, cudaStream_t s) {
    compare_kernel<<<HARNESS_DEV_CMP_PARTS, 256, 0, s>>>(C, R, C0, dt, ldc, M, N, rms, parts);
    return cudaGetLastError();
}

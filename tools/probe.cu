/* probe.cu - measures the three ceilings the course compares every lesson against:
 *   ffma      fp32 FFMA rate (TFLOP/s), a register-only loop of independent FMAs
 *   mma_sync  mma.sync.m16n8k16 f16 x f16 -> f32 rate (TFLOP/s), register-only
 *   hbm       device-memory bandwidth (GB/s, bytes read + written) of a 4 GiB copy
 *   cublas    cuBLAS SGEMM and fp16/bf16 GEMM (fp32 accumulate) at 8192^3 (TFLOP/s)
 * Prints a small table and, with --csv FILE, appends rows "probe,<name>,<value>,<unit>,..."
 * (device, date, commit) that `make plots` reads for the roofline.
 *
 * Build/run: make build/tools/probe && build/tools/probe --csv plots/data/probe.csv
 * Exit: 0 ok, 2 bad option, 3 no CUDA device / CUDA error.
 * Hardware facts: mma.sync.aligned.m16n8k16 operand fragments from the PTX ISA, section
 * "Warp-level matrix multiply-accumulate instructions: mma" (m16n8k16, .f16, .f32 accumulate).
 */
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

#ifndef GEMM_GIT_COMMIT
#define GEMM_GIT_COMMIT "unknown"
#endif

#define FFMA_CHAINS 8 /* independent accumulators per thread: hides the FMA latency */
#define FFMA_ITERS 4096

/* Each thread runs FFMA_CHAINS independent FMA chains for FFMA_ITERS steps: 2 flops per FMA.
 * The result is stored only if it is impossible, so the compiler cannot drop the work. */
__global__ void ffma_loop(float *out, float a, float b) {
    float x[FFMA_CHAINS];
#pragma unroll
    for (int c = 0; c < FFMA_CHAINS; ++c) x[c] = threadIdx.x + c;
    for (int i = 0; i < FFMA_ITERS; ++i) {
#pragma unroll
        for (int c = 0; c < FFMA_CHAINS; ++c) x[c] = fmaf(x[c], a, b);
    }
    float s = 0;
#pragma unroll
    for (int c = 0; c < FFMA_CHAINS; ++c) s += x[c];
    if (s == -1.2345f) out[threadIdx.x] = s;
}

#define MMA_CHAINS 4
#define MMA_ITERS 2048

/* Each warp issues MMA_CHAINS independent m16n8k16 MMAs per step (4096 flops each). */
__global__ void mma_loop(float *out, unsigned seed) {
    unsigned a[4], b[2];
    float acc[MMA_CHAINS][4];
#pragma unroll
    for (int i = 0; i < 4; ++i) a[i] = seed * (threadIdx.x + i);
    b[0] = seed ^ threadIdx.x;
    b[1] = seed + threadIdx.x;
#pragma unroll
    for (int c = 0; c < MMA_CHAINS; ++c)
#pragma unroll
        for (int i = 0; i < 4; ++i) acc[c][i] = 0.f;
    for (int it = 0; it < MMA_ITERS; ++it) {
#pragma unroll
        for (int c = 0; c < MMA_CHAINS; ++c)
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                         "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                         : "+f"(acc[c][0]), "+f"(acc[c][1]), "+f"(acc[c][2]), "+f"(acc[c][3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
    float s = 0;
#pragma unroll
    for (int c = 0; c < MMA_CHAINS; ++c)
#pragma unroll
        for (int i = 0; i < 4; ++i) s += acc[c][i];
    if (s == -1.2345f) out[threadIdx.x] = s;
}

static float time_ms(cudaEvent_t e0, cudaEvent_t e1) {
    float ms;
    CUDA_CHECK(cudaEventSynchronize(e1));
    CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    return ms;
}

static int cmpf(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* median of 7 timed launches of fn after 2 warm-ups */
#define MEDIAN_MS(result, ...)                          \
    do {                                                \
        float t_[7];                                    \
        for (int w_ = 0; w_ < 2; ++w_) { __VA_ARGS__; } \
        CUDA_CHECK(cudaDeviceSynchronize());            \
        for (int r_ = 0; r_ < 7; ++r_) {                \
            CUDA_CHECK(cudaEventRecord(e0));            \
            __VA_ARGS__;                                \
            CUDA_CHECK(cudaEventRecord(e1));            \
            t_[r_] = time_ms(e0, e1);                   \
        }                                               \
        qsort(t_, 7, sizeof(float), cmpf);              \
        result = t_[3];                                 \
    } while (0)

int main(int argc, char **argv) {
    const char *csv = NULL;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--csv FILE]\n", argv[0]);
            return 2;
        }
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        fprintf(stderr, "%s: no CUDA device is available; the probe needs an NVIDIA GPU.\n",
                argv[0]);
        return 3;
    }
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    float *dout;
    CUDA_CHECK(cudaMalloc(&dout, 1024 * sizeof(float)));
    const int sms = prop.multiProcessorCount;

    /* FFMA: 8 CTAs of 256 threads per SM keep every FMA pipe busy */
    int ffma_blocks = sms * 8, ffma_threads = 256;
    float ms;
    MEDIAN_MS(ms, ffma_loop<<<ffma_blocks, ffma_threads>>>(dout, 0.999f, 0.001f);
              CUDA_CHECK_LAST());
    double ffma = 2.0 * FFMA_CHAINS * FFMA_ITERS * (double)ffma_blocks * ffma_threads / (ms * 1e9);

    /* mma.sync: 4 warps per CTA, 8 CTAs per SM */
    int mma_blocks = sms * 8, mma_threads = 128;
    MEDIAN_MS(ms, mma_loop<<<mma_blocks, mma_threads>>>(dout, 12345u); CUDA_CHECK_LAST());
    double mma = 2.0 * 16 * 8 * 16 * MMA_CHAINS * (double)MMA_ITERS * mma_blocks *
                 (mma_threads / 32) / (ms * 1e9);

    /* HBM: copy 2 GiB to another 2 GiB buffer; bytes read + written */
    size_t bytes = (size_t)2 << 30;
    void *src, *dst;
    CUDA_CHECK(cudaMalloc(&src, bytes));
    CUDA_CHECK(cudaMalloc(&dst, bytes));
    CUDA_CHECK(cudaMemset(src, 1, bytes));
    MEDIAN_MS(ms, CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)));
    double hbm = 2.0 * (double)bytes / (ms * 1e6);
    CUDA_CHECK(cudaFree(src));
    CUDA_CHECK(cudaFree(dst));

    /* cuBLAS at 8192^3 on random-ish (non-zero) data */
    const int n = 8192;
    cublasHandle_t h;
    CUBLAS_CHECK(cublasCreate(&h));
    void *A, *B, *C;
    CUDA_CHECK(cudaMalloc(&A, (size_t)n * n * 4));
    CUDA_CHECK(cudaMalloc(&B, (size_t)n * n * 4));
    CUDA_CHECK(cudaMalloc(&C, (size_t)n * n * 4));
    CUDA_CHECK(
        cudaMemset(A, 0x3c, (size_t)n * n * 4)); /* 0x3c3c3c3c: 0.0115 in fp32, 1.06 in fp16 */
    CUDA_CHECK(cudaMemset(B, 0x3b, (size_t)n * n * 4));
    float one = 1.0f, zero = 0.0f;
    double tf[3];
    const cudaDataType_t types[3] = {CUDA_R_32F, CUDA_R_16F, CUDA_R_16BF};
    for (int t = 0; t < 3; ++t) {
        MEDIAN_MS(ms, CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, &one, B,
                                                types[t], n, A, types[t], n, &zero, C, types[t], n,
                                                CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT)));
        tf[t] = 2.0 * n * (double)n * n / (ms * 1e9);
    }
    CUBLAS_CHECK(cublasDestroy(h));

    int rt = 0, drv = 0;
    cudaRuntimeGetVersion(&rt);
    cudaDriverGetVersion(&drv);
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    const char *commit = getenv("GEMM_COMMIT") ? getenv("GEMM_COMMIT") : GEMM_GIT_COMMIT;
    struct {
        const char *name;
        double v;
        const char *unit;
    } rows[] = {
        {"ffma", ffma, "TFLOP/s"},
        {"mma_sync_f16_f32", mma, "TFLOP/s"},
        {"hbm_copy", hbm, "GB/s"},
        {"cublas_sgemm_8192", tf[0], "TFLOP/s"},
        {"cublas_hgemm_8192", tf[1], "TFLOP/s"},
        {"cublas_bf16gemm_8192", tf[2], "TFLOP/s"},
    };
    printf("probe on %s (%d SMs, L2 %d MiB), CUDA %d, commit %s\n", prop.name, sms,
           prop.l2CacheSize >> 20, rt, commit);
    FILE *f = NULL;
    if (csv) {
        f = fopen(csv, "a+");
        if (!f) {
            fprintf(stderr, "%s: cannot write %s\n", argv[0], csv);
            return 2;
        }
        fseek(f, 0, SEEK_END);
        if (ftell(f) == 0)
            fprintf(f, "kind,name,value,unit,device,cuda_runtime,cuda_driver,date,commit\n");
    }
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
        printf("  %-22s %10.1f %s\n", rows[i].name, rows[i].v, rows[i].unit);
        if (f)
            fprintf(f, "probe,%s,%.2f,%s,%s,%d,%d,%s,%s\n", rows[i].name, rows[i].v, rows[i].unit,
                    prop.name, rt, drv, date, commit);
    }
    if (f) fclose(f);
    return 0;
}

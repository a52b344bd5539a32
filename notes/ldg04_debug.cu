// ldg04_debug.cu - the debug program of notes/perf.md run 7 (lesson 04's ptxas miscompile).
// Fills every SM's shared memory with a sentinel, runs one lesson 04 variant with A = 1 and
// B(n,k) = 2^(k/8) / 8 (each k_tile of 8 adds a different power of two, exact in fp32), and
// prints the wrong elements of C: which rows/columns, and by how much (= which k_tiles).
// Build (from the repository root, after `make build/04_copy/run`):
//   nvcc -std=c++17 -O3 -arch=sm_90 -Icommon -Ilessons/04_copy notes/ldg04_debug.cu \
//        build/common/harness.o build/common/harness_kernels.o build/common/harness_commit.o \
//        -o build/ldg04_debug -lcublas
// Run: build/ldg04_debug VARIANT_INDEX LAYOUT(0 TN,1 NT,2 NN,3 TT) M N K [SENTINEL]
#define main lesson04_main
#include "../lessons/04_copy/gemm.cu"
#undef main
#include <stdio.h>
#include <stdlib.h>
#include <vector>

__global__ void fill_smem(float v, int words) {
    extern __shared__ float s[];
    for (int i = threadIdx.x; i < words; i += blockDim.x) s[i] = v;
    __syncthreads();
}

static void poison(float v) {
    int bytes = 227 * 1024;
    cudaFuncSetAttribute(fill_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    fill_smem<<<132 * 4, 1024, bytes>>>(v, bytes / 4);
    cudaDeviceSynchronize();
}

int main(int argc, char **argv) {
    int vi = atoi(argv[1]);           // variant index
    int layout = atoi(argv[2]);       // 0 TN 1 NT 2 NN 3 TT
    int M = atoi(argv[3]), N = atoi(argv[4]), K = atoi(argv[5]);
    float sentinel = argc > 6 ? atof(argv[6]) : 0.0f;
    const gemm_variant *v = &variants[vi];
    gemm_problem p;
    memset(&p, 0, sizeof p);
    p.m = M; p.n = N; p.k = K; p.alpha = 1; p.beta = 0;
    p.dtype = p.c_dtype = GEMM_FP32;
    p.a_kmajor = layout == 0 || layout == 3;
    p.b_kmajor = layout == 0 || layout == 2;
    p.lda = p.a_kmajor ? K : M; p.ldb = p.b_kmajor ? K : N; p.ldc = N;
    std::vector<float> hA((size_t)M * K), hB((size_t)N * K), hC((size_t)M * N);
    // A(m,k) = 1; B(n,k) = 2^(k/8 % 20) so a missing k_tile t shows as a missing power
    for (int m = 0; m < M; ++m) for (int k = 0; k < K; ++k)
        hA[p.a_kmajor ? (size_t)m * p.lda + k : (size_t)k * p.lda + m] = 1.0f;
    for (int n = 0; n < N; ++n) for (int k = 0; k < K; ++k)
        hB[p.b_kmajor ? (size_t)n * p.ldb + k : (size_t)k * p.ldb + n] = (float)(1 << ((k / 8) % 20)) / 8.0f;
    float *dA, *dB, *dC;
    cudaMalloc(&dA, hA.size() * 4); cudaMalloc(&dB, hB.size() * 4); cudaMalloc(&dC, hC.size() * 4);
    cudaMemcpy(dA, hA.data(), hA.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB.data(), hB.size() * 4, cudaMemcpyHostToDevice);
    cudaMemset(dC, 0xFF, hC.size() * 4);
    p.A = dA; p.B = dB; p.C = dC;
    double want = 0; for (int k = 0; k < K; ++k) want += (double)(1 << ((k / 8) % 20)) / 8.0;
    for (int rep = 0; rep < 3; ++rep) {
        poison(sentinel);
        cudaError_t e = v->launch(&p, 0);
        cudaError_t e2 = cudaDeviceSynchronize();
        cudaMemcpy(hC.data(), dC, hC.size() * 4, cudaMemcpyDeviceToHost);
        long bad = 0; int shown = 0;
        for (int m = 0; m < M; ++m) for (int n = 0; n < N; ++n) {
            float c = hC[(size_t)m * N + n];
            if (c != (float)want) {
                if (shown < 6) { printf("  C(%d,%d) = %.6g want %.6g diff %.6g\n", m, n, c, want, want - c); shown++; }
                bad++;
            }
        }
        printf("%s layout %d %dx%dx%d sentinel %g rep %d: %s/%s bad %ld of %d\n", v->name, layout, M, N, K,
               sentinel, rep, cudaGetErrorString(e), cudaGetErrorString(e2), bad, M * N);
        if (bad) { // pattern by row block / column
            std::vector<int> rows(M, 0), cols(N, 0);
            for (int m = 0; m < M; ++m) for (int n = 0; n < N; ++n) if (hC[(size_t)m*N+n] != (float)want) { rows[m]++; cols[n]++; }
            printf("  rows with bad:"); for (int m = 0; m < M && m < 256; ++m) if (rows[m]) printf(" %d", m); printf("\n");
            printf("  cols with bad:"); for (int n = 0; n < N && n < 512; ++n) if (cols[n]) printf(" %d", n); printf("\n");
        }
    }
    return 0;
}

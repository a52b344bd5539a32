/* ptx_ldmatrix_test.cu - one-warp GPU test of common/ptx.h: ldmatrix .x1/.x2/.x4 with and
 * without .trans, and mma.sync m16n8k16 (f16 and bf16 inputs, f32 accumulators).
 *
 * Standalone (no Criterion, so it runs on the GPU machine as built here):
 *   nvcc -std=c++17 -O2 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
 *        -Icommon tests/gpu/ptx_ldmatrix_test.cu -o build/tests/ptx_ldmatrix_test
 * Prints one PASS/FAIL line per check and "N passed, M failed"; exits 1 on any failure,
 * 0 otherwise; prints "SKIP: no CUDA device" and exits 0 when there is no usable device.
 *
 * ldmatrix: four 8x8 matrices of 16-bit values v(q,r,c) = 64q + 8r + c (exact in fp16) are put
 * in shared memory with their 32 rows scattered (row x = 8q + r sits in 16-byte slot 5x mod 32),
 * which also shows that rows need not be contiguous. Lane l supplies the address of row l%8 of
 * matrix l/8 (modulo the matrix count for .x1/.x2, so every lane holds a valid, aligned
 * address). Expected, per PTX ISA 9.7.14.5.15: register q of lane l holds row l/4, columns
 * 2(l%4), 2(l%4)+1 of matrix q (low half first); with .trans, column l/4, rows 2(l%4), 2(l%4)+1.
 * Every lane's address is also checked to be 16-byte aligned.
 *
 * mma: A (16x16) and B (stored (N,K) = 8x16) hold small integers, exact in fp16 and bf16, so
 * D = A B^T + C is exact in fp32 and compared bit for bit with the CPU. The fragments are
 * loaded with ldmatrix.x4 (A) and .x2 (B), the way the lessons do it.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include "ptx.h"

enum { MODE_X1, MODE_X2, MODE_X4, MODE_X1T, MODE_X2T, MODE_X4T, NMODES };
static const char *mode_name[NMODES] = {"x1", "x2", "x4", "x1.trans", "x2.trans", "x4.trans"};
static const int mode_mats[NMODES] = {1, 2, 4, 1, 2, 4};

/* out[mode][lane][4] registers, align[mode][lane] = address % 16 */
__global__ void ldmatrix_kernel(uint32_t *out, int *align) {
    __shared__ __align__(16) uint16_t s[32 * 8];
    const int lane = threadIdx.x;
    for (int x = lane; x < 32; x += 32) { /* lane x writes row x = 8q + r */
        const int q = x / 8, r = x % 8, slot = (5 * x) % 32;
        for (int c = 0; c < 8; ++c)
            s[slot * 8 + c] = __half_as_ushort(__int2half_rn(64 * q + 8 * r + c));
    }
    __syncwarp();
    for (int mode = 0; mode < NMODES; ++mode) {
        const int q = (lane / 8) % (1 << (mode % 3)), r = lane % 8; /* 1, 2, 4 matrices */
        const uint32_t addr = ptx_smem_u32(&s[((5 * (8 * q + r)) % 32) * 8]);
        uint32_t reg[4] = {0, 0, 0, 0};
        switch (mode) {
            case MODE_X1: ptx_ldmatrix_x1(reg, addr); break;
            case MODE_X2: ptx_ldmatrix_x2(reg, addr); break;
            case MODE_X4: ptx_ldmatrix_x4(reg, addr); break;
            case MODE_X1T: ptx_ldmatrix_x1_trans(reg, addr); break;
            case MODE_X2T: ptx_ldmatrix_x2_trans(reg, addr); break;
            default: ptx_ldmatrix_x4_trans(reg, addr); break;
        }
        for (int i = 0; i < 4; ++i) out[(mode * 32 + lane) * 4 + i] = reg[i];
        align[mode * 32 + lane] = (int)(addr % 16);
    }
}

/* A (16,16) row-major and B (8,16) row-major as raw 16-bit patterns; C (16,8) fp32 in, D out */
__global__ void mma_kernel(const uint16_t *A, const uint16_t *B, const float *C, float *D,
                           int bf16) {
    __shared__ __align__(16) uint16_t sA[16 * 16];
    __shared__ __align__(16) uint16_t sB[8 * 16];
    const int lane = threadIdx.x;
    for (int i = lane; i < 256; i += 32) sA[i] = A[i];
    for (int i = lane; i < 128; i += 32) sB[i] = B[i];
    __syncwarp();
    uint32_t a[4], b[2];
    /* A: lane l -> row l%16, 8-column half l/16; B (.x2): lanes 0-15 -> row n = l%8, half (l/8)%2 */
    ptx_ldmatrix_x4(a, ptx_smem_u32(&sA[(lane % 16) * 16 + (lane / 16) * 8]));
    ptx_ldmatrix_x2(b, ptx_smem_u32(&sB[(lane % 8) * 16 + ((lane / 8) % 2) * 8]));
    const int g = lane / 4, t = lane % 4;
    float d[4] = {C[g * 8 + 2 * t], C[g * 8 + 2 * t + 1], C[(g + 8) * 8 + 2 * t],
                  C[(g + 8) * 8 + 2 * t + 1]};
    if (bf16) ptx_mma_m16n8k16_bf16(d, a, b);
    else ptx_mma_m16n8k16_f16(d, a, b);
    D[g * 8 + 2 * t] = d[0];
    D[g * 8 + 2 * t + 1] = d[1];
    D[(g + 8) * 8 + 2 * t] = d[2];
    D[(g + 8) * 8 + 2 * t + 1] = d[3];
}

static int npass, nfail;
static void report(int ok, const char *what) {
    printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
    if (ok) ++npass;
    else ++nfail;
}

#define CK(expr)                                                     \
    do {                                                             \
        cudaError_t e_ = (expr);                                     \
        if (e_ != cudaSuccess) {                                     \
            printf("FAIL: %s: %s\n", #expr, cudaGetErrorString(e_)); \
            printf("%d passed, %d failed\n", npass, nfail + 1);      \
            return 1;                                                \
        }                                                            \
    } while (0)

/* fp16 bit pattern of a small integer |v| <= 2048 (exact) */
static uint16_t half_bits(int v) {
    if (v == 0) return 0;
    uint16_t sign = v < 0 ? 0x8000 : 0;
    unsigned a = (unsigned)(v < 0 ? -v : v);
    int e = 0;
    while ((a >> (e + 1)) != 0) ++e;
    return (uint16_t)(sign | ((e + 15) << 10) | ((a << (10 - e)) & 0x3ff));
}
static uint16_t bf16_bits(int v) {
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16); /* exact for small integers */
}

int main(void) {
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        printf("SKIP: no CUDA device\n");
        return 0;
    }

    /* ---- ldmatrix ---- */
    uint32_t *d_out;
    int *d_align;
    CK(cudaMalloc((void **)&d_out, NMODES * 32 * 4 * sizeof(uint32_t)));
    CK(cudaMalloc((void **)&d_align, NMODES * 32 * sizeof(int)));
    CK(cudaMemset(d_out, 0, NMODES * 32 * 4 * sizeof(uint32_t)));
    ldmatrix_kernel<<<1, 32>>>(d_out, d_align);
    CK(cudaGetLastError());
    uint32_t out[NMODES][32][4];
    int align[NMODES][32];
    CK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(align, d_align, sizeof align, cudaMemcpyDeviceToHost));
    for (int mode = 0; mode < NMODES; ++mode) {
        const int trans = mode >= MODE_X1T;
        int ok = 1, aligned = 1;
        for (int l = 0; l < 32; ++l) {
            aligned &= align[mode][l] == 0;
            for (int q = 0; q < mode_mats[mode]; ++q)
                for (int j = 0; j < 2; ++j) {
                    const int r = trans ? 2 * (l % 4) + j : l / 4;
                    const int c = trans ? l / 4 : 2 * (l % 4) + j;
                    const uint16_t want = half_bits(64 * q + 8 * r + c);
                    const uint16_t got = (uint16_t)(out[mode][l][q] >> (16 * j));
                    if (got != want) {
                        if (ok)
                            printf("  ldmatrix.%s lane %d reg %d half %d: got 0x%04x want 0x%04x"
                                   " (matrix %d row %d col %d)\n",
                                   mode_name[mode], l, q, j, got, want, q, r, c);
                        ok = 0;
                    }
                }
        }
        char what[96];
        snprintf(what, sizeof what, "ldmatrix.%s lane l gets %s of each matrix", mode_name[mode],
                 trans ? "column l/4, rows 2(l%4),+1" : "row l/4, columns 2(l%4),+1");
        report(ok, what);
        snprintf(what, sizeof what, "ldmatrix.%s every lane's address is 16-byte aligned",
                 mode_name[mode]);
        report(aligned, what);
    }

    /* ---- mma.sync m16n8k16 ---- */
    int Ai[16][16], Bi[8][16];
    float C[16][8], want[16][8];
    for (int m = 0; m < 16; ++m)
        for (int k = 0; k < 16; ++k) Ai[m][k] = (m * 7 + k * 3) % 5 - 2;
    for (int n = 0; n < 8; ++n)
        for (int k = 0; k < 16; ++k) Bi[n][k] = (n * 5 + k * 11) % 7 - 3;
    for (int m = 0; m < 16; ++m)
        for (int n = 0; n < 8; ++n) {
            C[m][n] = (float)(m - 2 * n);
            int s = 0;
            for (int k = 0; k < 16; ++k) s += Ai[m][k] * Bi[n][k];
            want[m][n] = C[m][n] + (float)s;
        }
    uint16_t *dA, *dB;
    float *dC, *dD;
    CK(cudaMalloc((void **)&dA, 256 * 2));
    CK(cudaMalloc((void **)&dB, 128 * 2));
    CK(cudaMalloc((void **)&dC, 128 * 4));
    CK(cudaMalloc((void **)&dD, 128 * 4));
    CK(cudaMemcpy(dC, C, sizeof C, cudaMemcpyHostToDevice));
    for (int bf16 = 0; bf16 < 2; ++bf16) {
        uint16_t hA[256], hB[128];
        for (int i = 0; i < 256; ++i)
            hA[i] = bf16 ? bf16_bits(Ai[i / 16][i % 16]) : half_bits(Ai[i / 16][i % 16]);
        for (int i = 0; i < 128; ++i)
            hB[i] = bf16 ? bf16_bits(Bi[i / 16][i % 16]) : half_bits(Bi[i / 16][i % 16]);
        CK(cudaMemcpy(dA, hA, sizeof hA, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dB, hB, sizeof hB, cudaMemcpyHostToDevice));
        CK(cudaMemset(dD, 0xff, 128 * 4)); /* NaN: an unwritten element fails */
        mma_kernel<<<1, 32>>>(dA, dB, dC, dD, bf16);
        CK(cudaGetLastError());
        float D[16][8];
        CK(cudaMemcpy(D, dD, sizeof D, cudaMemcpyDeviceToHost));
        int ok = 1;
        for (int m = 0; m < 16; ++m)
            for (int n = 0; n < 8; ++n)
                if (D[m][n] != want[m][n]) {
                    if (ok) printf("  D(%d,%d) = %g, want %g\n", m, n, D[m][n], want[m][n]);
                    ok = 0;
                }
        report(ok, bf16 ? "mma.sync m16n8k16 bf16 -> f32 equals the CPU product"
                        : "mma.sync m16n8k16 f16 -> f32 equals the CPU product");
    }
    CK(cudaDeviceSynchronize());
    cudaFree(d_out);
    cudaFree(d_align);
    cudaFree(dA);
    cudaFree(dB);
    cudaFree(dC);
    cudaFree(dD);
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail ? 1 : 0;
}

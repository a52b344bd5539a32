/* Lesson 02 - layouts: lesson 01's coalesced kernel with every index computed by a layout.
 *
 * What changed vs lesson 01 (lessons/01_naive/gemm.cu, kernel gemm_coalesced):
 *   - lesson 01 indexes A and B with two macros that branch on the operand order
 *     (A_AT: a_kmajor ? A[m*lda + k] : A[m + k*lda]) and C with m*ldc + n;
 *   - here the operands are tensors, a pointer plus a layout (common/layout.h):
 *         mA (M,K):(lda,1) or (M,K):(1,lda)      mB (N,K):(ldb,1) or (N,K):(1,ldb)
 *         mC (M,N):(ldc,1)
 *     built once per thread by lessons/02_layout/plan.h. Thread (m,n) takes its row of each
 *     operand from the layouts, the slices mA(m,_) and mB(n,_), and the loop walks them. The
 *     strides carry the operand order (TN, NT, NN, TT) and the leading dimensions (padded or
 *     not); the base offset is in the pointer. One body for every order, and the compiler folds
 *     every offset to the index arithmetic of lesson 01 (build/02_layout/ptxas.txt: 0 bytes
 *     stack frame; the SASS has no local memory and lesson 01's main loops).
 *   - the thread mapping is unchanged: one thread per C element, threadIdx.x along N (lanes
 *     read neighbouring B elements in TT and write neighbouring C elements), 32x32 CTAs.
 * Variants:
 *   layout     the kernel above (default)
 *   layout_mk  the same, with mA(m,k) * mB(n,k) written in the loop: same offsets, slower code
 *              (see gemm02_dot_mk)
 *   hand       the same kernel with the index math written by hand (plan.h's p2_hand_*), so one
 *              run compares the two; `diff` the kernels below to see all that changed.
 * All: fp32, every operand order, any lda/ldb/ldc < 2^31, any M, N, K >= 1.
 *
 * Build and run:   make lesson02 && ./run                      (TT, the lesson default)
 *                  ./run --size 4096x4096x4096                 (compare with lesson 01)
 *                  ./run --check-only --layout all --pad 3 --offset 1 --size 127x129x131
 * Explore layouts without a GPU: make build/tools/layouts && build/tools/layouts show '(4,8):(8,1)'
 *
 * Shapes (see common/harness.h): A (M,K), B (N,K), C (M,N) row-major; alpha, beta in fp32.
 */
#include <limits.h>
#include "harness.h"
#include "layout.h"
#include "plan.h"

/* sum_k A(m,k) * B(n,k) for thread (m,n), every offset from the layouts mA (M,K), mB (N,K).
 *
 * Thread (m,n) reads exactly row m of mA and row n of mB: the slices mA(m,_) and mB(n,_) in
 * CuTe's notation (README section 4), each a 1-D tensor (K):(stride of k) that starts at
 * element (m,0) / (n,0). The layouts give both parts: the start is &mA(m,0), the stride of k
 * is crd2idx(0,1), the offset of coordinate (0,1): 1 when A is K-major, lda when M-major.
 * Nothing is written by hand; the loop only walks the two slices.
 *
 * Why slice, instead of writing mA(m,k) * mB(n,k) in the loop (gemm02_dot_mk below)? The
 * offsets are the same; the machine code is not. In mA(m,k) the stride of k is the layout's
 * 32-bit int, and nvcc turns each step `address + stride*4` of the strided operand into one
 * IMAD.WIDE (32x32-bit multiply-add into 64 bits): a chain of 16 dependent IMAD.WIDEs per trip
 * of the unrolled loop, where lesson 01 has 64-bit adds. Here the stride is converted once,
 * before the loop, into a 64-bit lay_off (sAk, sBk), so each step adds a loop-invariant 64-bit
 * value (an IADD3 pair, the step in a uniform register): the code nvcc makes of lesson 01's
 * macros. The loop also needs no `#pragma unroll`: nvcc unrolls it as lesson 01's (4 in PTX,
 * 4 more in ptxas: 16 FMAs per trip, then 4, then 1). `cuobjdump -sass` shows the same main
 * loops as gemm02_hand, with the same instructions and about as many loads issued ahead of
 * the FMAs: 32 LDG + 16 FFMA in 86 instructions for TT and NN, 58 for TN, 118 for NT (117). */
static __device__ __forceinline__ float gemm02_dot(int M, int N, int K, const float *A, int lda,
                                                  const int a_kmajor, const float *B, int ldb,
                                                  const int b_kmajor, int m, int n) {
    const lay_tensor mA = lay_make_tensor((void *)A, p2_layout_A(M, K, lda, a_kmajor)); /* (M,K) */
    const lay_tensor mB = lay_make_tensor((void *)B, p2_layout_B(N, K, ldb, b_kmajor)); /* (N,K) */
    const float *gA = &LAY_AT2(mA, const float, m, 0); /* mA(m,_) (K):(sAk), from (m,0) */
    const float *gB = &LAY_AT2(mB, const float, n, 0); /* mB(n,_) (K):(sBk), from (n,0) */
    const lay_off sAk = lay_crd2idx2(mA.layout, 0, 1); /* stride of k in mA: 1 or lda */
    const lay_off sBk = lay_crd2idx2(mB.layout, 0, 1); /* stride of k in mB: 1 or ldb */
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += gA[k * sAk] * gB[k * sBk];
    return acc;
}

/* C(m,n) = alpha * sum_k A(m,k) * B(n,k) + beta * C(m,n), one thread per (m,n).
 * Grid: (ceil(N/32), ceil(M/32)) CTAs of 32x32 threads; threadIdx.x -> n.
 * gemm02_dot is called with the majorness as a compile-time constant, so each operand's unit
 * stride (the 1 in (lda,1) or (1,lda)) is a constant too and the contiguous operand is read
 * with immediate address offsets. nvcc does this by itself for lesson 01's `kmaj ? .. : ..`
 * macros (it unswitches the loop: four copies, see `cuobjdump -sass`), but not for a stride
 * chosen by `a_kmajor ? lda : 1`, which it evaluates once into a run-time value: a layout is
 * only as constant as what it is built from. With run-time strides the kernel is still
 * correct, with one more address add per k (try it: call gemm02_dot(..., a_kmajor, ...,
 * b_kmajor, ...) once). The rest of the kernel is shared by the four copies, as in the code
 * nvcc makes of lesson 01. Two details keep ptxas's schedule of the loops the same as there:
 * the epilogue (and its C address) comes after the four calls - written in each copy, nvcc
 * hoists the common C address above the loops, where it holds two of the 32 registers through
 * them and ptxas issues fewer loads ahead - and K > 0 is tested once, as nvcc tests it before
 * it unswitches lesson 01's loop (without the test, NN's loop gets 4 more instructions).
 * The lesson's first kernel had mA(m,k) in the loop and the epilogue in each copy: 23.7 ms
 * vs 21.0 for hand at 4096^3 TT on an H200 (README section 11). */
__global__ void gemm02_layout(int M, int N, int K, float alpha, const float *A, int lda,
                              int a_kmajor, const float *B, int ldb, int b_kmajor, float beta,
                              float *C, int ldc) {
    const int n = blockIdx.x * P2_BLK + threadIdx.x; /* lanes differ in n: one row of C */
    const int m = blockIdx.y * P2_BLK + threadIdx.y;
    if (m >= M || n >= N) return;
    float acc = 0.0f;
    if (K > 0) {
        if (a_kmajor && !b_kmajor)       /* TT */
            acc = gemm02_dot(M, N, K, A, lda, 1, B, ldb, 0, m, n);
        else if (a_kmajor && b_kmajor)   /* TN */
            acc = gemm02_dot(M, N, K, A, lda, 1, B, ldb, 1, m, n);
        else if (b_kmajor)               /* NN */
            acc = gemm02_dot(M, N, K, A, lda, 0, B, ldb, 1, m, n);
        else                             /* NT */
            acc = gemm02_dot(M, N, K, A, lda, 0, B, ldb, 0, m, n);
    }
    const lay_tensor mC = lay_make_tensor((void *)C, p2_layout_C(M, N, ldc));           /* (M,N) */
    float *c = &LAY_AT2(mC, float, m, n);
    *c = (beta == 0.0f) ? alpha * acc : alpha * acc + beta * *c;
}

/* The dot product with mA(m,k) * mB(n,k) in the loop (the lesson's first version), for
 * variant layout_mk: the same kernel as gemm02_layout except for the IMAD.WIDE chain described
 * above, so that one run measures what that chain costs. Without `#pragma unroll 16` nvcc
 * unrolls this loop only 4 times (its heuristics see the inlined layout code before it folds). */
static __device__ __forceinline__ float gemm02_dot_mk(int M, int N, int K, const float *A,
                                                     int lda, const int a_kmajor, const float *B,
                                                     int ldb, const int b_kmajor, int m, int n) {
    const lay_tensor mA = lay_make_tensor((void *)A, p2_layout_A(M, K, lda, a_kmajor)); /* (M,K) */
    const lay_tensor mB = lay_make_tensor((void *)B, p2_layout_B(N, K, ldb, b_kmajor)); /* (N,K) */
    float acc = 0.0f;
#pragma unroll 16
    for (int k = 0; k < K; ++k)
        acc += LAY_AT2(mA, const float, m, k) * LAY_AT2(mB, const float, n, k);
    return acc;
}

/* gemm02_layout with gemm02_dot_mk. */
__global__ void gemm02_mk(int M, int N, int K, float alpha, const float *A, int lda,
                          int a_kmajor, const float *B, int ldb, int b_kmajor, float beta,
                          float *C, int ldc) {
    const int n = blockIdx.x * P2_BLK + threadIdx.x;
    const int m = blockIdx.y * P2_BLK + threadIdx.y;
    if (m >= M || n >= N) return;
    float acc = 0.0f;
    if (K > 0) {
        if (a_kmajor && !b_kmajor)
            acc = gemm02_dot_mk(M, N, K, A, lda, 1, B, ldb, 0, m, n);
        else if (a_kmajor && b_kmajor)
            acc = gemm02_dot_mk(M, N, K, A, lda, 1, B, ldb, 1, m, n);
        else if (b_kmajor)
            acc = gemm02_dot_mk(M, N, K, A, lda, 0, B, ldb, 1, m, n);
        else
            acc = gemm02_dot_mk(M, N, K, A, lda, 0, B, ldb, 0, m, n);
    }
    const lay_tensor mC = lay_make_tensor((void *)C, p2_layout_C(M, N, ldc));           /* (M,N) */
    float *c = &LAY_AT2(mC, float, m, n);
    *c = (beta == 0.0f) ? alpha * acc : alpha * acc + beta * *c;
}

/* The same kernel, index math by hand (what the layouts above fold to). Lesson 01 wrote it
 * this way; nvcc unswitches and unrolls this loop by itself. */
__global__ void gemm02_hand(int M, int N, int K, float alpha, const float *A, int lda,
                            int a_kmajor, const float *B, int ldb, int b_kmajor, float beta,
                            float *C, int ldc) {
    const int n = blockIdx.x * P2_BLK + threadIdx.x; /* lanes differ in n: one row of C */
    const int m = blockIdx.y * P2_BLK + threadIdx.y;
    if (m >= M || n >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += A[p2_hand_A(m, k, lda, a_kmajor)] * B[p2_hand_B(n, k, ldb, b_kmajor)];
    float *c = &C[p2_hand_C(m, n, ldc)];
    *c = (beta == 0.0f) ? alpha * acc : alpha * acc + beta * *c;
}

typedef void (*gemm02_kernel)(int, int, int, float, const float *, int, int, const float *, int,
                              int, float, float *, int);

static cudaError_t launch_with(gemm02_kernel kernel, const gemm_problem *p, cudaStream_t s) {
    dim3 block(P2_BLK, P2_BLK);
    dim3 grid((p->n + P2_BLK - 1) / P2_BLK, (p->m + P2_BLK - 1) / P2_BLK);
    kernel<<<grid, block, 0, s>>>(p->m, p->n, p->k, p->alpha, (const float *)p->A, (int)p->lda,
                                  p->a_kmajor, (const float *)p->B, (int)p->ldb, p->b_kmajor,
                                  p->beta, (float *)p->C, (int)p->ldc);
    return cudaGetLastError();
}

static cudaError_t launch_layout(const gemm_problem *p, cudaStream_t s) {
    return launch_with(gemm02_layout, p, s);
}
static cudaError_t launch_mk(const gemm_problem *p, cudaStream_t s) {
    return launch_with(gemm02_mk, p, s);
}
static cudaError_t launch_hand(const gemm_problem *p, cudaStream_t s) {
    return launch_with(gemm02_hand, p, s);
}

/* Layout strides are int; grid.y is limited to 65535 CTAs. */
static const char *check02(const gemm_problem *p) {
    if (p->lda > INT_MAX || p->ldb > INT_MAX || p->ldc > INT_MAX)
        return "lda, ldb and ldc must be below 2^31 (layout strides are int)";
    if ((p->m + P2_BLK - 1) / P2_BLK > 65535)
        return "M must be at most 2097120 (grid.y limit of 65535 CTAs of 32)";
    return NULL;
}

static const gemm_variant variants[] = {
    {"layout", "lesson 01 coalesced kernel, indexing through layouts: slices mA(m,_), mB(n,_)",
     GEMM_DT_BIT(GEMM_FP32), GEMM_LAYOUT_ALL, 1, check02, launch_layout},
    {"layout_mk", "the same, indexing mA(m,k) and mB(n,k) in the loop", GEMM_DT_BIT(GEMM_FP32),
     GEMM_LAYOUT_ALL, 1, check02, launch_mk},
    {"hand", "the same kernel with hand-written index math", GEMM_DT_BIT(GEMM_FP32),
     GEMM_LAYOUT_ALL, 1, check02, launch_hand},
};

/* Default operand order TT, as lesson 01, so that the two lessons compare directly. */
static const gemm_lesson lesson = {"02_layout", "Layouts: one kernel for every operand order", 3,
                                   variants, GEMM_LAYOUT_BIT(GEMM_TT)};

int main(int argc, char **argv) { return harness_main(argc, argv, &lesson); }

/* kernel.cu - lesson 09 assignment, part 2: the producer and the consumers of the mbarrier ring.
 *
 * YOU WRITE the producer's loop (TODO 3: wait until a stage is free, announce its bytes, issue
 * its two TMA loads) and the consumers' loop (TODO 4: wait until a K tile has landed, multiply
 * it with 4 wgmma through your descriptors, keep one group in flight, release the stage the
 * previous group read; then the drain), on the ring and the descriptor of ring9.h. Given: the
 * barriers' initialization, the warp specialization (setmaxnreg), the tensor maps, the
 * epilogue, the launch, the refusals and the harness descriptor.
 *
 * The problem (common/harness.h): C = alpha * A * B^T + beta * C in fp16 or bf16 (fp32
 * accumulators, alpha and beta in fp32), A (M,K) and B (N,K) K-major (layout TN), C (M,N)
 * row-major with any ldc; any M, N, K >= 1. TMA needs lda and ldb multiples of 8 elements and
 * A, B 16-byte aligned; anything else is refused before launch (lesson 08 runs it). TMA
 * zero-fills the rows past M or N and the elements past K. The harness fills shared memory
 * with NaN before every launch. Needs an sm_90 GPU (built for sm_90a only).
 *
 * Build, check, time:  make exercise09 && ./run --variant exercise --check-only --dtype all
 *                      ./run --variant ws_2wg_4stage,exercise --dtype all --size 4096x4096x4096
 * Grade:               make grade09
 * Staff solution. GEMM-COURSE-SOLUTION (make handout leaves solutions/ out)
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "exercise.h"
#include "ptx.h"
#include "ptx_sm90.h"
#include "tma_map.h"
#include "ring9.h"

#define EX09_DEV static __device__ __forceinline__
/* the given helpers: "unused" keeps the skeleton, which does not call them yet, warning-free */
#define EX09_GIVEN static __device__ __forceinline__ __attribute__((unused))

/* The kernel's arguments besides the two tensor maps (one struct, passed by value). */
typedef struct {
    int M, N, K;
    int tiles_m, tiles_n; /* CTA tiles of (128,256) along M and N */
    int ktiles;           /* K tiles of 64 (the last one zero-filled past K by TMA) */
    float alpha, beta;
    uint16_t *C;          /* (M,N): C[m*ldc + n] */
    long long ldc;
    int c_pairs;          /* ldc even and C 4-byte aligned: two columns stored as one word */
} ex09_args;

/* ---- shared memory ------------------------------------------------------------------------
 * From a 1024-byte aligned base: STAGES x [ A tile (128,64) | B tile (256,64) ] (48 KiB each,
 * every tile on a 1024-byte boundary, as the 128-byte swizzle needs), then the STAGES full and
 * the STAGES empty mbarriers (8 bytes each). 32-bit shared-window byte addresses. */
#define EX09_SMEM (1024 /* alignment slack */ + EX09_STAGES * EX09_STAGE_BYTES + 16 * EX09_STAGES)
typedef struct {
    uint32_t base; /* stage 0 */
} ex09_pipe;
EX09_GIVEN uint32_t ex09_a(const ex09_pipe *p, int s) { return p->base + s * EX09_STAGE_BYTES; }
EX09_GIVEN uint32_t ex09_b(const ex09_pipe *p, int s) { return ex09_a(p, s) + EX09_A_BYTES; }
EX09_DEV uint32_t ex09_full(const ex09_pipe *p, int s) {
    return p->base + EX09_STAGES * EX09_STAGE_BYTES + 8 * s;
}
EX09_DEV uint32_t ex09_empty(const ex09_pipe *p, int s) {
    return ex09_full(p, EX09_STAGES) + 8 * s;
}

/* GIVEN. Releases stage s: lane 0 of each warp of the calling consumer warpgroup arrives on
 * empty[s] (4 arrivals per warpgroup). Call it with the whole warpgroup, after the
 * wgmma.wait_group that guarantees the wgmma reading stage s are done. */
EX09_GIVEN void ex09_release(const ex09_pipe *p, int s) {
    if (threadIdx.x % 32 == 0) ptx_mbar_arrive(ex09_empty(p, s));
}

/* GIVEN. acc += A (64x16) * B (16x256) through the descriptors da (64 rows of A) and db (256
 * rows of B), in fp16 or bf16: one wgmma.mma_async m64n256k16 of the warpgroup (asynchronous:
 * it has finished only after a wgmma.wait_group that covers its commit group). acc: the 128
 * fp32 accumulators of the thread (the wgmma D fragment, p9_tv_acc in plan.h). */
template <int BF16> EX09_GIVEN void ex09_wgmma(float *acc, uint64_t da, uint64_t db) {
    if (BF16)
        ptx_wgmma_m64n256k16_bf16(acc, da, db, 1);
    else
        ptx_wgmma_m64n256k16_f16(acc, da, db, 1);
}

/* ---- TODO 3: the producer ------------------------------------------------------------------
 * Thread 0 of warpgroup 0 alone. For every K tile kt of the CTA's tile (tm, tn): the ring of
 * ring9.h (its scheme is written out above TODO 1a). The TMA coordinates are (k, row) in
 * elements: A's box of (64 k, 128 rows) at (64 kt, 128 tm), B's (64 k, 256 rows) at
 * (64 kt, 256 tn); ptx_tma_load_2d(dst, map, k, row, full barrier). Before the copies,
 * ptx_mbar_arrive_expect_tx(full[s], EX09_STAGE_BYTES): the producer's one arrival, and the
 * bytes the two copies will count on full[s] (each counts its whole box, zero fill included). */
static __device__ void ex09_producer(const ex09_pipe *p, const ex09_args *a, int tm, int tn,
                                     const CUtensorMap *tmA, const CUtensorMap *tmB) {
    for (int kt = 0; kt < a->ktiles; ++kt) {
        const int s = ex09_stage(kt, EX09_STAGES);
        ptx_mbar_wait(ex09_empty(p, s), (uint32_t)ex09_empty_parity(kt, EX09_STAGES));
        ptx_mbar_arrive_expect_tx(ex09_full(p, s), EX09_STAGE_BYTES);
        ptx_tma_load_2d(ex09_a(p, s), tmA, kt * EX09_BLK_K, tm * EX09_BLK_M, ex09_full(p, s));
        ptx_tma_load_2d(ex09_b(p, s), tmB, kt * EX09_BLK_K, tn * EX09_BLK_N, ex09_full(p, s));
    }
}

/* ---- TODO 4: a consumer --------------------------------------------------------------------
 * The 128 threads of consumer warpgroup c (0 or 1) multiply rows 64c .. 64c+63 of every K tile
 * (its slab of the stage's A tile starts c * 64 rows * 128 bytes in) by the stage's whole B
 * tile into acc (zeroed by the caller). Per K tile kt, with s = ex09_stage(kt, STAGES):
 *   - wait until K tile kt has landed in stage s: ptx_mbar_wait(full[s], parity);
 *   - ptx_wgmma_fence(), then 4 wgmma (ex09_wgmma), k step kk through the descriptors of your
 *     ring9.h: ex09_desc_sw128(tile address) + kk * ex09_desc_kstep(), then ptx_wgmma_commit();
 *   - ptx_wgmma_wait<1>(): this K tile's group stays in flight while the warpgroup waits for
 *     the next one, and the previous K tile's group has finished reading its stage, which the
 *     warpgroup then releases (ex09_release of ex09_release_stage, from kt = 1 on).
 * After the loop (the drain): ptx_wgmma_wait<0>() (the last group is done: acc is final) and
 * the release of the last K tile's stage. */
template <int BF16>
static __device__ void ex09_consumer(const ex09_pipe *p, const ex09_args *a, int c, float *acc) {
    for (int kt = 0; kt < a->ktiles; ++kt) {
        const int s = ex09_stage(kt, EX09_STAGES);
        ptx_mbar_wait(ex09_full(p, s), (uint32_t)ex09_full_parity(kt, EX09_STAGES));
        const uint64_t da = ex09_desc_sw128(ex09_a(p, s) + c * P9_WG_M * P9_ROW_BYTES);
        const uint64_t db = ex09_desc_sw128(ex09_b(p, s));
        ptx_wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < EX09_BLK_K / P9_MMA_K; ++kk)
            ex09_wgmma<BF16>(acc, da + (uint64_t)(kk * ex09_desc_kstep()),
                             db + (uint64_t)(kk * ex09_desc_kstep()));
        ptx_wgmma_commit();
        ptx_wgmma_wait<1>();
        if (kt > 0) ex09_release(p, ex09_release_stage(kt, EX09_STAGES));
    }
    ptx_wgmma_wait<0>();
    if (a->ktiles > 0) ex09_release(p, ex09_stage(a->ktiles - 1, EX09_STAGES));
}

/* ---- the epilogue --------------------------------------------------------------------------- */

/* Two fp32 values -> one 32-bit word of two 16-bit values (low half = first). */
template <int BF16> EX09_DEV uint32_t ex09_pack2(float x, float y) {
    if (BF16) {
        __nv_bfloat162 h = __floats2bfloat162_rn(x, y);
        return *(uint32_t *)&h;
    }
    __half2 h = __floats2half2_rn(x, y);
    return *(uint32_t *)&h;
}
template <int BF16> EX09_DEV float ex09_to_f32(uint16_t u) {
    if (BF16) return __bfloat162float(__ushort_as_bfloat16(u));
    return __half2float(__ushort_as_half(u));
}

/* C = alpha * acc + beta * C for consumer c's (64,256) slab at (m0, n0) of C: value v of
 * thread t is at (m0 + m, n0 + n), (m, n) from the accumulator's TV layout (plan.h: the thread
 * part once, the value part folded to constants). Values v, v+1 (v even) are columns n, n+1
 * of one row: one 4-byte store when c_pairs, else two 2-byte stores; nothing outside C is
 * written, and C is read only when beta != 0. First the accumulators are fenced: the compiler
 * must not read them before the wgmma.wait_group of the drain. */
template <int BF16>
EX09_DEV void ex09_store_c(const ex09_args *a, float *acc, int m0, int n0) {
#pragma unroll
    for (int i = 0; i < 128; ++i) ptx_wgmma_fence_operand(acc[i]);
    int mt, nt;
    p9_acc_thr_mn(threadIdx.x % 128, &mt, &nt);
    m0 += mt;
    n0 += nt;
#pragma unroll
    for (int v = 0; v < 128; v += 2) {
        int mv, nv;
        p9_acc_val_mn(v, &mv, &nv);
        const int m = m0 + mv, n = n0 + nv;
        if (m >= a->M || n >= a->N) continue;
        uint16_t *c = a->C + (long long)m * a->ldc + n;
        const int two = n + 1 < a->N;
        float x = a->alpha * acc[v], y = a->alpha * acc[v + 1];
        if (a->beta != 0.0f) {
            if (two && a->c_pairs) {
                const uint32_t old = *(const uint32_t *)c;
                x += a->beta * ex09_to_f32<BF16>((uint16_t)(old & 0xFFFF));
                y += a->beta * ex09_to_f32<BF16>((uint16_t)(old >> 16));
            } else {
                x += a->beta * ex09_to_f32<BF16>(c[0]);
                if (two) y += a->beta * ex09_to_f32<BF16>(c[1]);
            }
        }
        if (two && a->c_pairs) {
            *(uint32_t *)c = ex09_pack2<BF16>(x, y);
        } else {
            c[0] = (uint16_t)(ex09_pack2<BF16>(x, 0.0f) & 0xFFFF);
            if (two) c[1] = (uint16_t)(ex09_pack2<BF16>(y, 0.0f) & 0xFFFF);
        }
    }
}

/* ---- the kernel ------------------------------------------------------------------------------
 * One CTA of 384 threads per (128,256) tile of C, tile blockIdx.x in grouped-raster order
 * (p9_raster, groups of 8 tile rows, as the lesson's ws_2wg_4stage). Warpgroup 0 is the
 * producer (setmaxnreg.dec to 40 registers; its thread 0 issues every TMA load), warpgroups 1
 * and 2 the consumers (setmaxnreg.inc to 232: the 128 accumulators and the epilogue). tmA:
 * A (M,K) in boxes of (64 k, 128 rows), tmB: B (N,K) in boxes of (64 k, 256 rows), both with
 * the 128-byte swizzle. The body exists only in the sm_90a code (wgmma, setmaxnreg). */
template <int BF16>
__global__ void __launch_bounds__(EX09_THREADS, 1)
    ex09_gemm(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
              const ex09_args a) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    extern __shared__ uint8_t ex09_smem_raw[];
    ex09_pipe p;
    p.base = (ptx_smem_u32(ex09_smem_raw) + 1023) & ~1023u;
    if (threadIdx.x == 0) {
        for (int s = 0; s < EX09_STAGES; ++s) {
            ptx_mbar_init(ex09_full(&p, s), 1);
            ptx_mbar_init(ex09_empty(&p, s), (uint32_t)ex09_empty_arrivals(EX09_CONSUMERS));
        }
        ptx_fence_mbarrier_init();
    }
    __syncthreads();
    int tm, tn;
    p9_raster((int)blockIdx.x, a.tiles_m, a.tiles_n, 8, &tm, &tn);
    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        ptx_setmaxnreg_dec<40>();
        if (threadIdx.x == 0) ex09_producer(&p, &a, tm, tn, &tmA, &tmB);
    } else {
        ptx_setmaxnreg_inc<232>();
        const int c = wg - 1;
        float acc[128]; /* (64,256) fp32: the wgmma D fragment, TV layout p9_tv_acc */
#pragma unroll
        for (int i = 0; i < 128; ++i) acc[i] = 0.0f;
        ex09_consumer<BF16>(&p, &a, c, acc);
        ex09_store_c<BF16>(&a, acc, tm * EX09_BLK_M + c * P9_WG_M, tn * EX09_BLK_N);
    }
#endif
}

/* ---- host ------------------------------------------------------------------------------------ */

/* Enqueues the GEMM of a problem that check() accepted: the two tensor maps, then one CTA per
 * tile of C. Returns the first CUDA error (cudaErrorInvalidValue when a map is refused). */
static cudaError_t launch(const gemm_problem *p, cudaStream_t s) {
    const int bf16 = p->dtype == GEMM_BF16;
    ex09_args a;
    a.M = p->m; a.N = p->n; a.K = p->k;
    a.tiles_m = (p->m + EX09_BLK_M - 1) / EX09_BLK_M;
    a.tiles_n = (p->n + EX09_BLK_N - 1) / EX09_BLK_N;
    a.ktiles = (p->k + EX09_BLK_K - 1) / EX09_BLK_K;
    a.alpha = p->alpha; a.beta = p->beta;
    a.C = (uint16_t *)p->C; a.ldc = p->ldc;
    a.c_pairs = p->ldc % 2 == 0 && ((uintptr_t)p->C & 3) == 0;
    if (a.tiles_m == 0 || a.tiles_n == 0) return cudaSuccess; /* empty C: nothing to do */
    CUtensorMap tmA, tmB;
    /* boxes (64, rows): one K tile of A or B, 128-byte swizzled (common/tma_map.h) */
    if (tma_map_rowmajor16(&tmA, p->A, p->m, p->k, p->lda, bf16, EX09_BLK_K, EX09_BLK_M) ||
        tma_map_rowmajor16(&tmB, p->B, p->n, p->k, p->ldb, bf16, EX09_BLK_K, EX09_BLK_N))
        return cudaErrorInvalidValue;
    void (*kernel)(const CUtensorMap, const CUtensorMap, const ex09_args) =
        bf16 ? ex09_gemm<1> : ex09_gemm<0>;
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         EX09_SMEM);
    if (e != cudaSuccess) return e;
    kernel<<<(unsigned)(a.tiles_m * a.tiles_n), EX09_THREADS, EX09_SMEM, s>>>(tmA, tmB, a);
    return cudaGetLastError();
}

/* One line naming the first unanswered TODO of ring9.h, or NULL. An unanswered ring would
 * hang the kernel (a wait for a phase that never completes) or let it read a stage before its
 * copy landed, and a zero descriptor would point wgmma at address 0. */
static const char *ex09_todo(void) {
    static char why[160];
    for (int it = 0; it < 3 * EX09_STAGES; ++it) {
        const int s = ex09_stage(it, EX09_STAGES), f = ex09_full_parity(it, EX09_STAGES);
        const int e = ex09_empty_parity(it, EX09_STAGES);
        const int r = it > 0 ? ex09_release_stage(it, EX09_STAGES) : 0;
        const char *bad = NULL;
        if (s < 0 || s >= EX09_STAGES) bad = "ex09_stage (TODO 1a) gives no stage";
        else if (f != 0 && f != 1) bad = "ex09_full_parity (TODO 1b) gives no parity";
        else if (e != 0 && e != 1) bad = "ex09_empty_parity (TODO 1c) gives no parity";
        else if (r < 0 || r >= EX09_STAGES) bad = "ex09_release_stage (TODO 1d) gives no stage";
        if (bad) {
            snprintf(why, sizeof why, "ring9.h: %s for iteration %d: not answered yet?", bad, it);
            return why;
        }
    }
    if (ex09_empty_arrivals(EX09_CONSUMERS) < 1)
        return "ring9.h: ex09_empty_arrivals is not answered yet (TODO 1e)";
    if (ex09_desc_sw128(1024) == 0) return "ring9.h: ex09_desc_sw128 is not written yet (TODO 2a)";
    if (ex09_desc_kstep() < 1) return "ring9.h: ex09_desc_kstep is not answered yet (TODO 2b)";
    return NULL;
}

/* What the kernel needs before launch: the TODOs of ring9.h answered, a Hopper GPU (the sm_90a
 * code runs on compute capability 9.0 only), EX09_SMEM bytes of shared memory per CTA, the
 * operands K-major (TN), lda and ldb multiples of 8 elements and A, B 16-byte aligned (TMA),
 * and the tile count in an int. Returns NULL, or one line saying why not. */
static const char *check(const gemm_problem *p) {
    static char why[200];
    const char *todo = ex09_todo();
    if (todo) return todo;
    int dev, major = 0, minor = 0, optin = 0;
    const int have_dev = cudaGetDevice(&dev) == cudaSuccess;
    if (have_dev &&
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) == cudaSuccess &&
        (major != 9 || minor != 0)) {
        snprintf(why, sizeof why,
                 "needs a Hopper GPU (sm_90: wgmma, TMA); this one is sm_%d%d: use lesson 08",
                 major, minor);
        return why;
    }
    if (have_dev &&
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) ==
            cudaSuccess &&
        optin < EX09_SMEM) {
        snprintf(why, sizeof why, "needs %d KiB of shared memory per CTA, this GPU allows %d KiB",
                 EX09_SMEM / 1024, optin / 1024);
        return why;
    }
    if (!p->a_kmajor || !p->b_kmajor)
        return "TMA + wgmma here read K-major operands only (layout TN): use lesson 08";
    if (p->lda % 8 || p->ldb % 8 || ((uintptr_t)p->A & 15) || ((uintptr_t)p->B & 15))
        return "TMA needs lda, ldb multiples of 8 elements and A, B 16-byte aligned: use lesson 08";
    if ((long long)((p->m + EX09_BLK_M - 1) / EX09_BLK_M) * ((p->n + EX09_BLK_N - 1) / EX09_BLK_N) >
        2147483647LL)
        return "M*N too large: more than 2^31-1 CTA tiles";
    return NULL;
}

extern "C" const gemm_variant gemm_exercise_variant = {
    "exercise",
    "lesson 09 assignment: producer warpgroup + 2 consumer warpgroups, 128x256x64, 4-stage "
    "mbarrier ring",
    GEMM_DT_BIT(GEMM_FP16) | GEMM_DT_BIT(GEMM_BF16), GEMM_LAYOUT_BIT(GEMM_TN), 1, check, launch};

/* ptx_sm90.h - documented inline-PTX wrappers for Hopper (sm_90a): mbarrier, TMA, wgmma.
 *
 * Header-only CUDA C, the companion of ptx.h (which holds the sm_80 instructions: cp.async,
 * ldmatrix, mma.sync). Every wrapper is `static __device__ __forceinline__` and compiles to the
 * instruction it names; in SASS they show as SYNCS.* (mbarrier), UTMALDG / UTMASTG (TMA),
 * HGMMA (wgmma), USETMAXREG (setmaxnreg), STSM (stmatrix). wgmma and setmaxnreg exist only in the
 * architecture-specific target sm_90a (`-gencode arch=compute_90a,code=sm_90a`).
 *
 * PTX ISA sections (version 9.x numbering) these follow:
 *   mbarrier.*                         9.7.13.15 "Parallel Synchronization and Communication
 *                                      Instructions: mbarrier"
 *   cp.async.bulk.tensor, cp.async.bulk.commit_group / wait_group
 *                                      9.7.9.25 "Data Movement and Conversion Instructions:
 *                                      Tensor copy" (the "bulk tensor" copies, TMA)
 *   fence.proxy.async, fence.mbarrier_init
 *                                      9.7.13.4 "membar / fence"
 *   wgmma.fence / commit_group / wait_group / mma_async, matrix descriptors
 *                                      9.7.15 "Asynchronous Warpgroup Level Matrix Multiply-
 *                                      Accumulate Instructions" (9.7.15.5.1 the descriptor)
 *   setmaxnreg                         9.7.19.5 "Miscellaneous Instructions: setmaxnreg"
 *   stmatrix                           9.7.14.5.16 "Warp-level matrix store instruction:
 *                                      stmatrix"
 *
 * Words used below. A warpgroup is 4 consecutive warps whose first warp index is a multiple of
 * 4 (128 threads); wgmma is issued by all of them together. The async proxy is the path the TMA
 * unit and wgmma use to access shared memory; ordinary loads and stores are the generic proxy,
 * and writes by one become visible to the other only through a proxy fence or an mbarrier
 * completion. An mbarrier is a 64-bit object in shared memory with a phase (0, 1, 0, ...): a
 * phase completes when the expected number of arrivals AND the expected transaction bytes have
 * both arrived; waiters name the parity of the phase they wait for.
 */
#ifndef GEMM_PTX_SM90_H
#define GEMM_PTX_SM90_H

#include <stdint.h>

#include "ptx.h" /* ptx_smem_u32, ptx_st_shared_b32 */

#if defined(__CUDACC__)

/* ---- mbarrier ----------------------------------------------------------------------------- */

/* mbarrier.init.shared::cta.b64 [bar], count;  The barrier's phase 0 expects `count` arrivals.
 * One thread initializes; make it visible to the async proxy with ptx_fence_mbarrier_init()
 * and to the other threads with a __syncthreads() before anyone uses it. */
static __device__ __forceinline__ void ptx_mbar_init(uint32_t bar, uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

/* fence.mbarrier_init.release.cluster;  orders the mbarrier.init before later uses of the
 * barrier by the async proxy (TMA complete_tx) and by other CTAs of the cluster. */
static __device__ __forceinline__ void ptx_fence_mbarrier_init(void) {
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

/* mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], tx_bytes;  one arrival, and the current
 * phase now also waits for tx_bytes bytes of asynchronous copies that name this barrier
 * (each TMA load counts the whole box it writes, out-of-bounds zero fill included). */
static __device__ __forceinline__ void ptx_mbar_arrive_expect_tx(uint32_t bar, uint32_t tx_bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar),
                 "r"(tx_bytes)
                 : "memory");
}

/* mbarrier.arrive.shared::cta.b64 _, [bar];  one arrival on a barrier of this CTA (release
 * semantics: the caller's earlier shared-memory accesses are ordered before it). */
static __device__ __forceinline__ void ptx_mbar_arrive(uint32_t bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

/* mapa + mbarrier.arrive.shared::cluster.b64 _, [remote];  one arrival on the barrier at the
 * same shared-memory offset `bar` in CTA `cta_rank` of this cluster (the rank may be this
 * CTA's own). Default semantics (release at CTA scope), as for ptx_mbar_arrive: a
 * .release.cluster arrival also orders the thread's earlier memory accesses at cluster scope,
 * which the consumers releasing a stage do not need (wgmma.wait_group already ordered the
 * smem reads), and made lesson 09's cluster kernel run at 430 instead of 731 TFLOP/s. */
static __device__ __forceinline__ void ptx_mbar_arrive_cluster(uint32_t bar, uint32_t cta_rank) {
    asm volatile("{\n\t.reg .b32 ra;\n\tmapa.shared::cluster.u32 ra, %0, %1;\n\t"
                 "mbarrier.arrive.shared::cluster.b64 _, [ra];\n\t}\n" ::"r"(bar),
                 "r"(cta_rank)
                 : "memory");
}

/* mbarrier.try_wait.parity.shared::cta.b64 p, [bar], parity;  returns 1 once the phase with
 * parity `parity` has completed (a freshly initialized barrier is in phase 0, so waiting for
 * parity 1 returns at once: "the phase before phase 0 is complete"). try_wait may block for a
 * time the hardware chooses before returning 0. */
static __device__ __forceinline__ uint32_t ptx_mbar_try_wait(uint32_t bar, uint32_t parity) {
    uint32_t ok;
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}\n"
                 : "=r"(ok)
                 : "r"(bar), "r"(parity)
                 : "memory");
    return ok;
}

/* Spins until the phase of parity `parity` of barrier `bar` has completed (acquire: what the
 * completing arrivals and copies wrote is visible afterwards). */
static __device__ __forceinline__ void ptx_mbar_wait(uint32_t bar, uint32_t parity) {
    while (!ptx_mbar_try_wait(bar, parity)) {}
}

/* ---- proxies and clusters ------------------------------------------------------------------ */

/* fence.proxy.async.shared::cta;  makes this thread's earlier generic-proxy writes to shared
 * memory visible to later async-proxy reads (a TMA store or wgmma reading what st.shared or
 * stmatrix wrote). Each writing thread fences, then the threads synchronize. */
static __device__ __forceinline__ void ptx_fence_proxy_async_smem(void) {
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/* %cluster_ctarank: this CTA's rank in its cluster (0 .. cluster size - 1). */
static __device__ __forceinline__ uint32_t ptx_cluster_ctarank(void) {
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}

/* barrier.cluster.arrive.release + barrier.cluster.wait.acquire: every thread of every CTA of
 * the cluster meets here (a __syncthreads over the cluster). */
static __device__ __forceinline__ void ptx_cluster_sync(void) {
    asm volatile(
        "barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;\n" ::
            : "memory");
}

/* bar.sync id, nthreads;  a barrier among `nthreads` threads (a multiple of 32) of this CTA
 * that use the same id (1..15; id 0 is __syncthreads): e.g. the 128 threads of a warpgroup.
 * Orders their shared-memory accesses like __syncthreads does (PTX ISA 9.7.13.1 "bar, barrier"). */
static __device__ __forceinline__ void ptx_bar_sync(uint32_t id, uint32_t nthreads) {
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(nthreads) : "memory");
}

/* bar.arrive id, nthreads;  marks the calling warps' arrival at named barrier `id` without
 * waiting (PTX ISA 9.7.13.1 "bar, barrier": bar.arrive is barrier.arrive.aligned; a thread
 * count is required). With bar.sync on the same id by the other threads it makes a one-way
 * signal: e.g. nthreads = 256, one warpgroup arrives and another syncs; the syncing
 * warpgroup waits until the arriving one has arrived, the arriving one goes on at once. The
 * barrier completes when nthreads threads have arrived (each warp counts for 32) and is then
 * ready for its next use, so a signal must be waited for before the same id is signalled
 * again. Every thread of a warp must execute it (.aligned). Lesson 09 uses it to order work
 * (whose turn it is to issue wgmma), not to publish memory. */
static __device__ __forceinline__ void ptx_bar_arrive(uint32_t id, uint32_t nthreads) {
    asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(nthreads) : "memory");
}

/* ptx_st_release_gpu / ptx_ld_acquire_gpu (flags between the CTAs of one grid, stream-K;
 * sm_70 and later): common/ptx.h. */

/* ptx_st_shared_b32 (a 4-byte store to a shared-window address): common/ptx.h. */

/* stmatrix.sync.aligned.m8n8.x4.shared.b16 [addr], {r0, r1, r2, r3};  (PTX ISA 9.7.14.5.16
 * "Warp-level matrix store instruction: stmatrix", sm_90) the warp stores four 8x8 matrices of
 * 16-bit elements: lane l gives the shared-memory address of row l%8 of matrix l/8 (16
 * contiguous bytes, 16-byte aligned), and register q of lane l holds elements (l/4, 2(l%4))
 * and (l/4, 2(l%4)+1) of matrix q, low half first: ldmatrix's fragment, moved the other way
 * (common/layout_tv.h: lay_tv_stmatrix_rows / lay_tv_stmatrix_regs). Every lane of the warp
 * must execute it (.aligned). */
static __device__ __forceinline__ void ptx_stmatrix_x4(uint32_t addr, uint32_t r0, uint32_t r1,
                                                       uint32_t r2, uint32_t r3) {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr),
                 "r"(r0), "r"(r1), "r"(r2), "r"(r3)
                 : "memory");
}

/* ---- TMA: bulk tensor copies ---------------------------------------------------------------- */

/* cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
 *     [dst], [tmap, {c0, c1}], [bar];
 * Copies the box of the 2-D tensor map *tmap whose first element has coordinates (c0, c1)
 * (c0 along the contiguous dimension, in elements) into shared memory at dst, laid out and
 * swizzled as the map says; elements outside the tensor are written as zeros. On completion
 * the bytes are counted on barrier bar (see ptx_mbar_arrive_expect_tx). tmap must be the
 * address of a CUtensorMap in param/const/global space (a __grid_constant__ kernel parameter);
 * dst 128-byte aligned (1024 for the 128-byte swizzle, so that the pattern starts at row 0). */
static __device__ __forceinline__ void ptx_tma_load_2d(uint32_t dst, const void *tmap, int c0,
                                                       int c1, uint32_t bar) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
                 "l"(tmap), "r"(c0), "r"(c1), "r"(bar)
                 : "memory");
}

/* The same copy, multicast: the box lands at offset dst in the shared memory of every CTA of
 * the cluster whose bit is set in cta_mask, and completes on the barrier at offset bar in each
 * of them. */
static __device__ __forceinline__ void ptx_tma_load_2d_multicast(uint32_t dst, const void *tmap,
                                                                 int c0, int c1, uint32_t bar,
                                                                 uint16_t cta_mask) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
                 "l"(tmap), "r"(c0), "r"(c1), "r"(bar), "h"(cta_mask)
                 : "memory");
}

/* cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [tmap, {c0, c1}], [src];
 * Stores the shared-memory box at src to the tensor at (c0, c1); elements of the box outside
 * the tensor are not written (the store is clipped). Completes in bulk groups: commit with
 * ptx_tma_store_commit(), wait with ptx_tma_store_wait_read0() before overwriting src. */
static __device__ __forceinline__ void ptx_tma_store_2d(const void *tmap, int c0, int c1,
                                                        uint32_t src) {
    asm volatile(
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::"l"(tmap),
        "r"(c0), "r"(c1), "r"(src)
        : "memory");
}

/* cp.async.bulk.commit_group;  closes the group of this thread's bulk stores issued so far. */
static __device__ __forceinline__ void ptx_tma_store_commit(void) {
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

/* cp.async.bulk.wait_group.read 0;  waits until every committed bulk store of this thread has
 * finished READING its shared-memory source (the source may then be overwritten). */
static __device__ __forceinline__ void ptx_tma_store_wait_read0(void) {
    asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}

/* cp.async.bulk.wait_group.read N;  waits until all but the N most recent committed bulk groups
 * of this thread have finished READING their shared-memory sources (PTX ISA 9.7.9.25,
 * cp.async.bulk.wait_group): with N = 1, every store but the latest may have its source
 * overwritten. N must be a constant. */
template <int N> static __device__ __forceinline__ void ptx_tma_store_wait_read(void) {
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}

/* cp.async.bulk.wait_group 0;  waits until every committed bulk store of this thread is done
 * (its writes performed). */
static __device__ __forceinline__ void ptx_tma_store_wait0(void) {
    asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}

/* ---- wgmma -------------------------------------------------------------------------------- */

/* The 64-bit shared-memory matrix descriptor of wgmma (PTX ISA 9.7.15.5.1), for an operand
 * tile whose rows are 128 bytes long (64 16-bit elements along K), stored K-major with the
 * 128-byte swizzle that a TMA map with CU_TENSOR_MAP_SWIZZLE_128B writes:
 *   bits  0-13  start address >> 4          (addr: 32-bit shared-window byte address)
 *   bits 16-29  leading-dimension byte offset >> 4: not used by swizzled K-major layouts whose
 *               K extent (16 elements = 32 bytes per wgmma) lies inside one 128-byte row; 1
 *   bits 32-45  stride-dimension byte offset >> 4: from one group of 8 rows to the next,
 *               8 rows * 128 bytes = 1024 bytes -> 64
 *   bits 49-51  base offset: 0, since every tile starts on a 1024-byte boundary
 *   bits 62-63  swizzle mode: 1 = 128-byte swizzle
 * The k-th 16-element slice of such a tile starts 32*k bytes after its first byte; the
 * hardware applies the swizzle to the address it forms, so the slice's descriptor is the
 * tile's with the start address advanced by 32*k bytes (2*k in the >> 4 units). */
static __device__ __forceinline__ uint64_t ptx_wgmma_desc_sw128(uint32_t addr) {
    return (uint64_t)((addr & 0x3FFFFu) >> 4) | ((uint64_t)1 << 16) | ((uint64_t)64 << 32) |
           ((uint64_t)1 << 62);
}

/* wgmma.fence.sync.aligned;  before the first wgmma.mma_async of a batch: orders this
 * warpgroup's earlier register writes of the accumulators (and shared-memory writes of the
 * operands) before the asynchronous MMAs read them. */
static __device__ __forceinline__ void ptx_wgmma_fence(void) {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

/* wgmma.commit_group.sync.aligned;  closes the group of wgmma.mma_async issued so far. */
static __device__ __forceinline__ void ptx_wgmma_commit(void) {
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

/* wgmma.wait_group.sync.aligned N;  waits until at most N committed groups are pending: after
 * it, the accumulators of the finished groups may be read and their smem operands reused. */
template <int N> static __device__ __forceinline__ void ptx_wgmma_wait(void) {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/* Keeps the compiler from moving accesses of accumulator register x across a wgmma fence,
 * commit or wait (the registers are written asynchronously by the Tensor Cores). */
static __device__ __forceinline__ void ptx_wgmma_fence_operand(float &x) {
    asm volatile("" : "+f"(x)::"memory");
}

/* The inline-asm operands of accumulator registers d[i] .. d[i+7], read and written ("+f"),
 * and of d[i] .. d[i+63]: the wgmma wrappers below list their D fragments with them. */
#define PTX_ACC8(d, i)                                                                    \
    "+f"(d[(i)]), "+f"(d[(i) + 1]), "+f"(d[(i) + 2]), "+f"(d[(i) + 3]), "+f"(d[(i) + 4]), \
        "+f"(d[(i) + 5]), "+f"(d[(i) + 6]), "+f"(d[(i) + 7])
#define PTX_ACC64(d, i)                                                                   \
    PTX_ACC8(d, (i)), PTX_ACC8(d, (i) + 8), PTX_ACC8(d, (i) + 16), PTX_ACC8(d, (i) + 24), \
        PTX_ACC8(d, (i) + 32), PTX_ACC8(d, (i) + 40), PTX_ACC8(d, (i) + 48), PTX_ACC8(d, (i) + 56)

/* wgmma.mma_async.sync.aligned.m64n256k16.f32.{f16,bf16}.{f16,bf16}
 *     d, desc_a, desc_b, p, 1, 1, 0, 0;
 * D (64x256, fp32, 128 registers per thread) += A (64x16 from smem, K-major) * B (16x256 from
 * smem, stored (N,K) K-major: the "transpose" immediates are 0 for both). p = (accumulate != 0):
 * with p false D = A*B. Issued by the whole warpgroup; asynchronous until ptx_wgmma_wait.
 * Register d[i] of thread t holds D(m, n) with (PTX ISA 9.7.15.5.1, figure "WGMMA .m64nNk16
 * register fragment layout for accumulator matrix D"):
 *     m = 16*(t/32) + (t%32)/4 + 8*((i/2)%2),   n = 8*(i/4) + 2*(t%4) + i%2
 * (lessons/09_wgmma/plan.h holds this as a TV layout, checked on the CPU). */
#define PTX_WGMMA_M64N256K16(NAME, TYPE)                                                           \
    static __device__ __forceinline__ void NAME(float *d, uint64_t desc_a, uint64_t desc_b,        \
                                                int accumulate) {                                  \
        asm volatile(                                                                              \
            "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %130, 0;\n\t"                                    \
            "wgmma.mma_async.sync.aligned.m64n256k16.f32." TYPE "." TYPE " {"                      \
            "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "               \
            "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "     \
            "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "     \
            "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "     \
            "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "     \
            "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "     \
            "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, "     \
            "%110, %111, "                                                                         \
            "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, " \
            "%126, %127"                                                                           \
            "}, %128, %129, p, 1, 1, 0, 0;\n\t}\n"                                                 \
            : PTX_ACC64(d, 0), PTX_ACC64(d, 64)                                                    \
            : "l"(desc_a), "l"(desc_b), "r"(accumulate));                                          \
    }
PTX_WGMMA_M64N256K16(ptx_wgmma_m64n256k16_f16, "f16")
PTX_WGMMA_M64N256K16(ptx_wgmma_m64n256k16_bf16, "bf16")
#undef PTX_WGMMA_M64N256K16

/* wgmma.mma_async.sync.aligned.m64n128k16.f32.{f16,bf16}.{f16,bf16}
 *     d, desc_a, desc_b, p, 1, 1, 0, 0;
 * The N = 128 shape of the same instruction: D (64x128, fp32, 64 registers per thread) +=
 * A (64x16) * B (16x128), operands as for m64n256k16. Its register d[i] holds the same (m, n)
 * as m64n256k16's d[i] for i < 64 (the fragment formula above, PTX ISA 9.7.15.5.1): the first
 * 64 registers of a (64,256) accumulator are the (64,128) accumulator of columns 0..127, the
 * last 64 that of columns 128..255, so the two halves of a tile may be multiplied (and waited
 * for) separately. */
#define PTX_WGMMA_M64N128K16(NAME, TYPE)                                                       \
    static __device__ __forceinline__ void NAME(float *d, uint64_t desc_a, uint64_t desc_b,    \
                                                int accumulate) {                              \
        asm volatile(                                                                          \
            "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %66, 0;\n\t"                                 \
            "wgmma.mma_async.sync.aligned.m64n128k16.f32." TYPE "." TYPE " {"                  \
            "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, " \
            "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, " \
            "%34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, " \
            "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"             \
            "}, %64, %65, p, 1, 1, 0, 0;\n\t}\n"                                               \
            : PTX_ACC64(d, 0)                                                                  \
            : "l"(desc_a), "l"(desc_b), "r"(accumulate));                                      \
    }
PTX_WGMMA_M64N128K16(ptx_wgmma_m64n128k16_f16, "f16")
PTX_WGMMA_M64N128K16(ptx_wgmma_m64n128k16_bf16, "bf16")
#undef PTX_WGMMA_M64N128K16
#undef PTX_ACC64
#undef PTX_ACC8

/* ---- register reallocation -------------------------------------------------------------- */

/* setmaxnreg.inc.sync.aligned.u32 N / setmaxnreg.dec.sync.aligned.u32 N;  the warpgroup's
 * per-thread register budget becomes N (24..256, a multiple of 8): dec gives registers back to
 * the SM's pool, inc waits until the pool can grant them. Needs a register cap at kernel entry
 * (__launch_bounds__(threads, 1)); all threads of the warpgroup execute the same one. */
template <int N> static __device__ __forceinline__ void ptx_setmaxnreg_inc(void) {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <int N> static __device__ __forceinline__ void ptx_setmaxnreg_dec(void) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}

#endif /* __CUDACC__ */
#endif /* GEMM_PTX_SM90_H */

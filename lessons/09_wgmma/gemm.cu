/* Lesson 09 - Hopper's own Tensor Core path: TMA + mbarrier + wgmma, then warp specialization.
 *
 * What this lesson shows: lesson 06's kernel feeds the Tensor Cores with mma.sync, a warp-wide
 * instruction whose operands sit in registers: every warp must first ldmatrix its fragments out
 * of shared memory, and the instruction stream of each warp carries the loads, the address
 * arithmetic and the MMAs. On Hopper that path tops out well below the chip (tools/probe
 * measures the mma.sync ceiling). Hopper adds three engines that take the work off the warps:
 *   TMA      one thread describes a whole tile copy (a tensor map made on the host with
 *            cuTensorMapEncodeTiled); the copy engine moves it into shared memory, swizzled,
 *            zero-filling what lies outside the matrix, and counts the bytes on an mbarrier;
 *   mbarrier a shared-memory barrier that completes when its arrivals AND its expected bytes
 *            have come: "the tile has landed" without any thread polling the copy;
 *   wgmma    a warpgroup (4 warps, 128 threads) multiplies a 64 x 256 x 16 block with both
 *            operands read straight from shared memory (described by 64-bit descriptors),
 *            asynchronously: issue, go on, wait later.
 * The steps (variants, in teaching order; each adds one idea to the one before):
 *   1wg_1stage        one warpgroup, one smem stage: load a K tile with TMA, wait on the
 *                     mbarrier, 4 wgmma, wait, reload. CTA tile 64x256x64.
 *   1wg_4stage        + a ring of 4 stages with full/empty mbarriers: the TMA for K tile
 *                     t+4 is issued while tile t is multiplied.
 *   ws_2wg_4stage     + warp specialization: a producer warpgroup (one thread issues every
 *                     TMA) and two consumer warpgroups (128x256 CTA tile), setmaxnreg moves
 *                     registers from the producer to the consumers.
 *   ws_persistent     + persistent CTAs: one CTA per SM at most, walking tiles in grouped-
 *                     raster order; the producer runs ahead into the next tile while
 *                     consumers store C.
 *   ws_persistent_tma_store  + C leaves through swizzled smem and TMA stores.
 *   ws_cluster2       + clusters of 2 CTAs: each loads half of the shared B tile and
 *                     multicasts it to both.
 *   ws_pingpong       + the two consumers work on different (64,256) tiles and take turns:
 *                     while one runs its wgmma main loop, the other stores its last tile, so
 *                     the Tensor Cores no longer idle during the epilogue.
 *   ws_stmatrix_epi   ws_cluster2 with a shorter gap between two tiles' wgmma: the fragment
 *                     goes to smem by stmatrix, in four (64,64) chunks through two staging
 *                     boxes (the TMA store of one chunk overlaps the writes of the next),
 *                     each warp storing the 16 rows it wrote (no barrier between warps), and
 *                     the first wgmma of a tile zeroes the accumulators (scale-d = 0).
 *   ws_streamk        + stream-K: the K iterations of the last full wave and the remainder
 *                     are split evenly over the clusters; a tile cut in pieces is finished
 *                     by the cluster holding its first K tile, which adds the others' fp32
 *                     partial sums (a workspace slot and a flag per CTA) before its epilogue.
 *   ws_slab_epi       ws_stmatrix_epi with the shared memory moved from the ring to the
 *                     epilogue: 3 stages, and a staging box for each of the four chunks, so
 *                     the epilogue writes all four without waiting for a store.
 *   ws_overlap_epi    ws_stmatrix_epi with the epilogue under the Tensor Cores' work: every
 *                     K tile is multiplied as two column halves (m64n128k16, one commit group
 *                     each), and each half of a tile is stored while the other half's wgmma
 *                     run (the last K tile's half 1, then the next tile's first half 0).
 *   ws_l2_order       ws_stmatrix_epi with each round of tiles started on what the round
 *                     before left in L2: odd raster groups walk the tile columns backwards
 *                     (a serpentine) and a CTA's odd work items load their K tiles backwards
 *                     (the default).
 * Accumulation is fp32. Any M, N, K: K tails and rows past M or N come as TMA zero fill; C is
 * stored with clipped TMA stores, or from the registers with predication when ldc or C's
 * alignment rule TMA out.
 *
 * Limits (refused before launch, never a wrong answer):
 *   sm_90 (Hopper) only: wgmma and setmaxnreg exist in the sm_90a target alone;
 *   layout TN only (A and B K-major): the other orders need transposed smem operands;
 *   lda, ldb, ldc multiples of 8 elements and A, B, C 16-byte aligned: a TMA tensor map needs
 *   16-byte row strides and base addresses (harness `align` = 8). Lesson 08 handles the rest.
 *
 * Build and run:   make lesson09 && ./run
 *                  ./run --variant ws_l2_order --dtype bf16 --size 4096x4096x4096
 * The tensor maps come from the driver API function cuTensorMapEncodeTiled, reached through
 * the runtime's cudaGetDriverEntryPointByVersion (no link against libcuda).
 *
 * Why templates: the variants differ in compile-time constants (consumer warpgroups, stages,
 * warp specialization, persistence) that size register arrays and unroll loops, and fp16/bf16
 * differ in the wgmma instruction. In plain C these would be macro-stamped copies.
 *
 * Shapes (see common/harness.h): A (M,K), B (N,K), C (M,N) row-major; alpha, beta in fp32.
 */
#include <stdint.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include "harness.h"
#include "ptx.h"
#include "ptx_sm90.h"
#include "tma_map.h"
#include "plan.h"

/* Kernel arguments besides the two tensor maps. */
typedef struct kargs {
    int M, N, K;
    int tiles_m, tiles_n, ktiles; /* CTA tiles along M, N; K tiles of 64 */
    int group;                    /* tile rows per rasterization group */
    float alpha, beta;
    uint16_t *C;                  /* (M,N) row-major, ldc */
    long long ldc;
    int c_pairs;                  /* ldc even and C 4-byte aligned: two columns per store */
    int c_tma;                    /* N, ldc multiples of 8, C 16-byte aligned: TMA stores of C */
    p9_sk sk;                     /* step 10: the stream-K schedule (plan.h) */
    float *ws;                    /* step 10: partial sums, one (64,256) fp32 slot per consumer */
    unsigned *flags;              /* step 10: one per slot: == epoch once the slot is written */
    unsigned epoch;               /* step 10: this launch's flag value */
} kargs;

/* Named barriers (bar.sync / bar.arrive ids; id 0 is __syncthreads). */
enum {
    BAR_EPI = 1, /* + c: consumer c's 128 threads around its C staging tile in epilogue_tma
                  * (steps 6-8) and around the stream-K flags (sk_raise, sk_add); the stmatrix
                  * epilogue (steps 9-13) meets per warp (__syncwarp) */
    BAR_TURN = 3 /* + c: ping-pong, consumer c's turn to run its main loop (256 threads: c syncs,
                  * the other consumer arrives) */
};

/* ---- one configuration ---------------------------------------------------------------------
 * CONSUMERS  consumer warpgroups (1 or 2): CTA tile (64*CONSUMERS) x 256 x 64
 * STAGES     smem stages of the ring
 * WS         0: the consumers' thread 0 also issues the TMA loads (in program order);
 *            1: warpgroup 0 is the producer (one thread issues the loads; setmaxnreg gives
 *               its registers to the consumers), warpgroups 1.. are the consumers
 * PERSIST    1: CTAs (clusters) walk tiles blockIdx.x, +gridDim.x, ... (needs WS)
 * EPI_TMA    1: C leaves through smem and TMA stores when a.c_tma (else, and with 0, it is
 *               stored from the registers);
 *            2: the same through stmatrix and two staging boxes per consumer, each warp
 *               TMA-storing its own 16 rows (tmC's box is then (64, P9_EPI_WARP_ROWS), see
 *               launch_cfg), and the accumulators are zeroed by the tile's first wgmma, not
 *               by register moves
 * CLUSTER    CTAs per thread-block cluster along M (1 or 2): the CTAs of a cluster compute
 *            vertically adjacent tiles that need the same B tile; each loads 256/CLUSTER of
 *            its rows and multicasts them into the smem of every CTA of the cluster.
 * PINGPONG   1: the two consumers do not share a tile: each computes whole (64,256) tiles
 *               (BLK_M = 64), the CTA's work items alternating between them (plan.h, p9_pp_*),
 *               and their main loops take turns (needs PERSIST and CONSUMERS 2). A stage then
 *               holds one consumer's K tile and is read by that warpgroup alone.
 * SK         1: stream-K (plan.h, p9_sk_*): the clusters walk their a.sk segments instead of
 *               whole items (needs PERSIST and the zeroing first wgmma of EPI_TMA 2).
 * EPI_BUFS   staging boxes per consumer for EPI_TMA 2: 2 (step 9), or 4, one per chunk (11).
 * OVERLAP    1: each tile's two column halves leave under the other half's wgmma (step 12,
 *               consumer_overlap; needs step 9's persistent CTAs, ring and two boxes).
 * ORDER      1: the L2-aware order of step 13: the serpentine raster (plan.h,
 *               p9_raster_serpentine) and odd work items loading K backwards (p9_k_tile); the
 *               producer alone walks K, so only it and the tile coordinates change.
 * HANDOFF    (derived: steps 9, 11 and 13) the producer leaves each tile's (tile_m, tile_n) with
 *            every stage it fills, and the consumers read them from their tile's last stage
 *            instead of computing them (two integer divisions) between two tiles' wgmma.
 *            Not in step 12: its fallback to consumer_cooperative would then make ptxas
 *            serialize every wgmma of the kernel (C7514).
 *
 * Shared memory of one CTA: STAGES x [ A tile (BLK_M,64) | B tile (256,64) ], each a 128-byte-
 * swizzled K-major tile on a 1024-byte boundary, then (EPI_TMA) one C staging tile per
 * consumer warpgroup ((64,128) 16-bit elements as two 128-byte-swizzled (64,64) boxes; four
 * boxes in step 11), then
 * STAGES "full" and STAGES "empty" mbarriers (8 bytes each), then STAGES tile slots (an int2
 * each, HANDOFF):
 *   full[s]:  count 1 (this CTA's producer: arrive.expect_tx of the whole stage) + the stage's
 *             bytes, from this CTA's TMA loads and (CLUSTER 2) the other CTA's multicast
 *   empty[s]: count 4 * READERS * CLUSTER: lane 0 of every warp of the READERS consumer
 *             warpgroups that read the stage (all CONSUMERS; ping-pong: one), in every CTA of
 *             the cluster, once the wgmma that read the stage have finished (a multicast
 *             writes the stage in all CTAs, so all of them must have released it) */
template <int CONSUMERS_, int STAGES_, int WS_, int PERSIST_, int EPI_TMA_, int CLUSTER_,
          int PINGPONG_ = 0, int SK_ = 0, int EPI_BUFS_ = P9_EPI_BUFS, int OVERLAP_ = 0,
          int ORDER_ = 0>
struct cfg {
    static const int CONSUMERS = CONSUMERS_, STAGES = STAGES_, WS = WS_, PERSIST = PERSIST_;
    static const int EPI_TMA = EPI_TMA_, CLUSTER = CLUSTER_, PINGPONG = PINGPONG_, SK = SK_;
    static const int THREADS = 128 * (CONSUMERS + WS);
    static const int READERS = PINGPONG ? 1 : CONSUMERS; /* consumer warpgroups per stage */
    static const int BLK_M = READERS * P9_WG_M;
    static const int A_BYTES = BLK_M * P9_ROW_BYTES;          /* (BLK_M,64) halves */
    static const int B_BYTES = P9_BLK_N * P9_ROW_BYTES;       /* (256,64) halves */
    static const int B_ROWS_PER_CTA = P9_BLK_N / CLUSTER;     /* rows of B each CTA loads */
    static const int STAGE_BYTES = A_BYTES + B_BYTES;
    static const int EPI_BUFS = EPI_BUFS_;                    /* staging boxes (EPI_TMA 2) */
    static const int OVERLAP = OVERLAP_;                      /* step 12: halves overlapped */
    static const int ORDER = ORDER_;                          /* step 13: L2-aware order */
    static const int HANDOFF = WS && STAGES > 1 && EPI_TMA == 2 && !OVERLAP; /* tile slots */
    /* one C staging tile per consumer: 16 KiB (steps 6-10 and 12: two (64,128) halves or two
     * boxes), or 32 KiB for step 11's four boxes */
    static const int C_BYTES = EPI_TMA == 2 ? EPI_BUFS * P9_EPI_BOX_BYTES : P9_WG_M * 128 * 2;
    static const int SMEM = 1024 /* alignment slack */ + STAGES * STAGE_BYTES +
                            (EPI_TMA ? CONSUMERS * C_BYTES : 0) + 16 * STAGES + 8 * STAGES * HANDOFF;
    static_assert(!PERSIST || WS, "persistent CTAs need the producer warpgroup");
    static_assert(CLUSTER == 1 || WS, "clusters need the producer warpgroup");
    static_assert(!PINGPONG || (PERSIST && CONSUMERS == 2), "ping-pong: 2 persistent consumers");
    static_assert(!SK || (PERSIST && !PINGPONG && EPI_TMA == 2), "stream-K: step 9's CTAs");
    static_assert(EPI_BUFS == P9_EPI_BUFS || (EPI_TMA == 2 && EPI_BUFS == P9_EPI_CHUNKS),
                  "staging boxes: 2, or one per chunk of the stmatrix epilogue");
    static_assert(!OVERLAP || (PERSIST && !PINGPONG && !SK && EPI_TMA == 2 && STAGES > 1 &&
                               EPI_BUFS == P9_EPI_BUFS),
                  "overlapped halves: step 9's persistent CTAs, ring and two staging boxes");
    static_assert(!ORDER || (PERSIST && !PINGPONG && !SK),
                  "the L2-aware order: persistent CTAs walking whole tiles in one producer loop");
    static_assert(SMEM <= 227 * 1024, "a CTA may have 227 KiB of shared memory");
};

/* The smem addresses of one CTA's pipeline (32-bit shared-window addresses). */
template <class CFG> struct pipe {
    uint32_t base; /* stage 0, 1024-byte aligned */
    __device__ uint32_t a(int s) const { return base + s * CFG::STAGE_BYTES; }
    __device__ uint32_t b(int s) const { return a(s) + CFG::A_BYTES; }
    __device__ uint32_t cstage(int c) const { /* consumer c's C staging tile */
        return base + CFG::STAGES * CFG::STAGE_BYTES + c * CFG::C_BYTES;
    }
    __device__ uint32_t full(int s) const {
        return cstage(CFG::EPI_TMA ? CFG::CONSUMERS : 0) + 8 * s;
    }
    __device__ uint32_t empty(int s) const { return full(CFG::STAGES) + 8 * s; }
    int2 *tile; /* (STAGES) the tile slots (HANDOFF): (tile_m, tile_n) of each stage's K tile */
};

/* Work item `w` of the CTA's sequence -> its tile (tile_m, tile_n) (p9_cluster_tile, plan.h).
 * A cluster's CTAs take the tiles rank, rank + 1, ... of a column of CLUSTER tile rows: the
 * raster runs over such groups of tile rows, and a CTA whose tile lies below the matrix
 * (tiles_m not a multiple of CLUSTER) still loads and multicasts its part of B for the other,
 * then stores nothing. */
template <class CFG>
static __device__ __forceinline__ void tile_coords(const kargs &a, int w, int rank, int *tm,
                                                   int *tn) {
    p9_cluster_tile(w, rank, CFG::CLUSTER, a.tiles_m, a.tiles_n, a.group, CFG::ORDER, tm, tn);
}

/* ---- producer: one thread issues the TMA loads -------------------------------------------
 * K-iteration `it` of the CTA (counted over all its tiles) uses stage it % STAGES for the
 * (it / STAGES)-th time. Before refilling the stage, wait until the consumers have released
 * its previous use: the empty barrier's phase of parity ((it / STAGES) & 1) ^ 1. For the first
 * STAGES iterations that is "the phase before phase 0", complete from the start. Then announce
 * the stage's bytes and start the copies; they complete on full[s] (in every CTA of the
 * cluster for the multicast part of B). Coordinates are (k, row) in elements; rows past M or N
 * and k past K arrive as zeros. With HANDOFF the tile's (tm, tn) go into the stage's slot
 * first: the arrive has release semantics, so a consumer that saw full[s] complete reads them
 * (PTX ISA 9.7.13.15, mbarrier.arrive .release, mbarrier.try_wait .acquire). */
template <class CFG>
static __device__ __forceinline__ void produce(const pipe<CFG> &p, int it, int kt, int tm, int tn,
                                               int rank, const CUtensorMap *tmA,
                                               const CUtensorMap *tmB) {
    const int s = it % CFG::STAGES;
    ptx_mbar_wait(p.empty(s), ((it / CFG::STAGES) & 1) ^ 1);
    if (CFG::HANDOFF) p.tile[s] = make_int2(tm, tn); /* released by the arrive below */
    ptx_mbar_arrive_expect_tx(p.full(s), CFG::STAGE_BYTES);
    ptx_tma_load_2d(p.a(s), tmA, kt * P9_BLK_K, tm * CFG::BLK_M, p.full(s));
    if (CFG::CLUSTER == 1) {
        ptx_tma_load_2d(p.b(s), tmB, kt * P9_BLK_K, tn * P9_BLK_N, p.full(s));
    } else {
        const int part = rank * CFG::B_ROWS_PER_CTA; /* this CTA's rows of the B tile */
        ptx_tma_load_2d_multicast(p.b(s) + part * P9_ROW_BYTES, tmB, kt * P9_BLK_K,
                                  tn * P9_BLK_N + part, p.full(s), (1u << CFG::CLUSTER) - 1);
    }
}

/* Releases stage s: lane 0 of each consumer warp arrives on empty[s] of every CTA of the
 * cluster (its own included). */
template <class CFG> static __device__ __forceinline__ void release(const pipe<CFG> &p, int s) {
    if (threadIdx.x % 32 != 0) return;
    if (CFG::CLUSTER == 1) {
        ptx_mbar_arrive(p.empty(s));
    } else {
#pragma unroll
        for (int r = 0; r < CFG::CLUSTER; ++r) ptx_mbar_arrive_cluster(p.empty(s), r);
    }
}

/* ---- consumer: one warpgroup multiplies a 64-row slab of the K tile in stage s -------------
 * 4 wgmma m64n256k16 (the 64-wide K tile in 16-wide steps: the descriptors advance by 32
 * bytes), one commit group. With a ring (STAGES > 1) the group stays in flight while the
 * warpgroup waits for the next K tile: wait_group 1 returns once the PREVIOUS K tile's group
 * has finished reading its stage, and every warp's lane 0 then releases that stage
 * (release_prev = 0 for a tile's first K tile). With one stage there is nothing to overlap:
 * wait for this group and release its stage at once. `slab`: which 64 rows of the stage's A
 * tile (the consumer's index; 0 in ping-pong, where the A tile has 64 rows). zero_acc: the
 * first wgmma computes D = A*B (scale-d 0), so acc need not be zeroed before (step 9). */
template <int BF16, class CFG>
static __device__ __forceinline__ void consume(const pipe<CFG> &p, int it, int slab, float *acc,
                                               int release_prev, int zero_acc = 0) {
    const int s = it % CFG::STAGES;
    ptx_mbar_wait(p.full(s), (it / CFG::STAGES) & 1);
    const uint64_t da = ptx_wgmma_desc_sw128(p.a(s) + slab * P9_WG_M * P9_ROW_BYTES);
    const uint64_t db = ptx_wgmma_desc_sw128(p.b(s));
    ptx_wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < P9_BLK_K / P9_MMA_K; ++kk) {
        /* +2 in the descriptor = +32 bytes = the next 16 elements of every row */
        if (BF16)
            ptx_wgmma_m64n256k16_bf16(acc, da + 2 * kk, db + 2 * kk, kk > 0 || !zero_acc);
        else
            ptx_wgmma_m64n256k16_f16(acc, da + 2 * kk, db + 2 * kk, kk > 0 || !zero_acc);
    }
    ptx_wgmma_commit();
    if (CFG::STAGES > 1) {
        ptx_wgmma_wait<1>();
        if (release_prev) release(p, (it + CFG::STAGES - 1) % CFG::STAGES);
    } else {
        ptx_wgmma_wait<0>();
        release(p, s);
    }
}

/* After a tile's last K tile (iteration it): wait for its group, release its stage (ring).
 * HANDOFF: returns the (tile_m, tile_n) the producer left in that stage's slot, read before
 * the release (after it the producer may refill the stage and its slot); else (0, 0). Only
 * lane 0 reads the slot, and the warp takes the values from it (__shfl_sync): lane 0 is the
 * lane that releases the stage, so its read comes before its own arrive in program order.
 * Had every lane read the slot, the other 31 reads would reach the producer's next write of
 * the slot through a __syncwarp and lane 0's arrive, an order compute-sanitizer's racecheck
 * does not follow (it reported them as races, runs 27-2 and 27-3). */
template <class CFG>
static __device__ __forceinline__ int2 consume_finish(const pipe<CFG> &p, int it, float *acc) {
    int2 t = make_int2(0, 0);
    if (CFG::STAGES > 1) {
        ptx_wgmma_wait<0>();
        if (CFG::HANDOFF) {
            if (threadIdx.x % 32 == 0) t = p.tile[it % CFG::STAGES];
            t.x = __shfl_sync(0xffffffffu, t.x, 0);
            t.y = __shfl_sync(0xffffffffu, t.y, 0);
        }
        release(p, it % CFG::STAGES);
    }
#pragma unroll
    for (int i = 0; i < 128; ++i) ptx_wgmma_fence_operand(acc[i]);
    return t;
}

/* Two fp32 values -> one 32-bit word of two 16-bit values (low half = first). */
template <int BF16> static __device__ __forceinline__ uint32_t pack2(float x, float y) {
    if (BF16) {
        __nv_bfloat162 h = __floats2bfloat162_rn(x, y);
        return *(uint32_t *)&h;
    }
    __half2 h = __floats2half2_rn(x, y);
    return *(uint32_t *)&h;
}
template <int BF16> static __device__ __forceinline__ float to_f32(uint16_t u) {
    if (BF16) return __bfloat162float(__ushort_as_bfloat16(u));
    return __half2float(__ushort_as_half(u));
}

/* x += beta * C(m, n), y += beta * C(m, n+1) for the pair of columns one thread holds, at
 * c = &C(m, n). Precondition: m < M and n < N (the caller skips or clips the rest). Reads one
 * 4-byte word when column n+1 exists and a.c_pairs (ldc even, C 4-byte aligned, n even: every
 * pair of the fragment starts at an even column), else the 2-byte elements inside the matrix.
 * beta == 0 never reads C (C may hold NaN). Used by both epilogues. */
template <int BF16>
static __device__ __forceinline__ void add_beta_c(const kargs &a, const uint16_t *c, int n,
                                                  float *x, float *y) {
    if (a.beta == 0.0f) return;
    if (n + 1 < a.N && a.c_pairs) {
        const uint32_t old = *(const uint32_t *)c;
        *x += a.beta * to_f32<BF16>((uint16_t)(old & 0xFFFF));
        *y += a.beta * to_f32<BF16>((uint16_t)(old >> 16));
    } else {
        *x += a.beta * to_f32<BF16>(c[0]);
        if (n + 1 < a.N) *y += a.beta * to_f32<BF16>(c[1]);
    }
}

/* ---- epilogue: C = alpha * acc + beta * C for the warpgroup's (64,256) slab at (m0, n0) ----
 * Thread t holds value v of the fragment at (m0 + m, n0 + n), (m, n) from the TV layout
 * p9_tv_acc (plan.h): the thread part once, the value part folded to constants. Values v and
 * v+1 (v even) are columns n and n+1 of one row: one 4-byte store when ldc is even and C
 * 4-byte aligned (n is even), else two 2-byte stores. beta == 0 never reads C. */
template <int BF16>
static __device__ __forceinline__ void epilogue_direct(const kargs &a, const float *acc, int m0,
                                                       int n0) {
    int mt, nt;
    p9_acc_thr_mn(threadIdx.x % 128, &mt, &nt);
    m0 += mt;
    n0 += nt;
#pragma unroll
    for (int v = 0; v < 128; v += 2) {
        int mv, nv;
        p9_acc_val_mn(v, &mv, &nv);
        const int m = m0 + mv, n = n0 + nv;
        if (m >= a.M || n >= a.N) continue;
        uint16_t *c = a.C + (long long)m * a.ldc + n;
        float x = a.alpha * acc[v], y = a.alpha * acc[v + 1];
        add_beta_c<BF16>(a, c, n, &x, &y);
        if (n + 1 < a.N && a.c_pairs) {
            *(uint32_t *)c = pack2<BF16>(x, y);
        } else {
            c[0] = (uint16_t)(pack2<BF16>(x, 0.0f) & 0xFFFF);
            if (n + 1 < a.N) c[1] = (uint16_t)(pack2<BF16>(y, 0.0f) & 0xFFFF);
        }
    }
}

/* ---- epilogue through shared memory and TMA stores ---------------------------------------
 * The warpgroup's (64,256) slab leaves in two halves of (64,128): each thread writes its
 * values (alpha * acc + beta * C, rounded) into the staging tile, laid out as two (64,64)
 * boxes with the 128-byte swizzle of p9_smem_tile_bytes: the 8 rows a warp's store touches
 * land in 8 different 16-byte bank groups, so every st.shared is conflict-free. Then each
 * thread fences (its generic-proxy writes must be visible to the TMA unit, the async proxy),
 * the warpgroup meets at a named barrier, and one thread issues the two TMA stores, which
 * clip at the matrix edges. Before the staging tile is written again (next half, next tile)
 * that thread waits until the stores have read it. beta != 0 reads C from global memory
 * (add_beta_c: this path runs only with a.c_tma, which implies a.c_pairs). */
template <int BF16>
static __device__ __forceinline__ void epilogue_tma(const kargs &a, const float *acc, int m0,
                                                    int n0, uint32_t stage, int c,
                                                    const CUtensorMap *tmC) {
    const int t = threadIdx.x % 128;
    int mt, nt;
    p9_acc_thr_mn(t, &mt, &nt);
    const lay_swizzled box = p9_smem_tile_bytes(P9_WG_M);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        if (t == 0) ptx_tma_store_wait_read0();
        ptx_bar_sync(BAR_EPI + c, 128);
#pragma unroll
        for (int v = 64 * h; v < 64 * h + 64; v += 2) {
            int mv, nv;
            p9_acc_val_mn(v, &mv, &nv);
            const int m = mt + mv, n = nt + nv - 128 * h; /* in the (64,128) half */
            float x = a.alpha * acc[v], y = a.alpha * acc[v + 1];
            const int gm = m0 + m, gn = n0 + 128 * h + n; /* outside C: clipped by the store */
            if (a.beta != 0.0f && gm < a.M && gn < a.N)
                add_beta_c<BF16>(a, a.C + (long long)gm * a.ldc + gn, gn, &x, &y);
            const uint32_t off = (n / 64) * (P9_WG_M * 128) + (uint32_t)lay_swizzled_crd2idx2(box, m, n % 64);
            ptx_st_shared_b32(stage + off, pack2<BF16>(x, y));
        }
        ptx_fence_proxy_async_smem();
        ptx_bar_sync(BAR_EPI + c, 128);
        if (t == 0) {
            const int col = n0 + 128 * h;
            if (m0 < a.M && col < a.N) ptx_tma_store_2d(tmC, col, m0, stage);
            if (m0 < a.M && col + 64 < a.N) ptx_tma_store_2d(tmC, col + 64, m0, stage + P9_WG_M * 128);
            ptx_tma_store_commit();
        }
    }
}

/* ---- epilogue through stmatrix, two staging boxes and TMA stores (step 9) -----------------
 * The warpgroup's (64,256) slab leaves in four (64,64) chunks, chunk q through staging box
 * q % 2 (plan.h, p9_epi_*), so that each warp's store of chunk q-1 reads its rows of one box
 * while the warp writes its rows of chunk q into the other: no wait for a store in the middle
 * of the epilogue.
 * Each warp writes a chunk with 4 stmatrix.x4 (16 rows x 16 columns each, j = 4q .. 4q+3):
 * lane l addresses row (mr, nr + 16j) of the slab (p9_stsm_thr_mn), register i holds the
 * accumulators p9_stsm_acc_v(j, 2i), p9_stsm_acc_v(j, 2i+1) (columns n, n+1 of one row),
 * scaled and rounded. The box is 128-byte swizzled as TMA reads it (p9_smem_tile_bytes): the
 * 8 rows of each 8x8 matrix land in 8 different 16-byte bank groups. A warp writes only the
 * 16 rows of a box that hold its accumulator rows, and stores them itself: its lane 0 issues a
 * TMA store of those 16 rows x 64 columns (tmC's box is (64, 16) in the map's (column, row)
 * order). No warp's store reads rows another warp wrote, so the four warps do not wait for
 * each other in the epilogue. The store's source, 2 KiB x w into the box, is a multiple of the
 * 1024-byte swizzle period, so TMA reads it with the box's own swizzle. At the start lane 0
 * waits for the stores of its previous pass to have read their rows (the last tile's; in step
 * 12, the other half's); with step 9's two boxes it waits once more before chunks 2 and 3, for
 * the store of chunk q-2 only (cp.async.bulk.wait_group.read 1): the store of chunk q-1 reads
 * on while chunk q is written, and no store waits for the one before it.
 * alpha == 1 with beta == 0 (the common call) skips the multiply where store_tile picks the
 * epilogue (steps 9-11); step 12's overlapped halves (store_half) still multiply.
 * beta != 0 reads C from global memory at each pair's (m, n) from the accumulator layout
 * (add_beta_c; a.c_tma implies a.c_pairs). */
/* One chunk q of epilogue_stsm: the warp's 4 stmatrix j = 4q .. 4q+3 into the box at `buf`;
 * row[jj]: this thread's row address in the box for stmatrix 4q + jj (the same in every
 * chunk). BETA 0: C is not read (beta == 0: C may hold NaN), so the loop carries no test.
 * ALPHA1 1: alpha == 1 (and beta == 0), whose multiplies are left out (x * 1 == x exactly,
 * NaN, Inf and -0 included): 128 FMUL fewer per thread and tile between two tiles' wgmma. */
template <int BF16, int BETA, int ALPHA1 = 0>
static __device__ __forceinline__ void stsm_chunk(const kargs &a, const float *acc, int q,
                                                  uint32_t buf, const uint32_t *row, int gm0,
                                                  int gn0) {
#pragma unroll
    for (int jj = 0; jj < 4; ++jj) {
        const int j = 4 * q + jj;
        uint32_t r[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const int v = p9_stsm_acc_v(j, 2 * i), w = p9_stsm_acc_v(j, 2 * i + 1);
            float x = ALPHA1 ? acc[v] : a.alpha * acc[v];
            float y = ALPHA1 ? acc[w] : a.alpha * acc[w];
            if (BETA) {
                int mv, nv;
                p9_acc_val_mn(v, &mv, &nv);
                const int gm = gm0 + mv, gn = gn0 + nv;
                if (gm < a.M && gn < a.N)
                    add_beta_c<BF16>(a, a.C + (long long)gm * a.ldc + gn, gn, &x, &y);
            }
            r[i] = pack2<BF16>(x, y);
        }
        ptx_stmatrix_x4(buf + row[jj], r[0], r[1], r[2], r[3]);
    }
}

/* Thread t's stmatrix addresses: row[jj], the byte offset in a (64,64) staging box of the row
 * it addresses in stmatrix 4q + jj of every chunk q (the row's column in the box is
 * (nr + 16jj) % 64), and (mt, nt), its fragment's origin in the slab (for beta's reads of C). */
static __device__ __forceinline__ void stsm_rows(int t, uint32_t *row, int *mt, int *nt) {
    int mr, nr;
    p9_stsm_thr_mn(t, &mr, &nr); /* the row this thread addresses in stmatrix j = 0 */
    p9_acc_thr_mn(t, mt, nt);
    const lay_swizzled box = p9_smem_tile_bytes(P9_WG_M);
#pragma unroll
    for (int jj = 0; jj < 4; ++jj)
        row[jj] = (uint32_t)lay_swizzled_crd2idx2(box, mr, (nr + 16 * jj) % 64);
}

/* Chunk q of the slab at (m0, n0) into staging box buf, then the warp's TMA store of its own
 * rows: every thread's stmatrix writes, the generic-to-async proxy fence, the warp meets
 * (__syncwarp), lane 0 stores rows mw .. mw + P9_EPI_WARP_ROWS - 1 of the chunk (the warp's
 * rows of the slab) and commits. A warp whose first row m0 + mw is at or below M stores nothing
 * (its commit closes an empty group); TMA clips a store that crosses M or N. The caller has
 * made sure that no store of the warp still reads its rows of buf. */
template <int BF16, int ALPHA1 = 0>
static __device__ __forceinline__ void stage_chunk(const kargs &a, const float *acc, int q,
                                                   uint32_t buf, const uint32_t *row, int m0,
                                                   int n0, int mt, int nt, int mw,
                                                   const CUtensorMap *tmC) {
    const int lane = threadIdx.x % 32;
    if (ALPHA1)
        stsm_chunk<BF16, 0, 1>(a, acc, q, buf, row, m0 + mt, n0 + nt);
    else if (a.beta == 0.0f)
        stsm_chunk<BF16, 0>(a, acc, q, buf, row, m0 + mt, n0 + nt);
    else
        stsm_chunk<BF16, 1>(a, acc, q, buf, row, m0 + mt, n0 + nt);
    ptx_fence_proxy_async_smem();
    __syncwarp();
    if (lane == 0) {
        const int col = n0 + 64 * q, r0 = m0 + mw;
        if (r0 < a.M && col < a.N) ptx_tma_store_2d(tmC, col, r0, buf + mw * P9_ROW_BYTES);
        ptx_tma_store_commit();
    }
}

/* Stores chunks Q0 .. Q0+NQ-1 (columns 64*Q0 ..) of the warpgroup's (64,256) tile at (m0, n0)
 * through BUFS staging boxes of 8 KiB at `stage`, by plan.h's protocol (p9_epi_buf,
 * p9_epi_waits_before): the whole tile in steps 9, 11 and 13, one half in step 12. ALPHA1 1:
 * alpha == 1 and beta == 0 (the caller checks), no multiply. */
template <int BF16, int BUFS, int Q0 = 0, int NQ = P9_EPI_CHUNKS, int ALPHA1 = 0>
static __device__ __forceinline__ void epilogue_stsm(const kargs &a, const float *acc, int m0,
                                                     int n0, uint32_t stage,
                                                     const CUtensorMap *tmC) {
    const int t = threadIdx.x % 128;
    int mt, nt, mw, nw;
    uint32_t row[4];
    stsm_rows(t, row, &mt, &nt);
    p9_acc_thr_mn(t - t % 32, &mw, &nw); /* the warp's first row of the slab (nw = 0) */
    if (t % 32 == 0) ptx_tma_store_wait_read0();
    __syncwarp();
#pragma unroll
    for (int q = Q0; q < Q0 + NQ; ++q) {
        const uint32_t buf = stage + p9_epi_buf(q - Q0, BUFS) * P9_EPI_BOX_BYTES;
        /* step 9's two boxes: chunk q >= 2 writes the box of chunk q-2, whose store must have
         * read the warp's rows; chunk q-1's store reads on. With a box per chunk (step 11,
         * step 12's halves) no box is written twice in a pass. */
        if (p9_epi_waits_before(q - Q0, BUFS)) {
            if (t % 32 == 0) ptx_tma_store_wait_read<BUFS - 1>();
            __syncwarp();
        }
        stage_chunk<BF16, ALPHA1>(a, acc, q, buf, row, m0, n0, mt, nt, mw, tmC);
    }
}

/* Stores the warpgroup's (64,256) tile of C at (m0, n0): through its staging tile and TMA
 * stores when the configuration and C allow (a.c_tma), else from the registers; the stmatrix
 * epilogue without the multiply when alpha == 1 and beta == 0. */
template <int BF16, class CFG>
static __device__ __forceinline__ void store_tile(const kargs &a, const float *acc, int m0,
                                                  int n0, const pipe<CFG> &p, int c,
                                                  const CUtensorMap *tmC) {
    if (CFG::EPI_TMA == 2 && a.c_tma && a.alpha == 1.0f && a.beta == 0.0f)
        epilogue_stsm<BF16, CFG::EPI_BUFS, 0, P9_EPI_CHUNKS, 1>(a, acc, m0, n0, p.cstage(c), tmC);
    else if (CFG::EPI_TMA == 2 && a.c_tma)
        epilogue_stsm<BF16, CFG::EPI_BUFS>(a, acc, m0, n0, p.cstage(c), tmC);
    else if (CFG::EPI_TMA && a.c_tma)
        epilogue_tma<BF16>(a, acc, m0, n0, p.cstage(c), c, tmC);
    else
        epilogue_direct<BF16>(a, acc, m0, n0);
}

/* ---- consumers sharing each CTA tile (steps 1-7) -------------------------------------------
 * Consumer c computes rows c*64 .. c*64+63 of every CTA tile the CTA walks (w = first, first +
 * step, ...), both consumers reading the same stages: K-iteration `it` runs on across tiles, as
 * the producer counts it. Without a producer warpgroup (WS 0) thread 0 also issues the loads,
 * in program order between its wgmma. A consumer needs its tile's coordinates only to store
 * it: with HANDOFF it takes them from the producer after the K loop (consume_finish), so no
 * integer division stands between the last wgmma of one tile and the first of the next. */
template <int BF16, class CFG>
static __device__ __forceinline__ void consumer_cooperative(const pipe<CFG> &p, const kargs &a,
                                                            int c, int rank, int first, int step,
                                                            int nwork, const CUtensorMap *tmA,
                                                            const CUtensorMap *tmB,
                                                            const CUtensorMap *tmC) {
    float acc[128]; /* (64,256) fp32: the wgmma D fragment, TV layout p9_tv_acc */
    int it = 0;
    for (int w = first; w < nwork; w += step) {
        int tm = 0, tn = 0;
        if (!CFG::HANDOFF) tile_coords<CFG>(a, w, rank, &tm, &tn);
        if (!CFG::WS && threadIdx.x == 0) /* prologue: fill the ring */
            for (int kt = 0; kt < CFG::STAGES && kt < a.ktiles; ++kt)
                produce(p, kt, kt, tm, tn, rank, tmA, tmB);
        if (CFG::EPI_TMA != 2) { /* step 9: the first wgmma zeroes them (K >= 1) */
#pragma unroll
            for (int i = 0; i < 128; ++i) acc[i] = 0.0f;
        }
        for (int kt = 0; kt < a.ktiles; ++kt, ++it) {
            consume<BF16>(p, it, c, acc, kt > 0, CFG::EPI_TMA == 2 && kt == 0);
            /* without a producer warpgroup, thread 0 refills the stage just released */
            const int refill = CFG::STAGES > 1 ? kt - 1 + CFG::STAGES : kt + 1;
            if (!CFG::WS && threadIdx.x == 0 && (CFG::STAGES == 1 || kt > 0) &&
                refill < a.ktiles)
                produce(p, refill, refill, tm, tn, rank, tmA, tmB);
        }
        const int2 t = consume_finish(p, it - 1, acc); /* K >= 1 (check_all) */
        if (CFG::HANDOFF) { /* the producer's coordinates of this tile */
            tm = t.x;
            tn = t.y;
        }
        if (tm >= a.tiles_m) continue; /* a cluster's CTA below the matrix */
        store_tile<BF16>(a, acc, tm * CFG::BLK_M + c * P9_WG_M, tn * P9_BLK_N, p, c, tmC);
    }
}

/* ---- step 12: the two column halves of the tile leave under the other half's wgmma --------
 * The (64,256) accumulator is two (64,128) accumulators: registers 0..63 hold columns 0..127
 * (half 0), 64..127 columns 128..255 (half 1), and m64n128k16 reads and writes one of them
 * (common/ptx_sm90.h). mma_half issues the four m64n128k16 of K tile `s` for half h as one
 * commit group; B's half h starts 128 rows (16 KiB, 1024 in the descriptor's units) in. */
template <int BF16, int H, class CFG>
static __device__ __forceinline__ void mma_half(const pipe<CFG> &p, int s, int slab, float *acc,
                                                int zero_acc) {
    const uint64_t da = ptx_wgmma_desc_sw128(p.a(s) + slab * P9_WG_M * P9_ROW_BYTES);
    const uint64_t db = ptx_wgmma_desc_sw128(p.b(s) + H * 128 * P9_ROW_BYTES);
    ptx_wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < P9_BLK_K / P9_MMA_K; ++kk) {
        if (BF16)
            ptx_wgmma_m64n128k16_bf16(acc + 64 * H, da + 2 * kk, db + 2 * kk, kk > 0 || !zero_acc);
        else
            ptx_wgmma_m64n128k16_f16(acc + 64 * H, da + 2 * kk, db + 2 * kk, kk > 0 || !zero_acc);
    }
    ptx_wgmma_commit();
}

/* Half h's registers after the wait that finished its group (see ptx_wgmma_fence_operand). */
template <int H> static __device__ __forceinline__ void fence_half(float *acc) {
#pragma unroll
    for (int i = 0; i < 64; ++i) ptx_wgmma_fence_operand(acc[64 * H + i]);
}

/* Half H of the consumer's tile at (m0, n0; m0 < 0: a tile below C, nothing stored): chunks 2H
 * and 2H+1 of step 9's epilogue, one staging box each, so no wait between them. */
template <int BF16, int H, class CFG>
static __device__ __forceinline__ void store_half(const kargs &a, const float *acc, int m0,
                                                  int n0, const pipe<CFG> &p, int c,
                                                  const CUtensorMap *tmC) {
    const int nq = P9_EPI_CHUNKS / 2;
    if (m0 >= 0) epilogue_stsm<BF16, P9_EPI_BUFS, nq * H, nq>(a, acc, m0, n0, p.cstage(c), tmC);
}

/* K-iteration `it` (not a tile's first) in two halves: wait for its stage, issue half 0's and
 * half 1's groups, then wait until the previous K tile's groups have finished (wait 2: all but
 * these two) and release its stage. */
template <int BF16, class CFG>
static __device__ __forceinline__ void consume_halves(const pipe<CFG> &p, int it, int slab,
                                                      float *acc) {
    const int s = it % CFG::STAGES;
    ptx_mbar_wait(p.full(s), (it / CFG::STAGES) & 1);
    mma_half<BF16, 0>(p, s, slab, acc, 0);
    mma_half<BF16, 1>(p, s, slab, acc, 0);
    ptx_wgmma_wait<2>();
    release(p, (it + CFG::STAGES - 1) % CFG::STAGES);
}

/* Step 12's consumer: step 9's schedule with every K tile issued as two groups, one per half,
 * and the tile boundary overlapped: once half 0's group of a tile's last K tile has finished,
 * half 0 is stored while the Tensor Cores still run half 1; the next tile's K tile 0 starts
 * with half 0 (its first wgmma zeroes those registers), and once the previous tile's half-1
 * group has finished, that half is stored under it before half 1 of K tile 0 is issued.
 * Groups in flight at each wait (oldest first) and what the wait lets go:
 *   K tile kt >= 1:            [kt-1 h1] [kt h0] [kt h1]  wait 2: kt-1 -> release its stage
 *   after the last K tile L:   [L h0] [L h1]              wait 1: L h0 -> store half 0
 *   next tile, K tile 0, h0:   [L h1] [0 h0]              wait 1: L h1 -> release L, store h1
 *   K tile 0, h1 issued:       [0 h0] [0 h1]              wait 1: 0 h0 (the loop turns here)
 * ptxas follows which accumulator registers are in flight along every path, and serializes
 * every wgmma of the kernel when it cannot prove a read safe. What it accepts, found by trial
 * with CUDA 13's ptxas: no m64n256k16 on these registers (after one, a read of half 0 under
 * half 1's group is refused: C7511); a read only of a group issued in the same pass of every
 * loop around it (hence the last K tile issued after the K loop, which needs K tiles >= 2: the
 * kernel takes step 9's consumer otherwise); a tile loop that turns with at most half 1's
 * group in flight and has no `break` (C7514 otherwise); a wait 0 after the loop. */
template <int BF16, class CFG>
static __device__ __forceinline__ void consumer_overlap(const pipe<CFG> &p, const kargs &a, int c,
                                                        int rank, int first, int step, int nwork,
                                                        const CUtensorMap *tmC) {
    float acc[128]; /* (64,256) fp32: the wgmma D fragment, TV layout p9_tv_acc */
    int it = 0, tm, tn;
    tile_coords<CFG>(a, first, rank, &tm, &tn);
    if (first < nwork) { /* the first tile's K tile 0: both halves, zeroing */
        ptx_mbar_wait(p.full(0), 0);
        mma_half<BF16, 0>(p, 0, c, acc, 1);
        mma_half<BF16, 1>(p, 0, c, acc, 1);
        it = 1;
    }
    for (int w = first; w < nwork; w += step) {
        for (int kt = 1; kt < a.ktiles - 1; ++kt, ++it) consume_halves<BF16>(p, it, c, acc);
        consume_halves<BF16>(p, it++, c, acc); /* the last K tile (K tiles >= 2) */
        ptx_wgmma_wait<1>();
        fence_half<0>(acc);
        const int m0 = tm < a.tiles_m ? tm * CFG::BLK_M + c * P9_WG_M : -1; /* -1: below C */
        const int n0 = tn * P9_BLK_N;
        store_half<BF16, 0>(a, acc, m0, n0, p, c, tmC);
        if (w + step < nwork) { /* the next tile's K tile 0: half 0, this tile's half 1, half 1 */
            tile_coords<CFG>(a, w + step, rank, &tm, &tn);
            const int s = it % CFG::STAGES;
            ptx_mbar_wait(p.full(s), (it / CFG::STAGES) & 1);
            mma_half<BF16, 0>(p, s, c, acc, 1);
            ptx_wgmma_wait<1>();
            release(p, (it + CFG::STAGES - 1) % CFG::STAGES);
            fence_half<1>(acc);
            store_half<BF16, 1>(a, acc, m0, n0, p, c, tmC);
            mma_half<BF16, 1>(p, s, c, acc, 1);
            ++it;
            ptx_wgmma_wait<1>();
        } else { /* the CTA's last tile */
            ptx_wgmma_wait<0>();
            release(p, (it + CFG::STAGES - 1) % CFG::STAGES);
            fence_half<1>(acc);
            store_half<BF16, 1>(a, acc, m0, n0, p, c, tmC);
        }
    }
    ptx_wgmma_wait<0>();
}

/* ---- stream-K (step 10): partial sums between clusters ------------------------------------
 * A piece of a tile (a segment that does not start at K tile 0) ends in sk_publish: the
 * consumer's 128 threads write their 128 accumulators into its workspace slot, fragment-native
 * (plan.h: p9_sk_ws_off), fence, meet, and one thread raises the slot's flag to this launch's
 * epoch with a release store (sk_raise). The tile's owner (its segment holds K tile 0) calls
 * sk_add for each
 * contributing cluster: one thread spins on the flag with acquire loads, the warpgroup meets,
 * and every thread adds the slot's values to its own, which are the same (t, v) of the same
 * tile. The epoch, new per launch, makes stale flags of earlier launches read as "not yet". */
static __device__ __forceinline__ void sk_publish(const kargs &a, const float *acc, int slot) {
    const int t = threadIdx.x % 128;
    /* the layout is linear: the thread's part once, each j's a constant */
    float4 *dst = (float4 *)a.ws + (size_t)slot * P9_SK_SLOT_FLOAT4 + p9_sk_ws_off(t, 0);
#pragma unroll
    for (int j = 0; j < 32; ++j)
        __stcg(dst + p9_sk_ws_off(0, j),
               make_float4(acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]));
    __threadfence(); /* this thread's slot writes before the flag (made visible GPU-wide) */
}

static __device__ __forceinline__ void sk_raise(const kargs &a, int c, int slot) {
    ptx_bar_sync(BAR_EPI + c, 128); /* every thread of the warpgroup has written and fenced */
    if (threadIdx.x % 128 == 0) ptx_st_release_gpu(a.flags + slot, a.epoch);
}

static __device__ __forceinline__ void sk_add(const kargs &a, float *acc, int slot, int c) {
    const int t = threadIdx.x % 128;
    if (t == 0)
        while (ptx_ld_acquire_gpu(a.flags + slot) != a.epoch) {}
    ptx_bar_sync(BAR_EPI + c, 128); /* the flag was seen: the slot is complete */
    const float4 *src =
        (const float4 *)a.ws + (size_t)slot * P9_SK_SLOT_FLOAT4 + p9_sk_ws_off(t, 0);
#pragma unroll
    for (int j = 0; j < 32; ++j) {
        const float4 v = __ldcg(src + p9_sk_ws_off(0, j));
        acc[4 * j] += v.x;
        acc[4 * j + 1] += v.y;
        acc[4 * j + 2] += v.z;
        acc[4 * j + 3] += v.w;
    }
}

/* The consumers of step 10: consumer_cooperative's loop over the cluster's segments (item w,
 * K tiles [k0, k1)) instead of whole items. A piece goes to this consumer's workspace slot
 * (p9_sk_slot); an owner adds the slots of the same rank and consumer in the clusters g + 1 ..
 * last (p9_sk_last_contributor). */
template <int BF16, class CFG>
static __device__ __forceinline__ void consumer_streamk(const pipe<CFG> &p, const kargs &a,
                                                        int c, int rank, int g,
                                                        const CUtensorMap *tmC) {
    const p9_sk sk = a.sk;
    float acc[128]; /* (64,256) fp32: the wgmma D fragment, TV layout p9_tv_acc */
    p9_walk wk;
    p9_walk_init(&wk, &sk, g);
    int it = 0, w, k0, k1;
    while (p9_walk_next(&wk, &sk, &w, &k0, &k1)) {
        int tm, tn;
        tile_coords<CFG>(a, w, rank, &tm, &tn);
        for (int kt = k0; kt < k1; ++kt, ++it) consume<BF16>(p, it, c, acc, kt > k0, kt == k0);
        consume_finish(p, it - 1, acc); /* k1 > k0: every segment has a K tile */
        if (k0 > 0) { /* a piece of a tile another cluster owns */
            const int slot = p9_sk_slot(&sk, g, rank, c, CFG::CLUSTER, CFG::CONSUMERS);
            sk_publish(a, acc, slot);
            sk_raise(a, c, slot);
            continue;
        }
        if (k1 < a.ktiles) /* the owner of a tile cut in pieces */
            for (int h = g + 1, last = p9_sk_last_contributor(&sk, g, w); h <= last; ++h)
                sk_add(a, acc, p9_sk_slot(&sk, h, rank, c, CFG::CLUSTER, CFG::CONSUMERS), c);
        if (tm >= a.tiles_m) continue; /* a cluster's CTA below the matrix */
        store_tile<BF16>(a, acc, tm * CFG::BLK_M + c * P9_WG_M, tn * P9_BLK_N, p, c, tmC);
    }
}

/* ---- ping-pong consumers (step 8) ----------------------------------------------------------
 * The CTA's items j = 0 .. n-1 (work item first + j*step, one (64,256) tile each) alternate
 * between the consumers: consumer c computes j = c, c+2, ... (p9_pp_item). The producer fills
 * the ring in item order, so item j's K tile kt is K-iteration it = j*ktiles + kt of the ring.
 * The main loops take turns, in item order: item j's consumer first waits for its turn
 * (bar.sync BAR_TURN + c, 256 threads), which the consumer of item j-1 gives (bar.arrive on
 * the same id) once it has issued its last wgmma; then, while the other consumer's wgmma run,
 * it waits for its own last group, releases the stage and stores the tile. So the epilogue of
 * one item overlaps the main loop of the next, and the Tensor Cores see one stream of wgmma.
 * Each hand-over is waited for before the same id is used again (the taker's next hand-back
 * needs its own main loop first), and the last item hands nothing on (no arrival left
 * pending at exit); tests/test_plans_09.c plays the protocol through. */
template <int BF16, class CFG>
static __device__ __forceinline__ void consumer_pingpong(const pipe<CFG> &p, const kargs &a,
                                                         int c, int rank, int first, int step,
                                                         int nwork, const CUtensorMap *tmC) {
    const int n = p9_work_items(nwork, first, step);
    float acc[128]; /* (64,256) fp32: the wgmma D fragment, TV layout p9_tv_acc */
    for (int i = 0; p9_pp_item(c, i) < n; ++i) {
        const int j = p9_pp_item(c, i), it0 = j * a.ktiles;
        int tm, tn;
        tile_coords<CFG>(a, first + j * step, rank, &tm, &tn);
#pragma unroll
        for (int v = 0; v < 128; ++v) acc[v] = 0.0f;
        if (p9_pp_waits_turn(j)) ptx_bar_sync(BAR_TURN + c, 256);
        for (int kt = 0; kt < a.ktiles; ++kt) consume<BF16>(p, it0 + kt, 0, acc, kt > 0);
        if (p9_pp_hands_turn(j, n)) ptx_bar_arrive(BAR_TURN + (1 - c), 256);
        /* the last group: waited for unconditionally; with the wait under `if (ktiles > 0)`
         * (as consumer_cooperative had its consume_finish before K >= 1 became check_all's
         * precondition), ptxas adds a wait of its own on a path it takes for divergent and
         * then serializes every wgmma (its warning C7518) */
        ptx_wgmma_wait<0>();
        release(p, (it0 + a.ktiles - 1) % CFG::STAGES); /* K >= 1: check_all's precondition */
#pragma unroll
        for (int v = 0; v < 128; ++v) ptx_wgmma_fence_operand(acc[v]);
        if (tm >= a.tiles_m) continue; /* a cluster's CTA below the matrix */
        store_tile<BF16>(a, acc, tm * CFG::BLK_M, tn * P9_BLK_N, p, c, tmC);
    }
}

/* ---- the kernel ----------------------------------------------------------------------------
 * One CTA (with the others of its cluster) computes its tiles of C; the configuration CFG is
 * described above. Tensor maps: tmA over A (K, M) with box (64, BLK_M); tmB over B (K, N) with
 * box (64, 256/CLUSTER); tmC over C (N, M) with box (64, 64), or (64, 16) for the stmatrix
 * epilogue's per-warp stores (EPI_TMA 2); all 16-bit, 128-byte swizzle,
 * loads read zeros out of bounds, stores are clipped.
 * Registers (WS): __launch_bounds__(384, 1) caps every thread at 168 at entry; the producer
 * warpgroup drops to 40 (setmaxnreg.dec), the two consumers rise to 232 (setmaxnreg.inc):
 * 128 x 40 + 256 x 232 = 64,512 of the SM's 65,536. A consumer holds one (64,256) fp32
 * accumulator, 128 registers, in every schedule (ping-pong included: each consumer has its own
 * tile, but still one at a time). */
template <int BF16, class CFG>
__global__ void __launch_bounds__(CFG::THREADS, 1)
    gemm_wgmma(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
               const __grid_constant__ CUtensorMap tmC, const kargs a) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    extern __shared__ uint8_t smem_raw[];
    pipe<CFG> p;
    p.base = (ptx_smem_u32(smem_raw) + 1023) & ~1023u;
    p.tile = (int2 *)(smem_raw + (p.empty(CFG::STAGES) - ptx_smem_u32(smem_raw)));
    if (threadIdx.x == 0) {
        for (int s = 0; s < CFG::STAGES; ++s) {
            ptx_mbar_init(p.full(s), 1);
            ptx_mbar_init(p.empty(s), 4 * CFG::READERS * CFG::CLUSTER);
        }
        ptx_fence_mbarrier_init();
    }
    /* every CTA of the cluster has initialized its barriers before anyone arrives remotely */
    if (CFG::CLUSTER > 1) ptx_cluster_sync(); else __syncthreads();

    const int rank = CFG::CLUSTER > 1 ? (int)ptx_cluster_ctarank() : 0;
    const int nwork = ((a.tiles_m + CFG::CLUSTER - 1) / CFG::CLUSTER) * a.tiles_n;
    const int first = blockIdx.x / CFG::CLUSTER;
    const int step = CFG::PERSIST ? gridDim.x / CFG::CLUSTER : nwork;
    const int wg = threadIdx.x / 128;

    if (CFG::WS && wg == 0) { /* the producer warpgroup: one thread issues every load */
        ptx_setmaxnreg_dec<40>();
        if (threadIdx.x == 0 && !CFG::SK) {
            int it = 0, j = 0; /* j: the CTA's work items so far */
            for (int w = first; w < nwork; w += step, ++j) {
                int tm, tn;
                tile_coords<CFG>(a, w, rank, &tm, &tn);
                for (int kt = 0; kt < a.ktiles; ++kt, ++it)
                    produce(p, it, p9_k_tile(j, kt, a.ktiles, CFG::ORDER), tm, tn, rank, &tmA,
                            &tmB);
            }
        } else if (threadIdx.x == 0) { /* step 10: the cluster's segments (plan.h, p9_walk) */
            const p9_sk sk = a.sk;
            p9_walk wk;
            p9_walk_init(&wk, &sk, first);
            int it = 0, w, k0, k1;
            while (p9_walk_next(&wk, &sk, &w, &k0, &k1)) {
                int tm, tn;
                tile_coords<CFG>(a, w, rank, &tm, &tn);
                for (int kt = k0; kt < k1; ++kt, ++it) produce(p, it, kt, tm, tn, rank, &tmA, &tmB);
            }
        }
    } else {
        if (CFG::WS) ptx_setmaxnreg_inc<232>();
        const int c = wg - CFG::WS; /* this consumer warpgroup */
        if (CFG::PINGPONG)
            consumer_pingpong<BF16>(p, a, c, rank, first, step, nwork, &tmC);
        else if (CFG::SK)
            consumer_streamk<BF16>(p, a, c, rank, first, &tmC);
        else if (CFG::OVERLAP && a.c_tma && a.ktiles > 1)
            consumer_overlap<BF16>(p, a, c, rank, first, step, nwork, &tmC);
        else
            consumer_cooperative<BF16>(p, a, c, rank, first, step, nwork, &tmA, &tmB, &tmC);
        /* bulk groups are per thread: lane 0 of every consumer warp issued its own stores in
         * steps 9-13; in steps 6-8 only thread 0 of a warpgroup has any (the rest return) */
        if (CFG::EPI_TMA && a.c_tma && threadIdx.x % 32 == 0) ptx_tma_store_wait0();
    }
    /* no CTA leaves while another of its cluster may still arrive on its barriers */
    if (CFG::CLUSTER > 1) ptx_cluster_sync();
#endif
}

/* ---- host ----------------------------------------------------------------------------------- */

/* SMs of the current device, asked once per device. */
static cudaError_t num_sms(int *sms) {
    static int dev_cached = -1, sms_cached = 0;
    int dev;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return e;
    if (dev != dev_cached) {
        if ((e = cudaDeviceGetAttribute(&sms_cached, cudaDevAttrMultiProcessorCount, dev)) !=
            cudaSuccess)
            return e;
        dev_cached = dev;
    }
    *sms = sms_cached;
    return cudaSuccess;
}

/* Step 10's workspace: a __device__ array, so that no launch allocates. One fp32 (64,256) slot
 * and one flag per consumer warpgroup of the grid; SK_MAX_SLOTS covers 256 CTAs of 2
 * consumers (the H200 has 132 SMs). Launches that use it must be ordered (one stream, as the
 * harness runs them). Flags start at 0 and each launch waits for its own epoch (1, 2, ...). */
#define SK_MAX_SLOTS 512
static __device__ __align__(256) float sk_ws[SK_MAX_SLOTS * P9_WG_M * P9_BLK_N];
static __device__ unsigned sk_flags[SK_MAX_SLOTS];

/* Step 10's arguments: the stream-K schedule of nwork items on as many clusters as the GPU
 * holds at once (every cluster waits only for clusters running beside it: all must be
 * resident, cudaOccupancyMaxActiveClusters), the workspace and a new epoch. *clusters: the
 * grid in clusters. */
template <class CFG>
static cudaError_t streamk_args(kargs *a, int nwork, int sms, const void *kernel,
                                cudaLaunchConfig_t *lc, long long *clusters) {
    /* clusters of this configuration the current device holds at once, asked once per
     * device (as num_sms): a count from another GPU could leave a waited-for cluster out */
    static int resident = -1, dev_cached = -1;
    static unsigned epoch = 0;
    cudaError_t e;
    int dev;
    if ((e = cudaGetDevice(&dev)) != cudaSuccess) return e;
    if (dev != dev_cached) {
        lc->gridDim = dim3((unsigned)(sms / CFG::CLUSTER * CFG::CLUSTER));
        if ((e = cudaOccupancyMaxActiveClusters(&resident, kernel, lc)) != cudaSuccess) return e;
        dev_cached = dev;
    }
    int groups = sms / CFG::CLUSTER;
    if (groups > resident) groups = resident;
    if (groups > SK_MAX_SLOTS / (CFG::CLUSTER * CFG::CONSUMERS))
        groups = SK_MAX_SLOTS / (CFG::CLUSTER * CFG::CONSUMERS);
    if (groups < 1) return cudaErrorInvalidConfiguration;
    /* a range shorter than 8 K tiles costs more in partial sums than it saves */
    a->sk = p9_sk_plan(nwork, a->ktiles, groups, 1, 8);
    *clusters = a->sk.groups;
    if ((e = cudaGetSymbolAddress((void **)&a->ws, sk_ws)) != cudaSuccess ||
        (e = cudaGetSymbolAddress((void **)&a->flags, sk_flags)) != cudaSuccess)
        return e;
    if (++epoch == 0) { /* after 2^32 launches: clear the flags, start again */
        if ((e = cudaMemset(a->flags, 0, sizeof sk_flags)) != cudaSuccess) return e;
        epoch = 1;
    }
    a->epoch = epoch;
    return cudaSuccess;
}

template <class CFG> static cudaError_t launch_cfg(const gemm_problem *p, cudaStream_t s) {
    const int bf16 = p->dtype == GEMM_BF16;
    kargs a;
    a.M = p->m; a.N = p->n; a.K = p->k;
    a.tiles_m = (p->m + CFG::BLK_M - 1) / CFG::BLK_M;
    a.tiles_n = (p->n + P9_BLK_N - 1) / P9_BLK_N;
    a.ktiles = (p->k + P9_BLK_K - 1) / P9_BLK_K;
    /* 4, 8, 16, 32 measured within 2% of each other at 4096^3 and 8192^3; ping-pong's cluster
     * rows are half as tall (64-row tiles): 16 of them span the rows of ws_cluster2's 8 */
    a.group = CFG::PINGPONG ? 16 : 8;
    a.alpha = p->alpha; a.beta = p->beta;
    a.C = (uint16_t *)p->C; a.ldc = p->ldc;
    a.c_pairs = p->ldc % 2 == 0 && ((uintptr_t)p->C & 3) == 0;
    /* N % 8 too: at N = 129 the H200's clipped TMA store wrote the whole 16-byte chunk that
     * holds column 128, i.e. columns 129..135 of C's padding (run 09-6) */
    a.c_tma = CFG::EPI_TMA && p->n % 8 == 0 && p->ldc % 8 == 0 && ((uintptr_t)p->C & 15) == 0;
    a.sk = p9_sk_plan(1, 1, 1, 0, 1); /* unused before step 10 */
    a.ws = NULL;
    a.flags = NULL;
    a.epoch = 0;
    if (a.tiles_m == 0 || a.tiles_n == 0) return cudaSuccess; /* empty C: nothing to do */
    CUtensorMap tmA, tmB, tmC;
    memset(&tmC, 0, sizeof tmC);
    /* boxes (64, rows): one K tile of A and B; 64 columns of C (tma_map.h) */
    if (tma_map_rowmajor16(&tmA, p->A, p->m, p->k, p->lda, bf16, P9_BLK_K, CFG::BLK_M) ||
        tma_map_rowmajor16(&tmB, p->B, p->n, p->k, p->ldb, bf16, P9_BLK_K, CFG::B_ROWS_PER_CTA) ||
        (a.c_tma && tma_map_rowmajor16(&tmC, p->C, p->m, p->n, p->ldc, bf16, P9_BLK_K,
                                       CFG::EPI_TMA == 2 ? P9_EPI_WARP_ROWS : P9_WG_M)))
        return cudaErrorInvalidValue;
    void (*kernel)(const CUtensorMap, const CUtensorMap, const CUtensorMap, const kargs) =
        bf16 ? gemm_wgmma<1, CFG> : gemm_wgmma<0, CFG>;
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         CFG::SMEM);
    if (e != cudaSuccess) return e;
    const long long nwork = (long long)((a.tiles_m + CFG::CLUSTER - 1) / CFG::CLUSTER) * a.tiles_n;
    cudaLaunchConfig_t lc = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = CFG::CLUSTER;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    lc.blockDim = dim3(CFG::THREADS);
    lc.dynamicSmemBytes = CFG::SMEM;
    lc.stream = s;
    lc.attrs = attr;
    lc.numAttrs = 1;
    long long clusters = nwork;
    if (CFG::PERSIST) { /* at most one CTA per SM (its smem fills the SM), as few as keep
                         * the rounds (p9_persistent_clusters) */
        int sms;
        if ((e = num_sms(&sms)) != cudaSuccess) return e;
        clusters = p9_persistent_clusters(nwork, sms / CFG::CLUSTER);
        if (CFG::SK && (e = streamk_args<CFG>(&a, (int)nwork, sms, (const void *)kernel, &lc,
                                              &clusters)) != cudaSuccess)
            return e;
    }
    lc.gridDim = dim3((unsigned)(clusters * CFG::CLUSTER));
    return cudaLaunchKernelEx(&lc, kernel, tmA, tmB, tmC, a);
}

typedef cfg<1, 1, 0, 0, 0, 1> cfg_1wg_1stage;
typedef cfg<1, 4, 0, 0, 0, 1> cfg_1wg_4stage;
typedef cfg<2, 4, 0, 0, 0, 1> cfg_2wg_4stage;
typedef cfg<2, 4, 1, 0, 0, 1> cfg_ws_2wg_4stage;
typedef cfg<2, 4, 1, 1, 0, 1> cfg_ws_persistent;
typedef cfg<2, 4, 1, 1, 1, 1> cfg_ws_persistent_tma_store;
typedef cfg<2, 4, 1, 1, 1, 2> cfg_ws_cluster2;
/* ping-pong: stages of 40 KiB (A (64,64) + B (256,64)); 4 of them and two C staging tiles
 * make 193 KiB (a fifth stage would need 233 KiB, past the 227 KiB a CTA may have) */
typedef cfg<2, 4, 1, 1, 1, 2, 1> cfg_ws_pingpong;
/* step 9: ws_cluster2's stages and smem (the two staging boxes of a consumer are its 16 KiB
 * staging tile), stmatrix epilogue */
typedef cfg<2, 4, 1, 1, 2, 2> cfg_ws_stmatrix_epi;
/* step 10: step 9 with stream-K */
typedef cfg<2, 4, 1, 1, 2, 2, 0, 1> cfg_ws_streamk;
/* step 11: step 9 with one stage fewer and the whole slab staged (a box per chunk) */
typedef cfg<2, 3, 1, 1, 2, 2, 0, 0, P9_EPI_CHUNKS> cfg_ws_slab_epi;
/* step 12: step 9 with each tile's two column halves stored under the other half's wgmma */
typedef cfg<2, 4, 1, 1, 2, 2, 0, 0, P9_EPI_BUFS, 1> cfg_ws_overlap_epi;
/* step 13: step 9 in the L2-aware order (serpentine raster, odd items' K backwards) */
typedef cfg<2, 4, 1, 1, 2, 2, 0, 0, P9_EPI_BUFS, 0, 1> cfg_ws_l2_order;
#define LAUNCH(name)                                                                   \
    static cudaError_t launch_##name(const gemm_problem *p, cudaStream_t s) {          \
        return launch_cfg<cfg_##name>(p, s);                                           \
    }
LAUNCH(1wg_1stage)
LAUNCH(1wg_4stage)
LAUNCH(2wg_4stage)
LAUNCH(ws_2wg_4stage)
LAUNCH(ws_persistent)
LAUNCH(ws_persistent_tma_store)
LAUNCH(ws_cluster2)
LAUNCH(ws_pingpong)
LAUNCH(ws_stmatrix_epi)
LAUNCH(ws_streamk)
LAUNCH(ws_slab_epi)
LAUNCH(ws_overlap_epi)
LAUNCH(ws_l2_order)
#undef LAUNCH

/* What every variant needs before launch: a Hopper GPU (the sm_90a code runs on compute
 * capability 9.0 only), the whole smem of the largest variant, K >= 1 (the consumers finish
 * every tile on its last K tile; the harness's extents start at 1), tile counts in an int, and
 * what the TMA loads need: operands K-major (TN), lda and ldb multiples of 8 elements (16-byte
 * row strides), A and B 16-byte aligned. C may have any ldc and alignment (the stores fall
 * back from TMA to 4-byte and 2-byte stores). */
static const char *check_all(const gemm_problem *p) {
    static char why[200];
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
        optin < cfg_ws_persistent_tma_store::SMEM) {
        snprintf(why, sizeof why, "needs %d KiB of shared memory per CTA, this GPU allows %d KiB",
                 cfg_ws_persistent_tma_store::SMEM / 1024, optin / 1024);
        return why;
    }
    if (!p->a_kmajor || !p->b_kmajor)
        return "TMA + wgmma here read K-major operands only (layout TN): use lesson 08";
    if (p->lda % 8 || p->ldb % 8 || ((uintptr_t)p->A & 15) || ((uintptr_t)p->B & 15))
        return "TMA needs lda, ldb multiples of 8 elements and A, B 16-byte aligned: use lesson 08";
    if (p->k < 1) /* every tile has a K tile: consume_finish, the zeroing first wgmma */
        return "K = 0 is not a product: C = beta * C needs no GEMM";
    if ((long long)((p->m + 63) / 64) * ((p->n + 255) / 256) > 2147483647LL)
        return "M*N too large: more than 2^31-1 CTA tiles";
    return NULL;
}

#define DT_HALVES (GEMM_DT_BIT(GEMM_FP16) | GEMM_DT_BIT(GEMM_BF16))
#define V(name, sum) {#name, sum, DT_HALVES, GEMM_LAYOUT_BIT(GEMM_TN), 1, check_all, launch_##name}

static const gemm_variant variants[] = {
    V(ws_l2_order, "ws_stmatrix_epi in an L2-aware order: serpentine raster, odd work items walk K backwards"),
    V(ws_stmatrix_epi, "ws_cluster2 with a stmatrix epilogue in 4 chunks through 2 staging boxes, acc zeroed by wgmma"),
    V(ws_cluster2, "ws_persistent_tma_store in clusters of 2 CTAs sharing B by TMA multicast"),
    V(1wg_1stage, "1 warpgroup, 64x256x64 tile, one smem stage: TMA load, mbarrier wait, wgmma"),
    V(1wg_4stage, "1 warpgroup, 64x256x64 tile, 4-stage TMA ring with full/empty mbarriers"),
    V(2wg_4stage, "2 warpgroups, 128x256x64 tile, 4-stage ring, thread 0 issues the TMA loads"),
    V(ws_2wg_4stage, "producer warpgroup + 2 consumer warpgroups, 128x256x64, 4 stages, setmaxnreg"),
    V(ws_persistent, "ws_2wg_4stage with one CTA per SM walking tiles in grouped-raster order"),
    V(ws_persistent_tma_store, "ws_persistent + C through swizzled smem and TMA stores"),
    V(ws_pingpong, "ws_cluster2 with each consumer on its own 64x256 tile, main loops taking turns"),
    V(ws_streamk, "ws_stmatrix_epi with stream-K: the last waves' K iterations split evenly over the clusters"),
    V(ws_slab_epi, "ws_stmatrix_epi with 3 stages and the whole slab staged: a box per chunk, no wait between them"),
    V(ws_overlap_epi, "ws_stmatrix_epi with each tile's column halves stored under the other half's wgmma"),
};

static const gemm_lesson lesson = {"09_wgmma", "Hopper: TMA + mbarrier + wgmma, warp specialization",
                                   (int)(sizeof variants / sizeof variants[0]), variants,
                                   GEMM_LAYOUT_BIT(GEMM_TN)};

int main(int argc, char **argv) { return harness_main(argc, argv, &lesson); }

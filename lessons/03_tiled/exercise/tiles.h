/* tiles.h - lesson 03 assignment, part 1: the CTA's tiles, every thread's partitions, and the
 * index logic of the k_tile loop.
 *
 * YOU WRITE TODOs 1-6 below (the functions ex03_smem_layout ... ex03_copy_pred).
 * kernel.cu calls them on the GPU, and the CPU grader (tests/test_exercise_03.c) calls the very
 * same functions on the CPU, each with correct inputs of its own, so `make grade03` checks your
 * tiles, partitions and predicates without a GPU, and one mistake costs one check.
 *
 * The problem (common/harness.h): C = alpha * A * B^T + beta * C with A (M,K), B (N,K),
 * C (M,N); the operand order is in the strides of the full tensors mA, mB (built in kernel.cu).
 * The configuration is the lesson's: a CTA computes a (BLK_M,BLK_N) = (128,128) tile of C from
 * k_tiles of BLK_K = 8, with 256 threads; the thread layouts are given below.
 *
 * Plain C over common/layout.h: compiles with gcc (the CPU grader) and nvcc (the kernel).
 */
#ifndef EX03_TILES_H
#define EX03_TILES_H

#include "layout.h"

/* every function here is inlined into the kernel: its layouts then fold to index arithmetic */
#ifdef __CUDACC__
#define EX03_INLINE static __host__ __device__ __forceinline__
#else
#define EX03_INLINE static inline
#endif

#define EX03_BLK_M 128
#define EX03_BLK_N 128
#define EX03_BLK_K 8
#define EX03_NTHR 256
/* the compute partition (tC, 16x16 threads): C elements per thread */
#define EX03_THR_M 8 /* C rows per thread (BLK_M / 16) */
#define EX03_THR_N 8 /* C columns per thread (BLK_N / 16) */
/* the copy partitions (tA, tB, 32x8 threads): tile elements per thread and k_tile */
#define EX03_CPY_M 4 /* rows of the A tile per thread (BLK_M / 32) */
#define EX03_CPY_N 4 /* rows of the B tile per thread (BLK_N / 32) */
#define EX03_CPY_K 1 /* k per thread (BLK_K / 8) */
/* Shared memory the kernel declares for sA and sB: room for a tile plus up to 8 floats of
 * padding per k column. Your smem layout must fit (its cosize, the offset of its last element
 * plus one, at most this). */
#define EX03_SMEM_A_FLOATS (EX03_BLK_K * (EX03_BLK_M + 8))
#define EX03_SMEM_B_FLOATS (EX03_BLK_K * (EX03_BLK_N + 8))

/* GIVEN. The copy thread layout of a (BLK_X,BLK_K) tile: 256 threads as (32,8).
 *   K-major operand: (32,8):(8,1), thread t at (x,k) = (t/8, t%8): k fastest;
 *   x-major operand: (32,8):(1,32), thread t at (x,k) = (t%32, t/32): x fastest.
 * Either way a warp reads contiguous global memory. local_partition with it gives each thread
 * (BLK_X/32, BLK_K/8) = (EX03_CPY_M, EX03_CPY_K) = (4,1) elements of the tile. */
EX03_INLINE lay_layout ex03_copy_thr_layout(int kmajor) {
    return lay_l2(32, 8, kmajor ? 8 : 1, kmajor ? 1 : 32);
}

/* GIVEN. The compute thread layout over the (BLK_M,BLK_N) tile of C: (16,16):(16,1), thread t
 * at (m,n) = (t/16, t%16); local_partition gives it the (THR_M,THR_N) = (8,8) elements
 * (t/16 + 16i, t%16 + 16j). */
EX03_INLINE lay_layout ex03_compute_thr_layout(void) { return lay_l2(16, 16, 16, 1); }

/* Every tensor one thread of one CTA works with. The shape comments are what each must be. */
typedef struct ex03_cta {
    lay_tensor gA, gB, gC;          /* (BLK_M,BLK_K,k) (BLK_N,BLK_K,k) (BLK_M,BLK_N): gmem tiles */
    lay_tensor sA, sB;              /* (BLK_M,BLK_K) (BLK_N,BLK_K): smem tiles */
    lay_tensor tAgA, tAsA;          /* (CPY_M,CPY_K,k) (CPY_M,CPY_K): copy partition of A */
    lay_tensor tAcA_m, tAcA_k;      /* (CPY_M,CPY_K): in-tile m and k of each element of tAsA */
    lay_tensor tBgB, tBsB;          /* (CPY_N,CPY_K,k) (CPY_N,CPY_K): copy partition of B */
    lay_tensor tBcB_n, tBcB_k;      /* (CPY_N,CPY_K): in-tile n and k of each element of tBsB */
    lay_tensor tCsA, tCsB;          /* (THR_M,BLK_K) (THR_N,BLK_K): what the gemm reads */
    lay_tensor tCgC;                /* (THR_M,THR_N): the C elements this thread owns */
    lay_tensor tCcC_m, tCcC_n;      /* (THR_M,THR_N): in-tile m and n of each element of tCgC */
} ex03_cta;

/* TODO 1. The shared-memory layout of a (blk_x, BLK_K) tile (blk_x = BLK_M for sA, BLK_N for
 * sB): x contiguous (so the compute loop reads neighbouring m or n), k columns one "pitch" P
 * apart, P >= blk_x so that columns do not overlap. Choose P so that the K-major copy's stores
 * (a warp writes 4 x by 8 k, see ex03_copy_thr_layout) hit 32 different banks, and so that the
 * tile fits in EX03_SMEM_A_FLOATS / EX03_SMEM_B_FLOATS. (Banks: 32 of them, 4 bytes wide; the
 * float at offset o is in bank o % 32. CUDA C++ Programming Guide, "Shared Memory".) */
EX03_INLINE lay_layout ex03_smem_layout(int blk_x) {
    (void)blk_x; /* delete when used */
    return lay_l1(0, 0); /* the invalid layout: "not written yet" */
}

/* TODO 2. The CTA tiles c->gA, c->gB, c->gC of CTA (bx,by), from the full tensors mA (M,K),
 * mB (N,K), mC (M,N), with lay_local_tile(out, tensor, tiler, coord, projection).
 * Returns LAY_OK, or the first error of a layout operation. */
EX03_INLINE int ex03_cta_tiles(ex03_cta *c, lay_tensor mA, lay_tensor mB, lay_tensor mC,
                               int bx, int by) {
    /* GIVEN: the CTA tiler and this CTA's coordinate (bx, by, _): one tile in M and N, every
     * tile along K. LAY_CRD tells nvcc that bx and by are never LAY_FREE (README of the lesson,
     * section 1), which keeps every layout below a compile-time structure. */
    const lay_tiler cta_tiler = lay_tiler3(EX03_BLK_M, EX03_BLK_N, EX03_BLK_K);
    const int cta_coord[3] = {LAY_CRD(bx), LAY_CRD(by), LAY_FREE}; /* (m,n,_) */
    /* your code: which modes of the tiler does each operand keep? */
    (void)c; (void)mA; (void)mB; (void)mC; (void)cta_tiler; (void)cta_coord; /* delete */
    return LAY_E_ARG; /* TODO: return LAY_OK once gA, gB, gC are built */
}

/* TODO 3. The smem tiles c->sA, c->sB: tensors over smemA / smemB (EX03_SMEM_A/B_FLOATS
 * floats) with your layout. */
EX03_INLINE void ex03_smem_tiles(ex03_cta *c, float *smemA, float *smemB) {
    (void)c; (void)smemA; (void)smemB; /* delete when used */
}

/* TODO 4. The copy partitions of thread tid, from c->gA, c->gB, c->sA, c->sB (built):
 * tAgA, tAsA and the coordinates tAcA_m, tAcA_k with tA; the same for B, with
 * lay_local_partition(out, tensor, thread layout, tid, projection).
 * a_kmajor / b_kmajor: 1 when K is the contiguous mode of A / B (chooses tA / tB).
 * Returns LAY_OK, or the first error of a layout operation. */
EX03_INLINE int ex03_copy_partitions(ex03_cta *c, int a_kmajor, int b_kmajor, int tid) {
    /* GIVEN: identity tensors of the tiles. Their "offset" at (x,k) is x (or k): partitioned
     * like the data, element i of the partition is the in-tile coordinate of element i. */
    const lay_tensor cA_m = lay_make_tensor(NULL, lay_l2(EX03_BLK_M, EX03_BLK_K, 1, 0)); /* ->m */
    const lay_tensor cA_k = lay_make_tensor(NULL, lay_l2(EX03_BLK_M, EX03_BLK_K, 0, 1)); /* ->k */
    const lay_tensor cB_n = lay_make_tensor(NULL, lay_l2(EX03_BLK_N, EX03_BLK_K, 1, 0)); /* ->n */
    const lay_tensor cB_k = lay_make_tensor(NULL, lay_l2(EX03_BLK_N, EX03_BLK_K, 0, 1)); /* ->k */
    const lay_layout tA = ex03_copy_thr_layout(a_kmajor);
    const lay_layout tB = ex03_copy_thr_layout(b_kmajor);
    /* your code */
    (void)c; (void)tid; (void)cA_m; (void)cA_k; (void)cB_n; (void)cB_k; (void)tA; (void)tB;
    return LAY_E_ARG; /* TODO: return LAY_OK once the eight tensors are built */
}

/* TODO 5. The compute partitions of thread tid, from c->sA, c->sB, c->gC (built), with tC:
 * tCsA, tCsB, tCgC and the coordinates tCcC_m, tCcC_n.
 * Returns LAY_OK, or the first error of a layout operation. */
EX03_INLINE int ex03_compute_partitions(ex03_cta *c, int tid) {
    /* GIVEN: identity tensors of the C tile, and the thread layout */
    const lay_tensor cC_m = lay_make_tensor(NULL, lay_l2(EX03_BLK_M, EX03_BLK_N, 1, 0)); /* ->m */
    const lay_tensor cC_n = lay_make_tensor(NULL, lay_l2(EX03_BLK_M, EX03_BLK_N, 0, 1)); /* ->n */
    const lay_layout tC = ex03_compute_thr_layout();
    /* your code: which modes of tC does each tensor need? */
    (void)c; (void)tid; (void)cC_m; (void)cC_n; (void)tC; /* delete */
    return LAY_E_ARG; /* TODO: return LAY_OK once the five tensors are built */
}

/* The value of an identity tensor at (i,j): the coordinate it stands for (its "offset"). */
#define EX03_CRD2(t, i, j) ((t).off + lay_crd2idx2((t).layout, (i), (j)))

/* TODO 6a. The number of k_tiles of the main loop for a K extent (K >= 1): every k of A and B
 * must be in one. */
EX03_INLINE int ex03_k_tile_count(int K) {
    (void)K; /* delete when used */
    return 0; /* TODO */
}

/* TODO 6b. The copy's predicate: 1 when element (i,j) of a thread's copy partition in k_tile
 * k_tile lies inside the operand, 0 when it must be stored as 0 instead of loaded.
 *   cx, ck  the copy partition's identity tensors (tAcA_m, tAcA_k or tBcB_n, tBcB_k): the
 *           in-tile x and k of element (i,j), EX03_CRD2(cx, i, j) and EX03_CRD2(ck, i, j);
 *   x_rem   rows of the operand from this CTA's first row on (M - bx*BLK_M or N - by*BLK_N;
 *           more than the tile has in an interior CTA);
 *   K       the extent of K; k_tile in 0 .. ex03_k_tile_count(K) - 1. */
EX03_INLINE int ex03_copy_pred(lay_tensor cx, lay_tensor ck, int i, int j, int x_rem, int K,
                               int k_tile) {
    (void)cx; (void)ck; (void)i; (void)j; (void)x_rem; (void)K; (void)k_tile; /* delete */
    return 0; /* TODO */
}

/* GIVEN. Builds every tensor of `c` for CTA (bx,by) and thread tid, from the full tensors
 * mA (M,K), mB (N,K), mC (M,N) and the smem arrays smemA, smemB, with TODOs 2-5 in order.
 * Returns LAY_OK, or the first error of a layout operation (then `c` must not be used). */
EX03_INLINE int ex03_partition(ex03_cta *c, lay_tensor mA, lay_tensor mB, lay_tensor mC,
                               float *smemA, float *smemB, int a_kmajor, int b_kmajor, int bx,
                               int by, int tid) {
    LAY_TRY(ex03_cta_tiles(c, mA, mB, mC, bx, by));
    ex03_smem_tiles(c, smemA, smemB);
    LAY_TRY(ex03_copy_partitions(c, a_kmajor, b_kmajor, tid));
    LAY_TRY(ex03_compute_partitions(c, tid));
    return LAY_OK;
}

#endif /* EX03_TILES_H */

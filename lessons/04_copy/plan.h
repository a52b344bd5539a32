/* plan.h - lesson 04's tile constants and its choice of layouts, shared by the kernel (gemm.cu)
 * and the CPU test (tests/test_plans_0304.c), so the test proves the partitions the kernel
 * really uses. Plain C: compiles with gcc (host) and nvcc (host + device).
 *
 * Every per-thread offset of the kernels comes from the layouts built here from constants
 * (common/layout.h, common/layout_tv.h), evaluated at the thread index:
 *   - the tiled copies (p4_copy): a thread layout x a value layout per copy mode;
 *   - the smem tile (p4_smem_layout) and the gmem tile (p4_gmem_layout);
 *   - the compute partition (p4_mma): an FFMA "atom" (4x8 lanes, 4x4 values each) tiled over
 *     the warps and the warp tile.
 *
 * Names: x is the row mode of an operand tile (M for A, N for B), BLK_X its
 * size (BLK_M or BLK_N); k the reduction mode. Shared memory holds every operand tile
 * TRANSPOSED, as (BLK_K, BLK_X) with x contiguous and each k row padded by P4_PAD floats:
 *     sX (BLK_X,BLK_K):(1,BLK_X+P4_PAD)
 * so the inner product loop reads 4 consecutive x (one float4) per LDS.128.
 */
#ifndef LESSON04_PLAN_H
#define LESSON04_PLAN_H

#include "layout.h"

/* ---- tile configurations (one per kernel variant) ---------------------------------------
 * CFG_<name>_{BLK_M,BLK_N,BLK_K, WARP_M,WARP_N, THR_M,THR_N, STAGES}
 *   BLK_*   CTA tile: the CTA computes a (BLK_M,BLK_N) block of C, BLK_K of K per k_tile
 *   WARP_*  warp tile: one warp's (WARP_M,WARP_N) sub-block of the CTA tile
 *   THR_*   thread tile: one thread's (THR_M,THR_N) accumulators, multiples of 4
 *   STAGES  shared-memory buffers in flight (1 = synchronous copy, 2 = double buffering)
 * Threads per CTA = (BLK_M/WARP_M) * (BLK_N/WARP_N) * 32; lanes per warp are arranged
 * (WARP_M/THR_M) x (WARP_N/THR_N) = 32. */
#define CFG_FAST_BLK_M 128 /* "fast": 128x128x8, warp 32x64, 8x8/thread, 3 stages */
#define CFG_FAST_BLK_N 128
#define CFG_FAST_BLK_K 8
#define CFG_FAST_WARP_M 32
#define CFG_FAST_WARP_N 64
#define CFG_FAST_THR_M 8
#define CFG_FAST_THR_N 8
#define CFG_FAST_STAGES 3

#define CFG_K16_BLK_M 128 /* "fast_128x128x16": 128x128x16, warp 32x64, 8x8/thread, 3 stages */
#define CFG_K16_BLK_N 128
#define CFG_K16_BLK_K 16
#define CFG_K16_WARP_M 32
#define CFG_K16_WARP_N 64
#define CFG_K16_THR_M 8
#define CFG_K16_THR_N 8
#define CFG_K16_STAGES 3

#define CFG_N256_BLK_M \
    128 /* 128x256x8, warp 64x64, 16x8/thread, 3 stages: no variant (it
                             spilled at 255 registers; gemm.cu); the CPU test still checks it */
#define CFG_N256_BLK_N 256
#define CFG_N256_BLK_K 8
#define CFG_N256_WARP_M 64
#define CFG_N256_WARP_N 64
#define CFG_N256_THR_M 16
#define CFG_N256_THR_N 8
#define CFG_N256_STAGES 3

#define CFG_S4_BLK_M 128 /* "fast_128x128x8_s4": as "fast" with 4 stages */
#define CFG_S4_BLK_N 128
#define CFG_S4_BLK_K 8
#define CFG_S4_WARP_M 32
#define CFG_S4_WARP_N 64
#define CFG_S4_THR_M 8
#define CFG_S4_THR_N 8
#define CFG_S4_STAGES 4

#define CFG_CP2_BLK_M 128 /* "cp_async_2stage": the fast tile, 2 stages (double buffering) */
#define CFG_CP2_BLK_N 128
#define CFG_CP2_BLK_K 8
#define CFG_CP2_WARP_M 32
#define CFG_CP2_WARP_N 64
#define CFG_CP2_THR_M 8
#define CFG_CP2_THR_N 8
#define CFG_CP2_STAGES 2

#define CFG_VEC_BLK_M 128 /* "tiled_vec": the fast tile, synchronous LDG.128 -> STS copies */
#define CFG_VEC_BLK_N 128
#define CFG_VEC_BLK_K 8
#define CFG_VEC_WARP_M 32
#define CFG_VEC_WARP_N 64
#define CFG_VEC_THR_M 8
#define CFG_VEC_THR_N 8
#define CFG_VEC_STAGES 1

/* Register-staged kernels (kernel_ldg.cuh): always 2 smem buffers (STAGES = 2). */
#define CFG_L1C_BLK_M 128 /* "ldg128_128x128x8": the same tile, 1 CTA/SM promised */
#define CFG_L1C_BLK_N 128
#define CFG_L1C_BLK_K 8
#define CFG_L1C_WARP_M 32
#define CFG_L1C_WARP_N 64
#define CFG_L1C_THR_M 8
#define CFG_L1C_THR_N 8
#define CFG_L1C_STAGES 2

#define CFG_L256_BLK_M 128 /* "ldg128_128x256x8": 128x256x8, warp 64x64, 16x8/thread */
#define CFG_L256_BLK_N 256
#define CFG_L256_BLK_K 8
#define CFG_L256_WARP_M 64
#define CFG_L256_WARP_N 64
#define CFG_L256_THR_M 16
#define CFG_L256_THR_N 8
#define CFG_L256_STAGES 2

#define CFG_L16_BLK_M 128 /* "ldg128_128x128x16": 128x128x16, warp 32x64, 8x8 (1 CTA/SM) */
#define CFG_L16_BLK_N 128
#define CFG_L16_BLK_K 16
#define CFG_L16_WARP_M 32
#define CFG_L16_WARP_N 64
#define CFG_L16_THR_M 8
#define CFG_L16_THR_N 8
#define CFG_L16_STAGES 2

#define CFG_L4W_BLK_M 128 /* "ldg128_128x128x8_4w": 4 warps of 64x64, 16x8/thread, 2 CTAs/SM */
#define CFG_L4W_BLK_N 128
#define CFG_L4W_BLK_K 8
#define CFG_L4W_WARP_M 64
#define CFG_L4W_WARP_N 64
#define CFG_L4W_THR_M 16
#define CFG_L4W_THR_N 8
#define CFG_L4W_STAGES 2

/* Padding of each k row of a transposed smem tile, in floats. With BLK_X a multiple of 32 the
 * row pitch BLK_X+4 is 4 (mod 32) banks, so the 4-byte transposing copy (P4_COPY_K4: a warp
 * writes 8 k x 4 x) hits banks 4*k + x, all 32 different, and rows stay 16-byte aligned. */
#define P4_PAD 4

/* Largest lda/ldb the kernels accept: offsets inside one operand tile are 32-bit ints, and
 * BLK_X * ld + BLK_K must stay below 2^31 for BLK_X <= 256. */
#define P4_MAX_LD (1LL << 22)

/* CTAs are launched on a 1-D grid and mapped to (tile_m, tile_n) in groups of P4_GROUP_M
 * tile rows, so CTAs running at the same time share A rows and B columns in L2. */
#define P4_GROUP_M 8

/* CTA id -> (tile_m, tile_n): ids run down a group of P4_GROUP_M tile rows before moving one
 * tile column right (the last group may be shorter). */
LAY_HD static inline void p4_tile_coord(int id, int tiles_m, int tiles_n, int *tile_m,
                                        int *tile_n) {
    const int per_group = P4_GROUP_M * tiles_n;
    const int first_m = (id / per_group) * P4_GROUP_M;
    const int group_m = tiles_m - first_m < P4_GROUP_M ? tiles_m - first_m : P4_GROUP_M;
    *tile_m = first_m + (id % per_group) % group_m;
    *tile_n = (id % per_group) / group_m;
}

/* ---- copy partitions: tiled copies (thread layout x value layout) ----------------------
 * A tile (BLK_X,BLK_K) is moved by NTHR threads, one copy instruction of VEC = 1 or 4 floats per
 * (thread, repeat). The value layout is one instruction's elements; the thread layout places
 * the threads on a grid of such vectors; the grid repeats over the tile (lay_tiled_copy,
 * common/layout_tv.h; print one with `build/tools/layouts copy THR VAL BLK_X BLK_K`):
 *   P4_COPY_K4   1 float, gmem K-major (k contiguous) -> transposed smem (cp.async 4 B):
 *                thr (NTHR/8, 8):(8,1), val (1,1): 8 consecutive threads take 8 consecutive
 *                k of one row, so a warp reads 4 rows x 8 k (four 32-byte sectors) and,
 *                with the +4 padding, writes 32 different banks.
 *   P4_COPY_K16  4 floats along k, gmem K-major, one LDG.128, stored as 4 STS.32 (the
 *                register-staged and synchronous paths: cp.async cannot transpose):
 *                thr (NTHR/(BLK_K/4), BLK_K/4):(BLK_K/4,1), val (1,4):(0,1).
 *   P4_COPY_X16  4 floats along x, gmem x-major (M- or N-contiguous), cp.async 16 B or
 *                LDG.128 + STS.128: thr (BLK_X/4, NTHR/(BLK_X/4)):(1,BLK_X/4), val (4,1):(1,0):
 *                a warp moves 512 contiguous bytes.
 *   P4_COPY_X4   1 float along x, gmem x-major but not 16-byte aligned:
 *                thr (min(BLK_X,NTHR), NTHR/BLK_X):(1,BLK_X), val (1,1). */
enum { P4_COPY_K4 = 0, P4_COPY_K16 = 1, P4_COPY_X16 = 2, P4_COPY_X4 = 3, P4_NCOPY = 4 };

/* The value layout of a copy mode: (VX,VK) -> element of one instruction. */
LAY_HD static inline lay_layout p4_copy_val(int mode) {
    if (mode == P4_COPY_K16) return lay_l2(1, 4, 0, 1);
    if (mode == P4_COPY_X16) return lay_l2(4, 1, 1, 0);
    return lay_l2(1, 1, 0, 0);
}

/* The tiled copy of mode `mode` for a (blk_x, blk_k) tile and nthr threads. */
LAY_HD static inline lay_tiled_copy p4_copy(int mode, int blk_x, int blk_k, int nthr) {
    lay_layout thr;
    if (mode == P4_COPY_K4) {
        thr = lay_l2(nthr / 8, 8, 8, 1);
    } else if (mode == P4_COPY_K16) {
        thr = lay_l2(nthr / (blk_k / 4), blk_k / 4, blk_k / 4, 1);
    } else if (mode == P4_COPY_X16) {
        thr = lay_l2(blk_x / 4, nthr / (blk_x / 4), 1, blk_x / 4);
    } else {
        thr = nthr >= blk_x ? lay_l2(blk_x, nthr / blk_x, 1, blk_x) : lay_l2(nthr, 1, 1, 0);
    }
    return lay_make_tiled_copy(thr, p4_copy_val(mode));
}

/* Floats per copy instruction (the size of the value layout) and vectors each thread moves per
 * k_tile (the repeats of the copy tile over the tile). They bound `#pragma unroll` loops, so
 * they are plain arithmetic that nvcc sees as constants before it folds any layout; the CPU
 * test checks them against lay_size(p4_copy_val(mode)) and lay_tiled_copy_reps. */
LAY_HD static inline int p4_copy_vec(int mode) {
    return (mode == P4_COPY_K16 || mode == P4_COPY_X16) ? 4 : 1;
}
LAY_HD static inline int p4_copy_count(int mode, int blk_x, int blk_k, int nthr) {
    return blk_x * blk_k / (nthr * p4_copy_vec(mode));
}

/* 1 when the vector runs along k (K16), 0 when along x (X16) or a single float. */
LAY_HD static inline int p4_copy_along_k(int mode) { return mode == P4_COPY_K16; }

/* The transposed smem tile sX (BLK_X,BLK_K):(1,BLK_X+P4_PAD), in floats. */
LAY_HD static inline lay_layout p4_smem_layout(int blk_x, int blk_k) {
    return lay_l2(blk_x, blk_k, 1, blk_x + P4_PAD);
}

/* The gmem tile gX (BLK_X,BLK_K):(sx,sk), in floats: sx = ld, sk = 1 for a K-major operand,
 * sx = 1, sk = ld for an x-major one (ld < P4_MAX_LD: offsets inside a tile fit 32 bits). */
LAY_HD static inline lay_layout p4_gmem_layout(int blk_x, int blk_k, int sx, int sk) {
    return lay_l2(blk_x, blk_k, sx, sk);
}

/* Coordinate (x,k) of element j (0..VEC-1) of vector v of thread t (lay_tiled_copy_crd). */
LAY_HD static inline void p4_copy_crd(int mode, int blk_x, int blk_k, int nthr, int t, int j, int v,
                                      int *x, int *k) {
    lay_tiled_copy_crd(p4_copy(mode, blk_x, blk_k, nthr), blk_x, blk_k, t, j, v, x, k);
}

/* Thread tid's part of the copy of a tile with strides (s0, s1) (lay_tiled_copy_base /
 * lay_tiled_copy_at): the base, its element 0's offset, and element i relative to it (j + VEC*v
 * for element j of vector v), the same for every thread: a constant for a constant i. With the
 * smem tile's strides this gives smem offsets; with an identity tile's, (1,0) or (0,1), each
 * element's x or k (the predicates, CuTe's identity tensors); with the gmem tile's, gmem
 * offsets. */
LAY_HD static inline lay_off p4_copy_base(int mode, int blk_x, int blk_k, int nthr, lay_off s0,
                                          lay_off s1, int tid) {
    return lay_tiled_copy_base(p4_copy(mode, blk_x, blk_k, nthr), s0, s1, tid);
}
LAY_HD static inline lay_off p4_copy_at(int mode, int blk_x, int blk_k, int nthr, lay_off s0,
                                        lay_off s1, int i) {
    return lay_tiled_copy_at(p4_copy(mode, blk_x, blk_k, nthr), blk_x, s0, s1, i);
}

/* ---- compute partition: an FFMA atom tiled over warps and the warp tile ------------------
 * The 32 lanes of a warp are a (LANES_M, LANES_N) = (WARP_M/THR_M, WARP_N/THR_N) grid, row-major;
 * lane (lm, ln) owns a 4x4 block of C at (4 lm, 4 ln): together one (4 LANES_M, 4 LANES_N) atom
 * (lay_mma_atom_fma). A warp tile is (THR_M/4) x (THR_N/4) such atoms, at multiples of
 * 4 LANES_M / 4 LANES_N; warp w sits at (w / WARPS_N, w % WARPS_N) of the CTA tile. So for one
 * atom the 32 lanes read 4 consecutive floats each from sA / sB: lanes with the same lm share
 * (broadcast) one float4 of sA, and the LANES_N different float4s of sB are contiguous: no
 * bank conflicts. */
typedef struct {
    int blk_m, blk_n, blk_k, warp_m, warp_n, thr_m, thr_n;
} p4_cfg;

LAY_HD static inline lay_tiled_mma p4_mma(p4_cfg c) {
    const int lanes_m = c.warp_m / c.thr_m, lanes_n = c.warp_n / c.thr_n;
    const int warps_m = c.blk_m / c.warp_m, warps_n = c.blk_n / c.warp_n;
    return lay_make_tiled_mma(lay_mma_atom_fma(lanes_m, lanes_n, 4, 4),
                              lay_l2(warps_m, warps_n, warps_n, 1), c.thr_m / 4, c.thr_n / 4,
                              c.blk_k);
}

/* Thread tid's compute partition (lay_tiled_mma_base_* / lay_tiled_mma_at_*) of one of four
 * tiles: P4_FRAG_A the smem tile sA (BLK_M,BLK_K):(1,BLK_M+P4_PAD), P4_FRAG_B sB, P4_FRAG_CM /
 * P4_FRAG_CN the identity tiles (BLK_M,BLK_N):(1,0) / (0,1) (the m / n of each accumulator):
 * the thread's base (value 0), and value v relative to it, the same for every thread (a
 * constant for a constant v). Values: p4_a_val, p4_b_val, p4_c_val. t is p4_mma(c), built
 * once by the caller. */
enum { P4_FRAG_A = 0, P4_FRAG_B = 1, P4_FRAG_CM = 2, P4_FRAG_CN = 3 };
LAY_HD static inline int p4_frag_base(const lay_tiled_mma *t, p4_cfg c, int which, int tid) {
    if (which == P4_FRAG_A) return (int)lay_tiled_mma_base_a(t, 1, c.blk_m + P4_PAD, tid);
    if (which == P4_FRAG_B) return (int)lay_tiled_mma_base_b(t, 1, c.blk_n + P4_PAD, tid);
    if (which == P4_FRAG_CM) return (int)lay_tiled_mma_base_c(t, 1, 0, tid);
    return (int)lay_tiled_mma_base_c(t, 0, 1, tid);
}
LAY_HD static inline int p4_frag_at(const lay_tiled_mma *t, p4_cfg c, int which, int v) {
    if (which == P4_FRAG_A) return (int)lay_tiled_mma_at_a(t, 1, c.blk_m + P4_PAD, v);
    if (which == P4_FRAG_B) return (int)lay_tiled_mma_at_b(t, 1, c.blk_n + P4_PAD, v);
    if (which == P4_FRAG_CM) return (int)lay_tiled_mma_at_c(t, 1, 0, v);
    return (int)lay_tiled_mma_at_c(t, 0, 1, v);
}

/* Fragment value indices (the colex order of lay_tiled_mma_*_crd): row i (0..THR_M-1) of the
 * thread tile at k, A value 4*((i/4) + (THR_M/4)*k) + i%4; likewise B; accumulator (i, j). */
LAY_HD static inline int p4_a_val(int thr_m, int i, int k) {
    return i % 4 + 4 * (i / 4 + (thr_m / 4) * k);
}
LAY_HD static inline int p4_b_val(int thr_n, int j, int k) {
    return j % 4 + 4 * (j / 4 + (thr_n / 4) * k);
}
LAY_HD static inline int p4_c_val(int thr_m, int i, int j) {
    return i % 4 + 4 * (j % 4) + 16 * (i / 4 + (thr_m / 4) * (j / 4));
}

#endif /* LESSON04_PLAN_H */

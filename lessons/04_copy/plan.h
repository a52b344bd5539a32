/* plan.h - lesson 04's tile constants and thread partitions, shared by the kernel (gemm.cu)
 * and the CPU test (tests/test_plans_0304.c), so the test proves the partitions the kernel
 * really uses. Plain C: compiles with gcc (host) and nvcc (host + device).
 *
 * Names (see DESIGN.md): x is the row mode of an operand tile (M for A, N for B), BLK_X its
 * size (BLK_M or BLK_N); k the reduction mode. Shared memory holds every operand tile
 * TRANSPOSED, as (BLK_K, BLK_X) with x contiguous and each k row padded by P4_PAD floats:
 *     sX[k * (BLK_X + P4_PAD) + x]                                   // (BLK_X,BLK_K)
 * so the inner product loop reads 4 consecutive x (one float4) per LDS.128.
 */
#ifndef LESSON04_PLAN_H
#define LESSON04_PLAN_H

#ifdef __CUDACC__
#define P4_HD static inline __host__ __device__
#else
#define P4_HD static inline
#endif

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

#define CFG_N256_BLK_M 128 /* 128x256x8, warp 64x64, 16x8/thread, 3 stages: no variant (it
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
P4_HD void p4_tile_coord(int id, int tiles_m, int tiles_n, int *tile_m, int *tile_n) {
    const int per_group = P4_GROUP_M * tiles_n;
    const int first_m = (id / per_group) * P4_GROUP_M;
    const int group_m = tiles_m - first_m < P4_GROUP_M ? tiles_m - first_m : P4_GROUP_M;
    *tile_m = first_m + (id % per_group) % group_m;
    *tile_n = (id % per_group) / group_m;
}

/* ---- copy partitions (the TV layouts of the tiled copies) --------------------------------
 * A tile (BLK_X,BLK_K) is cut into vectors of VEC = 1 or 4 floats. Vector number e (0 ..
 * BLK_X*BLK_K/VEC - 1) is moved by thread e % NTHR as its value e / NTHR: the thread layout is
 * "consecutive e -> consecutive threads", the value layout "repeat every NTHR vectors". The
 * mode says how e maps to the (x,k) coordinate of the vector's first element:
 *   P4_COPY_K4   1 float, gmem K-major (k contiguous) -> transposed smem (cp.async 4 B):
 *                e = k_lo + 8*(x + BLK_X*k_hi), k = k_lo + 8*k_hi: a warp reads 4 rows x 8 k
 *                (four 32-byte sectors) and writes 32 different banks.
 *   P4_COPY_K16  4 floats along k, gmem K-major, read as one LDG.128, stored as 4 scalars
 *                (synchronous path only: cp.async cannot transpose): e = kv + (BLK_K/4)*x.
 *   P4_COPY_X16  4 floats along x, gmem x-major (M- or N-contiguous): e = xv + (BLK_X/4)*k,
 *                x = 4*xv: cp.async 16 B, a warp moves 512 contiguous bytes.
 *   P4_COPY_X4   1 float along x, gmem x-major but not 16-byte aligned: e = x + BLK_X*k. */
enum { P4_COPY_K4 = 0, P4_COPY_K16 = 1, P4_COPY_X16 = 2, P4_COPY_X4 = 3, P4_NCOPY = 4 };

P4_HD int p4_copy_vec(int mode) { return (mode == P4_COPY_K16 || mode == P4_COPY_X16) ? 4 : 1; }

/* 1 when the vector runs along k (K16), 0 when along x (X16) or a single float. */
P4_HD int p4_copy_along_k(int mode) { return mode == P4_COPY_K16; }

/* Vectors each thread moves per k_tile. */
P4_HD int p4_copy_count(int mode, int blk_x, int blk_k, int nthr) {
    return blk_x * blk_k / p4_copy_vec(mode) / nthr;
}

/* Coordinate (x,k) of the first element of value v of thread t. */
P4_HD void p4_copy_coord(int mode, int blk_x, int blk_k, int nthr, int t, int v, int *x,
                         int *k) {
    const int e = t + nthr * v;
    switch (mode) {
    case P4_COPY_K4:
        *k = (e % 8) + 8 * (e / (8 * blk_x));
        *x = (e / 8) % blk_x;
        break;
    case P4_COPY_K16:
        *k = 4 * (e % (blk_k / 4));
        *x = e / (blk_k / 4);
        break;
    case P4_COPY_X16:
        *x = 4 * (e % (blk_x / 4));
        *k = e / (blk_x / 4);
        break;
    default: /* P4_COPY_X4 */
        *x = e % blk_x;
        *k = e / blk_x;
        break;
    }
}

/* Offset in floats of element (x,k) in a transposed smem tile sX (BLK_K, BLK_X+P4_PAD). */
P4_HD int p4_smem_offset(int blk_x, int x, int k) { return k * (blk_x + P4_PAD) + x; }

/* ---- compute partition (who owns which C element) ---------------------------------------
 * Warp w sits at (warp_m, warp_n) = (w / WARPS_N, w % WARPS_N) of the CTA tile; lane l at
 * (lane_m, lane_n) = (l / LANES_N, l % LANES_N) of the warp tile. A thread's THR_M x THR_N
 * block is (THR_M/4) x (THR_N/4) chunks of 4x4; chunk (cm,cn) starts at
 *     m = warp_m*WARP_M + cm*(LANES_M*4) + lane_m*4,  n = warp_n*WARP_N + cn*(LANES_N*4) + lane_n*4
 * so for a fixed chunk the 32 lanes read 4 consecutive floats each from sA / sB: lanes with the
 * same lane_m share (broadcast) one float4 of sA, and the LANES_N different float4s of sB are
 * contiguous: no bank conflicts. Register i (0..THR_M-1) of the thread is row
 * (i/4)*(LANES_M*4) + i%4 of its chunks, likewise for columns. */
P4_HD void p4_thr_c_coord(int blk_n, int warp_m_sz, int warp_n_sz, int thr_m, int thr_n, int t,
                          int i, int j, int *m, int *n) {
    const int warps_n = blk_n / warp_n_sz;
    const int lanes_n = warp_n_sz / thr_n, lanes_m = warp_m_sz / thr_m;
    const int w = t / 32, l = t % 32;
    const int wm = w / warps_n, wn = w % warps_n;
    const int lm = l / lanes_n, ln = l % lanes_n;
    *m = wm * warp_m_sz + (i / 4) * (lanes_m * 4) + lm * 4 + i % 4;
    *n = wn * warp_n_sz + (j / 4) * (lanes_n * 4) + ln * 4 + j % 4;
}

#endif /* LESSON04_PLAN_H */

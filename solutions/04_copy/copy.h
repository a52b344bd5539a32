/* copy.h - lesson 04 assignment, part 1: the tiled copy of one k_tile as TV layouts.
 *
 * Staff solution. GEMM-COURSE-SOLUTION (make handout leaves solutions/ out)
 *
 * YOU WRITE ex04_tv_4byte and ex04_tv_16byte (TODO 1). kernel.cu copies every k_tile through
 * them, and the CPU grader (tests/test_exercise_04.c) checks the very same layouts without a
 * GPU: every element copied once, a warp's global reads coalesced, its shared-memory stores
 * free of bank conflicts, 16-byte vectors 16-byte aligned.
 *
 * The configuration is that of the lesson's `cp_async_2stage` variant: a CTA of 256 threads
 * computes a (BLK_M,BLK_N) = (128,128) tile of C from k_tiles of BLK_K = 8, in a pipeline of
 * 2 shared-memory stages (double buffering). Each operand tile, (BLK_X,BLK_K) with BLK_X = 128
 * (x is m for A, n for B), is stored in shared memory TRANSPOSED, x contiguous:
 *     sX(x,k) = sX[k * EX04_PITCH + x]                                    (BLK_X,BLK_K)
 * so the compute loop reads 4 neighbouring x as one float4 whatever the operand's order.
 *
 * A TV layout maps (thread, value) to what that thread moves as its value-th copy. Here its
 * 1-D input is t + EX04_NTHR * v (thread t = 0..255, value v = 0, 1, ...) and its output is
 * the TILE INDEX x + BLK_X * k of the first float of the copy (colexicographic in the
 * (BLK_X,BLK_K) tile); ex04_tile_xk turns a tile index into (x,k). Example: the layout
 * (256,4):(1,256) sends thread t's value v to tile index t + 256 v, i.e. x = t % 128,
 * k = t / 128 + 2 v.
 *
 * Plain C over common/layout.h: compiles with gcc (the CPU grader) and nvcc (the kernel).
 */
#ifndef EX04_COPY_H
#define EX04_COPY_H

#include "layout.h"

#ifdef __CUDACC__
#define EX04_INLINE static __host__ __device__ __forceinline__
#else
#define EX04_INLINE static inline
#endif

#define EX04_BLK_M 128
#define EX04_BLK_N 128
#define EX04_BLK_X 128 /* BLK_M = BLK_N: one copy layout serves A and B */
#define EX04_BLK_K 8
#define EX04_NTHR 256
#define EX04_STAGES 2
#define EX04_PAD 4                          /* floats of padding per k row of a smem tile */
#define EX04_PITCH (EX04_BLK_X + EX04_PAD)  /* floats per k row of a smem tile */
#define EX04_TILE_FLOATS (EX04_BLK_K * EX04_PITCH) /* one stage of one operand */
#define EX04_NV4 (EX04_BLK_X * EX04_BLK_K / EX04_NTHR)       /* 4-byte copies per thread: 4 */
#define EX04_NV16 (EX04_BLK_X * EX04_BLK_K / 4 / EX04_NTHR)  /* 16-byte copies per thread: 1 */

/* (x,k) of tile index i = x + BLK_X * k (0 <= i < BLK_X * BLK_K). Unsigned 32-bit on purpose:
 * lay_off is a signed 64-bit value, whose division by 128 costs a dozen instructions where
 * an unsigned int's costs one shift. */
EX04_INLINE void ex04_tile_xk(lay_off i, int *x, int *k) {
    const unsigned u = (unsigned)i;
    *x = (int)(u % EX04_BLK_X);
    *k = (int)(u / EX04_BLK_X);
}

/* Offset in floats of (x,k) in a transposed smem tile. */
EX04_INLINE int ex04_smem_offset(int x, int k) { return k * EX04_PITCH + x; }

/* TODO 1a. The TV layout of the 4-byte copy (one float per cp.async, EX04_NV4 values per
 * thread), for a K-major operand (kmajor = 1: gmem element (x,k) at x*ld + k) or an x-major one
 * (kmajor = 0: at x + k*ld). What it must do (each is a check of the rubric):
 *   - the EX04_NTHR * EX04_NV4 copies cover every element of the tile once;
 *   - the 32 lanes of a warp, at one value v, read as few 32-byte sectors of global memory as
 *     32 floats can take: they must walk the operand's CONTIGUOUS mode (k when K-major);
 *   - their 32 stores into the transposed smem tile hit 32 different banks.
 * Make the two layouts differ in their strides only, not in their shapes, and write them as
 * ONE lay_l3 (or lay_l2) call whose strides depend on kmajor: the kernel picks kmajor at run
 * time, and a layout whose structure is fixed folds to plain index arithmetic. (A choice
 * between two whole layouts, kmajor ? lay_l3(...) : lay_l3(...), is just as correct, but
 * nvcc then keeps the layout structs at run time: a k loop twice as long.)
 * Tile index = x + 128 k; a warp reads 4 rows x 8 k when K-major. */
EX04_INLINE lay_layout ex04_tv_4byte(int kmajor) {
    /* Thread t = t0 + 8 t1 (t0 < 8, t1 < 32), value v < 4.
     * K-major: lanes 8 apart walk k: x = t1 + 32 v, k = t0 -> a warp reads 4 rows x 8 k (four
     *   32-byte sectors); smem bank (4k + x) % 32 is different for its 32 lanes (pitch 132).
     *   Tile index x + 128 k = 128 t0 + t1 + 32 v:  (8,32,4):(128,1,32).
     * x-major: the thread index walks x: tile index t + 256 v = t0 + 8 t1 + 256 v:
     *   (8,32,4):(1,8,256), x = t % 128: 32 contiguous floats per warp, 32 banks. */
    return lay_l3(8, 32, 4, kmajor ? 128 : 1, kmajor ? 1 : 8, kmajor ? 32 : 256);
}

/* TODO 1b. The TV layout of the 16-byte copy (4 floats along x per cp.async, EX04_NV16 value
 * per thread), for x-major operands whose ld and base allow 16-byte vectors: its output is the
 * tile index of the first of the 4 floats, which must be 16-byte aligned (x a multiple of 4).
 * Every element once; a warp reads 512 contiguous bytes where it can. */
EX04_INLINE lay_layout ex04_tv_16byte(void) {
    /* one vector per thread: x = 4 (t % 32), k = t / 32; a warp moves one whole k row of the
     * tile (512 contiguous bytes of gmem, 512 of smem); tile index 4 (t % 32) + 128 (t / 32) */
    return lay_l2(32, 8, 4, 128); /* (32,8):(4,128) */
}

#endif /* EX04_COPY_H */

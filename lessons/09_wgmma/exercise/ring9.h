/* ring9.h - lesson 09 assignment, part 1: the arithmetic of the mbarrier ring, and the wgmma
 * shared-memory descriptor.
 *
 * YOU WRITE the five functions of the ring (TODO 1a-1e) and the descriptor of a 128-byte-
 * swizzled K-major tile with its step along K (TODO 2a, 2b). kernel.cu runs its producer and
 * its consumers on exactly these functions; the CPU grader (tests/test_exercise_09.c) checks
 * the very same functions without a GPU: a model of the mbarriers plays the producer, the
 * TMA copies and the consumer warpgroups against each other in adversarial orders, for 2 to 6
 * stages and 1 to 40 K tiles, and it decodes your descriptors as the PTX ISA says the hardware
 * does and compares the address of every element with the tile that TMA writes (plan.h).
 *
 * The configuration is that of the lesson's `ws_2wg_4stage` variant: one producer warpgroup
 * (its thread 0 issues every TMA load) and two consumer warpgroups; a CTA computes a
 * (BLK_M,BLK_N) = (128,256) tile of C from K tiles of BLK_K = 64, consumer c the rows
 * 64c .. 64c+63 with one wgmma m64n256k16 per 16 elements of K; a ring of STAGES = 4 smem
 * stages, each an A tile (128,64) and a B tile (256,64) of 16-bit elements, K-major, rows of
 * 128 bytes, 128-byte swizzled (p9_smem_tile_bytes in plan.h), on 1024-byte boundaries.
 *
 * Plain C over common/layout.h and lesson 09's plan.h: compiles with gcc (the CPU grader) and
 * nvcc (the kernel).
 */
#ifndef EX09_RING9_H
#define EX09_RING9_H

#include <stdint.h>

#include "layout.h"
#include "plan.h"

#ifdef __CUDACC__
#define EX09_INLINE static __host__ __device__ __forceinline__
#else
#define EX09_INLINE static inline
#endif

#define EX09_CONSUMERS 2                         /* consumer warpgroups */
#define EX09_STAGES 4                            /* smem stages of the ring */
#define EX09_BLK_M (EX09_CONSUMERS * P9_WG_M)    /* 128: rows of C per CTA */
#define EX09_BLK_N P9_BLK_N                      /* 256 */
#define EX09_BLK_K P9_BLK_K                      /* 64: one 128-byte row per K tile */
#define EX09_THREADS (128 * (1 + EX09_CONSUMERS)) /* the producer warpgroup + the consumers */
#define EX09_A_BYTES (EX09_BLK_M * P9_ROW_BYTES) /* one stage's A tile: 16 KiB */
#define EX09_B_BYTES (EX09_BLK_N * P9_ROW_BYTES) /* one stage's B tile: 32 KiB */
#define EX09_STAGE_BYTES (EX09_A_BYTES + EX09_B_BYTES)

#define EX09_TODO (-1) /* "not answered yet" */

/* The ring. K-iteration `it` (= K tile it: one CTA computes one tile of C) goes through one
 * stage; the producer (thread 0 of warpgroup 0) and the consumers (warpgroups 1 and 2) run
 * (kernel.cu, TODOs 3 and 4), with s = ex09_stage(it, STAGES):
 *     producer, it = 0 .. ktiles-1:
 *         mbarrier wait  empty[s] parity ex09_empty_parity(it, STAGES)   the stage is free
 *         arrive.expect_tx(full[s], STAGE_BYTES); TMA A tile, TMA B tile -> stage s, on full[s]
 *     each consumer warpgroup, it = 0 .. ktiles-1:
 *         mbarrier wait  full[s] parity ex09_full_parity(it, STAGES)     the tile has landed
 *         wgmma.fence; 4 x wgmma m64n256k16 reading stage s; wgmma.commit_group
 *         wgmma.wait_group 1       the group of iteration it-1 has finished reading its stage
 *         it > 0: lane 0 of each of its 4 warps arrives on empty[ex09_release_stage(it, STAGES)]
 *     each consumer, after the loop: wgmma.wait_group 0; release the last iteration's stage.
 * full[s] is initialized with 1 arrival (the producer's expect_tx, which also adds the bytes
 * the TMA copies must bring), empty[s] with ex09_empty_arrivals(CONSUMERS). An mbarrier's
 * phases are 0, 1, 2, ...; `try_wait.parity p` returns true once the phase of parity p before
 * the current one has completed, i.e. while the current phase's parity is not p: a fresh
 * barrier (current phase 0) answers true for parity 1 (PTX ISA 9.7.13.15, mbarrier.test_wait
 * / try_wait). The functions take the number of stages as an argument so that the grader can
 * play rings of 2 to 6 stages; the kernel passes EX09_STAGES (constant: they fold). */

/* TODO 1a. The stage (0 .. stages-1) that K-iteration it loads into and reads from. */
EX09_INLINE int ex09_stage(int it, int stages) {
    (void)it, (void)stages; /* delete when used */
    return EX09_TODO;
}

/* TODO 1b. The parity a consumer waits for on full[ex09_stage(it)] in iteration it: the
 * stage's (it / stages)-th use completes the barrier's phase number it / stages. */
EX09_INLINE int ex09_full_parity(int it, int stages) {
    (void)it, (void)stages; /* delete when used */
    return EX09_TODO;
}

/* TODO 1c. The parity the producer waits for on empty[ex09_stage(it)] before it refills the
 * stage in iteration it: the phase the consumers completed when they released the stage's
 * previous use, it / stages - 1; for the first use that is "the phase before phase 0", which a
 * fresh barrier counts as complete. */
EX09_INLINE int ex09_empty_parity(int it, int stages) {
    (void)it, (void)stages; /* delete when used */
    return EX09_TODO;
}

/* TODO 1d. The stage a consumer releases in iteration it >= 1, right after
 * wgmma.wait_group 1 (which leaves this iteration's group in flight and guarantees that the
 * previous iteration's group has finished reading its operands). */
EX09_INLINE int ex09_release_stage(int it, int stages) {
    (void)it, (void)stages; /* delete when used */
    return EX09_TODO;
}

/* TODO 1e. The arrival count empty[s] is initialized with: one arrival by lane 0 of every warp
 * of every consumer warpgroup that reads the stage (all `consumers` of them). */
EX09_INLINE int ex09_empty_arrivals(int consumers) {
    (void)consumers; /* delete when used */
    return EX09_TODO;
}

/* The wgmma shared-memory matrix descriptor (PTX ISA 9.7.15.5.1, "Matrix Descriptor Format"),
 * 64 bits:
 *   bits  0-13  matrix start address: (addr & 0x3FFFF) >> 4
 *   bits 16-29  leading dimension byte offset >> 4 (K-major with a swizzle: the distance
 *               between swizzle atoms along K; a wgmma's 16 elements of K (32 bytes) lie
 *               inside one 128-byte row, so the hardware does not use it: 1 by convention)
 *   bits 32-45  stride dimension byte offset >> 4: from one group of 8 rows to the next
 *   bits 49-51  matrix base offset (0 when the swizzle pattern starts on a 1024-byte boundary)
 *   bits 62-63  swizzle mode: 0 none, 1 128-byte, 2 64-byte, 3 32-byte
 *   every other bit 0.
 * The hardware forms the address of row r (0 .. 63 of A, 0 .. 255 of B) and byte b (0 .. 31)
 * of the 16-element K slice as  start + 128 (r % 8) + SBO (r / 8) + b  and then applies the
 * 128-byte swizzle to it (address bits [4,7) ^= bits [7,10)): the tile's swizzle, since TMA
 * wrote it on a 1024-byte boundary. */

/* TODO 2a. The descriptor of the 128-byte-swizzled K-major tile (rows of 128 bytes, 8-row
 * groups 1024 bytes apart) that starts at shared-window byte address addr (1024-aligned), for
 * its first 16 elements of K. */
EX09_INLINE uint64_t ex09_desc_sw128(uint32_t addr) {
    (void)addr; /* delete when used */
    return 0;   /* not written yet */
}

/* TODO 2b. What to add to the descriptor for the next 16 elements of K (k step kk of a K tile
 * is ex09_desc_sw128(tile) + kk * ex09_desc_kstep()). */
EX09_INLINE int ex09_desc_kstep(void) { return EX09_TODO; }

#endif /* EX09_RING9_H */

/* plan.h - the index arithmetic of lesson 08, shared by the kernel (gemm.cu), the CPU tests
 * (tests/test_plans_0506.c) and the bank-conflict tool (bank_conflicts.c).
 *
 * Plain C (C11 and CUDA C): every function is `static inline` and host+device, so the kernel
 * and the tests run the very same formulas. Nothing here allocates or loops at run time in
 * the kernel: all arguments are compile-time constants or lane/thread indices.
 *
 * Contents
 *   1. mma.sync m16n8k16 fragments: which (row, col) each lane/value holds
 *      (PTX ISA 9.7.14.5.8 "Matrix Fragments for mma.m16n8k16 with floating point type").
 *   2. ldmatrix: which row each lane addresses and which elements each lane receives
 *      (PTX ISA 9.7.14.5.15 "Warp-level matrix load instruction: ldmatrix").
 *   3. The swizzled shared-memory layout of one (ROWS, BLK_K) tile of halves.
 *   4. The gmem -> smem copy partition (thread -> 16-byte chunk).
 *   5. CTA rasterization (grouped launch order for L2 reuse).
 *   6. A bank model: shared-memory wavefronts of one warp-wide access (host tool and tests).
 *   7. The epilogue's C staging block: where each lane writes its MMA results, and which
 *      16-byte chunk each lane copies out.
 */
#ifndef LESSON08_PLAN_H
#define LESSON08_PLAN_H

#ifdef __CUDACC__
#define PLAN_HD __host__ __device__
#else
#define PLAN_HD
#endif

/* ---- 1. mma.m16n8k16 fragments (lane 0..31; g = lane/4, t = lane%4) ------------------- */

/* A (16 x 16, M x K): value i = 0..7 (a0..a7, two per 32-bit register).
 * rows g for a0,a1,a4,a5 and g+8 for a2,a3,a6,a7; cols 2t + (i&1), +8 for i >= 4. */
static inline PLAN_HD int plan_mma_a_row(int lane, int i) { return lane / 4 + ((i / 2) % 2) * 8; }
static inline PLAN_HD int plan_mma_a_col(int lane, int i) { return 2 * (lane % 4) + (i % 2) + (i / 4) * 8; }

/* B (16 x 8, K x N): value i = 0..3 (b0..b3). k = 2t + (i&1), +8 for i >= 2; n = g. */
static inline PLAN_HD int plan_mma_b_k(int lane, int i) { return 2 * (lane % 4) + (i % 2) + (i / 2) * 8; }
static inline PLAN_HD int plan_mma_b_n(int lane, int i) { (void)i; return lane / 4; }

/* C/D (16 x 8, M x N): value i = 0..3 (c0..c3). row g (c0,c1) or g+8 (c2,c3); col 2t+(i&1). */
static inline PLAN_HD int plan_mma_c_row(int lane, int i) { return lane / 4 + (i / 2) * 8; }
static inline PLAN_HD int plan_mma_c_col(int lane, int i) { return 2 * (lane % 4) + (i % 2); }

/* ---- 2. ldmatrix ---------------------------------------------------------------------- */

/* What ldmatrix (no .trans) delivers: in register q (matrix q), lane l receives row l/4 and
 * columns 2(l%4), 2(l%4)+1 (value j = 0,1) of that 8x8 matrix. */
static inline PLAN_HD int plan_ldsm_recv_row(int lane) { return lane / 4; }
static inline PLAN_HD int plan_ldsm_recv_col(int lane, int j) { return 2 * (lane % 4) + j; }

/* Which row address lane l supplies for ldmatrix.x4 (lanes 8q..8q+7 give rows 0..7 of
 * matrix q), expressed as (row, 8-column chunk) inside the operand's 16 x 16 block:
 *   A block (16 rows of M, 16 of K): row l%16, chunk l/16
 *       -> matrices (m0-7,k0-7) (m8-15,k0-7) (m0-7,k8-15) (m8-15,k8-15) = a0a1 a2a3 a4a5 a6a7
 *   B block (16 rows of N, 16 of K), two n8 atoms j and j+1: row (l%8) + 8(l/16), chunk (l/8)%2
 *       -> matrices (n0-7,k0-7) (n0-7,k8-15) (n8-15,k0-7) (n8-15,k8-15)
 *        = b0b1 and b2b3 of atom j, then b0b1 and b2b3 of atom j+1 */
static inline PLAN_HD int plan_ldsm_a_row(int lane) { return lane % 16; }
static inline PLAN_HD int plan_ldsm_a_chunk(int lane) { return lane / 16; }
static inline PLAN_HD int plan_ldsm_b_row(int lane) { return lane % 8 + 8 * (lane / 16); }
static inline PLAN_HD int plan_ldsm_b_chunk(int lane) { return (lane / 8) % 2; }

/* ---- 3. swizzled smem tile ------------------------------------------------------------ */

/* Swizzle<B,M,S> on an offset o: XOR the B bits at [M, M+B) with the B bits at [M+S, M+S+B).
 * Here offsets count half elements (2 bytes), M = 3 (8 halves = one 16-byte chunk keeps its
 * order inside), S = 3, and B = log2(chunks per row): the 16-byte chunk index inside a row is
 * XORed with the row index (divided so that one "row" of the XOR is 128 bytes). */
static inline PLAN_HD int plan_swizzle(int o, int b, int m, int s) {
    const int mask = ((1 << b) - 1) << (m + s);
    return o ^ ((o & mask) >> s);
}

/* B bits for a tile whose rows are blk_k halves long: blk_k = 32 -> Swizzle<2,3,3>
 * (64-byte rows, chunk ^= (row/2)%4), blk_k = 64 -> Swizzle<3,3,3> (128-byte rows,
 * chunk ^= row%8). Both map the 8 rows an ldmatrix phase reads onto 8 different 16-byte
 * bank groups. */
static inline PLAN_HD int plan_swizzle_bits(int blk_k) { return blk_k == 64 ? 3 : 2; }

/* Offset in halves of element (row, col) of a (rows, blk_k) tile stored row-major, swizzled
 * (swz = 1) or plain (swz = 0); pad adds halves to every row (the padded layout, swz = 0). */
static inline PLAN_HD int plan_smem_offset(int row, int col, int blk_k, int swz, int pad) {
    const int o = row * (blk_k + pad) + col;
    return swz ? plan_swizzle(o, plan_swizzle_bits(blk_k), 3, 3) : o;
}

/* ---- 4. gmem -> smem copy partition --------------------------------------------------- */

/* Copy i of thread tid moves 16-byte chunk idx = tid + i*nthreads of the tile:
 * row idx / (blk_k/8), chunk idx % (blk_k/8). Consecutive threads take consecutive chunks of a
 * row, so a warp reads whole 64- or 128-byte row segments from global memory. */
static inline PLAN_HD int plan_copy_row(int tid, int i, int nthreads, int blk_k) {
    return (tid + i * nthreads) / (blk_k / 8);
}
static inline PLAN_HD int plan_copy_chunk(int tid, int i, int nthreads, int blk_k) {
    return (tid + i * nthreads) % (blk_k / 8);
}

/* ---- 5. CTA rasterization ------------------------------------------------------------- */

/* Linear CTA id -> (tile_m, tile_n). CTAs are launched in groups of `group` tile rows: within
 * a group the id walks down the group's rows first, then across N. CTAs running together then
 * share a few A row panels and a few B column panels, which stay in L2. A bijection from
 * [0, tiles_m*tiles_n) onto the tile grid (the last group may be shorter). */
static inline PLAN_HD void plan_raster(int bid, int tiles_m, int tiles_n, int group, int *tm,
                                       int *tn) {
    const int per_group = group * tiles_n;
    const int first_m = (bid / per_group) * group;
    const int rows = tiles_m - first_m < group ? tiles_m - first_m : group;
    const int in = bid % per_group;
    *tm = first_m + in % rows;
    *tn = in / rows;
}

/* ---- 6. bank model -------------------------------------------------------------------- */

/* Shared memory has 32 banks of 4 bytes. A warp-wide access of 16 bytes per lane is served
 * in phases of 8 lanes (128 bytes each): ldmatrix.x4 phase q = the 8 row addresses of matrix
 * q (lanes 8q..8q+7); a 16-byte store (cp.async) phase q = lanes 8q..8q+7. A phase needs as
 * many wavefronts as the largest number of distinct 4-byte words any one bank must serve.
 * plan_wavefronts returns the total number of wavefronts for the 32 byte addresses `addr`
 * (each the start of a 16-byte access); the ideal is 4, and result - 4 is the number of
 * extra wavefronts (bank conflicts). */
static inline int plan_wavefronts(const int addr[32]) {
    int total = 0;
    for (int q = 0; q < 4; ++q) {
        int words[32][32]; /* per bank, distinct word addresses seen in this phase */
        int count[32] = {0};
        int worst = 1;
        for (int l = 8 * q; l < 8 * q + 8; ++l)
            for (int w = 0; w < 4; ++w) {
                const int word = addr[l] / 4 + w;
                const int bank = word % 32;
                int seen = 0;
                for (int k = 0; k < count[bank]; ++k) seen |= words[bank][k] == word;
                if (!seen) words[bank][count[bank]++] = word;
                if (count[bank] > worst) worst = count[bank];
            }
        total += worst;
    }
    return total;
}

/* Wavefronts of a warp-wide 4-byte access (st.shared.b32 / ld.shared.b32): one phase of all
 * 32 lanes; the most distinct words any one bank must serve. The ideal is 1. */
static inline int plan_wavefronts32(const int addr[32]) {
    int words[32][32];
    int count[32] = {0};
    int worst = 1;
    for (int l = 0; l < 32; ++l) {
        const int word = addr[l] / 4, bank = word % 32;
        int seen = 0;
        for (int k = 0; k < count[bank]; ++k) seen |= words[bank][k] == word;
        if (!seen) words[bank][count[bank]++] = word;
        if (count[bank] > worst) worst = count[bank];
    }
    return worst;
}

/* ---- 7. epilogue: C staging block of one warp ----------------------------------------- */

/* Each warp owns a (wtm, wtn) block of C halves in smem, row-major with rows wtn + pad long.
 * pad = 8 halves (16 bytes) in the kernel: a warp's 4-byte store of one MMA atom's C
 * fragment covers rows g = 0..7 and words t = 0..3, and with a row of wtn + 8 halves (a
 * multiple of 32 words plus 4) row g starts 4g banks further on: all 32 words in different
 * banks. Without the pad all 8 rows start in the same bank (8-way conflict). */
static inline PLAN_HD int plan_cstage_offset(int row, int col, int wtn, int pad) {
    return row * (wtn + pad) + col;
}

/* Copy-out: pass `it` of lane l moves the 16-byte chunk (row, col) of the staging block to C,
 * wtn/8 lanes per row, 32/(wtn/8) rows per pass: a warp store writes whole rows of the warp
 * tile (128 bytes each for wtn = 64), and each 8-lane phase of the smem read is one row. */
static inline PLAN_HD int plan_cstage_out_row(int it, int lane, int wtn) {
    return it * (32 / (wtn / 8)) + lane / (wtn / 8);
}
static inline PLAN_HD int plan_cstage_out_col(int lane, int wtn) { return 8 * (lane % (wtn / 8)); }

#endif /* LESSON08_PLAN_H */

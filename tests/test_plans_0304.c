/* test_plans_0304.c - CPU proofs for lessons 03 (tiled) and 04 (copy), Criterion.
 *
 * Both lessons keep their tile constants and partition functions in a plan.h that the kernel
 * includes too, so these tests check the partitions the kernels really use:
 *   lesson 03: the layouts built with common/layout.h (lay_local_partition of the smem tiles by
 *     the copy thread layouts tA/tB for both operand majornesses, and of the C tile by tC);
 *     the identity-tensor predicates give each element's true coordinate, also for a CTA on
 *     the ragged edge of a problem whose sizes are not tile multiples;
 *   lesson 04: the tiled copies and the compute partition are layouts (plan.h: p4_copy,
 *     p4_mma); for every tile configuration (every variant) and every copy mode, every
 *     element of sA / sB is written exactly once per k_tile, the 4-byte transposing copy is
 *     bank-conflict free, 16-byte vectors are 16-byte aligned in smem, every element of the C
 *     tile is owned by exactly one thread, the base + constant forms the kernels use equal the
 *     coordinates, and the plain trip counts equal the layouts' sizes.
 *
 * Build: gcc -std=c11 -Wall -Wextra -O2 -Icommon tests/test_plans_0304.c -lcriterion
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../lessons/03_tiled/plan.h"
#include "../lessons/04_copy/plan.h"

/* ======================================================================================
 * Lesson 03
 * ====================================================================================== */

/* Every element of the (blk_x, BLK_K) smem tile is written by exactly one (thread, value)
 * of the copy partition, for a K-major and an x-major operand. */
static void check03_copy(int blk_x, int kmajor) {
    lay_layout sl = p3_smem_layout(blk_x);
    const int cos = (int)lay_cosize(sl);
    int *hits = calloc((size_t)cos, sizeof(int));
    cr_assert(hits);
    lay_tensor s = lay_make_tensor(NULL, sl);
    for (int t = 0; t < P3_NTHR; ++t) {
        lay_tensor tXsX;
        cr_assert_eq(lay_local_partition(&tXsX, s, p3_copy_thr_layout(kmajor), t, LAY_PROJ_ALL),
                     LAY_OK);
        cr_assert_eq(lay_size(tXsX.layout), (blk_x / 32) * (P3_BLK_K / 8));
        for (int i = 0; i < blk_x / 32; ++i)
            for (int j = 0; j < P3_BLK_K / 8; ++j) {
                lay_off o = tXsX.off + lay_crd2idx2(tXsX.layout, i, j);
                cr_assert(o >= 0 && o < cos);
                hits[o]++;
            }
    }
    /* the offsets that belong to logical elements must be hit once; padding never */
    for (int x = 0; x < blk_x; ++x)
        for (int k = 0; k < P3_BLK_K; ++k) {
            lay_off o = lay_crd2idx2(sl, x, k);
            cr_assert_eq(hits[o], 1, "kmajor=%d element (%d,%d) written %d times", kmajor, x, k,
                         hits[o]);
            hits[o] = 0;
        }
    for (int o = 0; o < cos; ++o) cr_assert_eq(hits[o], 0, "padding offset %d written", o);
    free(hits);
}

Test(plans03, copy_partitions_cover_smem_once) {
    check03_copy(P3_BLK_M, 1);
    check03_copy(P3_BLK_M, 0);
    check03_copy(P3_BLK_N, 1);
    check03_copy(P3_BLK_N, 0);
}

/* The K-major copy is bank-conflict free into the padded layout: each warp's 32 stores of
 * one value index land in 32 different banks. */
Test(plans03, kmajor_copy_store_is_conflict_free) {
    lay_tensor s = lay_make_tensor(NULL, p3_smem_layout(P3_BLK_M));
    for (int w = 0; w < P3_NTHR / 32; ++w)
        for (int i = 0; i < P3_BLK_M / 32; ++i) {
            int used[32] = {0};
            for (int l = 0; l < 32; ++l) {
                lay_tensor p;
                cr_assert_eq(
                    lay_local_partition(&p, s, p3_copy_thr_layout(1), 32 * w + l, LAY_PROJ_ALL),
                    LAY_OK);
                int bank = (int)((p.off + lay_crd2idx2(p.layout, i, 0)) % 32);
                cr_assert_eq(used[bank], 0, "warp %d value %d: bank %d twice", w, i, bank);
                used[bank] = 1;
            }
        }
}

/* tCgC: every element of the (BLK_M,BLK_N) C tile belongs to exactly one thread, and the
 * compute projections tCsA / tCsB give the rows / columns that thread needs. */
Test(plans03, c_tile_owned_once_and_projections_agree) {
    /* identity-like layout of the C tile: offset = m + BLK_M*n (unique per element) */
    lay_tensor c = lay_make_tensor(NULL, lay_l2(P3_BLK_M, P3_BLK_N, 1, P3_BLK_M));
    lay_tensor sA = lay_make_tensor(NULL, p3_smem_layout(P3_BLK_M));
    lay_tensor sB = lay_make_tensor(NULL, p3_smem_layout(P3_BLK_N));
    static int hits[P3_BLK_M * P3_BLK_N];
    memset(hits, 0, sizeof hits);
    for (int t = 0; t < P3_NTHR; ++t) {
        lay_tensor tCgC, tCsA, tCsB;
        cr_assert_eq(lay_local_partition(&tCgC, c, p3_compute_thr_layout(), t, LAY_PROJ_ALL),
                     LAY_OK);
        cr_assert_eq(lay_local_partition(&tCsA, sA, p3_compute_thr_layout(), t, 0x1u), LAY_OK);
        cr_assert_eq(lay_local_partition(&tCsB, sB, p3_compute_thr_layout(), t, 0x2u), LAY_OK);
        cr_assert_eq(lay_size(tCgC.layout), P3_THR_M * P3_THR_N);
        for (int i = 0; i < P3_THR_M; ++i)
            for (int j = 0; j < P3_THR_N; ++j) {
                lay_off o = tCgC.off + lay_crd2idx2(tCgC.layout, i, j);
                int m = (int)(o % P3_BLK_M), n = (int)(o / P3_BLK_M);
                hits[o]++;
                /* the A row used for register i is m, the B row used for j is n, at every k */
                for (int k = 0; k < P3_BLK_K; ++k) {
                    cr_assert_eq(tCsA.off + lay_crd2idx2(tCsA.layout, i, k),
                                 lay_crd2idx2(sA.layout, m, k));
                    cr_assert_eq(tCsB.off + lay_crd2idx2(tCsB.layout, j, k),
                                 lay_crd2idx2(sB.layout, n, k));
                }
            }
    }
    for (int e = 0; e < P3_BLK_M * P3_BLK_N; ++e)
        cr_assert_eq(hits[e], 1, "C element (%d,%d) owned %d times", e % P3_BLK_M, e / P3_BLK_M,
                     hits[e]);
}

/* The tile identity tensors of the kernel, partitioned like the data, give each element's
 * in-tile coordinate; with the residues of a ragged CTA (M=129, K=33 with lda = K+3 or
 * M+3) the predicate (m < m_rem && k < k_rem) selects exactly the elements inside A, and for
 * those the data partition's offset is the element's address. */
Test(plans03, identity_tensors_give_coordinates_on_ragged_edges) {
    const int M = 129, K = 33; /* the GPU cases' 129x257x33 (gpu_cases.txt) */
    const lay_tiler tiler = lay_tiler3(P3_BLK_M, P3_BLK_N, P3_BLK_K);
    const lay_tensor cm = lay_make_tensor(NULL, lay_l2(P3_BLK_M, P3_BLK_K, 1, 0));
    const lay_tensor ck = lay_make_tensor(NULL, lay_l2(P3_BLK_M, P3_BLK_K, 0, 1));
    for (int kmajor = 0; kmajor <= 1; ++kmajor)
        for (int bx = 0; bx < (M + P3_BLK_M - 1) / P3_BLK_M; ++bx) {
            const int coord[3] = {bx, 1, LAY_FREE};
            const int lda = kmajor ? K + 3 : M + 3;
            lay_tensor mA = lay_make_tensor(NULL, lay_l2(M, K, kmajor ? lda : 1, kmajor ? 1 : lda));
            lay_tensor gA, tm, tk, tg;
            cr_assert_eq(lay_local_tile(&gA, mA, tiler, coord, 0x5u), LAY_OK);
            const int m_rem = M - bx * P3_BLK_M;
            long long inside = 0;
            for (int t = 0; t < P3_NTHR; ++t) {
                lay_layout tA = p3_copy_thr_layout(kmajor);
                cr_assert_eq(lay_local_partition(&tm, cm, tA, t, LAY_PROJ_ALL), LAY_OK);
                cr_assert_eq(lay_local_partition(&tk, ck, tA, t, LAY_PROJ_ALL), LAY_OK);
                cr_assert_eq(lay_local_partition(&tg, gA, tA, t, LAY_PROJ_ALL), LAY_OK);
                for (int kt = 0; kt < (K + P3_BLK_K - 1) / P3_BLK_K; ++kt)
                    for (int i = 0; i < P3_BLK_M / 32; ++i) {
                        const int k_rem = K - kt * P3_BLK_K;
                        lay_off m = tm.off + lay_crd2idx2(tm.layout, i, 0);
                        lay_off k = tk.off + lay_crd2idx2(tk.layout, i, 0);
                        int xt = kmajor ? t / 8 : t % 32, kt0 = kmajor ? t % 8 : t / 32;
                        cr_assert_eq(m, xt + 32 * i);
                        cr_assert_eq(k, kt0);
                        if (m < m_rem && k < k_rem) {
                            lay_off gm = bx * P3_BLK_M + m, gk = kt * P3_BLK_K + k;
                            lay_off g = tg.off + lay_crd2idx3(tg.layout, i, 0, kt);
                            cr_assert_eq(g, kmajor ? gm * lda + gk : gm + gk * lda);
                            inside++;
                        }
                    }
            }
            /* every element of A inside this CTA's rows was selected exactly once */
            cr_assert_eq(inside, (long long)(m_rem < P3_BLK_M ? m_rem : P3_BLK_M) * K);
        }
}

/* ======================================================================================
 * Lesson 04
 * ====================================================================================== */

typedef struct {
    const char *name;
    int blk_m, blk_n, blk_k, warp_m, warp_n, thr_m, thr_n, stages;
} cfg04;

#define CFG04(tag, nm)                                                                   \
    {                                                                                    \
        nm, CFG_##tag##_BLK_M, CFG_##tag##_BLK_N, CFG_##tag##_BLK_K, CFG_##tag##_WARP_M, \
            CFG_##tag##_WARP_N, CFG_##tag##_THR_M, CFG_##tag##_THR_N, CFG_##tag##_STAGES \
    }
static const cfg04 cfgs04[] = {
    CFG04(FAST, "fast"),
    CFG04(K16, "fast_128x128x16"),
    CFG04(N256, "fast_128x256x8"),
    CFG04(S4, "fast_128x128x8_s4"),
    CFG04(CP2, "cp_async_2stage"),
    CFG04(VEC, "tiled_vec"),
    CFG04(L1C, "ldg128_128x128x8"),
    CFG04(L256, "ldg128_128x256x8"),
    CFG04(L16, "ldg128_128x128x16"),
    CFG04(L4W, "ldg128_128x128x8_4w"),
};
#define NCFG04 ((int)(sizeof cfgs04 / sizeof cfgs04[0]))
#define P4_MAXV_TEST 8 /* P4_MAXV of lessons/04_copy/gemm.cu (vectors per thread in a plan) */

static int nthr04(const cfg04 *c) { return (c->blk_m / c->warp_m) * (c->blk_n / c->warp_n) * 32; }

static int soff04(int blk_x, int blk_k, int x, int k) {
    return (int)lay_crd2idx2(p4_smem_layout(blk_x, blk_k), x, k);
}

/* Every element of a (blk_x, blk_k) tile written exactly once by the copy in `mode`; vectors
 * of 4 along x start 16-byte aligned in smem; the 4-byte K-major copy is conflict-free; the
 * kernels' base + constant offsets (p4_copy_base / p4_copy_at) equal the coordinates'. */
static void check04_copy(const cfg04 *c, int blk_x, int mode) {
    const int nthr = nthr04(c), blk_k = c->blk_k, pitch = blk_x + P4_PAD;
    const int vec = p4_copy_vec(mode), along_k = p4_copy_along_k(mode);
    const int nv = p4_copy_count(mode, blk_x, blk_k, nthr);
    const lay_tiled_copy cp = p4_copy(mode, blk_x, blk_k, nthr);
    cr_assert_eq(vec, lay_size(p4_copy_val(mode)), "%s mode %d: vec", c->name, mode);
    cr_assert_eq(nv, lay_tiled_copy_reps(cp, blk_x, blk_k), "%s mode %d: count", c->name, mode);
    cr_assert_eq(lay_tiled_copy_nthr(cp), nthr);
    cr_assert_eq(nv * nthr * vec, blk_x * blk_k, "%s mode %d: count", c->name, mode);
    int *hits = calloc((size_t)(blk_k * pitch), sizeof(int));
    cr_assert(hits);
    for (int t = 0; t < nthr; ++t)
        for (int v = 0; v < nv; ++v) {
            int x, k;
            p4_copy_crd(mode, blk_x, blk_k, nthr, t, 0, v, &x, &k);
            cr_assert(x >= 0 && k >= 0 && x < blk_x && k < blk_k, "%s mode %d: (%d,%d) outside",
                      c->name, mode, x, k);
            if (vec == 4 && !along_k) cr_assert_eq(soff04(blk_x, blk_k, x, k) % 4, 0);
            if (vec == 4) cr_assert_eq((along_k ? k : x) % 4, 0);
            for (int j = 0; j < vec; ++j) {
                int xj, kj;
                p4_copy_crd(mode, blk_x, blk_k, nthr, t, j, v, &xj, &kj);
                cr_assert(xj == (along_k ? x : x + j) && kj == (along_k ? k + j : k));
                const int o = soff04(blk_x, blk_k, xj, kj), i = j + vec * v;
                cr_assert_eq(p4_copy_base(mode, blk_x, blk_k, nthr, 1, pitch, t) +
                                 p4_copy_at(mode, blk_x, blk_k, nthr, 1, pitch, i),
                             o);
                cr_assert_eq(p4_copy_base(mode, blk_x, blk_k, nthr, 1, 0, t) +
                                 p4_copy_at(mode, blk_x, blk_k, nthr, 1, 0, i),
                             xj);
                cr_assert_eq(p4_copy_base(mode, blk_x, blk_k, nthr, 0, 1, t) +
                                 p4_copy_at(mode, blk_x, blk_k, nthr, 0, 1, i),
                             kj);
                hits[o]++;
            }
        }
    for (int k = 0; k < blk_k; ++k)
        for (int x = 0; x < pitch; ++x)
            cr_assert_eq(hits[soff04(blk_x, blk_k, x, k)], x < blk_x ? 1 : 0,
                         "%s %s mode %d: element (%d,%d) written %d times", c->name,
                         blk_x == c->blk_m ? "sA" : "sB", mode, x, k,
                         hits[soff04(blk_x, blk_k, x, k)]);
    free(hits);
    if (mode == P4_COPY_K4) /* one LDGSTS.32 per warp: 32 distinct banks */
        for (int w = 0; w < nthr / 32; ++w)
            for (int v = 0; v < nv; ++v) {
                int used[32] = {0};
                for (int l = 0; l < 32; ++l) {
                    int x, k;
                    p4_copy_crd(mode, blk_x, blk_k, nthr, 32 * w + l, 0, v, &x, &k);
                    int b = soff04(blk_x, blk_k, x, k) % 32;
                    cr_assert_eq(used[b], 0, "%s K4 warp %d value %d: bank %d twice", c->name, w, v,
                                 b);
                    used[b] = 1;
                }
            }
}

Test(plans04, copy_partitions_cover_smem_once) {
    for (int i = 0; i < NCFG04; ++i)
        for (int mode = 0; mode < P4_NCOPY; ++mode) {
            check04_copy(&cfgs04[i], cfgs04[i].blk_m, mode);
            check04_copy(&cfgs04[i], cfgs04[i].blk_n, mode);
        }
}

/* The copies are the layouts the README prints (build/tools/layouts copy ...), and give the
 * coordinates the hand-written formulas of b20ee34 gave (e = t + NTHR*v): K16 x = e/2,
 * k = 4(e%2); X16 x = 4(e%32), k = e/32; X4 x = e%128, k = e/128 (128 threads, 128x8). */
Test(plans04, copy_layouts_literal) {
    lay_layout tv;
    cr_assert_eq(lay_tiled_copy_tv(&tv, p4_copy(P4_COPY_K16, 128, 8, 128)), LAY_OK);
    /* ((2,64),4):((256,1),64) */
    const int want_s[3] = {2, 64, 4}, want_d[3] = {256, 1, 64};
    cr_assert_eq(tv.n, 3);
    for (int i = 0; i < 3; ++i) cr_expect(tv.shape[i] == want_s[i] && tv.stride[i] == want_d[i]);
    for (int t = 0; t < 128; ++t)
        for (int v = 0; v < 2; ++v) {
            const int e = t + 128 * v;
            int x, k;
            p4_copy_crd(P4_COPY_K16, 128, 8, 128, t, 0, v, &x, &k);
            cr_expect(x == e / 2 && k == 4 * (e % 2));
            p4_copy_crd(P4_COPY_X16, 128, 8, 128, t, 0, v, &x, &k);
            cr_expect(x == 4 * (e % 32) && k == e / 32);
        }
    for (int t = 0; t < 128; ++t)
        for (int v = 0; v < 8; ++v) {
            const int e = t + 128 * v;
            int x, k;
            p4_copy_crd(P4_COPY_X4, 128, 8, 128, t, 0, v, &x, &k);
            cr_expect(x == e % 128 && k == e / 128);
        }
    for (int t = 0; t < 256; ++t)
        for (int v = 0; v < 4; ++v) { /* K4, 256 threads: k = e%8, x = (e/8) % 128 */
            const int e = t + 256 * v;
            int x, k;
            p4_copy_crd(P4_COPY_K4, 128, 8, 256, t, 0, v, &x, &k);
            cr_expect(x == (e / 8) % 128 && k == e % 8);
        }
}

static p4_cfg pcfg04(const cfg04 *c) {
    const p4_cfg p = {c->blk_m, c->blk_n, c->blk_k, c->warp_m, c->warp_n, c->thr_m, c->thr_n};
    return p;
}

/* Every C element of the CTA tile owned by exactly one (thread, i, j); each thread's rows come
 * in runs of 4 starting at multiples of 4 (float4 reads of sA/sB and float4 stores of C); the
 * kernels' bases + constants (p4_frag_base / p4_frag_at) equal the coordinates, for A and B
 * at every k too. */
Test(plans04, c_tile_owned_once) {
    for (int ci = 0; ci < NCFG04; ++ci) {
        const cfg04 *c = &cfgs04[ci];
        const int nthr = nthr04(c);
        const p4_cfg pc = pcfg04(c);
        const lay_tiled_mma mma = p4_mma(pc);
        cr_assert_eq((c->warp_m / c->thr_m) * (c->warp_n / c->thr_n), 32, "%s lanes", c->name);
        int *hits = calloc((size_t)(c->blk_m * c->blk_n), sizeof(int));
        cr_assert(hits);
        for (int t = 0; t < nthr; ++t) {
            for (int i = 0; i < c->thr_m; ++i)
                for (int j = 0; j < c->thr_n; ++j) {
                    int m, n;
                    lay_tiled_mma_c_crd(&mma, t, p4_c_val(c->thr_m, i, j), &m, &n);
                    cr_assert(m >= 0 && m < c->blk_m && n >= 0 && n < c->blk_n);
                    if (i % 4 == 0) cr_assert_eq(m % 4, 0);
                    if (j % 4 == 0) cr_assert_eq(n % 4, 0);
                    cr_assert_eq(p4_frag_base(&mma, pc, P4_FRAG_CM, t) +
                                     p4_frag_at(&mma, pc, P4_FRAG_CM, p4_c_val(c->thr_m, i, j)),
                                 m);
                    cr_assert_eq(p4_frag_base(&mma, pc, P4_FRAG_CN, t) +
                                     p4_frag_at(&mma, pc, P4_FRAG_CN, p4_c_val(c->thr_m, i, j)),
                                 n);
                    hits[m * c->blk_n + n]++;
                    for (int k = 0; k < c->blk_k; ++k) { /* the A row / B column it reads */
                        int ma, ka, nb, kb;
                        lay_tiled_mma_a_crd(&mma, t, p4_a_val(c->thr_m, i, k), &ma, &ka);
                        lay_tiled_mma_b_crd(&mma, t, p4_b_val(c->thr_n, j, k), &nb, &kb);
                        cr_assert(ma == m && ka == k && nb == n && kb == k);
                        cr_assert_eq(p4_frag_base(&mma, pc, P4_FRAG_A, t) +
                                         p4_frag_at(&mma, pc, P4_FRAG_A, p4_a_val(c->thr_m, i, k)),
                                     soff04(c->blk_m, c->blk_k, m, k));
                        cr_assert_eq(p4_frag_base(&mma, pc, P4_FRAG_B, t) +
                                         p4_frag_at(&mma, pc, P4_FRAG_B, p4_b_val(c->thr_n, j, k)),
                                     soff04(c->blk_n, c->blk_k, n, k));
                    }
                }
        }
        for (int e = 0; e < c->blk_m * c->blk_n; ++e)
            cr_assert_eq(hits[e], 1, "%s: C (%d,%d) owned %d times", c->name, e / c->blk_n,
                         e % c->blk_n, hits[e]);
        free(hits);
    }
}

/* The compute reads: for one chunk, the 32 lanes' float4 reads of sB touch at most 8
 * distinct 16-byte chunks that are contiguous (one 128-byte wavefront). */
Test(plans04, compute_reads_are_one_wavefront) {
    for (int ci = 0; ci < NCFG04; ++ci) {
        const cfg04 *c = &cfgs04[ci];
        const lay_tiled_mma mma = p4_mma(pcfg04(c));
        for (int w = 0; w < nthr04(c) / 32; ++w)
            for (int chunk = 0; chunk < c->thr_n / 4; ++chunk) {
                int lo = 1 << 30, hi = -1;
                for (int l = 0; l < 32; ++l) {
                    int m, n;
                    lay_tiled_mma_c_crd(&mma, 32 * w + l, p4_c_val(c->thr_m, 0, 4 * chunk), &m, &n);
                    lo = n < lo ? n : lo;
                    hi = n > hi ? n : hi;
                }
                cr_assert_leq(hi + 4 - lo, 32, "%s: sB read spans %d floats", c->name, hi + 4 - lo);
            }
    }
}

/* The register-staged kernels (kernel_ldg.cuh, configs whose names start with "ldg128"):
 * each thread stages BLK_X*BLK_K/NTHR floats per operand, which p4_copy_plan must hold in
 * every mode they use (K16, X16, X4); the transposing K16 store (4 STS.32, value j to k row
 * k+j) hits 32 distinct banks per warp for BLK_K = 8 and at most 2 per bank for BLK_K = 16. */
Test(plans04, ldg_staging_fits_and_k16_store_conflicts) {
    const int modes[3] = {P4_COPY_K16, P4_COPY_X16, P4_COPY_X4};
    int seen = 0;
    for (int ci = 0; ci < NCFG04; ++ci) {
        const cfg04 *c = &cfgs04[ci];
        if (strncmp(c->name, "ldg128", 6) != 0) continue;
        seen++;
        const int nthr = nthr04(c);
        cr_assert_eq(c->stages, 2, "%s: two smem buffers", c->name);
        cr_assert_eq(c->blk_k % 8, 0, "%s: BLK_K even (fragment ping-pong)", c->name);
        for (int o = 0; o < 2; ++o) {
            const int blk_x = o ? c->blk_n : c->blk_m;
            for (int mi = 0; mi < 3; ++mi) {
                const int nv = p4_copy_count(modes[mi], blk_x, c->blk_k, nthr);
                cr_assert_eq(nv * p4_copy_vec(modes[mi]), blk_x * c->blk_k / nthr);
                cr_assert_leq(nv, P4_MAXV_TEST, "%s: %d vectors", c->name, nv);
            }
            const int nv = p4_copy_count(P4_COPY_K16, blk_x, c->blk_k, nthr);
            for (int w = 0; w < nthr / 32; ++w)
                for (int v = 0; v < nv; ++v)
                    for (int j = 0; j < 4; ++j) {
                        int used[32] = {0}, worst = 0;
                        for (int l = 0; l < 32; ++l) {
                            int x, k;
                            p4_copy_crd(P4_COPY_K16, blk_x, c->blk_k, nthr, 32 * w + l, j, v, &x,
                                        &k);
                            const int b = soff04(blk_x, c->blk_k, x, k) % 32;
                            worst = ++used[b] > worst ? used[b] : worst;
                        }
                        cr_assert_leq(worst, c->blk_k == 8 ? 1 : 2,
                                      "%s K16 store warp %d value %d row %d: %d-way", c->name, w, v,
                                      j, worst);
                    }
        }
    }
    cr_assert_eq(seen, 4); /* the four ldg128_* variants of gemm.cu */
}

/* The grouped rasterization (p4_tile_coord, used by kernel.cuh) is a bijection from CTA ids onto tiles. */
Test(plans04, grouped_raster_is_a_bijection) {
    const int shapes[][2] = {{1, 1}, {3, 40}, {32, 32}, {33, 7}, {9, 1}, {17, 5}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        const int tiles_m = shapes[s][0], tiles_n = shapes[s][1];
        int *hits = calloc((size_t)(tiles_m * tiles_n), sizeof(int));
        for (int id = 0; id < tiles_m * tiles_n; ++id) {
            int tm, tn;
            p4_tile_coord(id, tiles_m, tiles_n, &tm, &tn);
            cr_assert(tm >= 0 && tm < tiles_m && tn >= 0 && tn < tiles_n);
            hits[tm * tiles_n + tn]++;
        }
        for (int e = 0; e < tiles_m * tiles_n; ++e) cr_assert_eq(hits[e], 1);
        free(hits);
    }
}

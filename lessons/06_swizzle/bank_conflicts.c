/* bank_conflicts.c - counts shared-memory bank conflicts of lesson 05/06 access patterns.
 *
 * Host C11, built on its own:
 *     make build/tools/bank_conflicts && build/tools/bank_conflicts
 * It takes no arguments (--help prints what it counts; anything else: one line, exit 2).
 *
 * For one (128, BLK_K) smem tile of halves (BLK_K = 32 or 64) laid out three ways
 *     plain      (128,BK):(BK,1)                 rows BLK_K halves apart
 *     padded     (128,BK):(BK+8,1)               lesson 05
 *     swizzled   Sw<2,3,3> / Sw<3,3,3> o plain   lesson 06 (plan_smem)
 * it replays, with the layouts the kernels use (plan.h and common/layout.h):
 *     store   the 16-byte cp.async writes of one warp (plan_copy, 128 threads)
 *     ldsm A  the ldmatrix.x4 reads of one A fragment (lay_tiled_ldmatrix_a_crd)
 *     ldsm B  the ldmatrix.x4 reads of two B atoms (lay_tiled_ldmatrix_b_crd)
 * over the tiled MMA of 2 x 2 warps of 64 x 64, and counts wavefronts with the bank model of
 * bank_model.h: 32 banks of 4 bytes, 16-byte accesses served 8 lanes (128 bytes) per phase,
 * a phase costing as many wavefronts as the busiest bank has distinct words. A warp-wide
 * 16-byte access needs at least 4 wavefronts; the table prints the average number of extra
 * wavefronts per instruction over every warp, copy and load of the tile (0 = conflict-free)
 * and the worst case. On the GPU, compare with ncu's
 * l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum (ldmatrix) and ..._op_st.sum.
 */
#include <stdio.h>
#include <string.h>

#include "plan.h"
#include "bank_model.h"

enum { PLAIN, PADDED, SWIZZLED, NLAYOUTS };
static const char *layout_name[NLAYOUTS] = {"plain", "padded (+8 halves)", "swizzled"};

static lay_swizzled tile(int bk, int layout) {
    lay_swizzle none;
    none.b = none.m = none.s = 0;
    if (layout == SWIZZLED) return plan_smem(128, bk);
    return lay_make_swizzled(none, lay_l2(128, bk, bk + (layout == PADDED ? 8 : 0), 1));
}

typedef struct stat { int n, extra, worst; } stat;
static void add(stat *s, int wavefronts) {
    s->n++;
    s->extra += wavefronts - 4;
    if (wavefronts - 4 > s->worst) s->worst = wavefronts - 4;
}

static const char usage[] =
    "usage: bank_conflicts [--help]\n"
    "Counts, on the CPU, the shared-memory bank conflicts of lesson 05/06's accesses to one\n"
    "(128, BLK_K) tile of fp16/bf16 elements (\"halves\", 2 bytes each), BLK_K = 32 and 64, laid\n"
    "out plain (rows BLK_K halves apart), padded (rows BLK_K + 8 halves apart: lesson 05) and\n"
    "swizzled (Sw<2,3,3> / Sw<3,3,3>: lesson 06), for the 16-byte cp.async stores and the\n"
    "ldmatrix.x4 loads of A and B of 4 warps, and prints one table (no options, no GPU).\n"
    "A wavefront is one pass of shared memory serving a warp's access: 32 banks of 4 bytes, a\n"
    "16-byte-per-lane access takes at least 4; the table gives the extra ones per instruction\n"
    "(average / worst; 0 = conflict-free). Source: lessons/06_swizzle/bank_conflicts.c.\n";

int main(int argc, char **argv) {
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, "bank_conflicts: unknown argument '%s' (it takes none; see --help)\n",
                argv[1]);
        return 2;
    }
    printf("Extra shared-memory wavefronts per warp instruction (a wavefront: one pass of shared\n"
           "memory serving a warp's access; a 16-byte-per-lane access needs 4, so ideal: 0 extra;\n"
           "--help says more). avg / worst over a 128-row tile, 128 threads.\n\n");
    printf("| BLK_K | layout             | cp.async store | ldmatrix.x4 A | ldmatrix.x4 B |\n");
    printf("|------:|--------------------|---------------:|--------------:|--------------:|\n");
    for (int bk = 32; bk <= 64; bk *= 2)
        for (int layout = 0; layout < NLAYOUTS; ++layout) {
            const lay_swizzled S = tile(bk, layout);
            const lay_tiled_copy cp = plan_copy(128, bk);
            const lay_tiled_mma mma = plan_mma(2, 2, 128, 128, bk);
            stat st = {0, 0, 0}, la = {0, 0, 0}, lb = {0, 0, 0};
            int addr[32];
            for (int w = 0; w < 4; ++w)
                for (int i = 0; i < lay_tiled_copy_reps(cp, 128, bk); ++i) {
                    for (int l = 0; l < 32; ++l) {
                        int m, k;
                        lay_tiled_copy_crd(cp, 128, bk, 32 * w + l, 0, i, &m, &k);
                        addr[l] = 2 * (int)lay_swizzled_crd2idx2(S, m, k);
                    }
                    add(&st, bank_wavefronts(addr));
                }
            for (int w = 0; w < 4; ++w)
                for (int q = 0; q < 4 * (bk / 16); ++q) {
                    for (int l = 0; l < 32; ++l) {
                        int m, k;
                        lay_tiled_ldmatrix_a_crd(&mma, 4, 0, 32 * w + l, q, &m, &k);
                        addr[l] = 2 * (int)lay_swizzled_crd2idx2(S, m, k);
                    }
                    add(&la, bank_wavefronts(addr));
                    for (int l = 0; l < 32; ++l) {
                        int n, k;
                        lay_tiled_ldmatrix_b_crd(&mma, 4, 0, 32 * w + l, q, &n, &k);
                        addr[l] = 2 * (int)lay_swizzled_crd2idx2(S, n, k);
                    }
                    add(&lb, bank_wavefronts(addr));
                }
            printf("| %5d | %-18s | %7.2f / %-4d | %6.2f / %-4d | %6.2f / %-4d |\n", bk,
                   layout_name[layout], (double)st.extra / st.n, st.worst,
                   (double)la.extra / la.n, la.worst, (double)lb.extra / lb.n, lb.worst);
        }
    return 0;
}

/* bank_conflicts.c - counts shared-memory bank conflicts of lesson 05/06 access patterns.
 *
 * Host C11, built on its own:
 *     gcc -std=c11 -O2 -Wall -Wextra lessons/06_swizzle/bank_conflicts.c -o build/bank_conflicts
 *     ./build/bank_conflicts
 *
 * For one smem tile of halves (rows of BLK_K = 32 or 64) laid out three ways
 *     plain      row-major, rows BLK_K halves apart
 *     padded     row-major, rows BLK_K + 8 halves apart (lesson 05's default)
 *     swizzled   Swizzle<2,3,3> (BLK_K = 32) or Swizzle<3,3,3> (BLK_K = 64) on half offsets
 * it replays, with the very index functions of the kernels (plan.h):
 *     store   the 16-byte cp.async writes of one warp (copy partition plan_copy_row/chunk)
 *     ldsm A  the ldmatrix.x4 reads of one A fragment (lane l -> row l%16, chunk l/16)
 *     ldsm B  the ldmatrix.x4 reads of two B atoms (lane l -> row l%8 + 8(l/16), chunk (l/8)%2)
 * and counts wavefronts with plan_wavefronts: 32 banks of 4 bytes, 16-byte accesses served
 * 8 lanes (128 bytes) per phase, a phase costing as many wavefronts as the busiest bank has
 * distinct words. A warp-wide 16-byte access needs at least 4 wavefronts; the table prints the
 * average number of extra wavefronts per instruction over every warp, copy and k-step of a
 * 128-row tile (0 = conflict-free) and the worst case.
 * On the GPU, compare with ncu's l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
 * (ldmatrix) and ..._op_st.sum / LDGSTS counters.
 */
#include <stdio.h>

#include "plan.h"

enum { PLAIN, PADDED, SWIZZLED, NLAYOUTS };
static const char *layout_name[NLAYOUTS] = {"plain", "padded (+8 halves)", "swizzled"};

static int byte_offset(int row, int col, int blk_k, int layout) {
    return 2 * plan_smem_offset(row, col, blk_k, layout == SWIZZLED, layout == PADDED ? 8 : 0);
}

typedef struct stat { int n, extra, worst; } stat;
static void add(stat *s, int wavefronts) {
    s->n++;
    s->extra += wavefronts - 4;
    if (wavefronts - 4 > s->worst) s->worst = wavefronts - 4;
}

int main(void) {
    const int rows = 128, nthreads = 128;
    printf("Extra shared-memory wavefronts per warp instruction (ideal: 0; each 16-byte-per-lane\n"
           "access needs 4 wavefronts). avg / worst over a %d-row tile, %d threads.\n\n",
           rows, nthreads);
    printf("| BLK_K | layout             | cp.async store | ldmatrix.x4 A | ldmatrix.x4 B |\n");
    printf("|------:|--------------------|---------------:|--------------:|--------------:|\n");
    for (int blk_k = 32; blk_k <= 64; blk_k *= 2)
        for (int layout = 0; layout < NLAYOUTS; ++layout) {
            stat st = {0, 0, 0}, la = {0, 0, 0}, lb = {0, 0, 0};
            int addr[32];
            for (int w = 0; w < nthreads / 32; ++w)
                for (int i = 0; i < rows * (blk_k / 8) / nthreads; ++i) {
                    for (int l = 0; l < 32; ++l) {
                        const int t = 32 * w + l;
                        addr[l] = byte_offset(plan_copy_row(t, i, nthreads, blk_k),
                                              8 * plan_copy_chunk(t, i, nthreads, blk_k), blk_k,
                                              layout);
                    }
                    add(&st, plan_wavefronts(addr));
                }
            for (int blk = 0; blk < rows / 16; ++blk)
                for (int kk = 0; kk < blk_k / 16; ++kk) {
                    for (int l = 0; l < 32; ++l)
                        addr[l] = byte_offset(16 * blk + plan_ldsm_a_row(l),
                                              16 * kk + 8 * plan_ldsm_a_chunk(l), blk_k, layout);
                    add(&la, plan_wavefronts(addr));
                    for (int l = 0; l < 32; ++l)
                        addr[l] = byte_offset(16 * blk + plan_ldsm_b_row(l),
                                              16 * kk + 8 * plan_ldsm_b_chunk(l), blk_k, layout);
                    add(&lb, plan_wavefronts(addr));
                }
            printf("| %5d | %-18s | %7.2f / %-4d | %6.2f / %-4d | %6.2f / %-4d |\n", blk_k,
                   layout_name[layout], (double)st.extra / st.n, st.worst,
                   (double)la.extra / la.n, la.worst, (double)lb.extra / lb.n, lb.worst);
        }
    return 0;
}

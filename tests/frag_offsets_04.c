/* frag_offsets_04.c - the shared-memory offsets lesson 04's kernels must read, from the layouts.
 *
 * Prints one line per kernel of lessons/04_copy/gemm.cu:
 *     SYMBOL BODIES OFFSET... / ALSO...
 * SYMBOL: the start of the kernel's mangled name (_Z<length><name>, unique); BODIES: how many
 * copy-mode bodies the kernel holds (the cases of its switch); OFFSET...: the byte offsets of
 * its fragment loads (LDS.128) from the thread's base, every A chunk and every B chunk at every
 * k of one k_tile, computed with plan.h (p4_mma, p4_frag_at, p4_a_val, p4_b_val) as the
 * kernels do:
 *   kernel.cuh      sA stage s at s*SA_SIZE, sB stage s at NBUF*SA_SIZE + s*SB_SIZE (the
 *                   stage's part of the address is in the base register: SA_SIZE == SB_SIZE);
 *   kernel_ldg.cuh  buffer b holds sA at b*BUF and sB at b*BUF + SA_SIZE.
 * So A value v is at 4*at_a(v) and B value v at 4*(B_OFF + at_b(v)), B_OFF = NBUF*SA_SIZE or
 * SA_SIZE. ALSO...: the B offsets without B_OFF, for loads whose base register already holds
 * it. tests/test_sass.sh compares these with the LDS.128 of each kernel's machine code: every
 * OFFSET must be there once per body, and nothing outside OFFSET and ALSO (a missing offset is
 * a fragment load the compiler merged with another, an extra one a load from the wrong place).
 *
 * Build: gcc -std=c11 -O2 -Wall -Wextra -Icommon -Ilessons/04_copy tests/frag_offsets_04.c
 * Usage: frag_offsets_04 > offsets.txt
 */
#include <stdio.h>
#include <string.h>

#include "plan.h"

typedef struct {
    const char *name;
    p4_cfg cfg;
    int stages; /* kernel.cuh: p4_cp_cfg's STAGES; kernel_ldg.cuh: 0 */
} kern04;

#define CFG(P) \
    { P##_BLK_M, P##_BLK_N, P##_BLK_K, P##_WARP_M, P##_WARP_N, P##_THR_M, P##_THR_N }

/* Every kernel gemm.cu defines (keep in step with its configurations and __global__ kernels). */
static const kern04 kernels[] = {
    {"gemm04_fast", CFG(CFG_FAST), CFG_FAST_STAGES},
    {"gemm04_fast_k16", CFG(CFG_K16), CFG_K16_STAGES},
    {"gemm04_fast_s4", CFG(CFG_S4), CFG_S4_STAGES},
    {"gemm04_cp2", CFG(CFG_CP2), CFG_CP2_STAGES},
    {"gemm04_vec", CFG(CFG_VEC), CFG_VEC_STAGES},
    {"gemm04_ldg_1cta", CFG(CFG_L1C), 0},
    {"gemm04_ldg_n256", CFG(CFG_L256), 0},
    {"gemm04_ldg_k16", CFG(CFG_L16), 0},
    {"gemm04_ldg_4w", CFG(CFG_L4W), 0},
};

int main(void) {
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; ++i) {
        const kern04 *kn = &kernels[i];
        const p4_cfg c = kn->cfg;
        const lay_tiled_mma mma = p4_mma(c);
        const int sa_size = c.blk_k * (c.blk_m + P4_PAD);
        const int nbuf = kn->stages > 1 ? kn->stages : 1;
        const int b_off = kn->stages > 0 ? nbuf * sa_size : sa_size;
        /* kernel.cuh: 9 copy-mode pairs, 7 more (K16) when synchronous; kernel_ldg.cuh: 9 */
        const int bodies = kn->stages == 1 ? 16 : 9;
        printf("_Z%d%s %d", (int)strlen(kn->name), kn->name, bodies);
        for (int k = 0; k < c.blk_k; ++k) {
            for (int ch = 0; ch < c.thr_m / 4; ++ch)
                printf(" %d", 4 * p4_frag_at(&mma, c, P4_FRAG_A, p4_a_val(c.thr_m, 4 * ch, k)));
            for (int ch = 0; ch < c.thr_n / 4; ++ch)
                printf(" %d",
                       4 * (b_off + p4_frag_at(&mma, c, P4_FRAG_B, p4_b_val(c.thr_n, 4 * ch, k))));
        }
        /* B values from a base register that already holds B_OFF (ptxas does this for some
         * loads of the register-staged kernels): allowed, not required */
        printf(" /");
        for (int k = 0; k < c.blk_k; ++k)
            for (int ch = 0; ch < c.thr_n / 4; ++ch)
                printf(" %d", 4 * p4_frag_at(&mma, c, P4_FRAG_B, p4_b_val(c.thr_n, 4 * ch, k)));
        printf("\n");
    }
    return 0;
}

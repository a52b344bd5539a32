/* kernel.cu - lesson 07 assignment, part 2: the bias + GELU epilogue of one warp.
 *
 * Staff solution. GEMM-COURSE-SOLUTION (make handout leaves solutions/ out)
 *
 * YOU WRITE the middle of the warp's epilogue (TODO 4: ex07_bias_gelu::store): the lane's bias
 * values along n, then every accumulator pair through ex07_value (epilogue_ex.h) into the
 * staging block at ex07_stage_offset, converted once to the output type. Given: the whole
 * lesson kernel (gemm.cu, included below: the K loop, then EPI::store with EPI = your type),
 * the copy of C into the staging block when beta != 0 and the 16-byte copy of the block out
 * to D (epilogue.cuh), the launch and the harness descriptor.
 *
 * The problem (common/harness.h): D = gelu(alpha * A * B^T + beta * C + bias), bias[n] one
 * value per output column, GELU's tanh form, D of the input type (fp16 or bf16) written over
 * C; TN layout, M, N, K >= 1 with lda, ldb, ldc multiples of 8 (the lesson's limits). Edge
 * tiles: a warp's block may stick out of C (rows >= mrem, columns >= nrem); the copies handle
 * that, but a bias value outside the bias vector must not be read (it is allocated at exactly
 * N values: compute-sanitizer sees an over-read).
 *
 * Build, check, time:  make exercise07 && ./run --variant exercise --check-only --epilogue bias_gelu --dtype all
 *                      ./run --variant default,exercise --epilogue bias_gelu --size 4096x4096x4096
 * Grade:               make grade07
 */
#define LESSON07_KERNEL_ONLY /* gemm.cu without its variants and main(): the kernel alone */
#include "gemm.cu"

#include "epilogue_ex.h"
#include "exercise.h"

/* The epilogue type the lesson's kernel calls (see epi_fused in epilogue.cuh): OUT is the
 * output type, GEMM_FP16 or GEMM_BF16. */
template <int OUT>
struct ex07_bias_gelu {
    enum { ES = out_elem<OUT>::BYTES };

    /* acc: the warp's accumulators, atom (i, j) value c = accumulator v = c + 4 (i + MI j) of
     * the lane, at ex07_stage_offset(lane, v) of the staging block. */
    template <int MI, int NI>
    static __device__ __forceinline__ void store(float (&acc)[MI][NI][4], const kargs *p,
                                                 const lay_tiled_mma *mma, char *smem, int m0,
                                                 int n0) {
        enum { WTM = MI * 16, WTN = NI * 8 };
        static_assert(WTM == EX07_WTM && WTN == EX07_WTN, "the exercise's warp tile");
        /* GIVEN: the warp's block (b.s its staging block, b.n0 its first column in C, b.nrem
         * its columns inside C, b.lane), and C copied into the block when beta != 0 */
        const warp_block b = warp_block_of<ES, WTM, WTN>(p, mma, smem, m0, n0);
        if (p->beta != 0.0f) stage_load_c<ES, WTM, WTN>(&b, p);

        /* TODO 4a. The lane's bias values: accumulators c0, c1 of atom (i, j) lie in columns
         * n + 8 j and n + 8 j + 1 of the block (n: the column of the lane's accumulator 0),
         * the same for every i and for c2, c3. Read only the columns inside C. */
        int r0, c0;
        lay_tiled_mma_c_crd(mma, b.lane, 0, &r0, &c0);
        float bias[NI][2];
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                const int c = c0 + j * mma->atom.n + e;
                bias[j][e] = c < b.nrem ? load_bias(p->bias, p->bias_dtype, b.n0 + c) : 0.0f;
            }

        /* TODO 4b. Every pair (accumulators 2h, 2h+1 of atom (i, j): two neighbouring
         * elements) through ex07_value into the block, converted once (stage_store_pair;
         * stage_load_pair reads C's pair when beta != 0). The offset of a layout is the sum
         * of its modes' parts: ex07_stage_offset(lane, v) = ex07_stage_offset(lane, 0) +
         * ex07_stage_offset(0, v), and with v a constant the second part is one. */
        const int lane_off = ex07_stage_offset(b.lane, 0);
#pragma unroll
        for (int i = 0; i < MI; ++i)
#pragma unroll
            for (int j = 0; j < NI; ++j)
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int v = 2 * h + 4 * (i + MI * j);
                    const int o = lane_off + ex07_stage_offset(0, v);
                    const float2 c = p->beta != 0.0f ? stage_load_pair<OUT>(b.s, o)
                                                     : make_float2(0.0f, 0.0f);
                    stage_store_pair<OUT>(
                        b.s, o, ex07_value(acc[i][j][2 * h], p->alpha, p->beta, c.x, bias[j][0]),
                        ex07_value(acc[i][j][2 * h + 1], p->alpha, p->beta, c.y, bias[j][1]));
                }

        /* GIVEN: the block out to D */
        __syncwarp(); /* every lane's pairs are in the block before any lane copies a row */
        stage_write_d<ES, WTM, WTN>(&b, p);
    }
};

/* ---- GIVEN: the launch and the descriptor ----------------------------------------------- */

/* The lesson's default tile (128x256x64, 3 stages) with this epilogue. */
static cudaError_t ex07_launch(const gemm_problem *p, cudaStream_t s) {
    kargs a;
    cudaError_t e = make_kargs(&a, p, 128, 256);
    if (e != cudaSuccess) return e;
    if (p->dtype == GEMM_BF16)
        return launch_one<1, 0, ex07_bias_gelu<GEMM_BF16>, 128, 256, 64, 2, 4, 3>(&a, s);
    return launch_one<0, 0, ex07_bias_gelu<GEMM_FP16>, 128, 256, 64, 2, 4, 3>(&a, s);
}

/* What the exercise does not do is refused before launch, with the option that it takes. */
static const char *ex07_check(const gemm_problem *p) {
    if (!p->a_kmajor || !p->b_kmajor) return "needs A and B K-major (layout TN), as the lesson";
    if (p->epilogue != GEMM_EPI_BIAS_GELU)
        return "the exercise is the bias + GELU epilogue: run it with --epilogue bias_gelu";
    if (p->bias_axis != GEMM_BIAS_N) return "the exercise's bias is along n (--bias-axis n)";
    if (p->gelu != GEMM_GELU_TANH) return "the exercise writes GELU's tanh form (--gelu tanh)";
    if ((p->m + 127) / 128 > 65535) return "M must be at most 8388480 (grid.y), as the lesson";
    return NULL;
}

extern "C" const gemm_variant gemm_exercise_variant = {
    "exercise", "your bias + GELU epilogue on the lesson's 128x256x64_s3",
    GEMM_DT_BIT(GEMM_FP16) | GEMM_DT_BIT(GEMM_BF16) | GEMM_EPI_BIT(GEMM_EPI_BIAS_GELU),
    GEMM_LAYOUT_BIT(GEMM_TN), 8, ex07_check, ex07_launch};

/* ptx.h - thin, documented inline-PTX wrappers: cp.async (lessons 04 onward), ldmatrix and
 * mma.sync (05 onward): the one home of the lessons' inline PTX.
 *
 * Header-only CUDA C; every wrapper is `static __device__ __forceinline__` and compiles to the
 * one instruction it names (check with `cuobjdump -sass`: LDGSTS, LDSM, HMMA, DEPBAR).
 * Requires sm_80 or newer (cp.async, ldmatrix and mma.sync.m16n8k16 all exist since Ampere).
 *
 * Sections of the PTX ISA (version 9.x numbering) these follow:
 *   cp.async, cp.async.commit_group, cp.async.wait_group
 *       "Data Movement and Conversion Instructions" -> "Asynchronous copy" (non-bulk cp.async)
 *   ldmatrix
 *       9.7.14.5.15 "Warp-level matrix load instruction: ldmatrix"
 *   mma.sync.aligned.m16n8k16.row.col (f16 / bf16 inputs, f32 accumulators; and f16 inputs
 *   with f16 accumulators, lesson 07)
 *       9.7.14.5.8  "Matrix Fragments for mma.m16n8k16 with floating point type"
 *   tanh.approx.f32 (lesson 07's GELU)
 *       "Floating Point Instructions" -> "tanh" (sm_75 and newer)
 *   st.release.gpu / ld.acquire.gpu (stream-K's flags, lessons 08 and 09)
 *       9.7.9.9 "st", 9.7.9.8 "ld" and chapter 8, the memory consistency model (sm_70 and newer)
 *
 * Conventions used in every docstring:
 *   lane      = threadIdx.x % 32;  group = lane / 4 (0..7);  tig = lane % 4 ("thread in group")
 *   A (16x16, row-major, M x K), B (16x8, K x N, stored by us as (N,K) with K contiguous,
 *   which is what ".col" means), C/D (16x8, M x N). Registers holding two 16-bit values keep
 *   the lower-indexed element in the low 16 bits.
 *
 * Shared-memory addresses are 32-bit values in the .shared window; get one with
 * ptx_smem_u32(pointer), which wraps __cvta_generic_to_shared.
 */
#ifndef GEMM_PTX_H
#define GEMM_PTX_H

#include <stdint.h>

#ifdef __CUDACC__

/* 32-bit shared-window address of a generic pointer into __shared__ memory. */
static __device__ __forceinline__ uint32_t ptx_smem_u32(const void *p) {
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* ---- cp.async: global -> shared without passing through registers -------------------- */

/* cp.async.cg.shared.global [dst], [src], 16, src_bytes;
 * Copies src_bytes (0..16) bytes from global src to shared dst and fills the rest of the 16
 * bytes with zeros ("src-size" form): src_bytes = 0 writes 16 zero bytes and reads nothing,
 * which is how edge tiles are predicated. .cg caches in L2 only (bypasses L1), the right
 * choice for streamed GEMM operands. Alignment: dst and src must both be 16-byte aligned,
 * even when src_bytes < 16. When src_bytes == 0 pass any valid, aligned global address
 * (e.g. the matrix base) rather than an out-of-range one.
 * The copy is asynchronous: it completes only after a later commit_group + wait_group. */
static __device__ __forceinline__ void ptx_cp_async_cg16(uint32_t dst, const void *src,
                                                         int src_bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(src_bytes)
                 : "memory");
}

/* cp.async.cg.shared.global [dst], [base + row * row_bytes], 16;
 * The unpredicated 16-byte copy of row `row` of a matrix whose rows are row_bytes apart, for
 * tiles known to lie inside the matrix. The 64-bit source address is formed inside the asm
 * (mad.wide.u32 = one IMAD.WIDE.U32 in SASS), so a K loop that issues many such copies keeps
 * one base pointer and one 32-bit row stride live instead of a 64-bit pointer per row.
 * row * row_bytes must fit in 32 bits (unsigned); base + row * row_bytes 16-byte aligned. */
static __device__ __forceinline__ void ptx_cp_async_cg16_row(uint32_t dst, const void *base,
                                                             uint32_t row_bytes, uint32_t row) {
    asm volatile("{\n\t.reg .u64 a;\n\tmad.wide.u32 a, %2, %3, %1;\n\t"
                 "cp.async.cg.shared.global [%0], [a], 16;\n\t}\n" ::"r"(dst),
                 "l"(base), "r"(row_bytes), "r"(row)
                 : "memory");
}

/* cp.async.ca.shared.global [dst], [src], 4, src_bytes;  (4-byte form: .ca, which caches in L1
 * too, is the only cache mode of 4- and 8-byte copies; .cg exists only for 16 bytes). dst and src
 * 4-byte aligned; src_bytes in 0..4, rest zeroed. Lesson 04's transposing and unaligned copies. */
static __device__ __forceinline__ void ptx_cp_async_ca4(uint32_t dst, const void *src,
                                                        int src_bytes) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src),
                 "r"(src_bytes)
                 : "memory");
}

/* st.shared.b32 [dst], w: one 4-byte store to shared memory (STS); dst 4-byte aligned. */
static __device__ __forceinline__ void ptx_st_shared_b32(uint32_t dst, uint32_t w) {
    asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(dst), "r"(w) : "memory");
}

/* The 16-byte chunk copy of a predicated tile: 16 bytes to shared dst, of which the first
 * src_bytes (0..16, even) come from global src and the rest are zeros.
 *   src_bytes == 16 or 0: ptx_cp_async_cg16 (asynchronous; for 0 pass any valid aligned
 *                         address as src, e.g. the matrix base);
 *   0 < src_bytes < 16:   the chunk that holds the end of a row (the K tail, or the N tail of
 *                         C) goes through registers: src_bytes / 2 two-byte loads, the rest
 *                         zero, four 4-byte stores (a word at a time keeps the path to two
 *                         live registers in kernels that hold 200+ accumulators). Exactly
 *                         src_bytes bytes are read.
 * Why not cp.async's src-size form for the partial chunk: the PTX ISA (cp.async) defines
 * src-size as the bytes copied, but compute-sanitizer's memcheck checks the instruction's whole
 * 16-byte source window, and in the last row of an exactly-sized matrix that window reaches
 * past the allocation. The partial chunk exists only in a row's last K tile, so the register
 * path costs nothing in the main loop.
 * The store is synchronous, the cp.async not: both are complete for the block after this
 * thread's cp.async.wait_group + __syncthreads(), so the caller's pipeline is unchanged.
 * dst and src 16-byte aligned (as for cp.async). */
static __device__ __forceinline__ void ptx_copy16_zfill(uint32_t dst, const void *src,
                                                        int src_bytes) {
    if (src_bytes <= 0 || src_bytes >= 16) {
        ptx_cp_async_cg16(dst, src, src_bytes);
        return;
    }
    const uint16_t *s = (const uint16_t *)src;
#pragma unroll
    for (int i = 0; i < 4; ++i) { /* halves 2i and 2i+1: byte offsets 4i and 4i+2 */
        const uint32_t lo = 4 * i < src_bytes ? s[2 * i] : 0u;
        const uint32_t hi = 4 * i + 2 < src_bytes ? s[2 * i + 1] : 0u;
        ptx_st_shared_b32(dst + 4 * i, lo | hi << 16);
    }
}

/* cp.async.commit_group: closes the group of all cp.async this thread issued since the last
 * commit. Committing with no cp.async issued makes an empty group (which completes at once);
 * pipelines rely on that to keep the group count uniform at the end of the K loop. */
static __device__ __forceinline__ void ptx_cp_async_commit(void) {
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* cp.async.wait_group N: waits until at most N of this thread's committed groups are still
 * pending (N = 0: all done). N must be a compile-time constant, hence a macro with an "n"
 * constraint. It orders only this thread's copies: follow it with __syncthreads() before
 * other threads read the data. */
#define PTX_CP_ASYNC_WAIT(N) asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory")

/* cp.async.wait_all: same as commit_group followed by wait_group 0. */
static __device__ __forceinline__ void ptx_cp_async_wait_all(void) {
    asm volatile("cp.async.wait_all;\n" ::: "memory");
}

/* ---- ldmatrix: shared -> registers in the mma fragment order ------------------------- */

/* ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16
 *
 * Loads 1, 2 or 4 matrices of 8x8 16-bit elements. Each 8x8 matrix is 8 rows of 16 bytes;
 * the rows may lie anywhere in shared memory, each at its own 16-byte-aligned address.
 * Who supplies the row addresses (lane l holds `addr`):
 *   .x1: lanes 0-7 give rows 0-7 of matrix 0
 *   .x2: lanes 0-7 matrix 0, lanes 8-15 matrix 1
 *   .x4: lanes 8q..8q+7 give rows 0-7 of matrix q (q = 0..3)
 * Lanes whose addresses are not used (8-31 for .x1, 16-31 for .x2) must still execute the
 * instruction and should still hold a valid, 16-byte-aligned shared address (we pass a copy
 * of a used one); never leave them with a garbage value.
 * Who receives what (r[q] is the register for matrix q):
 *   no .trans: lane l gets row l/4, columns 2(l%4) and 2(l%4)+1 of matrix q
 *              (low 16 bits = column 2(l%4)).
 *   .trans:    the matrix is transposed on the way: lane l gets column l/4, rows 2(l%4) and
 *              2(l%4)+1 of matrix q as stored (i.e. row l/4 of its transpose).
 * With .x4 and addresses chosen as (lane%16 = row, lane/16 = 8-column half) over a 16x16
 * K-major tile, r[0..3] are exactly the mma A fragment {a0a1, a2a3, a4a5, a6a7}. */
static __device__ __forceinline__ void ptx_ldmatrix_x1(uint32_t *r, uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n"
                 : "=r"(r[0])
                 : "r"(addr)
                 : "memory");
}
static __device__ __forceinline__ void ptx_ldmatrix_x2(uint32_t *r, uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(addr)
                 : "memory");
}
static __device__ __forceinline__ void ptx_ldmatrix_x4(uint32_t *r, uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}
static __device__ __forceinline__ void ptx_ldmatrix_x1_trans(uint32_t *r, uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n"
                 : "=r"(r[0])
                 : "r"(addr)
                 : "memory");
}
static __device__ __forceinline__ void ptx_ldmatrix_x2_trans(uint32_t *r, uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(addr)
                 : "memory");
}
static __device__ __forceinline__ void ptx_ldmatrix_x4_trans(uint32_t *r, uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}

/* ---- mma.sync m16n8k16, fp32 accumulators -------------------------------------------- */

/* d[0..3] += A(16x16) * B(16x8), one warp, all 32 lanes must execute it.
 *   mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32
 * Fragments (PTX ISA 9.7.14.5.8), lane l, group g = l/4, tig t = l%4:
 *   a[0..3]: 4 x 32-bit, 8 values a0..a7 (two per register, low half first)
 *            a0,a1: (row g,   col 2t, 2t+1)      a2,a3: (row g+8, col 2t, 2t+1)
 *            a4,a5: (row g,   col 2t+8, 2t+9)    a6,a7: (row g+8, col 2t+8, 2t+9)
 *            e.g. lane 0 holds (0,0),(0,1),(8,0),(8,1),(0,8),(0,9),(8,8),(8,9)
 *   b[0..1]: 2 x 32-bit, b0..b3 of B (K x N = 16 x 8)
 *            b0,b1: (k 2t, 2t+1; n g)            b2,b3: (k 2t+8, 2t+9; n g)
 *            i.e. with B stored (N,K) K-contiguous, lane l reads row n = g, two adjacent k.
 *   d[0..3]: 4 floats of C/D (16 x 8)
 *            d0,d1: (row g, col 2t, 2t+1)        d2,d3: (row g+8, col 2t, 2t+1)
 * Accumulates in place: d = A*B + d. */
static __device__ __forceinline__ void ptx_mma_m16n8k16_f16(float *d, const uint32_t *a,
                                                            const uint32_t *b) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* Same as ptx_mma_m16n8k16_f16 with bfloat16 inputs (same fragment layout). */
static __device__ __forceinline__ void ptx_mma_m16n8k16_bf16(float *d, const uint32_t *a,
                                                             const uint32_t *b) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* ---- mma.sync m16n8k16, fp16 accumulators (lesson 07) ---------------------------------- */

/* d[0..1] += A(16x16) * B(16x8) with fp16 accumulators, one warp, all 32 lanes.
 *   mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16
 * A and B as in ptx_mma_m16n8k16_f16. C/D (PTX ISA 9.7.14.5.8, .f16 accumulators): 2 x 32-bit
 * registers of two fp16 each, at the positions of the fp32 case:
 *   d[0] = {c0, c1}: (row g, cols 2t, 2t+1)       d[1] = {c2, c3}: (row g+8, cols 2t, 2t+1)
 * (low half = the lower column). The sums are rounded to fp16 by every instruction: a K-long
 * dot product is rounded K/16 times, to 11 significant bits. */
static __device__ __forceinline__ void ptx_mma_m16n8k16_f16_f16acc(uint32_t *d, const uint32_t *a,
                                                                   const uint32_t *b) {
    asm("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 "
        "{%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};\n"
        : "+r"(d[0]), "+r"(d[1])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* ---- tanh.approx.f32 (lesson 07) --------------------------------------------------------- */

/* tanh(x), approximately: one MUFU.TANH (sm_75 and newer). The PTX ISA ("tanh") bounds its
 * relative error by about 2^-11; tanh(+-0) = +-0, tanh(+-Inf) = +-1, NaN stays NaN. GELU's
 * tanh form uses it (lesson 07): accurate tanhf takes about 20 instructions more. */
static __device__ __forceinline__ float ptx_tanh_approx(float x) {
    float y;
    asm("tanh.approx.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}

/* ---- flags in global memory between CTAs of one grid (stream-K: lessons 08, 09) ---------
 * st.release.gpu.global.u32 / ld.acquire.gpu.global.u32 (PTX ISA 9.7.9.9 "st" and 9.7.9.8
 * "ld", the .release / .acquire qualifiers with .gpu scope; the memory consistency model,
 * chapter 8: a release store that an acquire load observes makes every write the releasing
 * thread had made visible before it (its own, and others' ordered before it, e.g. by a barrier
 * and a fence) visible to the acquiring thread, and through a later barrier to its CTA).
 * sm_70 and later. The pattern, writer side: every thread stores its data, __threadfence(),
 * a barrier of the writing threads, then one thread ptx_st_release_gpu(flag, value); reader
 * side: one thread spins on ptx_ld_acquire_gpu(flag) until it sees the value, a barrier, then
 * every thread reads the data (with ld.global.cg: L2, not a stale L1 line); or every reading
 * thread spins on the flag itself and needs no barrier (lesson 08's sk_gather). */
static __device__ __forceinline__ void ptx_st_release_gpu(unsigned *flag, unsigned v) {
    asm volatile("st.release.gpu.global.u32 [%0], %1;\n" ::"l"(flag), "r"(v) : "memory");
}
static __device__ __forceinline__ unsigned ptx_ld_acquire_gpu(const unsigned *flag) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(flag) : "memory");
    return v;
}

#endif /* __CUDACC__ */

#endif /* GEMM_PTX_H */

/* bank_model.h - a model of shared-memory bank conflicts (host C, for bank_conflicts.c and the
 * CPU tests of lessons 05-07).
 *
 * Shared memory has 32 banks of 4 bytes (CUDA C++ Programming Guide, "Shared Memory"). A
 * warp-wide access of 16 bytes per lane is served in phases of 8 lanes (128 bytes each):
 * ldmatrix.x4 phase q = the 8 row addresses of matrix q (lanes 8q..8q+7); a 16-byte store
 * (cp.async) phase q = lanes 8q..8q+7. A phase needs as many wavefronts as the largest number
 * of distinct 4-byte words any one bank must serve.
 */
#ifndef LESSON06_BANK_MODEL_H
#define LESSON06_BANK_MODEL_H

/* bank_wavefronts_n: the wavefronts of a warp-wide access of `bytes` (4, 8 or 16) per lane,
 * addr[l] the byte address lane l starts at. The warp is served in phases of 128/bytes lanes
 * (128 bytes each); a phase needs as many wavefronts as the most distinct 4-byte words any one
 * bank must serve. The ideal is 32*bytes/128: 1 for 4 bytes, 2 for 8, 4 for 16.
 *   e.g. 32 lanes reading 32 consecutive 16-byte chunks: bank_wavefronts_n(addr, 16) == 4 */
static inline int bank_wavefronts_n(const int addr[32], int bytes) {
    const int lanes = 128 / bytes, nwords = bytes / 4;
    int total = 0;
    for (int q = 0; q < 32 / lanes; ++q) {
        int words[32][32]; /* per bank, distinct word addresses seen in this phase */
        int count[32] = {0};
        int worst = 1;
        for (int l = lanes * q; l < lanes * q + lanes; ++l)
            for (int w = 0; w < nwords; ++w) {
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

/* bank_wavefronts: a 16-byte-per-lane access (ldmatrix.x4 phase q = the 8 row addresses of
 * matrix q; a 16-byte store phase q = lanes 8q..8q+7). The ideal is 4; result - 4 extra
 * wavefronts are bank conflicts. */
static inline int bank_wavefronts(const int addr[32]) { return bank_wavefronts_n(addr, 16); }

/* bank_wavefronts32: a 4-byte access (st.shared.b32): one phase of all 32 lanes. Ideal 1. */
static inline int bank_wavefronts32(const int addr[32]) { return bank_wavefronts_n(addr, 4); }

/* bank_wavefronts64: an 8-byte access (st.shared.v2.b32): two phases of 16 lanes. Ideal 2. */
static inline int bank_wavefronts64(const int addr[32]) { return bank_wavefronts_n(addr, 8); }

#endif /* LESSON06_BANK_MODEL_H */

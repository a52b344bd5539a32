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

/* bank_wavefronts: the wavefronts of a warp-wide 16-byte-per-lane access, addr[l] the byte
 * address lane l starts at. The ideal is 4; result - 4 extra wavefronts are bank conflicts.
 *   e.g. 32 lanes reading 32 consecutive 16-byte chunks: 4 */
static inline int bank_wavefronts(const int addr[32]) {
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

/* bank_wavefronts32: the wavefronts of a warp-wide 4-byte access (st.shared.b32): one phase of
 * all 32 lanes; the most distinct words any one bank must serve. The ideal is 1. */
static inline int bank_wavefronts32(const int addr[32]) {
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

#endif /* LESSON06_BANK_MODEL_H */

/* Host for tests/kernels/simt_block.qd: the block collectives with a user operator and the
 * block radix rank, checked exactly against results computed here from the inputs alone
 * (every thread of every block; the blocks are full, as Quadrants requires). */
#include "simt_block.h"
#include "common.h" /* examples/host/common.h */

enum { NG = 5, NR = 3 };

static int32_t first_nonzero(int32_t a, int32_t b) { return a != 0 ? a : b; }

/* reduce / reduce_all / inclusive_scan / exclusive_scan over blocks of bd lanes */
static int check_generic(const int32_t *a, const int32_t *out, int n, int bd, int add) {
    int bad = 0;
    for (int b0 = 0; b0 < n; b0 += bd) {
        int32_t fnz = 0, x = 0, inc = 0, exx = 0;
        float exf = 0.5f;
        for (int l = 0; l < bd; l++) fnz = first_nonzero(fnz, a[b0 + l] + add), x ^= a[b0 + l] + add;
        for (int l = 0; l < bd; l++) {
            int32_t v = a[b0 + l] + add;
            inc = first_nonzero(inc, v);
            int32_t want[NG] = {fnz, x, inc, exx, (int32_t)exf};
            for (int k = 0; k < NG; k++)
                if (out[(size_t)(b0 + l) * NG + k] != want[k] && bad++ < 5)
                    fprintf(stderr, "block_dim %d lane %d column %d: got %d, want %d\n", bd, b0 + l, k, out[(size_t)(b0 + l) * NG + k], want[k]);
            exx ^= v, exf = l == 0 ? (float)v : exf + (float)v;
        }
    }
    return bad;
}

/* rank = excl_prefix[digit] + the earlier lanes of the block with the same digit */
static int check_rank(const uint32_t *keys, const int32_t *out, int n, int bd, int bit_start, int num_bits) {
    int bad = 0;
    for (int b0 = 0; b0 < n; b0 += bd) {
        int32_t bins[256] = {0}, excl[256] = {0}, seen[256] = {0};
        for (int l = 0; l < bd; l++) bins[(keys[b0 + l] >> bit_start) & ((1u << num_bits) - 1)]++;
        for (int d = 1; d < bd; d++) excl[d] = excl[d - 1] + bins[d - 1];
        for (int l = 0; l < bd; l++) {
            int d = (int)((keys[b0 + l] >> bit_start) & ((1u << num_bits) - 1));
            int32_t want[NR] = {excl[d] + seen[d]++, bins[l], excl[l]};
            for (int k = 0; k < NR; k++)
                if (out[(size_t)(b0 + l) * NR + k] != want[k] && bad++ < 5)
                    fprintf(stderr, "radix rank block_dim %d lane %d column %d: got %d, want %d\n", bd, b0 + l, k, out[(size_t)(b0 + l) * NR + k], want[k]);
        }
    }
    return bad;
}

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 4608) / 768 * 768; /* whole blocks of 8, 96 and 256 */
    if (n == 0) n = 768;
    int32_t *a = host_alloc((size_t)n, 4), *out = host_alloc((size_t)n * NG, 4);
    uint32_t *keys = host_alloc((size_t)n, 4);
    for (int i = 0; i < n; i++) {
        uint32_t r = host_rand();
        a[i] = r % 4 == 0 ? (int32_t)(host_rand() % 2001) - 1000 : 0; /* mostly zeros: first_nonzero has work */
        /* half the blocks: 16 digit values only (many lanes match); the others: any key */
        keys[i] = (i / 256) % 2 ? host_rand() : (host_rand() & 0xFFFF00F0u) | ((host_rand() % 16) << 8) | (r & 15) << 11;
    }
    int bad = 0;
#define GEN(name, bd, add)                                                    \
    {                                                                         \
        name##_args ga = {a, {n}, out, {n, NG}};                              \
        if (!host_launch_ok(name(&ga, nt))) return 2;                         \
        int b = check_generic(a, out, n, bd, add);                            \
        printf("block_dim %d, user operators: %s\n", bd, b ? "WRONG" : "exact"); \
        bad += b;                                                             \
    }
    GEN(gen8, 8, 0) GEN(gen96, 96, 0) GEN(gen256, 256, 1)
#define RANK(name, bd, bs, nb)                                                \
    {                                                                         \
        name##_args ra = {keys, {n}, out, {n, NR}};                           \
        if (!host_launch_ok(name(&ra, nt))) return 2;                         \
        int b = check_rank(keys, out, n, bd, bs, nb);                         \
        printf("radix rank, block_dim %d, bits %d..%d: %s\n", bd, bs, bs + nb - 1, b ? "WRONG" : "exact"); \
        bad += b;                                                             \
    }
    RANK(rank_low, 256, 0, 8) RANK(rank_high, 256, 11, 5) RANK(rank64, 64, 3, 4)
    free(a), free(out), free(keys);
    return bad != 0;
}

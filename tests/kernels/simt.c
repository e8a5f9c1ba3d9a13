/* Host for tests/kernels/simt.qd: a model of libqdrt's subgroups (32 consecutive lanes of a
 * block; fewer in a block's last subgroup) computes every collective, and each output must
 * match it exactly, whatever the thread count. */
#include "simt.h"
#include "common.h" /* examples/host/common.h */
#include <math.h>

enum { W = 32, NI = 22 };

/* The model's subgroup: values v[0..n), this lane me. */
typedef struct { const int32_t *v; int n, me; } Sg;

static int32_t at(Sg s, int src) { return src >= 0 && src < s.n ? s.v[src] : s.v[s.me]; }

/* Quadrants' shuffle_down tree of reduce_add_tiled (own value past the end), for every lane. */
static int32_t reduce_tiled(Sg s, int log2) {
    int32_t cur[W];
    for (int l = 0; l < s.n; l++) cur[l] = s.v[l];
    for (int i = 0; i < log2; i++) {
        int off = 1 << (log2 - 1 - i);
        int32_t nxt[W];
        for (int l = 0; l < s.n; l++) nxt[l] = (int32_t)((uint32_t)cur[l] + (uint32_t)(l + off < s.n ? cur[l + off] : cur[l]));
        for (int l = 0; l < s.n; l++) cur[l] = nxt[l];
    }
    return cur[s.me];
}

/* Hillis-Steele over groups of 2**log2 lanes (shuffle_up: own value below 0). */
static int32_t scan_tiled(const int32_t *in, int n, int me, int log2, int op) {
    int32_t cur[W];
    for (int l = 0; l < n; l++) cur[l] = in[l];
    for (int i = 0; i < log2; i++) {
        int off = 1 << i;
        int32_t nxt[W];
        for (int l = 0; l < n; l++) {
            int32_t p = l - off >= 0 ? cur[l - off] : cur[l];
            int32_t c = op == 0 ? (int32_t)((uint32_t)p + (uint32_t)cur[l]) : (p < cur[l] ? p : cur[l]);
            nxt[l] = (l & ((1 << log2) - 1)) >= off ? c : cur[l];
        }
        for (int l = 0; l < n; l++) cur[l] = nxt[l];
    }
    return cur[me];
}

/* op over lanes [h, me], h the nearest lane at or below me in its group of g lanes whose head
 * predicate holds (the group's first lane if none). */
static int32_t segmented(Sg s, int g, int (*head)(int32_t), int max) {
    int gb = s.me & ~(g - 1), h = gb;
    for (int l = gb; l <= s.me; l++)
        if (head(s.v[l])) h = l;
    int32_t acc = s.v[h];
    for (int l = h + 1; l <= s.me; l++) acc = max ? (s.v[l] > acc ? s.v[l] : acc) : (int32_t)((uint32_t)acc + (uint32_t)s.v[l]);
    return acc;
}
static int head8(int32_t v) { return (v & 7) == 0; }
static int head4(int32_t v) { return (v & 3) == 0; }

static void expect_ints(Sg s, const int32_t *got, int *bad) {
    int32_t sum = 0, inc = 0, exmax = INT32_MIN, exxor = 0, mn = INT32_MAX, allp = 1, anyp = 0, mul = 1;
    uint32_t ballot = 0, match = 0;
    for (int l = 0; l < s.n; l++) {
        sum = (int32_t)((uint32_t)sum + (uint32_t)s.v[l]);
        if (s.v[l] < mn) mn = s.v[l];
        allp &= s.v[l] > -900, anyp |= s.v[l] > 990;
        if (s.v[l] > 0) ballot |= 1u << l;
        if ((s.v[l] & 3) == (s.v[s.me] & 3)) match |= 1u << l;
    }
    for (int l = 0; l <= s.me; l++) {
        inc = (int32_t)((uint32_t)inc + (uint32_t)s.v[l]);
        mul = (int32_t)((uint32_t)mul * (uint32_t)(s.v[l] & 3));
        if (l < s.me) {
            if (s.v[l] > exmax) exmax = s.v[l];
            exxor ^= s.v[l];
        }
    }
    int32_t bfly = s.v[s.me]; /* reduce_all_max_tiled(v, 4): xor butterfly, partner own past the end */
    {
        int32_t cur[W];
        for (int l = 0; l < s.n; l++) cur[l] = s.v[l];
        for (int m = 1; m < 16; m <<= 1) {
            int32_t nxt[W];
            for (int l = 0; l < s.n; l++) {
                int32_t p = (l ^ m) < s.n ? cur[l ^ m] : cur[l];
                nxt[l] = p > cur[l] ? p : cur[l];
            }
            for (int l = 0; l < s.n; l++) cur[l] = nxt[l];
        }
        bfly = cur[s.me];
    }
    int32_t allsum = s.v[s.me]; /* reduce_all_add_tiled(v, 5): the xor butterfly over 32 lanes */
    {
        int32_t cur[W];
        for (int l = 0; l < s.n; l++) cur[l] = s.v[l];
        for (int m = 1; m < W; m <<= 1) {
            int32_t nxt[W];
            for (int l = 0; l < s.n; l++) nxt[l] = (int32_t)((uint32_t)cur[l] + (uint32_t)((l ^ m) < s.n ? cur[l ^ m] : cur[l]));
            for (int l = 0; l < s.n; l++) cur[l] = nxt[l];
        }
        allsum = cur[s.me];
    }
    int32_t shifted[W]; /* exclusive_add_tiled(v, 3): shift up by one, identity at each group's lane 0 */
    for (int l = 0; l < s.n; l++) shifted[l] = (l & 7) == 0 ? 0 : (l - 1 >= 0 ? s.v[l - 1] : s.v[l]);
    int32_t want[NI] = {
        s.me, sum, inc, exmax, at(s, s.me ^ 1), at(s, s.me + 3), reduce_tiled(s, 3), (int32_t)ballot,
        scan_tiled(s.v, s.n, s.me, 2, 1), W, at(s, s.me - 5), allp * 2 + anyp, exxor, bfly,
        scan_tiled(shifted, s.n, s.me, 3, 0), at(s, 2) + (s.me == 0) * 1000000, at(s, (s.me ^ 2) & 31),
        (int32_t)match, (int32_t)((uint32_t)mul + (uint32_t)mn * 7u), segmented(s, 8, head8, 0), segmented(s, W, head4, 1),
        allsum,
    };
    for (int k = 0; k < NI; k++)
        if (got[k] != want[k]) {
            if (*bad < 5) fprintf(stderr, "lane %d of %d, column %d: got %d, want %d\n", s.me, s.n, k, got[k], want[k]);
            ++*bad;
        }
}

/* Calls check(sg, i) for every lane i of an extent n run in blocks of bd lanes. */
#define EACH_LANE(n, bd, ...)                                                               \
    for (int b0 = 0; b0 < n; b0 += bd) {                                                    \
        int lanes = n - b0 < bd ? n - b0 : bd;                                              \
        for (int s0 = 0; s0 < lanes; s0 += W) {                                             \
            int cnt = lanes - s0 < W ? lanes - s0 : W;                                      \
            for (int me = 0; me < cnt; me++) {                                              \
                int i = b0 + s0 + me, base = b0 + s0;                                       \
                __VA_ARGS__                                                                 \
            }                                                                               \
        }                                                                                   \
    }

static int check_ints(const int32_t *a, const int32_t *out, int n, int bd) {
    int bad = 0;
    EACH_LANE(n, bd, {
        Sg s = {a + base, cnt, me};
        if (bd < W) s.n = cnt; /* the block is the whole subgroup */
        expect_ints(s, out + (size_t)i * NI, &bad);
    })
    return bad;
}

static int check_wide(const int32_t *a, const float *f, const int64_t *d, int n) {
    int bad = 0;
    EACH_LANE(n, 64, {
        float sum = 0, mn = INFINITY, exmin = INFINITY;
        int64_t inc = 0, mx = INT64_MIN;
        uint64_t ballot = 0;
        for (int l = 0; l < cnt; l++) {
            float x = (float)a[base + l];
            int64_t y = (int64_t)a[base + l] * 4000000000;
            sum += x, mn = x < mn ? x : mn, mx = y > mx ? y : mx;
            if (l < me) exmin = x < exmin ? x : exmin;
            if (l <= me) inc += y;
            if (a[base + l] & 1) ballot |= 1ull << l;
        }
        int src = 31 - me;
        int64_t shuf = (int64_t)a[base + (src < cnt ? src : me)] * 4000000000;
        float wf[4] = {sum, mn, (float)a[base], exmin};
        int64_t wd[4] = {inc, shuf, mx, (int64_t)ballot};
        for (int k = 0; k < 4; k++) {
            if (f[(size_t)i * 4 + k] != wf[k]) bad++, fprintf(stderr, "wide f lane %d col %d: got %g want %g\n", i, k, f[(size_t)i * 4 + k], wf[k]);
            if (d[(size_t)i * 4 + k] != wd[k]) bad++, fprintf(stderr, "wide d lane %d col %d: got %lld want %lld\n", i, k, (long long)d[(size_t)i * 4 + k], (long long)wd[k]);
            if (bad > 5) return bad;
        }
    })
    return bad;
}

/* qd.simt.block.* over blocks of 96 lanes (3 subgroups), every block full. */
enum { NB = 9, BD = 96 };
static int check_blocks(const int32_t *a, const int32_t *out, int n) {
    int bad = 0;
    for (int b0 = 0; b0 < n; b0 += BD) {
        int32_t sum = 0, mx = INT32_MIN, all = 1, any = 0, cnt = 0, inc = 0, exmin = INT32_MAX, incmax = INT32_MIN, exadd = 0;
        for (int l = 0; l < BD; l++) {
            int32_t v = a[b0 + l];
            sum += v, mx = v > mx ? v : mx, all &= v > -990, any |= v > 995, cnt += v > 0;
        }
        for (int l = 0; l < BD; l++) {
            int32_t v = a[b0 + l];
            inc += v, incmax = v > incmax ? v : incmax;
            int32_t want[NB] = {sum, mx, inc, exmin, all, any, cnt, incmax, exadd};
            for (int k = 0; k < NB; k++)
                if (out[(size_t)(b0 + l) * NB + k] != want[k] && bad++ < 5)
                    fprintf(stderr, "block lane %d column %d: got %d, want %d\n", b0 + l, k, out[(size_t)(b0 + l) * NB + k], want[k]);
            exmin = v < exmin ? v : exmin, exadd += v;
        }
    }
    return bad;
}

/* bitonic_sort_kv over two 32-lane subgroups (the first 20 lanes real, the rest +1e30 sentinels)
 * and bitonic_sort_kv_tiled over groups of 8 with repeated keys (ties break on the value). */
static int check_sort(void) {
    float keys[128];
    int32_t idxs[128], in[64];
    for (int t = 0; t < 64; t++) keys[t] = (float)(host_rand() % 1000) * 0.5f, idxs[t] = in[t] = (int32_t)(host_rand() % 97);
    sort_pairs_args sa = {keys, {128}, idxs, {128}, 20};
    if (!host_launch_ok(sort_pairs(&sa, 1))) return 1;
    int bad = 0;
    for (int g = 0; g < 2; g++)
        for (int t = 1; t < 20; t++) {
            int i = g * 32 + t;
            if (keys[i - 1] > keys[i] || (keys[i - 1] == keys[i] && idxs[i - 1] > idxs[i])) bad++;
        }
    for (int b = 0; b < 64; b += 8) /* keys in % 5, values the lane: lex order of (in % 5, lane) */
        for (int t = b; t < b + 8; t++) {
            int rank = 0, me = t;
            for (int u = b; u < b + 8; u++) rank += in[u] % 5 < in[me] % 5 || (in[u] % 5 == in[me] % 5 && u < me);
            if (keys[64 + b + rank] != (float)(in[me] % 5) || idxs[64 + b + rank] != me) bad++;
        }
    return bad;
}

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 4099);
    int32_t *a = host_alloc((size_t)n, 4), *out = host_alloc((size_t)n * NI, 4);
    float *f = host_alloc((size_t)n * 4, 4);
    int64_t *d = host_alloc((size_t)n * 4, 8);
    for (int i = 0; i < n; i++) a[i] = (int32_t)(host_rand() % 2001) - 1000;
    int bad = 0;
#define RUN(name, bd)                                                        \
    {                                                                        \
        name##_args ia = {a, {n}, out, {n, NI}};                             \
        if (!host_launch_ok(name(&ia, nt))) return 2;                        \
        int b = check_ints(a, out, n, bd);                                   \
        printf("block_dim %d: %s\n", bd, b ? "WRONG" : "exact");             \
        bad += b;                                                            \
    }
    RUN(ints8, 8) RUN(ints32, 32) RUN(ints64, 64) RUN(ints96, 96)
    int nb = n / BD * BD;
    int32_t *bo = host_alloc((size_t)n * NB, 4);
    blocks_args ba = {a, {n}, bo, {n, NB}, nb};
    if (!host_launch_ok(blocks(&ba, nt))) return 2;
    int bb = check_blocks(a, bo, nb);
    printf("block collectives: %s\n", bb ? "WRONG" : "exact");
    bad += bb;
    free(bo);
    wide_args wa = {a, {n}, f, {n, 4}, d, {n, 4}};
    if (!host_launch_ok(wide(&wa, nt))) return 2;
    int b = check_wide(a, f, d, n);
    printf("f32 and i64 collectives: %s\n", b ? "WRONG" : "exact");
    bad += b;
    int32_t one[2] = {0, 7}; /* a serial task: a subgroup of one lane */
    alone_args oa = {one, {2}};
    if (!host_launch_ok(alone(&oa, nt))) return 2;
    printf("serial task: %s\n", one[0] == 10007 ? "exact" : "WRONG");
    bad += one[0] != 10007;
    int sb = check_sort();
    printf("bitonic sorts: %s\n", sb ? "WRONG" : "exact");
    bad += sb;
    free(a), free(out), free(f), free(d);
    return bad != 0;
}

/* The exact results of tests/kernels/simt_reductions.qd, computed from its inputs alone: shared
 * by the x86 host (simt_reductions.c) and the Vulkan run (tests/unit/test_simt.c). Each returns
 * the number of wrong values (the first five are printed on stderr). */
#ifndef SIMT_REDUCTIONS_CHECK_H
#define SIMT_REDUCTIONS_CHECK_H
#include <stdint.h>
#include <stdio.h>

enum { SR_NC = 8 };
#define SR_ONE 0x01000001u

/* 2x2 matrices of bytes, entry (r, c) in byte 2r + c; the product mod 256 */
static inline uint32_t sr_mul(uint32_t a, uint32_t b) {
    uint32_t r = 0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            uint32_t e = 0;
            for (int k = 0; k < 2; k++) e += ((a >> (8 * (2 * i + k))) & 255) * ((b >> (8 * (2 * k + j))) & 255);
            r |= (e & 255) << (8 * (2 * i + j));
        }
    return r;
}

/* lane i of groups of 2**log2: the inclusive left fold (or exclusive, from SR_ONE) of its group */
static inline uint32_t sr_scan(const uint32_t *a, int i, int log2, int exclusive) {
    int g = i & ~((1 << log2) - 1);
    uint32_t r = SR_ONE;
    for (int l = g; l < i + !exclusive; l++) r = sr_mul(r, a[l]);
    return r;
}

/* the shuffle_down tree's value in the first lane of a group: op(v[j], v[j + off]), off halving */
static inline uint32_t sr_tree(const uint32_t *a, int g, int log2) {
    uint32_t v[64];
    for (int l = 0; l < (1 << log2); l++) v[l] = a[g + l];
    for (int off = (1 << log2) / 2; off >= 1; off /= 2)
        for (int l = 0; l < off; l++) v[l] = sr_mul(v[l], v[l + off]);
    return v[0];
}

static inline uint32_t sr_dist(const uint32_t *a, int i, int log2, uint32_t mask) {
    int h = i & ~((1 << log2) - 1);
    for (int l = h; l <= i; l++)
        if ((a[l] & mask) == 0) h = l;
    return (uint32_t)(i - h);
}

static inline int sr_report(int i, int k, uint32_t got, uint32_t want, int bad) {
    if (got != want && bad < 5) fprintf(stderr, "simt_reductions: lane %d column %d: got %#x, want %#x\n", i, k, got, want);
    return got != want;
}

static inline int sr_check_tiles(const uint32_t *a, const uint32_t *out, int n) {
    int bad = 0;
    for (int i = 0; i < n; i++) {
        const uint32_t *o = out + (size_t)i * SR_NC;
        uint32_t sum = 0, sum4 = 0;
        for (int l = i & ~7; l <= i; l++) sum += a[l];
        for (int l = i & ~3; l <= i; l++) sum4 += a[l];
        uint32_t want[SR_NC] = {sr_scan(a, i, 1, 0), sr_scan(a, i, 2, 0), sr_scan(a, i, 3, 0), sr_scan(a, i, 3, 1),
                                sr_tree(a, i & ~7, 3), sum, sum4, sr_dist(a, i, 3, 3)};
        for (int k = 0; k < SR_NC; k++)
            if (k != 4 || i % 8 == 0) bad += sr_report(i, k, o[k], want[k], bad); /* the tree: lane 0 of each group */
    }
    return bad;
}

static inline int sr_check_wide(const uint32_t *a, const uint32_t *out, int n) {
    int bad = 0;
    for (int i = 0; i < n; i++) {
        const uint32_t *o = out + (size_t)i * SR_NC;
        uint32_t want[5] = {sr_scan(a, i, 5, 0), sr_scan(a, i, 5, 1), sr_tree(a, i & ~31, 5), sr_dist(a, i, 5, 15),
                            a[i] < 0x80000000u ? a[i] : 0x80000000u};
        for (int k = 0; k < 5; k++)
            if (k != 2 || i % 32 == 0) bad += sr_report(i, k, o[k], want[k], bad);
    }
    return bad;
}
#endif

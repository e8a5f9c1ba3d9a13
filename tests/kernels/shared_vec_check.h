/* The exact results of tests/kernels/shared_vec.qd, computed from its inputs alone: shared by
 * the x86 host (shared_vec.c) and the Vulkan run (tests/unit/test_shared_vec.c). Returns the
 * number of wrong values (the first five are printed on stderr). */
#ifndef SHARED_VEC_CHECK_H
#define SHARED_VEC_CHECK_H
#include <stdint.h>
#include <stdio.h>

enum { BD = 32, NC = 12 };

static int shared_vec_check(const int32_t *a, const int32_t *out, int n) {
    int bad = 0;
    for (int b0 = 0; b0 < n; b0 += BD) {
        int32_t mx[4] = {-5000, -5000, -5000, -5000};
        for (int l = 0; l < BD; l++) mx[l % 4] = a[b0 + l] > mx[l % 4] ? a[b0 + l] : mx[l % 4];
        for (int l = 0; l < BD; l++) {
            int32_t v = a[b0 + l], nx = a[b0 + (l + 1) % BD], t = (l + 3) % 8;
            int32_t m[4] = {v, 100 + v, -nx, -v};
            m[l % 4] += 1;
            int32_t want[NC] = {m[0], m[1], m[2], m[3], nx, 8 + 80, mx[l % 4], t + 2, 2 + 2 * t * t, (l % 8) * (l % 8),
                                v + (l + 5) % BD, 1};
            for (int k = 0; k < NC; k++)
                if (out[(size_t)(b0 + l) * NC + k] != want[k] && bad++ < 5)
                    fprintf(stderr, "shared_vec: lane %d column %d: got %d, want %d\n", b0 + l, k, out[(size_t)(b0 + l) * NC + k], want[k]);
        }
    }
    return bad;
}
#endif

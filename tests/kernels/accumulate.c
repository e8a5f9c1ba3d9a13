/* Host for tests/kernels/accumulate.qd: exact totals after >= 10^6 contended operations each. */
#include "accumulate.h"
#include "common.h" /* examples/host/common.h */
#include <math.h>

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 1 << 20), m = 1 << 20;
    int32_t *x = host_alloc((size_t)n, 4), prod = 0;
    uint32_t wrap[2] = {7, 7}, p3 = 1;
    float *fv = host_alloc((size_t)m, 4), fmm[2] = {0, 0}, lo = 1e30f, hi = -1e30f;
    int64_t s = 0;
    for (int i = 0; i < n; i++) x[i] = (int32_t)(host_rand() % 2001) - 1000, s += x[i], p3 *= 3u;
    for (int i = 0; i < m; i++) {
        fv[i] = i % 7 == 3 ? NAN : (float)((int32_t)host_rand() % 100000) / 8.0f;
        if (!isnan(fv[i]) && fv[i] < lo) lo = fv[i];
        if (!isnan(fv[i]) && fv[i] > hi) hi = fv[i];
    }
    accumulate_args a = {x, {n}, &prod, {1}, wrap, {2}, fv, {m}, fmm, {2}};
    if (!host_launch_ok(accumulate(&a, nt))) return 2;
    int ok_sum = qd_field_total == (int32_t)s, ok_big = qd_field_big == s * 1000000;
    int ok_mul = (uint32_t)prod == p3;
    int ok_wrap = wrap[0] == (uint32_t)(n % 10) && wrap[1] == (uint32_t)((10 - n % 10) % 10);
    int ok_f = fmm[0] == lo && fmm[1] == hi;
    printf("sum %s, i64 %s, mul %s, inc/dec wrap %s (%u, %u), f32 min/max with NaN %s (%.3f, %.3f)\n",
           ok_sum ? "exact" : "WRONG", ok_big ? "exact" : "WRONG", ok_mul ? "exact" : "WRONG",
           ok_wrap ? "exact" : "WRONG", wrap[0], wrap[1], ok_f ? "exact" : "WRONG", fmm[0], fmm[1]);
    free(x), free(fv);
    return !(ok_sum && ok_big && ok_mul && ok_wrap && ok_f);
}

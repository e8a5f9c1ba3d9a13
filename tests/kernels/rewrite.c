/* Host for tests/kernels/rewrite.qd: every reduction against a C reference, whether qdc
 * rewrote it per worker or kept one atomic per execution. Integers exactly; the reassociated
 * f32 sum within 1e-4 relative of the double sum (each of the n terms is in [0, 1)). */
#include "rewrite.h"
#include "common.h" /* examples/host/common.h */
#include <math.h>

#define CHECK(name, cond) (ok &= (cond), printf(" %s %s", name, (cond) ? "ok" : "WRONG"))

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 1 << 20);
    int32_t *a = host_alloc((size_t)n, 4), *out = host_alloc((size_t)n, 4);
    float *x = host_alloc((size_t)n, 4);
    uint32_t r0 = 0, umin = UINT32_MAX;
    int32_t imin = INT32_MAX, imax = INT32_MIN, iand = -1, ior = 0, ixor = 0, odd = 0, pos = 0;
    int64_t l0 = 0, lmax = INT64_MIN;
    double fsum = 0;
    float exact = 0, fmn = INFINITY, fmx = -INFINITY;
    for (int i = 0; i < n; i++) {
        a[i] = (int32_t)host_rand();
        x[i] = i % 1000 == 7 ? NAN : (float)(host_rand() >> 8) / (float)(1 << 24);
        r0 += (uint32_t)a[i];
        if (a[i] < imin) imin = a[i];
        if (a[i] > imax) imax = a[i];
        if ((uint32_t)a[i] < umin) umin = (uint32_t)a[i];
        iand &= a[i] | 0x7F000000, ior |= a[i] & 0x0F0F, ixor ^= a[i], odd += a[i] & 1, pos += a[i] > 0;
        l0 += (int64_t)a[i] * 3;
        if ((int64_t)a[i] * 4 > lmax) lmax = (int64_t)a[i] * 4;
        if (isnan(x[i])) continue;
        fsum += x[i], exact += floorf(x[i] * 8.0f);
        if (x[i] < fmn) fmn = x[i];
        if (x[i] > fmx) fmx = x[i];
    }
    uint32_t sub = 0; /* wraps like the kernel's i32 (unsigned: defined in C) */
    for (int i = 0; i < n; i++) sub -= (uint32_t)(a[i] >> 3);
    qd_field_iv[2] = INT32_MAX, qd_field_iv[3] = INT32_MIN, qd_field_iv[4] = -1;
    qd_field_uv[1] = UINT32_MAX, qd_field_lv[1] = INT64_MIN;
    qd_field_fx[0] = NAN, qd_field_fx[1] = NAN; /* minNum: the first number replaces a NaN */
    ints_args ia = {a, {n}, 7};
    floats_args fa = {x, {n}};
    counted_args ca = {a, {n}, out, {n}};
    float got_exact = 0;
    if (!host_launch_ok(ints(&ia, nt)) || !host_launch_ok(floats(&fa, nt, &got_exact)) || !host_launch_ok(counted(&ca, nt)))
        return 2;
    int ok = 1, filled = 0;
    for (int i = 0; i < n; i++) filled += out[i];
    printf("rewrite:");
    CHECK("add", (uint32_t)qd_field_iv[0] == r0);
    CHECK("sub", (uint32_t)qd_field_iv[1] == sub);
    CHECK("min", qd_field_iv[2] == imin);
    CHECK("max", qd_field_iv[3] == imax);
    CHECK("and", qd_field_iv[4] == iand);
    CHECK("or", qd_field_iv[5] == ior);
    CHECK("xor", qd_field_iv[6] == ixor);
    CHECK("cond", qd_field_cnt[7] == odd);
    CHECK("umin", qd_field_uv[1] == umin && qd_field_uv[0] == 5);
    CHECK("i64", qd_field_lv[0] == l0 && qd_field_lv[1] == lmax);
    CHECK("fsum", fabs((double)qd_field_fs - fsum) <= 1e-4 * fsum);
    CHECK("fexact", got_exact == exact);
    CHECK("fmin", qd_field_fx[0] == fmn && qd_field_fx[1] == fmx);
    CHECK("slots", qd_field_slots == pos && filled == pos);
    printf("\n");
    free(a), free(out), free(x);
    return !ok;
}

/* Host for tests/kernels/struct_return.qd: struct and tuple returns read through the header's
 * <kernel>_ret typedefs, every member checked exactly. */
#include "struct_return.h"
#include "common.h" /* examples/host/common.h */

static int bad;

static void expect(int ok, const char *what) {
    if (!ok && bad++ < 5) fprintf(stderr, "struct_return: wrong %s\n", what);
}

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 4096);
    if (n < 8) n = 8;
    nested_ret r = {0};
    nested_args na = {3.0f};
    if (!host_launch_ok(nested(&na, nt, &r))) return 2;
    expect(r.a == 3.0f, "nested.a");
    expect(r.b.a[0] == 100.0f && r.b.a[1] == 0.25f && r.b.a[2] == 3.0f, "nested.b.a");
    expect(r.b.b == 1, "nested.b.b (65537 as i16)");
    expect(r.m[0][0] == 3 && r.m[0][1] == 6 && r.m[1][0] == 9 && r.m[1][1] == -12, "nested.m");
    pair_ret p = {0};
    pair_args pa = {1.5f};
    if (!host_launch_ok(pair(&pa, nt, &p))) return 2;
    expect(p._0 == 3.0f, "pair[0]");
    expect(p._1.a[0] == 1.5f && p._1.a[1] == 2.0f && p._1.a[2] == 3.0f && p._1.b == -7, "pair[1]");
    int32_t *a = host_alloc((size_t)n, 4);
    int64_t sum = 0;
    for (int i = 0; i < n; i++) a[i] = (int32_t)(host_rand() % 2001) - 1000, sum += a[i];
    summed_ret s = {0};
    summed_args sa = {a, {n}, 5};
    if (!host_launch_ok(summed(&sa, nt, &s))) return 2;
    expect(s._0 == (int32_t)sum, "summed[0]");
    expect(s._1.p[0] == 5 && s._1.p[1] == a[5] && s._1.w == 200, "summed[1]");
    expect(summed(&sa, nt, NULL) == 0, "a launch with ret NULL");
    flags_ret fl = {0, 1};
    flags_args fa = {5};
    if (!host_launch_ok(flags(&fa, nt, &fl))) return 2;
    expect(fl._0 == 1 && fl._1 == 0, "flags (bool, bool)");
    uint8_t pos = 0;
    positive_args pa2 = {2.5f};
    if (!host_launch_ok(positive(&pa2, nt, &pos))) return 2;
    expect(pos == 1, "positive -> bool");
    printf("struct and tuple returns: %s\n", bad ? "WRONG" : "exact");
    free(a);
    return bad != 0;
}

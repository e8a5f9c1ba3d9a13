/* Host for testdata/lang/hostfn.py: kernels of host functions under their FUNCTION__KERNEL entry
 * names, the function-local fields beside the module's x, the value a closure sees (m = 3 at
 * the first call, then 5 for the redefinition), and the instantiations inferred from calls;
 * every value exact. test_place is parametrized: its kernels are test_place__1__* and
 * test_place__2__* (one copy per value of 'unused'). */
#include "hostfn.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0, n = 64;
    top_args t = {0};
    test_fill__func_args f1 = {0};
    test_fill__func__def2_args f2 = {0};
    test_place__1__func_args p1 = {0};
    test_place__1__inner__func_args p2 = {0};
    test_generic__fill__f__7_args g1 = {0};
    test_generic__fill__g__m2_args g2 = {0};
    float *fa = host_alloc((size_t)n, 4);
    int32_t *ia = host_alloc((size_t)n, 4), *ib = host_alloc((size_t)n, 4);
    for (int i = 0; i < n; i++) fa[i] = (float)i * 0.25f, ia[i] = i - 7, ib[i] = 2 * i;
    test_generic__scale__f32_1d__3_args s1 = {fa, {n}};
    test_generic__scale__i32_1d__2_args s2 = {ia, {n}};
    test_named__bump__i32_1d__3_args b1 = {ib, {n}};
    if (!host_launch_ok(top(&t, nt)) || !host_launch_ok(test_fill__func(&f1, nt)) || !host_launch_ok(test_fill__func__def2(&f2, nt)) ||
        !host_launch_ok(test_place__1__func(&p1, nt)) || !host_launch_ok(test_place__1__inner__func(&p2, nt)) ||
        !host_launch_ok(test_generic__fill__f__7(&g1, nt)) || !host_launch_ok(test_generic__fill__g__m2(&g2, nt)) ||
        !host_launch_ok(test_generic__scale__f32_1d__3(&s1, nt)) || !host_launch_ok(test_generic__scale__i32_1d__2(&s2, nt)) ||
        !host_launch_ok(test_named__bump__i32_1d__3(&b1, nt)))
        return 2;
    for (int i = 0; i < n; i++) {
        bad += qd_field_x[i] != 1;
        bad += qd_field_test_fill__x[i] != i * 3 + 5;
        bad += *qd_field_test_place__1__a_at(i) != (float)i * 0.5f || *qd_field_test_place__1__b_at(i) != (float)i * 2.0f;
        bad += qd_field_test_generic__f[i] != 7 || qd_field_test_generic__g[i] != -2;
        bad += fa[i] != (float)i * 0.75f || ia[i] != (i - 7) * 2 || ib[i] != 2 * i + 3;
    }
    bad += qd_field_test_place__1__c != 2 * n;
    bad += qd_field_test_place__2__c != 0; /* test_place[2]'s kernels are separate and not launched */
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) bad += qd_field_test_place__1__inner__d[i][j] != i * 10 + j;
    printf("hostfn: %d wrong, c %d, x[3] %d\n", bad, qd_field_test_place__1__c, qd_field_test_fill__x[3]);
    free(fa), free(ia), free(ib);
    return bad != 0;
}

/* Host for testdata/lang/host2.py: a helper host function instantiated once per distinct call
 * (HELPER__ARGS__KERNEL, fields qd_field_HELPER__ARGS__NAME), a helper defined after the test
 * that calls it, template instantiations from host for loops and with/try blocks (put__0 ..
 * put__3), pytest's default for test_default(n=6), fastcache kernels, ndarray instantiations
 * from numpy methods (.T, .astype, .copy) and qd.ndarray(dtype=int), a helper called with a
 * lambda (that parameter run-time, spelled by its name), qd types passed to qd.template();
 * every value exact. */
#include "host2.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0;
    _fill__i32_8_2__fill_args f1 = {0};
    _fill__f32_8_2__fill_args f2 = {0};
    _fill__i32_4_3__fill_args f3 = {0};
    _fill__f32_4_3__fill_args f4 = {0};
    _late__5__late_args l1 = {0};
    put__0_args p0 = {1};
    put__1_args p1 = {0};
    put__2_args p2 = {0};
    put__3_args p3 = {2};
    test_default__store_args st = {0};
    int32_t *a = host_alloc(10, 4);
    for (int i = 0; i < 10; i++) a[i] = i - 3;
    test_default__twice_args tw = {a, {10}, 7};
    test_default__konst_args kn = {41};
    int32_t rtw = 0, rkn = 0;
    int32_t *v = host_alloc(4, 4);
    float *w = host_alloc(6, 4);
    for (int i = 0; i < 6; i++) w[i] = (float)i * 0.5f, v[i % 4] = i % 4 - 1;
    bump__i32_1d_args b1 = {v, {4}};
    bump__f32_2d_args b2 = {w, {2, 3}};
    _check__i32_pred_l125c20__seven_args c7 = {0};
    convert__i32__4_args cv1 = {0};
    convert__f32__4_args cv2 = {0};
    if (!host_launch_ok(_fill__i32_8_2__fill(&f1, nt)) || !host_launch_ok(_fill__f32_8_2__fill(&f2, nt)) ||
        !host_launch_ok(_fill__i32_4_3__fill(&f3, nt)) || !host_launch_ok(_fill__f32_4_3__fill(&f4, nt)) ||
        !host_launch_ok(_late__5__late(&l1, nt)) || !host_launch_ok(put__0(&p0, nt)) || !host_launch_ok(put__1(&p1, nt)) ||
        !host_launch_ok(put__2(&p2, nt)) || !host_launch_ok(put__3(&p3, nt)) || !host_launch_ok(put__3(&p3, nt)) ||
        !host_launch_ok(test_default__store(&st, nt)) || !host_launch_ok(test_default__twice(&tw, nt, &rtw)) ||
        !host_launch_ok(test_default__konst(&kn, nt, &rkn)) || !host_launch_ok(bump__i32_1d(&b1, nt)) ||
        !host_launch_ok(bump__f32_2d(&b2, nt)) || !host_launch_ok(_check__i32_pred_l125c20__seven(&c7, nt)) ||
        !host_launch_ok(convert__i32__4(&cv1, nt)))
        return 2;
    bad += qd_field_conv[0] != 0.0f || qd_field_conv[1] != 1.0f || qd_field_conv[2] != 3.0f || qd_field_conv[3] != 4.0f;
    if (!host_launch_ok(convert__f32__4(&cv2, nt))) return 2;
    bad += qd_field_conv[0] != 0.0f || qd_field_conv[1] != 1.5f || qd_field_conv[2] != 3.0f || qd_field_conv[3] != 4.5f;
    for (int i = 0; i < 8; i++)
        bad += qd_field__fill__i32_8_2__z[i] != 2 * i + 1 || qd_field__fill__f32_8_2__z[i] != (float)(2 * i + 1);
    for (int i = 0; i < 4; i++)
        bad += qd_field__fill__i32_4_3__z[i] != 3 * i + 1 || qd_field__fill__f32_4_3__z[i] != (float)(3 * i + 1);
    bad += qd_field__late__5__out != 50 || qd_field__check__i32_pred_l125c20__r != 7;
    /* acc[i * 4 + j] += i * 100 + j + 1: put__0 with i=1, put__1 i=0, put__2 i=0, put__3 i=2 twice */
    for (int k = 0; k < 16; k++) {
        int want = k == 4 ? 101 : k == 1 ? 2 : k == 2 ? 3 : k == 11 ? 2 * 204 : 0;
        bad += qd_field_acc[k] != want;
    }
    bad += qd_field_test_default__res != 6 || rtw != 7 * 15 /* sum of i - 3 for i < 10 */ || rkn != 42;
    for (int i = 0; i < 6; i++) bad += w[i] != (float)i * 0.5f + 1.0f || (i < 4 && v[i] != i);
    printf("host2: %d wrong, acc[11] %d, twice %d, late %d\n", bad, qd_field_acc[11], rtw, qd_field__late__5__out);
    free(a), free(v), free(w);
    return bad != 0;
}

/* Host for testdata/lang/param.py: the kernels of each parametrize combination under their
 * FUNCTION__COMBO__KERNEL names, each with its own fields and its own compile-time values
 * (getattr(qd, f"atomic_{op}") picks min or max; a, b, scale and k are baked in; test_branch's
 * `if` picks n = 16, 8 or 4); every value exact. */
#include "param.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0, n = 32;
    test_minmax__i32_min__kern_args m1 = {0};
    test_minmax__i32_max__kern_args m2 = {0};
    test_minmax__f32_min__kern_args m3 = {0};
    test_minmax__f32_max__kern_args m4 = {0};
    test_affine__2_1_2__affine_args a1 = {0};
    test_affine__m3_five__affine_args a2 = {0};
    test_affine__m3_3_m4__affine_args a3 = {0};
    test_math__2__roots_args r1 = {0};
    test_math__m3__roots_args r2 = {0};
    test_branch__True_field__count_args c1 = {0};
    test_branch__False_field__count_args c2 = {0};
    test_branch__True_ndarray__count_args c3 = {0};
    if (!host_launch_ok(test_minmax__i32_min__kern(&m1, nt)) || !host_launch_ok(test_minmax__i32_max__kern(&m2, nt)) ||
        !host_launch_ok(test_minmax__f32_min__kern(&m3, nt)) || !host_launch_ok(test_minmax__f32_max__kern(&m4, nt)) ||
        !host_launch_ok(test_affine__2_1_2__affine(&a1, nt)) || !host_launch_ok(test_affine__m3_five__affine(&a2, nt)) ||
        !host_launch_ok(test_affine__m3_3_m4__affine(&a3, nt)) || !host_launch_ok(test_math__2__roots(&r1, nt)) ||
        !host_launch_ok(test_math__m3__roots(&r2, nt)) || !host_launch_ok(test_branch__True_field__count(&c1, nt)) ||
        !host_launch_ok(test_branch__False_field__count(&c2, nt)) || !host_launch_ok(test_branch__True_ndarray__count(&c3, nt)))
        return 2;
    bad += qd_field_test_minmax__i32_min__r != -5 || qd_field_test_minmax__i32_max__r != 26;
    bad += qd_field_test_minmax__f32_min__r != -5.0f || qd_field_test_minmax__f32_max__r != 26.0f;
    bad += qd_field_test_branch__True_field__cnt != 16 || qd_field_test_branch__False_field__cnt != 4;
    bad += qd_field_test_branch__True_ndarray__cnt != 8 || qd_field_test_branch__False_ndarray__cnt != 0;
    for (int i = 0; i < n; i++) {
        bad += qd_field_test_affine__2_1_2__out[i] != (i + 2) * 2 + (i == 0 ? 1000 : 0);
        bad += qd_field_test_affine__m3_five__out[i] != (5 * i + 6) * -3 + (i == 0 ? 1000 : 0);
        bad += qd_field_test_affine__m3_3_m4__out[i] != (3 * i - 4) * -3 + (i == 0 ? 1000 : 0);
        bad += qd_field_test_affine__2_3_m4__out[i] != 0; /* never launched */
        bad += qd_field_test_math__2__y[i] != 2.0f * (float)i || qd_field_test_math__m3__y[i] != -3.0f * (float)i;
    }
    printf("param: %d wrong, min %d max %d, out[0] %d %d\n", bad, qd_field_test_minmax__i32_min__r, qd_field_test_minmax__i32_max__r,
           qd_field_test_affine__2_1_2__out[0], qd_field_test_affine__m3_five__out[0]);
    return bad != 0;
}

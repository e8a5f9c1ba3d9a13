/* Host for testdata/lang/pydataclass.py: a dataclass parameter is its members, flattened into
 * the argument struct as PARAM__MEMBER (nested: PARAM__INNER__MEMBER, vectors _0.._2); generic
 * members instantiated per call site (fields bound, a compile-time bias baked in, ndarrays
 * passed as PARAM__MEMBER); every value exact. */
#include "pydataclass.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0;
    float *x = host_alloc(8, 4), *p = host_alloc(4, 4), *q = host_alloc(4, 4);
    int32_t *y = host_alloc(8, 4), *z = host_alloc(8, 4);
    for (int i = 0; i < 8; i++) x[i] = -1.0f, y[i] = z[i] = -7;
    for (int i = 0; i < 4; i++) p[i] = 0.0f, q[i] = 1.5f * (float)i;
    outer_step_args o = {.s__inner__x = x, .s__inner__x_shape = {8}, .s__inner__w_0 = 1.0f, .s__inner__w_1 = 2.0f,
                         .s__inner__w_2 = 0.5f, .s__y = y, .s__y_shape = {8}, .s__scale = 0.25f, .s__n = 5, .z = z, .z_shape = {8}};
    test_fields__write__State_fa_fb_5_args w1 = {0};
    test_fields__write__State_fb_fa_m1_args w2 = {0};
    test_template__double__Arrays_f32_1d_args d = {.s__p = p, .s__p_shape = {4}, .s__q = q, .s__q_shape = {4}};
    if (!host_launch_ok(outer_step(&o, nt)) || !host_launch_ok(test_fields__write__State_fa_fb_5(&w1, nt)) ||
        !host_launch_ok(test_fields__write__State_fb_fa_m1(&w2, nt)) || !host_launch_ok(test_template__double__Arrays_f32_1d(&d, nt)))
        return 2;
    /* range(s.n) is a parallel loop: the five x[0] += 3.5 are atomic */
    bad += x[0] != -1.0f + 5 * 3.5f;
    for (int i = 0; i < 5; i++) bad += x[i + 1] != 0.25f * (float)i || y[i] != i * 3 || z[i] != 5 + i;
    for (int i = 5; i < 8; i++) bad += y[i] != -7 || z[i] != -7;
    bad += x[6] != -1.0f || x[7] != -1.0f;
    /* the second write swaps the fields: fa gets 10*i, fb gets i - 1 */
    for (int i = 0; i < 8; i++) bad += qd_field_test_fields__fa[i] != 10 * i || qd_field_test_fields__fb[i] != i - 1;
    for (int i = 0; i < 4; i++) bad += p[i] != 3.0f * (float)i;
    printf("pydataclass: %d wrong, x[0] %g\n", bad, (double)x[0]);
    free(x), free(p), free(q), free(y), free(z);
    return bad != 0;
}

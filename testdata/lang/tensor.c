/* Host for testdata/lang/tensor.py: every tensor's bytes where qdc-abi(7) puts them. An ndarray
 * with a layout is allocated at its storage shape and passed with that shape (storage order);
 * the kernel writes canonical [i, j] at storage [j, i]. A field with a layout is an SNode storage
 * in that order. ndrange(axes=) visits the nesting order it names (serial loop, unrolled loop),
 * and a parallel one writes every cell once. Exact values on every thread count. */
#include "tensor.h"
#include "common.h"
#include <string.h>

/* fill3 on a (2, 3, 4) ndarray stored in layout p: the buffer is row-major over the storage
 * shape {canon[p[0]], canon[p[1]], canon[p[2]]}; canonical [i, j, k] is at storage index
 * [idx[p[0]], idx[p[1]], idx[p[2]]]. */
#define PERM(P0, P1, P2, ENTRY)                                                                       \
    do {                                                                                              \
        const int p[3] = {P0, P1, P2}, canon[3] = {2, 3, 4};                                          \
        int32_t buf[24];                                                                              \
        memset(buf, 0xff, sizeof buf);                                                                \
        ENTRY##_args a = {buf, {canon[P0], canon[P1], canon[P2]}};                                    \
        if (!host_launch_ok(ENTRY(&a, nt))) return 2;                                                 \
        for (int i = 0; i < 2; i++)                                                                   \
            for (int j = 0; j < 3; j++)                                                               \
                for (int k = 0; k < 4; k++) {                                                         \
                    const int idx[3] = {i, j, k};                                                     \
                    int s = (idx[p[0]] * canon[p[1]] + idx[p[1]]) * canon[p[2]] + idx[p[2]];          \
                    bad += buf[s] != i * 100 + j * 10 + k + 4000;                                     \
                }                                                                                     \
    } while (0)

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0;
    int32_t plain[3][5], perm[5][3], tagged[5][3];
    float r3[4][2][3], vec[4][3];
    int32_t w[4][2], u[4][2];
    memset(plain, 0, sizeof plain), memset(perm, 0, sizeof perm), memset(r3, 0, sizeof r3);
    for (int j = 0; j < 5; j++)
        for (int i = 0; i < 3; i++) tagged[j][i] = i * 7 + j;
    fill__test_fill__None_FIELD__a_args f1 = {0};
    fill__test_fill__layout1_FIELD__a_args f2 = {0};
    fill__i32_2d_args f3 = {&plain[0][0], {3, 5}};
    fill__i32_2d_l10_args f4 = {&perm[0][0], {5, 3}}; /* storage shape: canonical (3, 5) permuted */
    bump__i32_2d_l10_args b1 = {&tagged[0][0], {5, 3}};
    test_rank3__put__f32_3d_l201__f_args p1 = {&r3[0][0][0], {4, 2, 3}};
    test_elements__comps__vec3_f32_1d__m__vec2_i32_1d__vec2_i32_1d_args c1 = {&vec[0][0], {4, 3}, &w[0][0], {4, 2}, &u[0][0], {4, 2}};
    visit_args v1 = {0};
    if (!host_launch_ok(fill__test_fill__None_FIELD__a(&f1, nt)) || !host_launch_ok(fill__test_fill__layout1_FIELD__a(&f2, nt)) ||
        !host_launch_ok(fill__i32_2d(&f3, nt)) || !host_launch_ok(fill__i32_2d_l10(&f4, nt)) || !host_launch_ok(bump__i32_2d_l10(&b1, nt)) ||
        !host_launch_ok(test_rank3__put__f32_3d_l201__f(&p1, nt)) ||
        !host_launch_ok(test_elements__comps__vec3_f32_1d__m__vec2_i32_1d__vec2_i32_1d(&c1, nt)) || !host_launch_ok(visit(&v1, nt)))
        return 2;
    PERM(0, 1, 2, fill3__i32_3d);
    PERM(0, 2, 1, fill3__i32_3d_l021);
    PERM(1, 0, 2, fill3__i32_3d_l102);
    PERM(1, 2, 0, fill3__i32_3d_l120);
    PERM(2, 0, 1, fill3__i32_3d_l201);
    PERM(2, 1, 0, fill3__i32_3d_l210);
    const int32_t *fa = (const int32_t *)(const void *)qd_snode_test_fill__layout1_FIELD__a;
    const float *ff = (const float *)(const void *)qd_snode_test_rank3__f;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 5; j++) {
            int want = i * 100 + j;
            bad += qd_field_test_fill__None_FIELD__a[i][j] != want || plain[i][j] != want;
            bad += fa[j * 3 + i] != want || *qd_field_test_fill__layout1_FIELD__a_at(i, j) != want; /* order "ji" */
            bad += perm[j][i] != want;
            bad += tagged[j][i] != i * 7 + j + (i + 1) * 1000 + 5 * 10000; /* x.shape[1]: storage axis 0 */
        }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 4; k++) {
                float want = (float)(i * 100 + j * 10 + k);
                bad += r3[k][i][j] != want;                                                  /* layout (2, 0, 1) */
                bad += ff[(k * 2 + i) * 3 + j] != want + 0.5f || *qd_field_test_rank3__f_at(i, j, k) != want + 0.5f; /* "kij" */
            }
    for (int i = 0; i < 4; i++) {
        for (int c = 0; c < 3; c++) bad += vec[i][c] != (float)(i * (c + 1));
        bad += qd_field_test_elements__m[i][0][0] != (float)i || qd_field_test_elements__m[i][0][1] != 1.0f;
        bad += qd_field_test_elements__m[i][1][0] != 2.0f || qd_field_test_elements__m[i][1][1] != (float)(i * 4);
        bad += w[i][0] != i || w[i][1] != -i || u[i][0] != 3 * i || u[i][1] != -3 * i;
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) {
            bad += qd_field_order[i][j] != j * 3 + i;
            for (int k = 0; k < 2; k++) bad += qd_field_cells[i][j][k] != i * 100 + j * 10 + k;
        }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) bad += qd_field_unrolled[i][j] != j * 2 + i;
    printf("tensor: %d wrong, perm[4][2] %d, order[2][3] %d\n", bad, perm[4][2], qd_field_order[2][3]);
    return bad != 0;
}

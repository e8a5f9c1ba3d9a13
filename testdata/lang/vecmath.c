/* Host for testdata/lang/vecmath.qd: exact values of the vector and matrix operations. */
#include "vecmath.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0;
    float src[4][3], ms[2][2][2] = {{{1, 1}, {0, 1}}, {{2, 0}, {0, 3}}};
    for (int i = 0; i < 4; i++)
        for (int c = 0; c < 3; c++) src[i][c] = (float)(i * 3 + c);
    vecmath_args a = {&src[0][0], {4, 3}, &ms[0][0][0], {2, 2, 2}, 0.5f, 1.0f, 2.0f, 3};
    if (!host_launch_ok(vecmath(&a, nt))) return 2;
    static const float want[24] = {35, 32, -243, 5, 1, -2, 102, 231, 37, 11, -2, 2, 10741, 8, 7, 7,
                                   10, 8, 8, 64, 0.5f + 10 + 200, 34, 0, 12};
    for (int k = 0; k < 24; k++)
        if (qd_field_out[k] != want[k]) bad++, printf("out[%d] = %g, want %g\n", k, qd_field_out[k], want[k]);
    for (int i = 0; i < 4; i++)
        for (int c = 0; c < 3; c++) bad += qd_field_pos[i][c] != (c == 1 ? (float)i : src[i][c] + (c ? 2.0f : 0.5f));
    static const float sq[2][2][2] = {{{1, 3}, {0, 1}}, {{4, 1}, {0, 9}}};
    for (int i = 0; i < 2; i++)
        for (int r = 0; r < 2; r++)
            for (int c = 0; c < 2; c++) bad += qd_field_rot[i][r][c] != sq[i][r][c];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++) bad += qd_field_grid[i][j][0] != i * 10 + j || qd_field_grid[i][j][1] != j * 10 + i;
    printf("vecmath: %d wrong\n", bad);
    return bad != 0;
}

/* Host for testdata/lang/pyforms.py: compile-time Python forms, exact results. */
#include "pyforms.h"
#include "common.h"
#include <math.h>

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0;
    int32_t a[3][5];
    forms_args args = {&a[0][0], {3, 5}};
    if (!host_launch_ok(forms(&args, nt))) return 2;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 5; j++) bad += a[i][j] != i * 10 + j;
    static const int32_t grid[4][3] = {{1, 1, 0}, {1, 1, 0}, {11, 11, 0}, {11, 11, 0}};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++) bad += qd_field_grid[i][j] != grid[i][j];
    int32_t r8 = 0, r20 = 0;
    early__8_args e8 = {0};
    early__20_args e20 = {0};
    if (!host_launch_ok(early__8(&e8, nt, &r8)) || !host_launch_ok(early__20(&e20, nt, &r20))) return 2;
    bad += r8 != 204 || r20 != -5; /* 0 + 1 + 4 + ... + 64; no early return */
    float fr = 0;
    split_args sa = {1.4f, -3.0e-40f}; /* 1.4 = 0.7 * 2^1; a subnormal float */
    if (!host_launch_ok(split(&sa, nt, &fr))) return 2;
    int ey;
    float my = frexpf(sa.y, &ey);
    bad += fr != 0.7f * 10 + my || qd_field_out[21] != 1 || qd_field_out[22] != ey;
    if (bad) printf("frexp: %.9g %d %d\n", fr, qd_field_out[21], qd_field_out[22]);
    static const int32_t want[21] = {123, 723, 642, 12, 258, 4578, 11, 11, 24, 19, 81, 10, 12, 332, 15, 1010, 2, 17, 10, 300, -1};
    for (int k = 0; k < 21; k++) {
        if (qd_field_out[k] != want[k]) printf("out[%d] = %d, want %d\n", k, qd_field_out[k], want[k]);
        bad += qd_field_out[k] != want[k];
    }
    static const float fwant[3] = {-99.0f, 10.0f, 10.0f};
    for (int k = 0; k < 3; k++) {
        if (qd_field_fo[k] != fwant[k]) printf("fo[%d] = %g, want %g\n", k, qd_field_fo[k], fwant[k]);
        bad += qd_field_fo[k] != fwant[k];
    }
    bad += qd_field_out[23] != 62;
    static const int32_t fns_want[6] = {1, 4, 1, 2, -1, -1};
    for (int k = 0; k < 6; k++) bad += qd_field_out[24 + k] != fns_want[k];
    for (int k = 0; k < 4; k++) bad += qd_field_mf[1][k / 2][k % 2] != k + 1 || qd_field_mf[0][k / 2][k % 2] != 0;
    printf("pyforms: %d wrong, early returns %d %d\n", bad, r8, r20);
    return bad != 0;
}

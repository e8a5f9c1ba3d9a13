/* Host for testdata/lang/structfor.qd: every element written by a struct-for, exact values. */
#include "structfor.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 100000), bad = 0;
    int32_t a[7][3], *v = host_alloc((size_t)n, 4);
    int64_t sum = 0;
    for (int i = 0; i < n; i++) v[i] = (int32_t)(host_rand() % 1000), sum += v[i];
    structfor_args args = {&a[0][0], {7, 3}, v, {n}};
    if (!host_launch_ok(structfor(&args, nt))) return 2;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 5; j++) bad += qd_field_grid[i][j] != i * 10 + j;
    for (int k = 0; k < 5; k++) bad += qd_field_line[k] != k * 0.5f;
    for (int k = 0; k < 32; k++) bad += qd_field_nest[k] != k * 3;
    for (int i = 0; i < 7; i++)
        for (int j = 0; j < 3; j++) bad += a[i][j] != 3000 + 700 + i * 10 + j;
    bad += qd_field_total != (int32_t)sum;
    printf("structfor: %d wrong, total %d\n", bad, qd_field_total);
    free(v);
    return bad != 0;
}

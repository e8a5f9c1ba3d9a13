/* Host for testdata/lang/generic.qd: two instantiations of `scale` (f32 and i32 ndarrays, k = 3
 * and -2, totals into two fields), two of `fill` (fields col and line), and the bare
 * NDArray[...] kernel; every value exact. */
#include "generic.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 4096), bad = 0;
    float *f = host_alloc((size_t)n, 4);
    int32_t *x = host_alloc((size_t)n, 4), *y = host_alloc((size_t)n, 4);
    int64_t si = 0;
    for (int i = 0; i < n; i++) f[i] = (float)(i % 16), x[i] = (int32_t)(host_rand() % 100), si += x[i];
    scale__f32_1d__3__total_f_args a1 = {f, {n}};
    scale_i32_args a2 = {x, {n}};
    fill__col__7_args a3 = {0};
    fill__line__5_args a4 = {0};
    bare_args a5 = {x, {n}, y, {n}};
    if (!host_launch_ok(scale__f32_1d__3__total_f(&a1, nt)) || !host_launch_ok(scale_i32(&a2, nt)) ||
        !host_launch_ok(fill__col__7(&a3, nt)) || !host_launch_ok(fill__line__5(&a4, nt)) || !host_launch_ok(bare(&a5, nt)))
        return 2;
    double sf = 0;
    for (int i = 0; i < n; i++) bad += f[i] != (float)(i % 16) * 3, sf += f[i];
    for (int i = 0; i < n; i++) bad += y[i] != x[i] + 1;
    bad += qd_field_total_f != (float)sf;
    bad += qd_field_total_i != (int32_t)(si * -2);
    for (int i = 0; i < 4; i++) bad += qd_field_col[i] != 7;
    for (int i = 0; i < 9; i++) bad += qd_field_line[i] != 5;
    printf("generic: %d wrong, totals %.1f %d\n", bad, qd_field_total_f, qd_field_total_i);
    free(f), free(x), free(y);
    return bad != 0;
}

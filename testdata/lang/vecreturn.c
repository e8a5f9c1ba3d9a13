/* Host for testdata/lang/vecreturn.qd: each launcher stores the returned components row-major
 * in ret[]; every value exact (the reduction sums small integers in f32). */
#include "vecreturn.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0;
    int32_t v[3] = {0};
    int16_t m[6] = {0};
    float f[4] = {0}, s[2] = {0};
    float *x = host_alloc(100, 4);
    for (int i = 0; i < 100; i++) x[i] = (float)i;
    vec_ret_args a1 = {.k = 4};
    mat_ret_args a2 = {0};
    mat2_ret_args a3 = {.k = 2};
    vec_sum_args a4 = {.x = x, .x_shape = {100}};
    if (!host_launch_ok(vec_ret(&a1, nt, v)) || !host_launch_ok(mat_ret(&a2, nt, m)) || !host_launch_ok(mat2_ret(&a3, nt, f)) ||
        !host_launch_ok(vec_sum(&a4, nt, s)) || !host_launch_ok(vec_ret(&a1, nt, NULL)))
        return 2;
    bad += v[0] != 5 || v[1] != 9 || v[2] != 13;
    bad += m[0] != 1 || m[1] != 2 || m[2] != 3 || m[3] != 4 || m[4] != 5 || m[5] != -6;
    /* [[2, 3], [4, 5]] @ [[1, 2], [3, 4]] */
    bad += f[0] != 11.0f || f[1] != 16.0f || f[2] != 19.0f || f[3] != 28.0f;
    bad += s[0] != 4950.0f || s[1] != 9900.0f;
    printf("vecreturn: %d wrong\n", bad);
    free(x);
    return bad != 0;
}

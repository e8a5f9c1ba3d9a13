/* Host for tests/kernels/vectors.qd: vector atomics fan out per component, exactly, under
 * contention; vector ndarray and vector parameters; matrix arithmetic; qd.grouped. */
#include "vectors.h"
#include "common.h" /* examples/host/common.h */

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 1 << 20);
    float *pts = host_alloc((size_t)n * 3, 4);
    int64_t tot[3] = {0, 0, 0}, bins[4][3] = {{0}}, ft[3] = {0, 0, 0};
    const float off[3] = {0.25f, 1.0f, -0.5f};
    for (int i = 0; i < n; i++) {
        int32_t w[3] = {i % 7, 1, -(i % 3)};
        for (int c = 0; c < 3; c++) {
            tot[c] += w[c], bins[i % 4][c] += 2 * w[c];
            pts[i * 3 + c] = (float)(host_rand() % 8) * 0.5f; /* pts[i] is a vec3: components contiguous */
            float p = pts[i * 3 + c] + off[c];
            ft[c] += (int64_t)(p < 0 ? (p == (int)p ? p : (int)p - 1) : (int)p);
        }
    }
    contend_args a = {pts, {n, 3}, off[0], off[1], off[2]};
    if (!host_launch_ok(contend(&a, nt))) return 2;
    int ok_tot = 1, ok_bins = 1, ok_f = 1, ok_old = 1, ok_max, ok_mat = 1;
    for (int c = 0; c < 3; c++) {
        ok_tot &= qd_field_total[c] == (int32_t)tot[c];
        ok_f &= qd_field_ftotal[c] == (float)ft[c];
        for (int b = 0; b < 4; b++) ok_bins &= qd_field_bins[b][c] == (int32_t)bins[b][c];
    }
    ok_max = qd_field_mx[0] == n - 1 && qd_field_mx[1] == 0 && qd_field_mx[2] == 4;
    int seen_x = 0, seen_y = 0; /* each component's old values are 0..7 (x10), in any pairing */
    for (int j = 0; j < 8; j++) {
        int32_t x = qd_field_olds[j][0], y = qd_field_olds[j][1];
        if (x < 0 || x > 7 || y % 10 || y < 0 || y > 70) ok_old = 0;
        else seen_x |= 1 << x, seen_y |= 1 << (y / 10);
    }
    ok_old &= seen_x == 255 && seen_y == 255 && qd_field_olds[8][0] == 8 && qd_field_olds[8][1] == 80;
    static const float mm[2][2] = {{5, 11}, {11, 25}}, op[2][2] = {{-1, 1}, {-1, 1}};
    for (int k = 0; k < 3; k++)
        for (int r = 0; r < 2; r++)
            for (int c = 0; c < 2; c++) ok_mat &= qd_field_mres[k][r][c] == (float)((k + 1) * (k + 1)) * mm[r][c] + (float)(k + 1) * op[r][c];
    printf("vector atomic_add %s, += %s, floor(ndarray + param) %s, atomic_max %s, old values per component %s, matrices %s\n",
           ok_tot ? "exact" : "WRONG", ok_bins ? "exact" : "WRONG", ok_f ? "exact" : "WRONG", ok_max ? "exact" : "WRONG",
           ok_old ? "exact" : "WRONG", ok_mat ? "exact" : "WRONG");
    free(pts);
    return !(ok_tot && ok_bins && ok_f && ok_max && ok_old && ok_mat);
}

/* Host for testdata/lang/offset.qd: fields with offset= are stored from element 0, element x[i]
 * at index i - offset; every value exact. */
#include "offset.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0, sum = 0;
    fill_args f = {0};
    if (!host_launch_ok(fill(&f, nt))) return 2;
    for (int k = 0; k < 16; k++) bad += qd_field_a[k] != k - 48, sum += k - 48;
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 8; j++) bad += qd_field_d[i][j] != (i - 16) * 100 + (j + 8) + (i == 0 && j == 0 ? 1000 : 0);
    for (int k = 0; k < 4; k++) bad += qd_field_v[k][0] != (float)(k + 10) || qd_field_v[k][1] != (float)(2 * (k + 10));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++) {
            int ii = i - 1, jj = j + 5;
            bad += qd_field_m[i][j][0][0] != ii || qd_field_m[i][j][0][1] != jj || qd_field_m[i][j][1][0] != ii + jj ||
                   qd_field_m[i][j][1][1] != ii * jj;
        }
    bad += qd_field_total != sum;
    const int32_t *os = (const int32_t *)qd_snode_o, *qs = (const int32_t *)qd_snode_q;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 2; k++) bad += os[k * 12 + j * 3 + i] != i * 100 + j * 10 + k || *qd_field_o_at(i, j, k) != i * 100 + j * 10 + k;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) {
            bad += qd_field_r[i][j] != (i + 1) * 10 + j + 1;
            bad += qs[j * 2 + i] != (i + 5) * 10 + (j - 5) + (i == 1 && j == 2 ? 1000 : 0);
        }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++) bad += qd_field_p[i][j] != (i + 16) + (j - 16) * 10;
    printf("offset: %d wrong, total %d\n", bad, qd_field_total);
    return bad != 0;
}

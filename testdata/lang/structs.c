/* Host for testdata/lang/structs.qd: struct fields (AOS cells), member atomics, exact values. */
#include "structs.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 100000), bad = 0;
    structs_args a = {n};
    if (!host_launch_ok(structs(&a, nt))) return 2;
    for (int i = 0; i < 8; i++) {
        int hits = i + n / 8 + (i < n % 8);
        bad += *qd_field_ps_pos_0_at(i) != (float)i || *qd_field_ps_pos_1_at(i) != 1.0f || *qd_field_ps_mass_at(i) != 2.0f;
        bad += *qd_field_ps_hits_at(i) != hits;
    }
    for (int i = 0; i < 4; i++) bad += *qd_field_flat_a_at(i) != i * 3 || *qd_field_flat_b_at(i) != i * 3 + 0.5f;
    bad += qd_field_cell_hits != n || qd_field_cell_pos_0 != (float)n || qd_field_cell_pos_1 != 2.0f * n;
    bad += qd_field_cell_mass != (float)(n - 1);
    bad += qd_field_out[0] != 170.0f || qd_field_out[1] != 3.0f || qd_field_out[2] != 4.5f || qd_field_out[3] != 6.5f;
    printf("structs: %d wrong\n", bad);
    return bad != 0;
}

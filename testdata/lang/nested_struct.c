/* Host for testdata/lang/nested_struct.qd: a nested struct argument (Outer p: p_inner_a,
 * p_inner_v_0/1, p_w), nested struct fields and locals; every value exact. */
#include "nested_struct.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0;
    fill_args f = {.p_inner_a = 3, .p_inner_v_0 = 1.5f, .p_inner_v_1 = 2.0f, .p_w = 0.25f, .k = 10};
    read_args r = {0};
    if (!host_launch_ok(fill(&f, nt)) || !host_launch_ok(read(&r, nt))) return 2;
    for (int i = 0; i < 8; i++) {
        bad += *qd_field_cells_inner_a_at(i) != 3 + 10 * i || *qd_field_cells_w_at(i) != 1.25f;
        bad += *qd_field_cells_inner_v_0_at(i) != 1.5f || *qd_field_cells_inner_v_1_at(i) != 0.5f * (float)i;
        bad += qd_field_out[i] != 8.75f + 20.5f * (float)i; /* 2 * (3 + 10i) + 1.5 + 0.5i + 1.25 */
    }
    for (int j = 0; j < 2; j++) {
        bad += *qd_field_pairs_lo_inner_a_at(j) != 2 + 10 * j || *qd_field_pairs_lo_w_at(j) != 1.25f;
        bad += *qd_field_pairs_hi_a_at(j) != j + 7 || *qd_field_pairs_hi_v_1_at(j) != 0.0f;
    }
    printf("nested_struct: %d wrong\n", bad);
    return bad != 0;
}

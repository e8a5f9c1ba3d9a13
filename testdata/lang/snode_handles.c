/* Host for testdata/lang/snode_handles.py: each layout, byte by byte, as qdc-abi(7) documents
 * it, and through the header's accessors. */
#include "snode_handles.h"
#include "common.h"

static int32_t i32_at(const uint8_t *base, long byte) {
    int32_t v;
    memcpy(&v, base + byte, 4);
    return v;
}

static float f32_at(const uint8_t *base, long byte) {
    float v;
    memcpy(&v, base + byte, 4);
    return v;
}

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0;
    run_args ra = {0};
    grid__fill_args ga = {0};
    test_twice__first_args a1 = {0};
    test_twice__second_args a2 = {0};
    if (!host_launch_ok(run(&ra, nt)) || !host_launch_ok(grid__fill(&ga, nt)) || !host_launch_ok(test_twice__first(&a1, nt)) ||
        !host_launch_ok(test_twice__second(&a2, nt)))
        return 2;
    /* blk = dense(ij, 4): an 84-byte cell {w; x: 2x2 cells of 2x2 i32 (64 bytes); y: 4 i32} */
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) bad += i32_at(qd_snode_w, (i * 4 + j) * 84) != i * 10 + j || *qd_field_w_at(i, j) != i * 10 + j;
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) {
            long at = ((i / 4) * 4 + j / 4) * 84 + 4 + ((i / 2 % 2) * 2 + j / 2 % 2) * 16 + ((i % 2) * 2 + j % 2) * 4;
            bad += i32_at(qd_snode_w, at) != i * 100 + j || *qd_field_x_at(i, j) != i * 100 + j;
        }
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 4; j++) {
            long at = ((i / 4) * 4 + j) * 84 + 68 + (i % 4) * 4;
            bad += i32_at(qd_snode_w, at) != i * 1000 + j || *qd_field_y_at(i, j) != i * 1000 + j;
        }
    /* FieldsBuilder: dense(i, 6) with 8-byte cells {float q; int16_t r} */
    for (int i = 0; i < 6; i++) {
        int16_t rr;
        memcpy(&rr, qd_snode_q + i * 8 + 4, 2);
        bad += f32_at(qd_snode_q, i * 8) != i * 2.0f || rr != i - 2 || *qd_field_r_at(i) != rr;
    }
    for (int i = 0; i < 8; i++) bad += qd_field_p[i] != i * 0.5f;
    for (int i = 0; i < 5; i++) bad += qd_field_v_0[i] != i * 1.0f || qd_field_v_1[i] != i * 3.0f;
    /* SOA: one row-major array per component; order="ji" AOS: element (i, j) at j * 4 + i, components inside */
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 5; j++) {
            bad += qd_field_s_0[i][j] != i + 1 || qd_field_s_1[i][j] != j + 1 || qd_field_s_2[i][j] != i * 10 + j + 1;
            for (int c = 0; c < 3; c++) {
                int want = c == 0 ? j : c == 1 ? i : j * 10 + i;
                bad += i32_at(qd_snode_t_0, ((j * 4 + i) * 3 + c) * 4) != want;
            }
            bad += *qd_field_t_2_at(i, j) != j * 10 + i;
        }
    /* SOA + order="ji" + offset=(1, -2): component c of u[i, j] at index (j + 2) * 3 + (i - 1) of qd_snode_u_c */
    for (int i = 1; i < 4; i++)
        for (int j = -2; j < 2; j++) {
            long at = ((j + 2) * 3 + (i - 1)) * 4;
            bad += f32_at(qd_snode_u_0, at) != i || f32_at(qd_snode_u_1, at) != j || f32_at(qd_snode_u_2, at) != i * 10.0f ||
                   f32_at(qd_snode_u_3, at) != j * 10.0f || *qd_field_u_3_at(i - 1, j + 2) != j * 10.0f;
        }
    /* self.block = qd.root.dense(qd.i, 3) in __init__: cells {a; b} */
    for (int i = 0; i < 3; i++)
        bad += i32_at(qd_snode_grid__a, i * 8) != i + 1 || i32_at(qd_snode_grid__a, i * 8 + 4) != -i || *qd_field_grid__b_at(i) != -i;
    /* struct SOA + offset=(2,): a alone (element i at i - 2), v's components together in 8-byte cells */
    for (int i = 2; i < 5; i++)
        bad += qd_field_ps_a[i - 2] != i * 7 || f32_at(qd_snode_ps_v_0, (i - 2) * 8) != i || f32_at(qd_snode_ps_v_0, (i - 2) * 8 + 4) != -i;
    bad += qd_field_test_twice__total != 1 || qd_field_test_twice__total__def2 != 2;
    for (int i = 0; i < 2; i++) bad += qd_field_test_twice__pr_lo[i] != i || qd_field_test_twice__pr_hi[i] != 10 + i;
    printf("snode_handles: %d wrong, sizes %zu %zu %zu %zu\n", bad, sizeof qd_snode_w, sizeof qd_snode_q, sizeof qd_snode_t_0,
           sizeof qd_snode_grid__a);
    return bad != 0;
}

/* Host for testdata/lang/snode.qd: the interleaved layout, exactly as qdc-abi(7) documents it. */
#include "snode.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0;
    snode_args args = {0};
    if (!host_launch_ok(snode(&args, nt))) return 2;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) {
            float fa;
            int32_t ib;
            memcpy(&fa, qd_snode_a + (i * 8 + j) * 8, 4), memcpy(&ib, qd_snode_a + (i * 8 + j) * 8 + 4, 4);
            bad += fa != i + j * 0.5f || ib != i * 100 + j;
            bad += *qd_field_a_at(i, j) != fa || *qd_field_b_at(i, j) != ib;
        }
    for (int i = 0; i < 6; i++) {
        float fc;
        int16_t ie;
        memcpy(&fc, qd_snode_c + i * 8, 4), memcpy(&ie, qd_snode_c + i * 8 + 4, 2);
        bad += fc != i * 1.5f || ie != i - 3 || *qd_field_c_at(i) != fc || *qd_field_e_at(i) != ie;
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            int32_t v;
            memcpy(&v, qd_snode_d + (((i / 2) * 2 + j / 2) * 4 + (i % 2) * 2 + j % 2) * 4, 4);
            bad += v != i * 10 + j || *qd_field_d_at(i, j) != v;
        }
    bad += qd_field_s0 != 16.0f;
    printf("snode: %d wrong, sizes %zu %zu %zu\n", bad, sizeof qd_snode_a, sizeof qd_snode_c, sizeof qd_snode_d);
    return bad != 0;
}

/* Host for testdata/lang/dataclass.qd: methods update a local copy and a field element. */
#include "dataclass.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0;
    sim_args a = {0};
    if (!host_launch_ok(sim(&a, nt))) return 2;
    for (int i = 0; i < 4; i++) {
        bad += qd_field_out[i] != 65.0f; /* 0.5 * 100 + 1.0 * 10 + 0.5 * 2 * 5 */
        bad += *qd_field_balls_pos_0_at(i) != 1.0f || *qd_field_balls_pos_1_at(i) != i + 2.0f;
    }
    printf("dataclass: %d wrong\n", bad);
    return bad != 0;
}

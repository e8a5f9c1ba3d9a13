#include "place_vec.h"
#include "common.h"
#include <stdio.h>
/* Host for testdata/lang/place_vec.qd: the components of each element in their SNode cells. */
int main(int argc, char **argv) {
    int nt = host_threads(argc, argv);
    k_args a = {0};
    int bad = !host_launch_ok(k(&a, nt));
    for (int i = 0; i < 8; i++) bad += *qd_field_v_0_at(i) != i || *qd_field_v_1_at(i) != 2 * i + 1 || *qd_field_v_2_at(i) != 3 * i || *qd_field_temp_at(i) != 6 * i + 1;
    for (int i = 0; i < 8; i++) bad += *qd_field_y_a_at(i) != i || *qd_field_y_b_at(i) != 2 * i;
    bad += qd_field_m_0 != 1 || qd_field_m_3 != 4;
    printf("place: %d wrong\n", bad);
    return bad != 0;
}

/* Host for testdata/lang/semantics.py: qd.static break/continue, qd.real_func returns under
 * run-time control flow, and/or and a if c else b as in Python; exact values. */
#include "semantics.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0;
    sem_args args = {20};
    if (!host_launch_ok(sem(&args, nt))) return 2;
    static const int32_t want[32] = {1, 1, 1, 0, 0, 2, 0, 2, 2, 2, 15, 0, 0, 1, 26, 7, -1, 23, -1, 5,
                                     122, 140, 0, 111, 3, 27, 2007, -3, 2, 2, 1110, 1000};
    for (int k = 0; k < 32; k++) {
        if (qd_field_out[k] != want[k]) printf("out[%d] = %d, want %d\n", k, qd_field_out[k], want[k]);
        bad += qd_field_out[k] != want[k];
    }
    tops_args targs = {20};
    if (!host_launch_ok(tops(&targs, nt))) return 2;
    for (int d = 0; d < 3; d++)
        for (int i = 0; i < 64; i++) bad += qd_field_grid[d][i] != (d < 2 ? i + d * 100 + 40 : 0);
    if (!host_launch_ok(zerod(&(zerod_args){0}, nt))) return 2;
    bad += qd_field_zero != 43;
    printf("semantics: %d wrong\n", bad);
    return bad != 0;
}

/* Host for testdata/lang/hosteval.py: the values qdc computed from host Python at compile time. */
#include "hosteval.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0;
    k_args a = {.a = 12};
    run__fn0_4__apply_args r = {0};
    test_cases__int__fill_args i = {0};
    test_cases__float__fill_args f = {0};
    static int32_t arr[4] = {1, 2, 3, 4};
    make_scaler__3__scale__i32_1d_args s3 = {.a = arr, .a_shape = {4}};
    make_scaler__5__scale__i32_1d_args s5 = {.a = arr, .a_shape = {4}};
    if (!host_launch_ok(make_scaler__3__scale__i32_1d(&s3, nt)) || !host_launch_ok(make_scaler__5__scale__i32_1d(&s5, nt))) return 2;
    for (int j = 0; j < 4; j++)
        if (arr[j] != (j + 1) * 15) printf("arr[%d] = %d, want %d\n", j, arr[j], (j + 1) * 15), bad++;
    if (!host_launch_ok(k(&a, nt)) || !host_launch_ok(run__fn0_4__apply(&r, nt)) || !host_launch_ok(test_cases__int__fill(&i, nt)) ||
        !host_launch_ok(test_cases__float__fill(&f, nt)))
        return 2;
    /* math.prod((3, 4)) * 8; 32 lanes on x64; 12 * 12; on the CPU with default_fp f32, w = 3, "z" in
     * the dict; square(7); int case: 0 * 2 + 5; float case: int(0.5 * 2) + 6 * 2; atomic_max(0, 12) */
    static const int want[8] = {96, 32, 144, 1311, 49, 5, 13, 12};
    for (int s = 0; s < 8; s++)
        if (qd_field_out[s] != want[s]) printf("out[%d] = %d, want %d\n", s, qd_field_out[s], want[s]), bad++;
    printf("hosteval: %d wrong\n", bad);
    return bad != 0;
}

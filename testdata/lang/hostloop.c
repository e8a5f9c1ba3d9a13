/* Host for testdata/lang/hostloop.py: the values qdc computed by running host while/for loops and
 * helper functions at compile time, the ndarray and field instantiations of the parametrized
 * test (annotations from a helper and from `A if c else B`), and a helper's field passed through
 * qd.Tensor; every value exact. */
#include "hostloop.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0;
    consts_args c = {0};
    int32_t *arr = host_alloc(4, 4);
    for (int i = 0; i < 4; i++) arr[i] = -1;
    test_ann__ndarray__fill_args fa = {arr, {4}, arr, {4}};
    test_ann__field__fill__x__x_args ff = {0};
    test_wrapped__put___alloc__1_i32_t3__ret_args pw = {0};
    if (!host_launch_ok(consts(&c, nt)) || !host_launch_ok(test_ann__ndarray__fill(&fa, nt)) ||
        !host_launch_ok(test_ann__field__fill__x__x(&ff, nt)) || !host_launch_ok(test_wrapped__put___alloc__1_i32_t3__ret(&pw, nt)))
        return 2;
    for (int i = 0; i < 4; i++) {
        if (arr[i] != i * 2) printf("ndarray[%d] = %d, want %d\n", i, arr[i], i * 2), bad++;
        if (qd_field_test_ann__field__x[i] != i * 2) printf("field x[%d] = %d, want %d\n", i, qd_field_test_ann__field__x[i], i * 2), bad++;
    }
    for (int i = 0; i < 3; i++)
        if (qd_field__alloc__1_i32_t3__ret[i] != i + 7) printf("ret[%d] = %d, want %d\n", i, qd_field__alloc__1_i32_t3__ret[i], i + 7), bad++;
    /* 3^5; 0 + 2 + 4 + 6; 32; 8 * 8 > 50; b[3] + 100 in the field and ndarray tests; t[2] */
    static const int want[7] = {243, 12, 32, 8, 106, 106, 9};
    for (int s = 0; s < 7; s++)
        if (qd_field_out[s] != want[s]) printf("out[%d] = %d, want %d\n", s, qd_field_out[s], want[s]), bad++;
    printf("hostloop: %d wrong\n", bad);
    return bad != 0;
}

/* Host for testdata/lang/hostloop.py: the values qdc computed by running host while/for loops and
 * helper functions at compile time, the ndarray and field instantiations of the parametrized
 * test (annotations from a helper and from `A if c else B`), and a helper's field passed through
 * qd.Tensor, lists built by append/extend, a vector field's .n, the runtime's default_fp, qd.cast to each of Quadrants'
 * primitive_types.integer_types (a parametrize list), kernels two calls of one helper make; every value exact. */
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
    make_filler__10_1__fill__test_makers__f_args ma = {0};
    make_filler__20_1__fill__test_makers__g_args mb = {0};
    if (!host_launch_ok(make_filler__10_1__fill__test_makers__f(&ma, nt)) || !host_launch_ok(make_filler__20_1__fill__test_makers__g(&mb, nt)))
        return 2;
    for (int i = 0; i < 2; i++) /* each helper call's own kernel, annotated with the helper's own `ann` */
        if (qd_field_test_makers__f[i] != 10 + i || qd_field_test_makers__g[i] != 20 + i)
            printf("makers [%d]: %d %d\n", i, qd_field_test_makers__f[i], qd_field_test_makers__g[i]), bad++;
    lists_args li = {0};
    test_cast__i8__conv_args c8 = {0};
    test_cast__dt9__conv_args ci = {0};
    if (!host_launch_ok(lists(&li, nt)) || !host_launch_ok(test_cast__i8__conv(&c8, nt))) return 2;
    if (qd_field_out[9] != -3) printf("cast(-3.7, i8) = %d, want -3\n", qd_field_out[9]), bad++;
    qd_field_out[9] = 0;
    if (!host_launch_ok(test_cast__dt9__conv(&ci, nt))) return 2; /* dt9: Python's int, qd.init's default_ip (i32) */
    if (!host_launch_ok(consts(&c, nt)) || !host_launch_ok(test_ann__ndarray__fill(&fa, nt)) ||
        !host_launch_ok(test_ann__field__fill__x__x(&ff, nt)) || !host_launch_ok(test_wrapped__put___alloc__1_i32_t3__ret(&pw, nt)))
        return 2;
    for (int i = 0; i < 4; i++) {
        if (arr[i] != i * 2) printf("ndarray[%d] = %d, want %d\n", i, arr[i], i * 2), bad++;
        if (qd_field_test_ann__field__x[i] != i * 2) printf("field x[%d] = %d, want %d\n", i, qd_field_test_ann__field__x[i], i * 2), bad++;
    }
    for (int i = 0; i < 3; i++)
        if (qd_field__alloc__1_i32_t3__ret[i] != i + 7) printf("ret[%d] = %d, want %d\n", i, qd_field__alloc__1_i32_t3__ret[i], i + 7), bad++;
    /* 3^5; 0 + 2 + 4 + 6; 32; 8 * 8 > 50; b[3] + 100 in the field and ndarray tests; t[2];
     * coeffs = [20, 30, 40, 7]: 20 + 7, len 4 and vf.n 3; int(-3.7); 2.5 * 2 */
    static const int want[11] = {243, 12, 32, 8, 106, 106, 9, 27, 43, -3, 5};
    for (int s = 0; s < 11; s++)
        if (qd_field_out[s] != want[s]) printf("out[%d] = %d, want %d\n", s, qd_field_out[s], want[s]), bad++;
    printf("hostloop: %d wrong\n", bad);
    return bad != 0;
}

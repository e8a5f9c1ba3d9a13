/* Host for testdata/lang/dataoriented.py: each instance's kernels and fields under their
 * INSTANCE__ names, with the constants of its __init__ (n, scale) baked in, and an ndarray
 * attribute passed as the extra parameter st__a; every value exact. */
#include "dataoriented.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0;
    int32_t *a = host_alloc(64, 4), *b = host_alloc(8, 4);
    for (int i = 0; i < 64; i++) a[i] = 3 * i - 50;
    for (int i = 0; i < 8; i++) b[i] = i - 3;
    test_arrays__st__double_args d1 = {.st__a = b, .st__a_shape = {8}};
    test_arrays__inc__st_args d2 = {.k = 7, .st__a = b, .st__a_shape = {8}};
    small__step_args s1 = {0};
    big__step_args b1 = {0};
    small__add_args s2 = {a, {64}, 2};
    test_counter__c__step_args c1 = {0};
    test_counter__reset__c_args c2 = {0};
    if (!host_launch_ok(small__step(&s1, nt)) || !host_launch_ok(big__step(&b1, nt)) || !host_launch_ok(small__add(&s2, nt)) ||
        !host_launch_ok(test_counter__c__step(&c1, nt)) || !host_launch_ok(test_counter__reset__c(&c2, nt)) ||
        !host_launch_ok(test_arrays__st__double(&d1, nt)) || !host_launch_ok(test_arrays__inc__st(&d2, nt)))
        return 2;
    int st = 0, bt = 0;
    for (int i = 0; i < 16; i++) bad += qd_field_small__x[i] != i * 2 + a[i] * 2, st += i * 2;
    for (int i = 0; i < 64; i++) bad += qd_field_big__x[i] != i * -3, bt += i * -3;
    for (int i = 0; i < 8; i++) bad += qd_field_test_counter__c__x[i] != 100 + i;
    for (int i = 0; i < 8; i++) bad += b[i] != (i - 3) * 2 + 7;
    bad += qd_field_small__total != st || qd_field_big__total != bt || qd_field_test_counter__c__total != 5 * 28;
    printf("dataoriented: %d wrong, totals %d %d %d\n", bad, qd_field_small__total, qd_field_big__total, qd_field_test_counter__c__total);
    free(a), free(b);
    return bad != 0;
}

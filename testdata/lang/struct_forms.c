/* Host for testdata/lang/struct_forms.py: each test function's kernel, every value exact. */
#include "struct_forms.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0;
    int32_t out[8] = {0};
    test_first__k_args a = {out, {8}, 1.0f, 2.0f};
    if (!host_launch_ok(test_first__k(&a, nt))) return 2;
    test_second__k_args b = {out, {8}};
    if (!host_launch_ok(test_second__k(&b, nt))) return 2;
    test_third__fill_args c = {0};
    test_third__step__field1_p1_0__field2_p1_0_args d = {0};
    if (!host_launch_ok(test_third__fill(&c, nt)) || !host_launch_ok(test_third__step__field1_p1_0__field2_p1_0(&d, nt))) return 2;
    for (int i = 0; i < 16; i++) { /* (p1 + (f2.p1 + f2.p2) / 2) / 2 + base.p1 */
        float w[3] = {(6.0f + (float)i) / 4.0f, 4.75f, 7.75f};
        float got[3] = {*qd_field_test_third__field1_p1_0_at(i), *qd_field_test_third__field1_p1_1_at(i),
                        *qd_field_test_third__field1_p1_2_at(i)};
        for (int k = 0; k < 3; k++)
            if (got[k] != w[k]) bad++, fprintf(stderr, "struct_forms: field1[%d].p1[%d] = %g, want %g\n", i, k, got[k], w[k]);
    }
    static const int32_t want[6] = {4, 43, 34, 500, 8, 7};
    for (int i = 0; i < 6; i++)
        if (out[i] != want[i]) bad++, fprintf(stderr, "struct_forms: out[%d] = %d, want %d\n", i, out[i], want[i]);
    printf("struct_forms: %d wrong\n", bad);
    return bad != 0;
}

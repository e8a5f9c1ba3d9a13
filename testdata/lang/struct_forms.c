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
    static const int32_t want[6] = {4, 43, 34, 500, 8, 7};
    for (int i = 0; i < 6; i++)
        if (out[i] != want[i]) bad++, fprintf(stderr, "struct_forms: out[%d] = %d, want %d\n", i, out[i], want[i]);
    printf("struct_forms: %d wrong\n", bad);
    return bad != 0;
}

/* Host for testdata/lang/bounds.qd: parallel loops with run-time bounds, every element of out exact. */
#include "bounds.h"
#include "common.h"
#include "bounds_expected.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0;
    int32_t a[8] = {3, 1, 6, 5, 20, 3, 10, 4}, out[256], want[256];
    for (int i = 0; i < 256; i++) out[i] = -1;
    bounds_args args = {.a = a, .a_shape = {8}, .out = out, .out_shape = {256}};
    if (!host_launch_ok(bounds(&args, nt))) return 2;
    bounds_expected(want);
    for (int i = 0; i < 256; i++)
        if (out[i] != want[i]) bad++, fprintf(stderr, "out[%d] = %d, want %d\n", i, out[i], want[i]);
    printf("bounds: %d wrong\n", bad);
    return bad != 0;
}

/* Host for testdata/lang/bounds.qd: parallel loops with run-time bounds, every element of out exact. */
#include "bounds.h"
#include "common.h"

/* What bounds() leaves in out[256] for a = {3, 1, 6, 5, 20, 3, 10, 4} (out starts at -1). */
void bounds_expected(int32_t *want) {
    for (int i = 0; i < 256; i++) want[i] = -1;
    for (int i = 24; i < 32; i++) want[i] = i + 32;
    for (int i = 0; i < 8; i++) want[32 + i] = i * 2;
    for (int i = 1; i < 4; i++)
        for (int j = 2; j < 6; j++) want[64 + i * 8 + j] = i * 10 + j;
    for (int i = 0; i < 5; i++) want[128 + i] = 1;
    for (int i = 0; i < 10; i++) want[144 + i] = 13;
    for (int i = 20; i > 3; i -= 3) want[160 + i] = 7;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) want[192 + i * 4 + j] = i + j + 100;
    for (int i = 0; i < 6; i++) want[208 + i] = 6 + i;
    want[222] = want[223] = 9;
    for (int i = 0; i < 8; i++) want[224 + i] = i < 4 ? 4 : i;
    want[250] = 13, want[251] = 32;
}

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

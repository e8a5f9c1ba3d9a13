/* What bounds() of testdata/lang/bounds.qd leaves in out[256] for a = {3, 1, 6, 5, 20, 3, 10, 4}
 * (out starts at -1): the one expectation of the x86 host (bounds.c) and the lavapipe runs
 * (tests/unit/test_bounds.c). */
#ifndef QDC_TESTDATA_BOUNDS_EXPECTED_H
#define QDC_TESTDATA_BOUNDS_EXPECTED_H
#include <stdint.h>

static inline void bounds_expected(int32_t *want) {
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

#endif

/* Host for tests/kernels/semantics.qd: a C model of each output slot with Python/Quadrants
 * semantics; prints the number of mismatching slots (and the first one). */
#include "semantics.h"
#include "common.h"
#include <math.h>

enum { W = 16 };

static int32_t floordiv(int32_t x, int32_t y) { int32_t q = x / y; return (x % y != 0 && (x < 0) != (y < 0)) ? q - 1 : q; }
static int32_t pymod(int32_t x, int32_t y) { int32_t r = x % y; return (r != 0 && (r < 0) != (y < 0)) ? r + y : r; }
static float pyfmod(float x, float y) { float r = fmodf(x, y); return (r != 0 && (r < 0) != (y < 0)) ? r + y : r; }

static void model(int i, int32_t x, int32_t y, int32_t *oi, float *of) {
    int s = y & 7;
    oi[0] = floordiv(x, y), oi[1] = pymod(x, y);
    oi[2] = (int32_t)((uint32_t)x << s), oi[3] = x >> s, oi[4] = (int32_t)((uint32_t)x >> s);
    oi[5] = x > y ? x : y, oi[6] = x < y ? x : y, oi[7] = x > y ? x : y, oi[8] = x < 0 ? -x : x;
    oi[9] = __builtin_popcount((uint32_t)x), oi[10] = x ? __builtin_clz((uint32_t)x) : 32;
    oi[11] = (y & 3) * (y & 3) * (y & 3), oi[12] = (int32_t)((float)x / 3.0f);
    oi[13] = 25 + 2500;
    oi[14] = x + y > 100 ? 100 : x + y;
    oi[15] = (x > 0 && y > 0) + !(x < y) * 2;
    of[0] = sqrtf(fabsf((float)x)), of[1] = floorf((float)x / 7.0f), of[2] = (float)x * (float)x;
    of[3] = (float)x / (float)y, of[4] = floorf((float)x / 8.0f), of[5] = pyfmod((float)x, 8.0f);
    of[6] = (float)((double)x * 0.5);
    uint32_t bits = 0x3F800000u + (uint32_t)(i & 1);
    memcpy(&of[7], &bits, 4);
}

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 4096), bad = 0;
    int32_t *a = host_alloc((size_t)n, 4), *b = host_alloc((size_t)n, 4), *oi = host_alloc((size_t)n * W, 4);
    float *of = host_alloc((size_t)n * W, 4);
    for (int i = 0; i < n; i++) {
        a[i] = (int32_t)(host_rand() % 2001) - 1000;
        do b[i] = (int32_t)(host_rand() % 101) - 50; while (!b[i]);
    }
    a[0] = 0, a[1] = -8, b[1] = 8; /* edges: zero, exact negative multiple */
    semantics_args args = {a, {n}, b, {n}, oi, {n * W}, of, {n * W}};
    if (!host_launch_ok(semantics(&args, nt))) return 2;
    for (int i = 0; i < n; i++) {
        int32_t wi[W];
        float wf[W];
        model(i, a[i], b[i], wi, wf);
        for (int k = 0; k < W; k++) {
            bool ok = oi[i * W + k] == wi[k] && (k >= 8 || of[i * W + k] == wf[k]);
            if (!ok && !bad++)
                fprintf(stderr, "first mismatch: x=%d y=%d slot %d: int %d (want %d) float %.9g (want %.9g)\n", a[i], b[i], k,
                        oi[i * W + k], wi[k], k < 8 ? of[i * W + k] : 0.0, k < 8 ? wf[k] : 0.0);
        }
    }
    printf("%d rows x %d slots: %d mismatches\n", n, W, bad);
    free(a), free(b), free(oi), free(of);
    return bad != 0;
}

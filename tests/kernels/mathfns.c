/* Host for tests/kernels/mathfns.qd: every result equals the C library's, bit for bit (x86
 * kernels call libm: sinf for f32, sin for f64), round is half away from zero, clamp is
 * min(max(x, lo), hi), and the qd.math constants are the f32 roundings of pi, e, inf and nan. */
#include "mathfns.h"
#include "common.h" /* examples/host/common.h */
#include <math.h>
#include <string.h>

#define NF 20
#define ND 8
#define NI 4

static int same(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 4096);
    float *x = host_alloc((size_t)n, 4), *w = host_alloc((size_t)n, 4), *o = host_alloc((size_t)NF * n, 4);
    double *d = host_alloc((size_t)ND * n, 8);
    int32_t *r = host_alloc((size_t)NI * n, 4);
    for (int i = 0; i < n; i++) {
        x[i] = (float)((int32_t)(host_rand() % 200001) - 100000) / 1000.0f; /* -100 .. 100, halves included */
        if (i % 16 == 5) x[i] = (float)(i % 9) - 4.5f;
        w[i] = (float)((int32_t)(host_rand() % 2001) - 1000) / 1000.0f;
    }
    mathfns_args a = {x, {n}, w, {n}, o, {NF, n}, d, {ND, n}, r, {NI, n}};
    if (!host_launch_ok(mathfns(&a, nt))) return 2;
    int bad[NF + ND + NI];
    memset(bad, 0, sizeof bad);
    for (int i = 0; i < n; i++) {
        float A = x[i], B = w[i];
        double DA = A, DB = B;
        float e[NF] = {sinf(A), cosf(A), tanf(A), asinf(B), acosf(B), atanf(A), atan2f(A, B), expf(B * 80.0f),
                       logf(fabsf(A)), tanhf(A), powf(fabsf(A), B * 3.0f), powf(fabsf(A), 0.5f), 1.0f / sqrtf(fabsf(A)),
                       ceilf(A), roundf(A), fminf(fmaxf(A, -1.5f), 2.5f), sqrtf(fabsf(A)) + floorf(A),
                       3.14159265358979f * A + 2.71828182845905f, A > 0 ? INFINITY : -INFINITY, NAN};
        double de[ND] = {sin(DA), cos(DA), exp(DB * 700.0), log(fabs(DA)), atan2(DA, DB), pow(fabs(DA), DB * 3.0), tanh(DA), asin(DB)};
        int32_t ie[NI] = {(int32_t)floorf(A), (int32_t)roundf(A), (int32_t)ceilf(A), (int32_t)A < -3 ? -3 : (int32_t)A > 4 ? 4 : (int32_t)A};
        for (int f = 0; f < NF; f++) bad[f] += !same(o[(size_t)f * n + i], e[f]);
        for (int f = 0; f < ND; f++) bad[NF + f] += !same(d[(size_t)f * n + i], de[f]);
        for (int f = 0; f < NI; f++) bad[NF + ND + f] += r[(size_t)f * n + i] != ie[f];
    }
    int total = 0;
    for (int f = 0; f < NF + ND + NI; f++) {
        if (bad[f]) printf("result %d: %d of %d differ from libm\n", f, bad[f], n);
        total += bad[f];
    }
    printf("math builtins: %s (%d f32, %d f64, %d integer results per element)\n", total ? "WRONG" : "exact", NF, ND, NI);
    free(x), free(w), free(o), free(d), free(r);
    return total != 0;
}

/* Host for float_sum.qd: integer-valued f32 inputs (0..3) and n <= 2^21, so every partial sum is exact in f32
 * whatever the order: sum and sum of squares must match exactly. */
#include "float_sum.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 1 << 20);
    float *x = host_alloc((size_t)n, sizeof *x), out[2] = {-1, -1};
    double s = 0, s2 = 0;
    for (int i = 0; i < n; i++) x[i] = (float)(host_rand() % 4), s += x[i], s2 += (double)x[i] * x[i];
    float_sum_args a = {x, {n}, out, {2}};
    if (!host_launch_ok(float_sum(&a, nt))) return 2;
    int ok = out[0] == s && out[1] == s2;
    printf("%d values: sum=%.1f sumsq=%.1f %s\n", n, out[0], out[1], ok ? "exact" : "MISMATCH");
    free(x);
    return !ok;
}

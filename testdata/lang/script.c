/* Host for testdata/lang/script.py: the two kernels of a whole script, exact results. */
#include "script.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 100000), bad = 0, want[16] = {0};
    int32_t *d = host_alloc((size_t)n, 4);
    float *x = host_alloc((size_t)n, 4);
    double sum = 0;
    for (int i = 0; i < n; i++) {
        d[i] = (int32_t)(host_rand() % 26) - 5;
        want[d[i] < 0 ? 0 : d[i] > 15 ? 15 : d[i]]++;
        x[i] = (float)(i % 8), sum += (i % 8) * 2.5;
    }
    histogram_args h = {d, {n}};
    scale_args s = {x, {n}};
    if (!host_launch_ok(histogram(&h, nt)) || !host_launch_ok(scale(&s, nt))) return 2;
    for (int b = 0; b < 16; b++) bad += qd_field_bins[b] != want[b];
    for (int i = 0; i < n; i++) bad += x[i] != (float)(i % 8) * 2.5f;
    bad += qd_field_total != (float)sum;
    printf("script: %d wrong, bins[0] %d, total %.1f\n", bad, qd_field_bins[0], qd_field_total);
    free(d), free(x);
    return bad != 0;
}

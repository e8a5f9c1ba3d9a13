/* Host for histogram.qd: 2^20 values into 256 bins; compares with a serial count. */
#include "histogram.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, 1 << 20), bad = 0;
    int32_t *data = host_alloc((size_t)n, sizeof *data), *bins = host_alloc(256, sizeof *bins);
    int64_t want[256] = {0};
    for (int i = 0; i < n; i++) data[i] = (int32_t)host_rand(), want[data[i] & 255]++;
    histogram_args a = {data, {n}, bins, {256}};
    if (!host_launch_ok(histogram(&a, nt))) return 2;
    for (int b = 0; b < 256; b++) bad += bins[b] != want[b];
    printf("%d values, 256 bins: %s (bins[0]=%d bins[255]=%d)\n", n, bad ? "MISMATCH" : "exact", bins[0], bins[255]);
    free(data), free(bins);
    return bad != 0;
}

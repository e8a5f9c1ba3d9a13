/* Host for shared_histogram.qd: block-shared histograms (lanes run as coroutines on the CPU,
 * meeting at block.sync) merged into global bins; compares with a serial count. */
#include "shared_histogram.h"
#include "common.h"

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), n = host_n(argc, argv, (1 << 20) + 77), bad = 0;
    int32_t *data = host_alloc((size_t)n, 4), *bins = host_alloc(256, 4);
    int64_t want[256] = {0};
    for (int i = 0; i < n; i++) data[i] = (int32_t)host_rand(), want[data[i] & 255]++;
    shared_histogram_args a = {data, {n}, bins, {256}};
    if (!host_launch_ok(shared_histogram(&a, nt))) return 2;
    for (int b = 0; b < 256; b++) bad += bins[b] != want[b];
    printf("%d values, 256 bins via block-shared memory: %s\n", n, bad ? "MISMATCH" : "exact");
    free(data), free(bins);
    return bad != 0;
}

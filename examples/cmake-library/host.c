/* Host for examples/cmake-library: runs the histogram kernel from the library qdc_add_library()
 * built (symbols prefixed "histogram_" by default) and reports the embedded sm_90 PTX. */
#include "histogram.h"
#include "float_sum.h"
#include <stdio.h>
#include <stdlib.h>

#if QDC_EXAMPLE_EMBEDS_SM_90
#include "sm_90/histogram.ptx.h" /* EMBED: declares the array and its size */
#endif

int main(void) {
    enum { N = 1000 };
    int32_t data[N], bins[256];
    for (int i = 0; i < N; i++) data[i] = i * 7;
    histogram_histogram_args a = {data, {N}, bins, {256}};
    if (histogram_histogram(&a, 2)) return 2;
    int total = 0;
    for (int b = 0; b < 256; b++) total += bins[b];
    printf("histogram: %d values counted, bins[7]=%d\n", total, bins[7]);
#if QDC_EXAMPLE_EMBEDS_SM_90
    printf("embedded sm_90 PTX: %zu bytes, starts \"%.2s\"\n", histogram_qdc_histogram_sm_90_size,
           (const char *)histogram_qdc_histogram_sm_90);
#endif
    return total != N;
}

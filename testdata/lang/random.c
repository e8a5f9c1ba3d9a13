/* Host for testdata/lang/random.py: qd.random's ranges and a crude uniformity bound. */
#include "random.h"
#include "common.h"
#include <string.h>

enum { N = 8192, BUCKETS = 16 };

static int uniform(const double *x, const char *what) { /* each of 16 buckets within 25% of N/16 */
    int count[BUCKETS] = {0}, bad = 0;
    for (int i = 0; i < N; i++) {
        if (!(x[i] >= 0.0 && x[i] < 1.0)) return printf("%s[%d] = %g out of [0, 1)\n", what, i, x[i]), 1;
        count[(int)(x[i] * BUCKETS)]++;
    }
    for (int b = 0; b < BUCKETS; b++) bad += count[b] < N / BUCKETS * 3 / 4 || count[b] > N / BUCKETS * 5 / 4;
    if (bad) printf("%s: %d buckets outside the bound\n", what, bad);
    return bad;
}

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0;
    fill_args args = {0};
    if (!host_launch_ok(fill(&args, nt))) return 2;
    static double x[N];
    for (int i = 0; i < N; i++) x[i] = qd_field_uf[i];
    bad += uniform(x, "f32");
    for (int i = 0; i < N; i++) x[i] = qd_field_ud[i];
    bad += uniform(x, "f64");
    for (int i = 0; i < N; i++) x[i] = ((uint32_t)qd_field_ui[i]) / 4294967296.0;
    bad += uniform(x, "i32");
    for (int i = 0; i < N; i++) x[i] = (double)(qd_field_ul[i] >> 11) / 9007199254740992.0;
    bad += uniform(x, "u64");
    int negative = 0, distinct = 0;
    for (int i = 0; i < N; i++) negative += qd_field_ui[i] < 0, distinct += i && qd_field_ui[i] != qd_field_ui[i - 1];
    bad += negative < N * 2 / 5 || negative > N * 3 / 5 || distinct < N - 2;
    for (int w = 0; w < 16; w++) bad += qd_field_walk[w] < 400 || qd_field_walk[w] > 600; /* 1000 fair coins */
    bad += qd_field_walk[0] == qd_field_walk[1] && qd_field_walk[1] == qd_field_walk[2];
    float first = qd_field_uf[0];
    static float before[N];
    memcpy(before, qd_field_uf, sizeof before);
    if (!host_launch_ok(fill(&args, nt))) return 2; /* a second launch draws new values */
    int same = 0;
    for (int i = 0; i < N; i++) same += qd_field_uf[i] == before[i];
    bad += same > 16 || qd_field_qdc_rng_fill != 2;
    printf("random: %d wrong, first %.6f %d, then %.6f\n", bad, first, qd_field_walk[0], qd_field_uf[0]);
    return bad != 0;
}

/* Host for testdata/lang/clock.py: the cycle counter advances; qd.randn's sample moments. */
#include "clock.h"
#include "common.h"
#include <math.h>

enum { N = 20000 };

static int moments(const double *x, const char *what) {
    double mean = 0, var = 0, within1 = 0;
    for (int i = 0; i < N; i++) mean += x[i];
    mean /= N;
    for (int i = 0; i < N; i++) var += (x[i] - mean) * (x[i] - mean), within1 += fabs(x[i]) < 1.0;
    var /= N - 1;
    within1 /= N;
    /* N(0, 1): mean within 4 standard errors, variance within 5%, 68.3% within one sigma */
    int bad = fabs(mean) > 4.0 / sqrt(N) || fabs(var - 1.0) > 0.05 || fabs(within1 - 0.6827) > 0.02;
    if (bad) printf("%s: mean %.4f variance %.4f within one sigma %.4f\n", what, mean, var, within1);
    return bad;
}

int main(int argc, char **argv) {
    int nt = host_threads(argc, argv), bad = 0;
    time_loop_args t = {.n = 100000};
    if (!host_launch_ok(time_loop(&t, nt))) return 2;
    long long t0 = (long long)qd_field_ticks[0], t1 = (long long)qd_field_ticks[1];
    if (!(t0 != 0 && t1 > t0)) bad++, printf("clock: %lld then %lld\n", t0, t1);
    sample_args s = {0};
    if (!host_launch_ok(sample(&s, nt))) return 2;
    static double x[N];
    bad += moments(qd_field_gauss, "f64");
    for (int i = 0; i < N; i++) x[i] = qd_field_gauss32[i];
    bad += moments(x, "f32");
    printf("clock: %d wrong, spin %.1f\n", bad, (double)qd_field_spin);
    return bad != 0;
}

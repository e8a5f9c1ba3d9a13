/* bench/ad/run.sh: times fit_grad (bench/ad/fit.qd) on N points, T threads, REPS runs; prints
 * "<median ms> <p.grad[0]> <p.grad[1]> <exact p.grad[0]> <exact p.grad[1]>" (exact: f64 sums).
 * usage: adbench N T REPS */
#include "fit.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 4) return 2;
    int32_t n = atoi(argv[1]);
    int threads = atoi(argv[2]), reps = atoi(argv[3]);
    float *a = malloc(sizeof(float) * (size_t)n), *b = malloc(sizeof(float) * (size_t)n);
    double *t = malloc(sizeof(double) * (size_t)reps), g0 = 0, g1 = 0;
    if (!a || !b || !t || reps < 1) return 2;
    qd_field_p[0] = 0.5f, qd_field_p[1] = -0.25f;
    for (int32_t i = 0; i < n; i++) {
        a[i] = (float)(i % 1000) / 1000.0f, b[i] = 2.0f * a[i] + 1.0f;
        double r = (double)qd_field_p[0] * a[i] + qd_field_p[1] - b[i];
        g0 += 2 * r * a[i], g1 += 2 * r;
    }
    fit_grad_args args = {.a = a, .a_shape = {n}, .b = b, .b_shape = {n}};
    for (int k = 0; k < reps; k++) {
        qd_field_p_grad[0] = qd_field_p_grad[1] = 0, qd_field_loss_grad = 1;
        double t0 = now_ms();
        if (fit_grad(&args, threads)) return 3;
        t[k] = now_ms() - t0;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_d);
    printf("%.2f %.6g %.6g %.6g %.6g\n", t[reps / 2], qd_field_p_grad[0], qd_field_p_grad[1], g0, g1);
    free(a), free(b), free(t);
    return 0;
}

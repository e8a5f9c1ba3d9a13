/* bench/ad/stack.sh: times power and power_grad (bench/ad/stack.qd) at trip count N on T threads,
 * REPS runs each; prints "<primal ms> <grad ms> <grad CPU ms> <max relative error of x.grad and
 * y.grad against the analytic y^n and n x y^(n-1)>" (each a median over the runs; CPU: the
 * process's user+system time during a grad run, all threads).
 * usage: stackbench N T REPS */
#include "stack.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double cpu_ms(void) {
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return (r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e3 + (r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e3;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 4) return 2;
    int32_t n = atoi(argv[1]);
    int threads = atoi(argv[2]), reps = atoi(argv[3]);
    if (reps < 1 || reps > 64) return 2;
    double tp[64], tg[64], cg[64], err = 0;
    for (int i = 0; i < 64; i++) qd_field_x[i] = 1.0 + i / 64.0, qd_field_y[i] = 1.0 + (i - 32) * 1e-6;
    power_args pa = {.n = n};
    power_grad_args ga = {.n = n};
    for (int k = 0; k < reps; k++) {
        qd_field_loss = 0;
        double t0 = now_ms();
        if (power(&pa, threads)) return 3;
        tp[k] = now_ms() - t0;
        for (int i = 0; i < 64; i++) qd_field_x_grad[i] = qd_field_y_grad[i] = 0;
        qd_field_loss_grad = 1;
        double c0 = cpu_ms();
        t0 = now_ms();
        if (power_grad(&ga, threads)) return 3;
        tg[k] = now_ms() - t0, cg[k] = cpu_ms() - c0;
    }
    for (int i = 0; i < 64; i++) {
        double x = qd_field_x[i], y = qd_field_y[i], gx = pow(y, n), gy = n * x * pow(y, n - 1);
        err = fmax(err, fmax(fabs(qd_field_x_grad[i] - gx) / gx, fabs(qd_field_y_grad[i] - gy) / gy));
    }
    qsort(tp, (size_t)reps, sizeof *tp, cmp_d);
    qsort(tg, (size_t)reps, sizeof *tg, cmp_d);
    qsort(cg, (size_t)reps, sizeof *cg, cmp_d);
    printf("%.3f %.3f %.3f %.3g\n", tp[reps / 2], tg[reps / 2], cg[reps / 2], err);
    return 0;
}

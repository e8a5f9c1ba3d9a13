/* `make bench` section 3: x86 run time of four examples and bench/x86/reductions.qd compiled by
 * qdc (through their generated headers and libqdrt) against ref.c, on 1 and 2 threads, the qdc and C runs of a case
 * interleaved. Prints one line per case:
 *   <name> <threads> <qdc median ms> <C median ms> <ok|MISMATCH>
 * usage: x86bench N REPS */
#include "cas_max.h"
#include "compaction.h"
#include "float_sum.h"
#include "histogram.h"
#include "reductions.h"
#include "ref.h"
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int32_t *ibuf, *dval, *didx;
static float *fbuf;
static int32_t N, T;
/* Each result on its own cache lines, so neither side's atomics share a line with anything. */
#define LINE _Alignas(64)
static LINE int32_t bins_q[256];
static LINE int32_t bins_c[256];
static LINE int32_t nout_q[1];
static LINE int32_t nout_c[1];
static LINE int32_t best_q[1];
static LINE int32_t best_c[1];
static LINE float sum_q[2];
static LINE int32_t isum_q[1];
static LINE int32_t isum_c[1];
static LINE int32_t imax_q[1];
static LINE int32_t imax_c[1];
static LINE int32_t hist4_q[4];
static LINE int32_t hist4_c[4];
static LINE float sum_c[2];

static void q_hist(void) {
    histogram_args a = {.data = ibuf, .data_shape = {N}, .bins = bins_q, .bins_shape = {256}};
    histogram(&a, T);
}
static void c_hist(void) { ref_histogram(ibuf, N, bins_c, T); }
static void q_fsum(void) {
    float_sum_args a = {.x = fbuf, .x_shape = {N}, .out = sum_q, .out_shape = {2}};
    float_sum(&a, T);
}
static void c_fsum(void) { ref_float_sum(fbuf, N, sum_c, T); }
static void q_compact(void) {
    compact_args a = {.src = ibuf, .src_shape = {N}, .dst_val = dval, .dst_val_shape = {N}, .dst_idx = didx,
                      .dst_idx_shape = {N}, .n_out = nout_q, .n_out_shape = {1}, .threshold = 0};
    compact(&a, T);
}
static void c_compact(void) { ref_compact(ibuf, N, dval, didx, nout_c, 0, T); }
static void q_casmax(void) {
    cas_max_args a = {.cand = ibuf, .cand_shape = {N}, .best = best_q, .best_shape = {1}};
    cas_max(&a, T);
}
static void c_casmax(void) { ref_cas_max(ibuf, N, best_c, T); }

static void q_isum(void) {
    isum_args a = {.x = ibuf, .x_shape = {N}, .out = isum_q, .out_shape = {1}};
    isum(&a, T);
}
static void c_isum(void) { ref_isum(ibuf, N, isum_c, T); }
static void q_imax(void) {
    imax_args a = {.x = ibuf, .x_shape = {N}, .out = imax_q, .out_shape = {1}};
    imax(&a, T);
}
static void c_imax(void) { ref_imax(ibuf, N, imax_c, T); }
static void q_hist4(void) {
    hist4_args a = {.x = ibuf, .x_shape = {N}, .bins = hist4_q, .bins_shape = {4}};
    hist4(&a, T);
}
static void c_hist4(void) { ref_hist4(ibuf, N, hist4_c, T); }

static double time_one(void (*fn)(void)) {
    double t0 = now_ms();
    fn();
    return now_ms() - t0;
}

/* Interleaves the qdc and C runs (alternating which goes first) so that a change in machine
 * load hits both alike; *q and *c get the medians. */
static void time_pair(void (*qfn)(void), void (*cfn)(void), int reps, double *q, double *c) {
    double tq[64], tc[64];
    for (int r = 0; r < reps; r++) {
        if (r % 2) tc[r] = time_one(cfn), tq[r] = time_one(qfn);
        else tq[r] = time_one(qfn), tc[r] = time_one(cfn);
    }
    *q = median(tq, reps), *c = median(tc, reps);
}

/* The float sums against the exact (double) sums: qdc's within 0.1 %. Not against C: one f32
 * atomic per element stalls once the sum reaches 2^24 (terms below 1 are lost), while qdc's
 * reassociated sum (qdc-lang(7) "Atomic reductions") adds per-chunk partials. */
static double exact_sum[2];
static bool same_sum(void) {
    for (int k = 0; k < 2; k++)
        if (!(fabs(sum_q[k] - exact_sum[k]) <= 1e-3 * exact_sum[k])) return false;
    return true;
}

int main(int argc, char **argv) {
    N = argc > 1 ? atoi(argv[1]) : 100000000;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    if (reps < 1 || reps > 64 || N < 1) return fprintf(stderr, "usage: x86bench N REPS (REPS <= 64)\n"), 2;
    ibuf = malloc(sizeof *ibuf * (size_t)N), dval = malloc(sizeof *dval * (size_t)N);
    didx = malloc(sizeof *didx * (size_t)N), fbuf = malloc(sizeof *fbuf * (size_t)N);
    if (!ibuf || !dval || !didx || !fbuf) return fprintf(stderr, "x86bench: out of memory\n"), 1;
    uint64_t s = 88172645463325252ull;
    for (int32_t i = 0; i < N; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        ibuf[i] = (int32_t)(s >> 33) - (1 << 30);
        fbuf[i] = (float)(s >> 40) / (float)(1 << 24);
        exact_sum[0] += fbuf[i], exact_sum[1] += (double)fbuf[i] * fbuf[i];
    }
    double q, c;
    for (T = 1; T <= 2; T++) {
        time_pair(q_hist, c_hist, reps, &q, &c);
        printf("histogram %d %.2f %.2f %s\n", T, q, c, memcmp(bins_q, bins_c, sizeof bins_q) ? "MISMATCH" : "ok");
        time_pair(q_fsum, c_fsum, reps, &q, &c);
        printf("float_sum %d %.2f %.2f %s\n", T, q, c, same_sum() ? "ok" : "MISMATCH");
        time_pair(q_compact, c_compact, reps, &q, &c);
        printf("compaction %d %.2f %.2f %s\n", T, q, c, nout_q[0] == nout_c[0] ? "ok" : "MISMATCH");
        time_pair(q_casmax, c_casmax, reps, &q, &c);
        printf("cas_max %d %.2f %.2f %s\n", T, q, c, best_q[0] == best_c[0] ? "ok" : "MISMATCH");
        time_pair(q_isum, c_isum, reps, &q, &c);
        printf("i32_sum %d %.2f %.2f %s\n", T, q, c, isum_q[0] == isum_c[0] ? "ok" : "MISMATCH");
        time_pair(q_imax, c_imax, reps, &q, &c);
        printf("i32_max %d %.2f %.2f %s\n", T, q, c, imax_q[0] == imax_c[0] ? "ok" : "MISMATCH");
        time_pair(q_hist4, c_hist4, reps, &q, &c);
        printf("hist4 %d %.2f %.2f %s\n", T, q, c, memcmp(hist4_q, hist4_c, sizeof hist4_q) ? "MISMATCH" : "ok");
        fflush(stdout);
    }
    return 0;
}

/* Baseline implementations for `make bench` section 3 (see ref.h). */
#include "ref.h"
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

typedef struct {
    void (*body)(void *ctx, int32_t begin, int32_t end);
    void *ctx;
    int32_t begin, end;
} Chunk;

static void *run_chunk(void *p) {
    Chunk *c = p;
    c->body(c->ctx, c->begin, c->end);
    return NULL;
}

/* Runs body over [0, n) in nthreads contiguous chunks (thread 0 is the caller). */
static void parallel_for(int32_t n, int nthreads, void (*body)(void *, int32_t, int32_t), void *ctx) {
    Chunk c[64];
    pthread_t th[64];
    if (nthreads < 1) nthreads = 1;
    if (nthreads > 64) nthreads = 64;
    for (int t = 0; t < nthreads; t++)
        c[t] = (Chunk){body, ctx, (int32_t)((int64_t)n * t / nthreads), (int32_t)((int64_t)n * (t + 1) / nthreads)};
    for (int t = 1; t < nthreads; t++) pthread_create(&th[t], NULL, run_chunk, &c[t]);
    run_chunk(&c[0]);
    for (int t = 1; t < nthreads; t++) pthread_join(th[t], NULL);
}

typedef struct {
    const int32_t *in;
    const float *fin;
    int32_t *out, *out2, *counter;
    float *fout;
    int32_t threshold;
} Ctx;

static void histo_body(void *p, int32_t b, int32_t e) {
    Ctx *c = p;
    for (int32_t i = b; i < e; i++) __atomic_fetch_add(&c->out[c->in[i] & 255], 1, __ATOMIC_RELAXED);
}

void ref_histogram(const int32_t *data, int32_t n, int32_t *bins, int nthreads) {
    for (int b = 0; b < 256; b++) bins[b] = 0;
    Ctx c = {.in = data, .out = bins};
    parallel_for(n, nthreads, histo_body, &c);
}

/* Float add by a CAS loop: C has no native float fetch-add, exactly as on the hardware. */
static void fadd(float *p, float v) {
    float old, nv;
    __atomic_load(p, &old, __ATOMIC_RELAXED);
    do nv = old + v;
    while (!__atomic_compare_exchange(p, &old, &nv, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

static void fsum_body(void *p, int32_t b, int32_t e) {
    Ctx *c = p;
    for (int32_t i = b; i < e; i++) {
        fadd(&c->fout[0], c->fin[i]);
        fadd(&c->fout[1], c->fin[i] * c->fin[i]);
    }
}

void ref_float_sum(const float *x, int32_t n, float *out, int nthreads) {
    out[0] = out[1] = 0.0f;
    Ctx c = {.fin = x, .fout = out};
    parallel_for(n, nthreads, fsum_body, &c);
}

static void compact_body(void *p, int32_t b, int32_t e) {
    Ctx *c = p;
    for (int32_t i = b; i < e; i++)
        if (c->in[i] > c->threshold) {
            int32_t slot = __atomic_fetch_add(c->counter, 1, __ATOMIC_RELAXED);
            c->out[slot] = c->in[i];
            c->out2[slot] = i;
        }
}

void ref_compact(const int32_t *src, int32_t n, int32_t *dst_val, int32_t *dst_idx, int32_t *n_out,
                 int32_t threshold, int nthreads) {
    static int32_t count;
    count = 0;
    Ctx c = {.in = src, .out = dst_val, .out2 = dst_idx, .counter = &count, .threshold = threshold};
    parallel_for(n, nthreads, compact_body, &c);
    n_out[0] = count;
}

static void casmax_body(void *p, int32_t b, int32_t e) {
    Ctx *c = p;
    for (int32_t i = b; i < e; i++) {
        int32_t v = abs(c->in[i]), cur = __atomic_load_n(c->out, __ATOMIC_RELAXED);
        while (cur < v)
            if (__atomic_compare_exchange_n(c->out, &cur, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) break;
    }
}

void ref_cas_max(const int32_t *cand, int32_t n, int32_t *best, int nthreads) {
    best[0] = 0;
    Ctx c = {.in = cand, .out = best};
    parallel_for(n, nthreads, casmax_body, &c);
}

/* Issue 17's reductions, one atomic per element as hand-written C does them. */
static void isum_body(void *p, int32_t b, int32_t e) {
    Ctx *c = p;
    for (int32_t i = b; i < e; i++) __atomic_fetch_add(c->out, c->in[i], __ATOMIC_RELAXED);
}

void ref_isum(const int32_t *x, int32_t n, int32_t *out, int nthreads) {
    out[0] = 0;
    Ctx c = {.in = x, .out = out};
    parallel_for(n, nthreads, isum_body, &c);
}

static void imax_body(void *p, int32_t b, int32_t e) {
    Ctx *c = p;
    for (int32_t i = b; i < e; i++) __atomic_fetch_max(c->out, c->in[i], __ATOMIC_RELAXED);
}

void ref_imax(const int32_t *x, int32_t n, int32_t *out, int nthreads) {
    out[0] = INT32_MIN;
    Ctx c = {.in = x, .out = out};
    parallel_for(n, nthreads, imax_body, &c);
}

static void hist4_body(void *p, int32_t b, int32_t e) {
    Ctx *c = p;
    for (int32_t i = b; i < e; i++) __atomic_fetch_add(&c->out[c->in[i] & 3], 1, __ATOMIC_RELAXED);
}

void ref_hist4(const int32_t *x, int32_t n, int32_t *bins, int nthreads) {
    for (int b = 0; b < 4; b++) bins[b] = 0;
    Ctx c = {.in = x, .out = bins};
    parallel_for(n, nthreads, hist4_body, &c);
}

/* The x86 benchmark algorithms written directly in C with __atomic builtins (the baseline
 * qdc's x86_64 output is compared with): the same per-element atomics, split into nthreads
 * contiguous chunks on pthreads, with the same zeroing pass first. */
#ifndef QDC_BENCH_REF_H
#define QDC_BENCH_REF_H
#include <stdint.h>
void ref_histogram(const int32_t *data, int32_t n, int32_t *bins, int nthreads);
void ref_float_sum(const float *x, int32_t n, float *out, int nthreads);
void ref_compact(const int32_t *src, int32_t n, int32_t *dst_val, int32_t *dst_idx, int32_t *n_out,
                 int32_t threshold, int nthreads);
void ref_cas_max(const int32_t *cand, int32_t n, int32_t *best, int nthreads);
/* issue 17: an i32 sum and max into one element, and a 4-bin histogram */
void ref_isum(const int32_t *x, int32_t n, int32_t *out, int nthreads);
void ref_imax(const int32_t *x, int32_t n, int32_t *out, int nthreads);
void ref_hist4(const int32_t *x, int32_t n, int32_t *bins, int nthreads);
#endif

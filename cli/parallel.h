/* -j N: the targets of one call compiled in forked worker processes, their output replayed in
 * target order so that a parallel run prints and writes what a serial one does. */
#ifndef QDC_PARALLEL_H
#define QDC_PARALLEL_H
#include "../support/util.h"
#include <stdbool.h>
#include <stddef.h>

/* In a worker: does item i, writing what the parent needs into *result (stdout and stderr are
 * captured). */
typedef void (*ParallelWork)(void *ctx, int i, StrBuf *result);
/* In the parent, in item order, after item i's stdout and stderr were replayed: result is NULL
 * when the worker ended without one (a signal). Returning false stops the replay (later items
 * are dropped, as a serial run would not have done them). */
typedef bool (*ParallelTake)(void *ctx, int i, const char *result, size_t len, int wait_status);

/* In the parent, as item i's worker starts (for the progress line); may be NULL. */
typedef void (*ParallelStart)(void *ctx, int i);

/* Runs work for items 0..n-1 in at most width workers at a time, then takes them in order
 * (stderr replayed through diag_replay). */
void parallel_run(int n, int width, ParallelStart started, ParallelWork work, ParallelTake take, void *ctx);
/* The number of online processors, at least 1 (the default of -j). */
int parallel_cores(void);
#endif

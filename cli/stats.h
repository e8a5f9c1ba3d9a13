/* --stats: a one-line summary of a checked module, used by `make demo`. */
#ifndef QDC_STATS_H
#define QDC_STATS_H
#include "../ir/ir.h"
#include <stdio.h>

/* "NAME: K kernels (a, b), T tasks, A atomics, V volatile loads, F fences" */
void print_stats(IrModule *m, const char *modname, FILE *out);
#endif

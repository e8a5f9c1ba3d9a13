/* --stats: a one-line summary of a checked module, used by `make demo`. */
#ifndef QDC_STATS_H
#define QDC_STATS_H
#include "../ir/ir.h"
#include <stdio.h>

/* "NAME: K kernels (a, b), T tasks, A atomics, V volatile loads, F fences" on standard output
 * (standard error when the output goes there: `-o -`). Under --diagnostics-format=json|sarif the
 * record {"schema":"qdc-stats/1","module","kernels","tasks","atomics","volatile_loads","fences"}:
 * one line on standard output, or a diag_record when the output holds standard output. */
void print_stats(IrModule *m, const char *modname, bool output_on_stdout);
#endif

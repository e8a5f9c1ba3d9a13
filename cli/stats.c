/* --stats: counts kernels, tasks and memory operations of a checked module (make demo). */
#include "stats.h"
#include "../support/json.h"

typedef struct {
    int atomics, volatiles, fences;
} Counts;

static void count_op(void *ctx, const IrKernel *k, const IrTask *t, const IrExpr *memop, const IrStmt *fence) {
    Counts *c = ctx;
    (void)k, (void)t;
    if (fence) c->fences++;
    else if (memop && memop->mem.is_volatile) c->volatiles++;
    else if (memop) c->atomics++;
}

static const char *plural(int n, const char *one, const char *many) { return n == 1 ? one : many; }

/* The counts, as text ("NAME: K kernels (a, b), T tasks, ...") or as the members of the JSON
 * record qdc-stats/1 (json). */
static void stats_format(IrModule *m, const char *modname, bool json, StrBuf *b) {
    Counts c = {0};
    int tasks = 0;
    ir_visit_memory_ops(m, count_op, &c);
    for (int i = 0; i < m->nkernels; i++) tasks += m->kernels[i].ntasks;
    if (json) {
        sb_puts(b, "\"module\":"), json_str(b, modname), sb_puts(b, ",\"kernels\":[");
        for (int i = 0; i < m->nkernels; i++) sb_puts(b, i ? "," : ""), json_str(b, m->kernels[i].name);
        sb_printf(b, "],\"tasks\":%d,\"atomics\":%d,\"volatile_loads\":%d,\"fences\":%d", tasks, c.atomics,
                  c.volatiles, c.fences);
        return;
    }
    sb_printf(b, "%s: %d %s (", modname, m->nkernels, plural(m->nkernels, "kernel", "kernels"));
    for (int i = 0; i < m->nkernels; i++) sb_printf(b, "%s%s", i ? ", " : "", m->kernels[i].name);
    sb_printf(b, "), %d %s, %d %s, %d %s, %d %s\n", tasks, plural(tasks, "task", "tasks"), c.atomics,
              plural(c.atomics, "atomic", "atomics"), c.volatiles, plural(c.volatiles, "volatile load", "volatile loads"),
              c.fences, plural(c.fences, "fence", "fences"));
}

void print_stats(IrModule *m, const char *modname, bool output_on_stdout) {
    StrBuf b;
    sb_init(&b);
    bool json = diag_machine_format();
    stats_format(m, modname, json, &b);
    if (!json) fputs(b.data, output_on_stdout ? stderr : stdout);
    else if (output_on_stdout) diag_record("qdc-stats/1", b.data);
    else printf("{\"schema\":\"qdc-stats/1\",%s}\n", b.data);
    sb_free(&b);
}

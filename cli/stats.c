/* --stats: counts kernels, tasks and memory operations of a checked module (make demo). */
#include "stats.h"

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

void print_stats(IrModule *m, const char *modname, FILE *out) {
    Counts c = {0};
    int tasks = 0;
    ir_visit_memory_ops(m, count_op, &c);
    fprintf(out, "%s: %d %s (", modname, m->nkernels, plural(m->nkernels, "kernel", "kernels"));
    for (int i = 0; i < m->nkernels; i++) {
        fprintf(out, "%s%s", i ? ", " : "", m->kernels[i].name);
        tasks += m->kernels[i].ntasks;
    }
    fprintf(out, "), %d %s, %d %s, %d %s, %d %s\n", tasks, plural(tasks, "task", "tasks"), c.atomics,
            plural(c.atomics, "atomic", "atomics"), c.volatiles, plural(c.volatiles, "volatile load", "volatile loads"),
            c.fences, plural(c.fences, "fence", "fences"));
}

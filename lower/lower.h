/* The atomic lowering engine: one decision per memory operation, from database answers only.
 * What it may touch: the sealed IR (ir/ir.h, read only), the capability database (capdb/) and
 * support/; never the frontend, nor a backend: the backends read its IrLowered. */
#ifndef QDC_LOWER_H
#define QDC_LOWER_H
#include "../capdb/capdb.h"
#include "../ir/ir.h"

typedef struct LowerOptions {
    const char **caps; /* user-asserted capabilities: "+int64-atomics", "-float-atomic-add", ... */
    int ncaps;
    bool no_reduce;    /* --atomic-rewrite=none: no reduction rewrite (lower/reduce.c) */
    bool no_aggregate; /* --atomic-rewrite=none|reduce: no aggregation of used results */
} LowerOptions;

/* Validates the --cap names against the target (false + diagnostic if unknown). */
bool lower_check_caps(const CapTarget *t, const LowerOptions *o);
/* This target's decision for every memory operation of the sealed module (the module is not
 * changed); NULL after reporting unsupported operations (QD4xxx). */
IrLowered *lower_module(const IrModule *m, const CapTarget *t, const LowerOptions *o, Arena *arena);
/* lower/reduce.c: marks the atomics of parallel tasks that qdc-lang(7) "Atomic reductions"
 * allows to accumulate per worker (IrLowering.reduce, detail), at the level the family's
 * rewrite.reduce names; called by lower_module on decisions already taken. caps_used[0..1]
 * receive the asserted capabilities the rewrites rely on (rewrite.aggregate_needs /
 * rewrite.reduce_needs), NULL where none. */
void lower_reductions(const IrModule *m, const CapTarget *t, const LowerOptions *o, IrLowering *ops, Arena *arena,
                      const char **caps_used);
/* lower/vector.c: turns the component atomics of one vector statement into vector atomics
 * (IrLowering.vec_width / vec_member) where the family's vector_atomics cells allow; called by
 * lower_module on decisions already taken (after lower_reductions). Returns how many. */
int lower_vectors(const IrModule *m, const CapTarget *t, IrLowering *ops, Arena *arena);
/* Decides one IR_MEMOP expression alone into *out (tests, tools); false after a QD4xxx diagnostic. */
bool lower_memop(const IrExpr *memop, const CapTarget *t, const LowerOptions *o, Arena *arena, IrLowering *out);
/* simt.c: qd.simt.warp.* only on 32-lane families, every collective on a family with a simt
 * section (false after QD4010/QD4011); and the --report-lowering records of the collectives. */
bool lower_check_simt(const IrModule *m, const CapTarget *t, const LowerOptions *o);
/* The subgroup width known at compile time: the family's when simt.width is fixed, 32 on a
 * "device" family with --cap=+subgroup32, else 0. */
int lower_simt_width(const CapTarget *t, const LowerOptions *o);
void lower_report_simt(const IrModule *m, const CapTarget *t, bool json, StrBuf *out);
/* --report-lowering: one record per memory operation (text or JSON lines). */
/* The "schema" member every JSON record carries (last, so that readers that match a record's
 * first members keep working); bumped only when a member changes meaning or goes away. */
#define LOWERING_REPORT_SCHEMA "qdc-lowering/1"
void lower_report(const IrModule *m, const IrLowered *low, const CapTarget *t, bool json, StrBuf *out);
/* --print-caps and --support-matrix. */
void capdb_print_target(const CapTarget *t, bool json, FILE *out);
bool capdb_support_matrix(const CapDb *db, const char *targets_csv, bool markdown, FILE *out);
bool capdb_support_matrix_json(const CapDb *db, const char *targets_csv, FILE *out);
#endif

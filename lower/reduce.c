/* Atomic reductions (issue 17): the one place that decides which atomics of a parallel task may
 * accumulate in a private partial and reach memory as one atomic per worker instead of one per
 * iteration. Target-independent legality over the sealed IR; the level comes from the family's
 * `rewrite.reduce` fact; backends only obey IrLowering.reduce. The rules, exactly as
 * qdc-lang(7) "Atomic reductions" states them, are the checks of reducible() and blocker(). */
#include "../capdb/capdb.h"
#include "lower.h"
#include <stdio.h>
#include <string.h>

/* One memory access of a task: an atomic or volatile operation, or a plain load or store. */
typedef struct {
    const IrRef *ref;
    const IrExpr *memop; /* NULL for a plain load or store */
} Access;

typedef struct {
    VEC(Access) acc;
    const char *blocker; /* the first construct that forbids every rewrite in the task */
} TaskScan;

/* Through the IR walker: each load and memory operation after its operands, each store and
 * the fence and barrier blockers at their statement. */
static IrExpr *scan_expr(IrWalker *w, IrExpr *e) {
    TaskScan *s = w->ctx;
    if (e->kind == IR_LOAD) vec_push(&s->acc, ((Access){e->ref, NULL}));
    if (e->kind != IR_MEMOP) return e;
    vec_push(&s->acc, ((Access){e->mem.ref, e}));
    if (!s->blocker && e->mem.is_volatile) s->blocker = "a volatile load in the loop";
    if (!s->blocker && e->mem.order != QORD_RELAXED && e->mem.ref->kind != IR_REF_LOCAL)
        s->blocker = "an atomic with a non-relaxed order in the loop";
    return e;
}

static void scan_stmt(IrWalker *w, IrStmt *st) {
    TaskScan *s = w->ctx;
    if (st->kind == IR_STORE) vec_push(&s->acc, ((Access){st->store.ref, NULL}));
    if (!s->blocker && st->kind == IR_FENCE) s->blocker = "a memory fence in the loop";
    if (!s->blocker && st->kind == IR_BARRIER) s->blocker = "a block barrier in the loop";
}

static void scan_block(TaskScan *s, const IrBlock *b) {
    IrWalker w = {.expr = scan_expr, .stmt = scan_stmt, .ctx = s};
    ir_walk_block((IrBlock *)b, &w); /* read-only: every callback returns its node */
}

/* The same value in every iteration: constants, scalar arguments, ndarray shapes and pure
 * arithmetic on them (no local, load, memory operation or thread index). */
static bool invariant(const IrExpr *e) {
    if (!e) return true;
    switch (e->kind) {
    case IR_CONST: case IR_PARAM: case IR_SHAPE: return true;
    case IR_UNARY: return invariant(e->un.a);
    case IR_BINARY: return invariant(e->bin.a) && invariant(e->bin.b);
    case IR_SELECT: return invariant(e->sel.cond) && invariant(e->sel.a) && invariant(e->sel.b);
    case IR_CAST: case IR_BITCAST: return invariant(e->arg);
    case IR_MATH: return invariant(e->math.a) && invariant(e->math.b);
    default: return false;
    }
}

static bool ref_invariant(const IrRef *r) {
    for (int i = 0; i < r->nidx; i++)
        if (!invariant(r->idx[i])) return false;
    return invariant(r->flat);
}

/* Two references may name the same element: same field (or same ndarray argument) unless both
 * have constant indexes that differ. Distinct fields never overlap; distinct ndarray arguments
 * are assumed not to (qdc-lang(7)); shared arrays and locals are never global memory. */
static bool may_alias(const IrRef *a, const IrRef *b) {
    if (a->kind != b->kind || a->index != b->index) return false;
    if (a->kind != IR_REF_FIELD && a->kind != IR_REF_NDARRAY) return false;
    if (a->nidx != b->nidx) return true;
    for (int i = 0; i < a->nidx; i++) {
        const IrExpr *x = a->idx[i], *y = b->idx[i];
        if (x->kind == IR_CONST && y->kind == IR_CONST && x->c.i != y->c.i) return false;
    }
    return true;
}

static bool reducible_op(QdOp op, QdType t) {
    switch (op) {
    case QOP_ADD: case QOP_SUB: case QOP_MIN: case QOP_MAX: return qt_is_float(t) || qt_bits(t) >= 8;
    case QOP_AND: case QOP_OR: case QOP_XOR: return !qt_is_float(t) && qt_bits(t) >= 8;
    default: return false;
    }
}

static QdOp op_class(QdOp op) { return op == QOP_SUB ? QOP_ADD : op; }

/* Rules 1-3: the operation itself (NULL) or why not. */
static const char *reducible(const IrExpr *e, const IrLowering *L) {
    const IrMemOp *m = &e->mem;
    if (m->is_volatile || !reducible_op(m->op, m->ref->type)) return "not an add, sub, min, max, and, or or xor";
    if (m->result_used) return "its result is used";
    if (m->order != QORD_RELAXED) return "its order is not relaxed";
    if (m->ref->kind != IR_REF_FIELD && m->ref->kind != IR_REF_NDARRAY) return "not a field or ndarray element";
    if (m->ref->space != QSPACE_GLOBAL) return "not in global memory";
    if (L->kind != LOW_NATIVE && L->kind != LOW_CAS_LOOP) return "not lowered as an atomic";
    if (!ref_invariant(m->ref)) return "its address depends on the iteration";
    return NULL;
}

/* Rule 4: every other access that may reach the element is a reducible atomic of the same
 * operation (its own partial; the flushes commute). */
static const char *conflict(const TaskScan *s, const IrExpr *e, const IrLowered *low) {
    for (int i = 0; i < s->acc.len; i++) {
        const Access *a = &s->acc.items[i];
        if (a->memop == e || !may_alias(a->ref, e->mem.ref)) continue;
        if (!a->memop) return "the loop also reads or stores the element";
        if (op_class(a->memop->mem.op) != op_class(e->mem.op) || reducible(a->memop, ir_low_memop(low, a->memop)))
            return "another operation of the loop may access the element";
    }
    return NULL;
}

/* The family's rewrite facts (qdc-capdb(5) "rewrite") as this run may use them. */
typedef struct {
    IrReduceLevel level;
    bool aggregate;
    const char *by;        /* rewrite.subgroup_reduce: the instruction combining the lanes */
    const char *types;     /* rewrite.subgroup_types: what it takes ("int32 f32-add") */
    const char *reduce_no; /* why nothing is reduced on this run (a cap not asserted), else NULL */
    const char *agg_no;    /* why nothing is aggregated on this run, else NULL */
    const char *reduce_cap, *agg_cap; /* the asserted caps the rewrites rely on, else NULL */
    const char **used;     /* [0]: agg_cap once something is aggregated, [1]: reduce_cap once reduced */
} Rewrite;

static void mark(const TaskScan *s, const IrLowered *low, IrLowering *ops, const Rewrite *rw, Arena *arena);

/* Rule 6: the family's subgroup reduction takes this operation on this type. */
static bool subgroup_takes(const char *types, QdOp op, QdType t) {
    char want[16];
    if (qt_is_float(t)) {
        if (op_class(op) != QOP_ADD || (qt_bits(t) != 32 && qt_bits(t) != 64)) return false;
        snprintf(want, sizeof want, "f%d-add", qt_bits(t));
    } else snprintf(want, sizeof want, "int%d", qt_bits(t));
    size_t n = strlen(want);
    for (const char *w = types ? types : ""; *w; w += strspn(w, " ")) {
        size_t k = strcspn(w, " ");
        if (k == n && !strncmp(w, want, n)) return true;
        w += k;
    }
    return false;
}

/* "32-bit integers, f32 add" from "int32 f32-add". */
static const char *describe_types(const char *types, Arena *arena) {
    StrBuf b;
    sb_init(&b);
    for (const char *w = types ? types : ""; *w; w += strspn(w, " ")) {
        size_t k = strcspn(w, " ");
        if (b.len) sb_puts(&b, ", ");
        if (!strncmp(w, "int", 3)) sb_printf(&b, "%.*s-bit integers", (int)(k - 3), w + 3);
        else sb_printf(&b, "%.3s add", w);
        w += k;
    }
    const char *r = arena_strdup(arena, b.data ? b.data : "nothing");
    sb_free(&b);
    return r;
}

static bool asserted(const LowerOptions *o, const char *cap) {
    for (int i = 0; o && i < o->ncaps; i++)
        if (o->caps[i][0] == '+' && !strcmp(o->caps[i] + 1, cap)) return true;
    return false;
}

/* Aggregation (rewrite.aggregate: subgroup): an atomic add or sub whose result is used, of a
 * 32-bit integer on a loop-invariant global element, relaxed, natively lowered, with an operand
 * that is the same on every lane (loop-invariant), in a loop without the constructs of rule 5
 * (a fence or a non-relaxed atomic could publish through this lane's own atomic, which another
 * lane now performs). */
static void mark_aggregates(const TaskScan *s, IrLowering *ops, const Rewrite *rw, Arena *arena) {
    for (int i = 0; i < s->acc.len; i++) {
        const IrExpr *e = s->acc.items[i].memop;
        if (!e || e->mem.is_volatile || !e->mem.result_used || op_class(e->mem.op) != QOP_ADD) continue;
        const IrRef *r = e->mem.ref;
        IrLowering *L = &ops[e->mem.id];
        if (L->reduce != LOW_REDUCE_NONE || qt_is_float(r->type) || qt_bits(r->type) != 32 || r->space != QSPACE_GLOBAL ||
            (r->kind != IR_REF_FIELD && r->kind != IR_REF_NDARRAY) || !ref_invariant(r))
            continue;
        const char *why = e->mem.order != QORD_RELAXED ? "its order is not relaxed"
                          : s->blocker                  ? s->blocker
                          : L->kind != LOW_NATIVE       ? "not lowered as one native atomic"
                          : !invariant(e->mem.val)      ? "its operand differs between iterations"
                                                        : rw->agg_no;
        if (why) {
            L->detail = arena_printf(arena, "%s; not aggregated: %s", L->detail ? L->detail : "", why);
            continue;
        }
        L->reduce = LOW_AGGREGATE_SUBGROUP;
        char *used = L->detail ? strstr(L->detail, "; not reduced: its result is used") : NULL;
        if (used) L->detail = arena_printf(arena, "%.*s", (int)(used - L->detail), L->detail);
        L->detail = arena_printf(arena, "aggregated per subgroup: one atomic of the active lanes' sum by the lowest, "
                                 "each lane old + its rank * operand%s%s; %s", rw->agg_cap ? "; relies on +" : "",
                                 rw->agg_cap ? rw->agg_cap : "", L->detail ? L->detail : "");
        rw->used[0] = rw->agg_cap;
    }
}

void lower_reductions(const IrModule *m, const CapTarget *t, const LowerOptions *o, IrLowering *ops, Arena *arena,
                      const char **caps_used) {
    const char *lv = cap_str(t, "rewrite.reduce"), *ag = cap_str(t, "rewrite.aggregate");
    const char *rcap = cap_str(t, "rewrite.reduce_needs"), *acap = cap_str(t, "rewrite.aggregate_needs");
    Rewrite rw = {.aggregate = ag && !strcmp(ag, "subgroup") && !(o && (o->no_aggregate || o->no_reduce)),
                  .level = !lv || (o && o->no_reduce) ? LOW_REDUCE_NONE
                           : !strcmp(lv, "worker")     ? LOW_REDUCE_WORKER
                           : !strcmp(lv, "subgroup")   ? LOW_REDUCE_SUBGROUP
                                                       : LOW_REDUCE_NONE,
                  .by = cap_str(t, "rewrite.subgroup_reduce"), .types = cap_str(t, "rewrite.subgroup_types"),
                  .reduce_cap = rcap, .agg_cap = acap, .used = caps_used};
    caps_used[0] = caps_used[1] = NULL;
    if (rcap && !asserted(o, rcap))
        rw.reduce_no = arena_printf(arena, "the family's subgroup reduction needs --cap=+%s", rcap), rw.reduce_cap = NULL;
    if (acap && !asserted(o, acap))
        rw.agg_no = arena_printf(arena, "the family's aggregation needs --cap=+%s", acap), rw.agg_cap = NULL;
    if (rw.level == LOW_REDUCE_NONE && !rw.aggregate) return;
    IrLowered low = {ops, m->nmemops, NULL, 0, IR_CLOCK_ZERO, false, 0};
    for (int k = 0; k < m->nkernels; k++)
        for (int ti = 0; ti < m->kernels[k].ntasks; ti++) {
            const IrTask *task = &m->kernels[k].tasks[ti];
            if (task->kind != IR_TASK_PARALLEL) continue;
            TaskScan s = {{0}, NULL};
            scan_block(&s, &task->body);
            if (!s.blocker && task->uses_block) s.blocker = "the loop uses qd.simt.block constructs";
            if (rw.level != LOW_REDUCE_NONE) mark(&s, &low, ops, &rw, arena);
            if (rw.aggregate) mark_aggregates(&s, ops, &rw, arena);
            vec_free(&s.acc);
        }
}

static void mark(const TaskScan *s, const IrLowered *low, IrLowering *ops, const Rewrite *rw, Arena *arena) {
    IrReduceLevel level = rw->level;
    for (int i = 0; i < s->acc.len; i++) {
        const IrExpr *e = s->acc.items[i].memop;
        if (!e || e->mem.is_volatile) continue;
        IrLowering *L = &ops[e->mem.id];
        if (L->reduce != LOW_REDUCE_NONE || (L->detail && strstr(L->detail, "; not reduced: "))) continue;
        /* Only an add/sub/min/max/and/or/xor on a loop-invariant global element says why it is not
         * reduced; the other operations keep their record. */
        const IrRef *r = e->mem.ref;
        if (!reducible_op(e->mem.op, r->type) || (r->kind != IR_REF_FIELD && r->kind != IR_REF_NDARRAY) ||
            r->space != QSPACE_GLOBAL || !ref_invariant(r))
            continue;
        const char *why = reducible(e, L);
        /* Rule 6 (subgroup level): what the family's subgroup reduction takes (rewrite.subgroup_types). */
        if (!why && level == LOW_REDUCE_SUBGROUP && !subgroup_takes(rw->types, e->mem.op, r->type))
            why = arena_printf(arena, "the family's subgroup reduction (%s) takes %s only", rw->by ? rw->by : "?",
                               describe_types(rw->types, arena));
        if (!why) why = s->blocker;
        if (!why) why = conflict(s, e, low);
        if (!why) why = level == LOW_REDUCE_SUBGROUP ? rw->reduce_no : NULL;
        if (why) {
            L->detail = arena_printf(arena, "%s; not reduced: %s", L->detail ? L->detail : "", why);
            continue;
        }
        L->reduce = level;
        bool fadd = qt_is_float(e->mem.ref->type) && op_class(e->mem.op) == QOP_ADD;
        const char *how = level == LOW_REDUCE_WORKER
                              ? "reduced per worker: a private partial, then this once per chunk"
                              : arena_printf(arena, "reduced per subgroup: a partial per thread, %s over the active lanes, "
                                                    "then this once by the lowest",
                                             rw->by ? rw->by : "?");
        const char *cap = level == LOW_REDUCE_SUBGROUP ? rw->reduce_cap : NULL;
        if (cap) rw->used[1] = cap;
        L->detail = arena_printf(arena, "%s%s%s%s; %s", how, fadd ? " (float add reassociated)" : "", cap ? "; relies on +" : "",
                                 cap ? cap : "", L->detail ? L->detail : "");
    }
}

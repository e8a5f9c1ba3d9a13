/* Hand-built lowered IR for the GPU backend tests: one kernel
 *   probe(x: ndarray(T, 1), out: ndarray(T, 1)):  for i in range(x.shape[0]): out[i] = OP(x[i], ...)
 * with the IrLowering decision written by the test, so the PTX/AMDGPU hooks are checked
 * independently of the frontend and the lowering engine. Included by test_ptx*.c/test_amdgpu*.c. */
#ifndef QDC_TEST_PTX_IR_H
#define QDC_TEST_PTX_IR_H
#include "harness.h"
#include "lowering/lower.h"
#include "targets/target.h"
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

typedef struct ProbeSpec {
    QdOp op;
    QdType type;
    QdSpace space;
    IrLowering low;   /* kind, op, order, scope, flags, no_return... */
    bool unused;      /* result discarded (IR_EVAL) */
    bool is_volatile; /* qd.volatile_load */
    bool barrier;     /* add a block.sync() after the operation */
    int block_dim;    /* loop_config(block_dim=) */
} ProbeSpec;

static IrExpr *pir_expr(Arena *a, IrExprKind k, QdType t) {
    IrExpr *e = ARENA_NEW(a, IrExpr);
    e->kind = k;
    e->type = t;
    return e;
}

static IrExpr *pir_const(Arena *a, QdType t, double v) {
    IrExpr *e = pir_expr(a, IR_CONST, t);
    if (qt_is_float(t)) e->c.f = v;
    else e->c.i = (int64_t)v;
    return e;
}

static IrRef *pir_ref(Arena *a, IrRefKind kind, int index, QdType t, QdSpace sp) {
    IrRef *r = ARENA_NEW(a, IrRef);
    r->kind = kind;
    r->index = index;
    r->type = t;
    r->space = sp;
    r->nidx = 1;
    r->idx = ARENA_ARRAY(a, IrExpr *, 1);
    r->idx[0] = pir_expr(a, IR_LOCAL, QT_I32); /* local 0: i */
    r->idx[0]->local = 0;
    return r;
}

static IrStmt *pir_stmt(Arena *a, IrStmtKind k) {
    IrStmt *s = ARENA_NEW(a, IrStmt);
    s->kind = k;
    return s;
}

static IrExpr *pir_memop(Arena *a, const ProbeSpec *p) {
    IrExpr *e = pir_expr(a, IR_MEMOP, p->op == QOP_STORE ? QT_VOID : p->type);
    IrMemOp *m = &e->mem;
    m->op = p->op;
    m->is_volatile = p->is_volatile;
    m->ref = p->space == QSPACE_SHARED ? pir_ref(a, IR_REF_SHARED, 0, p->type, QSPACE_SHARED)
                                       : pir_ref(a, IR_REF_NDARRAY, 0, p->type, QSPACE_GLOBAL);
    if (p->op != QOP_LOAD) m->val = pir_const(a, p->type, p->op == QOP_CAS ? 0 : 1);
    if (p->op == QOP_CAS) m->val2 = pir_const(a, p->type, 1);
    m->order = p->low.order;
    m->scope = p->low.scope;
    m->result_used = !p->unused && p->op != QOP_STORE;
    m->low = p->low;
    if (m->low.kind == LOW_UNDECIDED) m->low.kind = LOW_NATIVE;
    return e;
}

/* A native decision carrying (order, scope) for op on type in space. */
static ProbeSpec probe_spec(QdOp op, QdType t, QdSpace sp, QdOrder o, QdScope s) {
    ProbeSpec p = {.op = op, .type = t, .space = sp};
    p.low.kind = LOW_NATIVE;
    p.low.op = op;
    p.low.order = o;
    p.low.scope = s;
    p.low.fence_scope = s;
    p.low.via_int = qt_is_float(t) && (op == QOP_EXCHANGE || op == QOP_CAS || op == QOP_LOAD || op == QOP_STORE);
    return p;
}

/* The module for one probe; everything lives in arena a. */
static IrModule *probe_module(Arena *a, const ProbeSpec *p) {
    IrModule *m = ARENA_NEW(a, IrModule);
    IrKernel *k = ARENA_NEW(a, IrKernel);
    m->kernels = k, m->nkernels = 1;
    k->name = "probe";
    k->nparams = 2;
    k->params = ARENA_ARRAY(a, IrParam, 2);
    k->params[0] = (IrParam){.name = "x", .kind = IR_PARAM_NDARRAY, .type = p->type, .ndim = 1};
    k->params[1] = (IrParam){.name = "out", .kind = IR_PARAM_NDARRAY, .type = p->type, .ndim = 1};
    k->nlocals = 1;
    k->locals = ARENA_ARRAY(a, IrLocal, 1);
    k->locals[0] = (IrLocal){"i", QT_I32};
    if (p->space == QSPACE_SHARED) {
        k->nshared = 1;
        k->shared = ARENA_ARRAY(a, IrShared, 1);
        k->shared[0] = (IrShared){.name = "sh", .type = p->type, .ndim = 1, .shape = {256}, .elems = 256, .task = 0};
    }
    k->ntasks = 1;
    k->tasks = ARENA_ARRAY(a, IrTask, 1);
    IrTask *t = &k->tasks[0];
    t->kind = IR_TASK_PARALLEL;
    t->name = "probe_t0";
    t->extent = pir_expr(a, IR_SHAPE, QT_I32);
    t->index_local = 0;
    t->block_dim = p->block_dim;
    t->uses_block = p->barrier || p->space == QSPACE_SHARED;
    IrStmt **ss = ARENA_ARRAY(a, IrStmt *, 2);
    IrExpr *op = pir_memop(a, p);
    if (!op->mem.result_used) {
        ss[0] = pir_stmt(a, IR_EVAL);
        ss[0]->eval = op;
    } else {
        ss[0] = pir_stmt(a, IR_STORE);
        ss[0]->store.ref = pir_ref(a, IR_REF_NDARRAY, 1, p->type, QSPACE_GLOBAL);
        ss[0]->store.value = op;
    }
    t->body.stmts = ss;
    t->body.n = 1;
    if (p->barrier) ss[t->body.n++] = pir_stmt(a, IR_BARRIER);
    return m;
}

/* The capability database of the checkout, opened once per test process. */
static const CapTarget *probe_target(const char *name) {
    static CapDb *db;
    if (!db) {
        DiagConfig dc = {DIAG_TEXT, DIAG_COLOR_NEVER, 20, false, stderr};
        diag_init(&dc);
        char *dir = root_path("capability-db");
        const char *dirs[] = {dir};
        db = capdb_open(dirs, 1);
        /* dir stays alive with db */
    }
    cr_assert_not_null(db, "capability database does not load");
    const CapTarget *t = capdb_target(db, name);
    cr_assert_not_null(t, "no family %s in capability-db/", name);
    return t;
}

/* Runs the LLVM backend on the probe; returns the artifact text (malloc'd). */
static char *probe_emit(const ProbeSpec *p, const char *family, EmitKind emit, size_t *len) {
    Arena a = {0};
    IrModule *m = probe_module(&a, p);
    TargetOptions o = {emit, 2, "probe"};
    StrBuf out;
    sb_init(&out);
    bool ok = backend_llvm_emit(m, probe_target(family), &o, &out);
    arena_free(&a);
    cr_assert(ok, "backend failed for %s", family);
    if (len) *len = out.len;
    return sb_take(&out);
}
#endif

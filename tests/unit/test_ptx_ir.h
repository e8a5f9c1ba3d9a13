/* Hand-built lowered IR for the GPU backend tests: one kernel
 *   probe(x: ndarray(T, 1), out: ndarray(T, 1)):  for i in range(x.shape[0]): out[i] = OP(x[i], ...)
 * with the IrLowering decision written by the test, so the PTX/AMDGPU hooks are checked
 * independently of the frontend and the lowering engine. Included by test_ptx*.c/test_amdgpu*.c. */
#ifndef QDC_TEST_PTX_IR_H
#define QDC_TEST_PTX_IR_H
#include "harness.h"
#include "hand_lowering.h"
#include "lower/lower.h"
#include "targets/target.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PTXAS
#define PTXAS "/usr/local/cuda/bin/ptxas"
#endif


/* sm_60/sm_70 PTX is assembled as sm_75: ptxas 13 has no older -arch but checks .target. */
static inline void ptxas_accepts(const char *ptx, const char *family) {
    if (!tool_available(PTXAS)) {
        printf("ptxas: SKIP the check of a %s module (%s not present)\n", family, PTXAS);
        return;
    }
    const char *arch = !strcmp(family, "sm_60") || !strcmp(family, "sm_70") ? "-arch=sm_75" : NULL;
    char archbuf[32];
    if (!arch) snprintf(archbuf, sizeof archbuf, "-arch=%s", family), arch = archbuf;
    char *dir = make_temp_dir();
    char *in = xasprintf("%s/k.ptx", dir), *out = xasprintf("%s/k.cubin", dir);
    cr_assert(write_text(in, ptx));
    RunResult r = run_argv((const char *[]){PTXAS, arch, in, "-o", out, NULL}, NULL, NULL);
    cr_expect_eq(r.status, 0, "ptxas rejected the %s module:\n%s\n%s", family, r.err, ptx);
    run_free(&r);
    remove_tree(dir);
    free(in), free(out), free(dir);
}

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

static inline IrExpr *pir_expr(Arena *a, IrExprKind k, QdType t) {
    IrExpr *e = ARENA_NEW(a, IrExpr);
    e->kind = k;
    e->type = t;
    return e;
}

static inline IrExpr *pir_const(Arena *a, QdType t, double v) {
    IrExpr *e = pir_expr(a, IR_CONST, t);
    if (qt_is_float(t)) e->c.f = v;
    else e->c.i = (int64_t)v;
    return e;
}

static inline IrRef *pir_ref(Arena *a, IrRefKind kind, int index, QdType t, QdSpace sp) {
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

static inline IrStmt *pir_stmt(Arena *a, IrStmtKind k) {
    IrStmt *s = ARENA_NEW(a, IrStmt);
    s->kind = k;
    return s;
}

static inline IrExpr *pir_memop(Arena *a, const ProbeSpec *p) {
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
    IrLowering low = p->low;
    if (low.kind == LOW_UNDECIDED) low.kind = LOW_NATIVE;
    hand_decide(e, low);
    return e;
}

/* A native decision carrying (order, scope) for op on type in space. */
static inline ProbeSpec probe_spec(QdOp op, QdType t, QdSpace sp, QdOrder o, QdScope s) {
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
static inline IrModule *probe_module(Arena *a, const ProbeSpec *p) {
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

/* The capability database of the checkout, opened once per test process, closed at exit. */
static CapDb *probe_db;
static char *probe_db_dir;
static inline void probe_db_close(void) {
    if (probe_db) capdb_close(probe_db);
    free(probe_db_dir);
    probe_db = NULL, probe_db_dir = NULL;
}

static inline const CapTarget *probe_target(const char *name) {
    if (!probe_db) {
        DiagConfig dc = {DIAG_TEXT, DIAG_COLOR_NEVER, 20, false, stderr};
        diag_init(&dc);
        probe_db_dir = root_path("capability-db");
        const char *dirs[] = {probe_db_dir};
        probe_db = capdb_open(dirs, 1);
        atexit(probe_db_close);
    }
    cr_assert_not_null(probe_db, "capability database does not load");
    const CapTarget *t = capdb_target(probe_db, name);
    cr_assert_not_null(t, "no family %s in capability-db/", name);
    return t;
}

/* Runs the LLVM backend on the probe; returns the artifact text (malloc'd). */
static inline char *probe_emit(const ProbeSpec *p, const char *family, EmitKind emit, size_t *len) {
    Arena a = {0};
    IrModule *m = probe_module(&a, p);
    ir_expand_module(m, &a); /* what the driver runs before every backend */
    TargetOptions o = {.emit = emit, .opt_level = 2, .module_name = "probe"};
    StrBuf out;
    sb_init(&out);
    bool ok = backend_llvm_emit(m, hand_lowered(), probe_target(family), &o, &out);
    arena_free(&a);
    cr_assert(ok, "backend failed for %s", family);
    if (len) *len = out.len;
    return sb_take(&out);
}
#endif

/* ---- golden assembly for the examples/ kernels (QDC_UPDATE_GOLDEN=1 rewrites them) ---- */
#include <dirent.h>

/* Compiles every examples/NAME.qd for family with --emit=asm and compares with
 * testdata/<area>/<example>.<family><ext>; returns how many matched (or were written). */
static inline int golden_examples(const char *area, const char *family, const char *ext,
                           void (*also)(const char *path, const char *family)) {
    bool update = getenv("QDC_UPDATE_GOLDEN") && !strcmp(getenv("QDC_UPDATE_GOLDEN"), "1");
    char *exdir = root_path("examples");
    DIR *d = opendir(exdir);
    cr_assert_not_null(d, "no examples/ directory");
    char *tmp = make_temp_dir();
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".qd")) continue;
        char *name = xstrndup(e->d_name, len - 3);
        char *src = xasprintf("%s/%s", exdir, e->d_name);
        char *out = xasprintf("%s/%s%s", tmp, name, ext);
        char *tgt = xasprintf("--target=%s", family);
        RunResult r = run_qdc(src, tgt, "--emit=asm", "-o", out, NULL);
        cr_expect_eq(r.status, 0, "%s for %s: %s", e->d_name, family, r.err);
        char *got = read_text(out, NULL);
        char *rel = xasprintf("testdata/%s/%s.%s%s", area, name, family, ext);
        char *gpath = root_path(rel);
        if (got && update) {
            cr_expect(write_text(gpath, got), "cannot write %s", rel);
        } else if (got) {
            char *want = read_text(gpath, NULL);
            cr_expect_not_null(want, "missing golden %s (run the suite with QDC_UPDATE_GOLDEN=1)", rel);
            if (want) cr_expect_str_eq(got, want, "%s differs from the compiler output (QDC_UPDATE_GOLDEN=1 updates it)", rel);
            free(want);
        }
        if (got && also) also(out, family);
        n += got != NULL;
        run_free(&r);
        free(got), free(rel), free(gpath), free(name), free(src), free(out), free(tgt);
    }
    closedir(d);
    remove_tree(tmp);
    free(tmp), free(exdir);
    return n;
}

/* Hand-built IR for the SPIR-V/MSL backend tests: one kernel, a parallel task over the extent
 * of ndarray parameter 0, decisions written as the lowering engine would write them. */
#ifndef QDC_TEST_SPIRV_KIT_H
#define QDC_TEST_SPIRV_KIT_H
#include "../../targets/spirv/spvgen.h"
#include "../../targets/spirv/spvtools.h"
#include "hand_lowering.h"
#include <string.h>

static Arena kit_arena;

static inline IrExpr *kx(IrExprKind k, QdType t) {
    IrExpr *e = ARENA_NEW(&kit_arena, IrExpr);
    e->kind = k, e->type = t;
    return e;
}
static inline IrExpr *kc_i32(int64_t v) { IrExpr *e = kx(IR_CONST, QT_I32); e->c.i = v; return e; }
static inline IrExpr *kc_f32(double v) { IrExpr *e = kx(IR_CONST, QT_F32); e->c.f = v; return e; }
static inline IrExpr *kc(QdType t, int64_t v) { IrExpr *e = kx(IR_CONST, t); e->c.i = v; return e; }
static inline IrExpr *klocal(int l, QdType t) { IrExpr *e = kx(IR_LOCAL, t); e->local = l; return e; }
static inline IrExpr *kparam(int p, QdType t) { IrExpr *e = kx(IR_PARAM, t); e->param = p; return e; }
static inline IrExpr *kshape(int p, int axis) { IrExpr *e = kx(IR_SHAPE, QT_I32); e->shape.param = p, e->shape.axis = axis; return e; }
static inline IrExpr *kbin(IrBinOp op, QdType t, IrExpr *a, IrExpr *b) {
    IrExpr *e = kx(IR_BINARY, t);
    e->bin.op = op, e->bin.a = a, e->bin.b = b;
    return e;
}

static inline IrRef *kref(IrRefKind k, int index, QdType t, IrExpr *i0) {
    IrRef *r = ARENA_NEW(&kit_arena, IrRef);
    r->kind = k, r->index = index, r->type = t, r->space = k == IR_REF_SHARED ? QSPACE_SHARED : QSPACE_GLOBAL;
    if (i0) {
        r->idx = ARENA_ARRAY(&kit_arena, IrExpr *, 1);
        r->idx[0] = i0, r->nidx = 1;
    }
    return r;
}
static inline IrExpr *kload(IrRef *r) { IrExpr *e = kx(IR_LOAD, r->type); e->ref = r; return e; }

static inline IrLowering klow(IrLowKind kind, QdOp op, bool via_int) {
    IrLowering l = {0};
    l.kind = kind, l.op = op, l.via_int = via_int, l.order = QORD_RELAXED, l.scope = QSCOPE_DEVICE;
    return l;
}
static inline IrExpr *kmem(QdOp op, IrRef *r, IrExpr *val, IrExpr *val2, IrLowering low) {
    IrExpr *e = kx(IR_MEMOP, op == QOP_STORE ? QT_VOID : r->type);
    e->mem.op = op, e->mem.ref = r, e->mem.val = val, e->mem.val2 = val2;
    hand_decide(e, low);
    e->mem.result_used = true;
    return e;
}

static inline IrStmt *ks(IrStmtKind k) { IrStmt *s = ARENA_NEW(&kit_arena, IrStmt); s->kind = k; return s; }
static inline IrStmt *keval(IrExpr *e) { IrStmt *s = ks(IR_EVAL); s->eval = e; return s; }
static inline IrStmt *kstore(IrRef *r, IrExpr *v) { IrStmt *s = ks(IR_STORE); s->store.ref = r, s->store.value = v; return s; }
static inline IrStmt *kassign(int l, IrExpr *v) { IrStmt *s = ks(IR_ASSIGN); s->assign.local = l, s->assign.value = v; return s; }

/* A module with kernel `k`: params (ndarray a: dtype, ndim 1; scalar v: dtype), locals
 * (0: i = the loop index, 1..: extra), one parallel task over a.shape[0] with `body`. */
typedef struct Kit {
    IrModule m;
    IrKernel k;
    IrParam params[4];
    IrLocal locals[8];
    IrField fields[2];
    IrShared shared[2];
    IrTask task;
    IrStmt *stmts[32];
} Kit;

static inline void kit_init(Kit *t, QdType dtype) {
    memset(t, 0, sizeof *t);
    t->params[0] = (IrParam){.name = "a", .kind = IR_PARAM_NDARRAY, .type = dtype, .ndim = 1};
    t->params[1] = (IrParam){.name = "v", .kind = IR_PARAM_SCALAR, .type = dtype};
    t->locals[0] = (IrLocal){"i", QT_I32};
    t->task = (IrTask){.kind = IR_TASK_PARALLEL, .name = "k_t0", .extent = kshape(0, 0), .index_local = 0};
    t->task.body.stmts = t->stmts;
    t->k = (IrKernel){.name = "k", .params = t->params, .nparams = 2, .locals = t->locals, .nlocals = 1,
                      .shared = t->shared, .tasks = &t->task, .ntasks = 1};
    t->m = (IrModule){.fields = t->fields, .kernels = &t->k, .nkernels = 1};
}
static inline void kit_add(Kit *t, IrStmt *s) { t->task.body.stmts[t->task.body.n++] = s; }
static inline IrExpr *kit_i(void) { return klocal(0, QT_I32); }

static const SpvTarget kit_vk12 = {"vulkan1.2", 5, false, 64, 32, false, 128};
static const SpvTarget kit_vk11 = {"vulkan1.1", 3, false, 64, 32, false, 128};
static const SpvTarget kit_vk13 = {"vulkan1.3", 6, false, 64, 32, false, 128};
static const SpvTarget kit_msl_target = {"vulkan1.1", 3, true, 64, 32, false, 0};

/* Disassembly of the module (spirv_build dies if the validator rejects it). The kit is a
 * frontend: it runs the expansion pass the driver runs (ir/expand.c) before the backend. */
static inline char *kit_asm(Kit *t, const SpvTarget *st) {
    ir_expand_module(&t->m, &kit_arena);
    StrBuf out;
    sb_init(&out);
    if (!spirv_asm(&t->m, hand_lowered(), st, &out)) { sb_free(&out); return NULL; }
    return sb_take(&out);
}
static inline char *kit_msl(Kit *t, const char *version) {
    ir_expand_module(&t->m, &kit_arena);
    StrBuf out;
    sb_init(&out);
    MslTarget mt = {version, {0}};
    if (!spirv_msl(&t->m, hand_lowered(), &kit_msl_target, &mt, NULL, NULL, &out)) { sb_free(&out); return NULL; }
    return sb_take(&out);
}
/* Diagnostics to stderr (the driver normally configures this). */
static inline void kit_diag(void) {
    DiagConfig c = {DIAG_TEXT, DIAG_COLOR_NEVER, 0, false, stderr};
    diag_init(&c);
}
static inline int count_of(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
    return n;
}
#endif

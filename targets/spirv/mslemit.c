/* The "msl" backend's driver: one SPIR-V module and one SPIRV-Cross run per task, at the
 * family's MSL version (msl.version, or msl.upgrade_version when --cap=+<msl.upgrade_cap>),
 * then the completion step (mslfix.c) and one merge of every task's items into one file. */
#include "../target.h"
#include "spvgen.h"
#include "spvmeta.h"
#include "spvtools.h"
#include <stdlib.h>
#include <string.h>

/* Which Metal buffers a task must declare coherent(device): those it reads or writes with
 * plain (non-atomic) accesses when the task orders device memory (a device-scope fence, an
 * order obtained with device fences, or a volatile spin). Atomics are coherent already. */
typedef struct {
    const IrLowered *low;
    const SpvLayout *lay;
    bool sync;
    bool *plain; /* per Metal buffer index */
} Need;

static void need_ref(Need *n, const IrRef *r) {
    int b = r->kind == IR_REF_NDARRAY ? n->lay->binding[r->index] : r->kind == IR_REF_FIELD ? n->lay->nndarray + r->index : -1;
    if (b >= 0) n->plain[b] = true;
}

/* Through the IR walker: plain loads and memory operations, then stores and fences. */
static IrExpr *need_expr(IrWalker *w, IrExpr *e) {
    Need *n = w->ctx;
    if (e->kind == IR_LOAD) need_ref(n, e->ref);
    if (e->kind != IR_MEMOP) return e;
    const IrLowering *L = ir_low_memop(n->low, e);
    bool dev_fence = (L->fence_before || L->fence_after) && L->fence_scope != QSCOPE_BLOCK;
    n->sync |= e->mem.is_volatile || dev_fence;
    if (e->mem.is_volatile || L->kind == LOW_PLAIN) need_ref(n, e->mem.ref);
    return e;
}

static void need_stmt(IrWalker *w, IrStmt *s) {
    Need *n = w->ctx;
    if (s->kind == IR_STORE) need_ref(n, s->store.ref);
    if (s->kind == IR_FENCE) n->sync |= ir_low_fence(n->low, s)->fence_scope != QSCOPE_BLOCK;
}

/* coherent[b] for every Metal buffer b of the task (nbuf entries). */
static bool *coherent_buffers(const IrModule *m, const IrLowered *low, const IrKernel *k, const IrTask *task, int *nbuf) {
    SpvLayout lay;
    spv_layout_kernel(k, 0, &lay); /* MSL: the block is always the argument buffer */
    *nbuf = lay.nndarray + m->nfields;
    Need n = {low, &lay, false, xcalloc((size_t)*nbuf + 1, sizeof(bool))};
    IrWalker w = {.expr = need_expr, .stmt = need_stmt, .ctx = &n};
    ir_walk_task((IrTask *)task, &w); /* read-only: every callback returns its node */
    if (!n.sync) memset(n.plain, 0, (size_t)*nbuf + 1);
    spv_layout_free(&lay);
    return n.plain;
}

/* The first qd.volatile_load of each SharedArray of a task whose lowering carries the
 * volatile_decoration flag (the MSL families' volatile cell): vol[i] for k->shared[i]. */
typedef struct {
    const IrLowered *low;
    const IrExpr **vol;
} VolShared;

static IrExpr *vol_expr(IrWalker *w, IrExpr *e) {
    VolShared *v = w->ctx;
    if (e->kind == IR_MEMOP && e->mem.is_volatile && e->mem.ref->kind == IR_REF_SHARED &&
        (ir_low_memop(v->low, e)->flags & LOWF_VOLATILE_DECORATION) && !v->vol[e->mem.ref->index])
        v->vol[e->mem.ref->index] = e;
    return e;
}

/* What volatile_shared needs of the IR, taken before the task's SPIR-V build (which may free
 * the IR): the name of each SharedArray the task reads with qd.volatile_load, and that load's
 * location (the source outlives the IR). */
typedef struct {
    int n;
    char **name;
    Span *at;
} VolNeeds;

static VolNeeds volatile_needs(const IrLowered *low, const IrKernel *k, const IrTask *task) {
    VolShared v = {low, xcalloc((size_t)k->nshared + 1, sizeof(const IrExpr *))};
    IrWalker w = {.expr = vol_expr, .ctx = &v};
    ir_walk_task((IrTask *)task, &w); /* read-only: every callback returns its node */
    VolNeeds need = {0, xcalloc((size_t)k->nshared + 1, sizeof(char *)), xcalloc((size_t)k->nshared + 1, sizeof(Span))};
    for (int i = 0; i < k->nshared; i++)
        if (v.vol[i]) need.name[need.n] = xstrdup(k->shared[i].name), need.at[need.n++] = v.vol[i]->span;
    free(v.vol);
    return need;
}

static void volatile_needs_free(VolNeeds *need) {
    for (int i = 0; i < need->n; i++) free(need->name[i]);
    free(need->name), free(need->at);
}

/* Declares volatile threadgroup every SharedArray the task reads with qd.volatile_load
 * (mslfix.c); *msl is replaced. One whose declaration is not found is refused (QD4004 at the
 * load), never written as a plain threadgroup load a spin could hoist. */
static bool volatile_shared(const VolNeeds *need, char **msl) {
    bool ok = true;
    for (int i = 0; i < need->n; i++) {
        char *next = msl_volatile_threadgroup(*msl, need->name[i]);
        if (next) {
            free(*msl), *msl = next;
            continue;
        }
        diag_error(need->at[i], QD4004, "volatile_load of SharedArray '%s' has no MSL form: SPIRV-Cross renamed the "
                   "array, so its threadgroup declaration cannot be made volatile (rename the array)", need->name[i]);
        ok = false;
    }
    return ok;
}

/* ---- types Metal lacks ---- */
/* MSL has no double (SPIRV-Cross would write C++ double and 0.5lf, which Metal rejects):
 * every f64 value, variable, parameter or field is QD5104, reported once per construct. */
static bool no_f64(QdType t, Span sp, const char *what) {
    if (t != QT_F64) return true;
    diag_error(sp, QD5104, "%s has type f64, which Metal has no type for (MSL has no double)", what);
    return false;
}

/* Through the IR walker: the first f64 node of each statement (before its operands, so the
 * outermost), then nothing more of that statement; nested statements have their own. A node
 * shared between statements is checked in each (the stmt hook forgets what was seen). The
 * load or memory operation is not checked itself (its buffer is, where declared), only what
 * it is given. */
typedef struct {
    const IrLowered *low;
    bool ok;
    bool stmt_done; /* reported, or a statement that is compiled out */
} F64Check;

static bool f64_enter(IrWalker *w, IrExpr *e) {
    F64Check *c = w->ctx;
    if (c->stmt_done) return false;
    if (e->kind == IR_MEMOP || e->kind == IR_LOAD || no_f64(e->type, e->span, "this expression")) return true;
    c->ok = false, c->stmt_done = true;
    return false;
}

/* An assert, and a print without an output channel, emit nothing (QD5181, QD5180). */
static void f64_stmt(IrWalker *w, IrStmt *s) {
    F64Check *c = w->ctx;
    c->stmt_done = s->kind == IR_ASSERT || (s->kind == IR_PRINT && !c->low->print);
    ir_memo_clear(&w->seen);
}

static bool f64_block(const IrLowered *low, const IrBlock *b) {
    F64Check c = {low, true, false};
    IrWalker w = {.enter = f64_enter, .stmt = f64_stmt, .ctx = &c};
    ir_walk_block((IrBlock *)b, &w); /* read-only: nothing is replaced */
    return c.ok;
}

static bool msl_check_types(const IrModule *m, const IrLowered *low) {
    bool ok = true;
    for (int i = 0; i < m->nfields; i++) ok &= no_f64(m->fields[i].type, m->fields[i].span, "this field");
    for (int k = 0; k < m->nkernels; k++) {
        const IrKernel *kn = &m->kernels[k];
        for (int i = 0; i < kn->nparams; i++) ok &= no_f64(kn->params[i].type, kn->params[i].span, "this parameter");
        for (int i = 0; i < kn->nshared; i++) ok &= no_f64(kn->shared[i].type, kn->shared[i].span, "this array");
        for (int i = 0; ok && i < kn->ntasks; i++) ok &= f64_block(low, &kn->tasks[i].body);
    }
    return ok;
}

/* One task's MSL, merged into items. Everything read of the IR is read before the SPIR-V build,
 * which calls ir_done (non-NULL for the module's last task) once the IR is no longer needed,
 * so that SPIRV-Cross's work reuses the frontend's memory. */
static bool msl_task(const IrModule *m, const IrLowered *low, const IrKernel *k, const IrTask *task, const SpvTarget *st, const MslTarget *mt,
                     const SpvRes *field_views, MslItems *items, void (*ir_done)(void *ctx), void *ctx) {
    StrBuf bin, msl, err;
    sb_init(&bin), sb_init(&msl), sb_init(&err);
    SpvMslBinding *b = NULL;
    int nb = spv_msl_bindings(m, k, &b);
    int nbuf = 0;
    bool *coh = mt->facts.coherent ? coherent_buffers(m, low, k, task, &nbuf) : xcalloc(1, sizeof(bool));
    VolNeeds vol = volatile_needs(low, k, task);
    char *name = xstrdup(task->name);
    Span at = task->span;
    bool ok = spirv_build_task_release(m, low, st, task, field_views, ir_done, ctx, &bin);
    if (ok && !spv_to_msl((const uint32_t *)bin.data, bin.len / 4, mt->version, b, nb, st->debug_lines, &msl, &err)) {
        diag_error(at, QD5102, "SPIRV-Cross cannot translate '%s' to MSL %s: %s", name, mt->version, err.data);
        ok = false;
    }
    if (ok) {
        char *done = msl_complete(msl.data, &mt->facts, coh, nbuf);
        ok = volatile_shared(&vol, &done);
        if (ok) msl_merge(items, done);
        free(done);
    }
    free(b), free(coh), free(name);
    volatile_needs_free(&vol);
    sb_free(&bin), sb_free(&msl), sb_free(&err);
    return ok;
}

typedef struct {
    const IrModule *m;
    const IrLowered *low;
    const SpvTarget *st;
    const MslTarget *mt;
    MslItems *items;
    void (*ir_done)(void *ctx);
    void *ctx;
} MslRun;

static bool msl_tasks(void *arg) {
    MslRun *r = arg;
    bool ok = true;
    int left = 0; /* the tasks not yet translated: the IR is not read once the last one is built */
    for (int k = 0; k < r->m->nkernels; k++) left += r->m->kernels[k].ntasks;
    SpvRes *views = spirv_field_views(r->m, r->low, r->st); /* once, not once per task */
    for (int k = 0; left > 0; k++)
        for (int i = 0, n = r->m->kernels[k].ntasks; i < n; i++) {
            bool last = --left == 0;
            ok &= msl_task(r->m, r->low, &r->m->kernels[k], &r->m->kernels[k].tasks[i], r->st, r->mt, views, r->items,
                           last ? r->ir_done : NULL, r->ctx);
        }
    free(views);
    return ok;
}

bool spirv_msl(const IrModule *m, const IrLowered *low, const SpvTarget *st, const MslTarget *mt, void (*ir_done)(void *ctx),
               void *ctx, StrBuf *out) {
    if (!msl_check_types(m, low)) return false;
    MslItems items = {0};
    MslRun run = {m, low, st, mt, &items, ir_done, ctx};
    bool ok = spv_msl_on_large_stack(msl_tasks, &run);
    msl_items_write(&items, out);
    return ok;
}

/* The MSL version and completion facts for this run: the upgrade applies when its cap is on. */
MslTarget msl_target(const CapTarget *t, const char *const *caps, int ncaps) {
    MslTarget mt = {cap_str(t, "msl.version"), {0}};
    if (!mt.version) die("family '%s' has no msl.version", cap_name(t));
    const char *up = cap_str(t, "msl.upgrade_cap");
    bool on = false;
    for (int i = 0; up && i < ncaps; i++)
        if (!strcmp(caps[i] + 1, up)) on = caps[i][0] == '+';
    if (!on) return mt;
    mt.version = cap_str(t, "msl.upgrade_version");
    if (!mt.version) die("family '%s' has msl.upgrade_cap but no msl.upgrade_version", cap_name(t));
    mt.facts = (MslFacts){cap_str(t, "msl.fence"), cap_str(t, "msl.fence_order"), cap_str(t, "msl.fence_flags"),
                          cap_str(t, "msl.scope_block"), cap_str(t, "msl.scope_device"), cap_str(t, "msl.coherent")};
    return mt;
}

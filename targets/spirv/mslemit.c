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

static void need_expr(Need *n, const IrExpr *e);

static void need_ref(Need *n, const IrRef *r, bool plain) {
    int b = r->kind == IR_REF_NDARRAY ? n->lay->binding[r->index] : r->kind == IR_REF_FIELD ? n->lay->nndarray + r->index : -1;
    if (plain && b >= 0) n->plain[b] = true;
    for (int i = 0; i < r->nidx; i++) need_expr(n, r->idx[i]);
}

static void need_expr(Need *n, const IrExpr *e) {
    if (!e) return;
    switch (e->kind) {
    case IR_LOAD: need_ref(n, e->ref, true); break;
    case IR_UNARY: need_expr(n, e->un.a); break;
    case IR_BINARY: need_expr(n, e->bin.a), need_expr(n, e->bin.b); break;
    case IR_SELECT: need_expr(n, e->sel.cond), need_expr(n, e->sel.a), need_expr(n, e->sel.b); break;
    case IR_CAST: case IR_BITCAST: need_expr(n, e->arg); break;
    case IR_MATH: need_expr(n, e->math.a); break;
    case IR_MEMOP: {
        const IrMemOp *m = &e->mem;
        const IrLowering *L = ir_low_memop(n->low, e);
        bool dev_fence = (L->fence_before || L->fence_after) && L->fence_scope != QSCOPE_BLOCK;
        n->sync |= m->is_volatile || dev_fence;
        need_ref(n, m->ref, m->is_volatile || L->kind == LOW_PLAIN);
        need_expr(n, m->val), need_expr(n, m->val2);
        break;
    }
    default: break;
    }
}

static void need_block(Need *n, const IrBlock *b) {
    for (int i = 0; i < b->n; i++) {
        const IrStmt *s = b->stmts[i];
        switch (s->kind) {
        case IR_ASSIGN: need_expr(n, s->assign.value); break;
        case IR_STORE: need_ref(n, s->store.ref, true), need_expr(n, s->store.value); break;
        case IR_EVAL: need_expr(n, s->eval); break;
        case IR_IF: need_expr(n, s->if_.cond), need_block(n, &s->if_.then), need_block(n, &s->if_.els); break;
        case IR_WHILE: need_expr(n, s->while_.cond), need_block(n, &s->while_.body); break;
        case IR_FOR: need_expr(n, s->for_.begin), need_expr(n, s->for_.end), need_block(n, &s->for_.body); break;
        case IR_FENCE: n->sync |= ir_low_fence(n->low, s)->fence_scope != QSCOPE_BLOCK; break;
        default: break;
        }
    }
}

/* coherent[b] for every Metal buffer b of the task (nbuf entries). */
static bool *coherent_buffers(const IrModule *m, const IrLowered *low, const IrKernel *k, const IrTask *task, int *nbuf) {
    SpvLayout lay;
    spv_layout_kernel(k, &lay);
    *nbuf = lay.nndarray + m->nfields;
    Need n = {low, &lay, false, xcalloc((size_t)*nbuf + 1, sizeof(bool))};
    if (task->extent) need_expr(&n, task->extent);
    need_block(&n, &task->body);
    if (!n.sync) memset(n.plain, 0, (size_t)*nbuf + 1);
    spv_layout_free(&lay);
    return n.plain;
}

/* ---- types Metal lacks ---- */
/* MSL has no double (SPIRV-Cross would write C++ double and 0.5lf, which Metal rejects):
 * every f64 value, variable, parameter or field is QD5104, reported once per construct. */
static bool no_f64(QdType t, Span sp, const char *what) {
    if (t != QT_F64) return true;
    diag_error(sp, QD5104, "%s has type f64, which Metal has no type for (MSL has no double)", what);
    return false;
}

static bool f64_expr(const IrExpr *e);

/* The indexes of a reference (an f64 computed only to index is still a double in MSL). */
static bool f64_ref(const IrRef *r) {
    for (int i = 0; i < r->nidx; i++)
        if (!f64_expr(r->idx[i])) return false;
    return true;
}

static bool f64_expr(const IrExpr *e) {
    if (!e) return true;
    if (e->kind != IR_MEMOP && e->kind != IR_LOAD && !no_f64(e->type, e->span, "this expression")) return false;
    switch (e->kind) {
    case IR_LOAD: return f64_ref(e->ref);
    case IR_UNARY: return f64_expr(e->un.a);
    case IR_BINARY: return f64_expr(e->bin.a) && f64_expr(e->bin.b);
    case IR_SELECT: return f64_expr(e->sel.cond) && f64_expr(e->sel.a) && f64_expr(e->sel.b);
    case IR_CAST: case IR_BITCAST: return f64_expr(e->arg);
    case IR_MATH: return f64_expr(e->math.a) && f64_expr(e->math.b);
    case IR_MEMOP: return f64_ref(e->mem.ref) && f64_expr(e->mem.val) && f64_expr(e->mem.val2);
    case IR_SUBGROUP: return f64_expr(e->sg.a) && f64_expr(e->sg.b);
    default: return true;
    }
}

static bool f64_block(const IrBlock *b) {
    bool ok = true;
    for (int i = 0; i < b->n; i++) {
        const IrStmt *s = b->stmts[i];
        switch (s->kind) {
        case IR_ASSIGN: ok &= f64_expr(s->assign.value); break;
        case IR_STORE: ok &= f64_ref(s->store.ref) && f64_expr(s->store.value); break;
        case IR_EVAL: ok &= f64_expr(s->eval); break;
        case IR_IF: ok &= f64_expr(s->if_.cond) & f64_block(&s->if_.then) & f64_block(&s->if_.els); break;
        case IR_WHILE: ok &= f64_expr(s->while_.cond) & f64_block(&s->while_.body); break;
        case IR_FOR: ok &= f64_expr(s->for_.begin) & f64_expr(s->for_.end) & f64_block(&s->for_.body); break;
        default: break;
        }
    }
    return ok;
}

static bool msl_check_types(const IrModule *m) {
    bool ok = true;
    for (int i = 0; i < m->nfields; i++) ok &= no_f64(m->fields[i].type, m->fields[i].span, "this field");
    for (int k = 0; k < m->nkernels; k++) {
        const IrKernel *kn = &m->kernels[k];
        for (int i = 0; i < kn->nparams; i++) ok &= no_f64(kn->params[i].type, kn->params[i].span, "this parameter");
        for (int i = 0; i < kn->nshared; i++) ok &= no_f64(kn->shared[i].type, kn->shared[i].span, "this array");
        for (int i = 0; ok && i < kn->ntasks; i++) ok &= f64_block(&kn->tasks[i].body);
    }
    return ok;
}

static bool msl_task(const IrModule *m, const IrLowered *low, const IrKernel *k, const IrTask *task, const SpvTarget *st, const MslTarget *mt,
                     MslItems *items) {
    StrBuf bin, msl, err;
    sb_init(&bin), sb_init(&msl), sb_init(&err);
    bool ok = spirv_build(m, low, st, task, &bin);
    SpvMslBinding *b = NULL;
    int nb = spv_msl_bindings(m, k, &b);
    if (ok && !spv_to_msl((const uint32_t *)bin.data, bin.len / 4, mt->version, b, nb, st->debug_lines, &msl, &err)) {
        diag_error(task->span, QD5102, "SPIRV-Cross cannot translate '%s' to MSL %s: %s", task->name, mt->version, err.data);
        ok = false;
    }
    if (ok) {
        int nbuf = 0;
        bool *coh = mt->facts.coherent ? coherent_buffers(m, low, k, task, &nbuf) : xcalloc(1, sizeof(bool));
        char *done = msl_complete(msl.data, &mt->facts, coh, nbuf);
        msl_merge(items, done);
        free(done), free(coh);
    }
    free(b);
    sb_free(&bin), sb_free(&msl), sb_free(&err);
    return ok;
}

bool spirv_msl(const IrModule *m, const IrLowered *low, const SpvTarget *st, const MslTarget *mt, StrBuf *out) {
    if (!msl_check_types(m)) return false;
    bool ok = true;
    MslItems items = {0};
    for (int k = 0; k < m->nkernels; k++)
        for (int i = 0; i < m->kernels[k].ntasks; i++) ok &= msl_task(m, low, &m->kernels[k], &m->kernels[k].tasks[i], st, mt, &items);
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

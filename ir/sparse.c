/* Sparse SNodes as dense storage plus activity metadata (ir/sparse.h). */
#include "sparse.h"
#include <string.h>

bool ir_sparse_field(const IrField *f) {
    for (int l = 0; l < f->nlevels; l++)
        if (f->levels[l].sparse) return true;
    return false;
}

static int64_t level_cells(const IrSnodeLevel *lv) {
    int64_t n = 1;
    for (int k = 0; k < lv->naxes; k++) n *= lv->size[k];
    return n;
}

IrExpr *ir_sparse_gcell(Arena *a, IrBinBuilder bin, void *ctx, const IrField *f, int l, IrExpr *const *idx, Span sp) {
    IrExpr *g = irb_int(a, QT_I32, 0, sp);
    for (int m = 0; m <= l; m++)
        g = bin(ctx, IR_ADD, bin(ctx, IR_MUL, g, irb_int(a, QT_I32, level_cells(&f->levels[m]), sp), sp),
                ir_snode_cell(a, bin, ctx, QT_I32, f, m, idx, sp), sp);
    return g;
}

IrRef *ir_sparse_meta_ref(Arena *a, int field, QdType t, IrExpr *i, Span sp) {
    IrRef *r = ARENA_NEW(a, IrRef);
    r->kind = IR_REF_FIELD, r->index = field, r->type = t, r->span = sp;
    r->nidx = 1, r->idx = ARENA_ARRAY(a, IrExpr *, 1), r->idx[0] = i;
    return r;
}

static IrExpr *load(Arena *a, IrRef *r, Span sp) {
    IrExpr *e = irb_new(a, IR_LOAD, r->type, sp);
    e->ref = r;
    return e;
}

/* The length slot of dynamic level l: its parent cell's. */
static IrRef *length_ref(Arena *a, IrBinBuilder bin, void *ctx, const IrField *f, int l, IrExpr *const *idx, Span sp) {
    IrExpr *g = l ? ir_sparse_gcell(a, bin, ctx, f, l - 1, idx, sp) : irb_int(a, QT_I32, 0, sp);
    return ir_sparse_meta_ref(a, f->levels[l].meta, QT_I32, g, sp);
}

static IrRef *word_ref(Arena *a, IrBinBuilder bin, void *ctx, const IrField *f, int l, IrExpr *const *idx, Span sp) {
    IrExpr *g = ir_sparse_gcell(a, bin, ctx, f, l, idx, sp);
    return ir_sparse_meta_ref(a, f->levels[l].meta, QT_U32, bin(ctx, IR_DIV, g, irb_int(a, QT_I32, 32, sp), sp), sp);
}

static IrExpr *bit_shift(Arena *a, IrBinBuilder bin, void *ctx, const IrField *f, int l, IrExpr *const *idx, Span sp) {
    IrExpr *g = ir_sparse_gcell(a, bin, ctx, f, l, idx, sp);
    return irb_cast(a, bin(ctx, IR_REM, g, irb_int(a, QT_I32, 32, sp), sp), QT_U32);
}

IrExpr *ir_sparse_active(Arena *a, IrBinBuilder bin, void *ctx, const IrField *f, int upto, IrExpr *const *idx, Span sp) {
    IrExpr *acc = NULL;
    for (int l = 0; l <= upto && l < f->nlevels; l++) {
        const IrSnodeLevel *lv = &f->levels[l];
        IrExpr *c;
        if (!lv->sparse) continue;
        if (lv->sparse == IR_SNODE_DYNAMIC) {
            c = bin(ctx, IR_LT, ir_snode_cell(a, bin, ctx, QT_I32, f, l, idx, sp), load(a, length_ref(a, bin, ctx, f, l, idx, sp), sp), sp);
        } else {
            IrExpr *w = load(a, word_ref(a, bin, ctx, f, l, idx, sp), sp);
            IrExpr *b = bin(ctx, IR_AND, bin(ctx, IR_SHR, w, bit_shift(a, bin, ctx, f, l, idx, sp), sp), irb_int(a, QT_U32, 1, sp), sp);
            c = bin(ctx, IR_NE, b, irb_int(a, QT_U32, 0, sp), sp);
        }
        acc = acc ? bin(ctx, IR_LAND, acc, c, sp) : c;
    }
    return acc ? acc : irb_int(a, QT_U1, 1, sp);
}

static IrStmt *atomic_stmt(Arena *a, QdOp op, IrRef *r, IrExpr *v, Span sp) {
    IrExpr *e = irb_new(a, IR_MEMOP, r->type, sp);
    e->mem.op = op, e->mem.ref = r, e->mem.val = v;
    e->mem.order = QORD_RELAXED, e->mem.scope = QSCOPE_DEVICE;
    IrStmt *s = ARENA_NEW(a, IrStmt);
    s->kind = IR_EVAL, s->span = sp, s->eval = e;
    return s;
}

/* if (!cond) s: the atomic only where a plain load says it is needed (a stale load only costs a
 * redundant atomic: bits are cleared and lengths lowered only by deactivation, which does not
 * race with writes to the same cell). */
static IrStmt *unless(Arena *a, IrExpr *cond, IrStmt *s, Span sp) {
    IrStmt *st = ARENA_NEW(a, IrStmt);
    st->kind = IR_IF, st->span = sp, st->if_.cond = cond;
    st->if_.then.stmts = ARENA_ARRAY(a, IrStmt *, 1), st->if_.then.stmts[0] = s, st->if_.then.n = 1;
    return st;
}

void ir_sparse_activate(Arena *a, IrBinBuilder bin, void *ctx, const IrField *f, int upto, IrExpr *const *idx, Span sp,
                        void (*emit)(void *ectx, IrStmt *s), void *ectx) {
    for (int l = 0; l <= upto && l < f->nlevels; l++) {
        const IrSnodeLevel *lv = &f->levels[l];
        if (lv->sparse == IR_SNODE_DYNAMIC) {
            IrExpr *n = bin(ctx, IR_ADD, ir_snode_cell(a, bin, ctx, QT_I32, f, l, idx, sp), irb_int(a, QT_I32, 1, sp), sp);
            IrExpr *m = bin(ctx, IR_ADD, ir_snode_cell(a, bin, ctx, QT_I32, f, l, idx, sp), irb_int(a, QT_I32, 1, sp), sp);
            IrExpr *longer = bin(ctx, IR_LT, load(a, length_ref(a, bin, ctx, f, l, idx, sp), sp), m, sp);
            emit(ectx, unless(a, longer, atomic_stmt(a, QOP_MAX, length_ref(a, bin, ctx, f, l, idx, sp), n, sp), sp));
        } else if (lv->sparse) {
            IrExpr *bit = bin(ctx, IR_SHL, irb_int(a, QT_U32, 1, sp), bit_shift(a, bin, ctx, f, l, idx, sp), sp);
            IrExpr *w = load(a, word_ref(a, bin, ctx, f, l, idx, sp), sp);
            IrExpr *b = bin(ctx, IR_AND, bin(ctx, IR_SHR, w, bit_shift(a, bin, ctx, f, l, idx, sp), sp), irb_int(a, QT_U32, 1, sp), sp);
            IrExpr *unset = bin(ctx, IR_EQ, b, irb_int(a, QT_U32, 0, sp), sp);
            emit(ectx, unless(a, unset, atomic_stmt(a, QOP_OR, word_ref(a, bin, ctx, f, l, idx, sp), bit, sp), sp));
        }
    }
}

/* ---- activation by writing ---- */

typedef struct {
    Arena *a;
    IrModule *m;
    IrKernel *k;
    IrStmt **out;
    int n, cap;
    IrRef *refs[64];
    int nrefs;
} Pass;

static void push(void *ctx, IrStmt *s) {
    Pass *p = ctx;
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 16;
        IrStmt **o = ARENA_ARRAY(p->a, IrStmt *, cap);
        for (int i = 0; i < p->n; i++) o[i] = p->out[i];
        p->out = o, p->cap = cap;
    }
    p->out[p->n++] = s;
}

static IrExpr *abin(void *ctx, IrBinOp op, IrExpr *x, IrExpr *y, Span sp) { return irb_binary(((Pass *)ctx)->a, op, x, y, sp); }

static bool sparse_ref(const Pass *p, const IrRef *r) {
    return r && r->kind == IR_REF_FIELD && r->index < p->m->nfields && ir_sparse_field(&p->m->fields[r->index]) &&
           r->nidx == p->m->fields[r->index].ndim;
}

static bool collect(const IrExpr *e, void *ctx) {
    Pass *p = ctx;
    if (e->kind == IR_MEMOP && e->mem.op != QOP_LOAD && !e->mem.is_volatile && sparse_ref(p, e->mem.ref) && p->nrefs < 64)
        p->refs[p->nrefs++] = e->mem.ref;
    return false;
}

/* A local of the kernel for a hoisted index. */
static int new_local(Pass *p, QdType t) {
    IrLocal *l = ARENA_ARRAY(p->a, IrLocal, p->k->nlocals + 1);
    for (int i = 0; i < p->k->nlocals; i++) l[i] = p->k->locals[i];
    l[p->k->nlocals] = (IrLocal){"$sparse_index", t};
    p->k->locals = l;
    return p->k->nlocals++;
}

/* Activation before the write through r; an index with effects (an atomic) is evaluated once,
 * into a local, and r's element index rebuilt from the locals. */
static void activate_ref(Pass *p, IrRef *r, Span sp) {
    const IrField *f = &p->m->fields[r->index];
    bool hoist = false;
    for (int d = 0; d < r->nidx; d++) hoist |= ir_has_effects(r->idx[d]);
    if (hoist) {
        for (int d = 0; d < r->nidx; d++) {
            int l = new_local(p, r->idx[d]->type);
            IrStmt *as = ARENA_NEW(p->a, IrStmt);
            as->kind = IR_ASSIGN, as->span = sp, as->assign.local = l, as->assign.value = r->idx[d];
            push(p, as);
            IrExpr *v = irb_new(p->a, IR_LOCAL, r->idx[d]->type, sp);
            v->local = l;
            r->idx[d] = v;
        }
        if (f->storage) r->flat = ir_snode_flat(p->a, abin, p, p->m->storages[f->storage - 1].bytes, f, r->idx, sp);
    }
    ir_sparse_activate(p->a, abin, p, f, f->nlevels - 1, r->idx, sp, push, p);
}

static void rewrite(Pass *p, IrBlock *b);

static void stmt(Pass *p, IrStmt *s) {
    p->nrefs = 0;
    switch (s->kind) {
    case IR_ASSIGN: ir_expr_any(s->assign.value, collect, p); break;
    case IR_STORE:
        for (int d = 0; d < s->store.ref->nidx; d++) ir_expr_any(s->store.ref->idx[d], collect, p);
        ir_expr_any(s->store.value, collect, p);
        if (sparse_ref(p, s->store.ref) && p->nrefs < 64) p->refs[p->nrefs++] = s->store.ref;
        break;
    case IR_EVAL: ir_expr_any(s->eval, collect, p); break;
    case IR_IF: ir_expr_any(s->if_.cond, collect, p); break;
    case IR_FOR:
        if (!strcmp(p->k->locals[s->for_.counter].name, "$sparse_clear")) return push(p, s); /* zeroing a deactivated cell */
        ir_expr_any(s->for_.begin, collect, p), ir_expr_any(s->for_.end, collect, p);
        break;
    case IR_PRINT: for (int k = 0; k < s->print.nargs; k++) ir_expr_any(s->print.args[k], collect, p); break;
    case IR_ASSERT: ir_expr_any(s->assert_.cond, collect, p); break;
    default: break;
    }
    IrRef *refs[64];
    int n = p->nrefs;
    for (int k = 0; k < n; k++) refs[k] = p->refs[k];
    for (int k = 0; k < n; k++) activate_ref(p, refs[k], s->span);
    push(p, s);
    if (s->kind == IR_IF) rewrite(p, &s->if_.then), rewrite(p, &s->if_.els);
    if (s->kind == IR_WHILE) rewrite(p, &s->while_.body);
    if (s->kind == IR_FOR) rewrite(p, &s->for_.body);
}

static void rewrite(Pass *p, IrBlock *b) {
    IrStmt **out = p->out;
    int n = p->n, cap = p->cap;
    p->out = NULL, p->n = p->cap = 0;
    for (int k = 0; k < b->n; k++) stmt(p, b->stmts[k]);
    b->stmts = p->out, b->n = p->n;
    p->out = out, p->n = n, p->cap = cap;
}

void ir_sparse_module(IrModule *m, Arena *a) {
    bool any = false;
    for (int i = 0; i < m->nfields; i++) any |= ir_sparse_field(&m->fields[i]);
    if (!any) return;
    for (int k = 0; k < m->nkernels; k++)
        for (int t = 0; t < m->kernels[k].ntasks; t++) {
            Pass p = {.a = a, .m = m, .k = &m->kernels[k]};
            rewrite(&p, &m->kernels[k].tasks[t].body);
        }
}

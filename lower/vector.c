/* Vector atomics (qdc-lang(7) "Vector atomics"): the frontend fans a vector atomic out into one
 * scalar atomic per component, consecutive statements of one source statement. Where the
 * family's vector_atomics cell says native (sm_90: atom.global.add.v4.f32), such a run whose
 * results are unused becomes one instruction per vector_atomics width -- decided here, in this
 * job's IrLowering array; the module is not changed. Every condition is one the scalar atomics
 * themselves guarantee: the same operation, order and scope, no result, operands computed
 * without reading the memory the run writes, and an address aligned to the instruction's size
 * by the ABI (qdc-abi(7): a plain field is 64-byte aligned and array-of-structures; ndarray data
 * and SNode cells only element-aligned). A run that is not fused keeps its scalar decisions; on
 * a family with vector_atomics its records say why. */
#include "../capdb/capdb_int.h"
#include "lower.h"
#include <string.h>

typedef struct {
    const IrModule *m;
    const IrKernel *k;
    const CapTarget *t;
    IrLowering *ops;
    Arena *arena;
    int nvector;
} VecCtx;

static bool family_has_vectors(const CapTarget *t) {
    for (int op = 0; op < QOP_COUNT; op++)
        for (int dt = 0; dt < QT_COUNT; dt++)
            for (int w = 2; w <= 8; w *= 2)
                if (cap_vector_cell(t, (QdOp)op, (QdType)dt, w)) return true;
    return false;
}

static bool expr_eq(const IrExpr *a, const IrExpr *b);

static bool ref_eq(const IrRef *a, const IrRef *b, int nidx) {
    if (a->kind != b->kind || a->index != b->index || a->type != b->type) return false;
    for (int i = 0; i < nidx; i++)
        if (!expr_eq(a->idx[i], b->idx[i])) return false;
    return true;
}

/* Structural equality of the index expressions of two components (conservative: false for
 * anything but the pure forms). */
static bool expr_eq(const IrExpr *a, const IrExpr *b) {
    if (a == b) return true;
    if (!a || !b || a->kind != b->kind || a->type != b->type) return false;
    switch (a->kind) {
    case IR_CONST: return a->c.u == b->c.u;
    case IR_LOCAL: return a->local == b->local;
    case IR_PARAM: return a->param == b->param;
    case IR_SHAPE: return a->shape.param == b->shape.param && a->shape.axis == b->shape.axis;
    case IR_UNARY: return a->un.op == b->un.op && expr_eq(a->un.a, b->un.a);
    case IR_BINARY: return a->bin.op == b->bin.op && expr_eq(a->bin.a, b->bin.a) && expr_eq(a->bin.b, b->bin.b);
    case IR_CAST: case IR_BITCAST: return expr_eq(a->arg, b->arg);
    case IR_THREAD_IDX: case IR_GLOBAL_THREAD_IDX: return true;
    case IR_LOAD: return a->ref->nidx == b->ref->nidx && ref_eq(a->ref, b->ref, a->ref->nidx) &&
                         expr_eq(a->ref->flat, b->ref->flat);
    default: return false;
    }
}

/* Whether e can be computed before the run's atomics with the same value: no effects and no
 * read of memory they may write. The target is a field (why_not): a load of another field, of
 * an ndarray (its own allocation, never a field's memory) or of a SharedArray reads other memory. */
static bool independent(const IrExpr *e, const IrRef *target) {
    if (!e) return true;
    switch (e->kind) {
    case IR_CONST: case IR_LOCAL: case IR_PARAM: case IR_SHAPE: case IR_THREAD_IDX: case IR_GLOBAL_THREAD_IDX:
        return true;
    case IR_UNARY: return independent(e->un.a, target);
    case IR_BINARY: return independent(e->bin.a, target) && independent(e->bin.b, target);
    case IR_SELECT: return independent(e->sel.cond, target) && independent(e->sel.a, target) && independent(e->sel.b, target);
    case IR_CAST: case IR_BITCAST: return independent(e->arg, target);
    case IR_MATH: return independent(e->math.a, target) && independent(e->math.b, target);
    case IR_LOAD: {
        const IrRef *r = e->ref;
        if (target->kind != IR_REF_FIELD || r->kind == IR_REF_LOCAL || (r->kind == IR_REF_FIELD && r->index == target->index))
            return false;
        for (int i = 0; i < r->nidx; i++)
            if (!independent(r->idx[i], target)) return false;
        return independent(r->flat, target);
    }
    default: return false; /* memory operations, subgroup collectives */
    }
}

/* The number of components of one element of the ref's field or ndarray (0: scalar storage). */
static int elem_components(const VecCtx *c, const IrRef *r, int *elem_ndim) {
    *elem_ndim = 0;
    if (r->kind == IR_REF_FIELD) {
        const IrField *f = &c->m->fields[r->index];
        int n = 1;
        for (int i = f->ndim - f->elem_ndim; i < f->ndim; i++) n *= (int)f->shape[i];
        *elem_ndim = f->elem_ndim;
        return f->elem_ndim ? n : 0;
    }
    if (r->kind == IR_REF_NDARRAY) {
        const IrParam *p = &c->k->params[r->index];
        *elem_ndim = p->elem_ndim;
        return p->elem_ndim == 1 ? p->elem_shape[0] : p->elem_ndim == 2 ? p->elem_shape[0] * p->elem_shape[1] : 0;
    }
    return 0;
}

/* The component number of a ref (row-major over the element axes), -1 if not constant. */
static int component_of(const VecCtx *c, const IrRef *r, int elem_ndim) {
    int comp = 0;
    for (int i = r->nidx - elem_ndim; i < r->nidx; i++) {
        const IrExpr *x = i >= 0 ? r->idx[i] : NULL;
        if (!x || x->kind != IR_CONST) return -1;
        int extent = 1;
        if (r->kind == IR_REF_FIELD) extent = (int)c->m->fields[r->index].shape[c->m->fields[r->index].ndim - (r->nidx - i)];
        else extent = c->k->params[r->index].elem_shape[elem_ndim - (r->nidx - i)];
        comp = comp * extent + (int)x->c.i;
    }
    return comp;
}

/* The atomic of a fan-out statement: `eval` (result unused) or `$old_k = atomic` (used). */
static const IrExpr *memop_of(const IrStmt *s) {
    const IrExpr *e = s->kind == IR_EVAL ? s->eval : s->kind == IR_ASSIGN ? s->assign.value : NULL;
    return e && e->kind == IR_MEMOP ? e : NULL;
}

/* Whether b continues a's vector statement as component `comp`. */
static bool same_statement(const VecCtx *c, const IrExpr *a, const IrExpr *b, int elem_ndim, int comp) {
    const IrMemOp *x = &a->mem, *y = &b->mem;
    return b->span.src == a->span.src && b->span.off == a->span.off && x->op == y->op && !y->is_volatile &&
           x->ref->nidx == y->ref->nidx && ref_eq(x->ref, y->ref, x->ref->nidx - elem_ndim) &&
           component_of(c, y->ref, elem_ndim) == comp;
}

/* Why the run first[0..n-1] cannot be one vector instruction of width *w; NULL if it can. */
static const char *why_not(VecCtx *c, const IrExpr *const *run, int n, int *w) {
    const IrMemOp *m0 = &run[0]->mem;
    const IrLowering *L0 = &c->ops[m0->id];
    for (int k = 0; k < n; k++)
        if (run[k]->mem.result_used) return "its old values are used";
    if (m0->ref->space != QSPACE_GLOBAL) return "vector atomics exist for global memory only";
    if (m0->ref->kind == IR_REF_NDARRAY) return "ndarray data is only element-aligned (qdc-abi(7))";
    if (m0->ref->kind != IR_REF_FIELD || c->m->fields[m0->ref->index].storage)
        return "it is not a plain field (an SNode storage cell is only element-aligned)";
    for (int k = 0; k < n; k++) {
        const IrMemOp *m = &run[k]->mem;
        const IrLowering *L = &c->ops[m->id];
        if (L->reduce != LOW_REDUCE_NONE) return "its components are reduced per worker or subgroup (--atomic-rewrite)";
        if (L->kind != LOW_NATIVE || L->fence_before || L->fence_after || L->via_int || (L->flags & LOWF_MEMBAR_ORDERS))
            return "its components are not single native atomics";
        if (L->op != L0->op || L->negate != L0->negate || L->order != L0->order || L->scope != L0->scope ||
            m->order != m0->order || m->scope != m0->scope)
            return "its components differ in operation, order or scope";
    }
    if (L0->order != QORD_RELAXED && L0->order != QORD_ACQUIRE)
        return "one instruction would not order its components as the scalar release atomics do";
    for (int k = 0; k < n; k++) {
        const IrMemOp *m = &run[k]->mem;
        if (!independent(m->val, m->ref)) return "an operand reads the memory it updates or has effects";
        for (int i = 0; i < m->ref->nidx; i++)
            if (!independent(m->ref->idx[i], m->ref)) return "an index reads the memory it updates or has effects";
    }
    for (*w = 8; *w >= 2; *w /= 2) { /* the widest cell whose width divides the components */
        const CapCell *cell = cap_vector_cell(c->t, L0->op, m0->ref->type, *w);
        if (cell && cell->status == CS_NATIVE && n % *w == 0) return NULL;
    }
    return arena_printf(c->arena, "no vector_atomics cell of the family for %s on %s has a width dividing its %d components",
                        qop_name(L0->op), qt_name(m0->ref->type), n);
}

static void note_not_fused(VecCtx *c, const IrExpr *const *run, int n, const char *why) {
    for (int k = 0; k < n; k++) {
        IrLowering *L = &c->ops[run[k]->mem.id];
        if (L->kind == LOW_UNSUPPORTED || L->kind == LOW_UNDECIDED) continue;
        L->detail = arena_printf(c->arena, "%s%snot one vector atomic: %s", L->detail ? L->detail : "",
                                 L->detail && *L->detail ? "; " : "", why);
    }
}

static void fuse(VecCtx *c, const IrExpr *const *run, int n, int w) {
    QdType dt = run[0]->mem.ref->type;
    for (int at = 0; at < n; at += w) {
        IrLowering *lead = &c->ops[run[at]->mem.id];
        const CapCell *cell = cap_vector_cell(c->t, lead->op, dt, w);
        const IrExpr **members = ARENA_ARRAY(c->arena, const IrExpr *, w);
        for (int k = 0; k < w; k++) {
            members[k] = run[at + k];
            if (k) c->ops[run[at + k]->mem.id].vec_member = true;
        }
        lead->vec_width = w;
        lead->vec_ops = members;
        lead->no_return = false;
        lead->spelling = cell->spelling;
        lead->reason_file = cell->at.file, lead->reason_line = cell->at.line, lead->reason_key = cell->at.key;
        lead->detail = arena_printf(c->arena, "%s: components %d-%d of the vector in one instruction (each component "
                                              "atomic on its own)%s", cell->spelling ? cell->spelling : "vector atomic",
                                    at, at + w - 1, lead->negate ? "; sub as add of the negation" : "");
        c->nvector++;
    }
}

static void block(VecCtx *c, const IrBlock *b) {
    for (int i = 0; i < b->n;) {
        const IrStmt *s = b->stmts[i];
        switch (s->kind) {
        case IR_IF: block(c, &s->if_.then), block(c, &s->if_.els); break;
        case IR_WHILE: block(c, &s->while_.body); break;
        case IR_FOR: block(c, &s->for_.body); break;
        default: break;
        }
        const IrExpr *e = memop_of(s);
        int elem_ndim, ncomp = e && !e->mem.is_volatile ? elem_components(c, e->mem.ref, &elem_ndim) : 0;
        if (ncomp < 2 || component_of(c, e->mem.ref, elem_ndim) != 0 || qop_operands(e->mem.op) != 1) {
            i++;
            continue;
        }
        const IrExpr *run[64];
        int n = 1;
        run[0] = e;
        while (n < ncomp && n < 64 && i + n < b->n) {
            const IrExpr *x = memop_of(b->stmts[i + n]);
            if (!x || !same_statement(c, e, x, elem_ndim, n)) break;
            run[n++] = x;
        }
        if (n == ncomp) {
            int w = 0;
            const char *why = why_not(c, run, n, &w);
            if (why) note_not_fused(c, run, n, why);
            else fuse(c, run, n, w);
        }
        i += n;
    }
}

int lower_vectors(const IrModule *m, const CapTarget *t, IrLowering *ops, Arena *arena) {
    if (!family_has_vectors(t)) return 0;
    VecCtx c = {m, NULL, t, ops, arena, 0};
    for (int k = 0; k < m->nkernels; k++) {
        c.k = &m->kernels[k];
        for (int ti = 0; ti < c.k->ntasks; ti++) block(&c, &c.k->tasks[ti].body);
    }
    return c.nvector;
}

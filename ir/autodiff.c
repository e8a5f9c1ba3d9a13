/* Reverse-mode automatic differentiation of the checked IR: for every kernel k that touches a
 * field with an adjoint (IrField.grad) or a differentiable ndarray parameter (a float one, not
 * annotated needs_grad=False, in a module that allocates an ndarray with needs_grad=True, or
 * annotated needs_grad=True), a companion kernel "<k>_grad" with k's parameters, then one
 * adjoint array "<x>_grad" per differentiable ndarray x whose elements k reads or writes
 * (IrParam.adjoint_of; qdc-abi(7) GRADIENTS), whose tasks are k's in reverse order. Fields and
 * ndarrays are one kind of memory here (mid_of); an ndarray's adjoint is addressed with the
 * primal's subscripts in its adjoint array. Each companion task runs over k's task's iterations and
 *   1. recomputes the task's values (forward replay): every assignment to a local gets a fresh
 *      local of its own (a version), so no value the adjoint needs is overwritten; stores and
 *      atomics to global memory are dropped, a load of an element this iteration stored earlier
 *      reads the stored version (Quadrants forwards it the same way);
 *   2. walks the statements backwards (the adjoint sweep), accumulating the adjoint of every
 *      version in a local of its own and the adjoint of every field element it loaded into
 *      x.grad with an atomic add, so the capability-driven lowering, the CAS fallback and the
 *      contended-atomic rewrite apply to it as to any atomic (qdc-lang(7) "AUTODIFF").
 * The derivative of each operation is Quadrants' (its make_adjoint.cpp), written once for both
 * modes in ir/ad_rules.c; a store takes y.grad[i] and zeroes it, an atomic add takes y.grad[i]
 * and leaves it.
 * Control flow: `if` keeps its shape (both sweeps test the recorded condition, locals assigned
 * in a branch merge in a version of their own); a loop with a compile-time trip count is unrolled;
 * a loop whose trip count is known at run time only is replayed and swept per iteration, which is
 * exact when no local carries a value from one iteration to the next, or when such a local only
 * accumulates (s += f(j): its adjoint is the same in every iteration; the forward replay runs the
 * loop once more for its final value); the others take Quadrants' ad stack (x_for_replay: the
 * values the stack would hold are recomputed, no storage, no capacity; such a loop is a unit
 * (Cut) that its block emits once, run forward or backwards as a local says, so code grows
 * linearly with the depth of a nest). What Quadrants refuses (while, break,
 * continue, a cross-iteration read after write of a needs_grad field) and what qdc does not do
 * yet get a QD2112 warning and no companion. Where the script asks for the gradient outside a
 * block it expects to raise (IrKernel.grad_call), the rules Quadrants enforces whatever its ad
 * stack flag (qd.random, a read of a grad tensor, and under qd.ad.Tape(validation=True) its global
 * data access rule) are errors QD2154 there, as Quadrants raises at that call (rule()); while,
 * break, continue and the cross-iteration check stay warnings, as Quadrants with its ad stack
 * (which qdc always enables) differentiates some of those kernels. */
#include "autodiff.h"
#include "snode.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef VEC(IrStmt *) StmtVec;
typedef VEC(int) IntVec;

typedef struct {      /* a store this iteration made, for the loads after it */
    int field;
    const IrRef *ref; /* cloned: subscripts in versions */
    int version;
} Fwd;

typedef struct {      /* a unit: one statement that runs forward or backwards as a local says */
    int f_at, c_at;   /* where it stands in the block's forward statements and adjoint chunks */
    IrStmt *unit;     /* the code, emitted once where the block runs both ways (blk_phases) */
    IrStmt *fwd;      /* the forward run alone, for the blocks that only run forward (blk_forward) */
    int mode;         /* the local it reads: 0 forward, 1 backwards */
    int *kill, nkill; /* the locals its forward run sets for its backward run (checkpoints, bounds): the block's
                         phase loop assigns them first, so that they are not live across the loops around it */
} Cut;

typedef struct {
    StmtVec f;               /* forward replay */
    VEC(StmtVec) chunks;     /* adjoint code per statement, in program order (emitted reversed) */
    StmtVec init;            /* zeroes the adjoints of the versions made in this block */
    VEC(Cut) cuts;           /* the units (run-time loops with an ad stack) among the statements */
} Blk;

typedef struct {
    Arena *a;
    IrModule *m;
    const IrKernel *pk; /* the primal kernel */
    VEC(IrLocal) locals;
    VEC(unsigned char) active; /* per local: its value depends on a field with an adjoint */
    VEC(int) adj;              /* per local: the local holding its adjoint, or -1 */
    int *cur;                  /* primal local -> its current version */
    int *acc;                  /* primal local -> the version accumulating it in the loop being transformed, or -1 */
    StmtVec acc_updates;       /* the accumulations' forward statements (not replayed in the sweep) */
    VEC(Fwd) fwd;
    IntVec stored;           /* fields this task stored to (plain stores) */
    VEC(const IrRef *) loads, stores; /* the task's loads (not forwarded) and plain stores of fields with adjoints */
    IrMemo clone_memo, act_memo;
    const IrTask *task;
    int *pgrad;                /* per primal parameter: the companion's parameter holding its adjoint array, or -1 */
    unsigned char *uniq;       /* per memory (fields, then ndarray parameters): loop-unique in the task (loop_unique) */
    int budget;                /* statements left to unroll */
    const char *why;           /* the first refusal, and where */
    Span why_span;
    bool why_rule;             /* it is a rule Quadrants enforces when it compiles the companion (not a qdc limit) */
} Ad;

static void refuse(Ad *ad, Span sp, const char *why) {
    if (!ad->why) ad->why = why, ad->why_span = sp;
}
/* A refusal that is Quadrants' own: an error where the script asks for the gradient (grad_kernel). */
static void rule(Ad *ad, Span sp, const char *why) {
    if (!ad->why) ad->why_rule = true;
    refuse(ad, sp, why);
}

/* ---- building ---- */
static int new_local(Ad *ad, const char *name, QdType t, bool active) {
    vec_push(&ad->locals, ((IrLocal){.name = name, .type = t}));
    vec_push(&ad->active, active);
    vec_push(&ad->adj, -1);
    return ad->locals.len - 1;
}

static IrExpr *local_ref(Ad *ad, int l, Span sp) {
    IrExpr *e = irb_new(ad->a, IR_LOCAL, ad->locals.items[l].type, sp);
    e->local = l;
    return e;
}

static IrStmt *assign(Ad *ad, int l, IrExpr *v, Span sp) {
    IrStmt *s = ARENA_NEW(ad->a, IrStmt);
    s->kind = IR_ASSIGN, s->span = sp, s->assign.local = l, s->assign.value = v;
    return s;
}

static IrBlock block_of(Ad *ad, StmtVec *v) {
    IrBlock b = {.stmts = ARENA_ARRAY(ad->a, IrStmt *, v->len ? v->len : 1), .n = v->len};
    if (v->len) memcpy(b.stmts, v->items, sizeof(IrStmt *) * (size_t)v->len);
    vec_free(v);
    return b;
}

/* A block is cut by its units into K + 1 segments: segment i is forward statements
 * [F(i), F(i + 1)) and chunks [C(i), C(i + 1)), unit i between segments i and i + 1. */
static int seg_f(const Blk *b, int i) { return i == 0 ? 0 : i > b->cuts.len ? b->f.len : b->cuts.items[i - 1].f_at; }
static int seg_c(const Blk *b, int i) { return i == 0 ? 0 : i > b->cuts.len ? b->chunks.len : b->cuts.items[i - 1].c_at; }

/* Segment i forward, without the statements of skip[from..] (accumulations the sweep does not redo). */
static void seg_fwd(const Blk *b, int i, StmtVec *out, const StmtVec *skip, int from) {
    for (int k = seg_f(b, i); k < seg_f(b, i + 1); k++) {
        bool drop = false;
        for (int j = from; skip && j < skip->len; j++) drop |= skip->items[j] == b->f.items[k];
        if (!drop) vec_push(out, b->f.items[k]);
    }
}

static void seg_rev(const Blk *b, int i, StmtVec *out) {
    for (int c = seg_c(b, i + 1) - 1; c >= seg_c(b, i); c--)
        for (int k = 0; k < b->chunks.items[c].len; k++) vec_push(out, b->chunks.items[c].items[k]);
}

/* Unit i run forward (md 0) or backwards (md 1). */
static void unit_run(Ad *ad, const Blk *b, int i, int md, StmtVec *out) {
    const Cut *c = &b->cuts.items[i];
    vec_push(out, assign(ad, c->mode, irb_int(ad->a, ad->locals.items[c->mode].type, md, c->unit->span), c->unit->span));
    vec_push(out, c->unit);
}

/* l = 0: ends the live range of a local whose value is not read before it is set again (to
 * LLVM, a local read on a path that does not set it first is live at every loop header above:
 * a phi per loop and join around it). */
static IrStmt *kill_local(Ad *ad, int l, Span sp) {
    QdType t = ad->locals.items[l].type;
    return assign(ad, l, qt_is_float(t) ? irb_float(ad->a, t, 0, sp) : irb_int(ad->a, t, 0, sp), sp);
}

static void blk_free(Blk *b) {
    for (int c = 0; c < b->chunks.len; c++) vec_free(&b->chunks.items[c]);
    vec_free(&b->chunks), vec_free(&b->init), vec_free(&b->f), vec_free(&b->cuts);
}

/* The forward replay of a block, units by their forward runs (any number of times before blk_reverse, which frees the block). */
static IrBlock blk_forward(Ad *ad, Blk *b, const StmtVec *skip, int from) {
    StmtVec r = {0};
    for (int i = 0; i <= b->cuts.len; i++) {
        seg_fwd(b, i, &r, skip, from);
        if (i < b->cuts.len) vec_push(&r, b->cuts.items[i].fwd);
    }
    return block_of(ad, &r);
}

/* The adjoint sweep of a block: its zeroing, then its statements' chunks last to first. */
static IrBlock blk_reverse(Ad *ad, Blk *b) {
    StmtVec r = {0};
    for (int k = 0; k < b->init.len; k++) vec_push(&r, b->init.items[k]);
    for (int i = b->cuts.len; i >= 0; i--) {
        seg_rev(b, i, &r);
        if (i > 0) unit_run(ad, b, i - 1, 1, &r);
    }
    blk_free(b);
    return block_of(ad, &r);
}

/* A version of primal local l (or a temporary, l < 0) made in block b, with its adjoint. */
static int version(Ad *ad, Blk *b, int l, QdType t, const char *name, bool active, Span sp) {
    int v = new_local(ad, l >= 0 ? ad->pk->locals[l].name : name, t, active);
    if (active && qt_is_float(t)) {
        int g = new_local(ad, arena_printf(ad->a, "$adj_%s", ad->locals.items[v].name), t, false);
        ad->adj.items[v] = g;
        vec_push(&b->init, assign(ad, g, irb_float(ad->a, t, 0, sp), sp));
    }
    if (l >= 0) ad->cur[l] = v;
    return v;
}

/* ---- cloning primal expressions into the companion (locals as their current versions) ---- */
static bool same(const IrExpr *x, const IrExpr *y);

static bool same_ref(const IrRef *p, const IrRef *q) {
    if (p->kind != q->kind || p->index != q->index || p->nidx != q->nidx || !p->flat != !q->flat) return false;
    for (int k = 0; k < p->nidx; k++)
        if (!same(p->idx[k], q->idx[k])) return false;
    return !p->flat || same(p->flat, q->flat);
}

/* Structural equality of two cloned (version-numbered, effect-free) expressions. */
static bool same(const IrExpr *x, const IrExpr *y) {
    if (x == y) return true;
    if (x->kind != y->kind || x->type != y->type) return false;
    switch (x->kind) {
    case IR_CONST: return x->c.u == y->c.u;
    case IR_LOCAL: return x->local == y->local;
    case IR_PARAM: return x->param == y->param;
    case IR_SHAPE: return x->shape.param == y->shape.param && x->shape.axis == y->shape.axis;
    case IR_UNARY: return x->un.op == y->un.op && same(x->un.a, y->un.a);
    case IR_BINARY: return x->bin.op == y->bin.op && same(x->bin.a, y->bin.a) && same(x->bin.b, y->bin.b);
    case IR_CAST: case IR_BITCAST: return same(x->arg, y->arg);
    case IR_LOAD: return same_ref(x->ref, y->ref);
    default: return false;
    }
}

static IrExpr *clone(Ad *ad, const IrExpr *e);

static IrRef *clone_ref(Ad *ad, const IrRef *r) {
    IrRef *c = ARENA_NEW(ad->a, IrRef);
    *c = *r;
    c->idx = r->nidx ? ARENA_ARRAY(ad->a, IrExpr *, r->nidx) : NULL;
    for (int k = 0; k < r->nidx; k++) c->idx[k] = clone(ad, r->idx[k]);
    c->flat = r->flat ? clone(ad, r->flat) : NULL;
    return c;
}

/* The memory a reference names, one number for fields (their index) and ndarray parameters
 * (-2 - the parameter's index); INT_MIN for anything else. */
static int mid_of(const IrRef *r) { return r->kind == IR_REF_FIELD ? r->index : r->kind == IR_REF_NDARRAY ? -2 - r->index : INT_MIN; }

static bool mid_has_grad(const Ad *ad, int mid) {
    if (mid >= 0) return ad->m->fields[mid].grad > 0;
    return mid != INT_MIN && ad->pgrad && ad->pgrad[-2 - mid] >= 0;
}

static bool has_grad(const Ad *ad, const IrRef *r) { return mid_has_grad(ad, mid_of(r)); }

static const char *mid_name(const Ad *ad, int mid) { return mid >= 0 ? ad->m->fields[mid].name : ad->pk->params[-2 - mid].name; }

static bool stored_here(const Ad *ad, int field) {
    for (int k = 0; k < ad->stored.len; k++)
        if (ad->stored.items[k] == field) return true;
    return false;
}

static IrExpr *clone_load(Ad *ad, const IrExpr *e) {
    IrRef *r = clone_ref(ad, e->ref);
    if (r->kind == IR_REF_SHARED) refuse(ad, e->span, "a SharedArray in a kernel with gradients is not supported by qdc's autodiff yet");
    if (r->kind == IR_REF_NDARRAY && ad->pk->params[r->index].adjoint_of)
        rule(ad, e->span, arena_printf(ad->a, "Cannot automatically differentiate through a grad tensor, if you really want to do that, pass the "
                                              "grad tensor into the kernel directly ('%s' is the adjoint of '%s')",
                                         ad->pk->params[r->index].name, ad->pk->params[ad->pk->params[r->index].adjoint_of - 1].name));
    if (r->kind == IR_REF_FIELD || r->kind == IR_REF_NDARRAY)
        for (int k = ad->fwd.len - 1; k >= 0; k--)
            if (ad->fwd.items[k].field == mid_of(r) && same_ref(ad->fwd.items[k].ref, r)) return local_ref(ad, ad->fwd.items[k].version, e->span);
    if (has_grad(ad, r) && stored_here(ad, mid_of(r)))
        refuse(ad, e->span, arena_printf(ad->a, "Cross-iteration read-after-write on the `needs_grad` global %s `%s` at the offload-level "
                                                "loop body is not supported in reverse-mode autodiff (Quadrants' global data access rule)",
                                         r->kind == IR_REF_FIELD ? "field" : "ndarray", mid_name(ad, mid_of(r))));
    if (has_grad(ad, r)) vec_push(&ad->loads, r);
    IrExpr *c = irb_new(ad->a, IR_LOAD, e->type, e->span);
    c->ref = r;
    return c;
}

static IrExpr *clone(Ad *ad, const IrExpr *e) {
    IrExpr *c = ir_memo_get(&ad->clone_memo, e);
    if (c) return c;
    switch (e->kind) {
    case IR_LOCAL: c = local_ref(ad, ad->cur[e->local], e->span); break;
    case IR_LOAD: c = clone_load(ad, e); break;
    case IR_MEMOP:
    case IR_SUBGROUP:
        refuse(ad, e->span, e->kind == IR_MEMOP ? "an atomic whose result is used, or a volatile load, is not supported by qdc's autodiff yet"
                                                : "subgroup collectives are not supported by qdc's autodiff yet");
        c = irb_float(ad->a, qt_is_float(e->type) ? e->type : QT_F32, 0, e->span);
        if (!qt_is_float(e->type)) c = irb_int(ad->a, e->type, 0, e->span);
        break;
    default:
        c = ARENA_NEW(ad->a, IrExpr);
        *c = *e;
        c->shared = false;
        switch (e->kind) {
        case IR_UNARY: c->un.a = clone(ad, e->un.a); break;
        case IR_BINARY: c->bin.a = clone(ad, e->bin.a), c->bin.b = clone(ad, e->bin.b); break;
        case IR_SELECT: c->sel.cond = clone(ad, e->sel.cond), c->sel.a = clone(ad, e->sel.a), c->sel.b = clone(ad, e->sel.b); break;
        case IR_CAST: case IR_BITCAST: c->arg = clone(ad, e->arg); break;
        case IR_MATH: c->math.a = clone(ad, e->math.a), c->math.b = e->math.b ? clone(ad, e->math.b) : NULL; break;
        case IR_ADDR: c->ref = clone_ref(ad, e->ref); break;
        default: break; /* constants, parameters, shapes, thread indexes, the clock */
        }
    }
    ir_memo_put(&ad->clone_memo, e, c);
    return c;
}

/* A primal expression of one statement in the companion's terms. */
static IrExpr *clone_stmt_expr(Ad *ad, const IrExpr *e) {
    ir_memo_clear(&ad->clone_memo);
    return clone(ad, e);
}

/* ---- activity: whether a cloned value depends on a field with an adjoint ---- */
static bool active(Ad *ad, const IrExpr *e) {
    if (!qt_is_float(e->type)) return false;
    void *m = ir_memo_get(&ad->act_memo, e);
    if (m) return m == (void *)2;
    bool r = false;
    switch (e->kind) {
    case IR_LOCAL: r = ad->active.items[e->local]; break;
    case IR_LOAD: r = has_grad(ad, e->ref) && !e->ref->stop_grad; break;
    case IR_UNARY: r = active(ad, e->un.a); break;
    case IR_BINARY: r = active(ad, e->bin.a) || active(ad, e->bin.b); break;
    case IR_SELECT: r = active(ad, e->sel.a) || active(ad, e->sel.b); break;
    case IR_CAST: r = active(ad, e->arg); break;
    case IR_MATH: r = active(ad, e->math.a) || (e->math.b && active(ad, e->math.b)); break;
    default: break;
    }
    ir_memo_put(&ad->act_memo, e, (void *)(uintptr_t)(r ? 2 : 1));
    return r;
}

/* ---- the adjoint of one expression ---- */
static IrExpr *bin(Ad *ad, IrBinOp op, IrExpr *x, IrExpr *y) { return irb_binary(ad->a, op, x, y, x->span); }
static IrExpr *neg(Ad *ad, IrExpr *x) {
    IrExpr *e = irb_new(ad->a, IR_UNARY, x->type, x->span);
    e->un.op = IR_NEG, e->un.a = x;
    return e;
}

/* A value used more than once: a temporary local, so each use reads it. */
static IrExpr *once(Ad *ad, StmtVec *out, IrExpr *g) {
    if (g->kind == IR_LOCAL || g->kind == IR_CONST) return g;
    int t = new_local(ad, "$adj", g->type, false);
    vec_push(out, assign(ad, t, g, g->span));
    return local_ref(ad, t, g->span);
}

static IrExpr *int_bin(void *a, IrBinOp op, IrExpr *x, IrExpr *y, Span sp) { return irb_binary(a, op, x, y, sp); }

/* The element of x.grad that a cloned reference r to x names: the same subscripts, addressed as
 * the adjoint field is stored (a plain buffer, or its place in an SNode storage). */
static IrRef *grad_ref(Ad *ad, const IrRef *r) {
    if (r->kind == IR_REF_NDARRAY) { /* the companion's adjoint array: same shape and layout, same subscripts */
        IrRef *gr = ARENA_NEW(ad->a, IrRef);
        *gr = *r;
        gr->index = ad->pgrad[r->index];
        return gr;
    }
    const IrField *g = &ad->m->fields[ad->m->fields[r->index].grad - 1];
    IrRef *gr = ARENA_NEW(ad->a, IrRef);
    *gr = *r;
    gr->index = (int)(g - ad->m->fields);
    gr->flat = g->storage ? ir_snode_flat(ad->a, int_bin, ad->a, ad->m->storages[g->storage - 1].bytes, g, r->idx, r->span) : NULL;
    return gr;
}

/* x.grad[...] += g for a cloned reference r of a field with an adjoint (subscripts in versions):
 * an atomic add, but in a serial task (one thread, tasks run one after another) and for memory
 * the task accesses loop-uniquely (loop_unique) a plain load, add and store, as Quadrants' serial
 * offloads and its demote_atomics pass do, so a target without atomics of the type (f64 on
 * vulkan1.3 without int64 atomics) still differentiates it. */
static IrStmt *grad_add(Ad *ad, const IrRef *r, IrExpr *g, Span sp) {
    QdType t = r->kind == IR_REF_FIELD ? ad->m->fields[r->index].type : r->type;
    IrRef *gr = grad_ref(ad, r);
    int mid = mid_of(r);
    bool unique = mid != INT_MIN && ad->uniq[mid >= 0 ? mid : ad->m->nfields + (-2 - mid)] == 1;
    if (ad->task->kind == IR_TASK_SERIAL || unique) {
        IrExpr *old = irb_new(ad->a, IR_LOAD, t, sp);
        old->ref = gr;
        IrStmt *s = ARENA_NEW(ad->a, IrStmt);
        s->kind = IR_STORE, s->span = sp, s->store.ref = grad_ref(ad, r), s->store.value = irb_binary(ad->a, IR_ADD, old, irb_cast(ad->a, g, t), sp);
        return s;
    }
    IrExpr *op = irb_new(ad->a, IR_MEMOP, t, sp);
    op->mem = (IrMemOp){.op = QOP_ADD, .ref = gr, .val = irb_cast(ad->a, g, t), .order = QORD_RELAXED, .scope = QSCOPE_DEVICE,
                        .from_augassign = true};
    IrStmt *s = ARENA_NEW(ad->a, IrStmt);
    s->kind = IR_EVAL, s->span = sp, s->eval = op;
    return s;
}

/* Adds g (the adjoint of e's value, of e's type) to the adjoints of what e was computed from. */
static void backprop(Ad *ad, StmtVec *out, IrExpr *e, IrExpr *g) {
    if (!active(ad, e)) return;
    Span sp = e->span;
    switch (e->kind) {
    case IR_LOCAL: {
        int a = ad->adj.items[e->local];
        if (a >= 0) vec_push(out, assign(ad, a, bin(ad, IR_ADD, local_ref(ad, a, sp), g), sp));
        return;
    }
    case IR_LOAD: vec_push(out, grad_add(ad, e->ref, g, sp)); return;
    default: {
        AdPartial p[2];
        int n = ad_partials(ad->a, e, p);
        if (n > 1) g = once(ad, out, g);
        for (int k = 0; k < n; k++)
            if (active(ad, p[k].operand)) backprop(ad, out, p[k].operand, irb_cast(ad->a, ad_apply(ad->a, &p[k], g), p[k].operand->type));
        return;
    }
    }
}

/* ---- statements ---- */
static void xform_block(Ad *ad, Blk *b, const IrBlock *src);

static void chunk_push(Blk *b, StmtVec c) { vec_push(&b->chunks, c); }

/* v = value: the version's assignment forward, the adjoint of value backward. */
static int assign_version(Ad *ad, Blk *b, int l, IrExpr *value, const char *name, Span sp) {
    int v = version(ad, b, l, value->type, name, active(ad, value), sp);
    vec_push(&b->f, assign(ad, v, value, sp));
    StmtVec c = {0};
    if (ad->adj.items[v] >= 0) backprop(ad, &c, value, local_ref(ad, ad->adj.items[v], sp));
    chunk_push(b, c);
    return v;
}

static void fields_stored(const IrBlock *b, IntVec *out) {
    for (int k = 0; k < b->n; k++) {
        const IrStmt *s = b->stmts[k];
        if (s->kind == IR_STORE && mid_of(s->store.ref) != INT_MIN) vec_push(out, mid_of(s->store.ref));
        if (s->kind == IR_EVAL && s->eval->kind == IR_MEMOP && mid_of(s->eval->mem.ref) != INT_MIN) vec_push(out, mid_of(s->eval->mem.ref));
        if (s->kind == IR_IF) fields_stored(&s->if_.then, out), fields_stored(&s->if_.els, out);
        if (s->kind == IR_FOR) fields_stored(&s->for_.body, out);
        if (s->kind == IR_WHILE) fields_stored(&s->while_.body, out);
    }
}

static void forget_stored(Ad *ad, const IrBlock *b) {
    IntVec st = {0};
    fields_stored(b, &st);
    for (int k = 0; k < ad->fwd.len; k++)
        for (int j = 0; j < st.len; j++)
            if (ad->fwd.items[k].field == st.items[j]) {
                ad->fwd.items[k] = ad->fwd.items[--ad->fwd.len], k--;
                break;
            }
    for (int j = 0; j < st.len; j++)
        if (mid_has_grad(ad, st.items[j]) && !stored_here(ad, st.items[j])) vec_push(&ad->stored, st.items[j]);
    vec_free(&st);
}

static void x_store(Ad *ad, Blk *b, const IrStmt *s) {
    IrExpr *v = clone_stmt_expr(ad, s->store.value);
    IrRef *r = clone_ref(ad, s->store.ref);
    if (r->kind == IR_REF_SHARED) return refuse(ad, s->span, "a SharedArray in a kernel with gradients is not supported by qdc's autodiff yet");
    int mid = mid_of(r);
    if (mid == INT_MIN) return;
    if (mid >= 0 && !strncmp(ad->m->fields[mid].name, "qdc_tmp_", 8) && active(ad, v))
        return refuse(ad, s->span, "a kernel-scope variable that carries a differentiable value from one loop to the next is not supported by qdc's autodiff yet");
    QdType ft = mid >= 0 ? ad->m->fields[mid].type : r->type;
    int t = assign_version(ad, b, -1, v, "$stored", s->span);
    for (int k = 0; k < ad->fwd.len; k++) /* an element stored again: the older store is gone */
        if (ad->fwd.items[k].field == mid) ad->fwd.items[k] = ad->fwd.items[--ad->fwd.len], k--;
    vec_push(&ad->fwd, ((Fwd){.field = mid, .ref = r, .version = t}));
    if (!mid_has_grad(ad, mid)) return;
    if (!stored_here(ad, mid)) vec_push(&ad->stored, mid);
    vec_push(&ad->stores, r);
    StmtVec c = {0}; /* adj(t) += y.grad[i]; y.grad[i] = 0 */
    IrExpr *gl = irb_new(ad->a, IR_LOAD, ft, s->span);
    gl->ref = grad_ref(ad, r);
    if (ad->adj.items[t] >= 0) vec_push(&c, assign(ad, ad->adj.items[t], bin(ad, IR_ADD, local_ref(ad, ad->adj.items[t], s->span), irb_cast(ad->a, gl, ad->locals.items[t].type)), s->span));
    IrStmt *z = ARENA_NEW(ad->a, IrStmt);
    z->kind = IR_STORE, z->span = s->span, z->store.ref = grad_ref(ad, r), z->store.value = irb_float(ad->a, ft, 0, s->span);
    vec_push(&c, z);
    chunk_push(b, c);
}

static void x_atomic(Ad *ad, Blk *b, const IrStmt *s) {
    const IrMemOp *mo = &s->eval->mem;
    int mid = mid_of(mo->ref);
    if (mid == INT_MIN || (mid >= 0 && mo->ref->index < 0) || !mid_has_grad(ad, mid)) {
        if (mid != INT_MIN)
            for (int k = 0; k < ad->fwd.len; k++)
                if (ad->fwd.items[k].field == mid) ad->fwd.items[k] = ad->fwd.items[--ad->fwd.len], k--;
        if (mo->ref->kind == IR_REF_LOCAL && qt_is_float(mo->ref->type))
            refuse(ad, s->span, "an atomic on a float local is not supported by qdc's autodiff yet");
        return; /* its value reaches no adjoint */
    }
    if (mo->op != QOP_ADD && mo->op != QOP_SUB)
        return refuse(ad, s->span, arena_printf(ad->a, "atomic %s on a needs_grad field is not differentiable (atomic add and sub are)", qop_name(mo->op)));
    IrExpr *v = clone_stmt_expr(ad, mo->val);
    IrRef *r = clone_ref(ad, mo->ref);
    for (int k = 0; k < ad->fwd.len; k++)
        if (ad->fwd.items[k].field == mid) ad->fwd.items[k] = ad->fwd.items[--ad->fwd.len], k--;
    if (!active(ad, v)) return;
    int t = assign_version(ad, b, -1, v, "$added", s->span);
    IrExpr *gl = irb_new(ad->a, IR_LOAD, mid >= 0 ? ad->m->fields[mid].type : r->type, s->span);
    gl->ref = grad_ref(ad, r);
    IrExpr *g = irb_cast(ad->a, gl, ad->locals.items[t].type);
    if (mo->op == QOP_SUB) g = neg(ad, g);
    StmtVec c = {0};
    vec_push(&c, assign(ad, ad->adj.items[t], bin(ad, IR_ADD, local_ref(ad, ad->adj.items[t], s->span), g), s->span));
    chunk_push(b, c);
}

static void x_if(Ad *ad, Blk *b, const IrStmt *s) {
    int c = assign_version(ad, b, -1, clone_stmt_expr(ad, s->if_.cond), "$cond", s->span);
    int n = ad->pk->nlocals, *before = malloc(sizeof(int) * ((size_t)n * 3 + 1)), *after_t = before + n, *after_e = after_t + n;
    memcpy(before, ad->cur, sizeof(int) * (size_t)n);
    Fwd *saved = malloc(sizeof(Fwd) * (size_t)(ad->fwd.len + 1));
    int nsaved = ad->fwd.len;
    if (nsaved) memcpy(saved, ad->fwd.items, sizeof(Fwd) * (size_t)nsaved);
    Blk bt = {0}, be = {0};
    xform_block(ad, &bt, &s->if_.then);
    memcpy(after_t, ad->cur, sizeof(int) * (size_t)n), memcpy(ad->cur, before, sizeof(int) * (size_t)n);
    ad->fwd.len = 0;
    for (int k = 0; k < nsaved; k++) vec_push(&ad->fwd, saved[k]);
    xform_block(ad, &be, &s->if_.els);
    memcpy(after_e, ad->cur, sizeof(int) * (size_t)n);
    ad->fwd.len = 0;
    for (int k = 0; k < nsaved; k++) vec_push(&ad->fwd, saved[k]);
    forget_stored(ad, &s->if_.then), forget_stored(ad, &s->if_.els);
    for (int l = 0; l < n; l++) { /* a local either branch assigned: a merged version */
        if (after_t[l] == before[l] && after_e[l] == before[l]) continue;
        bool act = ad->active.items[after_t[l]] || ad->active.items[after_e[l]];
        int p = version(ad, b, l, ad->pk->locals[l].type, NULL, act, s->span);
        for (int br = 0; br < 2; br++) {
            Blk *x = br ? &be : &bt;
            int from = br ? after_e[l] : after_t[l];
            vec_push(&x->f, assign(ad, p, local_ref(ad, from, s->span), s->span));
            StmtVec ch = {0};
            if (ad->adj.items[p] >= 0) backprop(ad, &ch, local_ref(ad, from, s->span), local_ref(ad, ad->adj.items[p], s->span));
            chunk_push(x, ch);
        }
    }
    free(before), free(saved);
    IrStmt *fi = ARENA_NEW(ad->a, IrStmt), *ri = ARENA_NEW(ad->a, IrStmt);
    fi->kind = ri->kind = IR_IF, fi->span = ri->span = s->span;
    fi->if_.cond = local_ref(ad, c, s->span), ri->if_.cond = local_ref(ad, c, s->span);
    fi->if_.then = blk_forward(ad, &bt, NULL, 0), fi->if_.els = blk_forward(ad, &be, NULL, 0);
    ri->if_.then = blk_reverse(ad, &bt), ri->if_.els = blk_reverse(ad, &be);
    vec_push(&b->f, fi);
    StmtVec ch = {0};
    vec_push(&ch, ri);
    chunk_push(b, ch);
}

/* Locals the block assigns (nested blocks included). */
static void assigned(const IrBlock *b, unsigned char *set) {
    for (int k = 0; k < b->n; k++) {
        const IrStmt *s = b->stmts[k];
        if (s->kind == IR_ASSIGN) set[s->assign.local] = 1;
        if (s->kind == IR_IF) assigned(&s->if_.then, set), assigned(&s->if_.els, set);
        if (s->kind == IR_FOR) set[s->for_.counter] = 1, assigned(&s->for_.body, set);
        if (s->kind == IR_WHILE) assigned(&s->while_.body, set);
    }
}

typedef struct { const unsigned char *set; unsigned char *written, *carried; } ReadCtx;
static bool reads_unwritten(const IrExpr *e, void *ctx) {
    const ReadCtx *r = ctx;
    if (e->kind == IR_LOCAL && r->set[e->local] && !r->written[e->local]) r->carried[e->local] = 1;
    return false;
}

/* Marks in carried the locals an iteration of the loop body reads before it assigns them (values
 * carried from the previous iteration). An assignment in a nested block counts inside that block
 * only (a nested loop's counter is assigned by the loop). */
static void carries(const IrBlock *b, const unsigned char *set, unsigned char *written, unsigned char *carried, int n) {
    ReadCtx r = {set, written, carried};
    for (int k = 0; k < b->n; k++) {
        const IrStmt *s = b->stmts[k];
        const IrBlock *inner[2] = {NULL, NULL};
        int counter = -1;
        switch (s->kind) {
        case IR_ASSIGN:
            ir_expr_any(s->assign.value, reads_unwritten, &r);
            written[s->assign.local] = 1;
            continue;
        case IR_IF: ir_expr_any(s->if_.cond, reads_unwritten, &r), inner[0] = &s->if_.then, inner[1] = &s->if_.els; break;
        case IR_FOR:
            ir_expr_any(s->for_.begin, reads_unwritten, &r), ir_expr_any(s->for_.end, reads_unwritten, &r);
            inner[0] = &s->for_.body, counter = s->for_.counter;
            break;
        case IR_WHILE: ir_expr_any(s->while_.cond, reads_unwritten, &r), inner[0] = &s->while_.body; break;
        default: {
            IrBlock one = {.stmts = (IrStmt **)&b->stmts[k], .n = 1};
            ir_block_any(&one, reads_unwritten, &r);
            continue;
        }
        }
        unsigned char *w = malloc((size_t)n + 1);
        for (int j = 0; j < 2 && inner[j]; j++) {
            memcpy(w, written, (size_t)n);
            if (counter >= 0) w[counter] = 1;
            carries(inner[j], set, w, carried, n);
        }
        free(w);
    }
}

typedef struct { const unsigned char *set; int n; } ReadCount;
static bool count_reads(const IrExpr *e, void *ctx) {
    ReadCount *r = ctx;
    r->n += e->kind == IR_LOCAL && r->set[e->local];
    return false;
}
static int reads_of(const IrBlock *b, const unsigned char *set) {
    ReadCount c = {set, 0};
    ir_block_any(b, count_reads, &c);
    return c.n;
}
static int expr_reads_of(const IrExpr *e, const unsigned char *set) {
    ReadCount c = {set, 0};
    ir_expr_any(e, count_reads, &c);
    return c.n;
}

static const IrExpr *strip_fcast(const IrExpr *e) {
    while (e->kind == IR_CAST && qt_is_float(e->type) && qt_is_float(e->arg->type)) e = e->arg;
    return e;
}

/* The summand e of an accumulation `l = l + e`, `l = e + l` or `l = l - e` (*sign -1), float
 * conversions around l or the sum allowed (an f32 accumulator of f64 terms); else NULL. */
static const IrExpr *summand(const IrStmt *s, int l, int *sign) {
    const IrExpr *v = strip_fcast(s->assign.value);
    if (s->kind != IR_ASSIGN || s->assign.local != l || v->kind != IR_BINARY || (v->bin.op != IR_ADD && v->bin.op != IR_SUB)) return NULL;
    const IrExpr *x = strip_fcast(v->bin.a), *y = strip_fcast(v->bin.b);
    bool left = x->kind == IR_LOCAL && x->local == l, right = y->kind == IR_LOCAL && y->local == l;
    *sign = v->bin.op == IR_SUB ? -1 : 1;
    if (left && !right) return v->bin.b;
    if (right && !left && v->bin.op == IR_ADD) return v->bin.a;
    return NULL;
}

/* Whether carried local l only accumulates: its every assignment in the body is a top-level
 * `l = l +- e` whose e reads no carried local, and nothing else in the body reads it. Its adjoint
 * is then the same in every iteration: no ad stack is needed. */
static int assignments_of(const IrBlock *b, int l) {
    int n = 0;
    for (int k = 0; k < b->n; k++) {
        const IrStmt *s = b->stmts[k];
        n += s->kind == IR_ASSIGN && s->assign.local == l;
        if (s->kind == IR_IF) n += assignments_of(&s->if_.then, l) + assignments_of(&s->if_.els, l);
        if (s->kind == IR_FOR) n += assignments_of(&s->for_.body, l);
        if (s->kind == IR_WHILE) n += assignments_of(&s->while_.body, l);
    }
    return n;
}

static bool accumulates(const IrBlock *body, int l, const unsigned char *carried, int nlocals) {
    unsigned char *only = calloc((size_t)nlocals, 1);
    only[l] = 1;
    int updates = 0, sign;
    bool ok = true;
    for (int k = 0; k < body->n && ok; k++) {
        const IrStmt *s = body->stmts[k];
        if (s->kind != IR_ASSIGN || s->assign.local != l) continue;
        const IrExpr *e = summand(s, l, &sign);
        ok = e && !expr_reads_of(e, carried);
        updates++;
    }
    ok = ok && updates && assignments_of(body, l) == updates && reads_of(body, only) == updates;
    free(only);
    return ok;
}

/* The ad stack's checkpoints: x_for_replay keeps the carried locals' values at the start of
 * AD_CHECKPOINTS evenly spaced iterations, and of as many sub-segments of the segment it sweeps,
 * so the adjoint sweep replays at most one sub-segment per iteration. */
enum { AD_CHECKPOINTS = 16 };

static IrStmt *if_stmt(Ad *ad, IrExpr *cond, StmtVec *then, Span sp) {
    IrStmt *s = ARENA_NEW(ad->a, IrStmt);
    s->kind = IR_IF, s->span = sp, s->if_.cond = cond, s->if_.then = block_of(ad, then);
    s->if_.els.stmts = ARENA_ARRAY(ad->a, IrStmt *, 1);
    return s;
}

static IrStmt *for_stmt(Ad *ad, int counter, IrExpr *begin, IrExpr *end, int64_t step, IrBlock body, Span sp) {
    IrStmt *s = ARENA_NEW(ad->a, IrStmt);
    s->kind = IR_FOR, s->span = sp;
    s->for_.counter = counter, s->for_.begin = begin, s->for_.end = end, s->for_.step = step, s->for_.body = body;
    return s;
}

/* The moves of checkpoint q, q the value of local sel: ck[q][l] = other[l] (to_slots) or
 * other[l] = ck[q][l] (ck[q][l] at ck[q * n + l]), over the locals l with hdr[l] >= 0; a binary
 * search on sel, log2(AD_CHECKPOINTS) comparisons per move. Restores as a chain of selects made
 * less LLVM code (bench/ad/nest.sh, 4 levels: 3,954 -O0 instructions against 5,058) but more x86
 * code (3,185 against 2,406) and a gradient 1.5-2x slower (bench/ad/stack.sh, n = 10^4). */
static void move_tree(Ad *ad, StmtVec *out, int sel, int lo, int hi, const int *ck, int n, int other, bool to_slots, Span sp) {
    if (hi - lo == 1) {
        vec_push(out, to_slots ? assign(ad, ck[lo * n], local_ref(ad, other, sp), sp) : assign(ad, other, local_ref(ad, ck[lo * n], sp), sp));
        return;
    }
    int mid = lo + (hi - lo) / 2;
    StmtVec low = {0}, high = {0};
    move_tree(ad, &low, sel, lo, mid, ck, n, other, to_slots, sp);
    move_tree(ad, &high, sel, mid, hi, ck, n, other, to_slots, sp);
    IrStmt *s = if_stmt(ad, bin(ad, IR_LT, local_ref(ad, sel, sp), irb_int(ad->a, ad->locals.items[sel].type, mid, sp)), &low, sp);
    s->if_.els = block_of(ad, &high);
    vec_push(out, s);
}

static void checkpoint_moves(Ad *ad, StmtVec *out, int sel, const int *ck, const int *other, const int *hdr, int n, bool to_slots, Span sp) {
    for (int l = 0; l < n; l++)
        if (hdr[l] >= 0) move_tree(ad, out, sel, 0, AD_CHECKPOINTS, ck + l, n, other[l], to_slots, sp);
}

/* A block run forward, then backwards where local sw is 1, each unit emitted once (a nest of
 * run-time loops then holds one copy of each level's body, not one per enclosing level): with K
 * units there are P = 2K + 1 forward phases and P backwards, and a loop over the phases runs
 * segment i forward at phase 2i, unit i at 2i + 1 (forward) and at P + 2(K - 1 - i) + 1
 * (backwards), segment i backwards at P + 2(K - i); pre runs first backwards. Frees the block. */
static void blk_phases(Ad *ad, Blk *b, int sw, const StmtVec *pre, StmtVec *out, Span sp) {
    QdType ct = ad->locals.items[sw].type;
    int nk = b->cuts.len, np = 2 * nk + 1;
    if (nk == 0) {
        for (int k = 0; k < b->f.len; k++) vec_push(out, b->f.items[k]);
        StmtVec back = {0};
        for (int k = 0; k < pre->len; k++) vec_push(&back, pre->items[k]);
        IrBlock r = blk_reverse(ad, b);
        for (int k = 0; k < r.n; k++) vec_push(&back, r.stmts[k]);
        vec_push(out, if_stmt(ad, bin(ad, IR_EQ, local_ref(ad, sw, sp), irb_int(ad->a, ct, 1, sp)), &back, sp));
        return;
    }
    int p = new_local(ad, "$phase", ct, false);
#define PH(v) bin(ad, IR_EQ, local_ref(ad, p, sp), irb_int(ad->a, ct, v, sp))
    StmtVec arms = {0};
    for (int i = 0; i <= nk; i++) {
        StmtVec fw = {0}, bw = {0};
        seg_fwd(b, i, &fw, NULL, 0);
        vec_push(&arms, if_stmt(ad, PH(2 * i), &fw, sp));
        if (i == nk) {
            for (int k = 0; k < pre->len; k++) vec_push(&bw, pre->items[k]);
            for (int k = 0; k < b->init.len; k++) vec_push(&bw, b->init.items[k]);
        }
        seg_rev(b, i, &bw);
        vec_push(&arms, if_stmt(ad, PH(np + 2 * (nk - i)), &bw, sp));
        if (i == nk) break;
        StmtVec u = {0};
        const Cut *c = &b->cuts.items[i];
        vec_push(&u, assign(ad, c->mode, bin(ad, IR_DIV, local_ref(ad, p, sp), irb_int(ad->a, ct, np, sp)), sp));
        vec_push(&u, c->unit);
        vec_push(&arms, if_stmt(ad, bin(ad, IR_LOR, PH(2 * i + 1), PH(np + 2 * (nk - 1 - i) + 1)), &u, sp));
    }
#undef PH
    IrExpr *hi = bin(ad, IR_MUL, irb_int(ad->a, ct, np, sp), bin(ad, IR_ADD, local_ref(ad, sw, sp), irb_int(ad->a, ct, 1, sp)));
    for (int i = 0; i < nk; i++) /* what a unit's forward phase keeps for its backward phase lives in this loop only */
        for (int k = 0; k < b->cuts.items[i].nkill; k++) vec_push(out, kill_local(ad, b->cuts.items[i].kill[k], sp));
    vec_push(out, for_stmt(ad, p, irb_int(ad->a, ct, 0, sp), hi, 1, block_of(ad, &arms), sp));
    blk_free(b);
}

/* A loop whose trip count is known at run time only and which carries locals (H: per primal
 * local, carried from one iteration to the next or read after the loop) that do not only
 * accumulate: Quadrants' ad stack. Each local of H gets a header version h (h = its value before
 * the loop; every iteration ends with h = its value at the iteration's end). The loop becomes a
 * unit (Cut): one statement that runs forward or backwards as its mode local says, so that the
 * enclosing block emits it once (blk_phases). Forward it runs the iterations (the final values of
 * h). Backwards it walks the iterations last to first; for iteration j it recomputes the values h
 * had when iteration j began (what Quadrants pushes on its stack in the forward sweep and pops
 * here, recomputed instead of stored, so there is no capacity and no overflow): the forward run
 * keeps h at the start of AD_CHECKPOINTS evenly spaced iterations (every S-th, S = ceil(trips /
 * AD_CHECKPOINTS), in private locals); the sweep walks the segments last to first, restores h
 * from the segment's checkpoint, runs the segment forward once keeping h at the start of
 * AD_CHECKPOINTS evenly spaced sub-segments (of T = ceil(S / AD_CHECKPOINTS) iterations), and
 * walks those last to first the same way, replaying a sub-segment's iterations up to j (about
 * 3 trips + trips * T / 2 replayed iterations in all: linear up to 256 trips, trips^2 / 512 past
 * that), then replays iteration j and sweeps it backwards, the adjoint of h carried into the
 * adjoint of the iteration's end value first. A checkpoint is chosen by a binary search on its
 * number (4 comparisons). Every run, forward or backwards, is one loop over (run, iteration)
 * whose body is the loop body once, run forward or forward then backwards (blk_phases). The
 * forward run alone is a second statement (Cut.fwd) for the blocks that only run forward (the
 * task's forward replay, an `if`'s): a nest of L run-time loops holds each level's body twice
 * whatever L (before: the innermost L + 1 times; bench/results.md section 9). 16 checkpoints,
 * not more: at 32 LLVM took 10x as long on two nested loops (with 4 copies of the body per level).
 * What the forward run keeps for the backward run (checkpoints, bounds) is set to 0 before the
 * enclosing block's phase loop (Cut.kill), and what a sweep's runs keep for each other
 * (sub-checkpoints, the segment) at the start of each sweep: to LLVM those locals would
 * otherwise be live at every loop and join around the unit, a phi each, which grew with the
 * square of the nest's depth (bench/results.md section 9c). */
static void x_for_replay(Ad *ad, Blk *b, const IrStmt *s, IrExpr *begin, IrExpr *end, int64_t step, const unsigned char *H) {
    int n = ad->pk->nlocals;
    Span sp = s->span;
    QdType ct = ad->pk->locals[s->for_.counter].type;
    int *pre = malloc(sizeof(int) * ((size_t)n * 3 + 1)), *hdr = pre + n, *before = hdr + n;
#define L(x) local_ref(ad, x, sp)
#define K(v) irb_int(ad->a, ct, v, sp)
    /* the bounds and the trip count, once */
    int bv = new_local(ad, "$begin", ct, false), ev = new_local(ad, "$end", ct, false), nit = new_local(ad, "$trips", ct, false);
    vec_push(&b->f, assign(ad, bv, begin, sp));
    vec_push(&b->f, assign(ad, ev, end, sp));
    int64_t as = step > 0 ? step : -step;
    IrExpr *span_ = step > 0 ? bin(ad, IR_SUB, L(ev), L(bv)) : bin(ad, IR_SUB, L(bv), L(ev));
    vec_push(&b->f, assign(ad, nit, bin(ad, IR_MAX, bin(ad, IR_DIV, bin(ad, IR_ADD, span_, K(as - 1)), K(as)), K(0)), sp));
    for (int l = 0; l < n; l++) {
        hdr[l] = -1;
        if (!H[l]) continue;
        QdType t = ad->pk->locals[l].type;
        pre[l] = ad->cur[l];
        hdr[l] = version(ad, b, -1, t, ad->pk->locals[l].name, qt_is_float(t), sp);
        vec_push(&b->f, assign(ad, hdr[l], L(pre[l]), sp));
        StmtVec ch = {0};
        if (ad->adj.items[hdr[l]] >= 0) backprop(ad, &ch, L(pre[l]), L(ad->adj.items[hdr[l]]));
        chunk_push(b, ch);
        ad->cur[l] = hdr[l];
    }
    memcpy(before, ad->cur, sizeof(int) * (size_t)n);
    int c = version(ad, b, s->for_.counter, ct, NULL, false, sp);
    int nsaved = ad->fwd.len;
    Blk body = {0};
    xform_block(ad, &body, &s->for_.body);
    ad->fwd.len = nsaved;
    forget_stored(ad, &s->for_.body);
    StmtVec carry_rev = {0}; /* h = the iteration's end value (the body's last forward statements); backwards: its adjoint moves there */
    for (int l = 0; l < n; l++) {
        if (hdr[l] < 0 || ad->cur[l] == hdr[l]) continue;
        int e = ad->cur[l], g = ad->adj.items[hdr[l]];
        vec_push(&body.f, assign(ad, hdr[l], L(e), sp));
        if (g < 0) continue;
        backprop(ad, &carry_rev, L(e), L(g));
        vec_push(&carry_rev, assign(ad, g, irb_float(ad->a, ad->locals.items[g].type, 0, sp), sp));
    }
    memcpy(ad->cur, before, sizeof(int) * (size_t)n);
    chunk_push(&body, carry_rev); /* the last chunk: the first of the sweep, after the zeroing */
    /* S = max(1, ceil(trips / AD_CHECKPOINTS)) and the number of segments */
    int sv = new_local(ad, "$segment", ct, false), nseg = new_local(ad, "$segments", ct, false);
    vec_push(&b->f, assign(ad, sv, bin(ad, IR_MAX, bin(ad, IR_DIV, bin(ad, IR_ADD, L(nit), K(AD_CHECKPOINTS - 1)), K(AD_CHECKPOINTS)), K(1)), sp));
    vec_push(&b->f, assign(ad, nseg, bin(ad, IR_DIV, bin(ad, IR_ADD, L(nit), bin(ad, IR_SUB, L(sv), K(1))), L(sv)), sp));
    int *ck = malloc(sizeof(int) * ((size_t)n * AD_CHECKPOINTS * 2 + 1)), *sub = ck + (size_t)n * AD_CHECKPOINTS;
    int *saved = malloc(sizeof(int) * ((size_t)n + 1));
    for (int l = 0; l < n; l++) {
        saved[l] = -1;
        if (hdr[l] < 0) continue;
        QdType t = ad->locals.items[hdr[l]].type;
        saved[l] = new_local(ad, "$saved", t, false);
        for (int q = 0; q < AD_CHECKPOINTS; q++) {
            ck[q * n + l] = new_local(ad, arena_printf(ad->a, "$checkpoint%d", q), t, false);
            sub[q * n + l] = new_local(ad, arena_printf(ad->a, "$subcheckpoint%d", q), t, false);
        }
    }
    int md = new_local(ad, "$mode", ct, false), kq = new_local(ad, "$segrev", ct, false), qv = new_local(ad, "$slot", ct, false);
    int s1 = new_local(ad, "$segfirst", ct, false), e1 = new_local(ad, "$segend", ct, false), tv = new_local(ad, "$subsegment", ct, false);
    int nsub = new_local(ad, "$subsegments", ct, false), nruns = new_local(ad, "$runs", ct, false), rv = new_local(ad, "$run", ct, false);
    int swr = new_local(ad, "$sweeprun", ct, false), stt = new_local(ad, "$runfirst", ct, false), stp = new_local(ad, "$runend", ct, false);
    int xv = new_local(ad, "$iter", ct, false), qv2 = new_local(ad, "$subslot", ct, false), ms = new_local(ad, "$subiter", ct, false);
    int isw = new_local(ad, "$sweepiter", ct, false);
    /* for kq in range(mode - 1, mode * segments): kq = -1 is the forward run (all iterations, one
     * run); kq >= 0 sweeps segment segments - 1 - kq:
     *   h = checkpoint[q]; s1 = q * S; e1 = min(s1 + S, trips); T = max(1, ceil((e1 - s1) /
     *   AD_CHECKPOINTS)); U = ceil((e1 - s1) / T) sub-segments; U + e1 - s1 runs:
     *   run r < U keeps h in sub[r], then runs sub-segment r forward (s1 + r * T .. its end);
     *   run r >= U sweeps iteration x = e1 - 1 - (r - U): h = sub[(x - s1) / T], it replays from
     *   that sub-segment's first iteration to x, then x forward and backwards. */
    StmtVec seg = {0}, kfwd = {0}, fwdrun = {0}, pick = {0}, runb = {0}, mb = {0}, keep = {0}, rest = {0}, last = {0};
    vec_push(&seg, assign(ad, qv, bin(ad, IR_SUB, bin(ad, IR_SUB, L(nseg), K(1)), L(kq)), sp));
    checkpoint_moves(ad, &seg, qv, ck, hdr, hdr, n, false, sp);
    vec_push(&seg, assign(ad, s1, bin(ad, IR_MUL, L(qv), L(sv)), sp));
    vec_push(&seg, assign(ad, e1, bin(ad, IR_MIN, bin(ad, IR_ADD, L(s1), L(sv)), L(nit)), sp));
    vec_push(&seg, assign(ad, tv, bin(ad, IR_MAX, bin(ad, IR_DIV, bin(ad, IR_ADD, bin(ad, IR_SUB, L(e1), L(s1)), K(AD_CHECKPOINTS - 1)), K(AD_CHECKPOINTS)), K(1)), sp));
    vec_push(&seg, assign(ad, nsub, bin(ad, IR_DIV, bin(ad, IR_ADD, bin(ad, IR_SUB, L(e1), L(s1)), bin(ad, IR_SUB, L(tv), K(1))), L(tv)), sp));
    vec_push(&seg, assign(ad, nruns, bin(ad, IR_ADD, L(nsub), bin(ad, IR_SUB, L(e1), L(s1))), sp));
    vec_push(&kfwd, assign(ad, nruns, K(1), sp));
    IrStmt *segif = if_stmt(ad, bin(ad, IR_GE, L(kq), K(0)), &seg, sp);
    segif->if_.els = block_of(ad, &kfwd);
    /* a run: its first and end iteration, and whether its last iteration is swept */
    vec_push(&runb, assign(ad, swr, K(0), sp));
    vec_push(&fwdrun, assign(ad, qv2, L(rv), sp));
    checkpoint_moves(ad, &fwdrun, qv2, sub, hdr, hdr, n, true, sp);
    vec_push(&fwdrun, assign(ad, stt, bin(ad, IR_ADD, L(s1), bin(ad, IR_MUL, L(rv), L(tv))), sp));
    vec_push(&fwdrun, assign(ad, stp, bin(ad, IR_MIN, bin(ad, IR_ADD, L(stt), L(tv)), L(e1)), sp));
    vec_push(&pick, assign(ad, xv, bin(ad, IR_SUB, bin(ad, IR_SUB, L(e1), K(1)), bin(ad, IR_SUB, L(rv), L(nsub))), sp));
    vec_push(&pick, assign(ad, qv2, bin(ad, IR_DIV, bin(ad, IR_SUB, L(xv), L(s1)), L(tv)), sp));
    checkpoint_moves(ad, &pick, qv2, sub, hdr, hdr, n, false, sp);
    vec_push(&pick, assign(ad, stt, bin(ad, IR_ADD, L(s1), bin(ad, IR_MUL, L(qv2), L(tv))), sp));
    vec_push(&pick, assign(ad, stp, bin(ad, IR_ADD, L(xv), K(1)), sp));
    vec_push(&pick, assign(ad, swr, K(1), sp));
    IrStmt *which = if_stmt(ad, bin(ad, IR_LT, L(rv), L(nsub)), &fwdrun, sp);
    which->if_.els = block_of(ad, &pick);
    StmtVec whole = {0};
    vec_push(&whole, assign(ad, stt, K(0), sp));
    vec_push(&whole, assign(ad, stp, L(nit), sp));
    StmtVec swept = {0};
    vec_push(&swept, which);
    IrStmt *kind = if_stmt(ad, bin(ad, IR_LT, L(kq), K(0)), &whole, sp);
    kind->if_.els = block_of(ad, &swept);
    vec_push(&runb, kind);
    /* an iteration: a checkpoint in the forward run, h as it began kept in saved, the body */
    vec_push(&keep, assign(ad, qv, bin(ad, IR_DIV, L(ms), L(sv)), sp));
    checkpoint_moves(ad, &keep, qv, ck, hdr, hdr, n, true, sp);
    StmtVec keepif = {0}; /* nested, not `and`: the sweep's iterations compute no remainder */
    vec_push(&keepif, if_stmt(ad, bin(ad, IR_EQ, bin(ad, IR_REM, L(ms), L(sv)), K(0)), &keep, sp));
    vec_push(&mb, if_stmt(ad, bin(ad, IR_LT, L(kq), K(0)), &keepif, sp));
    for (int l = 0; l < n; l++)
        if (hdr[l] >= 0) {
            vec_push(&mb, assign(ad, saved[l], L(hdr[l]), sp));
            vec_push(&rest, assign(ad, hdr[l], L(saved[l]), sp));
        }
    vec_push(&mb, assign(ad, c, bin(ad, IR_ADD, L(bv), bin(ad, IR_MUL, L(ms), K(step))), sp));
    bool leaf = body.cuts.len == 0; /* no unit inside: the sweep of iteration x after the run's loop, out of its hot path */
    if (!leaf) {
        vec_push(&mb, assign(ad, isw, K(0), sp));
        vec_push(&last, assign(ad, isw, L(swr), sp));
        vec_push(&mb, if_stmt(ad, bin(ad, IR_EQ, L(ms), bin(ad, IR_SUB, L(stp), K(1))), &last, sp));
    }
    StmtVec fo = {0}, fk = {0}; /* the forward run alone: checkpoints, the body forward */
    vec_push(&fk, assign(ad, qv, bin(ad, IR_DIV, L(ms), L(sv)), sp));
    checkpoint_moves(ad, &fk, qv, ck, hdr, hdr, n, true, sp);
    vec_push(&fo, if_stmt(ad, bin(ad, IR_EQ, bin(ad, IR_REM, L(ms), L(sv)), K(0)), &fk, sp));
    vec_push(&fo, assign(ad, c, bin(ad, IR_ADD, L(bv), bin(ad, IR_MUL, L(ms), K(step))), sp));
    IrBlock bf = blk_forward(ad, &body, NULL, 0);
    for (int k = 0; k < bf.n; k++) vec_push(&fo, bf.stmts[k]);
    IrStmt *fwd = for_stmt(ad, ms, K(0), L(nit), 1, block_of(ad, &fo), sp);
    StmtVec after = {0};
    if (leaf) { /* the run's last iteration is x: h = saved (x's start), x backwards */
        for (int k = 0; k < body.f.len; k++) vec_push(&mb, body.f.items[k]);
        for (int k = 0; k < rest.len; k++) vec_push(&after, rest.items[k]);
        IrBlock rb = blk_reverse(ad, &body);
        for (int k = 0; k < rb.n; k++) vec_push(&after, rb.stmts[k]);
    } else {
        blk_phases(ad, &body, isw, &rest, &mb, sp);
    }
    vec_free(&rest);
    vec_push(&runb, for_stmt(ad, ms, L(stt), L(stp), 1, block_of(ad, &mb), sp));
    if (leaf) vec_push(&runb, if_stmt(ad, bin(ad, IR_EQ, L(swr), K(1)), &after, sp));
    else vec_free(&after);
    StmtVec kb = {0};
    /* what one sweep's runs keep for the later runs (sub-checkpoints, the segment) lives in one kq iteration */
    for (int l = 0; l < n; l++)
        for (int q = 0; hdr[l] >= 0 && q < AD_CHECKPOINTS; q++) vec_push(&kb, kill_local(ad, sub[q * n + l], sp));
    int segl[] = {s1, e1, tv, nsub};
    for (size_t k = 0; k < sizeof segl / sizeof *segl; k++) vec_push(&kb, kill_local(ad, segl[k], sp));
    vec_push(&kb, segif);
    vec_push(&kb, for_stmt(ad, rv, K(0), L(nruns), 1, block_of(ad, &runb), sp));
    IrStmt *unit = for_stmt(ad, kq, bin(ad, IR_SUB, L(md), K(1)), bin(ad, IR_MUL, L(md), L(nseg)), 1, block_of(ad, &kb), sp);
#undef L
#undef K
    Cut cut = {.f_at = b->f.len, .c_at = b->chunks.len, .unit = unit, .fwd = fwd, .mode = md};
    cut.kill = ARENA_ARRAY(ad->a, int, (size_t)n * AD_CHECKPOINTS + 5);
    int kl[] = {bv, ev, nit, sv, nseg};
    for (size_t k = 0; k < sizeof kl / sizeof *kl; k++) cut.kill[cut.nkill++] = kl[k];
    for (int l = 0; l < n; l++)
        for (int q = 0; hdr[l] >= 0 && q < AD_CHECKPOINTS; q++) cut.kill[cut.nkill++] = ck[q * n + l];
    vec_push(&b->cuts, cut);
    free(pre), free(ck), free(saved);
}

static void x_for(Ad *ad, Blk *b, const IrStmt *s) {
    IrExpr *begin = clone_stmt_expr(ad, s->for_.begin), *end = clone_stmt_expr(ad, s->for_.end);
    int64_t step = s->for_.step;
    if (begin->kind == IR_CONST && end->kind == IR_CONST && step) { /* a compile-time trip count: unrolled */
        int64_t lo = begin->c.i, hi = end->c.i, trip = step > 0 ? (hi > lo ? (hi - lo + step - 1) / step : 0) : (lo > hi ? (lo - hi - step - 1) / -step : 0);
        if (trip <= 256 && trip * (s->for_.body.n + 1) <= ad->budget) {
            ad->budget -= (int)(trip * (s->for_.body.n + 1));
            for (int64_t it = 0; it < trip; it++) {
                assign_version(ad, b, s->for_.counter, irb_int(ad->a, ad->pk->locals[s->for_.counter].type, lo + it * step, s->span), NULL, s->span);
                xform_block(ad, b, &s->for_.body);
            }
            return;
        }
    }
    int n = ad->pk->nlocals;
    unsigned char *set = calloc((size_t)n * 4 + 1, 1), *written = set + n, *carried = written + n, *acc = carried + n;
    assigned(&s->for_.body, set);
    set[s->for_.counter] = 0;
    carries(&s->for_.body, set, written, carried, n);
    bool ok = true;
    for (int l = 0; l < n && ok; l++)
        if (carried[l]) ok = qt_is_float(ad->pk->locals[l].type) && accumulates(&s->for_.body, l, carried, n), acc[l] = 1;
    if (ok) { /* a local the loop assigns, read outside it (before it: conservatively refused), unless it accumulates */
        unsigned char *plain = calloc((size_t)n, 1);
        for (int l = 0; l < n; l++) plain[l] = set[l] && !acc[l];
        int in = reads_of(&s->for_.body, plain) + expr_reads_of(s->for_.begin, plain) + expr_reads_of(s->for_.end, plain);
        ok = reads_of(&ad->task->body, plain) == in;
        free(plain);
    }
    if (!ok) { /* the ad stack: every carried local, and every one read after the loop, is replayed */
        unsigned char *one = calloc((size_t)n + 1, 1);
        for (int l = 0; l < n; l++) {
            if (!set[l] || carried[l]) continue;
            one[l] = 1; /* read outside the loop (before it too: conservatively) */
            carried[l] = reads_of(&ad->task->body, one) > reads_of(&s->for_.body, one) + expr_reads_of(s->for_.begin, one) + expr_reads_of(s->for_.end, one);
            one[l] = 0;
        }
        free(one);
        x_for_replay(ad, b, s, begin, end, step, carried);
        free(set);
        return;
    }
    /* the accumulators: one version each for the whole loop, updated in place */
    for (int l = 0; l < n; l++) {
        if (!acc[l]) continue;
        int from = ad->cur[l], v = version(ad, b, -1, ad->pk->locals[l].type, ad->pk->locals[l].name, true, s->span);
        vec_push(&b->f, assign(ad, v, local_ref(ad, from, s->span), s->span));
        StmtVec ch = {0};
        backprop(ad, &ch, local_ref(ad, from, s->span), local_ref(ad, ad->adj.items[v], s->span));
        chunk_push(b, ch);
        ad->cur[l] = v, ad->acc[l] = v;
    }
    int *before = malloc(sizeof(int) * ((size_t)n + 1));
    memcpy(before, ad->cur, sizeof(int) * (size_t)n);
    int c = version(ad, b, s->for_.counter, ad->pk->locals[s->for_.counter].type, NULL, false, s->span);
    int nsaved = ad->fwd.len, nskip = ad->acc_updates.len;
    Blk body = {0};
    xform_block(ad, &body, &s->for_.body);
    ad->fwd.len = nsaved;
    forget_stored(ad, &s->for_.body);
    memcpy(ad->cur, before, sizeof(int) * (size_t)n);
    free(before);
    bool any_acc = false;
    for (int l = 0; l < n; l++)
        if (acc[l]) any_acc = true, ad->acc[l] = -1; /* an enclosing loop's accumulators stay */
    free(set);
    IrStmt *loop = ARENA_NEW(ad->a, IrStmt);
    loop->kind = IR_FOR, loop->span = s->span;
    loop->for_.counter = c, loop->for_.begin = begin, loop->for_.end = end, loop->for_.step = step;
    if (body.cuts.len && !any_acc) { /* units in the body: each emitted once, the body run forward then backwards */
        QdType ct = ad->pk->locals[s->for_.counter].type;
        int both = new_local(ad, "$sweepiter", ct, false);
        StmtVec lb = {0}, none = {0};
        vec_push(&lb, assign(ad, both, irb_int(ad->a, ct, 1, s->span), s->span));
        blk_phases(ad, &body, both, &none, &lb, s->span);
        loop->for_.body = block_of(ad, &lb);
    } else {
        /* the adjoint sweep's replay: the body without the accumulations */
        IrBlock fwd = blk_forward(ad, &body, &ad->acc_updates, nskip);
        if (any_acc) { /* the forward replay runs the loop for the accumulators' final values */
            IrStmt *fl = ARENA_NEW(ad->a, IrStmt);
            fl->kind = IR_FOR, fl->span = s->span;
            fl->for_.counter = c, fl->for_.begin = begin, fl->for_.end = end, fl->for_.step = step;
            fl->for_.body = blk_forward(ad, &body, NULL, 0);
            vec_push(&b->f, fl);
        }
        IrBlock rev = blk_reverse(ad, &body);
        loop->for_.body.n = fwd.n + rev.n;
        loop->for_.body.stmts = ARENA_ARRAY(ad->a, IrStmt *, fwd.n + rev.n + 1);
        memcpy(loop->for_.body.stmts, fwd.stmts, sizeof(IrStmt *) * (size_t)fwd.n);
        memcpy(loop->for_.body.stmts + fwd.n, rev.stmts, sizeof(IrStmt *) * (size_t)rev.n);
    }
    ad->acc_updates.len = nskip;
    StmtVec ch = {0};
    vec_push(&ch, loop);
    chunk_push(b, ch);
}

/* l = l +- e for an accumulator of the loop being transformed (x_for): e's adjoint is the
 * accumulator's, in every iteration. */
static void x_accumulate(Ad *ad, Blk *b, const IrStmt *s) {
    int sign = 1, v = ad->acc[s->assign.local];
    const IrExpr *pe = summand(s, s->assign.local, &sign);
    IrStmt *u = assign(ad, v, clone_stmt_expr(ad, s->assign.value), s->span); /* the accumulator is the local's version */
    IrExpr *e = clone(ad, pe);
    vec_push(&b->f, u);
    vec_push(&ad->acc_updates, u);
    StmtVec ch = {0};
    IrExpr *g = irb_cast(ad->a, local_ref(ad, ad->adj.items[v], s->span), e->type);
    backprop(ad, &ch, e, sign < 0 ? neg(ad, g) : g);
    chunk_push(b, ch);
}

static void xform_stmt(Ad *ad, Blk *b, const IrStmt *s) {
    switch (s->kind) {
    case IR_ASSIGN:
        if (ad->acc[s->assign.local] >= 0) return x_accumulate(ad, b, s);
        assign_version(ad, b, s->assign.local, clone_stmt_expr(ad, s->assign.value), NULL, s->span);
        return;
    case IR_STORE: x_store(ad, b, s); return;
    case IR_EVAL:
        if (s->eval->kind == IR_MEMOP && !s->eval->mem.is_volatile && s->eval->mem.op != QOP_LOAD && s->eval->mem.op != QOP_STORE) x_atomic(ad, b, s);
        else if (s->eval->kind == IR_MEMOP && s->eval->mem.op == QOP_STORE) refuse(ad, s->span, "qd.atomic_store in a kernel with gradients is not supported by qdc's autodiff yet");
        else if (ir_has_effects(s->eval)) refuse(ad, s->span, "subgroup collectives are not supported by qdc's autodiff yet");
        return;
    case IR_IF: x_if(ad, b, s); return;
    case IR_FOR: x_for(ad, b, s); return;
    case IR_WHILE: return refuse(ad, s->span, "WhileStmt is not supported in AutoDiff.");
    case IR_BREAK: return refuse(ad, s->span, "WhileControlStmt (break) is not supported in AutoDiff.");
    case IR_CONTINUE: return refuse(ad, s->span, "ContinueStmt is not supported in AutoDiff.");
    case IR_BARRIER: return refuse(ad, s->span, "qd.simt.block.sync() is not supported by qdc's autodiff yet");
    case IR_FENCE: case IR_PRINT: case IR_ASSERT: return; /* no adjoint; the companion does not repeat them */
    }
}

static void xform_block(Ad *ad, Blk *b, const IrBlock *src) {
    for (int k = 0; k < src->n && !ad->why; k++) xform_stmt(ad, b, src->stmts[k]);
}

/* ---- kernels ---- */
static bool reads_local(const IrExpr *e, void *ctx) { return (void)ctx, e->kind == IR_LOCAL; }
static bool varies(const IrRef *r) {
    for (int k = 0; k < r->nidx; k++)
        if (ir_expr_any(r->idx[k], reads_local, NULL)) return true;
    return false;
}

/* Quadrants' demotion of loop-unique atomics (its demote_atomics pass, on every range-for and
 * struct-for offload): in a parallel task whose every access to a memory is at one subscript tuple
 * made of the task's loop variables (the locals the body computes first from the iteration index,
 * each assigned once, all of them, each once), every iteration touches an element of its own, so
 * the adjoint accumulations need no atomic. Fills ad->uniq: 1 loop-unique, 2 not, 0 unseen. */
typedef struct {
    Ad *ad;
    const IrTask *t;
    int *lv; /* the loop variables */
    int nlv;
    const IrRef **first; /* per memory: its first reference */
} Uniq;

static int sets_of(const IrBlock *b, int l) {
    int n = 0;
    for (int k = 0; k < b->n; k++) {
        const IrStmt *s = b->stmts[k];
        n += (s->kind == IR_ASSIGN && s->assign.local == l) + (s->kind == IR_FOR && s->for_.counter == l);
        if (s->kind == IR_IF) n += sets_of(&s->if_.then, l) + sets_of(&s->if_.els, l);
        if (s->kind == IR_FOR) n += sets_of(&s->for_.body, l);
        if (s->kind == IR_WHILE) n += sets_of(&s->while_.body, l);
    }
    return n;
}

static bool reads_index(const IrExpr *e, void *ctx) { return e->kind == IR_LOCAL && e->local == *(const int *)ctx; }

static void uniq_ref(Uniq *u, const IrRef *r) {
    int mid = r ? mid_of(r) : INT_MIN;
    if (mid == INT_MIN) return;
    int slot = mid >= 0 ? mid : u->ad->m->nfields + (-2 - mid);
    if (u->ad->uniq[slot] == 2) return;
    bool ok = r->nidx == u->nlv && u->nlv > 0;
    for (int k = 0; ok && k < r->nidx; k++) {
        const IrExpr *e = r->idx[k];
        ok = e->kind == IR_LOCAL;
        for (int j = 0; ok && j < k; j++) ok = r->idx[j]->local != e->local; /* each once */
        bool lv = false;
        for (int j = 0; ok && j < u->nlv; j++) lv |= u->lv[j] == e->local;
        ok = ok && lv;
    }
    if (ok && u->first[slot]) ok = same_ref(r, u->first[slot]);
    if (!u->first[slot]) u->first[slot] = r;
    u->ad->uniq[slot] = ok ? 1 : 2;
}
static bool uniq_expr(const IrExpr *e, void *ctx) {
    if (e->kind == IR_LOAD) uniq_ref(ctx, e->ref);
    if (e->kind == IR_MEMOP) uniq_ref(ctx, e->mem.ref);
    return false; /* every reference is visited */
}
static void uniq_stores(Uniq *u, const IrBlock *b) {
    for (int k = 0; k < b->n; k++) {
        const IrStmt *s = b->stmts[k];
        if (s->kind == IR_STORE) uniq_ref(u, s->store.ref);
        if (s->kind == IR_IF) uniq_stores(u, &s->if_.then), uniq_stores(u, &s->if_.els);
        if (s->kind == IR_FOR) uniq_stores(u, &s->for_.body);
        if (s->kind == IR_WHILE) uniq_stores(u, &s->while_.body);
    }
}

static void loop_unique(Ad *ad, const IrTask *t) {
    int nslots = ad->m->nfields + ad->pk->nparams;
    memset(ad->uniq, 0, (size_t)nslots + 1);
    if (t->kind != IR_TASK_PARALLEL) return;
    Uniq u = {.ad = ad, .t = t, .lv = malloc(sizeof(int) * ((size_t)t->body.n + 1)), .first = calloc((size_t)nslots + 1, sizeof(IrRef *))};
    for (int k = 0; k < t->body.n; k++) {
        const IrStmt *s = t->body.stmts[k];
        if (s->kind != IR_ASSIGN || !ir_expr_any(s->assign.value, reads_index, (void *)&t->index_local)) break;
        if (s->assign.local == t->index_local || sets_of(&t->body, s->assign.local) != 1) { u.nlv = 0; break; }
        u.lv[u.nlv++] = s->assign.local;
    }
    if (u.nlv && sets_of(&t->body, t->index_local) == 0) {
        ir_block_any(&t->body, uniq_expr, &u);
        uniq_stores(&u, &t->body);
    } else {
        memset(ad->uniq, 2, (size_t)nslots + 1);
    }
    free(u.lv), free(u.first);
}

/* Quadrants' check of a task: a load of a needs_grad field and a store to another element of it,
 * both indexed by the iteration, make the adjoint chain cross iterations, which it does not
 * generate (the companion would read the value the forward pass overwrote). */
static void cross_iteration(Ad *ad) {
    for (int l = 0; l < ad->loads.len && !ad->why; l++)
        for (int k = 0; k < ad->stores.len; k++) {
            const IrRef *ld = ad->loads.items[l], *st = ad->stores.items[k];
            if (mid_of(ld) != mid_of(st) || same_ref(ld, st) || !varies(ld) || !varies(st)) continue;
            refuse(ad, ld->span, arena_printf(ad->a, "Cross-iteration read-after-write on the `needs_grad` global %s `%s` at the "
                                                     "offload-level loop body is not supported in reverse-mode autodiff (Quadrants' "
                                                     "global data access rule)", ld->kind == IR_REF_FIELD ? "field" : "ndarray", mid_name(ad, mid_of(ld))));
            break;
        }
}

/* Quadrants' global data access rule, as qd.ad.Tape(..., validation=True) checks it (its
 * GloablDataAccessRuleChecker: a load of a field with an adjoint sets the element's check bit,
 * a store or atomic to an element whose bit is set fails an assertion): an element of a field
 * with an adjoint that the kernel reads and later overwrites. Statically, where it surely
 * happens: the top-level statements of each task in order (of the kernel, in task order), a
 * store or atomic at the subscripts of an earlier load of the same field, subscripts made of
 * constants, scalar parameters and locals the task assigns once (its loop variables); across
 * tasks, constant subscripts only. The store, or NULL. */
typedef struct {
    const IrModule *m;
    const IrKernel *k;
    const IrTask *t;
    VEC(const IrRef *) loads;
    VEC(int) task_of; /* per load: its task */
    int task;
} Gdar;

static bool gdar_fixed(const Gdar *g, const IrExpr *e, bool across) {
    switch (e->kind) {
    case IR_CONST: return true;
    case IR_PARAM: case IR_SHAPE: return true;
    case IR_LOCAL: return !across && sets_of(&g->t->body, e->local) == 1;
    case IR_UNARY: return gdar_fixed(g, e->un.a, across);
    case IR_BINARY: return gdar_fixed(g, e->bin.a, across) && gdar_fixed(g, e->bin.b, across);
    case IR_CAST: case IR_BITCAST: return gdar_fixed(g, e->arg, across);
    default: return false;
    }
}
static bool gdar_ref_fixed(const Gdar *g, const IrRef *r, bool across) {
    for (int k = 0; k < r->nidx; k++)
        if (!gdar_fixed(g, r->idx[k], across)) return false;
    return !r->flat || gdar_fixed(g, r->flat, across);
}
static bool gdar_load(const IrExpr *e, void *ctx) {
    Gdar *g = ctx;
    if (e->kind == IR_LOAD && e->ref->kind == IR_REF_FIELD && e->ref->index >= 0 && g->m->fields[e->ref->index].grad > 0) {
        vec_push(&g->loads, e->ref);
        vec_push(&g->task_of, g->task);
    }
    return false;
}
static const IrStmt *gdar_check(const IrModule *m, const IrKernel *k, const char **field) {
    Gdar g = {.m = m, .k = k};
    const IrStmt *hit = NULL;
    for (int t = 0; t < k->ntasks && !hit; t++) {
        g.t = &k->tasks[t], g.task = t;
        for (int i = 0; i < g.t->body.n && !hit; i++) {
            const IrStmt *s = g.t->body.stmts[i];
            IrBlock one = {.stmts = (IrStmt **)&g.t->body.stmts[i], .n = 1};
            if (s->kind == IR_IF || s->kind == IR_FOR || s->kind == IR_WHILE) { /* loads under control flow: not surely made */
                continue;
            }
            ir_block_any(&one, gdar_load, &g); /* the statement's loads come before its store */
            const IrRef *w = s->kind == IR_STORE ? s->store.ref
                             : s->kind == IR_EVAL && s->eval->kind == IR_MEMOP && !s->eval->mem.is_volatile && s->eval->mem.op != QOP_LOAD ? s->eval->mem.ref
                                                                                                                                      : NULL;
            if (!w || w->kind != IR_REF_FIELD || w->index < 0 || m->fields[w->index].grad <= 0) continue;
            for (int l = 0; l < g.loads.len && !hit; l++) {
                const IrRef *r = g.loads.items[l];
                bool across = g.task_of.items[l] != t;
                if (r->index == w->index && same_ref(r, w) && gdar_ref_fixed(&g, r, across) && gdar_ref_fixed(&g, w, across))
                    hit = s, *field = m->fields[w->index].name;
            }
        }
    }
    vec_free(&g.loads), vec_free(&g.task_of);
    return hit;
}

/* Whether an ndarray parameter of kernel k is differentiable: a floating-point array that is not
 * itself an adjoint, not annotated needs_grad=False, in a script that allocates an ndarray with
 * needs_grad=True (or annotated needs_grad=True). */
static bool param_differentiable(const IrModule *m, const IrKernel *k, int p) {
    const IrParam *x = &k->params[p];
    return x->kind == IR_PARAM_NDARRAY && qt_is_float(x->type) && !x->adjoint_of && x->needs_grad >= 0 && (m->ndarray_grads || x->needs_grad > 0);
}

typedef struct {
    const IrModule *m;
    const IrKernel *k;
    unsigned char *used; /* per parameter: a differentiable ndarray whose elements the kernel reads or writes (NULL: not wanted) */
    bool hit;
} Touch;

static void touches_ref(Touch *t, const IrRef *r) {
    if (!r) return;
    if (r->kind == IR_REF_FIELD && r->index >= 0 && t->m->fields[r->index].grad > 0) t->hit = true;
    if (r->kind == IR_REF_NDARRAY && param_differentiable(t->m, t->k, r->index)) {
        t->hit = true;
        if (t->used) t->used[r->index] = 1;
    }
}
static bool touches_expr(const IrExpr *e, void *ctx) {
    if (e->kind == IR_LOAD) touches_ref(ctx, e->ref);
    if (e->kind == IR_MEMOP) touches_ref(ctx, e->mem.ref);
    return false; /* every reference is visited */
}
static void touches_block(Touch *t, const IrBlock *b) {
    ir_block_any(b, touches_expr, t);
    for (int k = 0; k < b->n; k++) {
        const IrStmt *s = b->stmts[k];
        if (s->kind == IR_STORE) touches_ref(t, s->store.ref);
        if (s->kind == IR_IF) touches_block(t, &s->if_.then), touches_block(t, &s->if_.els);
        if (s->kind == IR_FOR) touches_block(t, &s->for_.body);
        if (s->kind == IR_WHILE) touches_block(t, &s->while_.body);
    }
}

/* Whether kernel k reads or writes memory with an adjoint; used (optional): which ndarrays. */
static bool touches_kernel(const IrModule *m, const IrKernel *k, unsigned char *used) {
    Touch t = {.m = m, .k = k, .used = used};
    for (int i = 0; i < k->ntasks; i++) touches_block(&t, &k->tasks[i].body);
    return t.hit;
}

static bool name_taken(const IrModule *m, const char *name, int nkernels) {
    for (int k = 0; k < nkernels; k++) {
        if (!strcmp(m->kernels[k].name, name)) return true;
        for (int t = 0; t < m->kernels[k].ntasks; t++)
            if (!strcmp(m->kernels[k].tasks[t].name, name)) return true;
    }
    return false;
}

/* The companion of kernel ki, or false after a warning. */
static bool grad_kernel(IrModule *m, Arena *a, int ki, IrKernel *out) {
    const IrKernel *pk = &m->kernels[ki];
    Ad ad = {.a = a, .m = m, .pk = pk, .budget = 1 << 16};
    for (int l = 0; l < pk->nlocals; l++) new_local(&ad, pk->locals[l].name, pk->locals[l].type, false);
    ad.cur = malloc(sizeof(int) * (size_t)(pk->nlocals + 1)), ad.acc = malloc(sizeof(int) * (size_t)(pk->nlocals + 1));
    for (int l = 0; l < pk->nlocals; l++) ad.acc[l] = -1;
    *out = (IrKernel){.name = arena_printf(a, "%s_grad", pk->name), .params = pk->params, .nparams = pk->nparams, .ntasks = pk->ntasks,
                      .ret_type = QT_VOID, .ret_field = -1, .grad_of = ki + 1, .span = pk->span};
    /* The adjoint arrays: after the primal's parameters, "<x>_grad" for each differentiable
     * ndarray x whose elements the kernel reads or writes, in parameter order (qdc-abi(7)). */
    unsigned char *used = calloc((size_t)pk->nparams + 1, 1);
    ad.pgrad = malloc(sizeof(int) * ((size_t)pk->nparams + 1));
    ad.uniq = calloc((size_t)(m->nfields + pk->nparams) + 1, 1);
    touches_kernel(m, pk, used);
    int nadj = 0;
    for (int p = 0; p < pk->nparams; p++) nadj += used[p];
    if (nadj) {
        out->params = ARENA_ARRAY(a, IrParam, pk->nparams + nadj);
        memcpy(out->params, pk->params, sizeof(IrParam) * (size_t)pk->nparams);
    }
    for (int p = 0; p < pk->nparams; p++) {
        ad.pgrad[p] = -1;
        if (!used[p]) continue;
        IrParam *g = &out->params[out->nparams];
        *g = pk->params[p];
        g->name = arena_printf(a, "%s_grad", pk->params[p].name), g->adjoint_of = p + 1, g->needs_grad = -1;
        for (int q = 0; q < out->nparams; q++)
            if (!strcmp(out->params[q].name, g->name))
                refuse(&ad, pk->params[p].span, arena_printf(a, "the adjoint array of ndarray '%s' would be parameter '%s', which the kernel already has",
                                                             pk->params[p].name, g->name));
        ad.pgrad[p] = out->nparams++;
    }
    free(used);
    out->tasks = ARENA_ARRAY(a, IrTask, pk->ntasks ? pk->ntasks : 1);
    if (pk->random_at.src) rule(&ad, pk->random_at, "RandStmt not supported in AutoDiff for now.");
    if (pk->nested_range_at.src) rule(&ad, pk->nested_range_at, "Cannot use non static range in Backwards mode");
    const char *gf = NULL;
    const IrStmt *gs = pk->grad_validate ? gdar_check(m, pk, &gf) : NULL;
    if (gs)
        rule(&ad, gs->span, arena_printf(a, "(kernel=%s) Breaks the global data access rule. Snode %s is overwritten unexpectedly.", pk->name, gf));
    if (pk->nloops) refuse(&ad, pk->loops[0].span, "qd.graph.do_while is not supported by qdc's autodiff yet");
    if (name_taken(m, out->name, m->nkernels)) out->name = arena_printf(a, "%s__grad", pk->name); /* a kernel of the module has the name */
    if (name_taken(m, out->name, m->nkernels))
        refuse(&ad, pk->span, arena_printf(a, "other kernels are named '%s_grad' and '%s'", pk->name, out->name));
    for (int t = 0; t < pk->ntasks && !ad.why; t++) {
        const IrTask *pt = &pk->tasks[pk->ntasks - 1 - t];
        IrTask *gt = &out->tasks[t];
        *gt = *pt;
        gt->name = arena_printf(a, "%s_t%d", out->name, t);
        if (pt->uses_block) refuse(&ad, pt->span, "SharedArrays, block barriers and subgroup collectives are not supported by qdc's autodiff yet");
        for (int l = 0; l < pk->nlocals; l++) ad.cur[l] = l;
        ad.fwd.len = ad.stored.len = 0;
        ad.task = pt;
        loop_unique(&ad, pt);
        ir_memo_clear(&ad.clone_memo);
        if (pt->extent) gt->extent = clone_stmt_expr(&ad, pt->extent);
        Blk b = {0};
        ad.loads.len = ad.stores.len = 0;
        xform_block(&ad, &b, &pt->body);
        cross_iteration(&ad);
        IrBlock f = blk_forward(&ad, &b, NULL, 0), r = blk_reverse(&ad, &b);
        gt->body.n = f.n + r.n;
        gt->body.stmts = ARENA_ARRAY(a, IrStmt *, f.n + r.n + 1);
        memcpy(gt->body.stmts, f.stmts, sizeof(IrStmt *) * (size_t)f.n);
        memcpy(gt->body.stmts + f.n, r.stmts, sizeof(IrStmt *) * (size_t)r.n);
    }
    bool ok = !ad.why;
    if (!ok && ad.why_rule && pk->grad_call.src) { /* Quadrants raises where the script asks for the gradient */
        diag_error(ad.why_span, QD2154, "%s", ad.why);
        diag_note(pk->grad_call, "the gradient of kernel '%s' is asked for here: Quadrants compiles it, and raises, at this call", pk->name);
    } else if (!ok)
        diag_warning(ad.why_span, QD2112, "kernel '%s' gets no gradient kernel '%s': %s", pk->name, out->name, ad.why);
    else {
        out->nlocals = ad.locals.len;
        out->locals = ARENA_ARRAY(a, IrLocal, ad.locals.len);
        if (ad.locals.len) memcpy(out->locals, ad.locals.items, sizeof(IrLocal) * (size_t)ad.locals.len);
    }
    vec_free(&ad.locals), vec_free(&ad.active), vec_free(&ad.adj), vec_free(&ad.fwd), vec_free(&ad.stored);
    ir_memo_free(&ad.clone_memo), ir_memo_free(&ad.act_memo);
    vec_free(&ad.acc_updates), vec_free(&ad.loads), vec_free(&ad.stores);
    free(ad.cur), free(ad.acc), free(ad.pgrad), free(ad.uniq);
    return ok;
}

/* A kernel that touches memory with an adjoint, or whose gradient the script asks for. */
static bool wants_grad(const IrModule *m, const IrKernel *k) {
    return k->grad_of == -2 || (k->grad_of == 0 && touches_kernel(m, k, NULL));
}

void ad_module(IrModule *m, Arena *a) {
    int n = m->nkernels, extra = 0;
    for (int k = 0; k < n; k++)
        if (wants_grad(m, &m->kernels[k])) extra++;
    if (!extra) return;
    IrKernel *ks = ARENA_ARRAY(a, IrKernel, n + extra);
    memcpy(ks, m->kernels, sizeof(IrKernel) * (size_t)n);
    m->kernels = ks;
    for (int k = 0; k < n; k++)
        if (wants_grad(m, &ks[k]) && grad_kernel(m, a, k, &ks[m->nkernels])) m->nkernels++;
}

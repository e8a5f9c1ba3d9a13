/* Forward-mode automatic differentiation of the checked IR (Quadrants' qd.ad.FwdMode, its
 * make_dual.cpp): for every kernel k that reads or writes a field with a dual field
 * (IrField.dual), a companion kernel "<k>_fwd" with k's parameters and tasks that computes what
 * k computes and, beside every floating-point value, its tangent (the derivative along the seed
 * the host wrote into the dual fields):
 *   - a local carrying a tangent gets a dual local, assigned before it from the same operands;
 *   - a load of x[i] has the tangent x.dual[i]; a store y[i] = v stores the tangent of v into
 *     y.dual[i] (Quadrants adds it there, which is the same when each element is stored once
 *     per pass from cleared duals; a plain store keeps it right when an element is stored
 *     again), an atomic add/sub adds/subtracts it atomically;
 *   - the tangent of an operation is the sum of its operands' tangents times its partials,
 *     the rules reverse mode uses (ir/ad_rules.c).
 * Control flow keeps its shape (tangents need no replay: loops of any kind, while, break and
 * continue are exact). What qdc does not differentiate in forward mode gets a QD2140 warning
 * and no companion. */
#include "autodiff.h"
#include "snode.h"
#include <string.h>

typedef VEC(IrStmt *) StmtVec;

typedef struct {
    Arena *a;
    IrModule *m;
    const IrKernel *pk;
    VEC(IrLocal) locals;
    int *dual;           /* primal local -> its dual local, or -1 */
    unsigned char *act;  /* primal local: carries a tangent */
    IrMemo memo, tmemo;  /* per statement: primal node -> its clone; clone -> its tangent */
    bool changed;
    const char *why;
    Span why_span;
} Fw;

static void refuse(Fw *f, Span sp, const char *why) {
    if (!f->why) f->why = why, f->why_span = sp;
}

static bool dual_field(const Fw *f, const IrRef *r) { return r->kind == IR_REF_FIELD && f->m->fields[r->index].dual > 0; }

/* ---- which values carry a tangent (primal and cloned expressions alike) ---- */
static bool has_tan(Fw *f, const IrExpr *e) {
    if (!e || !qt_is_float(e->type)) return false;
    switch (e->kind) {
    case IR_LOCAL: return f->act[e->local];
    case IR_LOAD: return dual_field(f, e->ref) && !e->ref->stop_grad;
    case IR_MEMOP: return dual_field(f, e->mem.ref) || (e->mem.ref->kind == IR_REF_LOCAL && f->act[e->mem.ref->index]) || has_tan(f, e->mem.val);
    case IR_SUBGROUP: return has_tan(f, e->sg.a) || has_tan(f, e->sg.b);
    case IR_UNARY: return e->un.op == IR_NEG && has_tan(f, e->un.a);
    case IR_CAST: return has_tan(f, e->arg);
    case IR_SELECT: return has_tan(f, e->sel.a) || has_tan(f, e->sel.b);
    case IR_BINARY:
        switch (e->bin.op) {
        case IR_ADD: case IR_SUB: case IR_MUL: case IR_DIV: case IR_POW: case IR_MIN: case IR_MAX:
            return has_tan(f, e->bin.a) || has_tan(f, e->bin.b);
        default: return false;
        }
    case IR_MATH:
        if (e->math.op == IR_FLOOR || e->math.op == IR_CEIL || e->math.op == IR_ROUND) return false;
        return has_tan(f, e->math.a) || has_tan(f, e->math.b);
    default: return false;
    }
}

/* Marks the locals that carry a tangent: assigned (or atomically updated) from a value that
 * carries one; repeated until nothing changes (a loop may carry one round). */
static void mark_block(Fw *f, const IrBlock *b) {
    for (int k = 0; k < b->n; k++) {
        const IrStmt *s = b->stmts[k];
        int l = -1;
        const IrExpr *v = NULL;
        if (s->kind == IR_ASSIGN) l = s->assign.local, v = s->assign.value;
        if (s->kind == IR_EVAL && s->eval->kind == IR_MEMOP && s->eval->mem.ref->kind == IR_REF_LOCAL) l = s->eval->mem.ref->index, v = s->eval->mem.val;
        if (l >= 0 && !f->act[l] && qt_is_float(f->pk->locals[l].type) && has_tan(f, v)) f->act[l] = 1, f->changed = true;
        if (s->kind == IR_IF) mark_block(f, &s->if_.then), mark_block(f, &s->if_.els);
        if (s->kind == IR_FOR) mark_block(f, &s->for_.body);
        if (s->kind == IR_WHILE) mark_block(f, &s->while_.body);
    }
}

/* ---- cloning ---- */
static IrExpr *local_ref(Fw *f, int l, Span sp) {
    IrExpr *e = irb_new(f->a, IR_LOCAL, f->locals.items[l].type, sp);
    e->local = l;
    return e;
}

static IrExpr *cp(Fw *f, IrExpr *e);

static IrRef *cp_ref(Fw *f, const IrRef *r) {
    IrRef *c = ARENA_NEW(f->a, IrRef);
    *c = *r;
    c->idx = r->nidx ? ARENA_ARRAY(f->a, IrExpr *, r->nidx) : NULL;
    for (int k = 0; k < r->nidx; k++) c->idx[k] = cp(f, r->idx[k]);
    c->flat = r->flat ? cp(f, r->flat) : NULL;
    return c;
}

static IrExpr *cp(Fw *f, IrExpr *e) {
    if (!e) return NULL;
    IrExpr *c = ir_memo_get(&f->memo, e);
    if (c) return c;
    c = ARENA_NEW(f->a, IrExpr);
    *c = *e;
    switch (e->kind) {
    case IR_LOAD: case IR_ADDR: c->ref = cp_ref(f, e->ref); break;
    case IR_UNARY: c->un.a = cp(f, e->un.a); break;
    case IR_BINARY: c->bin.a = cp(f, e->bin.a), c->bin.b = cp(f, e->bin.b); break;
    case IR_SELECT: c->sel.cond = cp(f, e->sel.cond), c->sel.a = cp(f, e->sel.a), c->sel.b = cp(f, e->sel.b); break;
    case IR_CAST: case IR_BITCAST: c->arg = cp(f, e->arg); break;
    case IR_MATH: c->math.a = cp(f, e->math.a), c->math.b = cp(f, e->math.b); break;
    case IR_MEMOP: c->mem.ref = cp_ref(f, e->mem.ref), c->mem.val = cp(f, e->mem.val), c->mem.val2 = cp(f, e->mem.val2); break;
    case IR_SUBGROUP: c->sg.a = cp(f, e->sg.a), c->sg.b = cp(f, e->sg.b); break;
    default: break;
    }
    ir_memo_put(&f->memo, e, c);
    return c;
}

static void new_stmt_scope(Fw *f) { ir_memo_clear(&f->memo), ir_memo_clear(&f->tmemo); }

static IrExpr *int_bin(void *a, IrBinOp op, IrExpr *x, IrExpr *y, Span sp) { return irb_binary(a, op, x, y, sp); }

/* The element of x.dual that a cloned reference r to x names (a plain buffer, or its place in
 * an SNode storage). */
static IrRef *dual_ref(Fw *f, const IrRef *r) {
    const IrField *d = &f->m->fields[f->m->fields[r->index].dual - 1];
    IrRef *dr = ARENA_NEW(f->a, IrRef);
    *dr = *r;
    dr->index = (int)(d - f->m->fields);
    dr->flat = d->storage ? ir_snode_flat(f->a, int_bin, f->a, f->m->storages[d->storage - 1].bytes, d, r->idx, r->span) : NULL;
    return dr;
}

/* The tangent of cloned expression c, NULL where it is 0. */
static IrExpr *tan_of(Fw *f, IrExpr *c) {
    if (!has_tan(f, c)) return NULL;
    IrExpr *t = ir_memo_get(&f->tmemo, c);
    if (t) return t;
    switch (c->kind) {
    case IR_LOCAL: t = local_ref(f, f->dual[c->local], c->span); break;
    case IR_LOAD:
        t = irb_new(f->a, IR_LOAD, c->type, c->span);
        t->ref = dual_ref(f, c->ref);
        break;
    case IR_MEMOP: case IR_SUBGROUP:
        refuse(f, c->span, c->kind == IR_MEMOP ? "an atomic whose result is used, on or with a value that has a tangent, is not "
                                                 "differentiated by qdc's forward mode"
                                               : "a subgroup collective of a value that has a tangent is not differentiated by qdc's forward mode");
        return NULL;
    default: {
        AdPartial p[2];
        int n = ad_partials(f->a, c, p);
        for (int k = 0; k < n; k++) {
            IrExpr *u = tan_of(f, p[k].operand);
            if (!u) continue;
            IrExpr *term = ad_apply(f->a, &p[k], irb_cast(f->a, u, c->type));
            t = t ? irb_binary(f->a, IR_ADD, t, term, c->span) : term;
        }
    }
    }
    if (t) ir_memo_put(&f->tmemo, c, t);
    return t;
}

/* The tangent of a statement's value, 0 where it has none; NULL after a refusal. A value with
 * an effect (an atomic, a collective) is not evaluated twice: such a value with a tangent is
 * refused. */
static IrExpr *tan_value(Fw *f, IrExpr *c, QdType t, Span sp) {
    IrExpr *u = tan_of(f, c);
    if (u && ir_has_effects(c)) refuse(f, sp, "an atomic or a subgroup collective inside a value that has a tangent is not differentiated by qdc's forward mode");
    return u ? irb_cast(f->a, u, t) : irb_float(f->a, t, 0, sp);
}

static IrStmt *stmt_new(Fw *f, IrStmtKind k, Span sp) {
    IrStmt *s = ARENA_NEW(f->a, IrStmt);
    s->kind = k, s->span = sp;
    return s;
}

static IrStmt *assign(Fw *f, int l, IrExpr *v, Span sp) {
    IrStmt *s = stmt_new(f, IR_ASSIGN, sp);
    s->assign.local = l, s->assign.value = v;
    return s;
}

static bool index_effects(const IrRef *r) {
    for (int k = 0; k < r->nidx; k++)
        if (ir_has_effects(r->idx[k])) return true;
    return false;
}

static IrBlock xform_block(Fw *f, const IrBlock *src);

static void x_store(Fw *f, StmtVec *out, const IrStmt *s) {
    IrStmt *n = stmt_new(f, IR_STORE, s->span);
    n->store.ref = cp_ref(f, s->store.ref), n->store.value = cp(f, s->store.value);
    const IrRef *r = n->store.ref;
    if (r->kind == IR_REF_FIELD && dual_field(f, r)) {
        if (index_effects(r)) refuse(f, s->span, "a store to a field with a dual field at an index computed by an atomic is not differentiated by qdc's forward mode");
        IrStmt *d = stmt_new(f, IR_STORE, s->span); /* y.dual[i] = tangent, before y[i] = v (v may read y[i]) */
        d->store.ref = dual_ref(f, r), d->store.value = tan_value(f, n->store.value, f->m->fields[r->index].type, s->span);
        vec_push(out, d);
    } else if (has_tan(f, n->store.value)) {
        if (r->kind == IR_REF_SHARED) refuse(f, s->span, "a SharedArray holding a value that has a tangent is not differentiated by qdc's forward mode");
        else if (r->kind == IR_REF_FIELD && !strncmp(f->m->fields[r->index].name, "qdc_tmp_", 8))
            refuse(f, s->span, "a kernel-scope variable that carries a value with a tangent from one loop to the next is not differentiated by qdc's forward mode");
        /* an ndarray or a field without a dual field: its tangent is dropped, as in Quadrants */
    }
    vec_push(out, n);
}

static void x_eval(Fw *f, StmtVec *out, const IrStmt *s) {
    IrStmt *n = stmt_new(f, IR_EVAL, s->span);
    n->eval = cp(f, s->eval);
    if (n->eval->kind == IR_MEMOP && n->eval->mem.op != QOP_LOAD) {
        IrMemOp *mo = &n->eval->mem;
        bool local = mo->ref->kind == IR_REF_LOCAL && f->act[mo->ref->index];
        if (dual_field(f, mo->ref) || local) {
            if (mo->op != QOP_ADD && mo->op != QOP_SUB)
                refuse(f, s->span, arena_printf(f->a, "atomic %s on a value that has a tangent is not differentiated by qdc's forward mode (atomic add and sub are)", qop_name(mo->op)));
            else if (index_effects(mo->ref) || ir_has_effects(mo->val))
                refuse(f, s->span, "an atomic whose index or operand is computed by another atomic is not differentiated by qdc's forward mode");
            else if (has_tan(f, mo->val) || !local) {
                IrExpr *u = tan_value(f, mo->val, mo->ref->type, s->span);
                if (local) {
                    int d = f->dual[mo->ref->index];
                    vec_push(out, assign(f, d, irb_binary(f->a, mo->op == QOP_ADD ? IR_ADD : IR_SUB, local_ref(f, d, s->span), u, s->span), s->span));
                } else if (has_tan(f, mo->val)) {
                    IrExpr *op = irb_new(f->a, IR_MEMOP, n->eval->type, s->span);
                    op->mem = *mo;
                    op->mem.ref = dual_ref(f, mo->ref), op->mem.val = u;
                    op->mem.val2 = NULL;
                    IrStmt *d = stmt_new(f, IR_EVAL, s->span);
                    d->eval = op;
                    vec_push(out, d);
                }
            }
        } else if (has_tan(f, mo->val) && mo->ref->kind == IR_REF_FIELD && !strncmp(f->m->fields[mo->ref->index].name, "qdc_tmp_", 8)) {
            refuse(f, s->span, "a kernel-scope variable that carries a value with a tangent from one loop to the next is not differentiated by qdc's forward mode");
        } else if (has_tan(f, mo->val) && mo->ref->kind == IR_REF_SHARED) {
            refuse(f, s->span, "a SharedArray holding a value that has a tangent is not differentiated by qdc's forward mode");
        }
    }
    vec_push(out, n);
}

static void xform_stmt(Fw *f, StmtVec *out, const IrStmt *s) {
    new_stmt_scope(f);
    IrStmt *n;
    switch (s->kind) {
    case IR_ASSIGN: {
        int l = s->assign.local;
        IrExpr *v = cp(f, s->assign.value);
        if (f->act[l]) vec_push(out, assign(f, f->dual[l], tan_value(f, v, f->locals.items[f->dual[l]].type, s->span), s->span));
        vec_push(out, assign(f, l, v, s->span));
        return;
    }
    case IR_STORE: x_store(f, out, s); return;
    case IR_EVAL: x_eval(f, out, s); return;
    case IR_IF:
        n = stmt_new(f, IR_IF, s->span);
        n->if_.cond = cp(f, s->if_.cond);
        n->if_.then = xform_block(f, &s->if_.then), n->if_.els = xform_block(f, &s->if_.els);
        break;
    case IR_WHILE:
        n = stmt_new(f, IR_WHILE, s->span);
        n->while_.cond = cp(f, s->while_.cond);
        n->while_.body = xform_block(f, &s->while_.body);
        break;
    case IR_FOR:
        n = stmt_new(f, IR_FOR, s->span);
        n->for_ = s->for_;
        n->for_.begin = cp(f, s->for_.begin), n->for_.end = cp(f, s->for_.end);
        n->for_.body = xform_block(f, &s->for_.body);
        break;
    case IR_PRINT:
        n = stmt_new(f, IR_PRINT, s->span);
        n->print = s->print;
        n->print.args = s->print.nargs ? ARENA_ARRAY(f->a, IrExpr *, s->print.nargs) : NULL;
        for (int k = 0; k < s->print.nargs; k++) n->print.args[k] = cp(f, s->print.args[k]);
        break;
    case IR_ASSERT:
        n = stmt_new(f, IR_ASSERT, s->span);
        n->assert_ = s->assert_;
        n->assert_.cond = cp(f, s->assert_.cond);
        break;
    default: /* break, continue, barriers, fences */
        n = ARENA_NEW(f->a, IrStmt);
        *n = *s;
        break;
    }
    vec_push(out, n);
}

static IrBlock xform_block(Fw *f, const IrBlock *src) {
    StmtVec out = {0};
    for (int k = 0; k < src->n && !f->why; k++) xform_stmt(f, &out, src->stmts[k]);
    IrBlock b = {.stmts = ARENA_ARRAY(f->a, IrStmt *, out.len ? out.len : 1), .n = out.len};
    if (out.len) memcpy(b.stmts, out.items, sizeof(IrStmt *) * (size_t)out.len);
    vec_free(&out);
    return b;
}

/* ---- kernels ---- */
static bool touches_ref(const IrModule *m, const IrRef *r) { return r && r->kind == IR_REF_FIELD && m->fields[r->index].dual > 0; }
static bool touches_expr(const IrExpr *e, void *ctx) {
    return (e->kind == IR_LOAD && touches_ref(ctx, e->ref)) || (e->kind == IR_MEMOP && touches_ref(ctx, e->mem.ref));
}
static bool touches_block(const IrModule *m, const IrBlock *b) {
    if (ir_block_any(b, touches_expr, (void *)m)) return true;
    for (int k = 0; k < b->n; k++) {
        const IrStmt *s = b->stmts[k];
        if (s->kind == IR_STORE && touches_ref(m, s->store.ref)) return true;
        if (s->kind == IR_IF && (touches_block(m, &s->if_.then) || touches_block(m, &s->if_.els))) return true;
        if (s->kind == IR_FOR && touches_block(m, &s->for_.body)) return true;
        if (s->kind == IR_WHILE && touches_block(m, &s->while_.body)) return true;
    }
    return false;
}

static bool touches(const IrModule *m, const IrKernel *k) {
    if (k->grad_of > 0 || k->grad_of == -1 || k->fwd_of > 0) return false; /* a companion, or @qd.ad.no_grad (Quadrants runs it as written) */
    if (k->fwd_of == -2) return true; /* run in a qd.ad.FwdMode */
    for (int t = 0; t < k->ntasks; t++)
        if (touches_block(m, &k->tasks[t].body)) return true;
    return false;
}

static bool name_taken(const IrModule *m, const char *name) {
    for (int k = 0; k < m->nkernels; k++) {
        if (!strcmp(m->kernels[k].name, name)) return true;
        for (int t = 0; t < m->kernels[k].ntasks; t++)
            if (!strcmp(m->kernels[k].tasks[t].name, name)) return true;
    }
    return false;
}

static bool fwd_kernel(IrModule *m, Arena *a, int ki, IrKernel *out) {
    const IrKernel *pk = &m->kernels[ki];
    Fw f = {.a = a, .m = m, .pk = pk};
    int n = pk->nlocals;
    for (int l = 0; l < n; l++) vec_push(&f.locals, pk->locals[l]);
    f.dual = malloc(sizeof(int) * ((size_t)n + 1)), f.act = calloc((size_t)n + 1, 1);
    do {
        f.changed = false;
        for (int t = 0; t < pk->ntasks; t++) mark_block(&f, &pk->tasks[t].body);
    } while (f.changed);
    for (int l = 0; l < n; l++) {
        f.dual[l] = -1;
        if (!f.act[l]) continue;
        vec_push(&f.locals, ((IrLocal){.name = arena_printf(a, "$dual_%s", pk->locals[l].name), .type = pk->locals[l].type}));
        f.dual[l] = f.locals.len - 1;
    }
    *out = *pk;
    out->name = arena_printf(a, "%s_fwd", pk->name);
    out->grad_of = 0, out->fwd_of = ki + 1;
    if (name_taken(m, out->name)) out->name = arena_printf(a, "%s__fwd", pk->name);
    if (name_taken(m, out->name)) refuse(&f, pk->span, arena_printf(a, "other kernels are named '%s_fwd' and '%s'", pk->name, out->name));
    out->tasks = ARENA_ARRAY(a, IrTask, pk->ntasks ? pk->ntasks : 1);
    for (int t = 0; t < pk->ntasks && !f.why; t++) {
        IrTask *ft = &out->tasks[t];
        *ft = pk->tasks[t];
        ft->name = arena_printf(a, "%s_t%d", out->name, t);
        new_stmt_scope(&f);
        ft->extent = cp(&f, pk->tasks[t].extent);
        ft->body = xform_block(&f, &pk->tasks[t].body);
    }
    bool ok = !f.why;
    if (!ok)
        diag_warning(f.why_span, QD2140, "kernel '%s' gets no forward-mode kernel '%s': %s", pk->name, out->name, f.why);
    else {
        out->nlocals = f.locals.len;
        out->locals = ARENA_ARRAY(a, IrLocal, f.locals.len ? f.locals.len : 1);
        if (f.locals.len) memcpy(out->locals, f.locals.items, sizeof(IrLocal) * (size_t)f.locals.len);
    }
    vec_free(&f.locals), ir_memo_free(&f.memo), ir_memo_free(&f.tmemo);
    free(f.dual), free(f.act);
    return ok;
}

void ad_fwd_module(IrModule *m, Arena *a) {
    int n = m->nkernels, extra = 0;
    for (int k = 0; k < n; k++) extra += touches(m, &m->kernels[k]);
    if (!extra) return;
    IrKernel *ks = ARENA_ARRAY(a, IrKernel, n + extra);
    memcpy(ks, m->kernels, sizeof(IrKernel) * (size_t)n);
    m->kernels = ks;
    for (int k = 0; k < n; k++)
        if (touches(m, &ks[k]) && fwd_kernel(m, a, k, &ks[m->nkernels])) m->nkernels++;
}

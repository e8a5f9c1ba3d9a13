/* Vectors and matrices (qd.Vector, qd.Matrix, qd.types.vector/matrix, qd.math.vec3 ...),
 * scalarized in the frontend: a V_VEC value is its n (vector) or n*m (matrix, row-major)
 * components, each a scalar V_EXPR/V_LOCAL/V_REF. Element-wise operators, the methods
 * (dot, cross, norm, @ ...) and scalar builtins applied to vectors expand here into scalar IR,
 * so the lowering engine and every backend see scalars only; atomics on vectors fan out per
 * component in sema_mem.c. A vector field or ndarray is a scalar array with the component
 * axes last (IrField/IrParam.elem_ndim): element i of a vec3 field is x[i, 0..2] (qdc-abi(7)). */
#include "sema.h"
#include <math.h>
#include <string.h>

static bool scalar_call; /* sema_vec_elementwise is calling the scalar builtin itself */

#define MAX_COMPONENTS 1024 /* n*m of one value: Quadrants warns past 144 */

Val vec_make(Sema *S, int n, int m) {
    Val v = {.kind = V_VEC};
    v.vec.n = n, v.vec.m = m;
    v.vec.c = ARENA_ARRAY(S->arena, Val, (m ? n * m : n) > 0 ? (m ? n * m : n) : 1);
    return v;
}

static bool is_scalar(Val v) { return v.kind == V_EXPR || v.kind == V_LOCAL || v.kind == V_REF; }

static QdType comp_type(Sema *S, Val c) {
    switch (c.kind) {
    case V_EXPR: return c.e->type;
    case V_LOCAL: return S->locals.items[c.index].type;
    case V_REF: return c.ref->type;
    default: return QT_VOID;
    }
}

static QdType vec_dtype(Sema *S, Val v) {
    QdType t = comp_type(S, v.vec.c[0]);
    for (int k = 1; k < vec_len(v); k++) t = qt_promote(t, comp_type(S, v.vec.c[k]));
    return t;
}

static const char *shape_text(Sema *S, Val v) {
    return v.vec.m ? arena_printf(S->arena, "a %dx%d matrix", v.vec.n, v.vec.m) : arena_printf(S->arena, "a %d-vector", v.vec.n);
}

/* Quadrants' name of a tensor type: [Tensor (3) i32], [Tensor (2, 3) f32] */
static const char *tensor_text(Sema *S, Val v) {
    QdType t = vec_dtype(S, v);
    const char *dt = t == QT_VOID ? "?" : qt_name(t);
    return v.vec.m ? arena_printf(S->arena, "[Tensor (%d, %d) %s]", v.vec.n, v.vec.m, dt) : arena_printf(S->arena, "[Tensor (%d) %s]", v.vec.n, dt);
}

static IrExpr *rv(Sema *S, Val c, Span sp) { return sema_rvalue(S, c, sp); }

/* A scalar used more than once (broadcast) is evaluated once, into a temporary; with
 * copy_locals, a variable is copied too (the value of v.xy = v.yx, read before any store). */
static Val stable_as(Sema *S, Val v, Span sp, bool copy_locals) {
    if (!S->cur || (v.kind != V_EXPR && v.kind != V_REF && !(copy_locals && v.kind == V_LOCAL))) return v;
    if (v.kind == V_EXPR && (v.e->kind == IR_CONST || v.e->kind == IR_LOCAL || v.e->kind == IR_PARAM || v.e->type == QT_VOID)) return v;
    IrExpr *e = rv(S, v, sp);
    if (!e) return val_err();
    int l = sema_new_local(S, "$vtmp", e->type);
    IrStmt *st = sema_stmt_new(S, IR_ASSIGN, sp);
    st->assign.local = l, st->assign.value = e;
    sema_emit(S, st);
    return (Val){.kind = V_LOCAL, .index = l};
}

static Val stable(Sema *S, Val v, Span sp) { return stable_as(S, v, sp, false); }

/* Every component into a new local (a named vector variable, a qd.func argument). */
Val sema_vec_materialize(Sema *S, Val v, const char *name, Span sp) {
    Val r = vec_make(S, v.vec.n, v.vec.m);
    for (int k = 0; k < vec_len(v); k++) {
        IrExpr *e = rv(S, v.vec.c[k], sp);
        if (!e) return val_err();
        int l = sema_new_local(S, arena_printf(S->arena, "%s_%d", name, k), e->type);
        IrStmt *st = sema_stmt_new(S, IR_ASSIGN, sp);
        st->assign.local = l, st->assign.value = e;
        sema_emit(S, st);
        r.vec.c[k] = (Val){.kind = V_LOCAL, .index = l};
    }
    return r;
}

const Expr *sema_val_node(Sema *S, Val v, int slot, Span sp) {
    static const char *const names[] = {"$val0", "$val1", "$val2", "$val3", "$val4", "$val5", "$val6", "$val7"};
    Expr *e = ARENA_NEW(S->arena, Expr);
    e->kind = E_NAME, e->span = sp, e->name = names[slot];
    S->val_slots[slot] = v;
    return e;
}

/* ---- component stores ---- */

static void store_comp(Sema *S, Val t, IrExpr *e, Span sp) {
    if (!e) return;
    if (t.kind == V_LOCAL) {
        IrStmt *st = sema_stmt_new(S, IR_ASSIGN, sp);
        st->assign.local = t.index, st->assign.value = sema_convert(S, e, S->locals.items[t.index].type);
        sema_emit(S, st);
    } else if (t.kind == V_REF) {
        if (S->quant && S->up->sema_quant_store(S, t.ref, e, sp)) return; /* a quantized member: a CAS loop on its word */
        IrStmt *st = sema_stmt_new(S, IR_STORE, sp);
        st->store.ref = t.ref, st->store.value = sema_convert(S, e, t.ref->type);
        sema_emit(S, st);
    } else {
        diag_error(sp, QD2010, "cannot assign to a component of a vector value that is not a variable or an element of storage");
    }
}

static bool same_shape(Val a, Val b) { return a.vec.n == b.vec.n && a.vec.m == b.vec.m; }

/* target = v component-wise; a scalar v is broadcast. The value is read completely first, so
 * v = v.zyx and x[i] = x[j] with i == j behave as whole-value copies. */
void sema_vec_assign(Sema *S, Val target, Val v, Span sp) {
    if (v.kind == V_ERR) return;
    if (v.kind == V_VEC && !same_shape(target, v)) {
        diag_error(sp, QD2040, "cannot assign %s to %s (cannot assign '%s' to '%s')", shape_text(S, v), shape_text(S, target),
                   tensor_text(S, v), tensor_text(S, target));
        return;
    }
    if (v.kind != V_VEC && !is_scalar(v)) {
        diag_error(sp, QD2019, "cannot assign %s to a vector", val_describe(v));
        return;
    }
    IrExpr **vals = ARENA_ARRAY(S->arena, IrExpr *, vec_len(target));
    Val one = v.kind == V_VEC ? v : stable(S, v, sp);
    for (int k = 0; k < vec_len(target); k++) {
        Val c = v.kind == V_VEC ? stable_as(S, v.vec.c[k], sp, true) : one;
        vals[k] = rv(S, c, sp);
        if (!vals[k]) return;
    }
    for (int k = 0; k < vec_len(target); k++) store_comp(S, target.vec.c[k], vals[k], sp);
}

/* ---- storage elements ---- */

/* The components of element r of a vector (m == 0) or matrix field/ndarray: r plus constant
 * component indices. Indices with effects are evaluated once, first. */
Val sema_vec_ref(Sema *S, IrRef *r, int n, int m) {
    for (int k = 0; S->cur && k < r->nidx; k++) {
        IrExpr *ix = r->idx[k];
        if (ix->kind == IR_CONST || ix->kind == IR_LOCAL || ix->kind == IR_PARAM) continue;
        Val t = stable(S, val_expr(ix), ix->span);
        if (t.kind == V_LOCAL) r->idx[k] = sema_local(S, t.index, ix->span);
    }
    int ed = m ? 2 : 1;
    Val v = vec_make(S, n, m);
    for (int k = 0; k < vec_len(v); k++) {
        IrRef *c = ARENA_NEW(S->arena, IrRef);
        *c = *r;
        c->idx = ARENA_ARRAY(S->arena, IrExpr *, r->nidx + ed);
        memcpy(c->idx, r->idx, sizeof(IrExpr *) * (size_t)r->nidx);
        if (m) c->idx[r->nidx] = irb_int(S->arena, QT_I32, k / m, r->span), c->idx[r->nidx + 1] = irb_int(S->arena, QT_I32, k % m, r->span);
        else c->idx[r->nidx] = irb_int(S->arena, QT_I32, k, r->span);
        c->nidx = r->nidx + ed;
        v.vec.c[k] = (Val){.kind = V_REF, .ref = c};
    }
    return v;
}

/* ---- subscripts: v[i], m[i, j], m[i][j], m[i] (a row) ---- */

static bool const_index(IrExpr *x, int64_t *out) {
    if (!ir_is_const(x) || !qt_is_integral(x->type)) return false;
    *out = qt_is_signed(x->type) ? x->c.i : (int64_t)x->c.u;
    return true;
}

/* A run-time component index: on a storage element, the component axis of the reference;
 * on a value, a select chain (read only). */
static Val dynamic_comp(Sema *S, Val v, const int *sel, int nsel, IrExpr *ix, int axis_from_end, Span sp) {
    bool refs = true;
    for (int k = 0; k < nsel; k++) refs &= v.vec.c[sel[k]].kind == V_REF && v.vec.c[sel[k]].ref->nidx >= 1 && !v.vec.c[sel[k]].ref->flat;
    if (refs) {
        IrRef *c = ARENA_NEW(S->arena, IrRef);
        *c = *v.vec.c[sel[0]].ref;
        c->idx = ARENA_ARRAY(S->arena, IrExpr *, c->nidx);
        memcpy(c->idx, v.vec.c[sel[0]].ref->idx, sizeof(IrExpr *) * (size_t)c->nidx);
        c->idx[c->nidx - axis_from_end] = irb_cast(S->arena, ix, QT_I32);
        return (Val){.kind = V_REF, .ref = c};
    }
    Val t = stable(S, val_expr(ix), sp);
    IrExpr *i = rv(S, t, sp), *r = rv(S, v.vec.c[sel[nsel - 1]], sp);
    for (int k = nsel - 2; k >= 0 && r; k--) {
        IrExpr *a = rv(S, v.vec.c[sel[k]], sp);
        if (!a) return val_err();
        QdType ty = qt_promote(a->type, r->type);
        IrExpr *s = irb_new(S->arena, IR_SELECT, ty, sp);
        s->sel.cond = sema_binary(S, IR_EQ, i, irb_int(S->arena, i->type, k, sp), sp);
        s->sel.a = irb_cast(S->arena, a, ty), s->sel.b = irb_cast(S->arena, r, ty);
        r = s;
    }
    return val_expr(r);
}

Val sema_vec_subscript(Sema *S, Val o, const Expr *ix, Span sp) {
    if (o.vec.c[0].kind == V_FIELD) { /* x[i] on a vector field placed under an SNode: each component field */
        Val r = vec_make(S, o.vec.n, o.vec.m);
        Expr fake = {.kind = E_SUBSCRIPT, .span = sp};
        fake.sub.index = (Expr *)ix;
        for (int k = 0; k < vec_len(o); k++) {
            fake.sub.obj = (Expr *)sema_val_node(S, o.vec.c[k], 4, sp);
            r.vec.c[k] = sema_eval(S, &fake);
            if (r.vec.c[k].kind == V_ERR) return val_err();
        }
        return r;
    }
    const Expr *items[2] = {ix, NULL};
    int n = 1;
    if (ix->kind == E_TUPLE) {
        if (ix->list.n > 2 || ix->list.n < 1) {
            diag_error(ix->span, QD2042, "%s takes 1 or 2 indices, got %d", shape_text(S, o), ix->list.n);
            return val_err();
        }
        n = ix->list.n, items[0] = ix->list.items[0], items[1] = n > 1 ? ix->list.items[1] : NULL;
    }
    if (n == 2 && !o.vec.m) {
        diag_error(ix->span, QD2042, "%s takes one index, got 2 (Expected 1 indices, got 2.)", shape_text(S, o));
        return val_err();
    }
    IrExpr *x[2] = {NULL, NULL};
    for (int k = 0; k < n; k++) {
        x[k] = sema_expr(S, items[k]);
        if (!x[k]) return val_err();
        if (!qt_is_integral(x[k]->type)) {
            diag_error(items[k]->span, QD2011, "a vector or matrix index must be an integer, got %s", qt_name(x[k]->type));
            return val_err();
        }
        int64_t c, lim = k == 0 ? o.vec.n : o.vec.m;
        if (const_index(x[k], &c) && (c < 0 || c >= lim)) {
            diag_error(items[k]->span, QD2042, "index %lld is out of range for %s", (long long)c, shape_text(S, o));
            return val_err();
        }
    }
    int64_t i = 0, j = 0;
    bool ci = const_index(x[0], &i), cj = n < 2 || const_index(x[1], &j);
    if (!o.vec.m) { /* a vector */
        if (ci) return o.vec.c[i];
        int sel[MAX_COMPONENTS];
        for (int k = 0; k < o.vec.n; k++) sel[k] = k;
        return dynamic_comp(S, o, sel, o.vec.n, x[0], 1, sp);
    }
    if (n == 1) { /* a row of a matrix */
        Val r = vec_make(S, o.vec.m, 0);
        for (int c = 0; c < o.vec.m; c++) {
            if (ci) {
                r.vec.c[c] = o.vec.c[i * o.vec.m + c];
                continue;
            }
            int sel[MAX_COMPONENTS];
            for (int k = 0; k < o.vec.n; k++) sel[k] = k * o.vec.m + c;
            r.vec.c[c] = dynamic_comp(S, o, sel, o.vec.n, x[0], 2, sp);
            if (r.vec.c[c].kind == V_ERR) return val_err();
        }
        return r;
    }
    if (ci && cj) return o.vec.c[i * o.vec.m + j];
    if (ci) { /* constant row, run-time column */
        Val row = sema_vec_subscript(S, o, items[0], sp);
        int sel[MAX_COMPONENTS];
        for (int k = 0; k < o.vec.m; k++) sel[k] = k;
        return row.kind == V_VEC ? dynamic_comp(S, row, sel, o.vec.m, x[1], 1, sp) : val_err();
    }
    int sel[MAX_COMPONENTS];
    for (int k = 0; k < o.vec.n * o.vec.m; k++) sel[k] = k;
    if (!cj) { /* run-time row and column: the column axis of storage, or the flat index of a value */
        Val col = dynamic_comp(S, o, sel, 1, x[1], 1, sp);
        if (col.kind == V_REF) {
            IrRef *c = col.ref;
            c->idx[c->nidx - 2] = irb_cast(S->arena, x[0], QT_I32);
            return col;
        }
    }
    IrExpr *flat = sema_binary(S, IR_ADD, sema_binary(S, IR_MUL, irb_cast(S->arena, x[0], QT_I32), irb_int(S->arena, QT_I32, o.vec.m, sp), sp),
                             irb_cast(S->arena, x[1], QT_I32), sp);
    Val v = o;
    v.vec.n = o.vec.n * o.vec.m, v.vec.m = 0;
    for (int k = 0; k < v.vec.n; k++) /* never the storage path: flat is not a component index */
        if (v.vec.c[k].kind == V_REF) v.vec.c[k] = val_expr(rv(S, v.vec.c[k], sp));
    return dynamic_comp(S, v, sel, v.vec.n, flat, 1, sp);
}

/* v[i] = x, m[i, j] = x, m[i][j] = x on a vector variable with a run-time index: one
 * conditional assignment per component. False when target is not of that form. */
bool sema_vec_dynamic_store(Sema *S, const Expr *target, Val v, const Stmt *aug, Span sp) {
    if (target->kind != E_SUBSCRIPT || !S->cur) return false;
    const Expr *obj = target->sub.obj, *ix[2] = {target->sub.index, NULL};
    int n = 1;
    if (ix[0]->kind == E_TUPLE && ix[0]->list.n == 2) ix[1] = ix[0]->list.items[1], ix[0] = ix[0]->list.items[0], n = 2;
    else if (ix[0]->kind == E_TUPLE) return false;
    Val o = val_err();
    bool felem = false; /* o: an element of a vector field */
    if (n == 1 && obj->kind == E_SUBSCRIPT && obj->sub.obj->kind == E_NAME && ix[0]->kind != E_INT && ix[0]->kind != E_SLICE) {
        /* v[i][j] of a vector field, j a variable, an argument or an expression of them */
        Binding *fb = sema_lookup(S, obj->sub.obj->name), *jb = ix[0]->kind == E_NAME ? sema_lookup(S, ix[0]->name) : NULL;
        bool field = fb && ((fb->v.kind == V_FIELD && S->fields.items[fb->v.index].elem_ndim == 1) ||
                            (fb->v.kind == V_VEC && !fb->v.vec.m && fb->v.vec.c[0].kind == V_FIELD));
        if (field && (ix[0]->kind != E_NAME || (jb && (jb->v.kind == V_LOCAL || (jb->v.kind == V_EXPR && !val_is_host_scalar(jb->v)))))) {
            o = sema_eval(S, obj); /* the element: one reference per component, each stored under its own condition */
            if (o.kind == V_ERR) return true;
            if (o.kind != V_VEC || o.vec.m) return false;
            for (int k = 0; k < vec_len(o); k++)
                if (o.vec.c[k].kind != V_REF) return false;
            felem = true;
        }
    }
    if (o.kind == V_ERR) {
        if (n == 1 && obj->kind == E_SUBSCRIPT && obj->sub.index->kind != E_TUPLE) /* m[i][j] */
            ix[1] = ix[0], ix[0] = obj->sub.index, obj = obj->sub.obj, n = 2;
        if (obj->kind != E_NAME) return false;
        Binding *b = scope_find(S->scope, obj->name);
        if (!b || b->v.kind != V_VEC || (n == 2) != (b->v.vec.m != 0)) return false;
        o = b->v;
    }
    int nref = 0;
    for (int k = 0; k < vec_len(o); k++) { /* locals, or a kernel-scope vector promoted to 0-d fields */
        if (o.vec.c[k].kind != V_LOCAL && (o.vec.c[k].kind != V_REF || o.vec.c[k].ref->kind != IR_REF_FIELD || (o.vec.c[k].ref->nidx && !felem)))
            return false;
        nref += o.vec.c[k].kind == V_REF;
    }
    if (aug && nref != vec_len(o)) return false; /* v[i] op= x on locals: the caller stores the value it computed */
    for (int k = 0; k < n; k++)
        if (ix[k]->kind == E_SLICE) return false; /* m[:, i] = v: the slice's elements, each stored */
    for (int k = 0; k < n; k++)
        if (ix[k]->kind == E_INT) continue;
        else if (ix[k]->kind != E_NAME) break;
        else {
            Binding *ib = scope_find(S->scope, ix[k]->name);
            if (!ib || !(ib->v.kind == V_LOCAL || (ib->v.kind == V_EXPR && !val_is_host_scalar(ib->v))))
                return false; /* a constant or unknown: the static path (a variable or an argument: dynamic) */
        }
    IrExpr *x[2] = {NULL, NULL};
    for (int k = 0; k < n; k++) {
        x[k] = sema_expr(S, ix[k]);
        if (!x[k]) return true;
        if (!qt_is_integral(x[k]->type))
            return diag_error(ix[k]->span, QD2011, "a vector or matrix index must be an integer, got %s", qt_name(x[k]->type)), true;
    }
    if (ir_is_const(x[0]) && (n == 1 || ir_is_const(x[1]))) return false;
    if (v.kind == V_VEC && !aug) {
        if (n == 1 && o.vec.m) return false;
        diag_error(sp, QD2040, "cannot assign %s to one component", val_describe(v));
        return true;
    }
    IrExpr *e = NULL;
    if (!aug) {
        Val val = stable(S, v, sp);
        if (!(e = rv(S, val, sp))) return true;
    }
    IrExpr *flat = n == 1 ? irb_cast(S->arena, x[0], QT_I32)
                          : sema_binary(S, IR_ADD, sema_binary(S, IR_MUL, irb_cast(S->arena, x[0], QT_I32), irb_int(S->arena, QT_I32, o.vec.m, sp), sp),
                                      irb_cast(S->arena, x[1], QT_I32), sp);
    Val fl = stable(S, val_expr(flat), sp);
    for (int k = 0; k < vec_len(o); k++) { /* only the component chosen is written (another thread may own the others) */
        IrStmt *st = sema_stmt_new(S, IR_IF, sp), *as;
        if (aug) { /* promoted (shared by the threads of a loop): the update of that component, atomic as for a scalar */
            IrStmtVec body = {0}, *outer = S->cur;
            S->cur = &body;
            S->up->sema_augassign_global(S, aug, S->up->sema_fresh_ref(S, o.vec.c[k], sp).ref);
            S->cur = outer;
            st->if_.cond = sema_binary(S, IR_EQ, rv(S, fl, sp), irb_int(S->arena, QT_I32, k, sp), sp);
            st->if_.then = sema_freeze(S, &body);
            sema_emit(S, st);
            continue;
        }
        if (o.vec.c[k].kind == V_LOCAL) {
            as = sema_stmt_new(S, IR_ASSIGN, sp);
            as->assign.local = o.vec.c[k].index, as->assign.value = sema_convert(S, e, S->locals.items[o.vec.c[k].index].type);
        } else {
            IrRef *r = S->up->sema_fresh_ref(S, o.vec.c[k], sp).ref;
            as = sema_stmt_new(S, IR_STORE, sp);
            as->store.ref = r, as->store.value = sema_convert(S, e, r->type);
        }
        st->if_.cond = sema_binary(S, IR_EQ, rv(S, fl, sp), irb_int(S->arena, QT_I32, k, sp), sp);
        st->if_.then.stmts = ARENA_ARRAY(S->arena, IrStmt *, 1), st->if_.then.stmts[0] = as, st->if_.then.n = 1;
        sema_emit(S, st);
    }
    return true;
}

/* ---- operators ---- */

static Val matmul(Sema *S, Val a, Val b, Span sp) {
    if (a.kind != V_VEC || b.kind != V_VEC) {
        diag_error(sp, QD2040, "operator '@' needs two vectors or matrices");
        return val_err();
    }
    /* numpy semantics: a vector is a row on the left and a column on the right */
    int an = a.vec.m ? a.vec.n : 1, ak = a.vec.m ? a.vec.m : a.vec.n;
    int bk = b.vec.n, bm = b.vec.m ? b.vec.m : 1;
    if (ak != bk) {
        diag_error(sp, QD2040, "operator '@' on %s and %s: inner dimensions %d and %d differ", shape_text(S, a), shape_text(S, b), ak, bk);
        return val_err();
    }
    Val r = !a.vec.m && !b.vec.m ? vec_make(S, 1, 0) : !a.vec.m ? vec_make(S, bm, 0) : !b.vec.m ? vec_make(S, an, 0) : vec_make(S, an, bm);
    for (int i = 0; i < an; i++)
        for (int j = 0; j < bm; j++) {
            IrExpr *s = NULL;
            for (int k = 0; k < ak; k++) {
                IrExpr *p = sema_binop_tok(S, T_STAR, rv(S, a.vec.c[i * ak + k], sp), rv(S, b.vec.c[k * bm + j], sp), sp);
                s = s ? sema_binary(S, IR_ADD, s, p, sp) : p;
                if (!s) return val_err();
            }
            r.vec.c[i * bm + j] = val_expr(s);
        }
    return !a.vec.m && !b.vec.m ? r.vec.c[0] : r;
}

Val sema_vec_binary(Sema *S, int tok, Val a, Val b, Span sp) {
    if (a.kind == V_ERR || b.kind == V_ERR) return val_err();
    if (tok == T_AT) return matmul(S, a, b, sp);
    if (a.kind == V_VEC && b.kind == V_VEC && !same_shape(a, b)) {
        diag_error(sp, QD2040, "operands of an element-wise operator have different shapes: %s and %s", shape_text(S, a), shape_text(S, b));
        return val_err();
    }
    Val shape = a.kind == V_VEC ? a : b;
    Val sa = a.kind == V_VEC ? a : stable(S, a, sp), sb = b.kind == V_VEC ? b : stable(S, b, sp);
    Val r = vec_make(S, shape.vec.n, shape.vec.m);
    for (int k = 0; k < vec_len(r); k++) {
        IrExpr *x = rv(S, sa.kind == V_VEC ? sa.vec.c[k] : sa, sp), *y = rv(S, sb.kind == V_VEC ? sb.vec.c[k] : sb, sp);
        r.vec.c[k] = val_expr(sema_binop_tok(S, tok, x, y, sp));
        if (r.vec.c[k].kind == V_ERR) return val_err();
    }
    return r;
}

/* Calls fn's scalar form on a fake expression whose operands are bound names (sema_val_node). */
Val sema_vec_unary(Sema *S, const Expr *e, Val a) {
    Val r = vec_make(S, a.vec.n, a.vec.m);
    Expr fake = *e;
    for (int k = 0; k < vec_len(r); k++) {
        fake.un.a = (Expr *)sema_val_node(S, a.vec.c[k], 0, e->un.a->span);
        r.vec.c[k] = sema_eval(S, &fake);
        if (r.vec.c[k].kind == V_ERR) return val_err();
    }
    return r;
}

/* ---- element-wise builtins: qd.sqrt(v), abs(v), qd.max(v, 0), qd.cast(v, qd.f32), qd.f32(v) ... ---- */

static bool elementwise_path(const char *p) {
    static const char *const plain[] = {"abs", "int", "float", "pow", "min", "max", "qd.abs", "qd.cast", "qd.select", "qd.atan2",
                                        "qd.math.atan2", "qd.pow", "qd.math.pow", "qd.math.clamp", "qd.raw_div", "qd.raw_mod",
                                        "qd.min", "qd.max", "qd.math.popcnt", "qd.math.clz", "qd.bit_cast"};
    static const char *const floats[] = {"sqrt", "floor", "ceil", "round", "rsqrt", "sin", "cos", "tan", "asin", "acos",
                                         "atan", "exp", "log", "tanh"};
    for (size_t k = 0; k < ARRAY_LEN(plain); k++)
        if (!strcmp(plain[k], p)) return true;
    const char *q = !strncmp(p, "qd.math.", 8) ? p + 8 : !strncmp(p, "qd.", 3) ? p + 3 : NULL;
    for (size_t k = 0; q && k < ARRAY_LEN(floats); k++)
        if (!strcmp(floats[k], q)) return true;
    return false;
}

static Val call_scalar(Sema *S, const Expr *fake, Val f) {
    scalar_call = true;
    Val r = sema_call(S, fake, f);
    scalar_call = false;
    return r;
}

bool sema_vec_elementwise(Sema *S, const Expr *call, Val f, Val *out) {
    if (scalar_call || !(f.kind == V_TYPE || (f.kind == V_NS && elementwise_path(f.path)))) return false;
    int n = call->call.args.n;
    if (n < 1 || n > 8) return false;
    Val vals[8], shape = {0};
    for (int k = 0; k < n; k++) {
        vals[k] = sema_eval(S, call->call.args.items[k]);
        if (vals[k].kind == V_ERR) return *out = val_err(), true;
        if (vals[k].kind != V_VEC) continue;
        if (shape.kind == V_VEC && !same_shape(shape, vals[k])) {
            diag_error(call->call.args.items[k]->span, QD2040, "operands have different shapes: %s and %s", shape_text(S, shape),
                       shape_text(S, vals[k]));
            return *out = val_err(), true;
        }
        shape = vals[k];
    }
    if (f.kind == V_TYPE && shape.kind == V_VEC) { /* Quadrants' _build_call_if_is_type */
        diag_error(call->span, QD2171, "A primitive type cannot decorate an expression with a compound type. (qd.%s of %s; write "
                                       "qd.cast(v, qd.%s) for each component)", qt_name(f.type), shape_text(S, shape), qt_name(f.type));
        return *out = val_err(), true;
    }
    Expr fake = *call;
    fake.call.args.items = ARENA_ARRAY(S->arena, Expr *, n);
    if (shape.kind != V_VEC) {
        for (int k = 0; k < n; k++) fake.call.args.items[k] = (Expr *)sema_val_node(S, vals[k], k, call->call.args.items[k]->span);
        return *out = call_scalar(S, &fake, f), true;
    }
    for (int k = 0; k < n; k++)
        if (vals[k].kind != V_VEC) vals[k] = stable(S, vals[k], call->span);
    Val r = vec_make(S, shape.vec.n, shape.vec.m);
    for (int c = 0; c < vec_len(r); c++) {
        for (int k = 0; k < n; k++)
            fake.call.args.items[k] = (Expr *)sema_val_node(S, vals[k].kind == V_VEC ? vals[k].vec.c[c] : vals[k], k,
                                                            call->call.args.items[k]->span);
        r.vec.c[c] = call_scalar(S, &fake, f);
        if (r.vec.c[c].kind == V_ERR) return *out = val_err(), true;
        if (!is_scalar(r.vec.c[c])) return *out = r.vec.c[c], true;
    }
    return *out = r, true;
}

/* ---- types and constructors ---- */

static QdType type_value(Sema *S, const Expr *e, bool *ok) {
    IrStmtVec *cur = S->cur;
    S->cur = NULL;
    Val v = sema_eval(S, e);
    S->cur = cur;
    if (v.kind == V_TYPE) return v.type;
    QdType py;
    if (sema_py_scalar(S, v, &py)) return py;
    if (v.kind != V_ERR) diag_error(e->span, QD2005, "expected a scalar type such as qd.f32, got %s", val_describe(v));
    *ok = false;
    return QT_VOID;
}

static Val make_type(Sema *S, const Expr *call, bool matrix);

/* A vector or matrix type annotation: a module-level alias (vec3), qd.math.vec3, or
 * qd.types.vector(...) / matrix(...) written in place. False (nothing reported) for anything
 * else; true with *n == 0 after an error in it. */
bool sema_vec_type_of(Sema *S, const Expr *ann, QdType *dt, int *n, int *m) {
    Val v = {.kind = V_ERR};
    *n = 0;
    if (ann->kind == E_NAME && !strncmp(ann->name, "$val", 4)) {
        v = S->val_slots[ann->name[4] - '0'];
        if (v.kind != V_VECTYPE) return false;
    } else if (ann->kind == E_NAME) {
        Binding *b = sema_lookup(S, ann->name); /* module level or the host function defining the kernel */
        if (b && b->v.kind == V_NS && sema_vec_alias(S, b->v.path, &v)) return *dt = v.vt.dt, *n = v.vt.n, *m = v.vt.m, true; /* from quadrants.math import ivec3 */
        if (!b || b->v.kind != V_VECTYPE) return false;
        v = b->v;
    } else {
        const char *p = sema_path(S, ann->kind == E_CALL ? ann->call.fn : ann);
        if (!p && ann->kind != E_ATTR) return false;
        if (ann->kind == E_CALL && strcmp(p, "qd.types.vector") && strcmp(p, "qd.types.matrix")) return false;
        if (ann->kind == E_ATTR && (!p || !sema_vec_alias(S, p, &v))) { /* gs.qd_vec3: a module's vector type (-D, a global) */
            Scope *saved = S->scope;
            IrStmtVec *cur = S->cur;
            S->scope = S->hscope, S->cur = NULL;
            int mark = diag_quiet_begin();
            v = sema_eval(S, ann);
            diag_quiet_end(mark);
            S->scope = saved, S->cur = cur;
            if (v.kind != V_VECTYPE) return false;
        } else if (ann->kind != E_CALL && !sema_vec_alias(S, p, &v)) return false;
        if (ann->kind == E_CALL) {
            Scope *saved = S->scope;
            IrStmtVec *cur = S->cur;
            S->scope = NULL, S->cur = NULL;
            v = make_type(S, ann, p[9] == 'm');
            S->scope = saved, S->cur = cur;
        }
    }
    if (v.kind != V_VECTYPE) return true;
    *dt = v.vt.dt == QT_VOID ? QT_F32 : v.vt.dt, *n = v.vt.n, *m = v.vt.m;
    return true;
}

/* Appends the component axes of a vector (n) or matrix (n, m) dtype to a field's shape. */
bool sema_vec_field_elem(Sema *S, IrField *f, int n, int m, Span sp) {
    (void)S;
    if (!n) return true;
    int ed = m ? 2 : 1;
    if (f->ndim + ed > IR_MAX_DIMS) return diag_error(sp, QD2004, "a field of vectors or matrices has at most %d dimensions", IR_MAX_DIMS - ed), false;
    int64_t c = m ? (int64_t)n * m : n;
    if (f->elems * c > INT32_MAX) return diag_error(sp, QD2004, "field is too large (more than 2^31-1 components)"), false;
    f->shape[f->ndim++] = n;
    if (m) f->shape[f->ndim++] = m;
    f->elems *= c, f->elem_ndim = ed;
    return true;
}

Val sema_vec_type_call(Sema *S, const Expr *call, bool matrix) { return make_type(S, call, matrix); }

static bool const_dim(Sema *S, const Expr *e, int *out, const char *what) {
    int64_t v;
    if (!sema_const_int(S, e, &v, what)) {
        return false;
    }
    if (v < 1 || v > QD_VEC_MAX) return diag_error(e->span, QD2043, "%s must be between 1 and %d, got %lld", what, QD_VEC_MAX, (long long)v), false;
    return *out = (int)v, true;
}

/* n x m components (m 0: a vector) within QD_VEC_MAX. */
static bool dims_fit(Span sp, int n, int m) {
    if (!m || (int64_t)n * m <= QD_VEC_MAX) return true;
    return diag_error(sp, QD2043, "a %d x %d matrix has %lld components; qdc supports at most %d", n, m, (long long)n * m, QD_VEC_MAX), false;
}

/* qd.types.vector(n, dtype), qd.types.matrix(n, m, dtype) */
static Val make_type(Sema *S, const Expr *call, bool matrix) {
    Val t = {.kind = V_VECTYPE};
    int want = matrix ? 3 : 2;
    const Expr *a[3] = {NULL, NULL, NULL};
    for (int k = 0; k < call->call.args.n && k < 3; k++) a[k] = call->call.args.items[k];
    for (int k = 0; k < call->call.nkw; k++) {
        const char *kw = call->call.kw[k].name;
        if (!strcmp(kw, "n")) a[0] = call->call.kw[k].value;
        else if (!strcmp(kw, "m") && matrix) a[1] = call->call.kw[k].value;
        else if (!strcmp(kw, "dtype") || !strcmp(kw, "dt")) a[want - 1] = call->call.kw[k].value;
        else if (!strcmp(kw, "unpacked")) continue;
        else return diag_error(call->call.kw[k].span, QD2007, "'%s' has no keyword argument '%s'", matrix ? "qd.types.matrix" : "qd.types.vector", kw), val_err();
    }
    if (!a[0] || (matrix && !a[1])) return diag_error(call->span, QD2007, "%s", matrix ? "qd.types.matrix takes (n, m, dtype)" : "qd.types.vector takes (n, dtype)"), val_err();
    if (!const_dim(S, a[0], &t.vt.n, "the size of a vector or matrix")) return val_err();
    if (matrix && !const_dim(S, a[1], &t.vt.m, "the size of a vector or matrix")) return val_err();
    if (!dims_fit(call->span, t.vt.n, t.vt.m)) return val_err();
    t.vt.dt = QT_VOID;
    bool ok = true;
    if (a[want - 1] && a[want - 1]->kind != E_NONE) t.vt.dt = type_value(S, a[want - 1], &ok);
    return ok ? t : val_err();
}

/* Flattens constructor arguments: scalars, vectors, matrices, lists and tuples of them. */
static bool flatten(Sema *S, Val v, Val *out, int *n, int max, Span sp) {
    if (v.kind == V_ERR) return false;
    if (v.kind == V_TUPLE) {
        for (int k = 0; k < v.tuple.n; k++)
            if (!flatten(S, v.tuple.items[k], out, n, max, sp)) return false;
        return true;
    }
    if (v.kind == V_VEC) {
        for (int k = 0; k < vec_len(v); k++)
            if (!flatten(S, v.vec.c[k], out, n, max, sp)) return false;
        return true;
    }
    if (!is_scalar(v)) return diag_error(sp, QD2042, "a vector or matrix component must be a scalar, got %s", val_describe(v)), false;
    if (*n >= max) return diag_error(sp, QD2042, "too many components (more than %d)", max), false;
    out[(*n)++] = v;
    return true;
}

/* The components, cast to dt (QT_VOID: the common type of the components), each read once. */
static Val finish(Sema *S, Val r, QdType dt, Span sp) {
    if (dt == QT_VOID) dt = vec_dtype(S, r);
    for (int k = 0; k < vec_len(r); k++) {
        IrExpr *e = rv(S, r.vec.c[k], sp);
        if (!e) return val_err();
        r.vec.c[k] = val_expr(e->type == dt ? e : irb_cast(S->arena, e, dt));
    }
    return r;
}

/* A call of a vector or matrix type: vec3(1, 2, 3), vec3(0), vec4(v3, 1.0), mat2([[1, 2], [3, 4]]). */
static Val construct(Sema *S, const Expr *call, int n, int m, QdType dt) {
    int len = m ? n * m : n, got = 0;
    Val *flat = ARENA_ARRAY(S->arena, Val, len + 1);
    for (int k = 0; k < call->call.args.n; k++)
        if (!flatten(S, sema_eval(S, call->call.args.items[k]), flat, &got, len, call->call.args.items[k]->span)) return val_err();
    if (call->call.nkw) return diag_error(call->call.kw[0].span, QD2007, "a vector or matrix type takes no keyword arguments"), val_err();
    Val r = vec_make(S, n, m);
    if (got == 1 && len > 1) {
        Val one = stable(S, flat[0], call->span);
        for (int k = 0; k < len; k++) r.vec.c[k] = one;
    } else if (got == len) {
        for (int k = 0; k < len; k++) r.vec.c[k] = flat[k];
    } else {
        diag_error(call->span, QD2042, "%s takes %d component%s (or one to fill every component), got %d",
                   m ? arena_printf(S->arena, "a %dx%d matrix", n, m) : arena_printf(S->arena, "a %d-vector", n), len,
                   len == 1 ? "" : "s", got);
        return val_err();
    }
    return finish(S, r, dt, call->span);
}

static const Expr *kwarg(const Expr *call, const char *name) {
    for (int k = 0; k < call->call.nkw; k++)
        if (!strcmp(call->call.kw[k].name, name)) return call->call.kw[k].value;
    return NULL;
}

/* qd.Vector([...], dt=None) and qd.Matrix([[...], ...], dt=None). */
static Val literal(Sema *S, const Expr *call, bool matrix) {
    const Expr *a = call->call.args.n ? call->call.args.items[0] : kwarg(call, "arr");
    const Expr *dte = call->call.args.n > 1 ? call->call.args.items[1] : kwarg(call, "dt");
    if (!dte) dte = kwarg(call, "dtype");
    if (!a) return diag_error(call->span, QD2007, "%s takes a list of components", matrix ? "qd.Matrix" : "qd.Vector"), val_err();
    QdType dt = QT_VOID;
    bool ok = true;
    if (dte && dte->kind != E_NONE) dt = type_value(S, dte, &ok);
    if (!ok) return val_err();
    Val v = sema_eval(S, a);
    if (v.kind == V_ERR) return v;
    if (v.kind == V_VEC) return finish(S, v, dt, call->span); /* qd.Vector(v): a copy */
    if (v.kind != V_TUPLE) return diag_error(a->span, QD2042, "%s takes a list of components", matrix ? "qd.Matrix" : "qd.Vector"), val_err();
    int rows = v.tuple.n, cols = 0;
    bool nested = rows && (v.tuple.items[0].kind == V_TUPLE || v.tuple.items[0].kind == V_VEC);
    if (!nested || !matrix) { /* a vector */
        Val *flat = ARENA_ARRAY(S->arena, Val, MAX_COMPONENTS);
        int got = 0;
        if (!flatten(S, v, flat, &got, MAX_COMPONENTS, a->span)) return val_err();
        if (!got) return diag_error(a->span, QD2043, "a vector needs at least one component"), val_err();
        Val r = vec_make(S, got, 0);
        for (int k = 0; k < got; k++) r.vec.c[k] = flat[k];
        return finish(S, r, dt, call->span);
    }
    for (int i = 0; i < rows; i++) {
        Val row = v.tuple.items[i];
        int c = row.kind == V_TUPLE ? row.tuple.n : row.kind == V_VEC ? vec_len(row) : -1;
        if (i == 0) cols = c;
        if (c != cols || c < 1) return diag_error(a->span, QD2042, "the rows of a matrix must be lists of the same length"), val_err();
    }
    if (rows * cols > MAX_COMPONENTS) return diag_error(a->span, QD2043, "a matrix has at most %d components", MAX_COMPONENTS), val_err();
    Val r = vec_make(S, rows, cols);
    int got = 0;
    if (!flatten(S, v, r.vec.c, &got, rows * cols, a->span)) return val_err();
    return finish(S, r, dt, call->span);
}

static Val filled(Sema *S, int n, int m, IrExpr *x) {
    Val r = vec_make(S, n, m);
    for (int k = 0; k < vec_len(r); k++) r.vec.c[k] = val_expr(x);
    return r;
}

/* qd.Matrix.diag(dim, val), identity(dt, n), zero(dt, n[, m]), one(...), qd.Vector.zero/one/unit. */
static Val factory(Sema *S, const Expr *call, const char *p) {
    const Expr *const *a = (const Expr *const *)call->call.args.items;
    int na = call->call.args.n, n, m = 0;
    bool ok = true;
    Span sp = call->span;
    if (!strcmp(p, "qd.Matrix.diag")) {
        const Expr *dv[2] = {na > 0 ? a[0] : NULL, na > 1 ? a[1] : NULL}; /* diag(dim, val), diag(dim=3, val=1.4) */
        bool kw_ok = true;
        for (int k = 0; k < call->call.nkw; k++) {
            int w = !strcmp(call->call.kw[k].name, "dim") ? 0 : !strcmp(call->call.kw[k].name, "val") ? 1 : -1;
            if (w < 0 || dv[w]) kw_ok = false;
            else dv[w] = call->call.kw[k].value;
        }
        if (na > 2 || !kw_ok || !dv[0] || !dv[1]) return diag_error(sp, QD2007, "qd.Matrix.diag takes (dim, val)"), val_err();
        if (!const_dim(S, dv[0], &n, "the size of a matrix") || !dims_fit(sp, n, n)) return val_err();
        Val v = stable(S, sema_eval(S, dv[1]), sp);
        IrExpr *d = rv(S, v, sp);
        if (!d) return val_err();
        Val r = filled(S, n, n, irb_int(S->arena, d->type, 0, sp));
        for (int k = 0; k < n; k++) r.vec.c[k * n + k] = val_expr(d);
        return r;
    }
    bool unit = !strcmp(p, "qd.Vector.unit");
    bool vector = !strncmp(p, "qd.Vector.", 10);
    int want = unit ? 2 : vector ? 2 : !strcmp(p, "qd.Matrix.identity") ? 2 : 0;
    if (unit) { /* unit(n, i, dt=f32) */
        int64_t i;
        if (na < 2 || na > 3) return diag_error(sp, QD2007, "qd.Vector.unit takes (n, i, dtype)"), val_err();
        if (!const_dim(S, a[0], &n, "the size of a vector") || !sema_const_int(S, a[1], &i, "the index of qd.Vector.unit")) return val_err();
        QdType dt = na == 3 ? type_value(S, a[2], &ok) : QT_F32;
        if (!ok) return val_err();
        Val r = filled(S, n, 0, irb_int(S->arena, dt, 0, sp));
        if (i < 0 || i >= n) return diag_error(a[1]->span, QD2042, "index %lld is out of range for a %d-vector", (long long)i, n), val_err();
        r.vec.c[i] = val_expr(irb_int(S->arena, dt, 1, sp));
        return r;
    }
    if (na < want || na < 2 || na > 3) return diag_error(sp, QD2007, "'%s' takes (dtype, n%s)", p, vector ? "" : ", m"), val_err();
    QdType dt = type_value(S, a[0], &ok);
    if (!ok || !const_dim(S, a[1], &n, "the size of a vector or matrix")) return val_err();
    if (!vector) {
        m = n;
        if (na == 3 && !const_dim(S, a[2], &m, "the size of a matrix")) return val_err();
        if (!dims_fit(sp, n, m)) return val_err();
    }
    bool one = strstr(p, ".one") != NULL, ident = strstr(p, ".identity") != NULL;
    Val r = filled(S, n, m, irb_int(S->arena, dt, one, sp));
    for (int k = 0; ident && k < n; k++) r.vec.c[k * m + k] = val_expr(irb_int(S->arena, dt, 1, sp));
    return r;
}

/* qd.math.vec2 ... mat4: Quadrants' aliases. Their dtype is qd.init's default_fp (vec, mat),
 * default_ip (ivec) or its unsigned type (uvec), as the program sets it, not f32/i32/u32: Quadrants
 * builds them at import from a reference to the default config's field, which qd.init overwrites
 * (impl.set_default_fp/ip), so they follow the last qd.init. S NULL: the defaults. */
bool sema_vec_alias(const Sema *S, const char *p, Val *out) {
    if (strncmp(p, "qd.math.", 8)) return false;
    const char *q = p + 8;
    QdType fp = S ? S->default_fp : QT_F32, ip = S ? S->default_ip : QT_I32, dt = fp;
    if (*q == 'i' || *q == 'u' || *q == 'd') dt = *q == 'i' ? ip : *q == 'u' ? (ip == QT_I64 ? QT_U64 : QT_U32) : QT_F64, q++;
    bool mat = !strncmp(q, "mat", 3);
    if (!mat && strncmp(q, "vec", 3)) return false;
    if (q[3] < '2' || q[3] > '4' || q[4]) return false;
    *out = (Val){.kind = V_VECTYPE};
    out->vt.n = q[3] - '0', out->vt.m = mat ? q[3] - '0' : 0, out->vt.dt = dt;
    return true;
}

static bool is_transform(const char *f);

bool sema_vec_path(const char *p) {
    Val t;
    return !strcmp(p, "len") || !strcmp(p, "qd.Vector") || !strcmp(p, "qd.Matrix") || !strcmp(p, "qd.types.vector") || !strcmp(p, "qd.types.matrix") ||
           !strncmp(p, "qd.Matrix.", 10) || !strncmp(p, "qd.Vector.", 10) || sema_vec_alias(NULL, p, &t) ||
           !strcmp(p, "qd.math.dot") || !strcmp(p, "qd.math.cross") || !strcmp(p, "qd.math.normalize") ||
           !strcmp(p, "qd.math.length") || !strcmp(p, "qd.math.distance") || !strcmp(p, "qd.math.mix") ||
           (!strncmp(p, "qd.math.", 8) && is_transform(p + 8)) ||
           !strcmp(p, "qd.grad") || !strncmp(p, "qd.ad.", 6) || !strcmp(p, "qd.Tape") || sema_linalg_path(p);
}

/* ---- methods ---- */

static IrExpr *sum_of(Sema *S, Val v, IrBinOp op, Span sp) {
    IrExpr *s = rv(S, v.vec.c[0], sp);
    for (int k = 1; k < vec_len(v) && s; k++) s = sema_binary(S, op, s, rv(S, v.vec.c[k], sp), sp);
    return s;
}

static IrExpr *dot(Sema *S, Val a, Val b, Span sp) {
    if (b.kind != V_VEC || a.vec.m || b.vec.m || a.vec.n != b.vec.n) {
        if (b.kind != V_ERR) diag_error(sp, QD2040, "dot needs two vectors of the same size, got %s and %s", shape_text(S, a),
                                        b.kind == V_VEC ? shape_text(S, b) : val_describe(b));
        return NULL;
    }
    Val p = sema_vec_binary(S, T_STAR, a, b, sp);
    return p.kind == V_VEC ? sum_of(S, p, IR_ADD, sp) : NULL;
}

static IrExpr *to_float(Sema *S, IrExpr *e) { return e && !qt_is_float(e->type) ? irb_cast(S->arena, e, QT_F32) : e; }

static IrExpr *sqrt_of(Sema *S, IrExpr *x, Span sp) {
    x = to_float(S, x);
    if (!x) return NULL;
    IrExpr *m = irb_new(S->arena, IR_MATH, x->type, sp);
    m->math.op = IR_SQRT, m->math.a = x;
    return m;
}

static Val cross(Sema *S, Val a, Val b, Span sp) {
    if (b.kind != V_VEC || a.vec.m || b.vec.m || a.vec.n != b.vec.n || (a.vec.n != 2 && a.vec.n != 3)) {
        if (b.kind != V_ERR) diag_error(sp, QD2040, "cross needs two 2- or 3-vectors of the same size");
        return val_err();
    }
    Val x = a, y = b;
    for (int k = 0; k < a.vec.n; k++) x.vec.c[k] = stable(S, a.vec.c[k], sp), y.vec.c[k] = stable(S, b.vec.c[k], sp);
#define MUL(i, j) sema_binop_tok(S, T_STAR, rv(S, x.vec.c[i], sp), rv(S, y.vec.c[j], sp), sp)
#define CR(i, j) val_expr(sema_binary(S, IR_SUB, MUL(i, j), MUL(j, i), sp))
    if (a.vec.n == 2) return CR(0, 1);
    Val r = vec_make(S, 3, 0);
    r.vec.c[0] = CR(1, 2), r.vec.c[1] = CR(2, 0), r.vec.c[2] = CR(0, 1);
#undef CR
#undef MUL
    return r;
}

static Val transpose(Sema *S, Val a) {
    if (!a.vec.m) { /* a vector is a column: its transpose is a 1xn matrix */
        Val r = vec_make(S, 1, a.vec.n);
        memcpy(r.vec.c, a.vec.c, sizeof(Val) * (size_t)a.vec.n);
        return r;
    }
    Val r = vec_make(S, a.vec.m, a.vec.n);
    for (int i = 0; i < a.vec.n; i++)
        for (int j = 0; j < a.vec.m; j++) r.vec.c[j * a.vec.n + i] = a.vec.c[i * a.vec.m + j];
    return r;
}

static Val scale(Sema *S, Val v, IrExpr *s, int tok, Span sp) { return sema_vec_binary(S, tok, v, val_expr(s), sp); }

/* Quadrants' 4x4 cofactor term (matrix_ops.py): E(x, y) is a[x % 4, y % 4]; row i, column j of
 * the expansion, with the sign (-1) ** (i + j) applied by the caller. */
static IrExpr *cof4(Sema *S, Val a, int i, int j, Span sp) {
#define E4(x, y) rv(S, a.vec.c[((x) % 4) * 4 + ((y) % 4)], sp)
#define M(x, y) sema_binop_tok(S, T_STAR, x, y, sp)
#define D(x, y) sema_binary(S, IR_SUB, x, y, sp)
    IrExpr *t1 = M(E4(i + 1, j + 1), D(M(E4(i + 2, j + 2), E4(i + 3, j + 3)), M(E4(i + 3, j + 2), E4(i + 2, j + 3))));
    IrExpr *t2 = M(E4(i + 2, j + 1), D(M(E4(i + 1, j + 2), E4(i + 3, j + 3)), M(E4(i + 3, j + 2), E4(i + 1, j + 3))));
    IrExpr *t3 = M(E4(i + 3, j + 1), D(M(E4(i + 1, j + 2), E4(i + 2, j + 3)), M(E4(i + 2, j + 2), E4(i + 1, j + 3))));
    return sema_binary(S, IR_ADD, D(t1, t2), t3, sp);
#undef D
#undef M
#undef E4
}

static IrExpr *det(Sema *S, Val a, Span sp) {
    int n = a.vec.n;
    if (a.vec.m != n || n > 4) { /* Quadrants' precondition dim_lt(0, 5) */
        diag_error(sp, QD2043, "determinant is supported for square matrices up to 4x4 (Quadrants: only dimension < 5 is supported), got %s",
                   shape_text(S, a));
        return NULL;
    }
#define E(i, j) rv(S, a.vec.c[(i) * n + (j)], sp)
#define M(x, y) sema_binop_tok(S, T_STAR, x, y, sp)
    if (n == 1) return E(0, 0);
    if (n == 4) { /* det = m[0, 0] * 0, then + (-1) ** i * (m[i, 0] * cofactor) for each row, as Quadrants sums it */
        IrExpr *r = M(E(0, 0), irb_int(S->arena, QT_I32, 0, sp));
        for (int i = 0; i < 4; i++) {
            IrExpr *t = M(E(i, 0), cof4(S, a, i, 0, sp));
            r = sema_binop_tok(S, T_PLUS, r, M(irb_int(S->arena, QT_I32, i % 2 ? -1 : 1, sp), t), sp);
        }
        return r;
    }
    if (n == 2) return sema_binary(S, IR_SUB, M(E(0, 0), E(1, 1)), M(E(0, 1), E(1, 0)), sp);
    IrExpr *r = NULL;
    for (int j = 0; j < 3; j++) {
        IrExpr *minor = sema_binary(S, IR_SUB, M(E(1, (j + 1) % 3), E(2, (j + 2) % 3)), M(E(1, (j + 2) % 3), E(2, (j + 1) % 3)), sp);
        IrExpr *t = M(E(0, j), minor);
        r = r ? sema_binary(S, IR_ADD, r, t, sp) : t;
    }
    return r;
}

/* Quadrants' _inverse_lu (matrix_ops.py), for 5x5 .. 12x12: Gauss elimination with partial
 * pivoting on a working copy a and an identity b, then back substitution column by column. The
 * pivot row is a run-time value: each row swap is a select per element (the rows other than
 * the pivot keep theirs), the same values Quadrants' `if pivot != k` swap moves. */
static int lu_local(Sema *S, IrExpr *init, Span sp) {
    int l = sema_new_local(S, "$lu", init->type);
    IrStmt *st = sema_stmt_new(S, IR_ASSIGN, sp);
    st->assign.local = l, st->assign.value = init;
    sema_emit(S, st);
    return l;
}

static void lu_set(Sema *S, int l, IrExpr *v, Span sp) {
    IrStmt *st = sema_stmt_new(S, IR_ASSIGN, sp);
    st->assign.local = l, st->assign.value = irb_cast(S->arena, v, S->locals.items[l].type);
    sema_emit(S, st);
}

static Val inverse_lu(Sema *S, Val m, Span sp) {
    int n = m.vec.n;
    if (!S->cur) return diag_error(sp, QD2043, "the inverse of a %dx%d matrix is computed at run time, in a kernel", n, n), val_err();
    IrExpr *first = rv(S, m.vec.c[0], sp);
    if (!first) return val_err();
    QdType t = qt_is_float(first->type) ? first->type : S->default_fp;
    int *a = ARENA_ARRAY(S->arena, int, n * n), *b = ARENA_ARRAY(S->arena, int, n * n), *inv = ARENA_ARRAY(S->arena, int, n * n);
#define L(l) sema_local(S, (l), sp)
#define C(x) irb_cast(S->arena, (x), t)
    for (int k = 0; k < n * n; k++) {
        IrExpr *e = rv(S, m.vec.c[k], sp);
        if (!e) return val_err();
        a[k] = lu_local(S, C(e), sp);
        b[k] = lu_local(S, irb_float(S->arena, t, k / n == k % n ? 1.0 : 0.0, sp), sp);
    }
    for (int k = 0; k < n; k++) {
        int pivot = lu_local(S, irb_int(S->arena, QT_I32, k, sp), sp);
        int pabs = lu_local(S, irb_math(S->arena, IR_ABS, L(a[k * n + k]), sp), sp);
        for (int p = k + 1; p < n; p++) {
            int cur = lu_local(S, irb_math(S->arena, IR_ABS, L(a[p * n + k]), sp), sp);
            int gt = lu_local(S, irb_binary(S->arena, IR_GT, L(cur), L(pabs), sp), sp); /* if cur_abs > pivot_abs: both change */
            lu_set(S, pabs, irb_select(S->arena, L(gt), L(cur), L(pabs), sp), sp);
            lu_set(S, pivot, irb_select(S->arena, L(gt), irb_int(S->arena, QT_I32, p, sp), L(pivot), sp), sp);
        }
        for (int j = 0; j < n && k + 1 < n; j++)
            for (int w = 0; w < 2; w++) {
                int *x = w ? b : a;
                int keep = lu_local(S, L(x[k * n + j]), sp);
                IrExpr *row = L(x[k * n + j]);
                for (int p = k + 1; p < n; p++)
                    row = irb_select(S->arena, irb_binary(S->arena, IR_EQ, L(pivot), irb_int(S->arena, QT_I32, p, sp), sp), L(x[p * n + j]), row, sp);
                lu_set(S, x[k * n + j], row, sp);
                for (int p = k + 1; p < n; p++)
                    lu_set(S, x[p * n + j], irb_select(S->arena, irb_binary(S->arena, IR_EQ, L(pivot), irb_int(S->arena, QT_I32, p, sp), sp), L(keep), L(x[p * n + j]), sp), sp);
            }
        for (int i = k + 1; i < n; i++) {
            int f = lu_local(S, irb_binary(S->arena, IR_DIV, L(a[i * n + k]), L(a[k * n + k]), sp), sp);
            lu_set(S, a[i * n + k], L(f), sp);
            for (int j = k + 1; j < n; j++)
                lu_set(S, a[i * n + j], irb_binary(S->arena, IR_SUB, L(a[i * n + j]), irb_binary(S->arena, IR_MUL, L(f), L(a[k * n + j]), sp), sp), sp);
            for (int j = 0; j < n; j++)
                lu_set(S, b[i * n + j], irb_binary(S->arena, IR_SUB, L(b[i * n + j]), irb_binary(S->arena, IR_MUL, L(f), L(b[k * n + j]), sp), sp), sp);
        }
    }
    Val r = vec_make(S, n, n);
    for (int col = 0; col < n; col++)
        for (int i = n - 1; i >= 0; i--) {
            int acc = lu_local(S, L(b[i * n + col]), sp);
            for (int j = i + 1; j < n; j++)
                lu_set(S, acc, irb_binary(S->arena, IR_SUB, L(acc), irb_binary(S->arena, IR_MUL, L(a[i * n + j]), L(inv[j * n + col]), sp), sp), sp);
            inv[i * n + col] = lu_local(S, irb_binary(S->arena, IR_DIV, L(acc), L(a[i * n + i]), sp), sp);
            r.vec.c[i * n + col] = (Val){.kind = V_LOCAL, .index = inv[i * n + col]};
        }
#undef C
#undef L
    return r;
}

static Val inverse(Sema *S, Val a, Span sp) {
    int n = a.vec.n;
    if (a.vec.m != n || n > 12) { /* Quadrants' preconditions: square_matrix, dim_lt(0, 13) */
        diag_error(sp, QD2043, "inverse is supported for square matrices up to 12x12 (Quadrants: only dimension < 13 is supported), got %s",
                   shape_text(S, a));
        return val_err();
    }
    if (n >= 5) return inverse_lu(S, a, sp);
    Val s = vec_make(S, n, n);
    for (int k = 0; k < n * n; k++) s.vec.c[k] = stable(S, a.vec.c[k], sp);
    a = s;
    IrExpr *d = det(S, a, sp);
    if (!d) return val_err();
    Val inv = stable(S, val_expr(sema_binop_tok(S, T_SLASH, irb_int(S->arena, QT_I32, 1, sp), d, sp)), sp);
    Val r = vec_make(S, n, n);
    if (n == 1) r.vec.c[0] = inv;
    if (n == 2) {
        r.vec.c[0] = val_expr(E(1, 1)), r.vec.c[3] = val_expr(E(0, 0));
        IrExpr *z = irb_int(S->arena, QT_I32, 0, sp);
        r.vec.c[1] = val_expr(sema_binop_tok(S, T_MINUS, z, E(0, 1), sp)), r.vec.c[2] = val_expr(sema_binop_tok(S, T_MINUS, z, E(1, 0), sp));
    }
    if (n == 4) /* Quadrants' Matrix([[(-1) ** (i + j) * cofactor(i, j) for i] for j]): row j, column i */
        for (int j = 0; j < 4; j++)
            for (int i = 0; i < 4; i++)
                r.vec.c[j * 4 + i] = val_expr(M(irb_int(S->arena, QT_I32, (i + j) % 2 ? -1 : 1, sp), cof4(S, a, i, j, sp)));
    if (n == 3) /* the adjugate: cofactor (j, i) at (i, j) */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                int r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;
                r.vec.c[i * 3 + j] = val_expr(sema_binary(S, IR_SUB, M(E(r0, c0), E(r1, c1)), M(E(r0, c1), E(r1, c0)), sp));
            }
#undef E
#undef M
    return n == 1 ? r : sema_vec_binary(S, T_STAR, r, inv, sp);
}

static Val outer(Sema *S, Val a, Val b, Span sp) {
    if (b.kind != V_VEC || a.vec.m || b.vec.m) {
        if (b.kind != V_ERR) diag_error(sp, QD2040, "outer_product needs two vectors");
        return val_err();
    }
    Val r = vec_make(S, a.vec.n, b.vec.n);
    for (int i = 0; i < a.vec.n; i++)
        for (int j = 0; j < b.vec.n; j++) {
            r.vec.c[i * b.vec.n + j] = val_expr(sema_binop_tok(S, T_STAR, rv(S, a.vec.c[i], sp), rv(S, b.vec.c[j], sp), sp));
            if (r.vec.c[i * b.vec.n + j].kind == V_ERR) return val_err();
        }
    return r;
}

static IrExpr *eps_arg(Sema *S, const Expr *call) {
    const Expr *e = call->call.args.n ? call->call.args.items[0] : kwarg(call, "eps");
    return e ? sema_expr(S, e) : NULL;
}

static Val method(Sema *S, const Expr *call, Val self, const char *name) {
    Span sp = call->span;
    Val v = self;
    const Expr *a0 = call->call.args.n ? call->call.args.items[0] : NULL;
    bool no_args = !call->call.args.n && !call->call.nkw;
    if (!strcmp(name, "get_scalar_field") && v.vec.c[0].kind == V_FIELD) { /* a component of a vector field placed later */
        int64_t ij[2] = {0, 0};
        int want = v.vec.m ? 2 : 1;
        if (call->call.args.n != want || call->call.nkw)
            return diag_error(sp, QD2007, "get_scalar_field takes %s", want == 2 ? "(row, column)" : "(component)"), val_err();
        for (int k = 0; k < want; k++) {
            if (!sema_const_int(S, call->call.args.items[k], &ij[k], "a component index")) return val_err();
            if (ij[k] < 0 || ij[k] >= (k ? v.vec.m : v.vec.n))
                return diag_error(call->call.args.items[k]->span, QD2042, "component %lld is out of range for %s", (long long)ij[k], shape_text(S, v)), val_err();
        }
        return v.vec.c[want == 2 ? ij[0] * v.vec.m + ij[1] : ij[0]];
    }
    if (!strcmp(name, "_get_dynamic_index_stride") && v.vec.c[0].kind == V_FIELD && no_args) /* Quadrants' layout query, a Python int */
        return sema_snode_dynamic_stride(S, v.vec.c, vec_len(v), sp);
    if (!strcmp(name, "dot")) return a0 ? val_expr(dot(S, v, sema_eval(S, a0), sp)) : val_err();
    if (!strcmp(name, "cross")) return a0 ? cross(S, v, sema_eval(S, a0), sp) : val_err();
    if (!strcmp(name, "outer_product")) return a0 ? outer(S, v, sema_eval(S, a0), sp) : val_err();
    if (!strcmp(name, "frobenius_inner")) {
        Val b = a0 ? sema_eval(S, a0) : val_err();
        if (b.kind != V_VEC || !same_shape(v, b)) return b.kind != V_ERR ? diag_error(sp, QD2040, "frobenius_inner needs two matrices of the same shape"), val_err() : b;
        Val p = sema_vec_binary(S, T_STAR, v, b, sp);
        return p.kind == V_VEC ? val_expr(sum_of(S, p, IR_ADD, sp)) : val_err();
    }
    if (!strcmp(name, "norm_sqr")) return val_expr(dot(S, v, v, sp));
    if (!strcmp(name, "norm") || !strcmp(name, "norm_inv") || !strcmp(name, "normalized")) {
        Val st = v;
        if (strcmp(name, "norm")) {
            st = vec_make(S, v.vec.n, v.vec.m);
            for (int k = 0; k < vec_len(v); k++) st.vec.c[k] = stable(S, v.vec.c[k], sp);
        }
        Val flat = st;
        flat.vec.n = vec_len(st), flat.vec.m = 0;
        IrExpr *s = dot(S, flat, flat, sp), *eps = eps_arg(S, call);
        if (s && eps) s = sema_binary(S, IR_ADD, s, eps, sp);
        IrExpr *n = sqrt_of(S, s, sp);
        if (!n) return val_err();
        if (!strcmp(name, "norm")) return val_expr(n);
        IrExpr *inv = sema_binop_tok(S, T_SLASH, irb_int(S->arena, QT_I32, 1, sp), n, sp);
        if (!strcmp(name, "norm_inv")) return val_expr(inv);
        return scale(S, st, inv, T_STAR, sp);
    }
    if (!no_args && strcmp(name, "fill") && strcmp(name, "cast")) return diag_error(sp, QD2007, "'%s' takes no arguments", name), val_err();
    if (!strcmp(name, "sum")) return val_expr(sum_of(S, v, IR_ADD, sp));
    if (!strcmp(name, "max")) return val_expr(sum_of(S, v, IR_MAX, sp));
    if (!strcmp(name, "min")) return val_expr(sum_of(S, v, IR_MIN, sp));
    if (!strcmp(name, "any") || !strcmp(name, "all")) {
        Val b = vec_make(S, v.vec.n, v.vec.m);
        for (int k = 0; k < vec_len(v); k++) b.vec.c[k] = val_expr(sema_to_bool(S, rv(S, v.vec.c[k], sp)));
        return val_expr(sum_of(S, b, name[1] == 'n' ? IR_LOR : IR_LAND, sp));
    }
    if (!strcmp(name, "transpose") && !v.vec.m) /* Quadrants' check_transpose */
        return diag_error(sp, QD2040, "`transpose()` cannot apply to a vector. If you want something like `a @ b.transpose()`, write "
                                      "`a.outer_product(b)` instead."), val_err();
    if (!strcmp(name, "transpose")) return transpose(S, v);
    if (!strcmp(name, "trace")) {
        if (v.vec.m != v.vec.n) return diag_error(sp, QD2040, "trace needs a square matrix, got %s (expected a square matrix, got shape (%d, %d))", shape_text(S, v),
                                               v.vec.n, v.vec.m), val_err();
        Val d = vec_make(S, v.vec.n, 0);
        for (int k = 0; k < v.vec.n; k++) d.vec.c[k] = v.vec.c[k * v.vec.n + k];
        return val_expr(sum_of(S, d, IR_ADD, sp));
    }
    if (!strcmp(name, "determinant")) return val_expr(det(S, v, sp));
    if (!strcmp(name, "inverse")) return inverse(S, v, sp);
    if (!strcmp(name, "cast")) {
        bool ok = true;
        QdType t = a0 ? type_value(S, a0, &ok) : QT_VOID;
        if (!a0) return diag_error(sp, QD2007, "cast takes a type"), val_err();
        return ok ? finish(S, v, t, sp) : val_err();
    }
    if (!strcmp(name, "fill")) {
        if (call->call.args.n != 1) return diag_error(sp, QD2007, "fill takes one value"), val_err();
        sema_vec_assign(S, v, sema_eval(S, a0), sp);
        return (Val){.kind = V_NONE};
    }
    diag_error(call->call.fn->span, QD2008, "vector method '%s' is not supported", name);
    return val_err();
}

static Val math_fn(Sema *S, const Expr *call, const char *p) {
    int n = call->call.args.n;
    Val a = n > 0 ? sema_eval(S, call->call.args.items[0]) : val_err();
    Val b = n > 1 ? sema_eval(S, call->call.args.items[1]) : val_err();
    const char *f = p + 8;
    int want = !strcmp(f, "normalize") || !strcmp(f, "length") ? 1 : !strcmp(f, "mix") ? 3 : 2;
    if (n != want) return diag_error(call->span, QD2007, "'%s' takes %d argument%s, got %d", p, want, want == 1 ? "" : "s", n), val_err();
    if (a.kind == V_ERR || (want > 1 && b.kind == V_ERR)) return val_err();
    if (!strcmp(f, "mix")) { /* x * (1 - a) + y * a */
        Val t = stable(S, sema_eval(S, call->call.args.items[2]), call->span);
        Val one_minus = t.kind == V_VEC ? sema_vec_binary(S, T_MINUS, val_expr(irb_int(S->arena, QT_I32, 1, call->span)), t, call->span)
                                        : val_expr(sema_binop_tok(S, T_MINUS, irb_int(S->arena, QT_I32, 1, call->span), rv(S, t, call->span), call->span));
        Val l = a.kind == V_VEC || one_minus.kind == V_VEC ? sema_vec_binary(S, T_STAR, a, one_minus, call->span)
                                                          : val_expr(sema_binop_tok(S, T_STAR, rv(S, a, call->span), rv(S, one_minus, call->span), call->span));
        Val r = b.kind == V_VEC || t.kind == V_VEC ? sema_vec_binary(S, T_STAR, b, t, call->span)
                                                   : val_expr(sema_binop_tok(S, T_STAR, rv(S, b, call->span), rv(S, t, call->span), call->span));
        if (l.kind == V_VEC || r.kind == V_VEC) return sema_vec_binary(S, T_PLUS, l, r, call->span);
        return val_expr(sema_binop_tok(S, T_PLUS, rv(S, l, call->span), rv(S, r, call->span), call->span));
    }
    if (a.kind != V_VEC) return diag_error(call->call.args.items[0]->span, QD2040, "'%s' needs a vector, got %s", p, val_describe(a)), val_err();
    Val self = a;
    const char *m = !strcmp(f, "normalize") ? "normalized" : !strcmp(f, "length") ? "norm" : f;
    if (!strcmp(f, "distance")) {
        self = sema_vec_binary(S, T_MINUS, a, b, call->span);
        m = "norm";
        if (self.kind == V_ERR) return self;
    }
    Expr fake = *call;
    fake.call.args.n = !strcmp(f, "dot") || !strcmp(f, "cross") ? 1 : 0;
    fake.call.args.items = call->call.args.items + 1;
    if (fake.call.args.n) {
        fake.call.args.items = ARENA_ARRAY(S->arena, Expr *, 1);
        fake.call.args.items[0] = (Expr *)sema_val_node(S, b, 1, call->call.args.items[1]->span);
    }
    return method(S, &fake, self, m);
}

/* qd.math's transform builders, as Quadrants defines them: rotation2d(ang) (2x2, counter-clockwise),
 * and the 4x4 homogeneous translate(dx, dy, dz), scale(sx, sy, sz), rot_yaw_pitch_roll(yaw, pitch,
 * roll) (about Y, then X, then Z), rotation3d(ax, ay, az) = rot_yaw_pitch_roll(az, ax, ay) and
 * rot_by_axis(axis, ang) (the axis normalized). Elements have the default float type. */
typedef struct { Sema *S; QdType t; Span sp; } Tx;
static IrExpr *tx_k(Tx *x, double v) { return irb_float(x->S->arena, x->t, v, x->sp); }
static IrExpr *tx_op(Tx *x, IrBinOp op, IrExpr *a, IrExpr *b) { return sema_binary(x->S, op, a, b, x->sp); }
static IrExpr *tx_once(Tx *x, IrExpr *e) { return e ? rv(x->S, stable(x->S, val_expr(irb_cast(x->S->arena, e, x->t)), x->sp), x->sp) : NULL; }
static IrExpr *tx_neg(Tx *x, IrExpr *a, Span sp) {
    IrExpr *u = irb_new(x->S->arena, IR_UNARY, a->type, sp);
    u->un.op = IR_NEG, u->un.a = a;
    return u;
}
static IrExpr *tx_trig(Tx *x, IrMathOp op, IrExpr *a) { return tx_once(x, irb_math(x->S->arena, op, a, x->sp)); }

static bool is_transform(const char *f) {
    return !strcmp(f, "rotation2d") || !strcmp(f, "rotation3d") || !strcmp(f, "rot_yaw_pitch_roll") || !strcmp(f, "rot_by_axis") ||
           !strcmp(f, "translate") || !strcmp(f, "scale");
}

static Val transform(Sema *S, const Expr *call, const char *p) {
    const char *f = p + 8;
    Tx x = {S, S->default_fp, call->span};
    int want = !strcmp(f, "rotation2d") ? 1 : !strcmp(f, "rot_by_axis") ? 2 : 3, n = call->call.args.n;
    if (n != want || call->call.nkw)
        return diag_error(call->span, QD2007, "'%s' takes %d argument%s, got %d", p, want, want == 1 ? "" : "s", n + call->call.nkw), val_err();
    IrExpr *a[3] = {NULL, NULL, NULL}, *ax[3] = {NULL, NULL, NULL};
    for (int i = 0; i < n; i++) {
        if (!strcmp(f, "rot_by_axis") && i == 0) {
            Val v = sema_eval(S, call->call.args.items[0]);
            if (v.kind == V_ERR) return v;
            if (v.kind != V_VEC || v.vec.m || v.vec.n != 3)
                return diag_error(call->call.args.items[0]->span, QD2040, "'%s' needs a 3-vector axis, got %s", p, val_describe(v)), val_err();
            Expr none = *call;
            none.call.args.n = 0;
            Val u = method(S, &none, v, "normalized");
            if (u.kind != V_VEC) return val_err();
            for (int k = 0; k < 3; k++) ax[k] = tx_once(&x, rv(S, u.vec.c[k], x.sp));
            continue;
        }
        a[i] = tx_once(&x, sema_expr(S, call->call.args.items[i]));
        if (!a[i]) return val_err();
    }
    IrExpr *z = tx_k(&x, 0), *one = tx_k(&x, 1), *e[16];
    if (!strcmp(f, "rotation2d")) {
        IrExpr *c = tx_trig(&x, IR_COS, a[0]), *s = tx_trig(&x, IR_SIN, a[0]);
        IrExpr *m2[4] = {c, tx_neg(&x, s, x.sp), s, c};
        Val r = vec_make(S, 2, 2);
        for (int k = 0; k < 4; k++) r.vec.c[k] = val_expr(m2[k]);
        return r;
    }
    for (int k = 0; k < 16; k++) e[k] = k % 5 == 0 ? one : z;
    if (!strcmp(f, "translate")) e[3] = a[0], e[7] = a[1], e[11] = a[2];
    else if (!strcmp(f, "scale")) e[0] = a[0], e[5] = a[1], e[10] = a[2];
    else if (!strcmp(f, "rot_by_axis")) {
        IrExpr *c = tx_trig(&x, IR_COS, a[1]), *s = tx_trig(&x, IR_SIN, a[1]), *t[3];
        IrExpr *omc = tx_once(&x, tx_op(&x, IR_SUB, one, c));
        for (int k = 0; k < 3; k++) t[k] = tx_once(&x, tx_op(&x, IR_MUL, omc, ax[k]));
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                IrExpr *v = tx_op(&x, IR_MUL, t[i], ax[j]);
                if (i == j) v = tx_op(&x, IR_ADD, c, v);
                else { /* + s * axis[k] above the diagonal of (0,1),(1,2),(2,0); - below */
                    int k = 3 - i - j;
                    bool plus = (j == (i + 1) % 3);
                    v = tx_op(&x, plus ? IR_ADD : IR_SUB, v, tx_op(&x, IR_MUL, s, ax[k]));
                }
                e[i * 4 + j] = v;
            }
    } else { /* rot_yaw_pitch_roll, rotation3d */
        bool r3 = !strcmp(f, "rotation3d");
        IrExpr *yaw = r3 ? a[2] : a[0], *pitch = r3 ? a[0] : a[1], *roll = r3 ? a[1] : a[2];
        IrExpr *ch = tx_trig(&x, IR_COS, yaw), *sh = tx_trig(&x, IR_SIN, yaw), *cp = tx_trig(&x, IR_COS, pitch);
        IrExpr *sp = tx_trig(&x, IR_SIN, pitch), *cb = tx_trig(&x, IR_COS, roll), *sb = tx_trig(&x, IR_SIN, roll);
#define M(u, v) tx_op(&x, IR_MUL, u, v)
#define M3(u, v, w) tx_op(&x, IR_MUL, tx_op(&x, IR_MUL, u, v), w)
        e[0] = tx_op(&x, IR_ADD, M(ch, cb), M3(sh, sp, sb)), e[1] = M(sb, cp);
        e[2] = tx_op(&x, IR_ADD, tx_neg(&x, M(sh, cb), x.sp), M3(ch, sp, sb));
        e[4] = tx_op(&x, IR_ADD, tx_neg(&x, M(ch, sb), x.sp), M3(sh, sp, cb)), e[5] = M(cb, cp);
        e[6] = tx_op(&x, IR_ADD, M(sb, sh), M3(ch, sp, cb));
        e[8] = M(sh, cp), e[9] = tx_neg(&x, sp, x.sp), e[10] = M(ch, cp);
#undef M
#undef M3
    }
    Val r = vec_make(S, 4, 4);
    for (int k = 0; k < 16; k++) r.vec.c[k] = val_expr(e[k]);
    return r;
}

Val sema_vec_call(Sema *S, const Expr *call, Val f) {
    if (f.kind == V_METHOD && f.method.self->kind == V_STRUCT) {
        const QdStruct *st = f.method.self->strct.st;
        for (int j = 0; j < st->nmethods; j++)
            if (!strcmp(st->methods[j]->def.name, f.method.name)) return sema_struct_method_call(S, call, *f.method.self, st->methods[j]);
    }
    if (f.kind == V_METHOD) return method(S, call, *f.method.self, f.method.name);
    if (f.kind == V_VECTYPE) return construct(S, call, f.vt.n, f.vt.m, f.vt.dt);
    const char *p = f.path;
    if (!strcmp(p, "len")) { /* len(v): rows of a vector or matrix, items of a tuple, axes of a shape */
        if (call->call.args.n != 1 || call->call.nkw) return diag_error(call->span, QD2007, "len takes 1 argument"), val_err();
        Val v = sema_eval(S, call->call.args.items[0]);
        int n = v.kind == V_VEC ? v.vec.n : v.kind == V_TUPLE ? v.tuple.n : v.kind == V_STR ? (int)strlen(v.path) : v.kind == V_DICT ? v.dict.n : v.kind == V_SHAPE ? S->params.items[v.index].ndim - S->params.items[v.index].elem_ndim : -1;
        if (n < 0 && v.kind != V_ERR) diag_error(call->call.args.items[0]->span, QD2019, "len of %s is not known at compile time", val_describe(v));
        return n < 0 ? val_err() : val_expr(irb_int(S->arena, QT_I32, n, call->span));
    }
    Val t;
    if (sema_vec_alias(S, p, &t)) return construct(S, call, t.vt.n, t.vt.m, t.vt.dt);
    if (!strcmp(p, "qd.types.vector") || !strcmp(p, "qd.types.matrix")) return make_type(S, call, p[9] == 'm');
    if (!strcmp(p, "qd.Vector") || !strcmp(p, "qd.Matrix")) return literal(S, call, p[3] == 'M');
    if (!strcmp(p, "qd.grad") || !strncmp(p, "qd.ad.", 6) || !strcmp(p, "qd.Tape")) {
        diag_error(call->span, QD2044, "'%s' is not supported in kernels: gradients are the <kernel>_grad entries qdc compiles for "
                                       "kernels that use fields with needs_grad=True (qdc-lang(7), AUTODIFF)", p);
        return val_err();
    }
    if (sema_linalg_path(p)) return sema_linalg_call(S, call, p);
    if (!strncmp(p, "qd.math.", 8) && is_transform(p + 8)) return transform(S, call, p);
    if (!strncmp(p, "qd.math.", 8)) return math_fn(S, call, p);
    static const char *const factories[] = {"qd.Matrix.diag", "qd.Matrix.identity", "qd.Matrix.zero", "qd.Matrix.one",
                                            "qd.Vector.zero", "qd.Vector.one", "qd.Vector.unit"};
    for (size_t k = 0; k < ARRAY_LEN(factories); k++)
        if (!strcmp(factories[k], p)) return factory(S, call, p);
    if (!strcmp(p, "qd.Matrix.rows") || !strcmp(p, "qd.Matrix.cols")) {
        Expr fake = *call;
        fake.call.nkw = 0;
        Val m = call->call.args.n == 1 ? literal(S, &fake, true) : (diag_error(call->span, QD2007, "'%s' takes a list of vectors", p), val_err());
        return m.kind == V_VEC && p[10] == 'c' ? transpose(S, m) : m;
    }
    if ((!strcmp(p, "qd.Vector.field") || !strcmp(p, "qd.Matrix.field")) && !S->cur && !S->kernel_def)
        return sema_field_value(S, call, p[3] == 'M' ? 2 : 1);
    if (!strcmp(p, "qd.Vector.field") || !strcmp(p, "qd.Matrix.field"))
        diag_error(call->span, QD2004, "'%s' can only be declared at module level", p);
    else
        diag_error(call->call.fn->span, QD2043, "'%s' is not supported: vectors and matrices have a size fixed at compile time "
                                                   "(dynamic-size matrices and ndarray allocation are host code)", p);
    return val_err();
}

/* ---- attributes: .x .y .z .w (and rgba, stpq) swizzles, .n, .m, methods ---- */

static int swizzle_comp(char c) {
    static const char *const sets[] = {"xyzw", "rgba", "stpq"};
    for (int s = 0; s < 3; s++)
        for (int k = 0; k < 4; k++)
            if (sets[s][k] == c) return k;
    return -1;
}

static int swizzle_group(char c) { return strchr("xyzw", c) ? 0 : strchr("rgba", c) ? 1 : strchr("stpq", c) ? 2 : -1; }

Val sema_vec_attr(Sema *S, Val o, const char *name, Span sp) {
    if (!strcmp(name, "n")) return val_expr(irb_int(S->arena, QT_I32, o.vec.n, sp));
    if (!strcmp(name, "m")) return val_expr(irb_int(S->arena, QT_I32, o.vec.m ? o.vec.m : 1, sp));
    if (!strcmp(name, "T")) return transpose(S, o);
    size_t len = strlen(name);
    bool swz = len >= 1 && len <= 4 && !o.vec.m;
    for (size_t k = 0; swz && k < len; k++) swz = swizzle_comp(name[k]) >= 0;
    for (size_t k = 1; swz && k < len; k++)
        if (swizzle_group(name[k]) != swizzle_group(name[0])) /* Quadrants makes patterns of one group only */
            return diag_error(sp, QD2042, "swizzle '%s' mixes the letter groups xyzw, rgba and stpq (a pattern uses one group)", name),
                   val_err();
    if (swz) {
        Val r = vec_make(S, (int)len, 0);
        for (size_t k = 0; k < len; k++) {
            int c = swizzle_comp(name[k]);
            if (c >= o.vec.n) { /* with Quadrants' words: its valid letters sorted, the pattern as a tuple */
                static const char *const sets[] = {"xyzw", "rgba", "stpq"};
                const char *set = sets[0];
                for (int s = 0; s < 3; s++) set = strchr(sets[s], name[k]) ? sets[s] : set;
                char valid[4];
                int nv = o.vec.n;
                memcpy(valid, set, (size_t)nv);
                for (int i = 1; i < nv; i++) /* insertion sort: at most 4 letters */
                    for (int j = i; j > 0 && valid[j - 1] > valid[j]; j--) {
                        char t = valid[j];
                        valid[j] = valid[j - 1], valid[j - 1] = t;
                    }
                StrBuf q = {0};
                sb_printf(&q, "vec%d only has attributes=(", nv);
                for (int i = 0; i < nv; i++) sb_printf(&q, "%s'%c'", i ? ", " : "", valid[i]);
                sb_puts(&q, "), got=(");
                for (size_t i = 0; i < len; i++) sb_printf(&q, "%s'%c'", i ? ", " : "", name[i]);
                sb_puts(&q, len == 1 ? ",)" : ")");
                diag_error(sp, QD2042, "component '%c' is out of range for %s (Quadrants: \"%s\")", name[k], shape_text(S, o), q.data);
                sb_free(&q);
                return val_err();
            }
            r.vec.c[k] = o.vec.c[c];
        }
        return len == 1 ? r.vec.c[0] : r;
    }
    Val m = {.kind = V_METHOD};
    m.method.self = ARENA_NEW(S->arena, Val);
    *m.method.self = o;
    m.method.name = name;
    return m;
}

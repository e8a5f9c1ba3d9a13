/* BufferView (Quadrants' quadrants.lang.buffer_view; issue 30): a sub-range [offset, offset+size)
 * of a 1-D ndarray, a V_BVIEW value. A kernel parameter `v: BufferView[dt]` is three parameters,
 * as Quadrants declares them: the ndarray v_buf (ndim 1), then the i32 scalars v_offset and
 * v_size (qdc-abi(7)); `v: BufferView` takes dt from the array a call passes. In a kernel, v[i]
 * is v_buf[offset + i], v.size, v.offset and v.shape (size,) are values, v[a:b] and
 * v.subview(off, size) are views of the same ndarray, BufferView(arr, off, size) makes one of an
 * ndarray parameter, and a view passes to a qd.func by reference. Without --debug nothing is
 * bounds-checked against the view (as Quadrants without debug=True). */
#include "sema.h"
#include <string.h>

static Val view_of(int arr, IrExpr *off, IrExpr *size) { return (Val){.kind = V_BVIEW, .bview = {arr, off, size}}; }

/* Evaluates a name of the annotation's scope without reporting anything. */
static Val quiet_eval(Sema *S, const Expr *e) {
    Scope *saved = S->scope;
    IrStmtVec *cur = S->cur;
    if (S->hscope) S->scope = S->hscope; /* annotations name things of the scope the definition is in */
    S->cur = NULL;
    int mark = diag_quiet_begin();
    Val v = sema_eval(S, e);
    diag_quiet_end(mark);
    S->scope = saved, S->cur = cur;
    return v;
}

static bool is_bview_ns(Val v) { return v.kind == V_NS && !strcmp(v.path, "qd.BufferView"); }

bool sema_bview_annotation(Sema *S, const Expr *ann, const Expr **dt) {
    if (!ann) return false;
    const Expr *base = ann->kind == E_SUBSCRIPT ? ann->sub.obj : ann;
    if (base->kind != E_NAME && base->kind != E_ATTR) return false;
    if (!is_bview_ns(quiet_eval(S, base))) return false;
    *dt = ann->kind == E_SUBSCRIPT ? ann->sub.index : NULL;
    if (*dt && (*dt)->kind == E_TUPLE) *dt = (*dt)->list.n ? (*dt)->list.items[0] : NULL; /* BufferView[dt, boundary] */
    return true;
}

/* The backing ndarray's element: a scalar, vector or matrix type. */
static bool element(Sema *S, const Expr *dt, IrParam *p) {
    int n = 0, m = 0;
    bool vec = sema_vec_type_of(S, dt, &p->type, &n, &m);
    if ((vec && !n) || (!vec && !sema_annotation_type(S, dt, &p->type))) return false;
    int edim = n ? (m ? 2 : 1) : 0;
    p->kind = IR_PARAM_NDARRAY, p->ndim = 1 + edim, p->elem_ndim = edim, p->elem_shape[0] = n, p->elem_shape[1] = m;
    return true;
}

static IrExpr *i32_param(Sema *S, const char *name, Span sp) {
    IrParam p = {.name = name, .kind = IR_PARAM_SCALAR, .type = QT_I32, .span = sp};
    vec_push(&S->params, p);
    IrExpr *e = irb_new(S->arena, IR_PARAM, QT_I32, sp);
    e->param = S->params.len - 1;
    return e;
}

/* `v: BufferView` under --instantiate 'k(v=f32[1])': the array the spec gives, as for an
 * ndarray parameter of open dtype and ndim (sema_generic_param spells the entry name). */
static bool instance_array(Sema *S, const Param *ap, IrParam *p, StrBuf *entry) {
    if (!S->qd_alias) return false;
    Expr *qd = ARENA_NEW(S->arena, Expr), *types = ARENA_NEW(S->arena, Expr), *fn = ARENA_NEW(S->arena, Expr), *ann = ARENA_NEW(S->arena, Expr);
    *qd = (Expr){.kind = E_NAME, .span = ap->annotation->span, .name = S->qd_alias};
    *types = (Expr){.kind = E_ATTR, .span = ap->annotation->span, .attr = {qd, "types"}};
    *fn = (Expr){.kind = E_ATTR, .span = ap->annotation->span, .attr = {types, "ndarray"}};
    *ann = (Expr){.kind = E_CALL, .span = ap->annotation->span};
    ann->call.fn = fn;
    Param q = *ap;
    q.annotation = ann;
    Val bound;
    return sema_generic_param(S, &q, p, &bound, entry) == GP_PARAM;
}

bool sema_bview_param(Sema *S, const Param *ap, Val host, StrBuf *entry) {
    const Expr *dt;
    if (!sema_bview_annotation(S, ap->annotation, &dt)) return false;
    IrParam p = {.name = arena_printf(S->arena, "%s_buf", ap->name), .span = ap->span};
    bool ok = true;
    if (ap->dflt) ok = false, diag_error(ap->dflt->span, QD2005, "kernel parameters cannot have default values in v1");
    else if (dt) ok = element(S, dt, &p);
    else if (host.kind == V_HOSTARRAY) sema_hostarray_param(host, &p);
    else if (S->inst >= 0 && !S->callinst) ok = instance_array(S, ap, &p, entry);
    else
        ok = false, diag_error(ap->annotation->span, QD2060, "BufferView parameter '%s' takes its dtype from the array a call "
                               "passes, and no call qdc can evaluate passes one; write BufferView[dtype]", ap->name);
    if (ok && p.ndim - p.elem_ndim != 1)
        ok = false, diag_error(ap->span, QD2005, "BufferView requires a 1D ndarray, got %d dimensions (Quadrants: \"BufferView "
                               "requires a 1D ndarray\")", p.ndim - p.elem_ndim);
    if (!ok) {
        scope_bind(S, S->scope, ap->name, val_err(), ap->span)->is_param = true;
        return true;
    }
    vec_push(&S->params, p);
    int arr = S->params.len - 1;
    IrExpr *off = i32_param(S, arena_printf(S->arena, "%s_offset", ap->name), ap->span);
    IrExpr *size = i32_param(S, arena_printf(S->arena, "%s_size", ap->name), ap->span);
    scope_bind(S, S->scope, ap->name, view_of(arr, off, size), ap->span)->is_param = true;
    return true;
}

/* An i32 offset or size from an expression (Quadrants: Expr(offset)). */
static IrExpr *count(Sema *S, const Expr *e, const char *what) {
    IrExpr *x = sema_expr(S, e);
    if (!x) return NULL;
    if (!qt_is_integral(x->type))
        return diag_error(e->span, QD2011, "a BufferView %s must be an integer, got %s", what, qt_name(x->type)), NULL;
    return irb_cast(S->arena, x, QT_I32);
}

static Val subview(Sema *S, Val o, IrExpr *off, IrExpr *size, Span sp) {
    return view_of(o.bview.arr, sema_binary(S, IR_ADD, o.bview.off, off, sp), size);
}

Val sema_bview_attr(Sema *S, Val o, const char *name, Span sp) {
    if (!strcmp(name, "size")) return val_expr(o.bview.size);
    if (!strcmp(name, "offset")) return val_expr(o.bview.off);
    if (!strcmp(name, "arr")) return (Val){.kind = V_NDARRAY, .index = o.bview.arr};
    if (!strcmp(name, "shape")) {
        Val t = {.kind = V_TUPLE, .tuple = {ARENA_NEW(S->arena, Val), 1}};
        t.tuple.items[0] = val_expr(o.bview.size);
        return t;
    }
    if (!strcmp(name, "subview")) {
        Val m = {.kind = V_METHOD};
        m.method.self = ARENA_NEW(S->arena, Val);
        *m.method.self = o;
        m.method.name = "subview";
        return m;
    }
    diag_error(sp, QD2019, "'BufferView' object has no attribute '%s' (a view has size, offset, shape and subview)", name);
    return val_err();
}

/* v[i]: the element offset + i of the ndarray; v[a:b]: a view of it. */
Val sema_bview_subscript(Sema *S, Val o, const Expr *e) {
    const Expr *ix = e->sub.index;
    if (ix->kind == E_SLICE) {
        if (ix->slice.step)
            return diag_error(ix->slice.step->span, QD2011, "BufferView slice does not support an explicit step in kernels"), val_err();
        IrExpr *lo = ix->slice.lo ? count(S, ix->slice.lo, "slice bound") : irb_int(S->arena, QT_I32, 0, ix->span);
        IrExpr *hi = ix->slice.hi ? count(S, ix->slice.hi, "slice bound") : o.bview.size;
        if (!lo || !hi) return val_err();
        return subview(S, o, lo, sema_binary(S, IR_SUB, hi, lo, ix->span), e->span);
    }
    if (ix->kind == E_TUPLE) {
        for (int k = 0; k < ix->list.n; k++)
            if (ix->list.items[k]->kind == E_SLICE)
                return diag_error(ix->span, QD2011, "BufferView only supports 1D slicing in kernels"), val_err();
        if (ix->list.n != 1)
            return diag_error(ix->span, QD2011, "a BufferView takes one index, got %d; index the element it gives (v[i][j])", ix->list.n),
                   val_err();
        ix = ix->list.items[0];
    }
    IrExpr *i = sema_expr(S, ix);
    if (!i) return val_err();
    if (!qt_is_integral(i->type))
        return diag_error(ix->span, QD2011, "array index must be an integer, got %s", qt_name(i->type)), val_err();
    if (ir_is_const(i) && qt_is_signed(i->type) && i->c.i < 0)
        return diag_error(ix->span, QD2171, "Negative indices are not supported in Quadrants kernels."), val_err();
    const IrParam *p = &S->params.items[o.bview.arr];
    IrRef *r = ARENA_NEW(S->arena, IrRef);
    r->span = e->span, r->kind = IR_REF_NDARRAY, r->type = p->type, r->index = o.bview.arr;
    r->idx = ARENA_ARRAY(S->arena, IrExpr *, IR_MAX_DIMS + 2);
    r->idx[0] = sema_binary(S, IR_ADD, irb_cast(S->arena, i, QT_I32), o.bview.off, ix->span), r->nidx = 1;
    if (p->elem_ndim) return sema_vec_ref(S, r, p->elem_shape[0], p->elem_shape[1]);
    return (Val){.kind = V_REF, .ref = r};
}

/* The arguments of BufferView(arr, offset, size) / v.subview(offset, size), by position or name. */
static bool args(Sema *S, const Expr *call, const char *const *names, int n, const Expr **out) {
    int na = call->call.args.n;
    for (int k = 0; k < n; k++) out[k] = k < na ? call->call.args.items[k] : NULL;
    for (int j = 0; j < call->call.nkw; j++) {
        int k = 0;
        while (k < n && strcmp(names[k], call->call.kw[j].name)) k++;
        if (k == n || out[k])
            return diag_error(call->call.kw[j].span, QD2007, "BufferView: unexpected keyword argument '%s'", call->call.kw[j].name), false;
        out[k] = call->call.kw[j].value;
    }
    for (int k = 0; k < n; k++)
        if (!out[k] || out[k]->kind == E_STARRED)
            return diag_error(call->span, QD2007, "BufferView: takes %d arguments (%s%s%s%s%s), got %d", n, names[0], n > 1 ? ", " : "",
                              n > 1 ? names[1] : "", n > 2 ? ", " : "", n > 2 ? names[2] : "", na + call->call.nkw), false;
    if (na > n) return diag_error(call->call.args.items[n]->span, QD2007, "BufferView: takes %d arguments, got %d", n, na), false;
    return true;
}

static Val construct(Sema *S, const Expr *call) {
    static const char *const names[] = {"arr", "offset", "size"};
    const Expr *a[3];
    if (!args(S, call, names, 3, a)) return val_err();
    Val arr = sema_eval(S, a[0]);
    if (arr.kind == V_ERR) return arr;
    if (!S->k) /* host code: the array stands for the view where a call's argument types a kernel */
        return arr.kind == V_HOSTARRAY ? arr : (Val){.kind = V_HOST, .path = "a BufferView"};
    if (arr.kind == V_BVIEW)
        return diag_error(a[0]->span, QD2019, "Cannot nest BufferView(view, ...); use view.subview(offset, size) instead"), val_err();
    if (arr.kind != V_NDARRAY)
        return diag_error(a[0]->span, QD2019, "a BufferView in a kernel views an ndarray parameter, not %s", val_describe(arr)), val_err();
    const IrParam *p = &S->params.items[arr.index];
    if (p->ndim - p->elem_ndim != 1)
        return diag_error(a[0]->span, QD2019, "BufferView requires a 1D ndarray, got '%s' with %d dimensions", p->name,
                          p->ndim - p->elem_ndim), val_err();
    IrExpr *off = count(S, a[1], "offset"), *size = count(S, a[2], "size");
    return off && size ? view_of(arr.index, off, size) : val_err();
}

bool sema_bview_takes(Val f) {
    return is_bview_ns(f) || (f.kind == V_METHOD && f.method.self->kind == V_BVIEW);
}

Val sema_bview_call(Sema *S, const Expr *call, Val f) {
    if (f.kind == V_NS) return construct(S, call);
    static const char *const names[] = {"offset", "size"};
    const Expr *a[2];
    if (!args(S, call, names, 2, a)) return val_err();
    IrExpr *off = count(S, a[0], "offset"), *size = count(S, a[1], "size");
    return off && size ? subview(S, *f.method.self, off, size, call->span) : val_err();
}

/* A host-code view, `data[8:16]` (a slice without a step of a 1-D array) or
 * `BufferView(data, 8, 8)`: the array with harr.view set (what types a kernel's parameter is the
 * array; the offset and size are run-time values); false when e is no such view. */
bool sema_bview_host(Sema *S, const Expr *e, Val *v) {
    const Expr *base = NULL;
    if (e->kind == E_SUBSCRIPT && e->sub.index->kind == E_SLICE && !e->sub.index->slice.step) base = e->sub.obj;
    else if (e->kind == E_CALL && e->call.args.n >= 1 && /* a name (BufferView, an alias) or X.BufferView: never a method */
             (e->call.fn->kind == E_NAME || (e->call.fn->kind == E_ATTR && !strcmp(e->call.fn->attr.name, "BufferView"))) &&
             is_bview_ns(quiet_eval(S, e->call.fn))) /* call, whose quiet evaluation would run a.astype(...) for nothing */
        base = e->call.args.items[0];
    if (!base) return false;
    Binding *b = base->kind == E_NAME ? sema_lookup(S, base->name) : NULL;
    if (b) *v = b->v;
    else if (!sema_host_array(S, base, v)) return false;
    if (v->kind != V_HOSTARRAY || v->harr.ndim != 1) return false;
    v->harr.view = true;
    return true;
}

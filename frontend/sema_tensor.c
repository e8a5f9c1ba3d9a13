/* Quadrants' tensor API and the arrays a generic kernel is called with:
 *  - qd.tensor(dtype, shape, backend=, layout=, needs_grad=), qd.Vector.tensor(n, dtype, shape,
 *    ...), qd.Matrix.tensor(n, m, dtype, shape, ...) in host code: Backend.FIELD declares a field
 *    (as qd.field / qd.Vector.field / qd.Matrix.field; layout= as order=), Backend.NDARRAY (the
 *    default) allocates an ndarray the script passes to kernels (V_HOSTARRAY);
 *  - qd.ndarray(dtype, shape), qd.Vector.ndarray(n, dtype, shape), qd.Matrix.ndarray(n, m,
 *    dtype, shape): their element type, number of axes and layout (V_HOSTARRAY);
 *  - ndarray parameters stored in a permuted layout: a kernel indexes and measures the canonical
 *    axes; the buffer and the shape the host passes are in storage order (qdc-abi(7)), so an
 *    index x[i, j] of a (1, 0) ndarray addresses storage element [j, i] and x.shape[0] is the
 *    storage shape's axis 1. */
#include "sema.h"
#include <string.h>

static bool kw_of(const Expr *call, const char *name, const Expr **out) {
    for (int k = 0; k < call->call.nkw; k++)
        if (!strcmp(call->call.kw[k].name, name)) return *out = call->call.kw[k].value, true;
    return false;
}

/* e evaluated in the scope host code sees, with no diagnostics; V_ERR if qdc cannot. A value
 * the script computes is not evaluated (evaluating it would report it). */
static Val quiet_eval(Sema *S, const Expr *e) {
    if (sema_is_host_expr(S, e)) return val_err();
    Scope *saved = S->scope;
    S->scope = S->hscope;
    int mark = diag_quiet_begin();
    Val v = sema_eval(S, e);
    if (diag_quiet_end(mark)) v = val_err();
    S->scope = saved;
    return v;
}

static bool quiet_int(Sema *S, const Expr *e, int64_t *out) {
    Val v = quiet_eval(S, e);
    return val_is_host_int(v) && val_host_int(v, out);
}

/* The number of axes of a shape argument: a tuple's length, 1 for an integer; -1 unknown. */
int sema_shape_ndim(Sema *S, const Expr *e) {
    if (e->kind == E_TUPLE || e->kind == E_LIST) return e->list.n;
    if (e->kind == E_CALL && e->call.fn->kind == E_NAME && !sema_lookup(S, e->call.fn->name) && e->call.args.n == 1 &&
        (!strcmp(e->call.fn->name, "tuple") || !strcmp(e->call.fn->name, "list")))
        e = e->call.args.items[0]; /* tuple(shape[a] for a in layout) */
    if (e->kind == E_COMP && !e->comp.conds.n && !e->comp.next) { /* one item per item of a sequence of known length */
        int n = sema_shape_ndim(S, e->comp.iter);
        if (n >= 0) return n;
        Val it = quiet_eval(S, e->comp.iter);
        return it.kind == V_TUPLE ? it.tuple.n : -1;
    }
    Binding *b = e->kind == E_NAME ? sema_lookup(S, e->name) : NULL;
    if (b && b->v.kind == V_TUPLE) return b->v.tuple.n;
    if (b && b->v.kind == V_EXPR) return 1;
    Val v = quiet_eval(S, e);
    if (v.kind == V_TUPLE) return v.tuple.n;
    if (v.kind == V_EXPR && qt_is_integral(v.e->type) && v.e->type != QT_U1) return 1; /* shape=n * 2 */
    return -1;
}

/* An array's element type: a qd scalar type (or a name or parametrized value bound to one),
 * Python's int and float (Quadrants' default_ip and default_fp, qd.init), or a vector or matrix
 * type. Sets out's type, en and em. */
static bool array_dtype(Sema *S, const Expr *dt, Val *out) {
    if (!dt) return false;
    Binding *b = dt->kind == E_NAME ? sema_lookup(S, dt->name) : NULL;
    out->harr.en = out->harr.em = 0;
    if (!b && dt->kind == E_NAME && !strcmp(dt->name, "int")) return out->harr.type = S->default_ip, true;
    if (!b && dt->kind == E_NAME && !strcmp(dt->name, "float")) return out->harr.type = S->default_fp, true;
    QdType t;
    int n = 0, m = 0;
    Scope *saved = S->scope;
    S->scope = S->hscope;
    int mark = diag_quiet_begin();
    bool vec = sema_vec_type_of(S, dt, &t, &n, &m);
    diag_quiet_end(mark);
    S->scope = saved;
    if (vec && n) return out->harr.type = t, out->harr.en = (signed char)n, out->harr.em = (signed char)m, true;
    Val v = quiet_eval(S, dt);
    if (v.kind != V_TYPE) return false;
    out->harr.type = v.type;
    return true;
}

/* layout=: the canonical axis at each storage level, outermost first, a permutation of the nd
 * axes (Quadrants' rule). 1: permuted (lay set); 0: None or the identity; -1: reported; -2: a
 * value only the script knows. */
static int layout_of(Sema *S, const Expr *e, int nd, const char *factory, unsigned char *lay) {
    if (!e || e->kind == E_NONE) return 0;
    if (sema_is_host_expr(S, e)) return -2;
    if (nd > IR_MAX_DIMS) return diag_error(e->span, QD2004, "%s: a layout has at most %d axes", factory, IR_MAX_DIMS), -1;
    Val v = quiet_eval(S, e);
    if (v.kind == V_NONE) return 0;
    int64_t ax[IR_MAX_DIMS + 1];
    int n = sema_const_shape(S, e, ax, IR_MAX_DIMS + 1, "layout=");
    if (n < 0) return -1;
    if (n != nd)
        return diag_error(e->span, QD2004, "%s(layout=...) has %d entr%s but the shape has %d dimension%s; they must match", factory, n,
                          n == 1 ? "y" : "ies", nd, nd == 1 ? "" : "s"), -1;
    bool seen[IR_MAX_DIMS] = {0}, permuted = false;
    for (int k = 0; k < n; k++) {
        if (ax[k] < 0 || ax[k] >= nd || seen[ax[k]]) {
            StrBuf t;
            sb_init(&t);
            for (int j = 0; j < n; j++) sb_printf(&t, "%s%lld", j ? ", " : "", (long long)ax[j]);
            diag_error(e->span, QD2004, "layout=(%s%s) is not a permutation of range(%d)", t.data, n == 1 ? "," : "", nd);
            sb_free(&t);
            return -1;
        }
        seen[ax[k]] = true, lay[k] = (unsigned char)ax[k], permuted |= ax[k] != k;
    }
    return permuted;
}

typedef enum { TB_UNKNOWN, TB_FIELD, TB_NDARRAY, TB_BAD } TensorBackend;

/* backend=: qd.Backend.FIELD / NDARRAY, or the IntEnum's value 0 / 1 (Quadrants coerces it). */
static TensorBackend backend_of(Sema *S, const Expr *e) {
    if (!e) return TB_NDARRAY; /* Quadrants' default */
    if (sema_is_host_expr(S, e)) return TB_UNKNOWN;
    Val v = quiet_eval(S, e);
    const char *p = v.kind == V_NS ? v.path : e->kind == E_ATTR ? sema_path(S, e) : NULL;
    if (p && !strcmp(p, "qd.Backend.FIELD")) return TB_FIELD;
    if (p && !strcmp(p, "qd.Backend.NDARRAY")) return TB_NDARRAY;
    if (val_is_host_int(v))
        return val_host_i64(v) == 0 ? TB_FIELD : val_host_i64(v) == 1 ? TB_NDARRAY : TB_BAD;
    return v.kind == V_ERR ? TB_UNKNOWN : TB_BAD;
}

/* The ndarray a qd.ndarray-family call allocates. `lead` positional arguments (n, or n and m)
 * come before dtype and shape. */
static bool ndarray_value(Sema *S, const Expr *call, int lead, Val *out) {
    static const char *const names[] = {"n", "m"};
    *out = (Val){.kind = V_HOSTARRAY};
    int64_t nm[2] = {0, 0};
    for (int k = 0; k < lead; k++) {
        const Expr *a = call->call.args.n > k ? call->call.args.items[k] : NULL;
        kw_of(call, names[k], &a);
        if (!a || !quiet_int(S, a, &nm[k]) || nm[k] < 1 || nm[k] > 127) return false;
    }
    const Expr *dt = call->call.args.n > lead ? call->call.args.items[lead] : NULL;
    const Expr *shape = call->call.args.n > lead + 1 ? call->call.args.items[lead + 1] : NULL;
    if (!kw_of(call, "dtype", &dt)) kw_of(call, "dt", &dt);
    kw_of(call, "shape", &shape);
    if (!array_dtype(S, dt, out) || !shape) return false;
    if (lead && out->harr.en) return false; /* qd.Vector.ndarray(3, vec2, ...) */
    if (lead) out->harr.en = (signed char)nm[0], out->harr.em = (signed char)nm[1];
    int nd = sema_shape_ndim(S, shape), edim = out->harr.en ? (out->harr.em ? 2 : 1) : 0;
    if (nd < 0 || nd + edim > IR_MAX_DIMS) return false;
    out->harr.ndim = (signed char)nd, out->harr.qd = 1;
    int64_t dims[IR_MAX_DIMS];
    int mark = diag_quiet_begin();
    int dn = sema_const_shape(S, shape, dims, IR_MAX_DIMS, "a shape");
    if (!diag_quiet_end(mark) && dn == nd && nd > 0) { /* Quadrants' messages show it (ndarray_type.py) */
        int64_t *d = ARENA_ARRAY(S->arena, int64_t, nd);
        memcpy(d, dims, sizeof(int64_t) * (size_t)nd);
        out->harr.dims = d;
    }
    const Expr *ng = NULL;
    kw_of(call, "needs_grad", &ng);
    IrExpr *ngv = ng ? sema_expr(S, ng) : NULL;
    if (ngv && ir_is_const(ngv) && !qt_is_float(ngv->type) && ngv->c.u) { /* an adjoint array (qdc-abi(7) GRADIENTS) */
        if (!qt_is_float(out->harr.type)) {
            if (!S->raises) /* Quadrants raises QuadrantsRuntimeError there */
                diag_error(ng->span, QD2152, "%s is not supported for ndarray with `needs_grad=True` or `needs_dual=True`.", qt_name(out->harr.type));
            return false;
        }
        S->ad_ndarray = true;
        out->harr.grad = true;
    }
    return true;
}

bool sema_qd_ndarray(Sema *S, const Expr *call, const char *path, Val *out) {
    if (!strcmp(path, "qd.ndarray")) return ndarray_value(S, call, 0, out);
    if (!strcmp(path, "qd.Vector.ndarray")) return ndarray_value(S, call, 1, out);
    if (!strcmp(path, "qd.Matrix.ndarray")) return ndarray_value(S, call, 2, out);
    if (!strcmp(path, "qd.linalg.SparseMatrixBuilder")) return sema_builder_new(S, call, out); /* sema_builder.c */
    return false;
}

/* NAME = qd.tensor(...) / qd.Vector.tensor(...) / qd.Matrix.tensor(...). */
static bool tensor_new(Sema *S, const Expr *target, const Expr *call, Scope *bind, Span sp) {
    const char *p = call->kind == E_CALL ? sema_path(S, call->call.fn) : NULL;
    int lead = !p ? -1 : !strcmp(p, "qd.tensor") ? 0 : !strcmp(p, "qd.Vector.tensor") ? 1 : !strcmp(p, "qd.Matrix.tensor") ? 2 : -1;
    if (lead < 0 || target->kind != E_NAME) return false;
    const char *factory = p;
    const Expr *backend = NULL, *layout = NULL;
    for (int k = 0; k < call->call.nkw; k++) { /* Quadrants' accepted keywords, checked on both backends */
        const Keyword *kw = &call->call.kw[k];
        bool ok = !strcmp(kw->name, "dtype") || !strcmp(kw->name, "shape") || !strcmp(kw->name, "backend") ||
                  !strcmp(kw->name, "needs_grad") || (lead == 0 && !strcmp(kw->name, "layout")) ||
                  (lead >= 1 && !strcmp(kw->name, "n")) || (lead == 2 && !strcmp(kw->name, "m"));
        if (!ok) {
            if (!strcmp(kw->name, "order") || !strcmp(kw->name, "layout"))
                diag_error(kw->span, QD2004, "%s(...) does not accept %s=; %s", factory, kw->name,
                           lead ? "a vector or matrix tensor has the canonical layout" : "pass layout=(...) instead");
            else
                diag_error(kw->span, QD2004, "%s() got an unexpected keyword argument '%s'; accepted: backend, dtype, %sneeds_grad, shape",
                           factory, kw->name, lead ? "" : "layout, ");
            scope_bind(S, bind, target->name, val_err(), sp);
            return true;
        }
    }
    kw_of(call, "backend", &backend), kw_of(call, "layout", &layout);
    TensorBackend be = backend_of(S, backend);
    if (be == TB_BAD) {
        diag_error(backend->span, QD2004, "backend= is not a valid qd.Backend; expected qd.Backend.FIELD or qd.Backend.NDARRAY");
        scope_bind(S, bind, target->name, val_err(), sp);
        return true;
    }
    const Expr *shape = call->call.args.n > lead + 1 ? call->call.args.items[lead + 1] : NULL;
    kw_of(call, "shape", &shape);
    int nd = shape ? sema_shape_ndim(S, shape) : -1;
    unsigned char lay[IR_MAX_DIMS];
    int permuted = 0;
    if (layout && layout->kind != E_NONE) {
        if (nd < 0) permuted = -2;
        else permuted = layout_of(S, layout, nd, factory, lay);
    }
    Val elem;
    const Expr *dt = call->call.args.n > lead ? call->call.args.items[lead] : NULL;
    kw_of(call, "dtype", &dt);
    if (permuted == 1 && array_dtype(S, dt, &elem) && elem.harr.en) {
        diag_error(layout->span, QD2004, "layout= is not supported with a vector or matrix dtype; use qd.Vector.tensor or "
                                         "qd.Matrix.tensor without layout=");
        permuted = -1;
    }
    if (permuted == -1) return scope_bind(S, bind, target->name, val_err(), sp), true;
    if (be == TB_UNKNOWN || permuted == -2) {
        sema_bind_host(S, target, be == TB_UNKNOWN ? "a tensor whose backend= only the script knows"
                                                   : "a tensor whose layout= only the script knows");
        return true;
    }
    if (be == TB_FIELD) { /* qd.field / qd.Vector.field / qd.Matrix.field, layout= as order= */
        Expr fcall = *call;
        Keyword kws[8];
        int nk = 0;
        for (int k = 0; k < call->call.nkw && nk < 7; k++) {
            const char *n = call->call.kw[k].name;
            if (strcmp(n, "backend") && strcmp(n, "layout")) kws[nk++] = call->call.kw[k]; /* needs_grad=: an adjoint field */
        }
        if (permuted == 1) {
            char *order = arena_alloc(S->arena, (size_t)nd + 1);
            for (int k = 0; k < nd; k++) order[k] = (char)('i' + lay[k]);
            order[nd] = 0;
            Expr *s = ARENA_NEW(S->arena, Expr);
            *s = (Expr){.kind = E_STR, .span = layout->span, .str = order};
            kws[nk++] = (Keyword){.name = "order", .value = s, .span = layout->span};
        }
        fcall.call.kw = kws, fcall.call.nkw = nk;
        sema_declare_field(S, target, sp, &fcall, lead);
        return true;
    }
    Val arr;
    if (!ndarray_value(S, call, lead, &arr)) { /* a dtype or shape only the script knows */
        sema_bind_host(S, target, "an ndarray whose dtype or shape only the script knows");
        return true;
    }
    if (permuted == 1) {
        unsigned char *l = arena_alloc(S->arena, IR_MAX_DIMS);
        memcpy(l, lay, IR_MAX_DIMS);
        arr.harr.layout = l;
    }
    scope_bind(S, bind, target->name, arr, sp);
    return true;
}

/* ---- array arguments ---- */

void sema_hostarray_spell(StrBuf *b, Val v) {
    if (v.harr.em) sb_printf(b, "mat%dx%d_", v.harr.en, v.harr.em);
    else if (v.harr.en) sb_printf(b, "vec%d_", v.harr.en);
    sb_printf(b, "%s_%dd", qt_name(v.harr.type), v.harr.ndim);
    if (v.harr.layout) {
        sb_puts(b, "_l");
        for (int k = 0; k < v.harr.ndim; k++) sb_printf(b, "%d", v.harr.layout[k]);
    }
}

void sema_hostarray_param(Val v, IrParam *p) {
    int edim = v.harr.en ? (v.harr.em ? 2 : 1) : 0;
    p->kind = IR_PARAM_NDARRAY, p->type = v.harr.type, p->ndim = v.harr.ndim + edim, p->elem_ndim = edim;
    p->elem_shape[0] = v.harr.en, p->elem_shape[1] = v.harr.em;
    p->permuted = v.harr.layout != NULL;
    for (int k = 0; k < IR_MAX_DIMS; k++) p->layout[k] = (unsigned char)(v.harr.layout && k < v.harr.ndim ? v.harr.layout[k] : k);
}

/* ---- permuted ndarrays ---- */

int sema_ndarray_axis(const IrParam *p, int axis) {
    if (!p->permuted) return axis;
    for (int k = 0; k < p->ndim - p->elem_ndim; k++)
        if (p->layout[k] == axis) return k;
    return axis;
}

IrExpr *sema_ndarray_shape(Sema *S, int param, int axis, Span sp) {
    IrExpr *x = irb_new(S->arena, IR_SHAPE, QT_I32, sp);
    x->shape.param = param, x->shape.axis = sema_ndarray_axis(&S->params.items[param], axis);
    return x;
}

void sema_ndarray_permute(const IrParam *p, IrExpr **idx) {
    if (!p->permuted) return;
    int nd = p->ndim - p->elem_ndim;
    IrExpr *canon[IR_MAX_DIMS];
    memcpy(canon, idx, (size_t)nd * sizeof *idx);
    for (int k = 0; k < nd; k++) idx[k] = canon[p->layout[k]];
}

/* ---- host idioms around tensors ---- */

/* _with_layout(a, layout) (quadrants._tensor, which Quadrants' own tests use): tags the ndarray
 * a, allocated at its storage shape, with layout; a kernel then sees the canonical axes. Applied
 * to a's binding; *out (if out) is the tagged array. A call that is not one, or whose arguments
 * qdc cannot evaluate, changes nothing (a's uses then stay what they were). */
static bool with_layout(Sema *S, const Expr *call, Val *out) {
    if (call->kind != E_CALL || call->call.args.n != 2 || call->call.nkw) return false;
    const Expr *fn = call->call.fn;
    Binding *fb = fn->kind == E_NAME ? sema_lookup(S, fn->name) : NULL; /* from quadrants._tensor import _with_layout */
    const char *p = fb ? (fb->v.kind == V_NS ? fb->v.path : NULL) : sema_path(S, fn);
    if (!p || strcmp(p, "qd._tensor._with_layout")) return false;
    const Expr *a = call->call.args.items[0];
    Binding *b = a->kind == E_NAME ? sema_lookup(S, a->name) : NULL;
    if (!b || b->v.kind != V_HOSTARRAY || b->v.harr.en) return false;
    unsigned char lay[IR_MAX_DIMS];
    int r = layout_of(S, call->call.args.items[1], b->v.harr.ndim, "_with_layout", lay);
    if (r == -1 && !S->raises) b->v = val_err(); /* in a raises block Python raises: a stays as it was */
    if (r == -2) b->v = (Val){.kind = V_HOST, .path = "an ndarray whose layout only the script knows"};
    if (r < 0) return false;
    unsigned char *l = NULL;
    if (r == 1) l = arena_alloc(S->arena, IR_MAX_DIMS), memcpy(l, lay, IR_MAX_DIMS);
    b->v.harr.layout = l;
    if (out) *out = b->v;
    return true;
}

/* In a block the script expects to raise (with pytest.raises(...), try), Quadrants' errors are
 * what the script tests: they are not reported, and what the statement binds is an error. */
bool sema_tensor_new(Sema *S, const Expr *target, const Expr *call, Scope *bind, Span sp) {
    int mark = S->raises ? diag_quiet_begin() : 0;
    bool r = tensor_new(S, target, call, bind, sp);
    if (S->raises && diag_quiet_end(mark)) scope_bind(S, bind, target->name, val_err(), sp);
    return r;
}

bool sema_with_layout(Sema *S, const Expr *call, Val *out) {
    int mark = S->raises ? diag_quiet_begin() : 0;
    bool r = with_layout(S, call, out);
    if (S->raises) diag_quiet_end(mark);
    return r;
}

/* qd.wrap(a) and a._unwrap(): the same tensor (Quadrants' wrapper and its bare impl are the same
 * argument to a kernel); `X if COND else Y` whose condition qdc evaluates, of such values, names
 * of arrays or fields, and None. */
bool sema_tensor_alias(Sema *S, const Expr *e, Val *out) {
    const Expr *a = NULL;
    if (e->kind == E_IFEXP) { /* later = None if kind == "none" else bias */
        int c = S->up->sema_host_cond(S, e->ifexp.cond);
        const Expr *br = c < 0 ? NULL : c ? e->ifexp.a : e->ifexp.b;
        if (br && br->kind == E_NONE) return *out = (Val){.kind = V_NONE}, true;
        if (!br || br->kind != E_NAME) return br && sema_tensor_alias(S, br, out);
        a = br;
    } else if (e->kind == E_CALL) {
        const char *p = sema_path(S, e->call.fn);
        bool wrap = p && (!strcmp(p, "qd.wrap") || !strcmp(p, "qd.Tensor") || !strcmp(p, "qd.VectorTensor") || !strcmp(p, "qd.MatrixTensor"));
        if (wrap && e->call.args.n == 1 && !e->call.nkw) a = e->call.args.items[0]; /* qd.Tensor(impl): the same array or field */
        else if (e->call.fn->kind == E_ATTR && !strcmp(e->call.fn->attr.name, "_unwrap") && !e->call.args.n) a = e->call.fn->attr.obj;
    }
    if (a && a->kind != E_NAME) return sema_tensor_alias(S, a, out); /* qd.wrap(b)._unwrap() */
    Binding *b = a ? sema_lookup(S, a->name) : NULL;
    if (!b || (b->v.kind != V_HOSTARRAY && b->v.kind != V_FIELD)) return false;
    return *out = b->v, true;
}

Val sema_host_return(Sema *S, const Expr *e) {
    if (e->kind == E_TUPLE && e->list.n) { /* return a, shape: a tuple whose arrays a, _ = f(...) unpacks */
        Val t = {.kind = V_TUPLE, .tuple = {ARENA_ARRAY(S->arena, Val, e->list.n), e->list.n}};
        bool any = false;
        for (int k = 0; k < e->list.n; k++) {
            t.tuple.items[k] = sema_host_return(S, e->list.items[k]);
            any |= t.tuple.items[k].kind != V_ERR;
        }
        return any ? t : val_err();
    }
    Binding *b = e->kind == E_NAME ? sema_lookup(S, e->name) : NULL;
    if (b && (b->v.kind == V_HOSTARRAY || b->v.kind == V_FIELD || b->v.kind == V_KERNEL || b->v.kind == V_FUNC)) return b->v; /* or `return kern` */
    Val v;
    if (!b && sema_host_array(S, e, &v)) return v;
    const char *p = e->kind == E_CALL ? sema_path(S, e->call.fn) : NULL;
    if (p && (!strcmp(p, "qd.field") || !strcmp(p, "qd.Vector.field") || !strcmp(p, "qd.Matrix.field"))) {
        Expr *t = ARENA_NEW(S->arena, Expr); /* return qd.field(...): a field named for the function's result */
        *t = (Expr){.kind = E_NAME, .span = e->span, .name = "ret"};
        sema_module_value(S, t, e, e->span);
        b = sema_lookup(S, "ret");
        if (b && (b->v.kind == V_FIELD || (b->v.kind == V_VEC && b->v.vec.c[0].kind == V_FIELD))) return b->v;
    }
    return val_err();
}

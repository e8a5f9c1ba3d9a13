/* The checks Quadrants makes when host code calls a kernel (its _func_base.py and
 * ndarray_type.py), with its wording, located at the call: too many arguments, a missing or
 * unexpected one, two values for one, an ndarray of another element type or ndim (a generic
 * kernel's: what its annotation fixes), a float passed to an integer parameter. Only what qdc knows of the arguments is checked (an array
 * bound by qd.ndarray(...), a literal or a module constant); calls in a block the script expects
 * to raise are not checked (Quadrants raises there, as the script expects). */
#include "sema.h"
#include <stdio.h>
#include <string.h>

/* A scalar type spelled qd.NAME (other spellings are not evaluated here: evaluating a name the
 * script binds would report it, and reports are made once, where a kernel uses it). */
static bool qd_type(Sema *S, const Expr *e, QdType *t) {
    const char *p = e ? sema_path(S, e) : NULL;
    return p && !strncmp(p, "qd.", 3) && (*t = qt_from_name(p + 3)) != QT_VOID;
}

/* The declared element type (QT_VOID: open) and ndim (-1: open) of an ndarray parameter; false
 * when p is not one. A generic kernel's `qd.types.ndarray(dtype=qd.f32)` fixes one of them. */
static bool array_decl(Sema *S, const Param *p, QdType *dt, int64_t *nd, int *elem) {
    const Expr *dte, *nde;
    if (S->up->sema_param_shape(S, p->annotation, &dte, &nde) != PS_ARRAY) return false;
    *nd = nde && nde->kind == E_INT ? (int64_t)nde->i : -1;
    if (!dte || !qd_type(S, dte, dt)) *dt = QT_VOID;
    QdType vdt;
    int vn = 0, vm = 0;
    *elem = 0; /* a vector or matrix element: a numpy array has 1 or 2 more (trailing) dimensions */
    if (dte && *dt == QT_VOID) {
        int mark = diag_quiet_begin(); /* reported, if at all, where the kernel is checked */
        if (S->up->sema_vec_type_of(S, dte, &vdt, &vn, &vm) && vn) *elem = vm ? 2 : 1;
        diag_quiet_end(mark);
    }
    return *dt != QT_VOID || *nd >= 0;
}

/* Argument a (v: what its name is bound to where the call is, or NULL) for parameter p, number
 * pos; S->hscope is where the kernel is defined. */
static void check_arg(Sema *S, const SemaDef *sd, const Param *p, int pos, const Expr *a, const Val *v) {
    if (!p->annotation) return;
    if (v && S->up->sema_np_strided(*v)) { /* a[:, 0]: numpy's view of every other element (_func_base.py) */
        diag_error(a->span, QD2069, "Non contiguous numpy arrays are not supported, please call np.ascontiguousarray(arr) before "
                                    "passing it into quadrants kernel.");
        return;
    }
    QdType dt, pt;
    int64_t nd;
    int elem;
    const Expr *bdt, *pdt, *pnd;
    if (S->raise_floats && S->up->sema_param_shape(S, p->annotation, &pdt, &pnd) == PS_TEMPLATE) { /* qd.init(raise_on_templated_floats=True) */
        if (a->kind == E_FLOAT || (a->kind == E_UNARY && a->un.a->kind == E_FLOAT) ||
            (v && v->kind == V_EXPR && ir_is_const(v->e) && qt_is_float(v->e->type))) /* _template_mapper_hotpath.py */
            diag_error(a->span, QD2174, "Floats not allowed as templated types. (argument '%s' of kernel '%s'; "
                                        "qd.init(raise_on_templated_floats=True))", p->name, sd->def->def.name);
        else if (v && v->kind == V_OBJECT && sd->pure) /* a fastcache kernel hashes the object's members (args_hasher.py) */
            for (int k = 0; k < v->obj->attrs.b.len; k++) {
                const Binding *m = &v->obj->attrs.b.items[k];
                if (m->v.kind != V_EXPR || !ir_is_const(m->v.e) || !qt_is_float(m->v.e->type)) continue;
                diag_error(a->span, QD2174, "Floats should not be used in template parameters. (member '%s' of the data-oriented "
                                            "object passed for '%s' of fastcache kernel '%s'; qd.init(raise_on_templated_floats=True))",
                           m->name, p->name, sd->def->def.name);
                diag_note(m->decl, "'%s' is set here", m->name);
                break;
            }
        return;
    }
    if (S->up->sema_bview_annotation(S, p->annotation, &bdt)) { /* Quadrants' _template_mapper_hotpath */
        if (v && v->kind == V_HOSTARRAY && !v->harr.view)
            diag_error(a->span, QD2069, "Argument %s expects a BufferView, got an ndarray (pass a slice of it: %s[a:b])", p->name,
                       a->kind == E_NAME ? a->name : "array");
        return;
    }
    if (v && v->kind == V_HOSTARRAY && v->harr.en && v->harr.qd && array_decl(S, p, &dt, &nd, &elem) && dt != QT_VOID) {
        if (v->harr.em) /* a Quadrants ndarray of vectors or matrices for a scalar element type (check_matched) */
            diag_error(a->span, QD2069, "Expect element type %s for argument %s, but get [Tensor (%d, %d) %s]", qt_name(dt), p->name,
                       v->harr.en, v->harr.em, qt_name(v->harr.type));
        else
            diag_error(a->span, QD2069, "Expect element type %s for argument %s, but get [Tensor (%d) %s]", qt_name(dt), p->name,
                       v->harr.en, qt_name(v->harr.type));
        return;
    }
    if (v && v->kind == V_HOSTARRAY && !v->harr.en && array_decl(S, p, &dt, &nd, &elem)) {
        /* a Quadrants ndarray: ndarray_type.py check_matched; a numpy or torch array: _template_mapper_hotpath.py */
        if (dt != QT_VOID && v->harr.type != dt && v->harr.qd)
            diag_error(a->span, QD2069, "Expect element type %s for argument %s, but get %s", qt_name(dt), p->name, qt_name(v->harr.type));
        else if (dt != QT_VOID && v->harr.type != dt)
            diag_error(a->span, QD2069, "Invalid value for argument %s - required array has dtype=%s, array with dtype=%s is provided",
                       p->name, qt_name(dt), qt_name(v->harr.type));
        else if (nd >= 0 && v->harr.ndim >= 0 && v->harr.ndim != nd + elem && v->harr.qd) {
            char shape[256] = ""; /* Python's repr of the array's shape tuple, when qdc knows it */
            for (int k = 0; v->harr.dims && k < v->harr.ndim - elem; k++)
                snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%lld", k ? ", " : " with shape (", (long long)v->harr.dims[k]);
            if (shape[0]) snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s)", v->harr.ndim - elem == 1 ? "," : "");
            diag_error(a->span, QD2069, "Invalid value for argument %s - required ndim=%lld, but %dd ndarray%s is provided", p->name,
                       (long long)nd, v->harr.ndim - elem, shape); /* the array's dimensions less the element's */
        }
        else if (nd >= 0 && v->harr.ndim >= 0 && v->harr.ndim != nd + elem && elem)
            diag_error(a->span, QD2069, "Invalid value for argument %s - required array has ndim=%lld element_dim=%d, array with %d "
                       "dimensions is provided", p->name, (long long)nd, elem, v->harr.ndim);
        else if (nd >= 0 && v->harr.ndim >= 0 && v->harr.ndim != nd && !elem)
            diag_error(a->span, QD2069, "Invalid value for argument %s - required array has ndim=%lld, array with %d dimensions is provided",
                       p->name, (long long)nd, v->harr.ndim);
        return;
    }
    if (!qd_type(S, p->annotation, &pt)) return;
    if (v && v->kind == V_PYDC) { /* a dataclass instance for a scalar parameter (Quadrants' QuadrantsRuntimeTypeError.get) */
        diag_error(a->span, QD2069, "Argument (%d,) (type=<class '__main__.%s'>) cannot be converted into required type %s", pos,
                   v->pydc.dc->cls->class_.name, qt_name(pt));
        return;
    }
    if (!qt_is_integral(pt)) return;
    bool is_float = a->kind == E_FLOAT || (a->kind == E_UNARY && a->un.a->kind == E_FLOAT) ||
                    (v && val_is_host_float(*v));
    if (is_float)
        diag_error(a->span, QD2069, "Argument (%d,) (type=<class 'float'>) cannot be converted into required type %s", pos, qt_name(pt));
}

/* Quadrants' StructType.__instancecheck__ for an instance made by another struct type: the same
 * member names in order, each of the same type. */
static bool same_struct(const QdStruct *a, const QdStruct *b) {
    if (a == b) return true;
    if (a->n != b->n) return false;
    for (int k = 0; k < a->n; k++) {
        if (strcmp(a->names[k], b->names[k]) || !a->sub[k] != !b->sub[k]) return false;
        if (a->sub[k] ? !same_struct(a->sub[k], b->sub[k]) : a->dt[k] != b->dt[k] || a->vn[k] != b->vn[k] || a->vm[k] != b->vm[k])
            return false;
    }
    return true;
}

/* str() of a Quadrants StructType: <qd.StructType a=f32, v=<...VectorType object at 0x...>, struct_methods={}>. */
static void struct_str(const QdStruct *st, char *buf, size_t cap) {
    size_t n = strlen(buf);
    snprintf(buf + n, cap - n, "<qd.StructType ");
    for (int k = 0; k < st->n; k++) {
        n = strlen(buf);
        snprintf(buf + n, cap - n, "%s=", st->names[k]);
        n = strlen(buf);
        if (st->sub[k]) struct_str(st->sub[k], buf, cap);
        else if (st->vn[k]) snprintf(buf + n, cap - n, "<quadrants.lang.matrix.%sType object at 0x...>", st->vm[k] ? "Matrix" : "Vector");
        else snprintf(buf + n, cap - n, "%s", qt_name(st->dt[k]));
        n = strlen(buf);
        snprintf(buf + n, cap - n, ", ");
    }
    n = strlen(buf);
    snprintf(buf + n, cap - n, "struct_methods={%s}>", st->nmethods ? "..." : "");
}

/* T(...) passed for a parameter annotated with another struct type U (Quadrants' _func_base.py:
 * `Argument <class 'Struct'> cannot be converted into required type U`). */
static bool struct_mismatch(Sema *S, const SemaDef *sd, Scope *caller, const Param *p, const Expr *a) {
    /* only a callee that is a name is evaluated (another, m.astype(...).copy, may not be: sema_bview.c) */
    if (a->kind != E_CALL || a->call.fn->kind != E_NAME || !p->annotation) return false;
    int mark = diag_quiet_begin();
    Val f = sema_eval(S, a->call.fn);
    S->hscope = sd->scope;
    Val t = sema_eval(S, p->annotation);
    S->hscope = caller;
    diag_quiet_end(mark);
    if (f.kind != V_STRUCTTYPE || t.kind != V_STRUCTTYPE || same_struct(f.strct.st, t.strct.st)) return false;
    char want[1024] = "";
    struct_str(t.strct.st, want, sizeof want);
    diag_error(a->span, QD2069, "Argument <class 'quadrants.lang.struct.Struct'> cannot be converted into required type %s", want);
    return true;
}

/* Checks argument a against parameter p (a generic one: against what its annotation fixes). */
static void check_one(Sema *S, const SemaDef *sd, Scope *caller, const Param *p, int pos, const Expr *a) {
    if (struct_mismatch(S, sd, caller, p, a)) return;
    Binding *b = a->kind == E_NAME ? sema_lookup(S, a->name) : NULL; /* where the call is */
    Val v = b ? b->v : val_err();
    if (!b && a->kind == E_CALL) { /* k(qd.ndarray(qd.i32, (4,))): the placeholder made in the call */
        int mark = diag_quiet_begin();
        if (!S->up->sema_host_array(S, a, &v)) v = val_err();
        diag_quiet_end(mark);
    }
    S->hscope = sd->scope; /* the annotation: where the kernel is defined */
    check_arg(S, sd, p, pos, a, b || v.kind != V_ERR ? &v : NULL);
    S->hscope = caller;
    /* whether the argument has a gradient: Quadrants passes its adjoint to the kernel's gradient
     * (_template_mapper_hotpath.py: arg.grad is not None, a tensor's requires_grad; sema_ad.c) */
    SemaDef *w = &S->defs.items[sd - S->defs.items];
    int k = (int)(p - sd->def->def.params);
    if (!w->arg_grad) w->arg_grad = ARENA_ARRAY(S->arena, unsigned char, sd->def->def.nparams + 1);
    w->arg_grad[k] |= v.kind == V_HOSTARRAY && (v.harr.qd || v.harr.torch) ? (v.harr.grad ? 1 : 2) : 4;
}

static void oob_call(Sema *S, const Expr *call, const SemaDef *sd, Scope *caller);
static void lifted_check(Sema *S, const Expr *call, int d);

void sema_check_call(Sema *S, const Expr *call, int d) {
    const SemaDef *sd = &S->defs.items[d];
    int errors = diag_error_count();
    const Stmt *def = sd->def;
    int self = sd->method ? 1 : 0, np = def->def.nparams - self, na = call->call.args.n;
    if (S->raises || np < 0) return;
    for (int k = 0; k < na; k++)
        if (call->call.args.items[k]->kind == E_STARRED) return; /* k(*args): not known here */
    if (na > np) {
        StrBuf want;
        sb_init(&want);
        for (int k = 0; k < np; k++) sb_printf(&want, "%s%s", k ? ", " : "", def->def.params[k + self].name);
        diag_error(call->call.args.items[np]->span, QD2069, "Too many arguments. Expected (%s), got %d arguments (calling kernel '%s')",
                   want.data ? want.data : "", na, def->def.name);
        sb_free(&want);
        return;
    }
    Scope *caller = S->hscope;
    S->hscope = sd->scope; /* annotations name things where the kernel is defined */
    bool *given = ARENA_ARRAY(S->arena, bool, np + 1);
    for (int k = 0; k < na; k++) given[k] = true;
    for (int j = 0; j < call->call.nkw; j++) {
        const Keyword *kw = &call->call.kw[j];
        int k = 0;
        while (k < np && strcmp(def->def.params[k + self].name, kw->name)) k++;
        if (k == np && !strcmp(kw->name, "qd_stream")) { /* every kernel takes it: the stream it is launched on */
            if (kw->value->kind != E_NONE && S->up->sema_kernel_graph(S, def))
                diag_error(kw->span, QD2069, "qd_stream is not compatible with graph=True kernels. See "
                                             "docs/source/user_guide/streams.md for details. (calling kernel '%s')", def->def.name);
            continue;
        }
        if (k == np) diag_error(kw->span, QD2069, "Unexpected argument '%s'. (calling kernel '%s')", kw->name, def->def.name);
        else if (given[k]) diag_error(kw->span, QD2069, "Multiple values for argument '%s'. (calling kernel '%s')", kw->name, def->def.name);
        else given[k] = true;
    }
    for (int k = 0; k < np; k++)
        if (!given[k] && !def->def.params[k + self].dflt) {
            diag_error(call->span, QD2069, "Missing argument '%s'. (calling kernel '%s')", def->def.params[k + self].name, def->def.name);
            diag_note(def->def.params[k + self].span, "'%s' is declared here", def->def.params[k + self].name);
        }
    S->hscope = caller;
    for (int k = 0; k < na; k++) check_one(S, sd, caller, &def->def.params[k + self], k, call->call.args.items[k]);
    for (int j = 0; j < call->call.nkw; j++)
        for (int k = 0; k < np; k++)
            if (!strcmp(def->def.params[k + self].name, call->call.kw[j].name))
                check_one(S, sd, caller, &def->def.params[k + self], k, call->call.kw[j].value);
    S->hscope = caller;
    if (sd->kernel && diag_error_count() == errors) lifted_check(S, call, d);
    if ((S->debug || S->init_debug) && sd->kernel && diag_error_count() == errors) oob_call(S, call, sd, caller);
}

/* Debug mode (--debug, qd.init(debug=True)): Quadrants checks every array and vector access when
 * it runs and raises at the first one out of bounds. A host call fixes what the compiled kernel
 * does not: its scalar arguments' values and its arrays' shapes. An access whose index these
 * values make certainly out of bounds on the call's launch (in code that always runs: the
 * kernel's top level, the loops over constant ranges around it, a do-while body, not a run-time
 * if nor after a break) is the error Quadrants raises there: QD2172 at the index, with a note at
 * the call. An index is followed as an affine form of the loops' variables, whose extremes every
 * loop reaches; anything else (a value read from memory, a qd.func's body) stays a run-time check. */

enum { OOB_VARS = 8, OOB_NAMES = 256 };

typedef struct { /* c + sum coef[k] * loop variable var[k]; ok false: not known */
    bool ok, runtime; /* runtime: depends on a scalar argument or a run-time loop's variable */
    int64_t c;
    int nv, var[OOB_VARS];
    int64_t coef[OOB_VARS];
} OobAff;

typedef enum { OB_UNKNOWN, OB_INT, OB_ARRAY, OB_VEC, OB_BVIEW } OobKind;

typedef struct {
    const char *name;
    OobKind kind;
    OobAff a;              /* OB_INT; OB_BVIEW: its size */
    int ndim, en, em;      /* OB_ARRAY: its axes and element (en x em; 0: scalar); OB_VEC: n x m (m 0: a vector) */
    const int64_t *dims;   /* OB_ARRAY */
} OobName;

typedef struct {
    Sema *S;
    const Expr *call;
    const char *kernel;
    OobName names[OOB_NAMES];
    int nn;
    int64_t lo[OOB_VARS * 2], hi[OOB_VARS * 2]; /* each loop variable's first and last value */
    bool rt[OOB_VARS * 2];
    int nvars;
    bool found; /* one error a call: Quadrants raises at the first */
} Oob;

static void oob_bind(Oob *O, const char *name, OobName v) {
    if (O->nn == OOB_NAMES) { /* full: forget the oldest binding (conservative: unknown) */
        for (int k = 0; k < O->nn; k++) O->names[k].kind = OB_UNKNOWN;
        O->nn = 0;
    }
    v.name = name;
    O->names[O->nn++] = v;
}

static const OobName *oob_find(const Oob *O, const char *name) {
    for (int k = O->nn - 1; k >= 0; k--)
        if (!strcmp(O->names[k].name, name)) return &O->names[k];
    return NULL;
}

static OobAff aff_const(int64_t c) { return (OobAff){.ok = true, .c = c}; }

static bool small(int64_t v) { return v > -((int64_t)1 << 40) && v < ((int64_t)1 << 40); }

static OobAff aff_add(OobAff a, OobAff b, int64_t sb) { /* a + sb * b */
    if (!a.ok || !b.ok) return (OobAff){0};
    a.c += sb * b.c;
    a.runtime |= b.runtime;
    for (int k = 0; k < b.nv; k++) {
        int j = 0;
        while (j < a.nv && a.var[j] != b.var[k]) j++;
        if (j == a.nv) {
            if (a.nv == OOB_VARS) return (OobAff){0};
            a.var[a.nv] = b.var[k], a.coef[a.nv++] = 0;
        }
        a.coef[j] += sb * b.coef[k];
        if (!small(a.coef[j])) return (OobAff){0};
    }
    return small(a.c) ? a : (OobAff){0};
}

static OobAff aff_scale(OobAff a, int64_t s) {
    if (!a.ok || !small(s)) return (OobAff){0};
    a.c *= s;
    for (int k = 0; k < a.nv; k++) a.coef[k] *= s;
    return a;
}

/* The least and greatest values the form takes over every loop's whole range (each reached). */
static void aff_range(const Oob *O, OobAff a, int64_t *lo, int64_t *hi) {
    *lo = *hi = a.c;
    for (int k = 0; k < a.nv; k++) {
        int64_t x = a.coef[k] * O->lo[a.var[k]], y = a.coef[k] * O->hi[a.var[k]];
        *lo += x < y ? x : y, *hi += x < y ? y : x;
    }
}

static OobAff oob_int(Oob *O, const Expr *e) {
    switch (e->kind) {
    case E_INT: return e->i < ((uint64_t)1 << 40) ? aff_const((int64_t)e->i) : (OobAff){0};
    case E_NAME: {
        const OobName *n = oob_find(O, e->name);
        return n && n->kind == OB_INT ? n->a : (OobAff){0};
    }
    case E_ATTR: { /* view.size of a BufferView */
        const OobName *n = e->attr.obj->kind == E_NAME ? oob_find(O, e->attr.obj->name) : NULL;
        return n && n->kind == OB_BVIEW && !strcmp(e->attr.name, "size") ? n->a : (OobAff){0};
    }
    case E_UNARY:
        if (e->op == T_MINUS) return aff_scale(oob_int(O, e->un.a), -1);
        if (e->op == T_PLUS) return oob_int(O, e->un.a);
        return (OobAff){0};
    case E_BINARY: {
        OobAff a = oob_int(O, e->bin.a), b = oob_int(O, e->bin.b);
        if (!a.ok || !b.ok) return (OobAff){0};
        if (e->op == T_PLUS) return aff_add(a, b, 1);
        if (e->op == T_MINUS) return aff_add(a, b, -1);
        if (e->op == T_STAR && (!a.nv || !b.nv)) {
            OobAff r = a.nv ? aff_scale(a, b.c) : aff_scale(b, a.c);
            r.runtime = a.runtime || b.runtime;
            return r;
        }
        return (OobAff){0};
    }
    default: return (OobAff){0};
    }
}

/* The index items of a subscript (false: a slice or more than fit). */
static bool oob_items(const Expr *ix, const Expr **items, int *n) {
    *n = 0;
    if (ix->kind == E_TUPLE) {
        if (ix->list.n > IR_MAX_DIMS) return false;
        for (int k = 0; k < ix->list.n; k++) items[(*n)++] = ix->list.items[k];
    } else {
        items[(*n)++] = ix;
    }
    for (int k = 0; k < *n; k++)
        if (items[k]->kind == E_SLICE || items[k]->kind == E_STARRED) return false;
    return true;
}

/* Index ix of axis `axis` (size extent) of what (a quoted name, or "an element of 'a'"); need_rt:
 * only an index that depends on a run-time value (a constant one into a kernel's vector is
 * already the checker's). */
static void oob_check(Oob *O, const Expr *ix, int axis, int64_t extent, const char *what, bool need_rt) {
    OobAff a = oob_int(O, ix);
    if (O->found || !a.ok || (need_rt && !a.runtime)) return;
    int64_t lo, hi;
    aff_range(O, a, &lo, &hi);
    if (lo >= 0 && hi < extent) return;
    long long bad = lo < 0 ? (long long)lo : (long long)hi;
    char idx[64];
    if (a.nv) snprintf(idx, sizeof idx, "index reaches %lld in its loop, out of bounds", bad);
    else snprintf(idx, sizeof idx, "index %lld is out of bounds", bad);
    diag_error(ix->span, QD2172, "%s for axis %d of %s with size %lld, and the access runs on every launch of kernel '%s' with "
                                 "this call's arguments: in debug mode Quadrants' bounds check raises there (Out of bound access)",
               idx, axis, what, (long long)extent, O->kernel);
    diag_note(O->call->span, "the call whose arguments make the index %lld", bad);
    O->found = true;
}

static const char oob_tail[] = "the access runs on every launch of kernel '%s' with this call's arguments: in debug mode "
                                "Quadrants' BufferView check raises there";

/* The form's value where every loop variable is at the end that makes `by` greatest. */
static int64_t aff_at_max_of(const Oob *O, OobAff a, OobAff by) {
    int64_t v = a.c;
    for (int k = 0; k < a.nv; k++) {
        int64_t c = 0;
        for (int j = 0; j < by.nv; j++)
            if (by.var[j] == a.var[k]) c = by.coef[j];
        v += a.coef[k] * (c >= 0 ? O->hi[a.var[k]] : O->lo[a.var[k]]);
    }
    return v;
}

/* view[ix] of a BufferView of `size` elements (Quadrants' BufferView.subscript). */
static void oob_view(Oob *O, const Expr *ix, const char *name, OobAff size) {
    OobAff a = oob_int(O, ix);
    if (O->found || !a.ok || !size.ok || size.nv) return;
    int64_t lo, hi;
    aff_range(O, a, &lo, &hi);
    if (lo >= 0 && hi < size.c) return;
    long long bad = lo < 0 ? (long long)lo : (long long)hi;
    char msg[256];
    snprintf(msg, sizeof msg, oob_tail, O->kernel);
    diag_error(ix->span, QD2172, "BufferView Out Of Range: index %s%lld of view '%s' with size %lld, and %s", a.nv ? "reaching " : "", bad,
               name, (long long)size.c, msg);
    diag_note(O->call->span, "the call whose arguments make the index %lld", bad);
    O->found = true;
}

/* A view of `size` elements at `off` in something of `len` (BufferView(arr, off, size) of a 1-d
 * ndarray, view.subview(off, size)): what Quadrants' debug check asserts (off >= 0, size >= 0,
 * off + size <= len). */
static void oob_range(Oob *O, const Expr *at, const char *what, const char *lenname, OobAff off, OobAff size, int64_t len) {
    OobAff end = aff_add(off, size, 1);
    if (O->found || !off.ok || !size.ok || !end.ok) return;
    int64_t olo, ohi, slo, shi, elo, ehi;
    aff_range(O, off, &olo, &ohi);
    aff_range(O, size, &slo, &shi);
    aff_range(O, end, &elo, &ehi);
    if (olo >= 0 && slo >= 0 && ehi <= len) return;
    OobAff by = olo < 0 ? aff_scale(off, -1) : slo < 0 ? aff_scale(size, -1) : end;
    long long o = (long long)aff_at_max_of(O, off, by), z = (long long)aff_at_max_of(O, size, by);
    char msg[256];
    snprintf(msg, sizeof msg, oob_tail, O->kernel);
    diag_error(at->span, QD2172, "%s: offset=%lld, size=%lld, %s=%lld%s, and %s", what, o, z, lenname, (long long)len,
               off.nv || size.nv ? " (in its loop)" : "", msg);
    diag_note(O->call->span, "the call whose arguments make the offset %lld and the size %lld", o, z);
    O->found = true;
}

/* BufferView(arr, off, size) / view.subview(off, size): checked, and the view it makes (kind
 * OB_UNKNOWN when e is neither). */
static OobName oob_view_call(Oob *O, const Expr *e) {
    const Expr *fn = e->call.fn;
    bool ctor = (fn->kind == E_NAME && !strcmp(fn->name, "BufferView")) || (fn->kind == E_ATTR && !strcmp(fn->attr.name, "BufferView"));
    bool sub = fn->kind == E_ATTR && !strcmp(fn->attr.name, "subview") && fn->attr.obj->kind == E_NAME;
    if ((!ctor && !sub) || e->call.nkw || e->call.args.n != 2 + ctor) return (OobName){.kind = OB_UNKNOWN};
    const Expr *base = ctor ? e->call.args.items[0] : fn->attr.obj;
    const OobName *b = base->kind == E_NAME ? oob_find(O, base->name) : NULL;
    OobAff off = oob_int(O, e->call.args.items[ctor]), size = oob_int(O, e->call.args.items[ctor + 1]);
    if (ctor && b && b->kind == OB_ARRAY && b->ndim == 1 && !b->en && b->dims)
        oob_range(O, e, "BufferView construction out of range", "ndarray length", off, size, b->dims[0]);
    else if (sub && b && b->kind == OB_BVIEW && b->a.ok && !b->a.nv)
        oob_range(O, e, "BufferView subview Out Of Range", "parent size", off, size, b->a.c);
    else
        return (OobName){.kind = OB_UNKNOWN};
    return size.ok ? (OobName){.kind = OB_BVIEW, .a = size} : (OobName){.kind = OB_UNKNOWN};
}

static void oob_subscript(Oob *O, const Expr *e) {
    const Expr *items[IR_MAX_DIMS], *inner[IR_MAX_DIMS];
    int n, ni;
    if (!oob_items(e->sub.index, items, &n)) return;
    const Expr *obj = e->sub.obj;
    char what[160];
    if (obj->kind == E_NAME) {
        const OobName *b = oob_find(O, obj->name);
        snprintf(what, sizeof what, "'%s'", obj->name);
        if (b && b->kind == OB_ARRAY && n == b->ndim && b->dims)
            for (int k = 0; k < n; k++) oob_check(O, items[k], k, b->dims[k], what, false);
        else if (b && b->kind == OB_VEC && (n == 1 || (n == 2 && b->em)))
            for (int k = 0; k < n; k++) oob_check(O, items[k], k, k ? b->em : b->en, what, true);
        else if (b && b->kind == OB_BVIEW && n == 1)
            oob_view(O, items[0], obj->name, b->a);
    } else if (obj->kind == E_SUBSCRIPT && obj->sub.obj->kind == E_NAME && oob_items(obj->sub.index, inner, &ni)) {
        const OobName *b = oob_find(O, obj->sub.obj->name); /* a[i, j][r, c]: an element of an ndarray of matrices */
        snprintf(what, sizeof what, "an element of '%s'", obj->sub.obj->name);
        if (b && b->kind == OB_ARRAY && ni == b->ndim && b->en && (n == 1 || (n == 2 && b->em)))
            for (int k = 0; k < n; k++) oob_check(O, items[k], k, k ? b->em : b->en, what, true);
    }
}

/* The subexpressions of e that are evaluated whenever e is (not the right of `and`, the branches
 * of `a if c else b`, a lambda's or comprehension's body, qd.static's compile-time argument). */
static void oob_expr(Oob *O, const Expr *e) {
    if (!e || O->found) return;
    switch (e->kind) {
    case E_SUBSCRIPT:
        oob_expr(O, e->sub.obj);
        oob_expr(O, e->sub.index);
        if (!O->found) oob_subscript(O, e);
        return;
    case E_ATTR: oob_expr(O, e->attr.obj); return;
    case E_CALL:
        if (e->call.fn->kind == E_ATTR && !strcmp(e->call.fn->attr.name, "static")) return;
        oob_expr(O, e->call.fn);
        for (int k = 0; k < e->call.args.n; k++) oob_expr(O, e->call.args.items[k]);
        for (int k = 0; k < e->call.nkw; k++) oob_expr(O, e->call.kw[k].value);
        if (!O->found) oob_view_call(O, e);
        return;
    case E_TUPLE:
    case E_LIST:
        for (int k = 0; k < e->list.n; k++) oob_expr(O, e->list.items[k]);
        return;
    case E_BOOLOP: oob_expr(O, e->list.n ? e->list.items[0] : NULL); return;
    case E_COMPARE:
        oob_expr(O, e->cmp.items.items[0]);
        oob_expr(O, e->cmp.items.items[1]);
        return;
    case E_UNARY:
    case E_STARRED: oob_expr(O, e->un.a); return;
    case E_BINARY:
        oob_expr(O, e->bin.a);
        oob_expr(O, e->bin.b);
        return;
    case E_NAMED: oob_expr(O, e->bin.b); return;
    case E_IFEXP: oob_expr(O, e->ifexp.cond); return;
    default: return;
    }
}

/* What a statement list may do to leave it early: 1 return (or raise), 2 break or continue of
 * the loop it is the body of (loop). */
static int oob_jumps(const StmtList *b, bool loop) {
    int r = 0;
    for (int k = 0; k < b->n; k++) {
        const Stmt *s = b->stmts[k];
        if (s->kind == S_RETURN || (s->kind == S_ASSERT && !s->assert_.cond)) r |= 1;
        else if ((s->kind == S_BREAK || s->kind == S_CONTINUE) && loop) r |= 2;
        else if (s->kind == S_IF) r |= oob_jumps(&s->if_.then, loop) | oob_jumps(&s->if_.els, loop);
        else if (s->kind == S_WHILE) r |= oob_jumps(&s->while_.body, false) & 1;
        else if (s->kind == S_FOR) r |= oob_jumps(&s->for_.body, false) & 1;
    }
    return r;
}

static void oob_kill(Oob *O, const Expr *t) {
    if (t->kind == E_NAME) oob_bind(O, t->name, (OobName){.kind = OB_UNKNOWN});
    else if (t->kind == E_TUPLE || t->kind == E_LIST)
        for (int k = 0; k < t->list.n; k++) oob_kill(O, t->list.items[k]);
    else if (t->kind == E_STARRED) oob_kill(O, t->un.a);
}

/* Every name a statement list may bind: not known after it (nor in a loop's later iterations). */
static void oob_kill_block(Oob *O, const StmtList *b) {
    for (int k = 0; k < b->n; k++) {
        const Stmt *s = b->stmts[k];
        switch (s->kind) {
        case S_ASSIGN:
            for (int t = 0; t < s->assign.targets.n; t++) oob_kill(O, s->assign.targets.items[t]);
            break;
        case S_ANNASSIGN: oob_kill(O, s->ann.target); break;
        case S_AUGASSIGN: oob_kill(O, s->aug.target); break;
        case S_IF:
            oob_kill_block(O, &s->if_.then);
            oob_kill_block(O, &s->if_.els);
            break;
        case S_WHILE: oob_kill_block(O, &s->while_.body); break;
        case S_FOR:
            oob_kill(O, s->for_.target);
            oob_kill_block(O, &s->for_.body);
            break;
        default: break;
        }
    }
}

/* What a kernel-local name is bound to: an integer form, or a qd.Vector([...]) / qd.Matrix([[...]])
 * of literal lists (its shape). */
static OobName oob_value(Oob *O, const Expr *v) {
    OobAff a = oob_int(O, v);
    if (a.ok) return (OobName){.kind = OB_INT, .a = a};
    if (v->kind == E_CALL) { /* checked where it was evaluated, in bounds then: this reports nothing */
        OobName view = oob_view_call(O, v);
        if (view.kind == OB_BVIEW) return view;
    }
    const Expr *fn = v->kind == E_CALL ? v->call.fn : NULL;
    if (fn && fn->kind == E_ATTR && fn->attr.obj->kind == E_NAME && (!strcmp(fn->attr.obj->name, "qd") || !strcmp(fn->attr.obj->name, "ti")) &&
        (!strcmp(fn->attr.name, "Vector") || !strcmp(fn->attr.name, "Matrix")) && v->call.args.n == 1 && !v->call.nkw) {
        const Expr *l = v->call.args.items[0];
        if ((l->kind != E_LIST && l->kind != E_TUPLE) || !l->list.n) return (OobName){.kind = OB_UNKNOWN};
        const Expr *r0 = l->list.items[0];
        bool rows = r0->kind == E_LIST || r0->kind == E_TUPLE;
        int m = rows ? r0->list.n : 0;
        for (int k = 0; k < l->list.n; k++) {
            const Expr *r = l->list.items[k];
            bool row = r->kind == E_LIST || r->kind == E_TUPLE;
            if (row != rows || (row && r->list.n != m) || r->kind == E_STARRED) return (OobName){.kind = OB_UNKNOWN};
            for (int j = 0; row && j < r->list.n; j++)
                if (r->list.items[j]->kind == E_LIST || r->list.items[j]->kind == E_TUPLE || r->list.items[j]->kind == E_STARRED)
                    return (OobName){.kind = OB_UNKNOWN};
        }
        if (rows && !strcmp(fn->attr.name, "Vector")) return (OobName){.kind = OB_UNKNOWN};
        return (OobName){.kind = OB_VEC, .en = l->list.n, .em = m};
    }
    return (OobName){.kind = OB_UNKNOWN};
}

static bool oob_block(Oob *O, const StmtList *b);

/* range(...) / qd.static(range(...)) / qd.ndrange(...) over constant bounds: the loop runs every
 * point; its variables take each value from the first to the last. */
static bool oob_for(Oob *O, const Stmt *s) {
    const Expr *it = s->for_.iter, *t = s->for_.target;
    bool stat = false;
    if (it->kind == E_CALL && it->call.fn->kind == E_ATTR && !strcmp(it->call.fn->attr.name, "static") && it->call.args.n == 1)
        it = it->call.args.items[0], stat = true;
    int nd = 0;
    int64_t first[OOB_VARS], last[OOB_VARS];
    bool ok = it->kind == E_CALL && !it->call.nkw;
    const Expr *fn = ok ? it->call.fn : NULL;
    if (ok && fn->kind == E_NAME && !strcmp(fn->name, "range") && it->call.args.n >= 1 && it->call.args.n <= 3) {
        int64_t v[3] = {0, 0, 1};
        for (int k = 0; ok && k < it->call.args.n; k++) {
            OobAff a = oob_int(O, it->call.args.items[k]);
            ok = a.ok && !a.nv;
            v[it->call.args.n == 1 ? 1 : k] = a.c;
        }
        if (ok && v[2] != 0) {
            int64_t n = v[2] > 0 ? (v[1] - v[0] + v[2] - 1) / v[2] : (v[0] - v[1] - v[2] - 1) / -v[2];
            ok = n >= 1, first[0] = v[0], last[0] = v[0] + (n - 1) * v[2], nd = 1;
        } else {
            ok = false;
        }
    } else if (ok && fn->kind == E_ATTR && !strcmp(fn->attr.name, "ndrange") && it->call.args.n >= 1 && it->call.args.n <= OOB_VARS) {
        for (int k = 0; ok && k < it->call.args.n; k++) {
            const Expr *a = it->call.args.items[k];
            OobAff lo = aff_const(0), hi;
            if (a->kind == E_TUPLE && a->list.n == 2) lo = oob_int(O, a->list.items[0]), hi = oob_int(O, a->list.items[1]);
            else hi = oob_int(O, a);
            ok = lo.ok && hi.ok && !lo.nv && !hi.nv && hi.c > lo.c;
            first[k] = lo.c, last[k] = hi.c - 1, nd++;
        }
    } else {
        ok = false;
    }
    if (ok && nd == 1) ok = t->kind == E_NAME;
    else if (ok) ok = t->kind == E_TUPLE && t->list.n == nd;
    for (int k = 0; ok && nd > 1 && k < nd; k++) ok = t->list.items[k]->kind == E_NAME;
    int j = oob_jumps(&s->for_.body, true);
    if (!ok || j || O->nvars + nd > OOB_VARS * 2) {
        oob_kill(O, t);
        oob_kill_block(O, &s->for_.body);
        return !(j & 1);
    }
    int saved = O->nvars;
    oob_kill_block(O, &s->for_.body); /* what an earlier iteration binds */
    for (int k = 0; k < nd; k++) {
        int v = O->nvars++;
        O->lo[v] = first[k] < last[k] ? first[k] : last[k], O->hi[v] = first[k] < last[k] ? last[k] : first[k];
        OobAff a = {.ok = true, .runtime = !stat, .nv = 1, .var = {v}, .coef = {1}};
        oob_bind(O, nd == 1 ? t->name : t->list.items[k]->name, (OobName){.kind = OB_INT, .a = a});
    }
    oob_block(O, &s->for_.body);
    O->nvars = saved;
    oob_kill(O, t);
    oob_kill_block(O, &s->for_.body);
    return true;
}

/* False when what follows may not run. */
static bool oob_block(Oob *O, const StmtList *b) {
    for (int k = 0; k < b->n && !O->found; k++) {
        const Stmt *s = b->stmts[k];
        switch (s->kind) {
        case S_EXPR: oob_expr(O, s->expr); break;
        case S_ASSIGN:
            oob_expr(O, s->assign.value);
            for (int t = 0; t < s->assign.targets.n; t++) {
                const Expr *x = s->assign.targets.items[t];
                if (x->kind == E_NAME) oob_bind(O, x->name, oob_value(O, s->assign.value));
                else if (x->kind == E_SUBSCRIPT) oob_expr(O, x);
                else oob_kill(O, x);
            }
            break;
        case S_ANNASSIGN:
            oob_expr(O, s->ann.value);
            if (s->ann.target->kind == E_NAME && s->ann.value) oob_bind(O, s->ann.target->name, oob_value(O, s->ann.value));
            else if (s->ann.target->kind == E_SUBSCRIPT) oob_expr(O, s->ann.target);
            else oob_kill(O, s->ann.target);
            break;
        case S_AUGASSIGN:
            oob_expr(O, s->aug.value);
            if (s->aug.target->kind == E_SUBSCRIPT) oob_expr(O, s->aug.target);
            else oob_kill(O, s->aug.target);
            break;
        case S_RETURN: oob_expr(O, s->expr); return false;
        case S_ASSERT:
            if (!s->assert_.cond) return false;
            oob_expr(O, s->assert_.cond);
            break;
        case S_PASS: break;
        case S_IF:
            if (!s->if_.with && !s->if_.raises) oob_expr(O, s->if_.cond);
            oob_kill_block(O, &s->if_.then);
            oob_kill_block(O, &s->if_.els);
            if (oob_jumps(&s->if_.then, true) || oob_jumps(&s->if_.els, true)) return false;
            break;
        case S_WHILE: {
            const Expr *c = s->while_.cond;
            bool dowhile = c->kind == E_CALL && c->call.fn->kind == E_ATTR && !strcmp(c->call.fn->attr.name, "do_while");
            if (dowhile) oob_block(O, &s->while_.body); /* qd.graph.do_while: its body runs at least once */
            else oob_expr(O, c);
            oob_kill_block(O, &s->while_.body);
            if (oob_jumps(&s->while_.body, false) & 1) return false;
            break;
        }
        case S_FOR:
            if (!oob_for(O, s)) return false;
            break;
        default: return false;
        }
    }
    return !O->found;
}

/* A scalar argument's value: a literal, its negation, or a name bound to a compile-time int. */
static bool oob_arg_int(Sema *S, const Expr *a, int64_t *v) {
    if (a->kind == E_INT) return a->i < ((uint64_t)1 << 40) && (*v = (int64_t)a->i, true);
    if (a->kind == E_UNARY && a->op == T_MINUS && a->un.a->kind == E_INT) return a->un.a->i < ((uint64_t)1 << 40) && (*v = -(int64_t)a->un.a->i, true);
    Binding *b = a->kind == E_NAME ? sema_lookup(S, a->name) : NULL;
    return b && val_is_host_int(b->v) && (*v = val_host_i64(b->v), small(*v));
}

/* The size of a host view of a 1-d Quadrants ndarray of known length: data[lo:hi] (Python's slice
 * rules, as BufferView.__getitem__ applies them) or BufferView(data, offset, size). */
static bool oob_host_view(Sema *S, const Expr *a, int64_t *size) {
    const Expr *base = a->kind == E_SUBSCRIPT ? a->sub.obj : a->kind == E_CALL && a->call.args.n == 3 && !a->call.nkw ? a->call.args.items[0] : NULL;
    Binding *b = base && base->kind == E_NAME ? sema_lookup(S, base->name) : NULL;
    if (!b || b->v.kind != V_HOSTARRAY || !b->v.harr.qd || b->v.harr.ndim != 1 || !b->v.harr.dims || b->v.harr.en) return false;
    int64_t len = b->v.harr.dims[0];
    if (a->kind == E_CALL) {
        const Expr *fn = a->call.fn;
        int64_t off;
        if (!((fn->kind == E_NAME && !strcmp(fn->name, "BufferView")) || (fn->kind == E_ATTR && !strcmp(fn->attr.name, "BufferView"))))
            return false;
        return oob_arg_int(S, a->call.args.items[1], &off) && oob_arg_int(S, a->call.args.items[2], size) && off >= 0 && *size >= 0 &&
               off + *size <= len; /* else Quadrants' host ValueError, not this check */
    }
    const Expr *sl = a->sub.index;
    if (sl->kind != E_SLICE || sl->slice.step) return false;
    int64_t lo = 0, hi = len;
    if ((sl->slice.lo && !oob_arg_int(S, sl->slice.lo, &lo)) || (sl->slice.hi && !oob_arg_int(S, sl->slice.hi, &hi))) return false;
    lo = lo < 0 ? (lo + len < 0 ? 0 : lo + len) : lo > len ? len : lo;
    hi = hi < 0 ? (hi + len < 0 ? 0 : hi + len) : hi > len ? len : hi;
    *size = hi > lo ? hi - lo : 0;
    return true;
}

static void oob_call(Sema *S, const Expr *call, const SemaDef *sd, Scope *caller) {
    const Stmt *def = sd->def;
    int self = sd->method ? 1 : 0, np = def->def.nparams - self;
    Oob *O = xcalloc(1, sizeof *O);
    O->S = S, O->call = call, O->kernel = def->def.name;
    for (int k = 0; k < np; k++) {
        const Param *p = &def->def.params[k + self];
        const Expr *a = k < call->call.args.n ? call->call.args.items[k] : NULL;
        for (int j = 0; j < call->call.nkw; j++)
            if (!strcmp(call->call.kw[j].name, p->name)) a = call->call.kw[j].value;
        OobName n = {.kind = OB_UNKNOWN};
        if (a && p->annotation) {
            S->hscope = sd->scope;
            QdType pt, dt;
            int64_t nd, v;
            int elem;
            const Expr *bdt;
            bool view = S->up->sema_bview_annotation(S, p->annotation, &bdt);
            bool scalar = !view && qd_type(S, p->annotation, &pt) && qt_is_integral(pt) && pt != QT_U1;
            bool array = !view && !scalar && array_decl(S, p, &dt, &nd, &elem);
            if (!view && !scalar && !array) { /* qd.types.ndarray() / NDArray: open element type and ndim */
                const Expr *dte, *nde;
                array = S->up->sema_param_shape(S, p->annotation, &dte, &nde) == PS_ARRAY && !dte;
                elem = 0;
            }
            S->hscope = caller;
            if (scalar && oob_arg_int(S, a, &v)) {
                n = (OobName){.kind = OB_INT, .a = {.ok = true, .runtime = true, .c = v}};
            } else if (view && oob_host_view(S, a, &v)) {
                n = (OobName){.kind = OB_BVIEW, .a = {.ok = true, .runtime = true, .c = v}};
            } else if (array) {
                Binding *b = a->kind == E_NAME ? sema_lookup(S, a->name) : NULL;
                Val hv = b ? b->v : val_err();
                if (!b && a->kind == E_CALL) {
                    int mark = diag_quiet_begin();
                    if (!S->up->sema_host_array(S, a, &hv)) hv = val_err();
                    diag_quiet_end(mark);
                }
                if (hv.kind == V_HOSTARRAY && !hv.harr.view && hv.harr.qd && hv.harr.dims && hv.harr.ndim > 0)
                    n = (OobName){.kind = OB_ARRAY, .ndim = hv.harr.ndim, .dims = hv.harr.dims, .en = hv.harr.en, .em = hv.harr.em};
                else if (hv.kind == V_HOSTARRAY && !hv.harr.view && !hv.harr.qd && hv.harr.shape && !elem && hv.harr.ndim > 0)
                    n = (OobName){.kind = OB_ARRAY, .ndim = hv.harr.ndim, .dims = hv.harr.shape};
            }
        }
        oob_bind(O, p->name, n);
    }
    S->hscope = caller;
    oob_block(O, &def->def.body);
    free(O);
}

/* e reads NAME.member (any depth of e; a lambda's or comprehension's body included). */
static bool reads_member(const Expr *e, const char *name, const char *member) {
    if (!e) return false;
    switch (e->kind) {
    case E_ATTR:
        return (e->attr.obj->kind == E_NAME && !strcmp(e->attr.obj->name, name) && !strcmp(e->attr.name, member)) ||
               reads_member(e->attr.obj, name, member);
    case E_CALL:
        if (reads_member(e->call.fn, name, member)) return true;
        for (int k = 0; k < e->call.args.n; k++)
            if (reads_member(e->call.args.items[k], name, member)) return true;
        for (int k = 0; k < e->call.nkw; k++)
            if (reads_member(e->call.kw[k].value, name, member)) return true;
        return false;
    case E_SUBSCRIPT: return reads_member(e->sub.obj, name, member) || reads_member(e->sub.index, name, member);
    case E_TUPLE:
    case E_LIST:
    case E_BOOLOP:
        for (int k = 0; k < e->list.n; k++)
            if (reads_member(e->list.items[k], name, member)) return true;
        return false;
    case E_COMPARE:
        for (int k = 0; k < e->cmp.items.n; k++)
            if (reads_member(e->cmp.items.items[k], name, member)) return true;
        return false;
    case E_UNARY:
    case E_STARRED: return reads_member(e->un.a, name, member);
    case E_BINARY:
    case E_NAMED: return reads_member(e->bin.a, name, member) || reads_member(e->bin.b, name, member);
    case E_IFEXP: return reads_member(e->ifexp.cond, name, member) || reads_member(e->ifexp.a, name, member) || reads_member(e->ifexp.b, name, member);
    case E_SLICE: return reads_member(e->slice.lo, name, member) || reads_member(e->slice.hi, name, member) || reads_member(e->slice.step, name, member);
    case E_COMP: return reads_member(e->comp.elt, name, member) || reads_member(e->comp.iter, name, member);
    default: return false;
    }
}

static bool block_reads_member(const StmtList *b, const char *name, const char *member) {
    for (int k = 0; k < b->n; k++) {
        const Stmt *s = b->stmts[k];
        bool r = false;
        switch (s->kind) {
        case S_EXPR:
        case S_RETURN: r = reads_member(s->expr, name, member); break;
        case S_ASSIGN:
            r = reads_member(s->assign.value, name, member);
            for (int t = 0; t < s->assign.targets.n && !r; t++) r = reads_member(s->assign.targets.items[t], name, member);
            break;
        case S_ANNASSIGN: r = reads_member(s->ann.value, name, member) || reads_member(s->ann.target, name, member); break;
        case S_AUGASSIGN: r = reads_member(s->aug.value, name, member) || reads_member(s->aug.target, name, member); break;
        case S_IF:
            r = reads_member(s->if_.cond, name, member) || block_reads_member(&s->if_.then, name, member) ||
                block_reads_member(&s->if_.els, name, member);
            break;
        case S_WHILE: r = reads_member(s->while_.cond, name, member) || block_reads_member(&s->while_.body, name, member); break;
        case S_FOR: r = reads_member(s->for_.iter, name, member) || block_reads_member(&s->for_.body, name, member); break;
        case S_ASSERT: r = reads_member(s->assert_.cond, name, member) || reads_member(s->assert_.msg, name, member); break;
        default: break;
        }
        if (r) return true;
    }
    return false;
}

/* Python's repr() of a float (the shortest digits that read back, with a ".0" when integral). */
static void float_repr(double f, char *buf, size_t cap) {
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, f);
        if (strtod(buf, NULL) == f) break;
    }
    if (!strpbrk(buf, ".eni")) snprintf(buf + strlen(buf), cap - strlen(buf), ".0");
}

/* A template parameter given an object of a @qd.data_oriented(template_primitives=False) class:
 * each primitive member the kernel reads (NAME.member in its body) is a run-time argument whose kind
 * (integer or float) the first launch fixes; a later launch whose member is now a float where it
 * was an integer raises in Quadrants (kernel.py's TypeError: "coercing it would truncate"). */
static void lifted_check(Sema *S, const Expr *call, int d) {
    const SemaDef *sd = &S->defs.items[d];
    const Stmt *def = sd->def;
    int self = sd->method ? 1 : 0, np = def->def.nparams - self;
    for (int k = 0; k < np; k++) {
        const Param *p = &def->def.params[k + self];
        const Expr *a = k < call->call.args.n ? call->call.args.items[k] : NULL, *dt, *nd;
        for (int j = 0; j < call->call.nkw; j++)
            if (!strcmp(call->call.kw[j].name, p->name)) a = call->call.kw[j].value;
        Binding *b = a && a->kind == E_NAME ? sema_lookup(S, a->name) : NULL;
        if (!b || b->v.kind != V_OBJECT || !p->annotation || !S->classes.items[b->v.obj->cls].cls->class_.lifted) continue;
        Scope *caller = S->hscope;
        S->hscope = sd->scope;
        bool tmpl = S->up->sema_param_shape(S, p->annotation, &dt, &nd) == PS_TEMPLATE;
        S->hscope = caller;
        if (!tmpl) continue;
        const SemaObject *o = b->v.obj;
        for (int m = 0; m < o->attrs.b.len; m++) {
            const Binding *mb = &o->attrs.b.items[m];
            if (!val_is_host_scalar(mb->v) || !block_reads_member(&def->def.body, p->name, mb->name)) continue;
            const SemaLifted *seen = NULL;
            for (int j = 0; j < S->lifted.len && !seen; j++)
                if (S->lifted.items[j].def == d && S->lifted.items[j].obj == o && !strcmp(S->lifted.items[j].member, mb->name)) seen = &S->lifted.items[j];
            if (!seen) {
                vec_push(&S->lifted, ((SemaLifted){.def = d, .obj = o, .member = mb->name, .is_int = !val_is_host_float(mb->v)}));
                continue;
            }
            if (!seen->is_int || !val_is_host_float(mb->v)) continue;
            char f[64];
            float_repr(val_host_f64(mb->v), f, sizeof f);
            diag_error(a->span, QD2069, "Primitive member '%s' of a @qd.data_oriented(template_primitives=False) object was lifted as an "
                                        "integer kernel argument (its type at first compile), but is now a float (%s); coercing it would "
                                        "truncate. Keep the member's type stable across launches, or use the default "
                                        "template_primitives=True to re-specialise the kernel per type.", mb->name, f);
            diag_note(mb->decl, "'%s' is set to a float here", mb->name);
            return;
        }
    }
}

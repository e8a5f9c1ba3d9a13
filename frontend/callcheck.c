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

void sema_check_call(Sema *S, const Expr *call, int d) {
    const SemaDef *sd = &S->defs.items[d];
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
}

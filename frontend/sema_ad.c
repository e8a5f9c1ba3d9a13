/* Autodiff in the frontend: only the gradient storage. qd.field(..., needs_grad=True) gives a
 * field an adjoint field "<name>_grad" of the same type and shape (a plain row-major buffer,
 * qdc-abi(7) "GRADIENTS"), made once every shape is known (a field placed later gets its
 * shape from place()); x.grad names it in kernels and host code. needs_dual=True (forward
 * mode) gives it a dual field "<name>_dual" the same way, named by x.dual. Ndarrays: x.grad
 * of an ndarray parameter is the kernel's parameter "<x>_grad" (appended), needs_grad= of an
 * ndarray annotation marks the parameter (IrParam.needs_grad); qd.ndarray(..., needs_grad=True)
 * is seen by sema_tensor.c (Sema.ad_ndarray). The gradient kernels are IR transforms
 * (ir/autodiff.c, ir/autodiff_fwd.c). */
#include "sema.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The value of keyword `name` of a call: 1 true, 0 false or absent, -1 after an error. */
static int flag_kw(Sema *S, const Expr *call, const char *name, Span *where) {
    for (int k = 0; k < call->call.nkw; k++) {
        if (strcmp(call->call.kw[k].name, name)) continue;
        *where = call->call.kw[k].span;
        IrExpr *v = sema_expr(S, call->call.kw[k].value);
        if (!v) return -1;
        if (!ir_is_const(v) || qt_is_float(v->type))
            return diag_error(call->call.kw[k].value->span, QD2009, "%s= must be a compile-time True or False", name), -1;
        return v->c.u != 0;
    }
    return 0;
}

void sema_ad_mark(Sema *S, const Expr *call, int first) {
    for (int dual = 0; dual < 2; dual++) {
        Span sp;
        const char *kw = dual ? "needs_dual" : "needs_grad";
        if (flag_kw(S, call, kw, &sp) <= 0) continue;
        for (int f = first; f < S->fields.len; f++) {
            IrField *x = &S->fields.items[f];
            if (!qt_is_float(x->type)) {
                diag_error(sp, QD2063, "%s=True needs a floating-point field; '%s' holds %s", kw, x->name, qt_name(x->type));
                break;
            }
            /* -3: declared without a shape, so its own place() or qd.root.lazy_grad() must place the
             * adjoint (Quadrants' materialize check, sema_ad_finish); -1: made with the primal's shape */
            *(dual ? &x->dual : &x->grad) = x->ndim < 0 ? -3 : -1;
        }
    }
}

/* Quadrants' materialize check (impl.py, _check_gradient_field_not_placed) for struct fields
 * (sema_struct.c; a plain field's is QD2156 in sema_ad_finish): a struct field declared
 * needs_grad=True (needs_dual=True) without a shape whose host code places it but neither its
 * adjoint (dual) field nor calls qd.root.lazy_grad() (lazy_dual()). Where Quadrants' own check
 * passes, the struct field's gradients (which qdc does not compile) are refused. */
static void placed_later_check(Sema *S) {
    for (int k = 0; k < S->ad_manual.len; k++) {
        const AdManual *m = &S->ad_manual.items[k];
        const char *t = m->dual ? "dual" : "grad";
        bool primal = true, adjoint = true;
        for (int f = m->first; f <= m->last; f++) {
            const IrField *x = &S->fields.items[f];
            int g = *(m->dual ? &x->dual : &x->grad);
            primal &= x->ndim >= 0;
            adjoint &= g > 0 && S->fields.items[g - 1].ndim >= 0;
        }
        if (!primal) continue; /* never placed: reported as such (sema_snode_finish) */
        if (!adjoint && !S->ad_lazy[m->dual])
            diag_error(m->span, QD2063, "These field(s) requrie `needs_%s=True`, however their %s field(s) are not placed: host code "
                       "places this field but not its %s field; place that too (qd.root.dense(qd.i, 1).place(x.%s)), call "
                       "qd.root.lazy_%s(), or give the field a shape=", t, t, t, t, t);
        else if (m->strct)
            diag_error(m->span, QD2063, "needs_%s=... is not supported: qdc does not compile autodiff", t);
    }
    vec_free(&S->ad_manual);
}

/* The slot naming field x's adjoint (dual false) or dual field. */
static int *slot(IrField *x, bool dual) { return dual ? &x->dual : &x->grad; }

/* Whether field g is some field's adjoint or dual field (which have none of their own). */
static bool is_adjoint(const Sema *S, int g) {
    for (int k = 0; k < S->fields.len; k++)
        if (S->fields.items[k].grad == g + 1 || S->fields.items[k].dual == g + 1) return true;
    return false;
}

static void copy_shape(IrField *g, const IrField *x) {
    g->ndim = x->ndim, g->elem_ndim = x->elem_ndim, g->elems = x->elems, g->norigin = x->norigin;
    memcpy(g->shape, x->shape, sizeof g->shape), memcpy(g->origin, x->origin, sizeof g->origin);
}

/* Field f's adjoint field (dual: its dual field), made when first wanted: of f's shape when f has
 * its final one (declared with shape=, or laid out), else unplaced: place(x, x.grad) places it,
 * or it follows its primal as one plain buffer (IrField.grad -2 on the adjoint or dual field
 * until the storages are laid out). -1: none. */
static int make_grad(Sema *S, int f, bool wanted, bool dual) {
    IrField *x = &S->fields.items[f];
    if (*slot(x, dual) > 0) return *slot(x, dual) - 1;
    if (((*slot(x, dual) == 0 || *slot(x, dual) == -3) && !wanted) || !qt_is_float(x->type) || is_adjoint(S, f)) return -1;
    IrField g = {.name = arena_printf(S->arena, dual ? "%s_dual" : "%s_grad", x->name), .type = x->type, .ndim = -1, .span = x->span};
    if (x->ndim >= 0 && x->elems > 0) copy_shape(&g, x);
    for (int k = 0; k < S->fields.len; k++)
        if (!strcmp(S->fields.items[k].name, g.name)) {
            diag_error(x->span, QD2063, "the %s of field '%s' is named '%s', which another field has already", dual ? "dual" : "gradient", x->name, g.name);
            *slot(x, dual) = 0;
            return -1;
        }
    vec_push(&S->fields, g);
    *slot(&S->fields.items[f], dual) = S->fields.len; /* vec_push may have moved the array */
    return S->fields.len - 1;
}

void sema_ad_lazy(Sema *S, bool dual) {
    S->ad_lazy[dual] = true;
    for (int f = 0; f < S->fields.len; f++)
        if ((!*slot(&S->fields.items[f], dual) || *slot(&S->fields.items[f], dual) == -3) && qt_is_float(S->fields.items[f].type) && !is_adjoint(S, f))
            *slot(&S->fields.items[f], dual) = -1;
}

/* A kernel launched with qd_stream= (not None) as K.grad(...) or inside a qd.ad.Tape: Quadrants'
 * RuntimeError at the launch (its kernel.py), outside blocks the script expects to raise. */
static void stream_calls(const StmtList *l, bool tape, bool raises) {
    for (int k = 0; k < l->n; k++) {
        const Stmt *s = l->stmts[k];
        const Expr *e = s->kind == S_EXPR ? s->expr : s->kind == S_ASSIGN ? s->assign.value : NULL;
        bool grad = e && e->kind == E_CALL && e->call.fn->kind == E_ATTR && !strcmp(e->call.fn->attr.name, "grad");
        for (int j = 0; e && e->kind == E_CALL && (grad || tape) && !raises && j < e->call.nkw; j++)
            if (!strcmp(e->call.kw[j].name, "qd_stream") && e->call.kw[j].value->kind != E_NONE)
                diag_error(e->call.kw[j].span, QD2069, grad ? "qd_stream is not compatible with autodiff kernels. Streams cannot be used with "
                                                              "reverse-mode or forward-mode differentiation."
                                                            : "qd_stream is not compatible with autograd Tape. Launch the kernel outside the Tape "
                                                              "context, or omit qd_stream.");
        switch (s->kind) {
        case S_IF: stream_calls(&s->if_.then, tape || s->if_.tape, raises || s->if_.raises), stream_calls(&s->if_.els, tape, raises); break;
        case S_FOR: stream_calls(&s->for_.body, tape, raises); break;
        case S_WHILE: stream_calls(&s->while_.body, tape, raises); break;
        case S_DEF:
            if (s->def.host) stream_calls(&s->def.body, false, raises);
            break;
        default: break;
        }
    }
}

/* Before the layout: adjoints nobody placed follow their placed primals (marked, 0-d for now);
 * after it: they take their primal's shape, and the wanted adjoints not made yet are made. */
void sema_ad_finish(Sema *S, bool laid_out) {
    if (!laid_out) placed_later_check(S);
    if (laid_out && S->ast) stream_calls(&S->ast->body, false, false);
    for (int dual = 0; dual < 2; dual++)
        for (int f = 0, n = S->fields.len; f < n; f++) {
            IrField *x = &S->fields.items[f];
            if (x->ndim < 0 || (!laid_out && *slot(x, dual) <= 0)) continue; /* never placed: reported as such */
            if (laid_out && *slot(x, dual) == -3) { /* Quadrants' materialize check (impl.py _check_gradient_field_not_placed) */
                bool seen = false; /* once per declaration (a vector field's components share it) */
                for (int k = 0; k < f && !seen; k++)
                    seen = S->fields.items[k].span.off == x->span.off && S->fields.items[k].span.src == x->span.src && *slot(&S->fields.items[k], dual) == 0;
                const char *nm = sema_field_written(S, x->name);
                const char *us = strrchr(nm, '_');
                if (f + 1 < n && S->fields.items[f + 1].span.off == x->span.off && us) /* a vector's component "b_0": name b */
                    nm = arena_printf(S->arena, "%.*s", (int)(us - nm), nm);
                if (!seen)
                    diag_error(x->span, QD2156, "These field(s) requrie `needs_%s=True`, however their %s field(s) are not placed: '%s'. Please consider "
                                                "place the %s field(s), e.g. qd.root.dense(qd.i, 1).place(x.%s), or specify a shape for the field(s), "
                                                "e.g. x = qd.field(float, shape=(2, 3), needs_%s=True)",
                               dual ? "dual" : "grad", dual ? "dual" : "grad", nm, dual ? "dual" : "grad",
                               dual ? "dual" : "grad", dual ? "dual" : "grad");
                *slot(x, dual) = 0;
                continue;
            }
            int g = laid_out ? make_grad(S, f, false, dual) : *slot(x, dual) - 1;
            if (g < 0) continue;
            IrField *gf = &S->fields.items[g];
            if (!laid_out && gf->ndim < 0) gf->ndim = 0, gf->grad = -2;
            else if (laid_out && gf->grad == -2) copy_shape(gf, &S->fields.items[f]), gf->grad = 0;
        }
}

/* x.grad of ndarray parameter p in a kernel: the parameter "<x>_grad" holding its adjoint array
 * (same element type, dimensions and layout), appended to the kernel's parameters the first
 * time (qdc-abi(7) GRADIENTS). */
static Val ndarray_grad(Sema *S, int p, const Expr *e) {
    const IrParam *x = &S->params.items[p];
    if (x->adjoint_of)
        return diag_error(e->span, QD2153, "'%s' is the adjoint of ndarray '%s': it has no gradient of its own", x->name,
                          S->params.items[x->adjoint_of - 1].name), val_err();
    if (!qt_is_float(x->type))
        return diag_error(e->span, QD2152, "%s is not supported for ndarray with `needs_grad=True` or `needs_dual=True`.", qt_name(x->type)),
               val_err();
    for (int k = 0; k < S->params.len; k++)
        if (S->params.items[k].adjoint_of == p + 1) return (Val){.kind = V_NDARRAY, .index = k};
    IrParam g = *x;
    g.name = arena_printf(S->arena, "%s_grad", x->name), g.adjoint_of = p + 1, g.needs_grad = -1;
    for (int k = 0; k < S->params.len; k++)
        if (!strcmp(S->params.items[k].name, g.name))
            return diag_error(e->span, QD2153, "'%s.grad' would be parameter '%s', which the kernel already has", x->name, g.name), val_err();
    vec_push(&S->params, g);
    return (Val){.kind = V_NDARRAY, .index = S->params.len - 1};
}

/* Whether ndarray parameter p (number k of kernel def) is differentiable, Quadrants' rule
 * (_template_mapper_hotpath.py): the annotation's needs_grad= where it gives one
 * (qd.types.ndarray(needs_grad=False): -1, True: 1), else whether the array passed has a
 * gradient (a qd.ndarray with needs_grad=True, a torch tensor with requires_grad=True): 1 where
 * the host calls qdc sees pass one with, -1 where they all pass arrays without; 0 (the
 * module's rule, IrModule.ndarray_grads) where no call, or an argument qdc does not know,
 * decides. */
static bool ann_needs_grad(Sema *S, const Expr *ann, IrParam *p);

static void param_by_calls(Sema *S, IrParam *p, const Stmt *def, int k) {
    int d = sema_def_at(S, def);
    unsigned char seen = d >= 0 && S->defs.items[d].arg_grad ? S->defs.items[d].arg_grad[k] : 0;
    if (seen & 1) p->needs_grad = 1; /* one specialization per launch in Quadrants; one entry here, for both */
    else if (seen == 2) p->needs_grad = -1;
}

void sema_ad_param(Sema *S, const Expr *ann, IrParam *p, const Stmt *def, int k) {
    if (!ann || !ann_needs_grad(S, ann, p)) param_by_calls(S, p, def, k);
}

/* needs_grad= of an ndarray annotation: false where it gives none. */
static bool ann_needs_grad(Sema *S, const Expr *ann, IrParam *p) {
    Binding *alias = ann->kind == E_NAME ? sema_lookup(S, ann->name) : sema_module_member(S, ann); /* A = qd.types.ndarray(...); x: A */
    if (alias && alias->v.kind == V_ANNOT) ann = alias->v.ann;
    if (ann->kind != E_CALL) return false;
    for (int k = 0; k < ann->call.nkw; k++) {
        if (strcmp(ann->call.kw[k].name, "needs_grad")) continue;
        if (ann->call.kw[k].value->kind == E_NAME && !strcmp(ann->call.kw[k].value->name, "None")) return false;
        Span sp;
        int v = flag_kw(S, ann, "needs_grad", &sp);
        if (v < 0) return true;
        p->needs_grad = v ? 1 : -1;
        if (v && !qt_is_float(p->type))
            diag_error(sp, QD2152, "%s is not supported for ndarray with `needs_grad=True` or `needs_dual=True`.", qt_name(p->type));
        return true;
    }
    return false;
}

/* x.grad or x.dual (of a field or a vector field's components); V_NONE: not ours, look further. */
Val sema_ad_attr(Sema *S, Val o, const Expr *e) {
    bool dual = !strcmp(e->attr.name, "dual");
    bool field = o.kind == V_FIELD || (o.kind == V_VEC && o.vec.c[0].kind == V_FIELD);
    if (!field && o.kind != V_NDARRAY && o.kind != V_HOSTARRAY) return (Val){.kind = V_NONE};
    if (!dual && o.kind == V_HOSTARRAY) /* a.grad in host code: an array of a's element type and shape, without a gradient */
        return qt_is_float(o.harr.type) ? (o.harr.grad = false, o)
                                        : (diag_error(e->span, QD2152, "%s is not supported for ndarray with `needs_grad=True` or `needs_dual=True`.",
                                                      qt_name(o.harr.type)), val_err());
    if (!dual && o.kind == V_NDARRAY) return ndarray_grad(S, o.index, e);
    if (!field) /* Quadrants keeps no dual of an ndarray (Ndarray.has_dual() is always False): the attribute does not exist */
        return diag_error(e->span, QD2044, "'%s' object has no attribute 'dual': an ndarray has no dual in Quadrants; forward mode "
                                           "differentiates fields declared with needs_dual=True (or placed by qd.root.lazy_dual())",
                          o.kind == V_NDARRAY ? "AnyArray" : "Ndarray"), val_err();
    Val r = o;
    if (o.kind == V_VEC) r.vec.c = arena_alloc(S->arena, sizeof(Val) * (size_t)vec_len(o)), memcpy(r.vec.c, o.vec.c, sizeof(Val) * (size_t)vec_len(o));
    for (int k = 0; k < (o.kind == V_VEC ? vec_len(o) : 1); k++) {
        Val *c = o.kind == V_VEC ? &r.vec.c[k] : &r;
        int f = c->index;
        if (S->k && !dual && !*slot(&S->fields.items[f], false) && qt_is_float(S->fields.items[f].type) && !is_adjoint(S, f)) {
            /* neither needs_grad=True, nor qd.root.lazy_grad(), nor placed by host code (Quadrants' impl.py, subscript) */
            const Expr *x = e->attr.obj;
            diag_error(e->span, QD2044, "Gradient %s%s has not been placed, check whether `needs_grad=True`",
                       x->kind == E_NAME ? x->name : "x", ".grad");
            return val_err();
        }
        int g = make_grad(S, f, true, dual);
        if (g < 0)
            return diag_error(e->span, QD2044, "field '%s' has no %s: only floating-point fields have one", S->fields.items[f].name,
                              dual ? "dual" : "gradient"), val_err();
        c->index = g;
    }
    return r;
}

/* Quadrants' checks of a Tape's loss as the `with qd.ad.Tape(loss=X):` block is entered (its
 * _ad.py, Tape.__enter__), where qdc knows X: a field must be 0-D and have its adjoint, a
 * Quadrants ndarray one element and needs_grad=True, a torch tensor one element and
 * requires_grad=True. A RuntimeError the script expects (pytest.raises) is no error here. */
void sema_ad_tape(Sema *S, const Stmt *with) {
    const Expr *e = with->if_.loss;
    Binding *b = e && e->kind == E_NAME ? sema_lookup(S, e->name) : NULL;
    if (!b || S->raises) return;
    const char *msg = NULL;
    int64_t n = 1;
    if (b->v.kind == V_FIELD) {
        const IrField *x = &S->fields.items[b->v.index];
        if (x->ndim > 0)
            msg = "The loss of `Tape` must be a 0-D field, i.e. scalar";
        else if (!x->grad && !S->ad_lazy[0] && qt_is_float(x->type) && !is_adjoint(S, b->v.index))
            msg = "Gradients of loss are not allocated, please use qd.field(..., needs_grad=True) for all fields that are required by autodiff.";
    } else if (b->v.kind == V_HOSTARRAY && (b->v.harr.qd || b->v.harr.torch)) {
        for (int k = 0; b->v.harr.dims && k < b->v.harr.ndim; k++) n *= b->v.harr.dims[k];
        n *= b->v.harr.en ? b->v.harr.en * (b->v.harr.em ? b->v.harr.em : 1) : 1;
        bool qd = b->v.harr.qd;
        if (b->v.harr.dims && n != 1)
            msg = qd ? "The loss of `Tape` must be an ndarray with only one element" : "The loss of `Tape` must be a tensor only contains one element";
        else if (!b->v.harr.grad)
            msg = qd ? "Gradients of loss are not allocated, please set needs_grad=True for all ndarrays that are required by autodiff."
                     : "Gradients of loss are not allocated, please set requires_grad=True for all tensors that are required by autodiff.";
    }
    if (msg) diag_error(e->span, QD2157, "%s", msg);
}

bool sema_ad_no_grad(Sema *S, const Stmt *def) {
    for (int k = 0; k < def->def.decorators.n; k++) {
        const char *p = sema_path(S, def->def.decorators.items[k]);
        if (p && !strcmp(p, "qd.ad.no_grad")) return true;
    }
    return false;
}

/* @qd.ad.grad_for(P) on host function def: Quadrants raises RuntimeError when the decorator is
 * applied where P is a kernel (its .grad is the kernel's own) or a Python function not decorated
 * with @qd.ad.grad_replaced (it has no .grad); not inside a block the script expects to raise. */
void sema_ad_grad_for(Sema *S, const Stmt *def) {
    if (S->raises) return;
    for (int k = 0; k < def->def.decorators.n; k++) {
        const Expr *d = def->def.decorators.items[k];
        if (d->kind != E_CALL || d->call.args.n != 1 || d->call.args.items[0]->kind != E_NAME) continue;
        const char *p = sema_path(S, d->call.fn);
        if (!p || strcmp(p, "qd.ad.grad_for")) continue;
        const Binding *b = sema_lookup(S, d->call.args.items[0]->name);
        if (b && b->v.kind == V_KERNEL)
            diag_error(d->call.args.items[0]->span, QD2155, "Primal function must be a **python** function instead of a quadrants kernel. Please wrap "
                                                      "the quadrants kernel in a @qd.ad.grad_replaced decorated python function instead.");
        else if (b && b->v.kind == V_PYFUNC) /* a plain Python function: no decorator */
            diag_error(d->call.args.items[0]->span, QD2155, "Primal function `%s` must be decorated by qd.ad.grad_replaced", d->call.args.items[0]->name);
    }
}

/* ---- kernels whose gradient the script asks for (IrKernel.grad_of -2) ---- */

/* The host calls that may ask for a kernel's gradient or forward companion, found by one walk of
 * the module (Sema.ad_wants; a walk per kernel was a third of the time of a big module): a
 * statement whose expression (or assigned value) is NAME.grad(...) or NAME(...), with the blocks
 * around it. Host functions are frames: a kernel defined in one is asked for by the calls of
 * that function's body only (their calls are a contiguous run of calls[], in walk order). */
typedef struct {
    const Expr *e;
    const char *name;
    bool grad;                      /* NAME.grad(...); else NAME(...) */
    bool tape, validate, fwd;       /* inside `with qd.ad.Tape(...)` (validation=True), `with qd.ad.FwdMode(...)` */
    bool raises;                    /* inside a block the script expects to raise */
} AdCall;
typedef struct { const Stmt *def; int frame; } AdDef; /* a def and the frame whose body holds it */
typedef struct { int lo, hi; } AdFrame;                 /* its calls: calls[lo..hi) */
/* Arrays in the compilation's arena (they live as long as it): one that fills is copied into
 * one twice its size. */
#define AD_PUSH(S, v, x)                                                                    \
    do {                                                                                    \
        if ((v).len == (v).cap) {                                                           \
            int cap_ = (v).cap ? 2 * (v).cap : 16;                                          \
            void *p_ = arena_alloc((S)->arena, sizeof *(v).items * (size_t)cap_);           \
            if ((v).len) memcpy(p_, (v).items, sizeof *(v).items * (size_t)(v).len);        \
            (v).items = p_, (v).cap = cap_;                                                 \
        }                                                                                   \
        (v).items[(v).len++] = (x);                                                         \
    } while (0)
typedef struct AdWants {
    const AstModule *ast;
    struct { AdCall *items; int len, cap; } calls;
    struct { AdDef *items; int len, cap; } defs; /* sorted by def after the walk */
    struct { AdFrame *items; int len, cap; } frames; /* frame 0: the module */
} AdWants;

static void walk(Sema *S, AdWants *w, const StmtList *l, int frame, bool tape, bool validate, bool fwd, bool raises) {
    for (int k = 0; k < l->n; k++) {
        const Stmt *s = l->stmts[k];
        const Expr *e = s->kind == S_EXPR ? s->expr : s->kind == S_ASSIGN ? s->assign.value : NULL;
        if (e && e->kind == E_CALL && (e->call.fn->kind == E_NAME || (e->call.fn->kind == E_ATTR && !strcmp(e->call.fn->attr.name, "grad") &&
                                                                     e->call.fn->attr.obj->kind == E_NAME))) {
            bool grad = e->call.fn->kind == E_ATTR;
            if (grad || tape || fwd) {
                AdCall c = {e, grad ? e->call.fn->attr.obj->name : e->call.fn->name, grad, tape, validate, fwd, raises};
                AD_PUSH(S, w->calls, c);
            }
        }
        switch (s->kind) {
        case S_IF:
            walk(S, w, &s->if_.then, frame, tape || s->if_.tape, s->if_.tape ? s->if_.validate : validate, fwd || s->if_.fwd, raises || s->if_.raises);
            walk(S, w, &s->if_.els, frame, tape, validate, fwd, raises);
            break;
        case S_FOR: walk(S, w, &s->for_.body, frame, tape, validate, fwd, raises); break;
        case S_WHILE: walk(S, w, &s->while_.body, frame, tape, validate, fwd, raises); break;
        case S_DEF: {
            AdDef d = {s, frame};
            AD_PUSH(S, w->defs, d);
            if (!s->def.host) break;
            int f = w->frames.len;
            AD_PUSH(S, w->frames, ((AdFrame){w->calls.len, 0}));
            walk(S, w, &s->def.body, f, false, false, false, raises);
            w->frames.items[f].hi = w->calls.len;
            break;
        }
        default: break;
        }
    }
}

static int def_cmp(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)((const AdDef *)a)->def, y = (uintptr_t)((const AdDef *)b)->def;
    return x < y ? -1 : x > y;
}

/* The module's calls (walked at the first kernel of each module), those of the frame holding def
 * in *lo..*hi. */
static const AdWants *wants(Sema *S, const Stmt *def, int *lo, int *hi) {
    AdWants *w = S->ad_wants;
    if (!w || w->ast != S->ast) {
        w = S->ad_wants = ARENA_NEW(S->arena, AdWants);
        w->ast = S->ast;
        AD_PUSH(S, w->frames, ((AdFrame){0, 0}));
        walk(S, w, &S->ast->body, 0, false, false, false, false);
        w->frames.items[0].hi = w->calls.len;
        if (w->defs.len) qsort(w->defs.items, w->defs.len, sizeof *w->defs.items, def_cmp);
    }
    AdDef key = {def, 0}, *d = w->defs.len ? bsearch(&key, w->defs.items, w->defs.len, sizeof key, def_cmp) : NULL;
    int f = d ? d->frame : 0;
    *lo = w->frames.items[f].lo, *hi = w->frames.items[f].hi;
    return w;
}

/* Quadrants gives every kernel a gradient: K.grad() of a kernel that touches no field with an
 * adjoint runs and changes nothing. qdc makes companions for the kernels that need them, and for
 * a kernel the script differentiates by name (its kernels defined in host functions included).
 * k: the kernel's IrKernel.grad_call and grad_validate are set. */
bool sema_ad_grad_wanted(Sema *S, const Stmt *def, IrKernel *k) {
    if (!S->ast || def->kind != S_DEF) return false;
    int lo, hi;
    const AdWants *w = wants(S, def, &lo, &hi);
    const AdCall *call = NULL; /* the first call asking, one outside raises blocks first */
    bool outside = false, validate = false;
    for (int i = lo; i < hi; i++) {
        const AdCall *c = &w->calls.items[i];
        if ((!c->grad && !c->tape) || strcmp(c->name, def->def.name)) continue;
        if (!call || (!c->raises && !outside)) call = c, outside = !c->raises;
        validate |= c->tape && c->validate && !c->raises;
    }
    if (call && outside) k->grad_call = call->e->span;
    k->grad_validate = validate;
    return call != NULL;
}

/* The same for forward mode: a kernel run inside `with qd.ad.FwdMode(...)` gets its "<k>_fwd"
 * companion (IrKernel.fwd_of -2) even when it touches no field with a dual field (then it
 * computes what the kernel computes, as Quadrants' dual kernel of such a kernel does). */
bool sema_ad_fwd_wanted(Sema *S, const Stmt *def) {
    if (!S->ast || def->kind != S_DEF) return false;
    int lo, hi;
    const AdWants *w = wants(S, def, &lo, &hi);
    for (int i = lo; i < hi; i++)
        if (!w->calls.items[i].grad && w->calls.items[i].fwd && !strcmp(w->calls.items[i].name, def->def.name)) return true;
    return false;
}

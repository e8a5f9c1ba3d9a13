/* Autodiff in the frontend: only the gradient storage. qd.field(..., needs_grad=True) gives a
 * field an adjoint field "<name>_grad" of the same type and shape (a plain row-major buffer,
 * qdc-abi(7) "GRADIENTS"), made once every shape is known (a field placed later gets its
 * shape from place()); x.grad names it in kernels and host code. The gradient kernels are an
 * IR transform (ir/autodiff.c). Forward mode (needs_dual=, x.dual) is refused by name. */
#include "sema.h"
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
    Span sp;
    int dual = flag_kw(S, call, "needs_dual", &sp);
    if (dual > 0)
        diag_error(sp, QD2063, "needs_dual=True (forward-mode autodiff, qd.ad.FwdMode) is not supported yet: qdc compiles "
                               "reverse-mode gradient kernels only (needs_grad=True)");
    if (flag_kw(S, call, "needs_grad", &sp) <= 0) return;
    for (int f = first; f < S->fields.len; f++) {
        IrField *x = &S->fields.items[f];
        if (!qt_is_float(x->type)) {
            diag_error(sp, QD2063, "needs_grad=True needs a floating-point field; '%s' holds %s", x->name, qt_name(x->type));
            return;
        }
        x->grad = -1;
    }
}

static bool is_adjoint(const Sema *S, int g) {
    for (int k = 0; k < S->fields.len; k++)
        if (S->fields.items[k].grad == g + 1) return true;
    return false;
}

static void copy_shape(IrField *g, const IrField *x) {
    g->ndim = x->ndim, g->elem_ndim = x->elem_ndim, g->elems = x->elems, g->norigin = x->norigin;
    memcpy(g->shape, x->shape, sizeof g->shape), memcpy(g->origin, x->origin, sizeof g->origin);
}

/* Field f's adjoint field, made when first wanted: of f's shape when f has its final one (declared
 * with shape=, or laid out), else unplaced: place(x, x.grad) places it, or it follows its primal
 * as one plain buffer (IrField.grad -2 on the adjoint until the storages are laid out). -1: none. */
static int make_grad(Sema *S, int f, bool wanted) {
    IrField *x = &S->fields.items[f];
    if (x->grad > 0) return x->grad - 1;
    if ((x->grad == 0 && !wanted) || !qt_is_float(x->type) || is_adjoint(S, f)) return -1;
    IrField g = {.name = arena_printf(S->arena, "%s_grad", x->name), .type = x->type, .ndim = -1, .span = x->span};
    if (x->ndim >= 0 && x->elems > 0) copy_shape(&g, x);
    for (int k = 0; k < S->fields.len; k++)
        if (!strcmp(S->fields.items[k].name, g.name)) {
            diag_error(x->span, QD2063, "the gradient of field '%s' is named '%s', which another field has already", x->name, g.name);
            x->grad = 0;
            return -1;
        }
    vec_push(&S->fields, g);
    S->fields.items[f].grad = S->fields.len; /* vec_push may have moved the array */
    return S->fields.len - 1;
}

void sema_ad_lazy(Sema *S) {
    for (int f = 0; f < S->fields.len; f++)
        if (!S->fields.items[f].grad && qt_is_float(S->fields.items[f].type) && !is_adjoint(S, f)) S->fields.items[f].grad = -1;
}

/* Before the layout: adjoints nobody placed follow their placed primals (marked, 0-d for now);
 * after it: they take their primal's shape, and the wanted adjoints not made yet are made. */
void sema_ad_finish(Sema *S, bool laid_out) {
    for (int f = 0, n = S->fields.len; f < n; f++) {
        IrField *x = &S->fields.items[f];
        if (x->ndim < 0 || (!laid_out && x->grad <= 0)) continue; /* never placed: reported as such */
        int g = laid_out ? make_grad(S, f, false) : x->grad - 1;
        if (g < 0) continue;
        IrField *gf = &S->fields.items[g];
        if (!laid_out && gf->ndim < 0) gf->ndim = 0, gf->grad = -2;
        else if (laid_out && gf->grad == -2) copy_shape(gf, &S->fields.items[f]), gf->grad = 0;
    }
}

/* x.grad (a field or a vector field's components) or x.dual; V_NONE: not ours, look further. */
Val sema_ad_attr(Sema *S, Val o, const Expr *e) {
    bool dual = !strcmp(e->attr.name, "dual");
    bool field = o.kind == V_FIELD || (o.kind == V_VEC && o.vec.c[0].kind == V_FIELD);
    if (!field && o.kind != V_NDARRAY && o.kind != V_HOSTARRAY) return (Val){.kind = V_NONE};
    if (dual) return diag_error(e->span, QD2044, "'.dual' is not supported yet: qdc compiles reverse-mode gradients only (x.grad)"), val_err();
    if (!field)
        return diag_error(e->span, QD2044, "'.grad' of an ndarray is not supported yet: qdc keeps gradients of fields declared "
                                           "with qd.field(..., needs_grad=True)"), val_err();
    Val r = o;
    if (o.kind == V_VEC) r.vec.c = arena_alloc(S->arena, sizeof(Val) * (size_t)vec_len(o)), memcpy(r.vec.c, o.vec.c, sizeof(Val) * (size_t)vec_len(o));
    for (int k = 0; k < (o.kind == V_VEC ? vec_len(o) : 1); k++) {
        Val *c = o.kind == V_VEC ? &r.vec.c[k] : &r;
        int f = c->index, g = make_grad(S, f, true);
        if (g < 0)
            return diag_error(e->span, QD2044, "field '%s' has no gradient: only floating-point fields have one", S->fields.items[f].name), val_err();
        c->index = g;
    }
    return r;
}

bool sema_ad_no_grad(Sema *S, const Stmt *def) {
    for (int k = 0; k < def->def.decorators.n; k++) {
        const char *p = sema_path(S, def->def.decorators.items[k]);
        if (p && !strcmp(p, "qd.ad.no_grad")) return true;
    }
    return false;
}

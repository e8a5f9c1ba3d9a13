/* Numpy arrays whose shape host code makes evident (issue 30): np.array of a rectangular literal
 * list, np.zeros/ones/empty/full of a compile-time shape, np.random.randn/rand of compile-time extents, and what keeps their shape (astype,
 * copy, arithmetic with a number, *_like, torch.tensor of one). Their .size, .ndim, .shape and
 * len() are compile-time integers in host code (n = x_np.size), as Python computes them; the
 * arrays themselves stay what sema_generic.c makes of them (a dtype and ndim for kernel calls). */
#include "py.h"
#include <stdint.h>
#include <string.h>

/* The shape of a rectangular literal list (its items' lengths agree at each depth): ndim, or -1. */
static int list_shape(const Expr *e, int64_t *shape, int d) {
    if (e->kind != E_LIST && e->kind != E_TUPLE) return d;
    if (d >= PY_MAX_DIMS || !e->list.n) return -1;
    shape[d] = e->list.n;
    int64_t sub[PY_MAX_DIMS];
    int nd = list_shape(e->list.items[0], shape, d + 1);
    for (int k = 1; nd >= 0 && k < e->list.n; k++) {
        memcpy(sub, shape, sizeof sub);
        if (list_shape(e->list.items[k], sub, d + 1) != nd || memcmp(sub, shape, sizeof(int64_t) * (size_t)nd)) return -1;
    }
    return nd;
}

const int64_t *sema_np_shape(Sema *S, const Expr *e, int ndim) {
    if (e->kind != E_CALL || e->call.fn->kind != E_ATTR || ndim < 1 || ndim > PY_MAX_DIMS) return NULL;
    const char *f = e->call.fn->attr.name;
    const Expr *a0 = e->call.args.n ? e->call.args.items[0] : NULL;
    for (int k = 0; k < e->call.nkw; k++) /* np.zeros(shape=(2, 2)) */
        if (!strcmp(e->call.kw[k].name, "shape")) a0 = e->call.kw[k].value;
    if (!a0) return NULL;
    int64_t shape[PY_MAX_DIMS];
    int nd = -1;
    if (!strcmp(f, "array") || !strcmp(f, "asarray") || !strcmp(f, "Tensor") || !strcmp(f, "tensor")) {
        nd = list_shape(a0, shape, 0);
    } else if (!strcmp(f, "zeros") || !strcmp(f, "ones") || !strcmp(f, "empty") || !strcmp(f, "full")) {
        int mark = diag_quiet_begin();
        nd = S->core->sema_const_shape(S, a0, shape, PY_MAX_DIMS, "a shape");
        if (diag_quiet_end(mark)) nd = -1;
    } else if ((!strcmp(f, "randn") || !strcmp(f, "rand")) && !e->call.nkw && e->call.args.n <= PY_MAX_DIMS) { /* np.random.randn(4, 3) */
        int mark = diag_quiet_begin();
        nd = e->call.args.n;
        for (int k = 0; k < e->call.args.n; k++)
            if (e->call.args.items[k]->kind == E_TUPLE || S->core->sema_const_shape(S, e->call.args.items[k], &shape[k], 1, "a shape") != 1) nd = -1;
        if (diag_quiet_end(mark)) nd = -1;
    }
    if (nd != ndim) return NULL;
    for (int k = 0; k < nd; k++)
        if (shape[k] < 0) return NULL;
    int64_t *out = ARENA_ARRAY(S->arena, int64_t, nd);
    memcpy(out, shape, sizeof(int64_t) * (size_t)nd);
    return out;
}

static Val int_value(Sema *S, int64_t n, Span sp) { return val_int(S, n, sp); /* a Python int, typed as an int literal */ }

bool sema_np_shape_value(Sema *S, const Expr *v, Val *out) {
    const Expr *a = v->kind == E_ATTR ? v->attr.obj : NULL;
    bool len = v->kind == E_CALL && v->call.fn->kind == E_NAME && !strcmp(v->call.fn->name, "len") && !S->core->sema_lookup(S, "len") &&
               v->call.args.n == 1 && !v->call.nkw;
    if (len) a = v->call.args.items[0];
    Binding *b = a && a->kind == E_NAME ? S->core->sema_lookup(S, a->name) : NULL;
    if (!b || b->v.kind != V_HOSTARRAY || !b->v.harr.shape || b->v.harr.en) return false;
    int nd = b->v.harr.ndim;
    const int64_t *shape = b->v.harr.shape;
    if (len) return *out = int_value(S, shape[0], v->span), true;
    if (!strcmp(v->attr.name, "ndim")) return *out = int_value(S, nd, v->span), true;
    if (!strcmp(v->attr.name, "size")) {
        int64_t n = 1;
        for (int k = 0; k < nd; k++) n *= shape[k];
        return *out = int_value(S, n, v->span), true;
    }
    if (strcmp(v->attr.name, "shape")) return false;
    Val *items = ARENA_ARRAY(S->arena, Val, nd);
    for (int k = 0; k < nd; k++) items[k] = int_value(S, shape[k], v->span);
    return *out = (Val){.kind = V_TUPLE, .tuple = {.items = items, .n = nd}}, true;
}

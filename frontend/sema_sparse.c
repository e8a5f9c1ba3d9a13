/* Sparse SNodes in kernels: qd.is_active, qd.activate, qd.deactivate, qd.append, qd.length,
 * node.parent(), node.deactivate_all(), x.snode, x.parent(). The storage is dense and every
 * sparse node has a metadata field (ir/sparse.h); an inactive cell's data is zero, so a read
 * needs no test: deactivating zeroes the cell's data and the metadata of the nodes under it
 * (loops whose counter is "$sparse_clear": ir_sparse_module does not activate their stores). */
#include "sema_sparse.h"
#include "../ir/sparse.h"
#include <string.h>

static IrExpr *fbin(void *S, IrBinOp op, IrExpr *x, IrExpr *y, Span sp) { return sema_binary(S, op, x, y, sp); }

static IrExpr *i32c(Sema *S, int64_t v, Span sp) { return irb_int(S->arena, QT_I32, v, sp); }

bool sema_is_sparse_builtin(const char *p) {
    return !strcmp(p, "qd.is_active") || !strcmp(p, "qd.activate") || !strcmp(p, "qd.deactivate") || !strcmp(p, "qd.append") ||
           !strcmp(p, "qd.length") || !strcmp(p, "qd.no_activate");
}

/* The node an argument names: an SNode, or a field (its node: the one it is placed in). */
static int node_of(Sema *S, const Expr *a, const char *fn) {
    Val v = sema_eval(S, a);
    if (v.kind == V_ERR) return -1;
    if (v.kind == V_VEC && vec_len(v) && v.vec.c[0].kind == V_FIELD) v = v.vec.c[0];
    int n = v.kind == V_SNODE && !v.snode.method ? v.snode.node : v.kind == V_FIELD ? -(v.index + 1) : INT32_MIN;
    if (n == INT32_MIN) return diag_error(a->span, QD2019, "%s takes an SNode, got %s", fn, val_describe(v)), -1;
    if (n < 0) n = sema_snode_parent(S, n);
    if (n <= 0 || !sema_snode_view(S, n))
        return diag_error(a->span, QD2063, "%s needs an SNode of a placed field, not qd.root", fn), -1;
    return n;
}

/* The indices I (a scalar, a list or tuple, a vector) as n i32 expressions. */
static bool indices(Sema *S, const Expr *a, int n, IrExpr **out, const char *fn) {
    Val v = sema_eval(S, a);
    if (v.kind == V_ERR) return false;
    Val *items = &v;
    int m = 1;
    if (v.kind == V_TUPLE) items = v.tuple.items, m = v.tuple.n;
    else if (v.kind == V_VEC) items = v.vec.c, m = vec_len(v);
    if (m != n)
        return diag_error(a->span, QD2011, "%s: this SNode takes %d index%s here but %d %s given", fn, n, n == 1 ? "" : "es", m,
                          m == 1 ? "was" : "were"), false;
    for (int k = 0; k < n; k++) {
        IrExpr *x = sema_rvalue(S, items[k], a->span);
        if (!x) return false;
        if (!qt_is_integral(x->type)) return diag_error(a->span, QD2011, "%s: an index must be an integer, got %s", fn, qt_name(x->type)), false;
        out[k] = irb_cast(S->arena, x, QT_I32);
    }
    return true;
}

static void emit_cb(void *S, IrStmt *s) { sema_emit(S, s); }

static void eval_stmt(Sema *S, IrExpr *e, Span sp) {
    IrStmt *st = sema_stmt_new(S, IR_EVAL, sp);
    st->eval = e;
    sema_emit(S, st);
}

static IrExpr *atomic(Sema *S, QdOp op, IrRef *r, IrExpr *v, bool used, Span sp) {
    IrExpr *e = irb_new(S->arena, IR_MEMOP, r->type, sp);
    e->mem.op = op, e->mem.ref = r, e->mem.val = v, e->mem.result_used = used;
    e->mem.order = QORD_RELAXED, e->mem.scope = QSCOPE_DEVICE;
    return e;
}

static IrExpr *load(Sema *S, IrRef *r, Span sp) {
    IrExpr *e = irb_new(S->arena, IR_LOAD, r->type, sp);
    e->ref = r;
    return e;
}

/* ---- deactivation: clear a cell, zero what is under it ---- */

/* Node n's axis positions within the view t (a field or a node under n): map[pos in n] = pos in t. */
static void position_map(const IrField *v, const IrField *t, int levels, int *map) {
    for (int l = 0; l < levels; l++)
        for (int k = 0; k < v->levels[l].naxes; k++) map[v->levels[l].axis[k]] = t->levels[l].axis[k];
}

typedef void (*CellAction)(Sema *S, const IrField *t, IrExpr **idx, int ctx, Span sp);

/* For every index of t (a field, or a node's view) under cell c (coarse indices of v's first
 * `levels` levels): action(t, idx) in a serial loop. */
static void each_under(Sema *S, const IrField *v, int levels, IrExpr **c, const IrField *t, CellAction act, int ctx, Span sp) {
    int map[IR_MAX_DIMS], fixed[IR_MAX_DIMS];
    int64_t inner[IR_MAX_DIMS], total = 1;
    for (int p = 0; p < IR_MAX_DIMS; p++) fixed[p] = -1, inner[p] = 1;
    position_map(v, t, levels, map);
    for (int p = 0; p < v->ndim; p++) fixed[map[p]] = p;
    for (int l = levels; l < t->nlevels; l++)
        for (int k = 0; k < t->levels[l].naxes; k++) inner[t->levels[l].axis[k]] *= t->levels[l].size[k];
    for (int p = 0; p < t->ndim; p++) total *= inner[p];
    int counter = sema_new_local(S, "$sparse_clear", QT_I32);
    IrStmt *loop = sema_stmt_new(S, IR_FOR, sp);
    loop->for_.counter = counter, loop->for_.begin = i32c(S, 0, sp), loop->for_.end = i32c(S, total, sp), loop->for_.step = 1;
    IrStmtVec body = {0}, *outer = S->cur;
    S->cur = &body;
    IrExpr *idx[IR_MAX_DIMS], *rest = sema_local(S, counter, sp);
    for (int p = t->ndim - 1; p >= 0; p--) {
        IrExpr *r = inner[p] > 1 ? sema_binary(S, IR_REM, rest, i32c(S, inner[p], sp), sp) : i32c(S, 0, sp);
        if (inner[p] > 1) rest = sema_binary(S, IR_DIV, rest, i32c(S, inner[p], sp), sp);
        IrExpr *base = fixed[p] >= 0 ? sema_binary(S, IR_MUL, c[fixed[p]], i32c(S, inner[p], sp), sp) : i32c(S, 0, sp);
        idx[p] = sema_binary(S, IR_ADD, base, r, sp);
    }
    act(S, t, idx, ctx, sp);
    S->cur = outer;
    loop->for_.body = sema_freeze(S, &body);
    sema_emit(S, loop);
}

static void zero_field(Sema *S, const IrField *f, IrExpr **idx, int fi, Span sp) {
    IrRef *r = ARENA_NEW(S->arena, IrRef);
    r->kind = IR_REF_FIELD, r->index = fi, r->type = f->type, r->span = sp, r->nidx = f->ndim;
    r->idx = ARENA_ARRAY(S->arena, IrExpr *, f->ndim + 1);
    for (int d = 0; d < f->ndim; d++) r->idx[d] = idx[d];
    r->flat = sema_snode_flat(S, f, r->idx, sp);
    IrStmt *st = sema_stmt_new(S, IR_STORE, sp);
    st->store.ref = r, st->store.value = qt_is_float(f->type) ? irb_float(S->arena, f->type, 0, sp) : irb_int(S->arena, f->type, 0, sp);
    sema_emit(S, st);
}

/* Clears level `l` of view v at idx: the bit, or (dynamic) the parent cell's length. */
static void clear_level(Sema *S, const IrField *v, IrExpr **idx, int l, Span sp) {
    const IrSnodeLevel *lv = &v->levels[l];
    if (lv->sparse == IR_SNODE_DYNAMIC) {
        IrExpr *g = l ? ir_sparse_gcell(S->arena, fbin, S, v, l - 1, idx, sp) : i32c(S, 0, sp);
        IrStmt *st = sema_stmt_new(S, IR_STORE, sp);
        st->store.ref = ir_sparse_meta_ref(S->arena, lv->meta, QT_I32, g, sp), st->store.value = i32c(S, 0, sp);
        sema_emit(S, st);
        return;
    }
    IrExpr *g = ir_sparse_gcell(S->arena, fbin, S, v, l, idx, sp);
    IrExpr *sh = irb_cast(S->arena, sema_binary(S, IR_REM, g, i32c(S, 32, sp), sp), QT_U32);
    IrExpr *mask = sema_binary(S, IR_XOR, sema_binary(S, IR_SHL, irb_int(S->arena, QT_U32, 1, sp), sh, sp), irb_int(S->arena, QT_U32, 0xffffffffu, sp), sp);
    IrRef *w = ir_sparse_meta_ref(S->arena, lv->meta, QT_U32, sema_binary(S, IR_DIV, ir_sparse_gcell(S->arena, fbin, S, v, l, idx, sp), i32c(S, 32, sp), sp), sp);
    eval_stmt(S, atomic(S, QOP_AND, w, mask, false, sp), sp);
}

static void clear_node(Sema *S, const IrField *t, IrExpr **idx, int ctx, Span sp) {
    (void)ctx;
    clear_level(S, t, idx, t->nlevels - 1, sp);
}

static void zero_cb(Sema *S, const IrField *f, IrExpr **idx, int fi, Span sp) { zero_field(S, f, idx, fi, sp); }

/* qd.deactivate(node, I): I is the node's index (a dynamic node: its parent's). */
static void deactivate(Sema *S, int n, IrExpr **c, Span sp) {
    const IrField *v = sema_snode_view(S, n);
    bool dyn = sema_snode_kind(S, n) == IR_SNODE_DYNAMIC;
    int levels = dyn ? v->nlevels - 1 : v->nlevels; /* the fixed cell: the node's, a dynamic's parent's */
    const IrField *fix = dyn ? sema_snode_view(S, sema_snode_parent(S, n)) : v;
    if (dyn) {
        IrExpr *g = levels ? ir_sparse_gcell(S->arena, fbin, S, fix, levels - 1, c, sp) : i32c(S, 0, sp);
        IrStmt *st = sema_stmt_new(S, IR_STORE, sp);
        st->store.ref = ir_sparse_meta_ref(S->arena, v->levels[v->nlevels - 1].meta, QT_I32, g, sp), st->store.value = i32c(S, 0, sp);
        sema_emit(S, st);
    } else if (sema_snode_kind(S, n)) {
        clear_level(S, v, c, v->nlevels - 1, sp);
    }
    int fields[256], nf = sema_snode_fields(S, n, fields, 256), nodes[256], nn = sema_snode_sparse_under(S, n, nodes, 256);
    static const IrField none = {0};
    if (!fix) fix = &none; /* a dynamic under qd.root: no fixed index */
    for (int k = 0; k < nf; k++) each_under(S, fix, levels, c, &S->fields.items[fields[k]], zero_cb, fields[k], sp);
    for (int k = 0; k < nn; k++) each_under(S, fix, levels, c, sema_snode_view(S, nodes[k]), clear_node, 0, sp);
}

/* ---- the calls ---- */

static bool argc(Sema *S, const Expr *call, int n, const char *fn) {
    if (call->call.args.n == n && !call->call.nkw) return true;
    diag_error(call->span, QD2007, "%s takes %d arguments, got %d", fn, n, call->call.args.n + call->call.nkw);
    return false;
}

static Val node_op(Sema *S, const char *fn, int n, IrExpr **idx, const Expr *value, Span sp);

Val sema_sparse_call(Sema *S, const Expr *call, Val f) {
    const char *p = f.path, *fn = p + 3;
    Span sp = call->span;
    if (!S->k) return diag_error(sp, QD2063, "qd.%s is kernel code (call it in a kernel or qd.func)", fn), val_err();
    if (!strcmp(fn, "no_activate")) { /* a hint that the kernel's writes find their cells active: activation is idempotent here */
        for (int k = 0; k < call->call.args.n; k++)
            if (node_of(S, call->call.args.items[k], p) < 0) return val_err();
        return (Val){.kind = V_NONE};
    }
    bool is_len = !strcmp(fn, "length"), is_app = !strcmp(fn, "append");
    if (!argc(S, call, is_app ? 3 : 2, p)) return val_err();
    int n = node_of(S, call->call.args.items[0], p);
    if (n < 0) return val_err();
    const IrField *v = sema_snode_view(S, n);
    int kind = sema_snode_kind(S, n);
    if ((is_len || is_app) && kind != IR_SNODE_DYNAMIC)
        return diag_error(call->call.args.items[0]->span, QD2063, "%s needs a dynamic SNode (qd.root.dynamic(...)), got a %s one", p,
                          kind == IR_SNODE_DENSE ? "dense" : kind == IR_SNODE_POINTER ? "pointer" : "bitmasked"), val_err();
    if (!strcmp(fn, "activate") && kind == IR_SNODE_DYNAMIC)
        return diag_error(call->call.args.items[0]->span, QD2063, "qd.activate on a dynamic SNode: use qd.append"), val_err();
    int nidx = v->ndim - (is_len || is_app || (kind == IR_SNODE_DYNAMIC && !strcmp(fn, "deactivate")));
    IrExpr *idx[IR_MAX_DIMS + 1];
    if (!indices(S, call->call.args.items[1], nidx, idx, p)) return val_err();
    return node_op(S, fn, n, idx, is_app ? call->call.args.items[2] : NULL, sp);
}

/* A struct value's scalar components, members in order (vectors row-major, nested structs
 * inside), as a struct field places its members: how many (past max: max + 1, reported by the
 * caller as a count mismatch). */
static int struct_leaves(Val v, Val *out, int n, int max) {
    if (v.kind == V_STRUCT) {
        for (int k = 0; k < v.strct.st->n; k++) n = struct_leaves(v.strct.m[k], out, n, max);
        return n;
    }
    if (v.kind == V_VEC) {
        for (int k = 0; k < vec_len(v); k++) n = struct_leaves(v.vec.c[k], out, n, max);
        return n;
    }
    if (n < max) out[n] = v;
    return n < max ? n + 1 : max + 1;
}

/* qd.<fn>(node n, idx[, value]) once checked. */
static Val node_op(Sema *S, const char *fn, int n, IrExpr **idx, const Expr *value, Span sp) {
    const IrField *v = sema_snode_view(S, n);
    bool is_len = !strcmp(fn, "length");
    if (!strcmp(fn, "is_active")) return val_expr(irb_cast(S->arena, ir_sparse_active(S->arena, fbin, S, v, v->nlevels - 1, idx, sp), QT_I32));
    if (!strcmp(fn, "activate")) return ir_sparse_activate(S->arena, fbin, S, v, v->nlevels - 1, idx, sp, emit_cb, S), (Val){.kind = V_NONE};
    if (!strcmp(fn, "deactivate")) return deactivate(S, n, idx, sp), (Val){.kind = V_NONE};
    /* dynamic: the parent cell's length slot; the node's own axis is its last level's */
    const IrSnodeLevel *dl = &v->levels[v->nlevels - 1];
    int pos = dl->axis[0];
    int64_t cap = dl->size[0];
    IrExpr *full[IR_MAX_DIMS + 1];
    for (int d = 0, k = 0; d < v->ndim; d++) full[d] = d == pos ? i32c(S, 0, sp) : idx[k++];
    IrExpr *g = v->nlevels > 1 ? ir_sparse_gcell(S->arena, fbin, S, v, v->nlevels - 2, full, sp) : i32c(S, 0, sp);
    IrRef *len = ir_sparse_meta_ref(S->arena, dl->meta, QT_I32, g, sp);
    if (is_len) return val_expr(sema_binary(S, IR_MIN, load(S, len, sp), i32c(S, cap, sp), sp));
    /* append: old = atomic_add(length, 1); if old < capacity: x[I, old] = val (a full list drops it) */
    int fields[IR_MAX_DIMS * 8], nf = sema_snode_fields(S, n, fields, IR_MAX_DIMS * 8);
    Val val = sema_eval(S, value);
    if (val.kind == V_ERR) return val;
    Val *comp = &val, leaves[IR_MAX_DIMS * 8];
    int nc = 1;
    if (val.kind == V_VEC) comp = val.vec.c, nc = vec_len(val);
    else if (val.kind == V_TUPLE) comp = val.tuple.items, nc = val.tuple.n;
    else if (val.kind == V_STRUCT) comp = leaves, nc = struct_leaves(val, leaves, 0, IR_MAX_DIMS * 8); /* members in placement order */
    if (nc != nf)
        return diag_error(value->span, QD2040, "qd.append: the dynamic SNode holds %d field%s but the value has %d component%s",
                          nf, nf == 1 ? "" : "s", nc, nc == 1 ? "" : "s"), val_err();
    IrExpr *vals[IR_MAX_DIMS * 8];
    for (int k = 0; k < nc; k++)
        if (!(vals[k] = sema_rvalue(S, comp[k], value->span))) return val_err();
    int old = sema_new_local(S, "$append", QT_I32);
    IrStmt *as = sema_stmt_new(S, IR_ASSIGN, sp);
    as->assign.local = old, as->assign.value = atomic(S, QOP_ADD, len, i32c(S, 1, sp), true, sp);
    sema_emit(S, as);
    IrStmt *iff = sema_stmt_new(S, IR_IF, sp);
    iff->if_.cond = sema_binary(S, IR_LT, sema_local(S, old, sp), i32c(S, cap, sp), sp);
    IrStmtVec then = {0}, *outer = S->cur;
    S->cur = &then;
    for (int k = 0; k < nf; k++) {
        const IrField *fd = &S->fields.items[fields[k]];
        IrRef *r = ARENA_NEW(S->arena, IrRef);
        r->kind = IR_REF_FIELD, r->index = fields[k], r->type = fd->type, r->span = sp, r->nidx = fd->ndim;
        r->idx = ARENA_ARRAY(S->arena, IrExpr *, fd->ndim + 1);
        for (int d = 0; d < fd->ndim; d++) r->idx[d] = d == pos ? sema_local(S, old, sp) : full[d];
        r->flat = sema_snode_flat(S, fd, r->idx, sp);
        IrStmt *st = sema_stmt_new(S, IR_STORE, sp);
        st->store.ref = r, st->store.value = irb_cast(S->arena, vals[k], fd->type);
        sema_emit(S, st);
    }
    S->cur = outer;
    iff->if_.then = sema_freeze(S, &then);
    sema_emit(S, iff);
    return val_expr(sema_local(S, old, sp));
}

/* node.parent(k=1), node.deactivate_all() */
Val sema_sparse_node_call(Sema *S, const Expr *call, int node, const char *m) {
    Span sp = call->span;
    if (!strcmp(m, "parent")) {
        int64_t up = 1;
        if (call->call.nkw || call->call.args.n > 1) return diag_error(sp, QD2063, "parent() takes (n=1)"), val_err();
        if (call->call.args.n && !sema_const_int(S, call->call.args.items[0], &up, "parent()'s level count")) return val_err();
        for (int64_t k = 0; k < up && node != 0; k++) node = sema_snode_parent(S, node);
        if (node < 0) return diag_error(sp, QD2063, "this field is not placed under an SNode"), val_err();
        return (Val){.kind = V_SNODE, .snode = {node, NULL, 0}};
    }
    /* deactivate_all(): host code zeroes the node's storage and metadata (qdc-abi(7)); in a
     * kernel, every cell is deactivated in one serial loop */
    if (call->call.args.n || call->call.nkw) return diag_error(sp, QD2007, "deactivate_all() takes no arguments"), val_err();
    if (node < 0) node = sema_snode_parent(S, node);
    if (!S->k) return (Val){.kind = V_NONE};
    const IrField *v = sema_snode_view(S, node);
    if (!v || !S->cur) return diag_error(sp, QD2063, "deactivate_all() needs an SNode of a placed field"), val_err();
    bool dyn = sema_snode_kind(S, node) == IR_SNODE_DYNAMIC;
    const IrField *cells = dyn ? sema_snode_view(S, sema_snode_parent(S, node)) : v;
    int nd = cells ? cells->ndim : 0;
    int64_t total = 1;
    for (int d = 0; d < nd; d++) total *= cells->shape[d];
    int counter = sema_new_local(S, "$deactivate_all", QT_I32);
    IrStmt *loop = sema_stmt_new(S, IR_FOR, sp);
    loop->for_.counter = counter, loop->for_.begin = i32c(S, 0, sp), loop->for_.end = i32c(S, total, sp), loop->for_.step = 1;
    IrStmtVec body = {0}, *outer = S->cur;
    S->cur = &body;
    IrExpr *idx[IR_MAX_DIMS], *rest = sema_local(S, counter, sp);
    for (int d = nd - 1; d >= 0; d--) {
        idx[d] = sema_binary(S, IR_REM, rest, i32c(S, cells->shape[d], sp), sp);
        rest = sema_binary(S, IR_DIV, rest, i32c(S, cells->shape[d], sp), sp);
    }
    deactivate(S, node, idx, sp);
    S->cur = outer;
    loop->for_.body = sema_freeze(S, &body);
    sema_emit(S, loop);
    return (Val){.kind = V_NONE};
}

Val sema_sparse_field_attr(Sema *S, Val o, const char *name) {
    if (o.kind == V_VEC && vec_len(o) && o.vec.c[0].kind == V_FIELD) o = o.vec.c[0];
    if (o.kind != V_FIELD) return diag_error((Span){0}, QD2019, "no attribute '%s'", name), val_err();
    (void)S;
    if (!strcmp(name, "snode")) return (Val){.kind = V_SNODE, .snode = {-(o.index + 1), NULL, 0, NULL, 0}};
    return (Val){.kind = V_SNODE, .snode = {-(o.index + 1), name, 0, NULL, 0}}; /* parent, append, length, deactivate */
}

/* ---- struct-for ---- */

bool sema_sparse_loop_space(Sema *S, Val v, LoopSpace *ls, Span sp) {
    int n = v.snode.node;
    if (n < 0) n = sema_snode_parent(S, n); /* x.snode: the node x is placed in */
    const IrField *view = n > 0 && !v.snode.method ? sema_snode_view(S, n) : NULL;
    if (!view) return diag_error(sp, QD2012, "unsupported loop: a struct-for iterates over a field, an ndarray or an SNode of placed fields"), false;
    ls->ndims = view->ndim;
    for (int d = 0; d < ls->ndims; d++)
        ls->begin[d] = i32c(S, 0, sp), ls->end[d] = i32c(S, view->shape[d], sp), ls->step[d] = 1;
    ls->sparse = ir_sparse_field(view) ? view : NULL;
    return true;
}

IrExpr *sema_sparse_loop_cond(Sema *S, const LoopSpace *ls, IrExpr *const *vars, Span sp) {
    if (!ls->sparse) return NULL;
    IrExpr *idx[IR_MAX_DIMS];
    for (int d = 0; d < ls->ndims && d < IR_MAX_DIMS; d++) idx[d] = sema_binary(S, IR_SUB, vars[d], ls->begin[d], sp);
    return ir_sparse_active(S->arena, fbin, S, ls->sparse, ls->sparse->nlevels - 1, idx, sp);
}

/* x[i].append(v), x[i].length(), x[i].deactivate(), and x.append(v) ... on a field placed in a
 * dynamic SNode: the same as qd.append(x.parent(), [i], v) ... */
Val sema_sparse_list_call(Sema *S, const Expr *call, Val list) {
    const char *m = list.snode.method;
    int f = -list.snode.node - 1, n = sema_snode_parent(S, list.snode.node);
    Span sp = call->span;
    if (!S->k) return diag_error(sp, QD2063, "x.%s() is kernel code (call it in a kernel or qd.func)", m), val_err();
    if (n <= 0 || sema_snode_kind(S, n) != IR_SNODE_DYNAMIC)
        return diag_error(call->call.fn->span, QD2063, "'%s' is not placed in a dynamic SNode: %s() is a method of dynamic lists", S->fields.items[f].name, m), val_err();
    const IrField *v = sema_snode_view(S, n);
    int want = strcmp(m, "append") ? 0 : 1;
    if (call->call.args.n != want || call->call.nkw)
        return diag_error(sp, QD2007, "%s() takes %d argument%s, got %d", m, want, want == 1 ? "" : "s", call->call.args.n + call->call.nkw), val_err();
    int nidx = list.snode.idx ? list.snode.nidx : 0;
    if (nidx != v->ndim - 1)
        return diag_error(call->call.fn->span, QD2011, "%s(): index the list first, x[i].%s(...): '%s' has %d dimension%s besides its list's", m, m,
                          S->fields.items[f].name, v->ndim - 1, v->ndim == 2 ? "" : "s"), val_err();
    IrExpr *idx[IR_MAX_DIMS + 1];
    for (int k = 0; k < nidx; k++) idx[k] = irb_cast(S->arena, list.snode.idx[k], QT_I32);
    return node_op(S, m, n, idx, want ? call->call.args.items[0] : NULL, sp);
}

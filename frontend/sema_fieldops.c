/* Two operations of Quadrants on a field as a whole (qdc-lang(7) "Field addresses and stopped
 * gradients"):
 *   qd.get_addr(f, indices): the u64 address of f[indices] (IR_ADDR), the element f[indices]
 *     names (a layout-tagged field's indices are canonical, as for f[...]; a vector or matrix
 *     field's is its first component's, as Quadrants' f._snode); Quadrants provides
 *     it on its LLVM backends only, and so does qdc (SPIR-V refuses it, QD5101).
 *   qd.stop_grad(f): in the block the call is in and the blocks inside it, loads of f are
 *     constants to autodiff (IrRef.stop_grad), before the call as after it: Quadrants keeps the
 *     SNodes on the block (Block::stop_gradients) and its adjoint and dual passes skip a load
 *     whose block or an enclosing one lists the load's SNode. The call records (block, field);
 *     when the block is frozen (sema_freeze) its loads of the field are marked. */
#include "sema.h"
#include <string.h>

struct SemaStopGrad {
    const IrStmtVec *blk; /* the statements of the block the call is in */
    int field;
    struct SemaStopGrad *next;
};

bool sema_is_fieldop(const char *p) { return !strcmp(p, "qd.get_addr") || !strcmp(p, "qd.stop_grad"); }

static bool one_field(Sema *S, const Expr *call, const char *name, int nargs, bool vec_ok, Val *out) {
    if (call->call.nkw || call->call.args.n != nargs) {
        diag_error(call->span, QD2007, "'%s' takes %d positional argument%s, got %d%s", name, nargs, nargs == 1 ? "" : "s",
                   call->call.args.n, call->call.nkw ? " and keywords" : "");
        return false;
    }
    if (!S->cur) return diag_error(call->span, QD2019, "'%s' can only be called inside a kernel or qd.func", name), false;
    *out = sema_eval(S, call->call.args.items[0]);
    if (out->kind == V_ERR) return false;
    if (out->kind == V_FIELD && S->fields.items[out->index].ndim < 0) return false; /* never placed: reported at its declaration */
    if (out->kind == V_FIELD && (vec_ok || !S->fields.items[out->index].elem_ndim)) return true;
    if (out->kind == V_VEC && vec_ok) return true;
    if (out->kind == V_FIELD || (out->kind == V_VEC && out->vec.c[0].kind == V_FIELD))
        diag_error(call->call.args.items[0]->span, QD2019, "'%s' takes a scalar field: Quadrants applies it to one SNode "
                   "(a vector or matrix field's first component only)", name);
    else
        diag_error(call->call.args.items[0]->span, QD2019, "'%s' takes a field, got %s", name, val_describe(*out));
    return false;
}

/* qd.get_addr(f, [i, j]) / qd.get_addr(f, i): f[i, j] evaluated as a subscript, then its address. */
static Val get_addr(Sema *S, const Expr *call) {
    Val f;
    if (!one_field(S, call, "qd.get_addr", 2, true, &f)) return val_err();
    const Expr *ix = call->call.args.items[1];
    Expr *sub = ARENA_NEW(S->arena, Expr), *tup = NULL;
    if (ix->kind == E_LIST) { /* [i, j]: the indices, as f[i, j] */
        tup = ARENA_NEW(S->arena, Expr);
        *tup = *ix, tup->kind = E_TUPLE;
    }
    *sub = (Expr){.kind = E_SUBSCRIPT, .span = call->span};
    sub->sub.obj = call->call.args.items[0], sub->sub.index = tup ? tup : (Expr *)ix;
    Val r = sema_eval(S, sub);
    if (r.kind == V_ERR) return r;
    if (r.kind == V_VEC) r = r.vec.c[0]; /* a vector or matrix field: its first component's (Quadrants: f._snode) */
    if (r.kind != V_REF || r.ref->kind != IR_REF_FIELD)
        return diag_error(ix->span, QD2011, "qd.get_addr needs one index per dimension of the field"), val_err();
    if (S->quant && sema_quant_is_ref(S, r.ref))
        return diag_error(call->call.args.items[0]->span, QD2019, "'qd.get_addr' of a quantized field: its elements are bits of a "
                                                                 "word and have no address of their own"), val_err();
    IrExpr *e = irb_new(S->arena, IR_ADDR, QT_U64, call->span);
    e->ref = r.ref;
    return val_expr(e);
}

static Val stop_grad(Sema *S, const Expr *call) {
    Val f;
    if (!one_field(S, call, "qd.stop_grad", 1, false, &f)) return val_err();
    struct SemaStopGrad *g = ARENA_NEW(S->arena, struct SemaStopGrad);
    *g = (struct SemaStopGrad){S->cur, f.index, S->stop_grad};
    S->stop_grad = g;
    return (Val){.kind = V_NONE};
}

Val sema_fieldop_call(Sema *S, const Expr *call, Val f) {
    return !strcmp(f.path, "qd.get_addr") ? get_addr(S, call) : stop_grad(S, call);
}

static IrExpr *mark_load(IrWalker *w, IrExpr *e) {
    const struct SemaStopGrad *g = w->ctx;
    if (e->kind == IR_LOAD && e->ref->kind == IR_REF_FIELD && e->ref->index == g->field) e->ref->stop_grad = true;
    return e;
}

void sema_stop_grad_freeze(Sema *S, const IrStmtVec *v, IrBlock *b) {
    for (struct SemaStopGrad **p = &S->stop_grad; *p;) {
        if ((*p)->blk != v) {
            p = &(*p)->next;
            continue;
        }
        IrWalker w = {.expr = mark_load, .ctx = *p};
        ir_walk_block(b, &w);
        ir_memo_free(&w.seen);
        *p = (*p)->next;
    }
}

void sema_stop_grad_move(Sema *S, const IrStmtVec *from, const IrStmtVec *to) {
    for (struct SemaStopGrad *g = S->stop_grad; g; g = g->next)
        if (g->blk == from) g->blk = to;
}

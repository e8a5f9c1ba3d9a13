/* Sparse matrix builders (qdc-lang(7) "Sparse matrix builders", qdc-abi(7) "Sparse matrix
 * builders"): `K: qd.types.sparse_matrix_builder()` is a kernel parameter the host fills with
 * qd.linalg.SparseMatrixBuilder(rows, cols, max_num_triplets=N): in the C ABI an ndarray of
 * 32-bit words [count, i0, j0, v0, i1, j1, v1, ...] of 1 + 3 * capacity elements (the layout
 * Quadrants' insert_triplet_f32 writes, f32 values as their bits). `K[i, j] += v` appends the
 * triplet (i, j, v), `K[i, j] -= v` the triplet (i, j, -v): an atomic add of 1 on the count
 * (lowered through the capability database like any atomic) claims a slot; a slot past the
 * capacity is not written, so the count says how many appends were made and min(count,
 * capacity) triplets are stored (Quadrants writes past the buffer). Any other use of K is an
 * error (Quadrants: "Only operations '+=' and '-=' are supported on sparse matrices."). */
#include "sema.h"
#include <string.h>

static const char *builder_path(Sema *S, const Expr *ann) {
    const char *p = ann && ann->kind == E_CALL ? sema_path(S, ann->call.fn) : ann ? sema_path(S, ann) : NULL;
    return p && (!strcmp(p, "qd.types.sparse_matrix_builder") || !strcmp(p, "qd.linalg.sparse_matrix_builder")) ? p : NULL;
}

/* The annotation qd.types.sparse_matrix_builder() (or the deprecated qd.linalg one): *p is the
 * triplet buffer. */
bool sema_builder_param(Sema *S, const Expr *ann, IrParam *p) {
    if (!builder_path(S, ann)) return false;
    p->kind = IR_PARAM_NDARRAY, p->type = QT_I32, p->ndim = 1, p->builder = true;
    return true;
}

/* qd.linalg.SparseMatrixBuilder(...) in host code: the array the script passes for such a
 * parameter. dtype= other than qd.f32 is not compiled (the buffer of f64 builders has 64-bit
 * words): false, and the call is QD2008 as an unknown qd.* call. */
bool sema_builder_new(Sema *S, const Expr *call, Val *out) {
    for (int k = 0; k < call->call.nkw; k++) {
        if (strcmp(call->call.kw[k].name, "dtype")) continue;
        const char *p = sema_path(S, call->call.kw[k].value);
        if (!p || (strcmp(p, "qd.f32") && strcmp(p, "qd.float32"))) {
            IrStmtVec *cur = S->cur;
            S->cur = NULL;
            int mark = diag_quiet_begin();
            Val v = sema_eval(S, call->call.kw[k].value);
            diag_quiet_end(mark);
            S->cur = cur;
            if (v.kind != V_TYPE || v.type != QT_F32) return false;
        }
    }
    *out = (Val){.kind = V_HOSTARRAY, .harr = {.type = QT_I32, .ndim = 1}};
    return true;
}

/* `K[i, j] += v` / `K[i, j] -= v` on a builder parameter: true when s is one (handled or
 * reported), false when its target is not a builder's element. */
bool sema_builder_augassign(Sema *S, const Stmt *s) {
    const Expr *t = s->aug.target;
    if (t->kind != E_SUBSCRIPT || t->sub.obj->kind != E_NAME) return false; /* the parameter's name: nothing evaluated */
    Binding *b = sema_lookup(S, t->sub.obj->name);
    if (!b || b->v.kind != V_NDARRAY || !S->params.items[b->v.index].builder) return false;
    Val o = b->v;
    if (s->aug.op != T_PLUS && s->aug.op != T_MINUS)
        return diag_error(t->span, QD2010, "Only operations '+=' and '-=' are supported on sparse matrices."), true;
    const Expr *ix = t->sub.index;
    if (ix->kind != E_TUPLE || ix->list.n != 2)
        return diag_error(ix->span, QD2042, "a sparse matrix builder takes two indices, K[i, j]"), true;
    IrExpr *i = sema_expr(S, ix->list.items[0]), *j = sema_expr(S, ix->list.items[1]), *v = sema_expr(S, s->aug.value);
    if (!i || !j || !v) return true;
    if (!qt_is_integral(i->type) || !qt_is_integral(j->type))
        return diag_error(ix->span, QD2042, "a sparse matrix builder's indices must be integers, got %s and %s", qt_name(i->type),
                          qt_name(j->type)), true;
    Arena *a = S->arena;
    Span sp = s->span;
    int param = o.index;
    /* Quadrants: ops.cast(value, dtype), negated for -= */
    v = irb_cast(a, v, QT_F32);
    if (s->aug.op == T_MINUS) {
        IrExpr *n = irb_new(a, IR_UNARY, QT_F32, sp);
        n->un.op = IR_NEG, n->un.a = v;
        v = n;
    }
    /* evaluated before the slot is claimed, each once */
    IrExpr *vals[3] = {irb_cast(a, i, QT_I32), irb_cast(a, j, QT_I32), NULL};
    IrExpr *bits = irb_new(a, IR_BITCAST, QT_I32, sp);
    bits->arg = v;
    vals[2] = bits;
    for (int k = 0; k < 3; k++) {
        int l = sema_new_local(S, "$triplet", QT_I32);
        IrStmt *as = sema_stmt_new(S, IR_ASSIGN, sp);
        as->assign.local = l, as->assign.value = vals[k];
        sema_emit(S, as);
        vals[k] = sema_local(S, l, sp);
    }
    /* slot = atomic_add(K[0], 1) */
    IrRef *cnt = ARENA_NEW(a, IrRef);
    cnt->kind = IR_REF_NDARRAY, cnt->index = param, cnt->type = QT_I32, cnt->space = QSPACE_GLOBAL, cnt->span = t->span;
    cnt->idx = ARENA_ARRAY(a, IrExpr *, 1), cnt->nidx = 1, cnt->idx[0] = irb_int(a, QT_I32, 0, sp);
    IrExpr *add = irb_new(a, IR_MEMOP, QT_I32, sp);
    add->mem.op = QOP_ADD, add->mem.ref = cnt, add->mem.val = irb_int(a, QT_I32, 1, sp), add->mem.result_used = true;
    add->mem.order = QORD_RELAXED, add->mem.scope = QSCOPE_DEVICE;
    int slot = sema_new_local(S, "$slot", QT_I32);
    IrStmt *as = sema_stmt_new(S, IR_ASSIGN, sp);
    as->assign.local = slot, as->assign.value = add;
    sema_emit(S, as);
    /* if slot < (K.shape[0] - 1) // 3: the three words */
    IrExpr *shape = irb_new(a, IR_SHAPE, QT_I32, sp);
    shape->shape.param = param, shape->shape.axis = 0;
    IrExpr *cap = irb_binary(a, IR_DIV, irb_binary(a, IR_SUB, shape, irb_int(a, QT_I32, 1, sp), sp), irb_int(a, QT_I32, 3, sp), sp);
    IrStmt *iff = sema_stmt_new(S, IR_IF, sp);
    iff->if_.cond = irb_binary(a, IR_LT, sema_local(S, slot, sp), cap, sp);
    iff->if_.then.stmts = ARENA_ARRAY(a, IrStmt *, 3), iff->if_.then.n = 3;
    for (int k = 0; k < 3; k++) {
        IrRef *r = ARENA_NEW(a, IrRef);
        r->kind = IR_REF_NDARRAY, r->index = param, r->type = QT_I32, r->space = QSPACE_GLOBAL, r->span = t->span;
        r->idx = ARENA_ARRAY(a, IrExpr *, 1), r->nidx = 1;
        r->idx[0] = irb_binary(a, IR_ADD, irb_binary(a, IR_MUL, sema_local(S, slot, sp), irb_int(a, QT_I32, 3, sp), sp),
                               irb_int(a, QT_I32, 1 + k, sp), sp);
        IrStmt *st = sema_stmt_new(S, IR_STORE, sp);
        st->store.ref = r, st->store.value = vals[k];
        iff->if_.then.stmts[k] = st;
    }
    sema_emit(S, iff);
    return true;
}

/* ---- qd.lang.impl.call_internal(name, *args) (qdc-lang(7) "Sparse matrix builders") ----
 * The functions of Quadrants' LLVM runtime a kernel may call by name. Those with a meaning for a
 * compiled kernel are computed here: do_nothing() and refresh_counter() return 0,
 * test_internal_func_args(f32 i, f32 j, i32 k) returns (i32)((i + j) * k), each argument
 * checked as Quadrants' type system does (a Python float is f32, an int i32). The others work
 * on Quadrants' runtime itself (its list and node managers, the autodiff stack, CUDA lanes):
 * a located QD2008 says so. */
bool sema_is_internal_call(const char *path) {
    return !strcmp(path, "qd.impl.call_internal") || !strcmp(path, "qd.lang.impl.call_internal");
}

Val sema_internal_call(Sema *S, const Expr *call) {
    const Expr *name = call->call.args.n ? call->call.args.items[0] : NULL;
    if (!name || name->kind != E_STR)
        return diag_error(call->span, QD2007, "call_internal takes the internal function's name as a string first"), val_err();
    int nargs = call->call.args.n - 1;
    const char *n = name->str;
    if (!strcmp(n, "do_nothing") || !strcmp(n, "refresh_counter")) {
        if (nargs) return diag_error(call->span, QD2007, "%d arguments were passed in but expected 0", nargs), val_err();
        return val_expr(irb_int(S->arena, QT_I32, 0, call->span));
    }
    if (strcmp(n, "test_internal_func_args"))
        return diag_error(name->span, QD2008, "internal function '%s' works on Quadrants' own runtime (its memory managers, the "
                          "autodiff stack, CUDA lanes), which a kernel compiled by qdc does not have", n), val_err();
    if (nargs != 3)
        return diag_error(call->span, QD2007, "%d arguments were passed in but expected 3. this is not supposed to happen; please "
                          "report this as a bug", nargs), val_err();
    static const QdType want[3] = {QT_F32, QT_F32, QT_I32};
    IrExpr *a[3];
    for (int k = 0; k < 3; k++) {
        a[k] = sema_expr(S, call->call.args.items[k + 1]);
        if (!a[k]) return val_err();
        QdType t = a[k]->literal ? (qt_is_float(a[k]->type) ? QT_F32 : QT_I32) : a[k]->type;
        if (t != want[k])
            return diag_error(call->call.args.items[k + 1]->span, QD2021, "expected %s for argument #%d, but got %s", qt_name(want[k]),
                              k + 1, qt_name(t)), val_err();
        a[k] = irb_cast(S->arena, a[k], want[k]);
    }
    Span sp = call->span;
    IrExpr *r = irb_binary(S->arena, IR_MUL, irb_binary(S->arena, IR_ADD, a[0], a[1], sp), irb_cast(S->arena, a[2], QT_F32), sp);
    return val_expr(irb_cast(S->arena, r, QT_I32));
}

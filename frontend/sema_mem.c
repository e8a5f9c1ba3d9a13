/* The memory core of the language: every qd.atomic_* op (with the qdc order=/scope= keywords),
 * qd.volatile_load, fences, block.sync/thread_idx, SharedArray declarations, and atomic
 * augmented assignment on global targets. Error cases follow research/quadrants.md §1.2. */
#include "sema.h"
#include <string.h>

/* qd.atomic_<name> -> op; one row per op of ops.def the language exposes. */
static const struct { const char *name; QdOp op; bool int_only; } atomics[] = {
    {"qd.atomic_add", QOP_ADD, false}, {"qd.atomic_sub", QOP_SUB, false}, {"qd.atomic_mul", QOP_MUL, false},
    {"qd.atomic_min", QOP_MIN, false}, {"qd.atomic_max", QOP_MAX, false}, {"qd.atomic_and", QOP_AND, true},
    {"qd.atomic_or", QOP_OR, true}, {"qd.atomic_xor", QOP_XOR, true},
    {"qd.atomic_exchange", QOP_EXCHANGE, false}, {"qd.atomic_cas", QOP_CAS, true},
    {"qd.atomic_inc", QOP_INC, true}, {"qd.atomic_dec", QOP_DEC, true}, {"qd.atomic_load", QOP_LOAD, false},
    {"qd.atomic_store", QOP_STORE, false},
};
_Static_assert(ARRAY_LEN(atomics) == QOP_COUNT, "every memory op has a qd.atomic_* spelling");

static const char *const block_builtins[] = {
    "qd.volatile_load", "qd.simt.grid.mem_fence", "qd.simt.grid.memfence", "qd.simt.block.mem_fence",
    "qd.simt.block.mem_sync", "qd.simt.block.sync", "qd.simt.block.thread_idx",
    "qd.simt.block.global_thread_idx", "qd.simt.block.SharedArray",
};

bool sema_is_mem_builtin(const char *path) {
    for (size_t k = 0; k < ARRAY_LEN(atomics); k++)
        if (!strcmp(atomics[k].name, path)) return true;
    for (size_t k = 0; k < ARRAY_LEN(block_builtins); k++)
        if (!strcmp(block_builtins[k], path)) return true;
    return false;
}

/* Every memory builtin's path, for "did you mean" (sema_expr.c). */
int sema_mem_builtin_names(const char **out, int max) {
    int n = 0;
    for (size_t k = 0; k < ARRAY_LEN(atomics) && n < max; k++) out[n++] = atomics[k].name;
    for (size_t k = 0; k < ARRAY_LEN(block_builtins) && n < max; k++) out[n++] = block_builtins[k];
    return n;
}

static bool need_kernel(Sema *S, const Expr *call, const char *path) {
    if (S->cur) return true;
    diag_error(call->span, QD2019, "'%s' can only be used inside a kernel or qd.func", path);
    return false;
}

/* ---- targets ---- */

/* The first operand of an atomic: a field/ndarray/SharedArray element or a local scalar. */
static IrRef *target_ref(Sema *S, Val v, const Expr *x, const char *opname) {
    if (v.kind == V_ERR) return NULL;
    if (v.kind == V_REF) return v.ref;
    if (v.kind == V_LOCAL) {
        IrRef *r = ARENA_NEW(S->arena, IrRef);
        r->kind = IR_REF_LOCAL, r->index = v.index, r->type = S->locals.items[v.index].type, r->span = x->span;
        return r;
    }
    if (v.kind == V_VEC)
        diag_error(x->span, QD2041, "unsupported operand type(s) for '%s': a scalar operand with a vector target is "
                                      "broadcast, but not a vector operand with a scalar target", opname);
    else if (v.kind == V_FIELD || v.kind == V_NDARRAY || v.kind == V_SHARED)
        diag_error(x->span, QD2032, "cannot use %s directly as the first operand of '%s'; index it, e.g. x[i] or x[None]",
                   val_describe(v), opname);
    else if (v.kind == V_EXPR && v.e->kind == IR_PARAM)
        diag_error(x->span, QD2031, "cannot use a non-writable target as the first operand of '%s' (kernel arguments are read-only)", opname);
    else
        diag_error(x->span, QD2031, "cannot use a non-writable target as the first operand of '%s'", opname);
    return NULL;
}

static bool int_operand(const char *opname, QdType t, Span sp, const char *what) {
    if (qt_is_integral(t)) return true;
    diag_error(sp, QD2030, "'%s' requires integer operands, got %s%s", opname, qt_name(t), what);
    return false;
}

/* A constant whose value survives conversion to t is not narrowed, whatever its literal type. */
static bool const_fits(Sema *S, IrExpr *v, QdType t) {
    if (!ir_is_const(v)) return false;
    IrExpr *back = irb_cast(S->arena, irb_cast(S->arena, v, t), v->type);
    return qt_is_float(v->type) ? back->c.f == v->c.f : back->c.u == v->c.u;
}

/* The value operand v cast to the target type t, warning when that narrows it. */
static IrExpr *atomic_value(Sema *S, IrExpr *v, Span sp, QdType t, const char *opname) {
    if (qt_promote(t, v->type) != t && !const_fits(S, v, t))
        diag_warning(sp, QD2101, "'%s' operand of type %s is narrowed to the target's type %s", opname, qt_name(v->type), qt_name(t));
    return irb_cast(S->arena, v, t);
}

/* ---- order= and scope= ---- */

static bool order_scope(Sema *S, const Expr *call, QdOp op, const char *opname, QdOrder *ord, QdScope *scope) {
    *ord = QORD_RELAXED, *scope = QSCOPE_DEVICE;
    bool ok = true;
    for (int k = 0; k < call->call.nkw; k++) {
        const Keyword *kw = &call->call.kw[k];
        bool is_order = !strcmp(kw->name, "order");
        if (!is_order && strcmp(kw->name, "scope")) {
            diag_error(kw->span, QD2007, "'%s' has no keyword argument '%s' (only order= and scope=)", opname, kw->name);
            ok = false;
            continue;
        }
        if (kw->value->kind != E_STR) {
            diag_error(kw->value->span, QD2007, "%s= takes a string literal such as \"%s\"", kw->name, is_order ? "acquire" : "block");
            ok = false;
            continue;
        }
        int v = is_order ? qord_from_name(kw->value->str) : qscope_from_name(kw->value->str);
        if (v < 0) {
            diag_error(kw->value->span, is_order ? QD2035 : QD2036, "unknown memory %s \"%s\"; expected %s", kw->name,
                       kw->value->str, is_order ? "\"relaxed\", \"acquire\", \"release\", \"acq_rel\" or \"seq_cst\""
                                                : "\"block\", \"cluster\", \"device\" or \"system\"");
            static const char *const orders[] = {"relaxed", "acquire", "release", "acq_rel", "seq_cst"};
            static const char *const scopes[] = {"block", "cluster", "device", "system"};
            const char *best = is_order ? closest_name(kw->value->str, orders, (int)ARRAY_LEN(orders))
                                        : closest_name(kw->value->str, scopes, (int)ARRAY_LEN(scopes));
            if (best) diag_note(kw->value->span, "did you mean \"%s\"?", best);
            ok = false;
        } else if (is_order) {
            *ord = (QdOrder)v;
            bool bad = (op == QOP_LOAD && (v == QORD_RELEASE || v == QORD_ACQ_REL)) ||
                       (op == QOP_STORE && (v == QORD_ACQUIRE || v == QORD_ACQ_REL));
            if (bad) {
                diag_error(kw->value->span, QD2037, "memory order \"%s\" is not valid for '%s'", kw->value->str, opname);
                ok = false;
            }
        } else {
            *scope = (QdScope)v;
        }
    }
    return ok;
}

/* ---- atomics ---- */

static IrExpr *memop_new(Sema *S, QdOp op, IrRef *ref, Span sp) {
    IrExpr *e = irb_new(S->arena, IR_MEMOP, op == QOP_STORE ? QT_VOID : ref->type, sp);
    e->mem.op = op;
    e->mem.ref = ref;
    e->mem.result_used = true;
    e->mem.order = QORD_RELAXED, e->mem.scope = QSCOPE_DEVICE;
    return e;
}

static Val atomic_scalar(Sema *S, const Expr *call, int row, Val tv, QdOrder ord, QdScope scope);

/* qd.atomic_<op>(v[i], w) on a vector or matrix target: one independent scalar atomic per
 * component (reference 000: no all-or-nothing guarantee); a scalar operand is broadcast. The
 * result is the vector of old values; as an expression statement the atomics' results are
 * unused (so a target may pick a non-returning form). CAS on a vector is a type error, as in
 * Quadrants. */
static Val vec_atomic(Sema *S, const Expr *call, int row, Val tv, QdOrder ord, QdScope scope) {
    const char *opname = atomics[row].name + 3;
    QdOp op = atomics[row].op;
    const Expr *const *a = (const Expr *const *)call->call.args.items;
    if (op == QOP_CAS || op == QOP_INC || op == QOP_DEC) {
        diag_error(a[0]->span, QD2041, "'%s' on a vector or matrix is not supported; apply it to one component, e.g. v[i][0]", opname);
        return val_err();
    }
    bool discarded = call == sema_discarded;
    Val val = {.kind = V_NONE};
    if (qop_operands(op) == 1) {
        val = sema_eval(S, a[1]);
        if (val.kind == V_ERR) return val;
        if (val.kind == V_VEC && (val.vec.n != tv.vec.n || val.vec.m != tv.vec.m)) {
            diag_error(a[1]->span, QD2040, "'%s' operand is %s but the target is %s", opname, val_describe(val), val_describe(tv));
            return val_err();
        }
        if (val.kind != V_VEC) { /* broadcast: evaluated once */
            IrExpr *e = sema_rvalue(S, val, a[1]->span);
            if (!e) return val_err();
            if (e->kind != IR_CONST && e->kind != IR_LOCAL && e->kind != IR_PARAM) {
                int l = sema_new_local(S, "$operand", e->type);
                IrStmt *st = sema_stmt_new(S, IR_ASSIGN, a[1]->span);
                st->assign.local = l, st->assign.value = e;
                sema_emit(S, st);
                e = sema_local(S, l, a[1]->span);
            }
            val = val_expr(e);
        }
    }
    Val r = vec_make(S, tv.vec.n, tv.vec.m);
    for (int k = 0; k < vec_len(tv); k++) {
        Expr fake = *call;
        fake.call.args.items = ARENA_ARRAY(S->arena, Expr *, 2);
        fake.call.args.items[0] = call->call.args.items[0];
        if (qop_operands(op) == 1)
            fake.call.args.items[1] = (Expr *)sema_val_node(S, val.kind == V_VEC ? val.vec.c[k] : val, 7, a[1]->span);
        Val old = atomic_scalar(S, &fake, row, tv.vec.c[k], ord, scope);
        if (old.kind == V_ERR) return old;
        IrStmt *st;
        if (discarded || op == QOP_STORE) {
            old.e->mem.result_used = false;
            st = sema_stmt_new(S, IR_EVAL, call->span);
            st->eval = old.e;
        } else { /* the old value, in order: each atomic runs once, where the call is */
            int l = sema_new_local(S, "$old", old.e->type);
            st = sema_stmt_new(S, IR_ASSIGN, call->span);
            st->assign.local = l, st->assign.value = old.e;
            r.vec.c[k] = (Val){.kind = V_LOCAL, .index = l};
        }
        sema_emit(S, st);
    }
    return discarded || op == QOP_STORE ? (Val){.kind = V_NONE} : r;
}

static Val atomic_call(Sema *S, const Expr *call, int row) {
    const char *opname = atomics[row].name + 3;
    QdOp op = atomics[row].op;
    int want = 1 + qop_operands(op);
    if (call->call.args.n != want) {
        diag_error(call->span, QD2007, "'%s' takes %d positional argument%s, got %d", opname, want, want == 1 ? "" : "s",
                   call->call.args.n);
        return val_err();
    }
    QdOrder ord;
    QdScope scope;
    bool ok = order_scope(S, call, op, opname, &ord, &scope);
    const Expr *const *a = (const Expr *const *)call->call.args.items;
    Val tv = sema_eval(S, a[0]);
    if (tv.kind == V_VEC) return ok ? vec_atomic(S, call, row, tv, ord, scope) : val_err();
    IrRef *ref = target_ref(S, tv, a[0], opname);
    if (!ref || !ok) return val_err();
    if (atomics[row].int_only && !int_operand(opname, ref->type, a[0]->span, "")) return val_err();
    if (want != 2) return atomic_scalar(S, call, row, tv, ord, scope);
    Val probe = sema_eval(S, a[1]); /* a vector operand needs a vector target */
    if (probe.kind == V_VEC) {
        diag_error(a[1]->span, QD2041, "unsupported operand type(s) for '%s': a vector operand needs a vector or matrix target", opname);
        return val_err();
    }
    Expr fake = *call;
    fake.call.args.items = ARENA_ARRAY(S->arena, Expr *, 2);
    fake.call.args.items[0] = call->call.args.items[0];
    fake.call.args.items[1] = (Expr *)sema_val_node(S, probe, 7, a[1]->span);
    return atomic_scalar(S, &fake, row, tv, ord, scope);
}

static Val atomic_scalar(Sema *S, const Expr *call, int row, Val tv, QdOrder ord, QdScope scope) {
    const char *opname = atomics[row].name + 3;
    QdOp op = atomics[row].op;
    int want = 1 + qop_operands(op);
    const Expr *const *a = (const Expr *const *)call->call.args.items;
    IrRef *ref = target_ref(S, tv, a[0], opname);
    if (!ref) return val_err();
    if (S->quant && sema_quant_is_ref(S, ref)) return sema_quant_atomic(S, call, ref, op, opname); /* a CAS loop on its word */
    if (atomics[row].int_only && !int_operand(opname, ref->type, a[0]->span, "")) return val_err();
    IrExpr *e = memop_new(S, op, ref, call->span);
    e->mem.order = ord, e->mem.scope = scope;
    if (op == QOP_CAS) {
        IrExpr *exp = sema_expr(S, a[1]);
        if (!exp || !int_operand(opname, exp->type, a[1]->span, " for 'expected'")) return val_err();
        e->mem.val = irb_cast(S->arena, exp, ref->type); /* Quadrants: an implicit cast, no warning */
        IrExpr *des = sema_expr(S, a[2]);
        if (!des || !int_operand(opname, des->type, a[2]->span, " for 'desired'")) return val_err();
        e->mem.val2 = atomic_value(S, des, a[2]->span, ref->type, opname);
    } else if (want == 2) {
        IrExpr *probe = sema_expr(S, a[1]);
        if (!probe) return val_err();
        if (atomics[row].int_only && !int_operand(opname, probe->type, a[1]->span, "")) return val_err();
        e->mem.val = atomic_value(S, probe, a[1]->span, ref->type, opname);
    }
    return val_expr(e);
}

static Val volatile_load(Sema *S, const Expr *call) {
    if (call->call.args.n != 1 || call->call.nkw) {
        diag_error(call->span, QD2007, "'volatile_load' takes exactly 1 argument (no order= or scope=)");
        return val_err();
    }
    const Expr *x = call->call.args.items[0];
    Val v = sema_eval(S, x);
    if (v.kind == V_ERR) return v;
    if (v.kind == V_VEC) {
        Val r = vec_make(S, v.vec.n, v.vec.m);
        for (int k = 0; k < vec_len(v); k++) {
            if (v.vec.c[k].kind != V_REF) {
                diag_error(x->span, QD2034, "volatile_load requires a global lvalue (a field, ndarray or SharedArray element); "
                                              "function-scope local arrays are not visible to other threads");
                return val_err();
            }
            IrExpr *e = memop_new(S, QOP_LOAD, v.vec.c[k].ref, call->span);
            e->mem.is_volatile = true;
            int l = sema_new_local(S, "$vload", e->type);
            IrStmt *st = sema_stmt_new(S, IR_ASSIGN, call->span);
            st->assign.local = l, st->assign.value = e;
            sema_emit(S, st);
            r.vec.c[k] = (Val){.kind = V_LOCAL, .index = l};
        }
        return r;
    }
    if (v.kind == V_LOCAL) {
        diag_error(x->span, QD2034, "volatile_load requires a global lvalue (a field, ndarray or SharedArray element); "
                                      "'%s' is a local variable", S->locals.items[v.index].name);
        return val_err();
    }
    if (v.kind == V_FIELD || v.kind == V_NDARRAY || v.kind == V_SHARED) {
        diag_error(x->span, QD2032, "cannot pass %s directly to volatile_load; pass an element, e.g. flags[i] (cannot pass a Field directly to "
                   "'qd.volatile_load'; index it first)", val_describe(v));
        return val_err();
    }
    if (v.kind != V_REF) {
        diag_error(x->span, QD2033, "volatile_load requires an lvalue, e.g. flags[i]");
        return val_err();
    }
    IrExpr *e = memop_new(S, QOP_LOAD, v.ref, call->span);
    e->mem.is_volatile = true;
    return val_expr(e);
}

/* ---- block and grid ---- */

static Val fence(Sema *S, const Expr *call, QdScope scope) {
    IrStmt *st = sema_stmt_new(S, IR_FENCE, call->span);
    st->fence.scope = scope, st->fence.order = QORD_SEQ_CST;
    sema_emit(S, st);
    return (Val){.kind = V_NONE};
}

static bool shared_shape(Sema *S, const Expr *e, IrShared *sh) {
    int n = sema_const_shape(S, e, sh->shape, IR_MAX_DIMS, "a SharedArray shape");
    if (n < 0) return false;
    if (n < 1) return diag_error(e->span, QD2018, "a SharedArray has 1 to %d dimensions", IR_MAX_DIMS), false;
    sh->ndim = n, sh->elems = 1;
    for (int k = 0; k < n; k++) {
        if (sh->shape[k] <= 0 || sh->shape[k] > (1 << 24) || sh->elems * sh->shape[k] > (1 << 24)) {
            diag_error(sema_shape_span(e, k), QD2018, "SharedArray extent %lld is out of range (1 to 16777216 elements)", (long long)sh->shape[k]);
            return false;
        }
        sh->elems *= sh->shape[k];
    }
    return true;
}

static Val shared_array(Sema *S, const Expr *call) {
    IrShared sh = {0};
    const Expr *shape = call->call.args.n > 0 ? call->call.args.items[0] : NULL, *dt = call->call.args.n > 1 ? call->call.args.items[1] : NULL;
    for (int k = 0; k < call->call.nkw; k++) {
        if (!strcmp(call->call.kw[k].name, "shape")) shape = call->call.kw[k].value;
        else if (!strcmp(call->call.kw[k].name, "dtype")) dt = call->call.kw[k].value;
        else return diag_error(call->call.kw[k].span, QD2007, "SharedArray takes shape and dtype"), val_err();
    }
    if (!shape || !dt) return diag_error(call->span, QD2007, "SharedArray takes (shape, dtype)"), val_err();
    if (S->task < 0 || !S->k) return diag_error(call->span, QD2018, "a SharedArray must be declared inside a kernel"), val_err();
    int en = 0, em = 0;
    if (!(sema_vec_type_of(S, dt, &sh.type, &en, &em) && en > 0) && !sema_annotation_type(S, dt, &sh.type)) return val_err();
    if (!shared_shape(S, shape, &sh)) return val_err();
    if (en > 0) { /* a vector or matrix element: its components are the last axes (AOS) */
        sh.elem_ndim = em ? 2 : 1;
        if (sh.ndim + sh.elem_ndim > IR_MAX_DIMS || sh.elems * en * (em ? em : 1) > (1 << 24)) {
            diag_error(call->span, QD2018, "a SharedArray of %s has at most %d dimensions and 16777216 scalar components",
                       em ? "matrices" : "vectors", IR_MAX_DIMS - sh.elem_ndim);
            return val_err();
        }
        sh.shape[sh.ndim++] = en, sh.elems *= en;
        if (em) sh.shape[sh.ndim++] = em, sh.elems *= em;
    }
    sh.name = "$shared", sh.task = S->task, sh.span = call->span;
    vec_push(&S->shared, sh);
    S->uses_block = true;
    return (Val){.kind = V_SHARED, .index = S->shared.len - 1};
}

Val sema_mem_call(Sema *S, const Expr *call, const char *p) {
    if (!need_kernel(S, call, p)) return val_err();
    for (size_t k = 0; k < ARRAY_LEN(atomics); k++)
        if (!strcmp(atomics[k].name, p)) return atomic_call(S, call, (int)k);
    if (!strcmp(p, "qd.volatile_load")) return volatile_load(S, call);
    if (!strcmp(p, "qd.simt.block.SharedArray")) return shared_array(S, call);
    if (call->call.args.n || call->call.nkw) return diag_error(call->span, QD2007, "'%s' takes no arguments", p), val_err();
    if (!strcmp(p, "qd.simt.grid.mem_fence") || !strcmp(p, "qd.simt.grid.memfence")) return fence(S, call, QSCOPE_DEVICE);
    if (!strcmp(p, "qd.simt.block.mem_fence") || !strcmp(p, "qd.simt.block.mem_sync")) return fence(S, call, QSCOPE_BLOCK);
    if (!strcmp(p, "qd.simt.block.sync")) {
        sema_emit(S, sema_stmt_new(S, IR_BARRIER, call->span));
        S->uses_block = true;
        return (Val){.kind = V_NONE};
    }
    bool global = !strcmp(p, "qd.simt.block.global_thread_idx");
    S->uses_block |= !global;
    return val_expr(irb_new(S->arena, global ? IR_GLOBAL_THREAD_IDX : IR_THREAD_IDX, QT_I32, call->span));
}

/* x[i] op= v on a global target: += -= &= |= ^= are atomic (result unused), the rest plain. */
void sema_augassign_global(Sema *S, const Stmt *st, IrRef *ref) {
    if (S->quant && sema_quant_augassign(S, st, ref)) return; /* a quantized member: one CAS loop */
    static const struct { int tok; QdOp op; const char *name; } atomic_ops[] = {
        {T_PLUS, QOP_ADD, "atomic_add"}, {T_MINUS, QOP_SUB, "atomic_sub"}, {T_AMP, QOP_AND, "atomic_and"},
        {T_PIPE, QOP_OR, "atomic_or"}, {T_CARET, QOP_XOR, "atomic_xor"},
    };
    for (size_t k = 0; k < ARRAY_LEN(atomic_ops); k++) {
        if (atomic_ops[k].tok != st->aug.op) continue;
        bool int_only = atomic_ops[k].op != QOP_ADD && atomic_ops[k].op != QOP_SUB;
        if (int_only && !int_operand(atomic_ops[k].name, ref->type, st->aug.target->span, "")) return;
        IrExpr *probe = sema_expr(S, st->aug.value);
        if (!probe || (int_only && !int_operand(atomic_ops[k].name, probe->type, st->aug.value->span, ""))) return;
        IrExpr *e = memop_new(S, atomic_ops[k].op, ref, st->span);
        e->mem.val = atomic_value(S, probe, st->aug.value->span, ref->type, atomic_ops[k].name);
        e->mem.result_used = false, e->mem.from_augassign = true;
        IrStmt *ev = sema_stmt_new(S, IR_EVAL, st->span);
        ev->eval = e;
        sema_emit(S, ev);
        return;
    }
    /* plain read-modify-write: indices with effects are evaluated once, into temporaries */
    for (int k = 0; k < ref->nidx; k++) {
        IrExpr *ix = ref->idx[k];
        if (ix->kind == IR_CONST || ix->kind == IR_LOCAL || ix->kind == IR_PARAM) continue;
        int l = sema_new_local(S, "$idx", QT_I32);
        IrStmt *as = sema_stmt_new(S, IR_ASSIGN, ix->span);
        as->assign.local = l, as->assign.value = ix;
        sema_emit(S, as);
        ref->idx[k] = sema_local(S, l, ix->span);
    }
    IrExpr *old = sema_rvalue(S, (Val){.kind = V_REF, .ref = ref}, st->aug.target->span);
    IrExpr *v = sema_expr(S, st->aug.value);
    IrExpr *r = sema_binop_tok(S, st->aug.op, old, v, st->span);
    if (!r) return;
    IrStmt *store = sema_stmt_new(S, IR_STORE, st->span);
    store->store.ref = ref, store->store.value = sema_convert(S, r, ref->type);
    sema_emit(S, store);
}

/* v op= w on a vector or matrix: per component; on storage, += -= &= |= ^= are one atomic per
 * component (fan-out), the rest plain read-modify-writes; a scalar w is broadcast. */
void sema_augassign_vec(Sema *S, const Stmt *st, Val target) {
    if (target.kind == V_ERR) return;
    Val w = sema_list_as_vec(S, sema_eval(S, st->aug.value), target); /* v += [1, 2, 3] */
    if (w.kind == V_ERR) return;
    if (w.kind == V_TUPLE) {
        diag_error(st->aug.value->span, QD2040, "cannot update %s with %s", val_describe(target), val_describe(w));
        return;
    }
    if (w.kind == V_VEC && (w.vec.n != target.vec.n || w.vec.m != target.vec.m)) {
        diag_error(st->aug.value->span, QD2040, "cannot update %s with %s of another shape", val_describe(target), val_describe(w));
        return;
    }
    if (w.kind != V_VEC) {
        Val one = sema_vec_materialize(S, (Val){.kind = V_VEC, .vec = {&w, 1, 0}}, "$operand", st->span);
        w = one.kind == V_VEC ? one.vec.c[0] : val_err();
    } else {
        w = sema_vec_materialize(S, w, "$operand", st->span);
    }
    if (w.kind == V_ERR) return;
    for (int k = 0; k < vec_len(target); k++) {
        Val c = target.vec.c[k];
        Expr *node = (Expr *)sema_val_node(S, w.kind == V_VEC ? w.vec.c[k] : w, 6, st->aug.value->span);
        Stmt fake = *st;
        fake.aug.value = node;
        if (c.kind == V_REF) {
            sema_augassign_global(S, &fake, c.ref);
        } else if (c.kind == V_LOCAL) {
            IrExpr *x = sema_binop_tok(S, st->aug.op, sema_local(S, c.index, st->span), sema_expr(S, node), st->span);
            if (!x) return;
            IrStmt *as = sema_stmt_new(S, IR_ASSIGN, st->span);
            as->assign.local = c.index, as->assign.value = sema_convert(S, x, S->locals.items[c.index].type);
            sema_emit(S, as);
        } else {
            diag_error(st->aug.target->span, QD2010, "cannot update %s in place", val_describe(target));
            return;
        }
    }
}

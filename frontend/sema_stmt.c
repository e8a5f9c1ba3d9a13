/* Statements inside kernels: assignments (Python function-scope locals; the first assignment
 * fixes a local's type), augmented assignment, if/while, serial and qd.static for loops,
 * break/continue, and qd.func inlining (return only as the last statement). */
#include "sema.h"
#include <string.h>

const Expr *sema_discarded;


IrBlock sema_freeze(Sema *S, IrStmtVec *v) {
    IrBlock b = {ARENA_ARRAY(S->arena, IrStmt *, v->len ? v->len : 1), v->len};
    if (v->len) memcpy(b.stmts, v->items, sizeof(IrStmt *) * (size_t)v->len);
    if (S->stop_grad) S->up->sema_stop_grad_freeze(S, v, &b);
    vec_free(v);
    return b;
}

/* Checks a nested block into a fresh statement vector. */
/* Quadrants' variable scopes (ast_transformer.py build_stmts, variable_scope_guard): the body of
 * an if, else, while or for is a scope of its own. A name assigned there that no enclosing
 * scope of the kernel or qd.func declares is created in it and is gone after it (a use there is
 * Quadrants' `Name "a" is not defined`); a loop's variables are the loop's. block_begin marks
 * the function scope's bindings, sema_block_end hides those made since. */
int sema_block_begin(Sema *S) { return S->k && S->scope ? S->scope->b.len : -1; }

void sema_block_end(Sema *S, int mark) {
    if (mark < 0 || !S->scope || mark >= S->scope->b.len) return;
    for (int k = mark; k < S->scope->b.len; k++) S->scope->b.items[k].name = ""; /* no name is empty */
    S->scope->index = NULL; /* rebuilt when wanted (scope_bind) */
}

/* A loop variable: a new binding even where the name is bound already (it shadows it in the loop). */
void sema_bind_loop_name(Sema *S, const Expr *name, Val v) {
    Binding *b = scope_find(S->scope, name->name);
    if (!S->k || !b) return (void)scope_bind(S, S->scope, name->name, v, name->span);
    vec_push(&S->scope->b, ((Binding){name->name, v, false, name->span}));
    S->scope->index = NULL;
}

static IrBlock sub_block(Sema *S, const StmtList *l) {
    IrStmtVec v = {0}, *saved = S->cur;
    S->cur = &v;
    S->dyn++;
    int mark = sema_block_begin(S);
    sema_block(S, l);
    sema_block_end(S, mark);
    S->dyn--;
    S->cur = saved;
    return sema_freeze(S, &v);
}

static void emit_assign(Sema *S, int local, IrExpr *value, Span sp) {
    IrStmt *st = sema_stmt_new(S, IR_ASSIGN, sp);
    st->assign.local = local;
    st->assign.value = sema_convert(S, value, S->locals.items[local].type);
    sema_emit(S, st);
}

/* ---- assignment ---- */

static bool is_scalar(Val v) { return v.kind == V_EXPR || v.kind == V_LOCAL || v.kind == V_REF; }

static Val eval_target(Sema *S, const Expr *t) { return sema_eval(S, t); }

static void store_ref(Sema *S, Val r, IrExpr *e, Span sp) {
    if (S->quant && S->up->sema_quant_store(S, r.ref, e, sp)) return; /* a quantized member: a CAS loop on its word */
    IrStmt *st = sema_stmt_new(S, IR_STORE, sp);
    st->store.ref = r.ref, st->store.value = irb_cast(S->arena, e, r.ref->type);
    sema_emit(S, st);
}

/* A vector variable: one local per component (a kernel-scope one shared between tasks: one
 * kernel-owned field per component). Reassignment keeps the shape. */
static void assign_vec_name(Sema *S, const Expr *target, Binding *b, Val v, Span sp) {
    bool same = b && b->v.kind == V_VEC && b->v.vec.n == v.vec.n && b->v.vec.m == v.vec.m;
    for (int k = 0; same && k < vec_len(b->v); k++) {
        Val c = b->v.vec.c[k];
        same = (c.kind == V_LOCAL && S->local_task.items[c.index] == S->task) || c.kind == V_REF;
    }
    if (same) return S->up->sema_vec_assign(S, eval_target(S, target), v, sp);
    if (b && b->v.kind == V_VEC && b->v.vec.c[0].kind == V_LOCAL && S->local_task.items[b->v.vec.c[0].index] == S->task) {
        diag_error(sp, QD2040, "cannot assign %s to '%s', which holds %s", val_describe(v), target->name, val_describe(b->v));
        return;
    }
    if (S->up->sema_is_promoted(S, target->name)) {
        Val r = S->up->vec_make(S, v.vec.n, v.vec.m);
        for (int k = 0; k < vec_len(v); k++) {
            IrExpr *e = sema_rvalue(S, v.vec.c[k], sp);
            if (!e) return;
            r.vec.c[k] = S->up->sema_promote(S, arena_printf(S->arena, "%s_%d", target->name, k), e->type, target->span);
            store_ref(S, r.vec.c[k], e, sp);
        }
        scope_bind(S, S->scope, target->name, r, target->span);
        return;
    }
    Val r = S->up->sema_vec_materialize(S, v, target->name, sp);
    scope_bind(S, S->scope, target->name, r, target->span);
}

/* Quadrants' make_constant_expr: a Python int in a kernel becomes a default_ip constant, so its
 * value (not the type qdc gave the literal: one made at module level, an IntEnum member, is i64)
 * must fit default_ip. */
static bool literal_fits_default_ip(const Sema *S, const IrExpr *e) {
    bool big = e->type == QT_U64 && e->c.u > (uint64_t)INT64_MAX;
    if (S->default_ip == QT_I32) return !big && e->c.i >= INT32_MIN && e->c.i <= INT32_MAX;
    if (S->default_ip == QT_I64) return !big;
    return true;
}

static void assign_name(Sema *S, const Expr *target, Val v, Span sp) {
    Binding *b = scope_find(S->scope, target->name);
    if (b && b->is_param) {
        diag_error(target->span, QD2038, "cannot assign to kernel argument '%s' (Quadrants: Kernel argument \"%s\" is immutable in the kernel)",
                   target->name, target->name);
        diag_note(b->decl, "'%s' is declared here", target->name);
        return;
    }
    if (v.kind == V_VEC) return assign_vec_name(S, target, b, v, sp);
    if (v.kind == V_STRUCT) { /* a struct variable: one local per component */
        if (b && b->v.kind == V_STRUCT && b->v.strct.st == v.strct.st && !S->up->sema_is_promoted(S, target->name))
            return S->up->sema_struct_assign(S, b->v, v, sp);
        if (S->up->sema_is_promoted(S, target->name))
            return (void)diag_error(sp, QD2045, "a struct variable used by more than one top-level loop is not supported; "
                                                  "create it inside the loop");
        Val r = S->up->sema_struct_materialize(S, v, target->name, sp);
        scope_bind(S, S->scope, target->name, r, target->span);
        return;
    }
    if (!is_scalar(v)) { /* compile-time objects (SharedArray, field, ...) are bound by name */
        if (v.kind == V_ERR) { /* later uses of the name stay quiet */
            scope_bind(S, S->scope, target->name, v, target->span);
            return;
        }
        if (v.kind == V_SHARED && S->shared.items[v.index].name[0] == '$') { /* unique per kernel */
            const char *name = target->name;
            for (int k = 0, n = 1; k < S->shared.len; k++)
                if (!strcmp(S->shared.items[k].name, name)) name = arena_printf(S->arena, "%s_%d", target->name, n++), k = -1;
            S->shared.items[v.index].name = name;
        }
        if (v.kind == V_NONE || v.kind == V_STR) {
            diag_error(sp, QD2019, "cannot assign %s to a variable in a kernel", val_describe(v));
            return;
        }
        scope_bind(S, S->scope, target->name, v, target->span);
        return;
    }
    IrExpr *e = sema_rvalue(S, v, sp);
    if (!e) {
        scope_bind(S, S->scope, target->name, val_err(), target->span);
        return;
    }
    if (S->k && sema_is_int_literal(e) && !literal_fits_default_ip(S, e)) {
        char lit[32]; /* Quadrants' make_constant_expr: a Python int becomes a default_ip constant */
        if (e->type == QT_U64) snprintf(lit, sizeof lit, "%llu", (unsigned long long)e->c.u);
        else snprintf(lit, sizeof lit, "%lld", (long long)e->c.i);
        diag_error(e->span, QD2171, "Integer literal %s exceeded the range of default_ip: %s, please specify the dtype via "
                                 "e.g. `qd.u64(%s)` or set a different `default_ip` in `qd.init()`", lit, qt_name(S->default_ip), lit);
        scope_bind(S, S->scope, target->name, val_err(), target->span);
        return;
    }
    if (b && b->v.kind == V_REF && S->up->sema_is_promoted(S, target->name)) return store_ref(S, S->up->sema_fresh_ref(S, b->v, target->span), e, sp);
    if (!b && S->up->sema_is_promoted(S, target->name)) return store_ref(S, S->up->sema_promote(S, target->name, e->type, target->span), e, sp);
    if (!b || b->v.kind != V_LOCAL || S->local_task.items[b->v.index] != S->task) { /* a new variable */
        int l = sema_new_local(S, target->name, e->type);
        b = scope_bind(S, S->scope, target->name, (Val){.kind = V_LOCAL, .index = l}, target->span);
    }
    emit_assign(S, b->v.index, e, sp);
}

/* s.a = ... on a dataclass instance: members are read-only (Quadrants rebinds no member in a
 * kernel; the contents of an array member are writable: s.a[i] = ...). */
static bool pydc_member(Sema *S, const Expr *target) {
    const Expr *o0 = target->attr.obj;
    while (o0->kind == E_ATTR) o0 = o0->attr.obj;
    if (o0->kind != E_NAME) return false; /* evaluated twice: only names, free of side effects */
    int mark = diag_quiet_begin();
    Val o = sema_eval(S, target->attr.obj);
    diag_quiet_end(mark);
    if (o.kind != V_PYDC) return false;
    diag_error(target->span, QD2010, "cannot assign to member '%s' of dataclass '%s': dataclass members are read-only in kernels "
               "and qd.funcs (the contents of an array member can be written: x.member[i] = ...)", target->attr.name,
               o.pydc.dc->cls->class_.name);
    return true;
}

void sema_assign(Sema *S, const Expr *target, Val v, Span sp) {
    if (v.kind == V_ERR && (target->kind == E_TUPLE || target->kind == E_LIST)) { /* each name quiet later (no cascade) */
        for (int k = 0; k < target->list.n; k++) sema_assign(S, target->list.items[k], v, sp);
        return;
    }
    if (target->kind == E_NAME) return assign_name(S, target, v, sp);
    if (target->kind == E_SUBSCRIPT || target->kind == E_ATTR) { /* x[i], v[0], v.x, v.xy, m[i, j] */
        if (target->kind == E_ATTR && pydc_member(S, target)) return;
        int pos[QD_VEC_MAX], sa, cnt;
        const Expr *d;
        if (target->kind == E_SUBSCRIPT && (cnt = sema_runtime_slice(S, target, pos, &sa, &d))) { /* m[i, :] = v, i at run time */
            if (cnt < 0 || v.kind == V_ERR) return;
            if (v.kind != V_VEC || v.vec.m || v.vec.n != cnt) {
                if (v.kind == V_VEC && !v.vec.m)
                    return diag_error(sp, QD2040, "cannot assign a vector of %d components to a slice of %d component%s", v.vec.n, cnt, cnt == 1 ? "" : "s");
                return diag_error(sp, QD2040, "cannot assign %s to a slice of %d component%s", val_describe(v), cnt, cnt == 1 ? "" : "s");
            }
            Val t = S->up->sema_vec_materialize(S, v, "$slice", sp); /* each component evaluated once */
            for (int k = 0; t.kind == V_VEC && k < cnt; k++) {
                Expr lit, pair, sub, *items[2];
                sema_runtime_slice_at(target, sa, d, pos[k], &lit, &pair, items, &sub);
                if (!S->up->sema_vec_dynamic_store(S, &sub, t.vec.c[k], NULL, sp)) return diag_error(sp, QD2010, "cannot assign to this slice");
            }
            return;
        }
        if (S->up->sema_vec_dynamic_store(S, target, v, NULL, sp)) return;
        Val r = sema_eval(S, target);
        if (r.kind == V_ERR) return; /* reported: the value is not checked against it */
        if (r.kind == V_VEC) return S->up->sema_vec_assign(S, r, S->up->sema_list_as_vec(S, v, r), sp); /* m[i] = [[1, 2], [3, 4]] */
        if (r.kind == V_STRUCT) return S->up->sema_struct_assign(S, r, v, sp);
        if (v.kind == V_VEC) {
            if (r.kind != V_ERR) diag_error(sp, QD2040, "cannot assign a vector to a scalar element");
            return;
        }
        IrExpr *e = sema_rvalue(S, v, sp);
        if (r.kind == V_ERR || !e) return;
        if (r.kind == V_LOCAL) return emit_assign(S, r.index, e, sp);
        if (r.kind != V_REF) {
            diag_error(target->span, QD2010, target->kind == E_ATTR ? "cannot assign to an attribute in a kernel" : "cannot assign to %s",
                       val_describe(r));
            return;
        }
        if (S->quant && S->up->sema_quant_store(S, r.ref, e, sp)) return; /* a quantized member: a CAS loop on its word */
        IrStmt *st = sema_stmt_new(S, IR_STORE, sp);
        st->store.ref = r.ref, st->store.value = sema_convert(S, e, r.ref->type);
        sema_emit(S, st);
        return;
    }
    if ((target->kind == E_TUPLE || target->kind == E_LIST) && v.kind == V_VEC && !v.vec.m && v.vec.n == target->list.n) {
        Val t = S->up->sema_vec_materialize(S, v, "$unpack", sp); /* a, b, c = v */
        for (int k = 0; t.kind == V_VEC && k < target->list.n; k++) sema_assign(S, target->list.items[k], t.vec.c[k], sp);
        return;
    }
    if ((target->kind == E_TUPLE || target->kind == E_LIST) && v.kind == V_SHAPE) { /* n, m = x.shape */
        const IrParam *p = &S->params.items[v.index];
        int n = p->ndim - p->elem_ndim;
        if (n != target->list.n)
            return (void)diag_error(sp, QD2007, "cannot unpack the shape of a %dd ndarray into %d targets", n, target->list.n);
        for (int k = 0; k < n; k++) { /* a new name is the shape itself: every loop of the kernel reads it (a qd.func's too) */
            const Expr *t = target->list.items[k];
            Val x = val_expr(S->up->sema_ndarray_shape(S, v.index, k, sp));
            Binding *b = t->kind == E_NAME ? sema_lookup(S, t->name) : NULL;
            if (t->kind == E_NAME && (!b || b->v.kind != V_LOCAL) && !S->up->sema_is_promoted(S, t->name)) scope_bind(S, S->scope, t->name, x, t->span);
            else sema_assign(S, t, x, sp);
        }
        return;
    }
    if (target->kind == E_TUPLE || target->kind == E_LIST) {
        if (v.kind != V_TUPLE || v.tuple.n != target->list.n) {
            if (v.kind != V_ERR)
                diag_error(sp, QD2007, "cannot unpack %s into %d targets", val_describe(v), target->list.n);
            return;
        }
        for (int k = 0; k < target->list.n; k++) sema_assign(S, target->list.items[k], v.tuple.items[k], sp);
        return;
    }
    if (target->kind != E_ERROR) diag_error(target->span, QD2010, "cannot assign to an attribute in a kernel");
}

/* Scalars of a tuple value are read into temporaries first, so `a, b = b, a` swaps. */
static Val snapshot(Sema *S, Val v, Span sp) {
    if (v.kind != V_TUPLE) return v;
    Val t = v;
    t.tuple.items = ARENA_ARRAY(S->arena, Val, v.tuple.n ? v.tuple.n : 1);
    for (int k = 0; k < v.tuple.n; k++) {
        t.tuple.items[k] = v.tuple.items[k];
        if (v.tuple.items[k].kind == V_VEC) t.tuple.items[k] = S->up->sema_vec_materialize(S, v.tuple.items[k], "$tmp", sp);
        if (v.tuple.items[k].kind == V_STRUCT) t.tuple.items[k] = S->up->sema_struct_materialize(S, v.tuple.items[k], "$tmp", sp);
        if (!is_scalar(v.tuple.items[k])) continue;
        IrExpr *e = sema_rvalue(S, v.tuple.items[k], sp);
        if (!e || ir_is_const(e)) continue;
        int l = sema_new_local(S, "$tmp", e->type);
        emit_assign(S, l, e, sp);
        t.tuple.items[k] = (Val){.kind = V_LOCAL, .index = l};
    }
    return t;
}

/* NAME = qd.static(x) with x compile-time: NAME is that Python value (Quadrants evaluates
 * qd.static when it compiles), not a variable, so every loop of the kernel sees it (a qd.func's
 * `BW = qd.static(is_backward)` before the loops it puts in the kernel). */
static bool static_name(Sema *S, const Stmt *s, Val v) {
    const Expr *t = s->assign.targets.n == 1 ? s->assign.targets.items[0] : NULL, *e = s->assign.value;
    if (!t || t->kind != E_NAME || e->kind != E_CALL || !val_is_host_scalar(v)) return false;
    const char *p = sema_path(S, e->call.fn);
    if (!p || strcmp(p, "qd.static")) return false;
    Binding *b = sema_lookup(S, t->name);
    if (b && b->v.kind == V_LOCAL && scope_find(S->scope, t->name) == b) { /* Quadrants: x = qd.static(...) creates x */
        diag_error(t->span, QD2171, "Recreating variables is not allowed: '%s' is a variable of this function already, and "
                                    "'%s = qd.static(...)' would create it again", t->name, t->name);
        diag_note(b->decl, "'%s' is created here", t->name);
        return true;
    }
    if ((b && b->v.kind == V_LOCAL) || S->up->sema_is_promoted(S, t->name)) return false;
    scope_bind(S, S->scope, t->name, v, t->span);
    return true;
}

static bool is_static_call(Sema *S, const Expr *e);

/* Quadrants' build_assign_basic: x[i] = qd.static(...) (an element or attribute target) is rejected */
static bool static_element(Sema *S, const Expr *t) {
    if (t->kind == E_TUPLE || t->kind == E_LIST) {
        for (int k = 0; k < t->list.n; k++)
            if (static_element(S, t->list.items[k])) return true;
        return false;
    }
    if (t->kind != E_SUBSCRIPT && t->kind != E_ATTR) return false;
    diag_error(t->span, QD2171, "Static assign cannot be used on elements in arrays: the value of an element or attribute target "
                                "cannot be qd.static(...)");
    return true;
}

static void stmt_assign(Sema *S, const Stmt *s) {
    if (S->up->sema_tile_stmt(S, s)) return; /* t[:] = arr[r0:r1, c0:c1], arr[...] = t (sema_tile.c) */
    if (s->assign.value->kind == E_CALL && is_static_call(S, s->assign.value))
        for (int k = 0; k < s->assign.targets.n; k++)
            if (static_element(S, s->assign.targets.items[k])) return;
    for (int k = 0; k < s->assign.targets.n; k++) /* before the value: `s.a = other_array` is a rebinding */
        if (s->assign.targets.items[k]->kind == E_ATTR && pydc_member(S, s->assign.targets.items[k])) return;
    Val v = snapshot(S, sema_eval(S, s->assign.value), s->assign.value->span);
    /* a = b = a + b: the value is computed once, before any target changes (it may read one) */
    if (s->assign.targets.n > 1 && (v.kind == V_REF || (v.kind == V_EXPR && (ir_has_effects(v.e) || !ir_is_const(v.e))))) {
        IrExpr *e = sema_rvalue(S, v, s->span);
        if (!e) return;
        int l = sema_new_local(S, "$tmp", e->type);
        emit_assign(S, l, e, s->span);
        v = (Val){.kind = V_LOCAL, .index = l};
    }
    if (static_name(S, s, v)) return;
    for (int k = 0; k < s->assign.targets.n; k++) sema_assign(S, s->assign.targets.items[k], v, s->assign.value->span);
}

/* NAME := value: assigned as `NAME = value` is; the expression is then the variable's value. */
Val sema_named_expr(Sema *S, const Expr *e) {
    if (!S->cur) return diag_error(e->span, QD1012, "assignment expressions (:=) are only supported inside a kernel or qd.func"), val_err();
    Val v = snapshot(S, sema_eval(S, e->bin.b), e->bin.b->span);
    if (v.kind == V_ERR) return v;
    sema_assign(S, e->bin.a, v, e->bin.b->span);
    return sema_eval(S, e->bin.a);
}

static void stmt_annassign(Sema *S, const Stmt *s) {
    QdType t;
    int n = 0, m = 0;
    if (S->up->sema_vec_type_of(S, s->ann.annotation, &t, &n, &m)) { /* v: vec3 = ... */
        if (!n || !s->ann.value) {
            if (n) diag_error(s->span, QD2042, "a vector variable needs a value");
            return;
        }
        Val v = sema_eval(S, s->ann.value);
        if (v.kind == V_VEC) {
            Val c = S->up->vec_make(S, v.vec.n, v.vec.m);
            for (int k = 0; k < vec_len(v); k++) c.vec.c[k] = val_expr(irb_cast(S->arena, sema_rvalue(S, v.vec.c[k], s->span), t));
            v = c;
        }
        return sema_assign(S, s->ann.target, v, s->span);
    }
    /* the annotation is evaluated where the statement is: a kernel's own `my_int = qd.i32` too */
    const Binding *alias = s->ann.annotation->kind == E_NAME ? sema_lookup(S, s->ann.annotation->name) : NULL;
    if (alias && alias->v.kind == V_TYPE) t = alias->v.type;
    else if (!sema_annotation_type(S, s->ann.annotation, &t)) return;
    if (s->ann.target->kind != E_NAME) {
        if (s->ann.value) sema_assign(S, s->ann.target, sema_eval(S, s->ann.value), s->span);
        return;
    }
    Binding *b = scope_find(S->scope, s->ann.target->name);
    if (b && b->is_param) {
        diag_error(s->ann.target->span, QD2038, "cannot assign to kernel argument '%s' (Quadrants: Kernel argument \"%s\" is immutable in "
                                                 "the kernel)", s->ann.target->name, s->ann.target->name);
        return;
    }
    IrExpr *e = s->ann.value ? sema_expr(S, s->ann.value) : irb_int(S->arena, t, 0, s->span);
    if (!e) return;
    /* a variable declared already (in this block or an enclosing one): Quadrants assigns to it,
     * and only with the type it has */
    Binding *known = sema_lookup(S, s->ann.target->name);
    if (known && known->v.kind == V_LOCAL && !known->is_param) {
        QdType have = S->locals.items[known->v.index].type;
        if (have != t) {
            diag_error(s->ann.annotation->span, QD2010, "'%s' is declared as %s already; an annotation cannot change its type to %s "
                                                        "(Quadrants: \"Static assign cannot have type overloading\")",
                       s->ann.target->name, qt_name(have), qt_name(t));
            diag_note(known->decl, "'%s' is declared here", s->ann.target->name);
            return;
        }
        if (s->ann.value) sema_assign(S, s->ann.target, val_expr(irb_cast(S->arena, e, t)), s->span);
        return;
    }
    if (!b && S->up->sema_is_promoted(S, s->ann.target->name))
        return store_ref(S, S->up->sema_promote(S, s->ann.target->name, t, s->ann.target->span), e, s->span);
    int l = sema_new_local(S, s->ann.target->name, t);
    scope_bind(S, S->scope, s->ann.target->name, (Val){.kind = V_LOCAL, .index = l}, s->ann.target->span);
    emit_assign(S, l, e, s->span);
}

static void stmt_augassign(Sema *S, const Stmt *s) {
    const Expr *t = s->aug.target;
    if (S->up->sema_tile_stmt(S, s)) return; /* t -= qd.outer(a, b) (sema_tile.c) */
    if (t->kind == E_ATTR && pydc_member(S, t)) return;
    if (t->kind == E_NAME) {
        Binding *b = scope_find(S->scope, t->name);
        if (b && b->is_param) {
            diag_error(t->span, QD2038, "cannot reassign kernel argument '%s' with an augmented assignment (Quadrants: Kernel argument \"%s\" "
                                        "is immutable in the kernel)", t->name, t->name);
            diag_note(b->decl, "'%s' is declared here", t->name);
            return;
        }
        if (b && b->v.kind == V_EXPR) { /* a substituted qd.func argument becomes a local */
            int l = sema_new_local(S, t->name, b->v.e->type);
            emit_assign(S, l, b->v.e, t->span);
            b->v = (Val){.kind = V_LOCAL, .index = l};
        }
        if (b && b->v.kind == V_REF && S->up->sema_is_promoted(S, t->name)) return S->up->sema_augassign_global(S, s, S->up->sema_fresh_ref(S, b->v, t->span).ref);
        if (b && b->v.kind == V_LOCAL && !sema_local_visible(S, b->v.index, t->span)) return;
        if (b && b->v.kind == V_VEC) return S->up->sema_augassign_vec(S, s, sema_eval(S, t));
        if (!b || b->v.kind != V_LOCAL) {
            Val v = sema_eval(S, t);
            if (v.kind != V_ERR) diag_error(t->span, QD2010, "cannot update '%s' in place: it is %s, not a local variable", t->name, val_describe(v));
            return;
        }
        IrExpr *r = sema_binop_tok(S, s->aug.op, sema_local(S, b->v.index, t->span), sema_expr(S, s->aug.value), s->span);
        if (r) emit_assign(S, b->v.index, r, s->span);
        return;
    }
    if (S->up->sema_builder_augassign(S, s)) return; /* K[i, j] += v on a sparse matrix builder */
    Val r = sema_eval(S, t);
    if (r.kind == V_ERR) return;
    if (r.kind == V_VEC) return S->up->sema_augassign_vec(S, s, r);
    if (r.kind == V_EXPR && t->kind == E_SUBSCRIPT) { /* v[i] op= x with a run-time i on a vector variable */
        if (S->up->sema_vec_dynamic_store(S, t, val_err(), s, s->span)) return; /* of a promoted vector */
        IrExpr *x = sema_binop_tok(S, s->aug.op, r.e, sema_expr(S, s->aug.value), s->span);
        if (x && S->up->sema_vec_dynamic_store(S, t, val_expr(x), NULL, s->span)) return;
    }
    if (r.kind == V_LOCAL) { /* v[0] += 1 on a vector variable */
        IrExpr *x = sema_binop_tok(S, s->aug.op, sema_local(S, r.index, t->span), sema_expr(S, s->aug.value), s->span);
        if (x) emit_assign(S, r.index, x, s->span);
        return;
    }
    if (r.kind != V_REF) return (void)diag_error(t->span, QD2010, "cannot update %s in place", val_describe(r));
    S->up->sema_augassign_global(S, s, r.ref);
}

/* ---- control flow ---- */

static void stmt_if(Sema *S, const Stmt *s) {
    if (s->if_.with) return S->up->sema_with(S, s, NULL); /* a kernel's `with` in run-time code or a qd.func */
    const Expr *c = s->if_.cond;
    if (c->kind == E_CALL) { /* if qd.static(cond): only the chosen branch exists */
        Val f = sema_eval(S, c->call.fn);
        if (f.kind == V_NS && !strcmp(f.path, "qd.static")) {
            IrExpr *v = sema_to_bool(S, sema_expr(S, c));
            int mark = sema_block_begin(S);
            if (v) sema_block(S, v->c.u ? &s->if_.then : &s->if_.els);
            sema_block_end(S, mark);
            return;
        }
    }
    IrExpr *cond = sema_to_bool(S, sema_expr(S, c));
    IrStmt *st = sema_stmt_new(S, IR_IF, s->span);
    st->if_.cond = cond;
    /* a condition that provably splits a subgroup (or the block): collectives (barriers) under
     * it are QD2074 (sema_simt.c) */
    int div = cond ? S->up->sema_divergence(S, cond) : 0;
    Span sg_at = S->sg_div_at, blk_at = S->block_div_at;
    if (div == 1) S->sg_divergent++, S->sg_div_at = c->span;
    if (div) S->block_divergent++, S->block_div_at = c->span;
    st->if_.then = sub_block(S, &s->if_.then);
    st->if_.els = sub_block(S, &s->if_.els);
    if (div == 1) S->sg_divergent--, S->sg_div_at = sg_at;
    if (div) S->block_divergent--, S->block_div_at = blk_at;
    if (cond) sema_emit(S, st);
}

/* ---- return under run-time control flow (qd.real_func) ---- */

static IrExpr *returned_flag(Sema *S, bool set, Span sp) {
    IrExpr *f = sema_local(S, S->rf.flag, sp);
    return set ? f : sema_binary(S, IR_EQ, f, irb_int(S->arena, QT_U1, 0, sp), sp);
}

static IrStmt *if_then(Sema *S, IrExpr *cond, IrStmtVec *then, Span sp) {
    IrStmt *st = sema_stmt_new(S, IR_IF, sp);
    st->if_.cond = cond, st->if_.then = sema_freeze(S, then);
    return st;
}

/* `if returned: break` in a run-time loop of the function. */
static void leave_if_returned(Sema *S, Span sp) {
    IrStmtVec v = {0};
    vec_push(&v, sema_stmt_new(S, IR_BREAK, sp));
    sema_emit(S, if_then(S, returned_flag(S, true, sp), &v, sp));
}

/* The statements of l from k on, run only while the function has not returned. */
static void unless_returned(Sema *S, const StmtList *l, int k) {
    IrStmtVec v = {0}, *saved = S->cur;
    StmtList rest = {l->stmts + k, l->n - k};
    Span sp = l->stmts[k]->span;
    S->cur = &v;
    sema_block(S, &rest);
    S->cur = saved;
    sema_emit(S, if_then(S, returned_flag(S, false, sp), &v, sp));
}

/* One unrolled iteration of a qd.static loop whose body may return in a qd.real_func: it runs
 * only while the function has not returned. */
static void static_iteration_unless_returned(Sema *S, const StmtList *body) {
    IrStmtVec v = {0}, *saved = S->cur;
    S->cur = &v;
    sema_block(S, body);
    S->cur = saved;
    Span sp = body->n ? body->stmts[0]->span : (Span){0};
    sema_emit(S, if_then(S, returned_flag(S, false, sp), &v, sp));
}

/* nest: a for loop (S->loop_nest counts it; a while does not, as in Quadrants' loop_depth) */
static IrBlock loop_body(Sema *S, const StmtList *body, LoopKind kind, IrStmtVec *prefix, int nest) {
    LoopKind saved = S->loop;
    S->loop = kind;
    IrStmtVec *outer = S->cur;
    S->cur = prefix;
    S->dyn++, S->rf.loops++, S->loop_nest += nest;
    sema_block(S, body);
    S->dyn--, S->rf.loops--, S->loop_nest -= nest;
    S->cur = outer;
    S->loop = saved;
    return sema_freeze(S, prefix);
}

static void stmt_while(Sema *S, const Stmt *s) {
    if (S->up->sema_is_do_while(S, s)) return S->up->sema_do_while_misplaced(S, s); /* in run-time code (sema_graph.c) */
    IrStmtVec pre = {0}, *outer = S->cur;
    S->cur = &pre;
    IrExpr *cond = sema_to_bool(S, sema_expr(S, s->while_.cond));
    S->cur = outer;
    if (!cond) {
        vec_free(&pre);
        return;
    }
    IrStmt *st = sema_stmt_new(S, IR_WHILE, s->span);
    IrStmtVec body = {0};
    if (pre.len) { /* the condition needed statements (an inlined qd.func): while True + break */
        for (int k = 0; k < pre.len; k++) vec_push(&body, pre.items[k]);
        IrStmt *brk = sema_stmt_new(S, IR_IF, s->span);
        brk->if_.cond = sema_binary(S, IR_EQ, cond, irb_int(S->arena, QT_U1, 0, s->span), s->span);
        brk->if_.then.stmts = ARENA_ARRAY(S->arena, IrStmt *, 1);
        brk->if_.then.stmts[0] = sema_stmt_new(S, IR_BREAK, s->span), brk->if_.then.n = 1;
        vec_push(&body, brk);
        cond = irb_int(S->arena, QT_U1, 1, s->span);
    }
    vec_free(&pre);
    st->while_.cond = cond;
    st->while_.body = loop_body(S, &s->while_.body, LOOP_SERIAL, &body, 0);
    sema_emit(S, st);
}

static void stmt_jump(Sema *S, const Stmt *s) {
    bool brk = s->kind == S_BREAK;
    const char *w = brk ? "break" : "continue";
    switch (S->loop) {
    case LOOP_NONE: diag_error(s->span, QD2014, "'%s' outside a loop", w); return;
    case LOOP_STATIC: /* unrolling: decided at compile time, so only under compile-time control flow */
        if (S->dyn > S->static_dyn) {
            diag_error(s->span, QD2014, "'%s' of a qd.static loop inside a run-time if (the loop is unrolled: only "
                                          "`if qd.static(...)` can decide it; Quadrants: \"You are trying to `%s` a static "
                                          "`for` loop, but the `%s` statement is inside a non-static `if`.\")", w, w, w);
            return;
        }
        S->static_jump = brk ? JUMP_BREAK : JUMP_CONTINUE;
        return;
    case LOOP_PARALLEL:
        if (brk) {
            diag_error(s->span, QD2014, "'break' cannot leave a parallel (top-level) for loop (Cannot break in the outermost loop)");
            return;
        }
        S->parallel_continue = true; /* leaves the body wrapper: see for_body in sema.c */
        sema_emit(S, sema_stmt_new(S, IR_BREAK, s->span));
        return;
    case LOOP_SERIAL: sema_emit(S, sema_stmt_new(S, brk ? IR_BREAK : IR_CONTINUE, s->span)); return;
    }
}

/* ---- for loops ---- */

/* The loop variables of `for i in ...` / `for i, j in ...`. */
static int loop_targets(Sema *S, const Stmt *s, const Expr **out, int ndims) {
    const Expr *t = s->for_.target;
    int n = 1;
    if (t->kind == E_TUPLE) n = t->list.n;
    for (int k = 0; k < n && k < IR_MAX_DIMS; k++) {
        out[k] = t->kind == E_TUPLE ? t->list.items[k] : t;
        if (out[k]->kind != E_NAME) return diag_error(out[k]->span, QD2012, "a loop variable must be a name"), -1;
    }
    if (n != ndims) {
        diag_error(t->span, QD2012, "the loop has %d dimension%s but %d loop variable%s", ndims, ndims == 1 ? "" : "s", n, n == 1 ? "" : "s");
        return -1;
    }
    return n;
}

static int loop_var(Sema *S, const Expr *name) {
    Binding *b = scope_find(S->scope, name->name);
    if (b && b->is_param) {
        diag_error(name->span, QD2038, "cannot use kernel argument '%s' as a loop variable", name->name);
        return -1;
    }
    if (!S->k && b && b->v.kind == V_LOCAL && S->locals.items[b->v.index].type == QT_I32 && S->local_task.items[b->v.index] == S->task)
        return b->v.index;
    int l = sema_new_local(S, name->name, QT_I32);
    sema_bind_loop_name(S, name, (Val){.kind = V_LOCAL, .index = l});
    return l;
}

static void static_for(Sema *S, const Stmt *s, const LoopSpace *ls, const Expr **vars) {
    int64_t total = 1, n[IR_MAX_DIMS], idx[IR_MAX_DIMS] = {0};
    for (int d = 0; d < ls->ndims; d++) {
        IrExpr *c = sema_trip_count(S, ls, d, s->span);
        n[d] = c->c.i;
        total = n[d] > 0 && total > INT64_MAX / n[d] ? INT64_MAX : total * n[d];
        if (!budget_fits(&S->budget, EB_UNROLL, total, s->for_.iter->span)) return; /* QD2022, reported by budget_report */
    }
    LoopKind saved = S->loop;
    int dyn = S->static_dyn;
    S->loop = LOOP_STATIC, S->static_dyn = S->dyn;
    for (int64_t it = 0, errs = diag_error_count(); it < total && diag_error_count() == errs && !S->returned; it++) {
        if (!budget_charge(&S->budget, EB_UNROLL, 1, s->for_.iter->span)) break; /* every kernel's unrolled iterations, nested ones included */
        for (int d = 0; d < ls->ndims; d++) {
            int64_t v = ls->begin[d]->c.i + idx[d] * ls->step[d];
            if (it) scope_bind(S, S->scope, vars[d]->name, val_expr(irb_int(S->arena, QT_I32, v, vars[d]->span)), vars[d]->span);
            else sema_bind_loop_name(S, vars[d], val_expr(irb_int(S->arena, QT_I32, v, vars[d]->span)));
        }
        if (!sema_static_iteration(S, &s->for_.body)) break;
        for (int lv = ls->ndims - 1; lv >= 0 && ++idx[LOOP_DIM(ls, lv)] == n[LOOP_DIM(ls, lv)]; lv--) idx[LOOP_DIM(ls, lv)] = 0; /* axes= */
    }
    S->loop = saved, S->static_dyn = dyn;
}

/* One unrolled iteration of a qd.static loop; false when a break (or a return) ends the
 * unrolling. */
bool sema_static_iteration(Sema *S, const StmtList *body) {
    IrStmtVec *top = S->toplevel;
    S->toplevel = NULL; /* only this loop's own body is top level */
    if (top) sema_split_tasks(S, body, top);
    else if (S->rf.on && S->cur && ast_may_return(body)) static_iteration_unless_returned(S, body);
    else sema_block(S, body);
    S->toplevel = top;
    bool more = S->static_jump != JUMP_BREAK && !S->returned;
    S->static_jump = JUMP_NONE;
    return more;
}

/* A serial loop nest: one IR_FOR per dimension (nesting level lv: the dimension axes= puts
 * there), innermost holds the body. pre: the per-dimension locals a grouped loop made already
 * (its vector holds them), NULL: made here. */
static void serial_for(Sema *S, const Stmt *s, const LoopSpace *ls, const Expr **vars, const int *pre, int lv) {
    int d = LOOP_DIM(ls, lv);
    int var = pre ? pre[d] : loop_var(S, vars[d]);
    if (var < 0) return;
    int counter = sema_new_local(S, arena_printf(S->arena, "$for_%s", vars[d]->name), QT_I32);
    IrStmt *st = sema_stmt_new(S, IR_FOR, s->span);
    st->for_.counter = counter;
    st->for_.begin = ls->begin[d], st->for_.end = ls->end[d], st->for_.step = ls->step[d];
    IrStmtVec body = {0}, *outer = S->cur;
    S->cur = &body;
    emit_assign(S, var, sema_local(S, counter, vars[d]->span), vars[d]->span);
    S->cur = outer;
    if (lv + 1 < ls->ndims) {
        LoopKind saved = S->loop;
        S->loop = LOOP_SERIAL;
        S->cur = &body;
        serial_for(S, s, ls, vars, pre, lv + 1);
        if (S->rf.on && ast_may_return(&s->for_.body)) leave_if_returned(S, s->span);
        S->cur = outer;
        S->loop = saved;
        st->for_.body = sema_freeze(S, &body);
    } else if (ls->sparse) { /* a struct-for over a sparse field or SNode: active cells only */
        IrExpr *idx[IR_MAX_DIMS];
        for (int k = 0; k < ls->ndims; k++) {
            Binding *b = scope_find(S->scope, vars[k]->name);
            idx[k] = b && b->v.kind == V_LOCAL ? sema_local(S, b->v.index, vars[k]->span) : irb_int(S->arena, QT_I32, 0, s->span);
        }
        IrExpr *active = S->up->sema_sparse_loop_cond(S, ls, idx, s->span);
        IrStmtVec inner = {0};
        IrStmt *cond = sema_stmt_new(S, IR_IF, s->span);
        cond->if_.cond = active;
        cond->if_.then = loop_body(S, &s->for_.body, LOOP_SERIAL, &inner, 1);
        vec_push(&body, cond);
        st->for_.body = sema_freeze(S, &body);
    } else {
        st->for_.body = loop_body(S, &s->for_.body, LOOP_SERIAL, &body, 1);
    }
    sema_emit(S, st);
}

static void stmt_for(Sema *S, const Stmt *s) {
    LoopSpace ls;
    const Expr *vars[IR_MAX_DIMS];
    const Expr *it = s->for_.iter;
    const char *p = it->kind == E_CALL ? sema_path(S, it->call.fn) : NULL;
    if (p && !strcmp(p, "qd.static") && it->call.args.n == 1 && it->call.args.items[0]->kind == E_CALL) {
        const char *q = sema_path(S, it->call.args.items[0]->call.fn);
        if (q && !strcmp(q, "qd.static")) /* Quadrants' build_For */
            return (void)diag_error(it->call.args.items[0]->call.fn->span, QD2171, "'qd.static' cannot be nested");
    }
    if (S->up->sema_static_seq_for(S, s)) return;
    if (!sema_loop_space(S, s->for_.iter, &ls)) return;
    if (ls.grouped && s->for_.target->kind == E_NAME) { /* one name: a vector of per-dimension variables */
        const Expr *t = s->for_.target;
        Val g = S->up->vec_make(S, ls.ndims, 0);
        int pre[IR_MAX_DIMS];
        for (int d = 0; d < ls.ndims; d++) {
            Expr *v = ARENA_NEW(S->arena, Expr);
            *v = *t, v->name = arena_printf(S->arena, "%s_%d", t->name, d);
            vars[d] = v;
            int l = loop_var(S, v);
            if (l < 0) return;
            g.vec.c[d] = (Val){.kind = V_LOCAL, .index = l};
            pre[d] = l;
        }
        sema_bind_loop_name(S, t, ls.zero_d ? S->up->vec_make(S, 0, 0) : g);
        return serial_for(S, s, &ls, vars, pre, 0);
    }
    if (loop_targets(S, s, vars, ls.ndims) < 0) return;
    bool range_or_struct = it->kind != E_CALL || (it->call.fn->kind == E_NAME && !strcmp(it->call.fn->name, "range"));
    for (int d = 0; S->k && !ls.is_static && range_or_struct && d < ls.ndims; d++) { /* Quadrants' check_loop_var */
        Binding *b = scope_find(S->scope, vars[d]->name);
        if (b && !b->is_param)
            return (void)diag_error(vars[d]->span, QD2012, "Variable '%s' is already declared in the outer scope and cannot be used as "
                                    "loop variable", vars[d]->name);
    }
    if (!ls.is_static && S->ad_stack_off && S->loop_nest > 0 && S->k && !S->k->nested_range_at.src && it->kind == E_CALL &&
        it->call.fn->kind == E_NAME && !strcmp(it->call.fn->name, "range"))
        S->k->nested_range_at = s->span; /* Quadrants' build_For without its ad stack (IrKernel.nested_range_at) */
    if (ls.is_static) static_for(S, s, &ls, vars);
    else serial_for(S, s, &ls, vars, NULL, 0);
}

/* ---- qd.func inlining ---- */

/* A kernel's ndarray passed to a qd.func parameter whose annotation fixes a vector or matrix
 * element type: Quadrants' check_matched (ndarray_type.py), with its words. */
static bool ndarray_matches(Sema *S, const Param *p, int index, Span sp) {
    const Expr *dte = NULL, *nde = NULL;
    if (S->up->sema_param_shape(S, p->annotation, &dte, &nde) != PS_ARRAY || !dte) return true;
    QdType t;
    int n = 0, m = 0;
    int mark = diag_quiet_begin();
    bool vec = S->up->sema_vec_type_of(S, dte, &t, &n, &m) && n;
    diag_quiet_end(mark);
    const IrParam *a = &S->params.items[index];
    int an = a->elem_ndim ? a->elem_shape[0] : 0, am = a->elem_ndim == 2 ? a->elem_shape[1] : 0;
    if (!vec || (an == n && am == m && a->type == t)) return true;
    StrBuf want, got;
    sb_init(&want), sb_init(&got);
    if (m) sb_printf(&want, "MatrixType[%d,%d, %s]", n, m, qt_name(t));
    else sb_printf(&want, "VectorType[%d, %s]", n, qt_name(t));
    if (am) sb_printf(&got, "[Tensor (%d, %d) %s]", an, am, qt_name(a->type));
    else if (an) sb_printf(&got, "[Tensor (%d) %s]", an, qt_name(a->type));
    else sb_puts(&got, qt_name(a->type));
    diag_error(sp, QD2007, "Invalid value for argument %s - required element type: %s, but %s is provided", p->name, want.data, got.data);
    sb_free(&want), sb_free(&got);
    return false;
}

static bool bind_param(Sema *S, Scope *sc, const Param *p, Val v, Span sp) {
    bool template_ = p->annotation && p->annotation->kind == E_CALL && sema_path(S, p->annotation->call.fn) &&
                     !strcmp(sema_path(S, p->annotation->call.fn), "qd.template");
    if (v.kind == V_ERR) return false;
    const char *ann = p->annotation && p->annotation->kind == E_CALL ? sema_path(S, p->annotation->call.fn) : NULL;
    if (ann && !strcmp(ann, "qd.ref")) { /* qd.ref(T): the caller's variable itself (Quadrants' pass by reference) */
        if (v.kind != V_LOCAL)
            return diag_error(sp, QD2019, "argument '%s' is declared qd.ref(...): pass a local variable, not %s", p->name,
                              val_describe(v)), false;
        return scope_bind(S, sc, p->name, v, p->span), true;
    }
    if (v.kind == V_VEC && !template_) { /* passed by value */
        QdType t;
        int n = 0, m = 0;
        if (p->annotation && S->up->sema_vec_type_of(S, p->annotation, &t, &n, &m)) {
            if (!n) return false;
            if (n != v.vec.n || m != v.vec.m) {
                diag_error(sp, QD2040, "argument '%s' is a %s, not of the declared shape (Argument %s is expected to be a Matrix with n %d, but got %d)", p->name,
                             val_describe(v), p->name, n, v.vec.n);
                return false;
            }
            Val c = S->up->vec_make(S, v.vec.n, v.vec.m);
            for (int k = 0; k < vec_len(v); k++) c.vec.c[k] = val_expr(irb_cast(S->arena, sema_rvalue(S, v.vec.c[k], sp), t));
            v = c;
        }
        Val r = S->up->sema_vec_materialize(S, v, p->name, sp);
        return r.kind == V_VEC && (scope_bind(S, sc, p->name, r, p->span), true);
    }
    if (v.kind == V_STRUCT && !template_ && strcmp(p->name, "self")) { /* passed by value (a method's self: by reference) */
        Val r = S->up->sema_struct_materialize(S, v, p->name, sp);
        return r.kind == V_STRUCT && (scope_bind(S, sc, p->name, r, p->span), true);
    }
    if (v.kind == V_NDARRAY && !template_ && p->annotation && !ndarray_matches(S, p, v.index, sp)) return false;
    if (template_ || !is_scalar(v)) return scope_bind(S, sc, p->name, v, p->span), true;
    IrExpr *e = sema_rvalue(S, v, sp);
    QdType t = e ? e->type : QT_I32;
    if (!e || (p->annotation && !sema_annotation_type(S, p->annotation, &t))) return false;
    if (ir_is_uniform(e)) { /* substituted: keeps constants constant and loop bounds uniform */
        scope_bind(S, sc, p->name, val_expr(irb_cast(S->arena, e, t)), p->span);
        return true;
    }
    if (S->bind_shared) { /* a qd.func with top-level loops: each loop is a task, so the argument is
                             kernel-scope, kept in a kernel-owned field (sema_promote.c) */
        int f = S->up->sema_owned_field(S, arena_printf(S->arena, "qdc_tmp_%s_%s", S->k->name, p->name), t == QT_U1 ? QT_I32 : t, sp);
        Val r = S->up->sema_owned_ref(S, f, sp);
        IrStmt *st = sema_stmt_new(S, IR_STORE, sp);
        st->store.ref = r.ref, st->store.value = irb_cast(S->arena, e, r.ref->type);
        sema_emit(S, st);
        scope_bind(S, sc, p->name, r, p->span);
        return true;
    }
    int l = sema_new_local(S, p->name, t);
    emit_assign(S, l, e, sp);
    scope_bind(S, sc, p->name, (Val){.kind = V_LOCAL, .index = l}, p->span);
    return true;
}

/* An argument's value. A name bound to an array the script allocates (a module's global
 * ndarray, array_class.PLACEHOLDER, passed on through a qd.func's parameter) is passed as it is,
 * as Quadrants passes the Python object: only a use of it in the callee is an error (QD2062 at
 * the use), so a callee whose qd.static branch never touches it compiles. */
static Val arg_value(Sema *S, const Expr *a) {
    Binding *b = a->kind == E_NAME ? sema_lookup(S, a->name) : NULL;
    return b && b->v.kind == V_HOSTARRAY ? b->v : sema_eval(S, a);
}

/* Evaluates the call's arguments (in the caller's scope) and binds them in a new scope. */
Scope *sema_bind_args(Sema *S, const Expr *call, const Stmt *def) {
    bool shared = S->bind_shared;
    S->bind_shared = false; /* not for the qd.func calls inside the arguments */
    Scope *sc = ARENA_NEW(S->arena, Scope);
    sc->parent = sema_def_scope(S, def);
    int np = def->def.nparams;
    Val obj;
    int self = np && S->up->sema_method_object(S, def, &obj) ? 1 : 0; /* a method of a data-oriented instance: self is bound */
    if (call->call.args.n > np - self) {
        diag_error(call->span, QD2007, "Too many arguments: '%s' takes %d argument%s, got %d", def->def.name, np - self, np - self == 1 ? "" : "s",
                   call->call.args.n);
        return NULL;
    }
    Val *vals = ARENA_ARRAY(S->arena, Val, np ? np : 1);
    bool *have = ARENA_ARRAY(S->arena, bool, np ? np : 1);
    if (self) vals[0] = obj, have[0] = true;
    for (int k = 0; k < call->call.args.n; k++) vals[k + self] = arg_value(S, call->call.args.items[k]), have[k + self] = true;
    for (int j = 0; j < call->call.nkw; j++) {
        int k = 0;
        while (k < np && strcmp(def->def.params[k].name, call->call.kw[j].name)) k++;
        if (k == np || have[k]) {
            diag_error(call->call.kw[j].span, QD2007, k == np ? "Unexpected argument '%s' in call to '%s'" : "Multiple values for argument '%s' in call to '%s'",
                       call->call.kw[j].name, def->def.name);
            vec_free(&sc->b);
            return NULL;
        }
        vals[k] = arg_value(S, call->call.kw[j].value), have[k] = true;
    }
    bool ok = true;
    for (int k = 0; k < np; k++) {
        const Param *p = &def->def.params[k];
        if (!have[k] && p->dflt) {
            Scope *saved = S->scope;
            S->scope = sc->parent; /* a default is evaluated where the qd.func is defined */
            vals[k] = sema_eval(S, p->dflt), have[k] = true;
            S->scope = saved;
        }
        if (!have[k]) {
            diag_error(call->span, QD2007, "Missing argument '%s' in call to '%s'", p->name, def->def.name);
            diag_note(p->span, "'%s' is declared here", p->name);
            vec_free(&sc->b);
            return NULL;
        }
        const Expr *dte, *nde;
        if (vals[k].kind == V_HOSTARRAY && p->annotation && sema_is_real_func(S, def) &&
            S->up->sema_param_shape(S, p->annotation, &dte, &nde) == PS_ARRAY) { /* Quadrants' func.py, func_call_rvalue */
            diag_error(call->span, QD2062, "Expected ndarray in the kernel argument for argument %s, got an array the script "
                       "allocates (a qd.real_func takes an ndarray the kernel receives as its argument)", p->name);
            ok = false;
            continue;
        }
        S->bind_shared = shared;
        ok &= bind_param(S, sc, p, vals[k], call->span);
        S->bind_shared = false;
    }
    if (!ok) vec_free(&sc->b);
    return ok ? sc : NULL;
}

static bool is_static_call(Sema *S, const Expr *e) {
    const char *p = e->kind == E_CALL ? sema_path(S, e->call.fn) : NULL;
    return p && !strcmp(p, "qd.static");
}

/* A for's iterable that is qd.static(...) in every branch of its inline ifs, read without
 * evaluating it (checked before the qd.func's body runs: `A if qd.static(not BW) else B` names
 * values the body sets first). */
static bool static_iter(Sema *S, const Expr *it) {
    if (it->kind == E_IFEXP) return static_iter(S, it->ifexp.a) && static_iter(S, it->ifexp.b);
    return is_static_call(S, it);
}

/* F.fill(v) on a field, in a kernel or qd.func: Quadrants' field_fill_quadrants_scope, a qd.func
 * `for I in grouped(F): F[I] = val` with val a template argument (so v is evaluated where it is
 * used, in each iteration; a vector or matrix field takes a scalar for every component). A
 * top-level one is a parallel loop. */
static const Stmt *fill_loop(Sema *S, const Stmt *s) {
    const Expr *c = s->expr, *fn = c->call.fn;
    int mark = diag_quiet_begin();
    Val f = sema_eval(S, fn->attr.obj);
    diag_quiet_end(mark);
    bool field = f.kind == V_FIELD || (f.kind == V_VEC && vec_len(f) && f.vec.c[0].kind == V_FIELD);
    if (!field) return s;
    if (c->call.args.n != 1 || c->call.nkw) {
        diag_error(c->span, QD2007, "a field's fill takes one value, got %d argument%s", c->call.args.n + c->call.nkw,
                   c->call.args.n + c->call.nkw == 1 ? "" : "s");
        Stmt *none = ARENA_NEW(S->arena, Stmt);
        none->kind = S_PASS, none->span = s->span;
        return none;
    }
    Arena *a = S->arena;
    Expr *obj = S->up->sema_value_expr(S, f, fn->attr.obj->span);
    Expr *grouped = ARENA_NEW(a, Expr), *index = ARENA_NEW(a, Expr), *elem = ARENA_NEW(a, Expr);
    grouped->kind = E_CALL, grouped->span = c->span, grouped->call.fn = S->up->sema_value_expr(S, (Val){.kind = V_NS, .path = "qd.grouped"}, fn->span);
    grouped->call.args.n = 1, grouped->call.args.items = ARENA_ARRAY(a, Expr *, 1), grouped->call.args.items[0] = obj;
    index->kind = E_NAME, index->span = c->span, index->name = "$fill";
    elem->kind = E_SUBSCRIPT, elem->span = c->span, elem->sub.obj = obj, elem->sub.index = index;
    Stmt *st = ARENA_NEW(a, Stmt), *loop = ARENA_NEW(a, Stmt);
    st->kind = S_ASSIGN, st->span = s->span, st->assign.value = c->call.args.items[0];
    st->assign.targets.n = 1, st->assign.targets.items = ARENA_ARRAY(a, Expr *, 1), st->assign.targets.items[0] = elem;
    loop->kind = S_FOR, loop->span = s->span, loop->for_.target = index, loop->for_.iter = grouped;
    loop->for_.body.n = 1, loop->for_.body.stmts = ARENA_ARRAY(a, Stmt *, 1), loop->for_.body.stmts[0] = st;
    return loop;
}

static bool is_fill_call(const Stmt *s) {
    const Expr *c = s->kind == S_EXPR ? s->expr : NULL;
    return c && c->kind == E_CALL && c->call.fn->kind == E_ATTR && !strcmp(c->call.fn->attr.name, "fill");
}

/* for x in A if qd.static(c) else B: the loop over the branch c selects, as Quadrants' build_For
 * rebuilds the loop with it (at any depth; either branch may be static or not). Any other
 * condition is Quadrants' error; the loop is then over an error value (nothing more reported). */
const Stmt *sema_loop_form(Sema *S, const Stmt *s) {
    if (is_fill_call(s)) return fill_loop(S, s);
    if (s->kind != S_FOR || s->for_.iter->kind != E_IFEXP) return s;
    const Expr *it = s->for_.iter, *c = it->ifexp.cond;
    Stmt *r = ARENA_NEW(S->arena, Stmt);
    *r = *s;
    if (!is_static_call(S, c)) {
        diag_error(c->span, QD2012, "the condition of an inline if that a for loop iterates must be qd.static(...) (Quadrants: "
                                    "\"Using non static inlined if statement as for-loop iterable is not currently supported.\")");
        Expr *err = ARENA_NEW(S->arena, Expr);
        err->kind = E_ERROR, err->span = it->span;
        r->for_.iter = err;
        return r;
    }
    int errors = diag_error_count();
    IrExpr *v = sema_to_bool(S, sema_expr(S, c));
    if (!v || v->kind != IR_CONST) {
        if (diag_error_count() == errors) /* a value qdc cannot decide (an opaque host object) */
            diag_error(c->span, QD2012, "the condition of an inline if that a for loop iterates must be known at compile time; "
                                        "qdc cannot decide this qd.static(...) condition");
        Expr *err = ARENA_NEW(S->arena, Expr);
        err->kind = E_ERROR, err->span = it->span;
        r->for_.iter = err;
        return r;
    }
    r->for_.iter = v->c.u ? it->ifexp.a : it->ifexp.b;
    return sema_loop_form(S, r);
}

/* Quadrants allows `return` anywhere control flow is decided at compile time: at the end, and
 * inside `if qd.static(...)` and `for ... in qd.static(...)`; not under a run-time if or loop. */
static bool check_returns(Sema *S, const StmtList *l, bool dynamic, bool report) {
    bool ok = true;
    for (int k = 0; k < l->n; k++) {
        const Stmt *s = l->stmts[k];
        if (s->kind == S_RETURN && dynamic) {
            if (report)
                diag_error(s->span, QD2015, "return inside a run-time if, for or while is not supported in a qd.func (Quadrants: "
                                            "\"Return inside non-static if/for is not supported\"; a qd.real_func may); assign a result variable instead");
            ok = false;
        }
        if (s->kind == S_IF) {
            bool d = dynamic || !is_static_call(S, s->if_.cond);
            ok &= check_returns(S, &s->if_.then, d, report) & check_returns(S, &s->if_.els, d, report);
        }
        if (s->kind == S_WHILE) ok &= check_returns(S, &s->while_.body, true, report);
        if (s->kind == S_FOR) ok &= check_returns(S, &s->for_.body, dynamic || !static_iter(S, s->for_.iter), report);
    }
    return ok;
}

/* @qd.real_func (Quadrants compiles it as a function of its own: its loops are serial wherever it
 * is called, and it may return under run-time control flow). */
bool sema_is_real_func(Sema *S, const Stmt *def) {
    for (int k = 0; k < def->def.decorators.n; k++) {
        const Expr *d = def->def.decorators.items[k];
        const char *p = sema_path(S, d->kind == E_CALL ? d->call.fn : d);
        if (p && (!strcmp(p, "qd.real_func") || !strcmp(p, "qd.experimental.real_func"))) return true;
    }
    return false;
}

/* A qd.real_func that returns under run-time control flow: its flag and result locals, cleared
 * at the call. False (reported) for a result that is not a scalar. */
static bool real_func_begin(Sema *S, const Stmt *def, Span sp) {
    QdType t = QT_VOID;
    int n = 0, m = 0;
    const Expr *r = def->def.returns;
    if (r && r->kind != E_NONE && ((S->up->sema_vec_type_of(S, r, &t, &n, &m) && n) || !sema_annotation_type(S, r, &t))) {
        if (n) diag_error(r->span, QD2015, "qd.real_func '%s' returns under a run-time if, for or while: qdc supports a scalar "
                                            "result there, not %s", def->def.name, m ? "a matrix" : "a vector");
        return false;
    }
    S->rf = (struct RealFunc){.on = true, .result = -1};
    S->rf.flag = sema_new_local(S, arena_printf(S->arena, "$%s_returned", def->def.name), QT_U1);
    emit_assign(S, S->rf.flag, irb_int(S->arena, QT_U1, 0, sp), sp);
    if (t != QT_VOID) {
        S->rf.result = sema_new_local(S, arena_printf(S->arena, "$%s_ret", def->def.name), t);
        emit_assign(S, S->rf.result, irb_int(S->arena, t, 0, sp), sp);
    }
    return true;
}

/* The value a qd.func's `return` gives its call (materialized into locals). */
Val sema_func_result(Sema *S, const Stmt *def, const Stmt *ret, const Expr *call) {
    Val result = sema_eval(S, ret->expr);
    QdType t;
    int rn = 0, rm = 0;
    if (result.kind == V_VEC && def->def.returns && S->up->sema_vec_type_of(S, def->def.returns, &t, &rn, &rm) && rn) {
        if (rn != result.vec.n || rm != result.vec.m) {
            diag_error(ret->expr->span, QD2040, "'%s' returns %s, not the declared shape", def->def.name, val_describe(result));
            result = val_err();
        } else {
            Val c = S->up->vec_make(S, rn, rm);
            for (int k = 0; k < vec_len(c); k++) c.vec.c[k] = val_expr(irb_cast(S->arena, sema_rvalue(S, result.vec.c[k], ret->span), t));
            result = c;
        }
    }
    if (result.kind == V_STRUCT) result = S->up->sema_struct_materialize(S, result, arena_printf(S->arena, "$%s_ret", def->def.name), ret->span);
    if (result.kind == V_VEC) result = S->up->sema_vec_materialize(S, result, arena_printf(S->arena, "$%s_ret", def->def.name), ret->span);
    if (is_scalar(result)) {
        IrExpr *e = sema_rvalue(S, result, ret->expr->span);
        if (e && def->def.returns && sema_annotation_type(S, def->def.returns, &t)) e = irb_cast(S->arena, e, t);
        int l = e ? sema_new_local(S, arena_printf(S->arena, "$%s_ret", def->def.name), e->type) : -1;
        if (e) emit_assign(S, l, e, ret->span);
        result = e ? val_expr(sema_local(S, l, call->span)) : val_err();
    }
    return result;
}

/* return in a qd.real_func that returns under run-time control flow: the result and the flag
 * are set, a run-time loop of the function is left, and the rest of the block is not compiled
 * (under compile-time control flow only: nothing after it is). */
static void real_func_return(Sema *S, const Stmt *s) {
    const Stmt *def = S->inline_stack[S->ninline - 1];
    if (s->expr && s->expr->kind != E_NONE) {
        if (S->rf.result < 0) {
            diag_error(s->span, QD2015, "'%s' returns a value but declares no return type: a function with a return value must be annotated with a return type, e.g. def %s(...) -> qd.i32", def->def.name, def->def.name);
        } else {
            IrExpr *e = sema_expr(S, s->expr);
            if (e) emit_assign(S, S->rf.result, e, s->span);
        }
    }
    if (!S->dyn) {
        S->returned = true;
        return;
    }
    emit_assign(S, S->rf.flag, irb_int(S->arena, QT_U1, 1, s->span), s->span);
    if (S->rf.loops) sema_emit(S, sema_stmt_new(S, IR_BREAK, s->span));
    S->rf.dead = true;
}

/* The offset of the ')' that closes def's parameter list, or -1 (strings in annotations skipped). */
static long params_close(const Stmt *def) {
    const char *t = def->def.name_span.src->text;
    uint32_t n = def->def.name_span.src->len, i = def->def.name_span.off + def->def.name_span.len;
    int depth = 0;
    for (; i < n; i++) {
        char c = t[i];
        if (c == '"' || c == '\'') {
            for (i++; i < n && t[i] != c && t[i] != '\n'; i++) i += t[i] == '\\';
        } else if (c == '(' || c == '[') {
            depth++;
        } else if (c == ')' || c == ']') {
            if (--depth == 0) return c == ')' ? (long)i : -1;
        } else if (c == ':' && depth == 0) {
            return -1;
        }
    }
    return -1;
}

/* A kernel that returns a scalar but declares no return type: the one obvious edit inserts
 * ` -> qd.<type>` after the parameter list (the value's type, evaluated quietly). Sets *ty. */
static void return_type_fixit(Sema *S, const Stmt *def, const Expr *value, const char **ty) {
    int mark = diag_quiet_begin();
    IrExpr *e = sema_expr(S, value);
    bool clean = !diag_quiet_end(mark);
    long close = params_close(def);
    if (!e || !clean || close < 0 || qt_kind(e->type) == K_VOID) return;
    *ty = qt_name(e->type);
    diag_fixit(span_make(def->def.name_span.src, (uint32_t)close + 1, 0),
               arena_printf(S->arena, " -> qd.%s", *ty));
}

/* `return` before the end of a function, under compile-time control flow only (check_returns;
 * S->dyn counts run-time ifs and loops in case a path got here unchecked). */
static void stmt_return(Sema *S, const Stmt *s) {
    if (S->rf.on) return real_func_return(S, s);
    if (S->dyn) {
        diag_error(s->span, QD2015, "return inside a run-time if, for or while is not supported (Quadrants: \"Return inside "
                                      "non-static if/for is not supported\"); assign a result variable instead");
        return;
    }
    if (S->ninline) {
        const Stmt *def = S->inline_stack[S->ninline - 1];
        S->fn_result = s->expr ? sema_func_result(S, def, s, s->expr) : (Val){.kind = V_NONE};
        S->returned = true;
        return;
    }
    const Stmt *def = S->kernel_def;
    bool returns = def && def->def.returns && def->def.returns->kind != E_NONE;
    if (s->expr && s->expr->kind != E_NONE && !returns) {
        const char *ty = NULL;
        if (def) return_type_fixit(S, def, s->expr, &ty);
        if (ty)
            diag_error(s->span, QD2015, "a kernel returns a value only when declared with a return type (def %s(...) -> qd.%s:)",
                       def->def.name, ty);
        else
            diag_error(s->span, QD2015, "a kernel returns a value only when declared with a return type (def k() -> qd.i32:)");
        return;
    }
    if (returns) S->up->sema_kernel_return(S, def, s);
    S->returned = true;
}

bool sema_inline_push(Sema *S, const Stmt *def, Span at) {
    if (!budget_charge(&S->budget, EB_DEPTH, 1, at)) return false; /* one depth for qd.funcs and host calls */
    if (S->ninline == S->inline_cap) {
        int cap = S->inline_cap ? 2 * S->inline_cap : 32;
        const Stmt **grown = ARENA_ARRAY(S->arena, const Stmt *, cap);
        if (S->ninline) memcpy(grown, S->inline_stack, sizeof *grown * (size_t)S->ninline);
        S->inline_stack = grown, S->inline_cap = cap;
    }
    S->inline_stack[S->ninline++] = def;
    return true;
}

void sema_inline_pop(Sema *S) { S->ninline--, budget_leave(&S->budget); }

/* The first `return VALUE` of a body, or NULL. */
static const Stmt *value_return(const StmtList *l) {
    for (int k = 0; k < l->n; k++) {
        const Stmt *s = l->stmts[k], *r = NULL;
        if (s->kind == S_RETURN && s->expr && s->expr->kind != E_NONE) return s;
        if (s->kind == S_IF) r = value_return(&s->if_.then), r = r ? r : value_return(&s->if_.els);
        if (s->kind == S_WHILE) r = value_return(&s->while_.body);
        if (s->kind == S_FOR) r = value_return(&s->for_.body);
        if (r) return r;
    }
    return NULL;
}

/* @qd.func(requires_top_level=True) */
static bool requires_top_level(Sema *S, const Stmt *def) {
    for (int k = 0; k < def->def.decorators.n; k++) {
        const Expr *d = def->def.decorators.items[k];
        if (d->kind != E_CALL) continue;
        const char *p = sema_path(S, d->call.fn);
        if (!p || strcmp(p, "qd.func")) continue;
        for (int j = 0; j < d->call.nkw; j++)
            if (!strcmp(d->call.kw[j].name, "requires_top_level")) {
                Val v = sema_eval(S, d->call.kw[j].value);
                return val_is_host_scalar(v) && val_host_u64(v) != 0;
            }
    }
    return false;
}

/* Every argument of call is a compile-time value (a constant, a string, None): evaluated
 * quietly, without code. */
static bool lambda_args_known(Sema *S, const Expr *call) {
    IrStmtVec none = {0}, *saved = S->cur;
    S->cur = &none;
    int mark = diag_quiet_begin();
    bool ok = !call->call.nkw;
    for (int k = 0; ok && k < call->call.args.n; k++) {
        Val v = sema_eval(S, call->call.args.items[k]);
        ok = val_is_host_scalar(v) || v.kind == V_STR || v.kind == V_NONE;
    }
    ok &= !diag_quiet_end(mark);
    S->cur = saved;
    vec_free(&none);
    return ok;
}

Val sema_inline_call(Sema *S, const Expr *call, const Stmt *def) {
    if (!S->cur && !S->k && !strcmp(def->def.name, "<lambda>")) /* a lambda called by host code: Python's value (f = lambda n: ...) */
        return S->up->sema_pyfunc_call(S, call, def);
    if (!S->cur) return diag_error(call->span, QD2019, "a qd.func can only be called inside a kernel"), val_err();
    for (int k = 0; k < def->def.nparams; k++)
        if (def->def.params[k].name[0] == '*') /* a lambda of host code (lambda *args: ...) */
            return diag_error(call->span, QD1012, "'%s' parameters are not supported in kernels", def->def.params[k].name), val_err();
    for (int k = 0; k < S->ninline; k++)
        if (S->inline_stack[k] == def) {
            if (!strcmp(def->def.name, "<lambda>") && lambda_args_known(S, call)) { /* Quadrants calls a lambda in Python: exact, budgeted */
                IrStmtVec *cur = S->cur;
                IrKernel *kern = S->k;
                S->cur = NULL, S->k = NULL;
                Val r = S->up->sema_pyfunc_call(S, call, def);
                S->cur = cur, S->k = kern;
                return r;
            }
            diag_error(call->span, QD2016, "recursive call of qd.func '%s' (qd.func calls are inlined)", def->def.name);
            return val_err();
        }
    if (!budget_charge(&S->budget, EB_INLINES, 1, call->span) || !budget_fits(&S->budget, EB_DEPTH, 1, call->span)) return val_err();
    if (S->dyn + S->caller_dyn > 0 && requires_top_level(S, def)) { /* Quadrants' CallTransformer.build_Call */
        diag_error(call->span, QD2171, "`%s` is decorated with requires_top_level=True and must be called at the top level of a "
                   "@qd.kernel (or directly inside a `while qd.graph.do_while(...)` body). It cannot be nested inside a "
                   "runtime for / if / while: that demotes its phase loops out of top-level position, collapsing the "
                   "per-phase grid-wide barriers and corrupting the result.", def->def.name);
        return val_err();
    }
    const Stmt *vret = def->def.returns ? NULL : value_return(&def->def.body);
    if (vret && sema_is_real_func(S, def)) { /* Quadrants' build_Return, for a real function */
        diag_error(vret->span, QD2015, "'%s' returns a value but declares no return type: a function with a return value must be annotated with a return type, e.g. def %s(...) -> qd.i32", def->def.name,
                   def->def.name); /* the words of real_func_return, which a run-time return reaches */
        return val_err();
    }
    Scope *sc = sema_bind_args(S, call, def);
    bool real = sc && !check_returns(S, &def->def.body, false, false) && sema_is_real_func(S, def);
    if (sc && !real && !check_returns(S, &def->def.body, false, true)) vec_free(&sc->b), sc = NULL;
    if (!sc) return val_err();
    Scope *saved = S->scope;
    LoopKind loop = S->loop;
    int dyn = S->dyn, static_dyn = S->static_dyn;
    struct RealFunc rf = S->rf;
    S->rf = (struct RealFunc){.result = -1};
    S->scope = sc, S->loop = LOOP_NONE, S->dyn = 0, S->static_dyn = 0, S->caller_dyn += dyn;
    sema_inline_push(S, def, call->span); /* fits: checked above */
    const StmtList *body = &def->def.body;
    const Stmt *ret = body->n && body->stmts[body->n - 1]->kind == S_RETURN ? body->stmts[body->n - 1] : NULL;
    StmtList init = {body->stmts, ret ? body->n - 1 : body->n};
    Val result = {.kind = V_NONE};
    if (real) { /* returns under run-time control flow: a flag and a result local */
        if (real_func_begin(S, def, call->span)) {
            sema_block(S, body);
            if (S->rf.result >= 0) result = val_expr(sema_local(S, S->rf.result, call->span));
        } else {
            result = val_err();
        }
    } else {
        sema_block(S, &init);
        if (S->returned) result = S->fn_result; /* a return under qd.static control flow */
        else if (ret && ret->expr) result = sema_func_result(S, def, ret, call);
        if (result.kind == V_NONE && def->def.returns && def->def.returns->kind != E_NONE && !value_return(body)) {
            diag_error(def->def.returns->span, QD2015, "qd.func '%s' declares a return type but has no 'return value' (Function has a "
                       "return type but does not have a return statement)", def->def.name);
            result = val_err();
        }
    }
    S->returned = false;
    sema_inline_pop(S);
    S->rf = rf;
    S->scope = saved, S->loop = loop, S->dyn = dyn, S->static_dyn = static_dyn, S->caller_dyn -= dyn;
    vec_free(&sc->b);
    return result;
}

/* ---- dispatch ---- */

static void stmt_assert(Sema *S, const Stmt *s);

void sema_stmt(Sema *S, const Stmt *s) {
    if (is_fill_call(s)) s = sema_loop_form(S, s);
    switch (s->kind) {
    case S_EXPR: {
        if (s->expr->kind == E_STR) return; /* a docstring */
        const Expr *saved = sema_discarded;
        sema_discarded = s->expr;
        Val v = sema_eval(S, s->expr);
        sema_discarded = saved;
        if (v.kind == V_EXPR && v.e->kind == IR_MEMOP) {
            v.e->mem.result_used = false;
            IrStmt *st = sema_stmt_new(S, IR_EVAL, s->span);
            st->eval = v.e;
            sema_emit(S, st);
        } else if (v.kind == V_EXPR && ir_has_effects(v.e)) {
            emit_assign(S, sema_new_local(S, "$discard", v.e->type), v.e, s->span);
        }
        return;
    }
    case S_ASSIGN: stmt_assign(S, s); return;
    case S_ANNASSIGN: stmt_annassign(S, s); return;
    case S_AUGASSIGN: stmt_augassign(S, s); return;
    case S_IF: stmt_if(S, s); return;
    case S_WHILE: {
        int mark = sema_block_begin(S);
        stmt_while(S, s);
        sema_block_end(S, mark);
        return;
    }
    case S_FOR: {
        int mark = sema_block_begin(S);
        stmt_for(S, sema_loop_form(S, s));
        sema_block_end(S, mark);
        return;
    }
    case S_BREAK: case S_CONTINUE: stmt_jump(S, s); return;
    case S_PASS: return;
    case S_ASSERT: stmt_assert(S, s); return;
    case S_RETURN: stmt_return(S, s); return;
    case S_DEF:
        diag_error(s->span, QD1012, "nested function definitions are not supported in kernels (Function definition is not allowed in "
                   "'qd.%s'.)", S->ninline ? "func" : "kernel");
        return;
    case S_IMPORT: diag_error(s->span, QD2003, "'import' inside a function is not supported"); return;
    case S_HOST: case S_CLASS: die("host code inside a function");
    }
}

/* The source text of an expression (an assert without a message reports its condition, as
 * Quadrants does). */
static const char *source_text(Sema *S, const Expr *e) {
    const Source *src = e->span.src ? e->span.src : S->src; /* its own module's text */
    return arena_strndup(S->arena, src->text + e->span.off, e->span.len);
}

/* The constant local l holds after the first `upto` statements of b, or NULL: only a block read in
 * order (straight-line code) is trusted, so any statement that may write a local other than a
 * plain assignment (a nested block, an atomic or a store through a local's reference) forgets them
 * all. An assigned expression folds with the constants before it (depth: a bound on that chain). */
static IrExpr *known_const_at(Sema *S, IrExpr *e, int upto, int depth);

static IrExpr *local_const(Sema *S, int l, int upto, int depth) {
    const IrStmtVec *b = S->known_at;
    for (int k = upto - 1; k >= 0; k--) {
        const IrStmt *st = b->items[k];
        switch (st->kind) {
        case IR_ASSIGN:
            if (st->assign.local != l) break;
            IrExpr *v = depth < 64 ? known_const_at(S, st->assign.value, k, depth + 1) : st->assign.value;
            return ir_is_const(v) ? v : NULL;
        case IR_STORE:
            if (st->store.ref->kind == IR_REF_LOCAL) return NULL;
            break;
        case IR_ASSERT: case IR_PRINT: case IR_FENCE: case IR_BARRIER: break;
        default: return NULL;
        }
    }
    return NULL;
}

static IrExpr *known_const_at(Sema *S, IrExpr *e, int upto, int depth) {
    if (!e || ir_is_const(e)) return e;
    IrExpr *a, *b, *r = NULL;
    switch (e->kind) {
    case IR_LOCAL:
        r = local_const(S, e->local, upto, depth);
        return r && r->type == e->type ? r : e;
    case IR_CAST:
        a = known_const_at(S, e->arg, upto, depth);
        return ir_is_const(a) ? irb_cast(S->arena, a, e->type) : e;
    case IR_UNARY:
        a = known_const_at(S, e->un.a, upto, depth);
        if (!ir_is_const(a)) return e;
        if (e->un.op == IR_LNOT) return irb_int(S->arena, QT_U1, !a->c.u, e->span);
        if (e->un.op == IR_NEG && qt_is_float(a->type)) return irb_float(S->arena, a->type, -a->c.f, e->span);
        return e;
    case IR_BINARY:
        a = known_const_at(S, e->bin.a, upto, depth), b = known_const_at(S, e->bin.b, upto, depth);
        if (!ir_is_const(a) || !ir_is_const(b)) return e;
        r = ir_expand_binary(S->arena, e->bin.op, a, b, e->span);
        return ir_is_const(r) ? r : e;
    case IR_SELECT:
        a = known_const_at(S, e->sel.cond, upto, depth);
        return ir_is_const(a) ? known_const_at(S, a->c.u ? e->sel.a : e->sel.b, upto, depth) : e;
    default: return e;
    }
}

IrExpr *sema_known_const(Sema *S, IrExpr *e) {
    return S->known_at ? known_const_at(S, e, S->known_at->len, 0) : e;
}

/* assert cond[, "message"]: Quadrants checks asserts only in debug mode (qd.init(debug=True)).
 * qdc checks the condition and message like any code and compiles the assert out: it has no
 * debug mode in which a target reports a failed assert (qdc-lang(7), "assert"). */
/* In debug mode (--debug, qd.init(debug=True)) an assert at a called kernel's top level (outside
 * loops, run-time ifs and qd.funcs: it runs on every launch) whose condition is false at compile
 * time (a constant, or locals the straight-line code before it assigns constants) raises on every
 * launch: error QD2173 with Quadrants' AssertionError message, a note at the host call. */
static void stmt_assert(Sema *S, const Stmt *s) {
    IrStmtVec none = {0}, *saved = S->cur;
    int d = S->kernel_def ? sema_def_at(S, S->kernel_def) : -1;
    bool certain = (S->debug || S->init_debug) && S->k && saved && !S->dyn && S->loop == LOOP_NONE && !S->ninline && d >= 0 &&
                   S->defs.items[d].called;
    if (!S->debug) S->cur = &none; /* evaluated for its diagnostics only: no code */
    if (certain) S->known_at = saved;
    IrExpr *c = sema_to_bool(S, sema_expr(S, s->assert_.cond));
    const Expr *m = s->assert_.msg;
    const char *text = m ? S->up->sema_assert_message(S, m) : source_text(S, s->assert_.cond);
    IrExpr *v = certain && c ? sema_known_const(S, c) : NULL;
    S->known_at = NULL;
    S->cur = saved;
    vec_free(&none);
    if (v && ir_is_const(v) && !v->c.u && text) {
        diag_error(s->span, QD2173, "AssertionError: %s (the assert fails on every launch of kernel '%s': its condition is false "
                                    "at compile time, and in debug mode Quadrants checks asserts)", text, S->k->name);
        diag_note(S->callinst ? S->callinst->span : S->defs.items[d].call_at, "kernel '%s' is called here", S->kernel_def->def.name);
        return;
    }
    if (!S->debug || !c || !text) return;
    uint32_t line, col;
    const Source *src = s->span.src ? s->span.src : S->src;
    source_line_col(src, s->span.off, &line, &col);
    IrStmt *st = sema_stmt_new(S, IR_ASSERT, s->span);
    st->assert_.cond = c;
    st->assert_.msg = arena_printf(S->arena, "%s:%d:%d: assertion failed: %s", src->name, (int)line, (int)col, text);
    sema_emit(S, st);
}

/* qd.loop_config directly before a loop nested in another loop (also one in a qd.func called
 * inside a loop): only top-level loops are configured; Quadrants warns and drops it. */
static bool nested_loop_config(Sema *S, const StmtList *l, int k) {
    const Stmt *s = l->stmts[k];
    if ((S->loop != LOOP_SERIAL && S->loop != LOOP_PARALLEL && S->caller_dyn <= 0) || k + 1 >= l->n || l->stmts[k + 1]->kind != S_FOR) return false;
    const char *p = s->kind == S_EXPR && s->expr->kind == E_CALL ? sema_path(S, s->expr->call.fn) : NULL;
    if (!p || strcmp(p, "qd.loop_config")) return false;
    diag_warning(s->span, QD2103, "qd.loop_config before a loop nested inside another for-loop has no effect: only "
                                  "top-level loops are configured (Quadrants warns too)");
    return true;
}

void sema_block(Sema *S, const StmtList *l) {
    for (int k = 0; k < l->n && !S->returned && !S->static_jump && !S->rf.dead; k++) {
        if (nested_loop_config(S, l, k)) continue;
        sema_stmt(S, l->stmts[k]);
        if (!S->rf.on || !S->cur || S->returned || S->rf.dead || S->static_jump || !ast_stmt_may_return(l->stmts[k])) continue;
        if (S->rf.loops) leave_if_returned(S, l->stmts[k]->span);
        else if (k + 1 < l->n) return unless_returned(S, l, k + 1);
    }
    S->rf.dead = false; /* a return ends its own block only */
}

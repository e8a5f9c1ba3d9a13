/* Kernel-scope locals shared between tasks, and kernel return values. Each top-level for of a
 * kernel is its own launch with thread-private locals, so a local set in serial code and used
 * inside a parallel loop (or after one) cannot stay a register. Quadrants promotes it to a
 * global temporary; qdc does the same with a kernel-owned 0-d field "qdc_tmp_<kernel>_<name>"
 * (zero-initialized, listed with the fields in the header and metadata). The name then behaves
 * as a field element: reads load it, `=` stores (a plain, racy store inside a parallel loop,
 * as in Quadrants), `+= -= &= |= ^=` are atomic and `*= /= //= %= <<= >>= **=` are plain
 * read-modify-writes (Quadrants' common_ops.py), and qd.atomic_* accept it.
 * A kernel `-> T` stores its final `return value` in the 0-d field "qdc_ret_<kernel>". */
#include "sema.h"
#include <stdio.h>
#include <string.h>

/* ---- which names: assigned in serial top-level code and used by another task ---- */

typedef struct {
    const char *name;
    int set_task;   /* the serial task that first assigns it, -1 if none */
    bool other;     /* used by a task other than set_task */
} Use;
typedef VEC(Use) UseVec;

static Use *use_of(UseVec *u, const char *name) {
    for (int k = 0; k < u->len; k++)
        if (!strcmp(u->items[k].name, name)) return &u->items[k];
    Use n = {name, -1, false};
    vec_push(u, n);
    return &u->items[u->len - 1];
}

static void note_ref(UseVec *u, const char *name, int task) {
    Use *x = use_of(u, name);
    if (x->set_task >= 0 && x->set_task != task) x->other = true;
}

static void refs_expr(UseVec *u, const Expr *e, int task);
static void set_name(UseVec *u, const Expr *t, int task, bool serial);
static bool refs_serial = true; /* the statement being scanned runs in serial code (a walrus in it sets a name) */
static void refs_list(UseVec *u, const ExprList *l, int task) {
    for (int k = 0; k < l->n; k++) refs_expr(u, l->items[k], task);
}

static void refs_expr(UseVec *u, const Expr *e, int task) {
    if (!e) return;
    switch (e->kind) {
    case E_NAME: note_ref(u, e->name, task); break;
    case E_ATTR: refs_expr(u, e->attr.obj, task); break;
    case E_CALL:
        refs_expr(u, e->call.fn, task), refs_list(u, &e->call.args, task);
        for (int k = 0; k < e->call.nkw; k++) refs_expr(u, e->call.kw[k].value, task);
        break;
    case E_SUBSCRIPT: refs_expr(u, e->sub.obj, task), refs_expr(u, e->sub.index, task); break;
    case E_TUPLE: case E_LIST: case E_BOOLOP: refs_list(u, &e->list, task); break;
    case E_UNARY: refs_expr(u, e->un.a, task); break;
    case E_BINARY: refs_expr(u, e->bin.a, task), refs_expr(u, e->bin.b, task); break;
    case E_NAMED: refs_expr(u, e->bin.b, task), set_name(u, e->bin.a, task, refs_serial); break;
    case E_COMPARE: refs_list(u, &e->cmp.items, task); break;
    case E_IFEXP: refs_expr(u, e->ifexp.cond, task), refs_expr(u, e->ifexp.a, task), refs_expr(u, e->ifexp.b, task); break;
    case E_STARRED: refs_expr(u, e->un.a, task); break;
    case E_SLICE: refs_expr(u, e->slice.lo, task), refs_expr(u, e->slice.hi, task), refs_expr(u, e->slice.step, task); break;
    case E_COMP:
        refs_expr(u, e->comp.iter, task), refs_list(u, &e->comp.conds, task), refs_expr(u, e->comp.next, task);
        if (!e->comp.next) refs_expr(u, e->comp.elt, task);
        break;
    default: break;
    }
}

static void set_name(UseVec *u, const Expr *t, int task, bool serial) {
    if (t->kind == E_TUPLE || t->kind == E_LIST) {
        for (int k = 0; k < t->list.n; k++) set_name(u, t->list.items[k], task, serial);
        return;
    }
    if (t->kind != E_NAME) return refs_expr(u, t, task);
    Use *x = use_of(u, t->name);
    if (x->set_task < 0 && serial) x->set_task = task;
    else note_ref(u, t->name, task);
}

/* serial: the statement runs in serial code (assignments there create kernel-scope locals) */
static void refs_stmts(UseVec *u, const StmtList *l, int task, bool serial);
static void refs_stmt_in(UseVec *u, const Stmt *s, int task, bool serial);
static void refs_stmt(UseVec *u, const Stmt *s, int task, bool serial) {
    bool saved = refs_serial;
    refs_serial = serial;
    refs_stmt_in(u, s, task, serial);
    refs_serial = saved;
}

static void refs_stmt_in(UseVec *u, const Stmt *s, int task, bool serial) {
    switch (s->kind) {
    case S_EXPR: case S_RETURN: refs_expr(u, s->expr, task); break;
    case S_ASSIGN:
        refs_expr(u, s->assign.value, task);
        for (int k = 0; k < s->assign.targets.n; k++) set_name(u, s->assign.targets.items[k], task, serial);
        break;
    case S_ANNASSIGN: refs_expr(u, s->ann.value, task), set_name(u, s->ann.target, task, serial); break;
    case S_AUGASSIGN: refs_expr(u, s->aug.value, task), refs_expr(u, s->aug.target, task); break;
    case S_IF: refs_expr(u, s->if_.cond, task), refs_stmts(u, &s->if_.then, task, serial), refs_stmts(u, &s->if_.els, task, serial); break;
    case S_WHILE: refs_expr(u, s->while_.cond, task), refs_stmts(u, &s->while_.body, task, serial); break;
    case S_FOR: refs_expr(u, s->for_.iter, task), refs_stmts(u, &s->for_.body, task, serial); break;
    default: break;
    }
}

static void refs_stmts(UseVec *u, const StmtList *l, int task, bool serial) {
    for (int k = 0; k < l->n; k++) refs_stmt(u, l->stmts[k], task, serial);
}

static bool call_named(Sema *S, const Stmt *s, const char *path) {
    if (!s || s->kind != S_EXPR || s->expr->kind != E_CALL) return false;
    const char *p = sema_path(S, s->expr->call.fn);
    return p && !strcmp(p, path);
}

/* qd.loop_config(serialize=True) or parallelize=1 written as literals before a loop. */
static bool serial_config(Sema *S, const Stmt *prev) {
    if (!call_named(S, prev, "qd.loop_config")) return false;
    for (int k = 0; k < prev->expr->call.nkw; k++) {
        const Keyword *kw = &prev->expr->call.kw[k];
        if (!strcmp(kw->name, "serialize") && kw->value->kind == E_BOOL && kw->value->b) return true;
        if (!strcmp(kw->name, "parallelize") && kw->value->kind == E_INT && kw->value->i == 1) return true;
    }
    return false;
}

/* A name a top-level loop binds as its variable is that loop's own (never shared). */
static bool names_target(const Expr *t, const char *name) {
    if (t->kind == E_NAME) return !strcmp(t->name, name);
    if (t->kind != E_TUPLE && t->kind != E_LIST) return false;
    for (int k = 0; k < t->list.n; k++)
        if (names_target(t->list.items[k], name)) return true;
    return false;
}

static bool is_static_loop(Sema *S, const Stmt *s) {
    return s->kind == S_FOR && s->for_.iter->kind == E_CALL && call_named(S, &(Stmt){.kind = S_EXPR, .expr = s->for_.iter}, "qd.static");
}

/* The loops of the top level (the body of a top-level qd.static loop is top level too). */
static bool is_loop_target(Sema *S, const StmtList *body, const char *name) {
    for (int k = 0; k < body->n; k++) {
        const Stmt *s = sema_loop_form(S, body->stmts[k]);
        if (s->kind == S_FOR && (is_static_loop(S, s) ? is_loop_target(S, &s->for_.body, name) : names_target(s->for_.target, name)))
            return true;
        if (sema_is_do_while(S, s) && is_loop_target(S, &s->while_.body, name)) return true;
        if (s->kind == S_IF && s->if_.with && is_loop_target(S, &s->if_.then, name)) return true;
    }
    return false;
}

/* Mirrors split_tasks: a top-level non-static for is its own task, serial runs between; a
 * top-level qd.static loop's body is top level (its loops are tasks). */
static void scan_top(Sema *S, UseVec *u, const StmtList *body, int *task) {
    for (int k = 0; k < body->n; k++) {
        const Stmt *s = sema_loop_form(S, body->stmts[k]);
        if (is_static_loop(S, s)) {
            refs_expr(u, s->for_.iter, *task);
            scan_top(S, u, &s->for_.body, task);
            continue;
        }
        if (sema_is_do_while(S, s)) { /* its body is top level, in tasks of its own */
            refs_expr(u, s->while_.cond, *task);
            *task += 1;
            scan_top(S, u, &s->while_.body, task);
            *task += 1;
            continue;
        }
        if (s->kind == S_IF && s->if_.with) { /* a kernel's `with` block: its body is top level */
            scan_top(S, u, &s->if_.then, task);
            continue;
        }
        const Expr *call = sema_toplevel_func_call(S, s);
        if (call) { /* a qd.func whose loops are the kernel's: its arguments before them, its value after */
            refs_expr(u, call, *task);
            *task += 2;
            if (s->kind == S_ASSIGN)
                for (int t = 0; t < s->assign.targets.n; t++) set_name(u, s->assign.targets.items[t], *task, true);
            continue;
        }
        bool parallel = s->kind == S_FOR && !serial_config(S, k ? body->stmts[k - 1] : NULL);
        if (s->kind == S_IF && call_named(S, &(Stmt){.kind = S_EXPR, .expr = s->if_.cond}, "qd.static")) {
            refs_expr(u, s->if_.cond, *task); /* split_tasks keeps the branch taken top level: either may be */
            scan_top(S, u, &s->if_.then, task);
            scan_top(S, u, &s->if_.els, task);
            continue;
        }
        if (s->kind == S_ASSIGN && s->assign.targets.n == 1 && s->assign.targets.items[0]->kind == E_NAME &&
            call_named(S, &(Stmt){.kind = S_EXPR, .expr = s->assign.value}, "qd.static")) {
            refs_expr(u, s->assign.value, *task); /* NAME = qd.static(x): a compile-time value (static_name), never shared */
            continue;
        }
        if (!parallel) {
            refs_stmt(u, s, *task, true);
            continue;
        }
        refs_expr(u, s->for_.iter, *task); /* the bounds are evaluated by the serial code before the loop */
        refs_stmts(u, &s->for_.body, *task + 1, false);
        *task += 2;
    }
}

void sema_find_promoted(Sema *S, const StmtList *body) {
    UseVec u = {0};
    int task = 0;
    int mark = diag_quiet_begin(); /* read before the body runs: `A if qd.static(not BW) else B` names BW = qd.static(...) */
    scan_top(S, &u, body, &task);
    S->promoted.len = 0;
    for (int k = 0; k < u.len; k++)
        if (u.items[k].set_task >= 0 && u.items[k].other && !is_loop_target(S, body, u.items[k].name))
            vec_push(&S->promoted, u.items[k].name);
    diag_quiet_end(mark);
    vec_free(&u);
}

bool sema_is_promoted(Sema *S, const char *name) {
    if (S->ninline != S->promoted_depth) return false; /* qd.func locals are the function's own */
    for (int k = 0; k < S->promoted.len; k++)
        if (!strcmp(S->promoted.items[k], name)) return true;
    return false;
}

/* ---- the kernel-owned fields ---- */

static int owned_field(Sema *S, const char *name, QdType t, Span sp) {
    for (int k = 0; k < S->fields.len; k++) /* a user field of that name: keep both */
        if (!strcmp(S->fields.items[k].name, name)) name = arena_printf(S->arena, "%s_", name), k = -1;
    IrField f = {.name = name, .type = t, .ndim = 0, .elems = 1, .span = sp};
    vec_push(&S->fields, f);
    return S->fields.len - 1;
}

static Val field_ref(Sema *S, int field, Span sp) {
    IrRef *r = ARENA_NEW(S->arena, IrRef);
    r->kind = IR_REF_FIELD, r->index = field, r->type = S->fields.items[field].type, r->span = sp;
    r->idx = ARENA_ARRAY(S->arena, IrExpr *, 1);
    return (Val){.kind = V_REF, .ref = r};
}

int sema_owned_field(Sema *S, const char *name, QdType t, Span sp) { return owned_field(S, name, t, sp); }
Val sema_owned_ref(Sema *S, int field, Span sp) { return field_ref(S, field, sp); }

Val sema_promote(Sema *S, const char *name, QdType t, Span sp) {
    if (t == QT_U1) t = QT_I32; /* no atomics on booleans: a shared flag is an i32 */
    int f = owned_field(S, S->promoted_depth ? arena_printf(S->arena, "qdc_tmp_%s_%s_%s", S->k->name, S->inline_stack[S->promoted_depth - 1]->def.name, name)
                                             : arena_printf(S->arena, "qdc_tmp_%s_%s", S->k->name, name), t, sp);
    Val v = field_ref(S, f, sp);
    scope_bind(S, S->scope, name, v, sp);
    return v;
}

Val sema_fresh_ref(Sema *S, Val v, Span use) {
    if (v.kind != V_REF || v.ref->kind != IR_REF_FIELD || v.ref->nidx) return v;
    return field_ref(S, v.ref->index, use);
}

/* `return v` of a kernel declared `-> qd.types.vector(n, T)` / matrix(n, m, T): the components,
 * row-major, in a 1-d kernel-owned field qdc_ret_<kernel>[n*m] (qdc-abi(7)). */
static void vector_return(Sema *S, const Stmt *def, const Stmt *ret, QdType t, int n, int m) {
    if (!ret->expr) {
        diag_error(ret->span, QD2015, "kernel '%s' is declared to return a %s but returns no value", def->def.name, m ? "matrix" : "vector");
        return;
    }
    Val v = sema_eval(S, ret->expr);
    if (v.kind == V_ERR) return;
    if (v.kind != V_VEC || v.vec.n != n || v.vec.m != m) {
        char want[32], got[32];
        snprintf(want, sizeof want, m ? "%dx%d matrix" : "%d-vector", n, m);
        if (v.kind == V_VEC) snprintf(got, sizeof got, v.vec.m ? "a %dx%d matrix" : "a %d-vector", v.vec.n, v.vec.m);
        diag_error(ret->expr->span, QD2040, "kernel '%s' is declared to return a %s, not %s", def->def.name, want,
                   v.kind == V_VEC ? got : val_describe(v));
        return;
    }
    int len = m ? n * m : n;
    int f = owned_field(S, arena_printf(S->arena, "qdc_ret_%s", S->k->name), t, ret->span);
    IrField *fd = &S->fields.items[f];
    fd->ndim = 1, fd->shape[0] = len, fd->elems = len;
    S->k->ret_type = t, S->k->ret_field = f, S->k->ret_n = n, S->k->ret_m = m;
    for (int c = 0; c < len; c++) {
        IrExpr *e = sema_rvalue(S, v.vec.c[c], ret->span);
        if (!e) return;
        IrRef *r = field_ref(S, f, ret->span).ref;
        r->idx[0] = irb_int(S->arena, QT_I32, c, ret->span), r->nidx = 1;
        IrStmt *st = sema_stmt_new(S, IR_STORE, ret->span);
        st->store.ref = r, st->store.value = irb_cast(S->arena, e, t);
        sema_emit(S, st);
    }
}

/* ---- struct and tuple returns: one kernel-owned field per leaf (qdc_ret_<kernel>_<path>) ---- */

static bool same_struct(const QdStruct *a, const QdStruct *b) {
    if (a == b) return true;
    if (a->n != b->n) return false;
    for (int k = 0; k < a->n; k++)
        if (strcmp(a->names[k], b->names[k]) || a->dt[k] != b->dt[k] || a->vn[k] != b->vn[k] || a->vm[k] != b->vm[k] ||
            !a->sub[k] != !b->sub[k] || (a->sub[k] && !same_struct(a->sub[k], b->sub[k])))
            return false;
    return true;
}

typedef VEC(IrRetMember) RetVec;

/* One leaf: the value v (a scalar, or a V_VEC of n x m) stored into a new field. */
static bool ret_leaf(Sema *S, RetVec *out, const char *path, QdType t, int n, int m, Val v, Span sp) {
    int len = n ? (m ? n * m : n) : 1;
    if ((n && (v.kind != V_VEC || v.vec.n != n || v.vec.m != m)) || (!n && (v.kind == V_VEC || v.kind == V_STRUCT || v.kind == V_TUPLE))) {
        char want[48];
        if (!n) snprintf(want, sizeof want, "%s", qt_name(t));
        else if (m) snprintf(want, sizeof want, "a %dx%d matrix", n, m);
        else snprintf(want, sizeof want, "a %d-vector", n);
        char got[48];
        if (v.kind == V_VEC && v.vec.m) snprintf(got, sizeof got, "a %dx%d matrix", v.vec.n, v.vec.m);
        else if (v.kind == V_VEC) snprintf(got, sizeof got, "a %d-vector", v.vec.n);
        else snprintf(got, sizeof got, "%s", val_describe(v));
        diag_error(sp, QD2040, "member '%s' of the declared return type is %s, got %s", path, want, got);
        return false;
    }
    char *sym = arena_printf(S->arena, "qdc_ret_%s_%s", S->k->name, path);
    for (char *p = sym; *p; p++)
        if (*p == '.') *p = '_';
    int f = owned_field(S, sym, t, sp);
    if (n) {
        IrField *fd = &S->fields.items[f];
        fd->ndim = 1, fd->shape[0] = len, fd->elems = len;
    }
    for (int c = 0; c < len; c++) {
        IrExpr *e = sema_rvalue(S, n ? v.vec.c[c] : v, sp);
        if (!e) return false;
        IrRef *r = field_ref(S, f, sp).ref;
        if (n) r->idx[0] = irb_int(S->arena, QT_I32, c, sp), r->nidx = 1;
        IrStmt *st = sema_stmt_new(S, IR_STORE, sp);
        st->store.ref = r, st->store.value = irb_cast(S->arena, e, t);
        sema_emit(S, st);
    }
    vec_push(out, ((IrRetMember){.name = path, .type = t, .field = f, .n = n, .m = m}));
    return true;
}

static bool ret_struct(Sema *S, RetVec *out, const char *prefix, const QdStruct *st, Val v, Span sp) {
    if (v.kind != V_STRUCT || !same_struct(v.strct.st, st)) {
        const char *got = v.kind == V_STRUCT ? "a struct of other members or member types" : val_describe(v);
        if (prefix) diag_error(sp, QD2040, "member '%s' of the declared return type is a struct, got %s", prefix, got);
        else diag_error(sp, QD2040, "the declared return type is a struct, got %s", got);
        return false;
    }
    for (int k = 0; k < st->n; k++) {
        const char *path = prefix ? arena_printf(S->arena, "%s.%s", prefix, st->names[k]) : st->names[k];
        bool ok = st->sub[k] ? ret_struct(S, out, path, st->sub[k], v.strct.m[k], sp)
                             : ret_leaf(S, out, path, st->dt[k], st->vn[k], st->vm[k], v.strct.m[k], sp);
        if (!ok) return false;
    }
    return true;
}

/* The element annotations of `-> tuple[A, B]`, `-> typing.Tuple[A, B]` or `-> (A, B)`, or NULL. */
static const ExprList *tuple_annotation(Sema *S, const Expr *ann) {
    if (ann->kind == E_TUPLE) return &ann->list;
    if (ann->kind != E_SUBSCRIPT || ann->sub.index->kind != E_TUPLE) return NULL;
    const Expr *o = ann->sub.obj;
    const char *name = o->kind == E_NAME ? o->name : o->kind == E_ATTR ? o->attr.name : NULL;
    (void)S;
    return name && (!strcmp(name, "tuple") || !strcmp(name, "Tuple")) ? &ann->sub.index->list : NULL;
}

/* A scalar return type; Python's bool is u1, as Quadrants cooks it. */
static bool ret_scalar_type(Sema *S, const Expr *ann, QdType *t) {
    if (ann->kind == E_NAME && !strcmp(ann->name, "bool") && !sema_lookup(S, "bool")) return *t = QT_U1, true;
    return sema_annotation_type(S, ann, t);
}

/* An element of a tuple return: a struct, vector or matrix, or scalar type. */
static bool ret_element(Sema *S, RetVec *out, const char *path, const Expr *ann, Val v, Span sp) {
    const QdStruct *st;
    QdType t;
    int n = 0, m = 0;
    if (sema_struct_type_of(S, ann, &st)) return ret_struct(S, out, path, st, v, sp);
    if (sema_vec_type_of(S, ann, &t, &n, &m)) return n && ret_leaf(S, out, path, t, n, m, v, sp);
    return ret_scalar_type(S, ann, &t) && ret_leaf(S, out, path, t, 0, 0, v, sp);
}

/* -> MyStruct / -> tuple[...]: true when the annotation is one of those (the return handled). */
static bool aggregate_return(Sema *S, const Stmt *def, const Stmt *ret) {
    const Expr *ann = def->def.returns;
    const QdStruct *st = NULL;
    const ExprList *items = tuple_annotation(S, ann);
    if (!items && !sema_struct_type_of(S, ann, &st)) return false;
    if (!ret->expr) {
        diag_error(ret->span, QD2015, "kernel '%s' is declared to return a %s but returns no value", def->def.name, st ? "struct" : "tuple");
        return true;
    }
    Val v = sema_eval(S, ret->expr);
    if (v.kind == V_ERR) return true;
    RetVec out = {0};
    bool ok;
    if (st) {
        ok = ret_struct(S, &out, NULL, st, v, ret->expr->span);
    } else if (v.kind != V_TUPLE || v.tuple.n != items->n) {
        diag_error(ret->expr->span, QD2040, "kernel '%s' is declared to return a tuple of %d values, got %s", def->def.name, items->n,
                   val_describe(v));
        ok = false;
    } else {
        ok = true;
        for (int k = 0; ok && k < items->n; k++)
            ok = ret_element(S, &out, arena_printf(S->arena, "_%d", k), items->items[k], v.tuple.items[k], ret->expr->span);
    }
    if (ok) {
        S->k->ret_members = ARENA_ARRAY(S->arena, IrRetMember, out.len);
        memcpy(S->k->ret_members, out.items, sizeof(IrRetMember) * (size_t)out.len);
        S->k->ret_nmembers = out.len;
    }
    vec_free(&out);
    return true;
}

/* `return value` as the last top-level statement of a kernel declared `-> T`. */
void sema_kernel_return(Sema *S, const Stmt *def, const Stmt *ret) {
    QdType t;
    int n = 0, m = 0;
    if (aggregate_return(S, def, ret)) return;
    if (sema_vec_type_of(S, def->def.returns, &t, &n, &m)) {
        if (n) vector_return(S, def, ret, t, n, m);
        return;
    }
    if (!ret_scalar_type(S, def->def.returns, &t)) return;
    if (!ret->expr) {
        diag_error(ret->span, QD2015, "kernel '%s' is declared to return %s but returns no value", def->def.name, qt_name(t));
        return;
    }
    IrExpr *e = sema_expr(S, ret->expr);
    if (!e) return;
    int f = owned_field(S, arena_printf(S->arena, "qdc_ret_%s", S->k->name), t, ret->span);
    S->k->ret_type = t, S->k->ret_field = f;
    IrStmt *st = sema_stmt_new(S, IR_STORE, ret->span);
    st->store.ref = field_ref(S, f, ret->span).ref, st->store.value = irb_cast(S->arena, e, t);
    sema_emit(S, st);
}

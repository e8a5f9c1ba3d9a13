/* Python helper functions of several statements that compute a value (qdc-lang(7) "Whole
 * scripts"): `def _ann(kind, dt, n): if kind == qd.ndarray: return qd.types.NDArray[dt, n]
 * ... return qd.Template`, `def pow2(x): p = 1; while p < x: p <<= 1; return p`. Their body
 * may only bind local names (assignments, if, for, while, break, continue, return, nested
 * functions of the same kind, which are closures over the call's names), so a call
 * is evaluated like Python runs it, as often as it is called, without effects on the script:
 * a call is a V_PYFUNC call (sema_param.c) whose result is the value the body returns. */
#include "py.h"
#include <string.h>

/* Calls that change the script's state (declare or place fields, allocate or fill arrays). */
static bool effect_call(const Expr *e) {
    static const char *const effects[] = {"field", "ndarray", "tensor", "place", "dense", "pointer", "bitmasked", "dynamic", "from_numpy",
                                          "fill", "finalize", "FieldsBuilder", "copy_from", "append", "extend", "insert", "pop",
                                          "update", "setdefault", "clear", "remove", "sort", "init", "sync", "reset"};
    const Expr *fn = e->call.fn;
    const char *name = fn->kind == E_ATTR ? fn->attr.name : fn->kind == E_NAME ? fn->name : NULL;
    if (fn->kind == E_ATTR && fn->attr.obj->kind == E_ATTR && !strcmp(fn->attr.obj->attr.name, "types")) return false; /* qd.types.ndarray(): an annotation */
    for (size_t k = 0; name && k < ARRAY_LEN(effects); k++)
        if (!strcmp(effects[k], name)) return true;
    return false;
}

static bool pure_expr(const Expr *e) {
    if (!e) return true;
    switch (e->kind) {
    case E_CALL:
        if (effect_call(e) || !pure_expr(e->call.fn)) return false;
        for (int k = 0; k < e->call.args.n; k++)
            if (!pure_expr(e->call.args.items[k])) return false;
        for (int k = 0; k < e->call.nkw; k++)
            if (!pure_expr(e->call.kw[k].value)) return false;
        return true;
    case E_ATTR: return pure_expr(e->attr.obj);
    case E_SUBSCRIPT: return pure_expr(e->sub.obj) && pure_expr(e->sub.index);
    case E_TUPLE: case E_LIST: case E_BOOLOP:
        for (int k = 0; k < e->list.n; k++)
            if (!pure_expr(e->list.items[k])) return false;
        return true;
    case E_UNARY: case E_STARRED: return pure_expr(e->un.a);
    case E_BINARY: return pure_expr(e->bin.a) && pure_expr(e->bin.b);
    case E_COMPARE:
        for (int k = 0; k < e->cmp.items.n; k++)
            if (!pure_expr(e->cmp.items.items[k])) return false;
        return true;
    case E_IFEXP: return pure_expr(e->ifexp.cond) && pure_expr(e->ifexp.a) && pure_expr(e->ifexp.b);
    case E_SLICE: return pure_expr(e->slice.lo) && pure_expr(e->slice.hi) && pure_expr(e->slice.step);
    case E_COMP:
        for (const Expr *c = e; c; c = c->comp.next) {
            if (!pure_expr(c->comp.iter)) return false;
            for (int k = 0; k < c->comp.conds.n; k++)
                if (!pure_expr(c->comp.conds.items[k])) return false;
        }
        return pure_expr(e->comp.elt);
    case E_ERROR: case E_NAMED: return false; /* a walrus assigns */
    default: return true;
    }
}

static bool name_targets(const Expr *t) {
    if (t->kind == E_NAME) return true;
    if (t->kind != E_TUPLE && t->kind != E_LIST) return false;
    for (int k = 0; k < t->list.n; k++)
        if (!name_targets(t->list.items[k])) return false;
    return true;
}

/* A new list: [..], [x for ..], list(..), sorted(..). */
static bool new_list(const Expr *v) {
    if (v->kind == E_LIST || (v->kind == E_COMP && !v->comp.gen)) return true;
    return v->kind == E_CALL && v->call.fn->kind == E_NAME && (!strcmp(v->call.fn->name, "list") || !strcmp(v->call.fn->name, "sorted"));
}

/* Whether every assignment to NAME in l (its blocks included, not nested definitions) binds a
 * new list, and there is one: NAME is a list of this call's own, which no caller sees. */
static int own_list(const StmtList *l, const char *name) {
    int n = 0;
    for (int k = 0; k < l->n; k++) {
        const Stmt *s = l->stmts[k];
        if (s->kind == S_ASSIGN)
            for (int j = 0; j < s->assign.targets.n; j++) {
                const Expr *t = s->assign.targets.items[j];
                if (t->kind == E_NAME && !strcmp(t->name, name)) {
                    if (!new_list(s->assign.value)) return -1;
                    n++;
                }
                for (int i = 0; (t->kind == E_TUPLE || t->kind == E_LIST) && i < t->list.n; i++) /* a, xs = ...: any value */
                    if (t->list.items[i]->kind == E_NAME && !strcmp(t->list.items[i]->name, name)) return -1;
            }
        if ((s->kind == S_ANNASSIGN || s->kind == S_AUGASSIGN) && (s->kind == S_ANNASSIGN ? s->ann.target : s->aug.target)->kind == E_NAME &&
            !strcmp((s->kind == S_ANNASSIGN ? s->ann.target : s->aug.target)->name, name))
            return -1;
        if (s->kind == S_FOR && name_targets(s->for_.target)) {
            const Expr *t = s->for_.target;
            if (t->kind == E_NAME && !strcmp(t->name, name)) return -1;
            for (int i = 0; t->kind != E_NAME && i < t->list.n; i++)
                if (t->list.items[i]->kind == E_NAME && !strcmp(t->list.items[i]->name, name)) return -1;
        }
        const StmtList *sub[2] = {s->kind == S_IF ? &s->if_.then : s->kind == S_FOR ? &s->for_.body : s->kind == S_WHILE ? &s->while_.body : NULL,
                                  s->kind == S_IF ? &s->if_.els : NULL};
        for (int i = 0; i < 2; i++) {
            int m = sub[i] ? own_list(sub[i], name) : 0;
            if (m < 0) return -1;
            n += m;
        }
    }
    return n;
}

/* A statement NAME.append(v) / NAME.extend(seq) of values that only compute, NAME a list of the
 * call's own (own_list): the evaluator grows it (sema_host_list_method), as Python does. */
static bool own_list_growth(const Expr *e, const Stmt *def) {
    if (e->kind != E_CALL || e->call.fn->kind != E_ATTR || e->call.fn->attr.obj->kind != E_NAME || e->call.args.n != 1 || e->call.nkw) return false;
    const char *m = e->call.fn->attr.name, *name = e->call.fn->attr.obj->name;
    if ((strcmp(m, "append") && strcmp(m, "extend")) || !pure_expr(e->call.args.items[0])) return false;
    for (int k = 0; k < def->def.nparams; k++)
        if (!strcmp(def->def.params[k].name, name)) return false;
    return own_list(&def->def.body, name) > 0;
}

static bool pure_block(const StmtList *l, const Stmt *def) {
    for (int k = 0; k < l->n; k++) {
        const Stmt *s = l->stmts[k];
        bool ok;
        switch (s->kind) {
        case S_EXPR: ok = s->expr->kind == E_STR || own_list_growth(s->expr, def); break; /* a docstring; xs.append(v) */
        case S_ASSIGN:
            ok = pure_expr(s->assign.value);
            for (int j = 0; j < s->assign.targets.n; j++) ok &= name_targets(s->assign.targets.items[j]);
            break;
        case S_ANNASSIGN: ok = s->ann.value && name_targets(s->ann.target) && pure_expr(s->ann.value); break;
        case S_AUGASSIGN: ok = s->aug.target->kind == E_NAME && pure_expr(s->aug.value); break;
        case S_IF: ok = pure_expr(s->if_.cond) && !s->if_.raises && pure_block(&s->if_.then, def) && pure_block(&s->if_.els, def); break;
        case S_FOR: ok = name_targets(s->for_.target) && pure_expr(s->for_.iter) && pure_block(&s->for_.body, def); break;
        case S_WHILE: ok = pure_expr(s->while_.cond) && pure_block(&s->while_.body, def); break;
        case S_RETURN: ok = pure_expr(s->expr); break;
        case S_BREAK: case S_CONTINUE: case S_PASS: ok = true; break;
        case S_ASSERT: ok = pure_expr(s->assert_.cond) && pure_expr(s->assert_.msg); break; /* checks; a raise ends the call */
        case S_DEF: /* a nested function that only computes: a closure over this call's names */
            ok = s->def.host && !s->def.decorators.n && strncmp(s->def.name, "test", 4) && (sema_pyfunc_return(s) || sema_pyfunc_body_ok(s));
            break;
        default: ok = false; break; /* definitions, imports, host statements qdc skips (a try, a with) */
        }
        if (!ok) return false;
    }
    return true;
}

/* A host function qdc evaluates at each call: one whose body only computes (pure_block) and
 * returns somewhere. */
bool sema_pyfunc_body_ok(const Stmt *def) { return ast_may_return(&def->def.body) && pure_block(&def->def.body, def); }

/* A copy of e with each name the function's scopes bind replaced by its value (E_VALUE), so an
 * annotation it returns (qd.types.NDArray[dtype, ndim]) means the same outside the function. */
Expr *sema_bound_copy(Sema *S, const Expr *e) {
    Expr *c = ARENA_NEW(S->arena, Expr);
    *c = *e;
    switch (e->kind) {
    case E_NAME: {
        Binding *b = S->core->sema_lookup(S, e->name);
        return b ? sema_value_expr(S, b->v, e->span) : c;
    }
    case E_ATTR: c->attr.obj = sema_bound_copy(S, e->attr.obj); return c;
    case E_UNARY: case E_STARRED: c->un.a = sema_bound_copy(S, e->un.a); return c;
    case E_BINARY: c->bin.a = sema_bound_copy(S, e->bin.a), c->bin.b = sema_bound_copy(S, e->bin.b); return c;
    case E_SUBSCRIPT: c->sub.obj = sema_bound_copy(S, e->sub.obj), c->sub.index = sema_bound_copy(S, e->sub.index); return c;
    case E_TUPLE: case E_LIST:
        c->list.items = ARENA_ARRAY(S->arena, Expr *, e->list.n ? e->list.n : 1);
        for (int k = 0; k < e->list.n; k++) c->list.items[k] = sema_bound_copy(S, e->list.items[k]);
        return c;
    case E_CALL:
        c->call.fn = sema_bound_copy(S, e->call.fn);
        c->call.args.items = ARENA_ARRAY(S->arena, Expr *, e->call.args.n ? e->call.args.n : 1);
        for (int k = 0; k < e->call.args.n; k++) c->call.args.items[k] = sema_bound_copy(S, e->call.args.items[k]);
        c->call.kw = ARENA_ARRAY(S->arena, Keyword, e->call.nkw ? e->call.nkw : 1);
        for (int k = 0; k < e->call.nkw; k++) c->call.kw[k] = e->call.kw[k], c->call.kw[k].value = sema_bound_copy(S, e->call.kw[k].value);
        return c;
    default: return c;
    }
}

/* `return e` in such a body: e's value, or V_HOST saying why qdc cannot compute it. */
Val sema_pyfunc_result(Sema *S, const Expr *e) {
    if (!e) return (Val){.kind = V_NONE};
    if (e->kind == E_IFEXP) { /* A if COND else B: the branch COND picks (each may be an annotation) */
        int mark = diag_quiet_begin();
        Val c = S->core->sema_eval(S, e->ifexp.cond);
        bool bad = diag_quiet_end(mark) || !val_is_host_scalar(c);
        if (!bad) return sema_pyfunc_result(S, val_host_truth(c) ? e->ifexp.a : e->ifexp.b);
    }
    if (S->up->sema_annotation_alias(S, e)) return (Val){.kind = V_ANNOT, .ann = sema_bound_copy(S, e)}; /* return qd.types.NDArray[dt, n] */
    if (S->core->sema_is_host_expr(S, e)) return (Val){.kind = V_HOST, .path = "a value known only when the script runs"};
    int mark = diag_quiet_begin();
    Val v = S->core->sema_eval(S, e);
    if (diag_quiet_end(mark)) return (Val){.kind = V_HOST, .path = arena_printf(S->arena, "a value qdc cannot compute (%s)", diag_quiet_first())};
    return v;
}

/* Evaluates def's body in sc (its parameters bound): what it returns, None when it ends
 * without a return (Python's rule); V_HOST when qdc cannot follow it. */
Val sema_pyfunc_body(Sema *S, const Stmt *def, Scope *sc) {
    Scope *h = S->hscope, *k = S->scope, *bind_to = S->bind_to;
    IrStmtVec *cur = S->cur;
    bool returned = S->host_returned;
    Val ret = S->host_ret;
    int loops = S->host_loops;
    S->hscope = sc, S->scope = NULL, S->cur = NULL, S->bind_to = NULL, S->host_loops = 0;
    S->host_returned = false, S->host_ret = val_err(), S->pyfunc_body++;
    S->core->sema_module_body(S, &def->def.body);
    Val r = S->host_returned ? S->host_ret : (Val){.kind = V_NONE};
    S->hscope = h, S->scope = k, S->bind_to = bind_to, S->cur = cur, S->host_loops = loops, S->host_jump = HJ_NONE;
    S->host_returned = returned, S->host_ret = ret, S->pyfunc_body--;
    return r;
}

/* In a body being evaluated, a return qdc cannot tell whether it happens (under an `if` or in
 * a loop it cannot decide): the call's value is unknown. */
void sema_pyfunc_unknown_return(Sema *S, const StmtList *l, const char *why) {
    if (!S->pyfunc_body || S->host_returned || !ast_may_return(l)) return;
    S->host_returned = true, S->host_ret = (Val){.kind = V_HOST, .path = why};
}

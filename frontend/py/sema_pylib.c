/* The few names of Python's standard library that decide how a program's classes are read:
 * `import dataclasses`, `from dataclasses import dataclass`, `functools.partial` of the
 * dataclass decorator (Genesis' array_class: `DATA_ORIENTED = partial(dataclasses.dataclass,
 * frozen=True) if gs.use_ndarray else qd.data_oriented`), and a class decorated by such an alias
 * (`@DATA_ORIENTED class StructX(metaclass=BASE_METACLASS)`), resolved when its definition runs.
 * Their values are V_NS paths outside qd ("dataclasses.dataclass"); anything else of these
 * modules stays the script's. */
#include "py.h"
#include <string.h>

static bool pylib_module(const char *name) { return !strcmp(name, "dataclasses") || !strcmp(name, "functools") || !strcmp(name, "types"); }

static bool pylib_name(const char *mod, const char *name) {
    return (!strcmp(mod, "dataclasses") && !strcmp(name, "dataclass")) || (!strcmp(mod, "functools") && !strcmp(name, "partial")) ||
           (!strcmp(mod, "types") && !strcmp(name, "SimpleNamespace"));
}


/* import dataclasses [as d]; from dataclasses import dataclass; from functools import partial. */
bool sema_pylib_import(Sema *S, const Stmt *s, const char *module) {
    if (s->import.star || !pylib_module(module)) return false;
    if (s->import.name && !pylib_name(module, s->import.name)) return false;
    const char *path = s->import.name ? arena_printf(S->arena, "%s.%s", module, s->import.name) : module;
    S->core->scope_bind(S, BIND_SCOPE(S), s->import.alias, (Val){.kind = V_NS, .path = path}, s->import.bound);
    return true;
}

/* dataclasses.dataclass, functools.partial: *out; false for a path that is not one of these modules. */
bool sema_pylib_attr(Sema *S, Val o, const Expr *e, Val *out) {
    if (o.kind != V_NS || !pylib_module(o.path)) return false;
    if (pylib_name(o.path, e->attr.name)) return *out = (Val){.kind = V_NS, .path = arena_printf(S->arena, "%s.%s", o.path, e->attr.name)}, true;
    diag_error(e->span, QD2062, "'%s.%s' is known only when the script runs (qdc reads dataclasses.dataclass and "
               "functools.partial of it)", o.path, e->attr.name);
    return *out = val_err(), true;
}

static bool is_dataclass(Val v) { return v.kind == V_NS && !strcmp(v.path, "dataclasses.dataclass"); }

/* dataclasses.dataclass(frozen=True, ...) and functools.partial(dataclasses.dataclass, ...): the
 * decorator itself (its options change nothing a kernel sees). */
bool sema_pylib_call(Sema *S, const Expr *call, Val f, Val *out) {
    if (f.kind == V_NS && !strcmp(f.path, "types.SimpleNamespace")) { /* types.SimpleNamespace(a=1, b=x): its keywords */
        if (call->call.args.n)
            return diag_error(call->call.args.items[0]->span, QD2007, "SimpleNamespace() takes no positional arguments"), *out = val_err(), true;
        const char **names = ARENA_ARRAY(S->arena, const char *, call->call.nkw + 1);
        Val *vals = ARENA_ARRAY(S->arena, Val, call->call.nkw + 1);
        for (int k = 0; k < call->call.nkw; k++)
            if (!(names[k] = call->call.kw[k].name) || (vals[k] = S->core->sema_eval(S, call->call.kw[k].value)).kind == V_ERR) return *out = val_err(), true;
        return *out = sema_namespace(S, "SimpleNamespace", names, vals, call->call.nkw), true;
    }
    if (f.kind != V_NS || (strcmp(f.path, "dataclasses.dataclass") && strcmp(f.path, "functools.partial"))) return false;
    if (is_dataclass(f)) {
        if (call->call.args.n)
            return diag_error(call->span, QD2062, "dataclasses.dataclass(cls) is applied when the script runs; qdc reads it as a decorator"),
                   *out = val_err(), true;
        return *out = f, true;
    }
    Val fn = call->call.args.n ? S->core->sema_eval(S, call->call.args.items[0]) : val_err();
    if (fn.kind == V_ERR) return *out = val_err(), true;
    if (is_dataclass(fn)) return *out = fn, true;
    /* functools.partial(f, a, k=v): a V_METHOD "functools.partial" whose self is the tuple (f, (a, ...),
     * {"k": v, ...}); calling it calls f with those arguments first (sema_partial_call) */
    int na = call->call.args.n - 1, nk = call->call.nkw;
    Val *parts = ARENA_ARRAY(S->arena, Val, 3), *args = ARENA_ARRAY(S->arena, Val, na + 1);
    Val *keys = ARENA_ARRAY(S->arena, Val, nk + 1), *vals = ARENA_ARRAY(S->arena, Val, nk + 1);
    for (int k = 0; k < na; k++)
        if ((args[k] = S->core->sema_eval(S, call->call.args.items[k + 1])).kind == V_ERR) return *out = val_err(), true;
    for (int k = 0; k < nk; k++) {
        if (!call->call.kw[k].name) return diag_error(call->call.kw[k].span, QD2062, "functools.partial(f, **kw) is known only when the script runs"), *out = val_err(), true;
        keys[k] = (Val){.kind = V_STR, .path = call->call.kw[k].name};
        if ((vals[k] = S->core->sema_eval(S, call->call.kw[k].value)).kind == V_ERR) return *out = val_err(), true;
    }
    parts[0] = fn, parts[1] = (Val){.kind = V_TUPLE, .tuple = {args, na}}, parts[2] = (Val){.kind = V_DICT, .dict = {keys, vals, nk}};
    Val *self = ARENA_NEW(S->arena, Val);
    *self = (Val){.kind = V_TUPLE, .tuple = {parts, 3}};
    return *out = (Val){.kind = V_METHOD, .method = {self, "functools.partial"}}, true;
}

/* @ALIAS class NAME: what ALIAS is when the definition runs decides (a dataclass, a
 * @qd.data_oriented class); another decorator leaves the class to the script. */
void sema_alias_class(Sema *S, const Stmt *cls) {
    IrStmtVec *cur = S->cur;
    S->cur = NULL;
    int mark = diag_quiet_begin();
    Val d = S->core->sema_eval(S, cls->class_.deco);
    diag_quiet_end(mark);
    S->cur = cur;
    if (is_dataclass(d)) return sema_pydc_class(S, cls);
    if (d.kind == V_NS && !strcmp(d.path, "qd.data_oriented")) return sema_class(S, cls);
    S->core->scope_bind(S, BIND_SCOPE(S), cls->class_.name, (Val){.kind = V_HOST, .path = "a decorated Python definition"}, cls->class_.name_span);
}

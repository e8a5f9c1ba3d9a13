/* Python dataclasses (@dataclasses.dataclass, `from dataclasses import dataclass`, frozen or
 * not) as containers of kernel and qd.func parameters. The container exists at compile time
 * only (Quadrants flattens it): a kernel parameter `s: State` becomes one kernel parameter per
 * leaf member, in declaration order, nested dataclasses depth first, named s__<member>
 * (s__inner__x), at the position of `s` (qdc-abi(7)). A member annotated with a fixed type
 * (qd.types.NDArray[dt, n], qd.types.ndarray(dt, n), a scalar type, float, int, a vector or
 * matrix type) is a run-time parameter; a generic member (qd.Tensor, qd.template(), an ndarray
 * without dtype or ndim) takes its value from the instance a host call passes (a field, an
 * array qd.ndarray/numpy makes, a compile-time number), so the kernel is instantiated per call
 * site like any generic kernel (sema_generic.c). In kernels and qd.funcs the instance is a
 * V_PYDC: `s.a` is the member, `s.inner` a nested instance (passed to a qd.func as is);
 * members are read-only (QD2010), their contents writable. */
#include "py.h"
#include <stdio.h>
#include <string.h>

typedef enum { M_BAD, M_DC, M_ARRAY, M_GENERIC, M_VEC, M_STRUCT, M_SCALAR, M_OBJECT } MemberKind;

/* The dataclass an annotation (a name or a dotted name) denotes, NULL if none. */
const PyDc *sema_pydc_of(Sema *S, const Expr *ann) {
    if (ann && ann->kind == E_ATTR) { /* array_class.State: a module's */
        Binding *b = S->core->sema_module_member(S, ann);
        return b && b->v.kind == V_PYDCTYPE ? b->v.pydc.dc : NULL;
    }
    if (!ann || (ann->kind != E_NAME && ann->kind != E_STR)) return NULL;
    Binding *b = S->core->sema_lookup(S, ann->kind == E_NAME ? ann->name : ann->str); /* "State": a forward reference */
    return b && b->v.kind == V_PYDCTYPE ? b->v.pydc.dc : NULL;
}

void sema_pydc_class(Sema *S, const Stmt *cls) {
    PyDc *dc = ARENA_NEW(S->arena, PyDc);
    dc->cls = cls, dc->scope = S->bind_to ? S->bind_to : S->hscope;
    const StmtList *b = &cls->class_.body;
    dc->names = ARENA_ARRAY(S->arena, const char *, b->n ? b->n : 1);
    dc->anns = ARENA_ARRAY(S->arena, const Expr *, b->n ? b->n : 1);
    dc->dflts = ARENA_ARRAY(S->arena, const Expr *, b->n ? b->n : 1);
    for (int k = 0; k < b->n; k++) {
        const Stmt *s = b->stmts[k];
        if (s->kind != S_ANNASSIGN || s->ann.target->kind != E_NAME) continue; /* docstrings, methods, ClassVar-free constants */
        dc->names[dc->n] = s->ann.target->name, dc->anns[dc->n] = s->ann.annotation, dc->dflts[dc->n] = s->ann.value;
        dc->n++;
    }
    S->core->scope_bind(S, dc->scope, cls->class_.name, (Val){.kind = V_PYDCTYPE, .pydc = {dc, NULL}}, cls->class_.name_span);
}

/* What member k's annotation declares; annotations name things of the scope the class is in. */
static MemberKind member_kind(Sema *S, const PyDc *dc, int k, const PyDc **sub) {
    Scope *hs = S->hscope, *sc = S->scope;
    S->hscope = dc->scope, S->scope = NULL;
    const Expr *ann = dc->anns[k], *dt, *nd;
    QdType t;
    int n = 0, m = 0;
    const QdStruct *st;
    MemberKind r = M_SCALAR;
    SemaParamShape shape = S->up->sema_param_shape(S, ann, &dt, &nd);
    bool any = (ann->kind == E_NAME && (!strcmp(ann->name, "object") || !strcmp(ann->name, "Any"))) ||
               (ann->kind == E_ATTR && !strcmp(ann->attr.name, "Any")); /* the value decides, as for qd.template() */
    if ((*sub = sema_pydc_of(S, ann))) r = M_DC;
    else if (any) r = M_GENERIC;
    else if (shape == PS_TEMPLATE || shape == PS_TENSOR || (shape == PS_ARRAY && (!dt || !nd))) r = M_GENERIC;
    else if (shape == PS_ARRAY) r = M_ARRAY;
    else if (S->up->sema_vec_type_of(S, ann, &t, &n, &m)) r = n ? M_VEC : M_BAD;
    else if (S->up->sema_struct_type_of(S, ann, &st)) r = M_STRUCT;
    else if (ann->kind == E_NAME) { /* a @qd.data_oriented class */
        Binding *b = S->core->sema_lookup(S, ann->name);
        if (b && b->v.kind == V_CLASS) r = M_OBJECT;
    }
    S->hscope = hs, S->scope = sc;
    return r;
}

/* Each member dataclass is asked once per level (members of one type are alike: a dataclass
 * whose members double at each level is walked in linear time, not 2**levels). */
bool sema_pydc_is_generic(Sema *S, const PyDc *dc) {
    const PyDc *seen[8];
    int nseen = 0;
    for (int k = 0; k < dc->n; k++) {
        const PyDc *sub;
        MemberKind mk = member_kind(S, dc, k, &sub);
        if (mk == M_GENERIC) return true;
        if (mk != M_DC || sub == dc) continue;
        bool again = false;
        for (int j = 0; j < nseen; j++) again |= seen[j] == sub;
        if (again) continue;
        if (nseen < (int)ARRAY_LEN(seen)) seen[nseen++] = sub;
        if (sema_pydc_is_generic(S, sub)) return true;
    }
    return false;
}

/* ---- host code: instances ---- */

static Val host_value(Sema *S, const Expr *e, const char *name);

/* __post_init__(self): its `self.NAME = value` statements set members (in order, each seeing
 * the ones before); a value qdc cannot compute is known only when the script runs. Other
 * statements are the script's. */
static void post_init(Sema *S, const PyDc *dc, Val *v) {
    const StmtList *body = &dc->cls->class_.body;
    const Stmt *pi = NULL;
    for (int k = 0; k < body->n; k++)
        if (body->stmts[k]->kind == S_DEF && body->stmts[k]->def.host && !strcmp(body->stmts[k]->def.name, "__post_init__") &&
            body->stmts[k]->def.nparams == 1)
            pi = body->stmts[k];
    if (!pi || !budget_enter(&S->budget, pi->span)) return;
    Scope *sc = xcalloc(1, sizeof *sc), *hs = S->hscope, *ks = S->scope;
    sc->parent = dc->scope;
    vec_push(&S->host_scopes, sc);
    S->core->scope_bind(S, sc, pi->def.params[0].name, *v, pi->def.params[0].span);
    S->hscope = sc, S->scope = NULL;
    for (int k = 0; k < pi->def.body.n; k++) {
        const Stmt *s = pi->def.body.stmts[k];
        const Expr *t = s->kind == S_ASSIGN && s->assign.targets.n == 1 ? s->assign.targets.items[0] : NULL;
        if (!t || t->kind != E_ATTR || t->attr.obj->kind != E_NAME || strcmp(t->attr.obj->name, pi->def.params[0].name)) continue;
        int m = 0;
        while (m < dc->n && strcmp(dc->names[m], t->attr.name)) m++;
        if (m == dc->n) continue;
        int mark = diag_quiet_begin();
        Val r = S->core->sema_is_host_expr(S, s->assign.value) ? val_err() : S->core->sema_eval(S, s->assign.value);
        bool known = !diag_quiet_end(mark) && r.kind != V_ERR && (r.kind != V_EXPR || val_is_host_scalar(r));
        v->pydc.m[m] = known ? r : (Val){.kind = V_HOST, .path = "a member __post_init__ sets from a value qdc cannot compute"};
        S->core->scope_bind(S, sc, pi->def.params[0].name, *v, pi->def.params[0].span); /* self sees the members set so far */
    }
    S->hscope = hs, S->scope = ks;
    budget_leave(&S->budget);
}

/* State(a=x, b=y) / State(x, y) in host code; false if the callee is not a dataclass. name: the
 * instance's (a data-oriented instance made for member m is named NAME__m; NULL: the
 * construction is only looked at, and makes none). */
static bool construct(Sema *S, const Expr *call, Val *out, const char *name) {
    if (call->kind != E_CALL) return false;
    const PyDc *dc = sema_pydc_of(S, call->call.fn);
    if (!dc) return false;
    Val v = {.kind = V_PYDC, .pydc = {dc, ARENA_ARRAY(S->arena, Val, dc->n ? dc->n : 1)}};
    for (int k = 0; k < dc->n; k++) {
        const Expr *given = k < call->call.args.n ? call->call.args.items[k] : NULL;
        for (int j = 0; j < call->call.nkw; j++)
            if (!strcmp(call->call.kw[j].name, dc->names[k])) given = call->call.kw[j].value;
        const char *mname = name ? arena_printf(S->arena, "%s__%s", name, dc->names[k]) : NULL;
        if (given) v.pydc.m[k] = host_value(S, given, mname);
        else if (dc->dflts[k]) {
            Scope *hs = S->hscope;
            S->hscope = dc->scope;
            v.pydc.m[k] = host_value(S, dc->dflts[k], mname);
            S->hscope = hs;
        } else v.pydc.m[k] = (Val){.kind = V_HOST, .path = "a member the construction does not give"};
    }
    post_init(S, dc, &v);
    *out = v;
    return true;
}

/* A member's value as a host call passes it: what a generic member can be instantiated with, a
 * data-oriented instance (one made here is named `name`). */
static Val host_value(Sema *S, const Expr *e, const char *name) {
    Val v;
    if (construct(S, e, &v, name) || S->up->sema_host_array(S, e, &v)) return v;
    const char *p = e->kind == E_CALL ? S->core->sema_path(S, e->call.fn) : NULL;
    if (p && (!strcmp(p, "qd.Tensor") || !strcmp(p, "qd.types.Tensor")) && e->call.args.n == 1) return host_value(S, e->call.args.items[0], name);
    if (name && e->kind == E_CALL && (v = S->up->sema_object_value(S, name, e)).kind == V_OBJECT) return v;
    if (e->kind == E_NAME) {
        Binding *b = S->core->sema_lookup(S, e->name);
        if (b && (b->v.kind == V_FIELD || b->v.kind == V_HOSTARRAY || b->v.kind == V_PYDC || b->v.kind == V_OBJECT ||
                  val_is_host_scalar(b->v)))
            return b->v;
        if (b && b->v.kind == V_HOST) return b->v;
        return (Val){.kind = V_HOST, .path = "a value qdc cannot compute"};
    }
    if (e->kind == E_INT || e->kind == E_FLOAT || e->kind == E_BOOL || (e->kind == E_UNARY && e->un.a->kind != E_NAME)) {
        int mark = diag_quiet_begin();
        Scope *sc = S->scope;
        S->scope = NULL;
        v = S->core->sema_eval(S, e);
        S->scope = sc;
        if (!diag_quiet_end(mark) && val_is_host_scalar(v)) return v;
    }
    return (Val){.kind = V_HOST, .path = "a value qdc cannot compute"};
}

bool sema_pydc_new(Sema *S, const Expr *target, const Expr *call, Scope *to, Span sp) {
    Val v;
    if (!construct(S, call, &v, target->name)) return false;
    S->core->scope_bind(S, to, target->name, v, sp);
    return true;
}

/* Appends the spelling of the generic leaves of host instance v (entry names of call-site
 * instantiations); false if one of them is not known. */
static bool spell(Sema *S, const PyDc *dc, Val v, const Expr *at, StrBuf *b, bool *first) {
    for (int k = 0; k < dc->n; k++) {
        const PyDc *sub;
        MemberKind mk = member_kind(S, dc, k, &sub);
        Val m = v.pydc.m[k];
        if (mk == M_DC && m.kind == V_PYDC && sub != dc) {
            if (!spell(S, sub, m, at, b, first)) return false;
            continue;
        }
        if (mk == M_OBJECT && m.kind == V_OBJECT) { /* a data-oriented instance: one instantiation per instance, as Quadrants keys it */
            sb_printf(b, "%s%s", *first ? "" : "_", m.obj->name);
            *first = false;
            continue;
        }
        if (mk != M_GENERIC) continue;
        if (!*first) sb_puts(b, "_");
        *first = false;
        const char *fn = m.kind == V_FIELD ? S->fields.items[m.index].name : NULL;
        if (fn && !strncmp(fn, S->prefix, strlen(S->prefix))) fn += strlen(S->prefix); /* a field of this host function */
        if (fn) sb_puts(b, fn);
        else if (m.kind == V_HOSTARRAY) S->up->sema_hostarray_spell(b, m);
        else if (!val_host_spell(b, m)) return false;
    }
    return true;
}

/* A host call's argument that is a dataclass instance (a name bound to one, or State(...)). */
bool sema_pydc_call_value(Sema *S, const Expr *a, Val *v, StrBuf *b) {
    Binding *bd = a->kind == E_NAME ? S->core->sema_lookup(S, a->name) : NULL;
    if (bd && bd->v.kind == V_PYDC) *v = bd->v;
    else if (!construct(S, a, v, NULL)) return false;
    sb_puts(b, v->pydc.dc->cls->class_.name);
    bool first = false;
    spell(S, v->pydc.dc, *v, a, b, &first); /* a member it cannot spell: flatten() reports it */
    return true;
}

/* ---- kernels: flattening a parameter ---- */

/* A parameter already added under this name: a data-oriented instance's dataclass attribute is
 * flattened at each use (sema_object_attr), its members added once. The scan is charged to the
 * steps budget (one step per 64 parameters it passes): dataclasses that double at each level
 * would make it quadratic. -2 when the budget ran out. */
static int param_named(Sema *S, const char *name, Span sp) {
    if (!budget_charge(&S->budget, EB_STEPS, 1 + (S->params.len >> 6), sp)) return -2;
    for (int k = 0; k < S->params.len; k++)
        if (!strcmp(S->params.items[k].name, name)) return k;
    return -1;
}

/* A dataclass member's scalar kernel parameter (kernel semantics makes it, sema_scalar_param). */
static Val scalar_param(Sema *S, const char *name, QdType t, Span sp) {
    int have = param_named(S, name, sp);
    if (have == -2) return val_err();
    return have >= 0 ? S->core->sema_param_value(S, have, sp) : S->core->sema_scalar_param(S, name, t, sp);
}

static Val ndarray_param(Sema *S, IrParam p) {
    int have = param_named(S, p.name, p.span);
    if (have == -2) return val_err();
    if (have >= 0) return (Val){.kind = V_NDARRAY, .index = have};
    vec_push(&S->params, p);
    return (Val){.kind = V_NDARRAY, .index = S->params.len - 1};
}

/* A generic member: the value the call site passes. */
static Val generic_member(Sema *S, const PyDc *dc, int k, const char *name, Val host, Span sp) {
    const Expr *dt, *nd;
    S->up->sema_param_shape(S, dc->anns[k], &dt, &nd);
    if (host.kind == V_FIELD || val_is_host_scalar(host)) return host;
    if (host.kind == V_HOSTARRAY) {
        IrParam p = {.name = name, .span = sp};
        S->up->sema_hostarray_param(host, &p);
        return ndarray_param(S, p);
    }
    diag_error(sp, QD2060, "member '%s' of dataclass '%s' is generic and qdc cannot evaluate what a call passes for it (%s); "
               "pass an instance built in host code from fields, qd.ndarray/numpy arrays with a dtype or numbers, or give the "
               "member a fixed type such as qd.types.NDArray[qd.f32, 1]", dc->names[k], dc->cls->class_.name,
               host.kind == V_HOST ? host.path : "no call qdc can evaluate");
    return val_err();
}

/* typed: the kernel parameter when it is annotated with the dataclass (NULL: qd.template()). */
static Val flatten(Sema *S, const PyDc *dc, const char *prefix, Val host, Span sp, const Param *typed) {
    if (!budget_charge(&S->budget, EB_DEPTH, 1, sp)) return val_err(); /* nested dataclasses: one level each (QD2026) */
    Val v = {.kind = V_PYDC, .pydc = {dc, ARENA_ARRAY(S->arena, Val, dc->n ? dc->n : 1)}};
    bool ok = true;
    for (int k = 0; k < dc->n && budget_ok(&S->budget); k++) {
        const char *name = arena_printf(S->arena, "%s__%s", prefix, dc->names[k]);
        const PyDc *sub;
        MemberKind mk = member_kind(S, dc, k, &sub);
        Val h = host.kind == V_PYDC ? host.pydc.m[k] : (Val){.kind = V_HOST, .path = "no call qdc can evaluate"};
        Scope *hs = S->hscope, *sc = S->scope;
        S->hscope = dc->scope, S->scope = NULL;
        Val r = val_err();
        QdType t;
        int n = 0, m = 0;
        switch (mk) {
        case M_DC: r = flatten(S, sub, name, h, sp, typed); break;
        case M_GENERIC: r = generic_member(S, dc, k, name, h, sp); break;
        case M_ARRAY: {
            IrParam p = {.name = name, .span = sp};
            if (S->core->sema_ndarray_annotation(S, dc->anns[k], &p)) r = ndarray_param(S, p);
            break;
        }
        case M_VEC:
            S->up->sema_vec_type_of(S, dc->anns[k], &t, &n, &m);
            r = S->up->vec_make(S, n, m);
            int first = S->params.len;
            for (int c = 0; c < vec_len(r); c++) r.vec.c[c] = scalar_param(S, arena_printf(S->arena, "%s_%d", name, c), t, sp);
            for (int c = first; S->params.len - first == vec_len(r) && c < S->params.len; c++) /* new components: the shape, as vector_param's */
                S->params.items[c].elem_shape[0] = n, S->params.items[c].elem_shape[1] = m;
            break;
        case M_SCALAR:
            if (S->core->sema_annotation_type(S, dc->anns[k], &t)) r = scalar_param(S, name, t, sp);
            break;
        case M_STRUCT: { /* a qd.types.struct / @qd.dataclass member: by value, NAME_member[_k] */
            const QdStruct *st;
            S->up->sema_struct_type_of(S, dc->anns[k], &st);
            r = S->up->sema_struct_params(S, st, name, sp);
            break;
        }
        case M_BAD: break;
        case M_OBJECT: /* Quadrants walks a data-oriented member of a qd.template() argument by value, and
                          refuses one in a typed-dataclass parameter, whose members come from annotations */
            if (typed) {
                diag_error(typed->span, QD2005, "Kernel arg '%s': field '%s' has @qd.data_oriented type '%s', which cannot be "
                           "flattened into a typed-dataclass kernel arg. Use ``%s: qd.template()`` for the outer kernel arg "
                           "annotation instead; data_oriented contents (including nested ndarrays) are walked at kernel-compile "
                           "time via the template path.", typed->name, dc->names[k], dc->anns[k]->kind == E_NAME ? dc->anns[k]->name : "?",
                           typed->name);
                diag_note(dc->anns[k]->span, "member '%s' of dataclass '%s' is declared here", dc->names[k], dc->cls->class_.name);
            } else if (h.kind == V_OBJECT) r = h;
            else
                diag_error(sp, QD2062, "member '%s' of dataclass '%s' holds an instance of @qd.data_oriented class '%s' that qdc "
                           "cannot follow (%s); create it in the dataclass's construction or bind it to a name first",
                           dc->names[k], dc->cls->class_.name, dc->anns[k]->kind == E_NAME ? dc->anns[k]->name : "?",
                           h.kind == V_HOST ? h.path : "a value qdc cannot compute");
            break;
        }
        S->hscope = hs, S->scope = sc;
        v.pydc.m[k] = r;
        ok &= r.kind != V_ERR;
    }
    (void)ok; /* a member in error is V_ERR: its uses stay quiet, the others are checked */
    budget_leave(&S->budget);
    return v;
}

Val sema_pydc_flatten(Sema *S, Val host, const char *prefix, Span sp) { return flatten(S, host.pydc.dc, prefix, host, sp, NULL); }

bool sema_pydc_param(Sema *S, const Param *ap, Val host) {
    const PyDc *dc = ap->annotation ? sema_pydc_of(S, ap->annotation) : NULL;
    const Param *typed = dc ? ap : NULL;
    const Expr *dt, *nd;
    if (!dc && host.kind == V_PYDC && S->up->sema_param_shape(S, ap->annotation, &dt, &nd) == PS_TEMPLATE)
        dc = host.pydc.dc; /* deprecated in Quadrants (a DeprecationWarning), still accepted */
    if (!dc) return false;
    if (ap->dflt) diag_error(ap->dflt->span, QD2005, "kernel parameters cannot have default values in v1");
    Val v = ap->dflt ? val_err() : flatten(S, dc, ap->name, host, ap->span, typed);
    S->core->scope_bind(S, S->scope, ap->name, v, ap->span)->is_param = true;
    return true;
}

Val sema_pydc_attr(Sema *S, Val o, const Expr *attr) {
    const PyDc *dc = o.pydc.dc;
    for (int k = 0; k < dc->n; k++)
        if (!strcmp(dc->names[k], attr->attr.name)) return o.pydc.m[k];
    bool found;
    Val m = S->up->sema_class_method(S, &dc->cls->class_.body, dc->scope, o, attr, &found); /* s.total(), s.area (a property) */
    if (found) return m;
    if (!S->k && !S->cur) /* host code: an attribute set where qdc does not look (Quadrants' _qd_dc_unwrapped cache), or Python's AttributeError */
        return (Val){.kind = V_HOST, .path = "an attribute of a dataclass instance that its class does not declare"};
    diag_error(attr->span, QD2019, "dataclass '%s' has no member '%s'", dc->cls->class_.name, attr->attr.name);
    return val_err();
}

/* A namespace of named values (types.SimpleNamespace(a=1), pytest's request): a V_PYDC of a
 * class of no methods named `cls`, whose members are the names in the order given. */
Val sema_namespace(Sema *S, const char *cls, const char *const *names, const Val *vals, int n) {
    Stmt *c = ARENA_NEW(S->arena, Stmt);
    c->kind = S_CLASS, c->class_.name = cls;
    PyDc *dc = ARENA_NEW(S->arena, PyDc);
    dc->cls = c, dc->scope = S->hscope, dc->n = n;
    dc->names = ARENA_ARRAY(S->arena, const char *, n ? n : 1);
    dc->anns = ARENA_ARRAY(S->arena, const Expr *, n ? n : 1);
    dc->dflts = ARENA_ARRAY(S->arena, const Expr *, n ? n : 1);
    Val v = {.kind = V_PYDC, .pydc = {dc, ARENA_ARRAY(S->arena, Val, n ? n : 1)}};
    for (int k = 0; k < n; k++) dc->names[k] = names[k], v.pydc.m[k] = vals[k];
    return v;
}

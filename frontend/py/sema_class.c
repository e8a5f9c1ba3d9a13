/* @qd.data_oriented classes. A class is recorded where it is defined; each instance created
 * in host code and bound to a name (`sim = Sim(128)`, at module level or in a host function) is
 * evaluated: __init__ runs like a host function with the call's arguments (or the defaults),
 * its `self.NAME = value` statements set the instance's attributes (fields are declared with the
 * instance's prefix, constants and arrays are bound), and every @qd.kernel method is compiled
 * for that instance as the kernel INSTANCE__METHOD, its `self` bound to the instance. @qd.func
 * methods are inlined with the same self. An attribute holding an array the script allocates
 * (qd.ndarray or numpy, passed to __init__) becomes an ndarray parameter INSTANCE__NAME of each
 * kernel that uses it, after the declared parameters, in order of first use. A class with kernels and no instance qdc can see is
 * warning QD2104. */
#include "py.h"
#include "pyint.h"
#include <string.h>

/* 'K' for a @qd.kernel method, 'F' for @qd.func, 0 for anything else. */
static bool static_kernel(const Stmt *d);

static char method_kind(Sema *S, const Stmt *d) {
    if (d->kind != S_DEF || d->def.host || (!d->def.nparams && !static_kernel(d))) return 0;
    for (int k = 0; k < d->def.decorators.n; k++) {
        const Expr *e = d->def.decorators.items[k];
        const char *p = S->core->sema_path(S, e->kind == E_CALL ? e->call.fn : e);
        if (p && !strcmp(p, "qd.kernel")) return 'K';
        if (p && (!strcmp(p, "qd.func") || !strcmp(p, "qd.real_func") || !strcmp(p, "qd.pyfunc"))) return 'F';
    }
    return 0;
}

/* @staticmethod over @qd.kernel (or under it): a kernel of the class without self. */
static bool static_kernel(const Stmt *d) {
    for (int k = 0; k < d->def.decorators.n; k++) {
        const Expr *e = d->def.decorators.items[k];
        if (e->kind == E_NAME && !strcmp(e->name, "staticmethod")) return true;
    }
    return false;
}

static Scope *new_scope(Sema *S, Scope *parent) {
    Scope *sc = xcalloc(1, sizeof *sc);
    sc->parent = parent;
    vec_push(&S->host_scopes, sc);
    return sc;
}

/* Binds `name` in `to` to the value of e evaluated in `in` (module-level rules). */
static void bind_value(Sema *S, Scope *to, Scope *in, const char *name, const Expr *e, Span sp) {
    Expr t = {.kind = E_NAME, .span = sp, .name = name};
    Scope *hs = S->hscope, *bt = S->bind_to;
    S->hscope = in, S->bind_to = to;
    S->core->sema_module_value(S, &t, e, sp);
    S->hscope = hs, S->bind_to = bt;
}

/* A method's decorator: 'p' @property (@functools.cached_property), 's' @staticmethod, 'c'
 * @classmethod, 0 none, '?' another (the method is left to the script). */
static char method_deco(const Stmt *d) {
    if (!d->def.decorators.n) return 0;
    const Expr *e = d->def.decorators.items[0];
    const char *n = e->kind == E_NAME ? e->name : e->kind == E_ATTR ? e->attr.name : NULL;
    if (d->def.decorators.n > 1 || !n) return '?';
    if (!strcmp(n, "property") || !strcmp(n, "cached_property")) return 'p';
    return !strcmp(n, "staticmethod") ? 's' : !strcmp(n, "classmethod") ? 'c' : '?';
}

/* A host method whose body only computes (sema_pyfunc.c's rule): the evaluator runs it. */
static bool evaluable(const Stmt *d) {
    return d->kind == S_DEF && d->def.host && strcmp(d->def.name, "__init__") && (sema_pyfunc_return(d) || sema_pyfunc_body_ok(d));
}

/* d with its first parameter (self, cls) bound to v: a Python function of the others. */
static Val bound_method(Sema *S, const Stmt *d, Scope *defined, Val v) {
    Stmt *m = ARENA_NEW(S->arena, Stmt); /* one definition per instance: its self differs */
    *m = *d;
    m->def.params = d->def.params + 1, m->def.nparams = d->def.nparams - 1;
    Scope *ms = new_scope(S, defined);
    S->core->scope_bind(S, ms, d->def.params[0].name, v, d->def.params[0].span);
    S->core->sema_pyfunc_add(S, m, ms);
    return (Val){.kind = V_PYFUNC, .def = m};
}

static const char unevaluable_method[] = "a method qdc cannot evaluate (its body does more than compute a value)";

/* A plain class's own attributes, what CLASS.NAME is: class attributes (evaluated in the class
 * body, which sees the ones before), static methods, class methods (cls bound), and plain
 * methods as functions (CLASS.method(obj)). */
static void class_attrs(Sema *S, int ci) {
    Scope *defined = S->classes.items[ci].scope, *a = new_scope(S, defined);
    for (int b = S->classes.items[ci].base - 1; b >= 0; b = S->classes.items[b].base - 1) { /* inherited class methods: cls is this class */
        const StmtList *bb = &S->classes.items[b].cls->class_.body;
        for (int k = 0; k < bb->n; k++) {
            const Stmt *d = bb->stmts[k];
            if (d->kind == S_DEF && d->def.host && method_deco(d) == 'c' && evaluable(d) && d->def.nparams && !S->core->scope_find(a, d->def.name))
                S->core->scope_bind(S, a, d->def.name, bound_method(S, d, S->classes.items[b].scope, (Val){.kind = V_CLASS, .index = ci}), d->def.name_span);
        }
    }
    const StmtList *body = &S->classes.items[ci].cls->class_.body;
    for (int k = 0; k < body->n; k++) {
        const Stmt *d = body->stmts[k];
        const Expr *t = d->kind == S_ASSIGN && d->assign.targets.n == 1 ? d->assign.targets.items[0] : d->kind == S_ANNASSIGN ? d->ann.target : NULL;
        const Expr *v = d->kind == S_ASSIGN ? d->assign.value : d->kind == S_ANNASSIGN ? d->ann.value : NULL;
        const char *p = v && v->kind == E_CALL ? S->core->sema_path(S, v->call.fn) : NULL;
        if (t && v && t->kind == E_NAME && (v->kind != E_CALL || !p || strncmp(p, "qd.", 3))) /* scale = int(3), make(4): evaluated */
            bind_value(S, a, a, t->name, v, t->span);
        else if (t && v && t->kind == E_NAME) S->core->scope_bind(S, a, t->name, (Val){.kind = V_HOST, .path = "a class attribute made by a call"}, t->span);
        if (d->kind != S_DEF || !d->def.host) continue;
        char deco = method_deco(d);
        if (evaluable(d) && (deco == 0 || deco == 's')) {
            S->core->sema_pyfunc_add(S, d, defined);
            S->core->scope_bind(S, a, d->def.name, (Val){.kind = V_PYFUNC, .def = d}, d->def.name_span);
        } else if (evaluable(d) && deco == 'c' && d->def.nparams) {
            S->core->scope_bind(S, a, d->def.name, bound_method(S, d, defined, (Val){.kind = V_CLASS, .index = ci}), d->def.name_span);
        } else if (strcmp(d->def.name, "__init__")) {
            S->core->scope_bind(S, a, d->def.name, (Val){.kind = V_HOST, .path = unevaluable_method}, d->def.name_span);
        }
    }
    S->classes.items[ci].attrs = a;
}

void sema_class(Sema *S, const Stmt *cls) {
    int base = 0;
    if (sema_autograd_class(S, cls)) return; /* F.apply(x) runs F.forward (sema_param.c) */
    if (cls->class_.base) { /* a base qdc does not know (another module's, a library's): the class stays the script's */
        Binding *b = S->core->sema_lookup(S, cls->class_.base);
        if (!b || b->v.kind != V_CLASS || !S->classes.items[b->v.index].plain)
            return (void)S->core->scope_bind(S, BIND_SCOPE(S), cls->class_.name, (Val){.kind = V_HOST, .path = "a Python class"}, cls->class_.name_span);
        base = b->v.index + 1;
    }
    SemaClass c = {.cls = cls, .scope = S->hscope, .imported = S->cur_mod != NULL, .plain = cls->class_.plain, .base = base};
    vec_push(&S->classes, c);
    int ci = S->classes.len - 1;
    if (c.plain) class_attrs(S, ci);
    S->core->scope_bind(S, BIND_SCOPE(S), cls->class_.name, (Val){.kind = V_CLASS, .index = ci}, cls->class_.name_span);
}

/* The classes of ci's chain of bases, the root first; their number. */
static int class_chain(Sema *S, int ci, int out[16]) {
    int n = 0;
    for (int k = ci; n < 16; k = S->classes.items[k].base - 1) {
        out[n++] = k;
        if (!S->classes.items[k].base) break;
    }
    for (int i = 0; i < n / 2; i++) {
        int t = out[i];
        out[i] = out[n - 1 - i], out[n - 1 - i] = t;
    }
    return n;
}

/* A plain instance's attributes before __init__: its classes' attributes, root first, each
 * method bound to the instance (a property too: read, it is called). */
static void plain_instance(Sema *S, SemaObject *o) {
    int ch[16], n = class_chain(S, o->cls, ch);
    for (int i = 0; i < n; i++) {
        const SemaClass *c = &S->classes.items[ch[i]];
        for (int k = 0; k < c->attrs->b.len; k++) {
            const Binding *b = &c->attrs->b.items[k];
            S->core->scope_bind(S, &o->attrs, b->name, b->v, b->decl);
        }
        const StmtList *body = &c->cls->class_.body;
        for (int k = 0; k < body->n; k++) {
            const Stmt *d = body->stmts[k];
            char deco = d->kind == S_DEF ? method_deco(d) : '?';
            if ((deco == 0 || deco == 'p') && evaluable(d) && d->def.nparams)
                S->core->scope_bind(S, &o->attrs, d->def.name, bound_method(S, d, c->scope, (Val){.kind = V_OBJECT, .obj = o}), d->def.name_span);
        }
    }
}

/* __init__'s statements: `self.NAME = value` (also `self.a, self.b = x, y`) sets an attribute,
 * an `if` whose condition qdc decides runs the branch Python takes (its self.NAME = too), any
 * other statement runs as host code. */
static void run_init(Sema *S, SemaObject *o, const Stmt *init, const Expr *call, Scope *defined, int ci);
static bool base_init(Sema *S, SemaObject *o, const Stmt *s, const char *self, int ci);

static void init_block(Sema *S, SemaObject *o, const StmtList *body, const char *self, Scope *is, int ci) {
    for (int k = 0; k < body->n; k++) {
        const Stmt *s = body->stmts[k];
        if (base_init(S, o, s, self, ci)) continue;
        if (s->kind == S_AUGASSIGN && s->aug.target->kind == E_ATTR && s->aug.target->attr.obj->kind == E_NAME &&
            !strcmp(s->aug.target->attr.obj->name, self)) { /* self.x += v: self.x = self.x + v (what Python computes for numbers, str, tuples) */
            Expr *b = ARENA_NEW(S->arena, Expr);
            *b = (Expr){.kind = E_BINARY, .span = s->span, .op = s->aug.op};
            b->bin.a = s->aug.target, b->bin.b = s->aug.value;
            bind_value(S, &o->attrs, is, s->aug.target->attr.name, b, s->aug.target->span);
            continue;
        }
        const Expr *t = s->kind == S_ASSIGN && s->assign.targets.n == 1 ? s->assign.targets.items[0] : s->kind == S_ANNASSIGN ? s->ann.target : NULL;
        const Expr *v = s->kind == S_ASSIGN ? s->assign.value : s->kind == S_ANNASSIGN ? s->ann.value : NULL;
        if (t && v && t->kind == E_ATTR && t->attr.obj->kind == E_NAME && !strcmp(t->attr.obj->name, self)) {
            bind_value(S, &o->attrs, is, t->attr.name, v, t->span);
            continue;
        }
        bool pairs = t && v && t->kind == E_TUPLE && v->kind == E_TUPLE && t->list.n == v->list.n;
        for (int j = 0; pairs && j < t->list.n; j++) {
            const Expr *tj = t->list.items[j];
            pairs = tj->kind == E_ATTR && tj->attr.obj->kind == E_NAME && !strcmp(tj->attr.obj->name, self);
        }
        if (pairs) { /* the values first, as Python evaluates the right side before it assigns */
            Scope *tmp = new_scope(S, is);
            for (int j = 0; j < t->list.n; j++) bind_value(S, tmp, is, t->list.items[j]->attr.name, v->list.items[j], t->list.items[j]->span);
            for (int j = 0; j < tmp->b.len; j++) S->core->scope_bind(S, &o->attrs, tmp->b.items[j].name, tmp->b.items[j].v, tmp->b.items[j].decl);
            continue;
        }
        int side = s->kind == S_IF && !s->if_.raises ? S->up->sema_host_cond(S, s->if_.cond) : -1;
        if (side >= 0) {
            init_block(S, o, side ? &s->if_.then : &s->if_.els, self, is, ci);
            continue;
        }
        StmtList one = {(Stmt **)&body->stmts[k], 1};
        S->core->sema_module_body(S, &one);
    }
}

/* The first __init__ of ci's bases (nearest first): its class, its definition; -1 when none. */
static int base_init_def(Sema *S, int ci, const Stmt **init) {
    for (int b = ci >= 0 ? S->classes.items[ci].base - 1 : -1; b >= 0; b = S->classes.items[b].base - 1) {
        const StmtList *body = &S->classes.items[b].cls->class_.body;
        for (int k = 0; k < body->n; k++) {
            const Stmt *d = body->stmts[k];
            if (d->kind == S_DEF && d->def.host && !strcmp(d->def.name, "__init__") && d->def.nparams) return *init = d, b;
        }
    }
    return -1;
}

/* The __init__ of class b itself: its definition, or NULL. */
static const Stmt *own_init(Sema *S, int b) {
    const StmtList *body = &S->classes.items[b].cls->class_.body;
    for (int k = 0; k < body->n; k++) {
        const Stmt *d = body->stmts[k];
        if (d->kind == S_DEF && d->def.host && !strcmp(d->def.name, "__init__") && d->def.nparams) return d;
    }
    return NULL;
}

/* super().__init__(args) or BASE.__init__(self, args) as a statement of class ci's __init__: the
 * base's __init__ runs on the same instance (with no base __init__, object's does nothing). */
static bool base_init(Sema *S, SemaObject *o, const Stmt *s, const char *self, int ci) {
    const Expr *c = s->kind == S_EXPR ? s->expr : NULL;
    if (!c || c->kind != E_CALL || c->call.fn->kind != E_ATTR || strcmp(c->call.fn->attr.name, "__init__") || ci < 0 ||
        !S->classes.items[ci].plain)
        return false;
    const Expr *r = c->call.fn->attr.obj;
    bool super = r->kind == E_CALL && r->call.fn->kind == E_NAME && !strcmp(r->call.fn->name, "super") && !r->call.nkw &&
                 (r->call.args.n == 0 || r->call.args.n == 2);
    int named = -1; /* BASE.__init__(self, ...): BASE one of ci's bases */
    if (!super && r->kind == E_NAME && c->call.args.n && c->call.args.items[0]->kind == E_NAME && !strcmp(c->call.args.items[0]->name, self)) {
        Binding *b = S->core->sema_lookup(S, r->name);
        for (int k = S->classes.items[ci].base - 1; b && b->v.kind == V_CLASS && k >= 0 && named < 0; k = S->classes.items[k].base - 1)
            if (k == b->v.index) named = k;
    }
    if (!super && named < 0) return false;
    const Stmt *init = named >= 0 ? own_init(S, named) : NULL;
    int at = init ? named : base_init_def(S, named >= 0 ? named : ci, &init);
    if (at < 0) return true;
    Expr *call = ARENA_NEW(S->arena, Expr);
    *call = *c;
    if (named >= 0) call->call.args.items++, call->call.args.n--;
    if (budget_enter(&S->budget, c->span)) run_init(S, o, init, call, S->classes.items[at].scope, at), budget_leave(&S->budget);
    return true;
}

static void run_init(Sema *S, SemaObject *o, const Stmt *init, const Expr *call, Scope *defined, int ci) {
    Scope *is = new_scope(S, defined);
    const char *self = init->def.params[0].name;
    S->core->scope_bind(S, is, self, (Val){.kind = V_OBJECT, .obj = o}, init->def.params[0].span);
    int np = init->def.nparams;
    for (int k = 1; k < np; k++) {
        const Param *p = &init->def.params[k];
        const Expr *given = k - 1 < call->call.args.n ? call->call.args.items[k - 1] : NULL;
        for (int j = 0; j < call->call.nkw; j++)
            if (!strcmp(call->call.kw[j].name, p->name)) given = call->call.kw[j].value;
        if (given) bind_value(S, is, S->hscope, p->name, given, p->span);
        else if (p->dflt) bind_value(S, is, defined, p->name, p->dflt, p->span);
        else S->core->scope_bind(S, is, p->name, (Val){.kind = V_HOST, .path = "an argument the instance's creation does not give"}, p->span);
    }
    Scope *hs = S->hscope, *bind_to = S->bind_to;
    const char *prefix = S->prefix;
    int loops = S->host_loops; /* __init__'s body is outside the caller's loops */
    /* its locals (fb = qd.FieldsBuilder()) bind in its own scope, also when the instance is made
     * as an attribute's value (self.b = B(), whose binding goes elsewhere) */
    S->hscope = is, S->prefix = o->prefix, S->host_loops = 0, S->bind_to = NULL;
    init_block(S, o, &init->def.body, self, is, ci);
    S->hscope = hs, S->prefix = prefix, S->host_loops = loops, S->host_jump = HJ_NONE, S->bind_to = bind_to;
}

/* A class without __init__ created with arguments: they set its annotated names, by keyword or
 * in declaration order, as the __init__ a metaclass such as Genesis' AutoInitMeta makes
 * (`@qd.data_oriented class StructRigidSimStaticConfig(metaclass=AutoInitMeta)`). */
static void auto_init(Sema *S, SemaObject *o, const StmtList *body, const Expr *call) {
    int pos = 0;
    for (int k = 0; k < body->n; k++) {
        const Stmt *d = body->stmts[k];
        if (d->kind != S_ANNASSIGN || d->ann.target->kind != E_NAME) continue;
        const char *name = d->ann.target->name;
        const Expr *given = pos < call->call.args.n ? call->call.args.items[pos] : NULL;
        pos++;
        for (int j = 0; j < call->call.nkw; j++)
            if (call->call.kw[j].name && !strcmp(call->call.kw[j].name, name)) given = call->call.kw[j].value;
        if (given) bind_value(S, &o->attrs, S->hscope, name, given, d->ann.target->span);
    }
}

static SemaObject *new_object(Sema *S, int ci, const char *name, Span at) {
    SemaObject *o = xcalloc(1, sizeof *o);
    vec_push(&S->objects, o);
    o->cls = ci, o->name = name, o->at = at;
    o->prefix = arena_printf(S->arena, "%s__", S->core->sema_unique_name(S, arena_printf(S->arena, "%s%s", S->prefix, name)));
    return o;
}

/* A plain instance's attributes, then the most derived __init__ of its chain. */
static void plain_init(Sema *S, SemaObject *o, const Expr *call) {
    plain_instance(S, o);
    int ch[16], n = class_chain(S, o->cls, ch);
    for (int i = n - 1; i >= 0; i--) {
        const Stmt *d = own_init(S, ch[i]);
        if (!d) continue;
        if (budget_enter(&S->budget, call->span)) run_init(S, o, d, call, S->classes.items[ch[i]].scope, ch[i]), budget_leave(&S->budget);
        return;
    }
}

/* CLS(args) inside an expression (f(A(1)), [A(i) for i in ...], return A(x)) of a plain class: a
 * new instance, as Python makes one, named after its class in messages. Another class's instance
 * exists only bound to a name (its kernels are compiled per instance). */
Val sema_instance_call(Sema *S, const Expr *call, Val cls) {
    SemaClass *c = &S->classes.items[cls.index];
    const char *name = c->cls->class_.name;
    if (!c->plain || S->k || S->cur) {
        diag_error(call->call.fn->span, QD2019, c->plain ? "class '%s' is instantiated in host code, not in a kernel"
                                                         : "an instance of data-oriented class '%s' must be bound to a name (x = %s(...))", name, name);
        return val_err();
    }
    c->instantiated = true;
    SemaObject *o = new_object(S, cls.index, name, call->span);
    plain_init(S, o, call);
    return (Val){.kind = V_OBJECT, .obj = o};
}

static const char set_after[] = "set by host code after the instance's creation (";

/* obj.NAME = value in host code, obj a plain instance (a name, or self.a.b): Python sets the
 * attribute, and what reads it afterwards (a kernel compiled later, a method) sees the new value.
 * A data-oriented instance's attribute takes compile-time values (a field, an instance); an
 * array it is given stays the one its kernels were typed with (ndarrays are arguments).
 * Another object's attribute is the script's data: nothing changes. */
void sema_host_setattr(Sema *S, const Expr *target, const Expr *value, Span sp) {
    IrStmtVec *cur = S->cur;
    S->cur = NULL;
    int mark = diag_quiet_begin();
    Val o = S->core->sema_eval(S, target->attr.obj);
    diag_quiet_end(mark);
    S->cur = cur;
    if (o.kind != V_OBJECT) return;
    /* a data-oriented instance's attribute set by a method (self.x = qd.field(...) in init()):
     * its fields take the instance's prefix, as those __init__ makes */
    const char *prefix = S->prefix;
    if (!S->classes.items[o.obj->cls].plain) S->prefix = o.obj->prefix;
    Scope tmp = {0};
    mark = diag_quiet_begin();
    bind_value(S, &tmp, S->hscope, target->attr.name, value, sp);
    S->prefix = prefix;
    bool failed = diag_quiet_end(mark) > 0 || !tmp.b.len || tmp.b.items[0].v.kind == V_ERR;
    Val v = failed ? (Val){.kind = V_HOST, .path = "a value qdc cannot compute"} : tmp.b.items[0].v;
    if (!S->classes.items[o.obj->cls].plain && (failed || v.kind == V_HOST || v.kind == V_HOSTARRAY)) {
        vec_free(&tmp.b); /* obj.x = qd.ndarray(...) of a data-oriented instance: an array its kernels take as an argument */
        return;
    }
    if (v.kind == V_HOST || v.kind == V_HOSTARRAY)
        v = (Val){.kind = V_HOST, .path = arena_printf(S->arena, "%s%s)", set_after,
                                                     v.kind == V_HOST ? v.path : "an array the script allocates")};
    S->core->scope_bind(S, &o.obj->attrs, target->attr.name, v, target->span);
    vec_free(&tmp.b);
}

/* Class(...) in host code, Class a class qdc runs: a new instance named `name` (what its kernels
 * and array parameters are named after), bound to that name in `to` first when `to` is given
 * (__init__ may read it); NULL when the callee is no such class. */
static SemaObject *make_object(Sema *S, const char *name, const Expr *call, Scope *to, Span sp) {
    if (call->kind != E_CALL || (call->call.fn->kind != E_NAME && call->call.fn->kind != E_ATTR)) return NULL;
    Binding *b = call->call.fn->kind == E_NAME ? S->core->sema_lookup(S, call->call.fn->name) : S->core->sema_module_member(S, call->call.fn); /* mod.Class(...) */
    if (!b || b->v.kind != V_CLASS) return NULL;
    int ci = b->v.index;
    S->classes.items[ci].instantiated = true;
    const SemaClass c = S->classes.items[ci];
    SemaObject *o = new_object(S, ci, name, call->span);
    if (to) S->core->scope_bind(S, to, name, (Val){.kind = V_OBJECT, .obj = o}, sp);
    if (c.plain) return plain_init(S, o, call), o;
    const StmtList *body = &c.cls->class_.body;
    for (int k = 0; k < body->n; k++) { /* class attributes (`flag: bool = True`): what self.flag is unless __init__ sets it */
        const Stmt *d = body->stmts[k];
        const Expr *t = d->kind == S_ASSIGN && d->assign.targets.n == 1 ? d->assign.targets.items[0] : d->kind == S_ANNASSIGN ? d->ann.target : NULL;
        const Expr *v = d->kind == S_ASSIGN ? d->assign.value : d->kind == S_ANNASSIGN ? d->ann.value : NULL;
        /* not a call: a field or array made in the class body is one object every instance shares */
        if (t && v && t->kind == E_NAME && v->kind != E_CALL) bind_value(S, &o->attrs, c.scope, t->name, v, t->span);
    }
    for (int k = 0; k < body->n; k++) { /* methods first: __init__ may call them */
        const Stmt *d = body->stmts[k];
        char kind = method_kind(S, d);
        if (!kind && d->kind == S_DEF && method_deco(d) == 's' && evaluable(d)) { /* @staticmethod */
            S->core->sema_pyfunc_add(S, d, c.scope);
            S->core->scope_bind(S, &o->attrs, d->def.name, (Val){.kind = V_PYFUNC, .def = d}, d->def.name_span);
            continue;
        }
        if (!kind && d->kind == S_DEF && d->def.host && d->def.nparams && (method_deco(d) == 0 || method_deco(d) == 'p') && evaluable(d)) {
            /* a plain method qdc can evaluate (`return x + y`): a Python function with self bound,
             * which a kernel calls as Quadrants runs it, at compile time */
            Stmt *m = ARENA_NEW(S->arena, Stmt);
            *m = *d;
            m->def.params = d->def.params + 1, m->def.nparams = d->def.nparams - 1;
            Scope *ms = new_scope(S, c.scope);
            S->core->scope_bind(S, ms, d->def.params[0].name, (Val){.kind = V_OBJECT, .obj = o}, d->def.params[0].span);
            S->core->sema_pyfunc_add(S, m, ms);
            S->core->scope_bind(S, &o->attrs, d->def.name, (Val){.kind = V_PYFUNC, .def = m}, d->def.name_span);
            continue;
        }
        if (!kind && d->kind == S_DEF && d->def.host && d->def.nparams && method_deco(d) == 0 && strncmp(d->def.name, "__", 2)) {
            /* a method that does more than compute (self.step() launching kernels): run, as a host
             * function, at each call obj.m(args) qdc sees (sema_helper_call), self bound to o */
            Stmt *m = ARENA_NEW(S->arena, Stmt);
            *m = *d;
            m->def.params = d->def.params + 1, m->def.nparams = d->def.nparams - 1;
            Scope *ms = new_scope(S, c.scope);
            S->core->scope_bind(S, ms, d->def.params[0].name, (Val){.kind = V_OBJECT, .obj = o}, d->def.params[0].span);
            vec_push(&S->helpers, ((SemaHelper){.def = m, .scope = ms, .prefix = S->prefix, .self = o}));
            continue;
        }
        if (!kind) continue;
        Stmt *m = ARENA_NEW(S->arena, Stmt); /* one definition per instance: its self differs */
        *m = *d;
        Scope *ms = new_scope(S, c.scope);
        bool stat = static_kernel(d); /* @staticmethod: no self */
        if (!stat) S->core->scope_bind(S, ms, d->def.params[0].name, (Val){.kind = V_OBJECT, .obj = o}, d->def.params[0].span);
        SemaDef sd = {.def = m, .scope = ms, .kernel = kind == 'K', .method = !stat, .imported = S->cur_mod != NULL};
        if (sd.kernel) sd.entry = S->core->sema_unique_name(S, arena_printf(S->arena, "%s%s", o->prefix, d->def.name));
        S->core->sema_def_push(S, sd);
        S->core->scope_bind(S, &o->attrs, d->def.name, (Val){.kind = kind == 'K' ? V_KERNEL : V_FUNC, .def = m}, d->def.name_span);
    }
    bool init = false;
    for (int k = 0; k < body->n; k++) {
        const Stmt *d = body->stmts[k];
        init |= d->kind == S_DEF && !strcmp(d->def.name, "__init__");
        if (d->kind == S_DEF && d->def.host && !strcmp(d->def.name, "__init__") && d->def.nparams && budget_enter(&S->budget, call->span))
            run_init(S, o, d, call, c.scope, -1), budget_leave(&S->budget); /* an __init__ that creates its own class recurses */
    }
    if (!init) auto_init(S, o, body, call);
    return o;
}

bool sema_new_object(Sema *S, const Expr *target, const Expr *call, Span sp) {
    return make_object(S, target->name, call, S->bind_to ? S->bind_to : S->hscope, sp) != NULL;
}

/* Class(...) as the value of a dataclass member (Outer(inner=Inner(x))): an instance named
 * `name` (the dataclass instance's name and the member's, outer__inner), as a name binds one;
 * V_ERR when the callee is no class qdc runs. */
Val sema_object_value(Sema *S, const char *name, const Expr *call) {
    SemaObject *o = make_object(S, name, call, NULL, call->span);
    return o ? (Val){.kind = V_OBJECT, .obj = o} : val_err();
}

/* obj.NAME for a method NAME defined in a class body (a dataclass's: sema_pydc.c): a plain or
 * property method with self bound to obj (a property is called), a static method; *found false
 * when the body defines no method NAME. */
Val sema_class_method(Sema *S, const StmtList *body, Scope *defined, Val obj, const Expr *attr, bool *found) {
    *found = false;
    for (int k = body->n - 1; k >= 0; k--) {
        const Stmt *d = body->stmts[k];
        if (d->kind != S_DEF || !d->def.host || strcmp(d->def.name, attr->attr.name)) continue;
        *found = true;
        char deco = method_deco(d);
        if (!evaluable(d) || deco == '?' || deco == 'c' || (deco != 's' && !d->def.nparams)) {
            Binding b = {.name = d->def.name, .v = {.kind = V_HOST, .path = unevaluable_method}, .decl = d->def.name_span};
            diag_error(attr->span, QD2062, "'%s' is %s; kernels and compile-time code can use methods that only compute a value", attr->attr.name, b.v.path);
            return diag_note(b.decl, "'%s' is defined here", attr->attr.name), val_err();
        }
        if (deco == 's') {
            S->core->sema_pyfunc_add(S, d, defined);
            return (Val){.kind = V_PYFUNC, .def = d};
        }
        Val m = bound_method(S, d, defined, obj);
        if (deco != 'p') return m;
        Expr *call = ARENA_NEW(S->arena, Expr);
        *call = (Expr){.kind = E_CALL, .span = attr->span};
        call->call.fn = (Expr *)attr;
        return sema_pyfunc_call(S, call, m.def);
    }
    return val_err();
}

/* A plain class's or instance's attribute that is a method qdc cannot run. */
static Val unevaluable(Sema *S, const char *what, const Expr *attr, const Binding *b) {
    diag_error(attr->span, QD2062, "'%s.%s' is %s; kernels and compile-time code can use methods that only compute a value", what,
               attr->attr.name, b->v.path);
    diag_note(b->decl, "'%s' is defined here", attr->attr.name);
    return val_err();
}

/* CLASS.NAME of a plain class: its attributes, then its bases'. */
static Val class_attr(Sema *S, Val cls, const Expr *attr) {
    Binding *b = NULL;
    for (int ci = cls.index; !b; ci = S->classes.items[ci].base - 1) {
        b = S->core->scope_find(S->classes.items[ci].attrs, attr->attr.name);
        if (!S->classes.items[ci].base) break;
    }
    const char *name = S->classes.items[cls.index].cls->class_.name;
    if (!b) return diag_error(attr->span, QD2019, "class '%s' has no attribute '%s' that qdc can see (a class attribute, a static, class or "
                              "plain method)", name, attr->attr.name), val_err();
    if (b->v.kind == V_HOST && b->v.path == unevaluable_method) return unevaluable(S, name, attr, b);
    if (b->v.kind == V_HOST && (S->cur || S->k)) {
        diag_error(attr->span, QD2062, "'%s.%s' is %s, known only when the script runs", name, attr->attr.name, b->v.path);
        return diag_note(b->decl, "'%s' is set here", attr->attr.name), val_err();
    }
    return S->up->sema_fresh_ref(S, b->v, attr->span);
}

Val sema_object_attr(Sema *S, Val obj, const Expr *attr) {
    if (obj.kind == V_CLASS) return class_attr(S, obj, attr);
    SemaObject *o = obj.obj;
    Binding *b = S->core->scope_find(&o->attrs, attr->attr.name);
    if (b && b->v.kind == V_PYFUNC && method_deco(b->v.def) == 'p') { /* a property: reading it calls it */
        Expr *call = ARENA_NEW(S->arena, Expr);
        *call = (Expr){.kind = E_CALL, .span = attr->span};
        call->call.fn = (Expr *)attr;
        return sema_pyfunc_call(S, call, b->v.def);
    }
    if (b && b->v.kind == V_HOST && b->v.path == unevaluable_method) return unevaluable(S, o->name, attr, b);
    if (S->classes.items[o->cls].cls->class_.int_enum && !b && !strcmp(attr->attr.name, "__members__")) {
        Val d = {.kind = V_DICT}; /* name -> member, in definition order (Python's mappingproxy) */
        int n = o->attrs.b.len;
        d.dict.keys = ARENA_ARRAY(S->arena, Val, n ? n : 1), d.dict.vals = ARENA_ARRAY(S->arena, Val, n ? n : 1);
        for (int k = 0; k < n; k++)
            d.dict.keys[d.dict.n] = (Val){.kind = V_STR, .path = o->attrs.b.items[k].name}, d.dict.vals[d.dict.n++] = o->attrs.b.items[k].v;
        return d;
    }
    if (S->classes.items[o->cls].cls->class_.int_enum && (!b || b->v.kind == V_HOST)) {
        if (!b) diag_error(attr->span, QD2019, "enum '%s' has no member '%s'", o->name, attr->attr.name);
        else if (strncmp(b->v.path, "an IntFlag", 10))
            diag_error(attr->span, QD2062, "'%s.%s' is an enum member qdc cannot compute; kernels can use members given as int "
                       "constants or auto()", o->name, attr->attr.name), diag_note(b->decl, "'%s' is set here", attr->attr.name);
        else
            diag_error(attr->span, QD2062, "'%s.%s' is %s; kernels can use integers of up to 64 bits", o->name, attr->attr.name, b->v.path),
                diag_note(b->decl, "'%s' is set here", attr->attr.name);
        return val_err();
    }
    if (!b) {
        diag_error(attr->span, QD2019, "instance '%s' of '%s' has no attribute '%s' that qdc can see (set in __init__ as self.%s, "
                   "a class attribute, or a kernel or qd.func method)", o->name, S->classes.items[o->cls].cls->class_.name, attr->attr.name, attr->attr.name);
        return val_err();
    }
    if (b->v.kind == V_HOSTARRAY && S->k) { /* an array attribute: an extra ndarray parameter INSTANCE__NAME */
        const char *name = arena_printf(S->arena, "%s__%s", o->name, attr->attr.name);
        for (int k = 0; k < S->params.len; k++)
            if (!strcmp(S->params.items[k].name, name)) return (Val){.kind = V_NDARRAY, .index = k};
        IrParam p = {.name = name, .span = attr->span};
        S->up->sema_hostarray_param(b->v, &p);
        vec_push(&S->params, p);
        return (Val){.kind = V_NDARRAY, .index = S->params.len - 1};
    }
    if (b->v.kind == V_PYDC && S->k) return sema_pydc_flatten(S, b->v, arena_printf(S->arena, "%s__%s", o->name, attr->attr.name), attr->span);
    if (S->in_static && (S->k || S->cur) && S->classes.items[o->cls].cls->class_.lifted && val_is_host_scalar(b->v)) {
        diag_error(attr->span, QD2062, "'%s' is a primitive member of a @qd.data_oriented(template_primitives=False) object, so it is a "
                   "runtime kernel argument and cannot be used inside qd.static(). Either remove qd.static(), or decorate the class "
                   "@qd.data_oriented (the default, template_primitives=True) to bake '%s' as a compile-time constant.",
                   attr->attr.name, attr->attr.name);
        diag_note(b->decl, "'%s' is set here", attr->attr.name);
        return val_err();
    }
    if (b->v.kind == V_HOST || b->v.kind == V_HOSTARRAY) {
        if ((S->cur || S->k) && b->v.kind == V_HOST && !strncmp(b->v.path, set_after, sizeof set_after - 1)) {
            diag_error(attr->span, QD2062, "'%s.%s' is %s, known only when the script runs; kernels can use fields and "
                       "compile-time values", o->name, attr->attr.name, b->v.path);
            diag_note(b->decl, "'%s' is set here", attr->attr.name);
            b->v = val_err();
        } else if (S->cur || S->k) {
            diag_error(attr->span, QD2062, "'%s.%s' is set in __init__ from a value known only when the script runs (%s); "
                       "kernels can use fields and compile-time values", o->name, attr->attr.name,
                       b->v.kind == V_HOST ? b->v.path : "an array the script allocates");
            diag_note(b->decl, "'%s' is set here", attr->attr.name);
            diag_note(o->at, "'%s' is created here", o->name);
            if (!diag_quiet_active()) b->v = val_err(); /* reported once */
        }
        return val_err();
    }
    return S->up->sema_fresh_ref(S, b->v, attr->span);
}

/* class NAME(IntEnum) / (IntFlag): an object whose attributes are its members, int constants (as
 * Python ints in a kernel: Quadrants sees an int). A member is an int literal expression or
 * auto() (IntEnum: the previous value + 1, from 1; IntFlag: the next power of two); one qdc
 * cannot compute is known only when the script runs. */
void sema_int_enum(Sema *S, const Stmt *cls) {
    SemaClass c = {.cls = cls, .scope = S->hscope, .instantiated = true};
    vec_push(&S->classes, c);
    SemaObject *o = xcalloc(1, sizeof *o);
    vec_push(&S->objects, o);
    o->cls = S->classes.len - 1, o->name = cls->class_.name, o->at = cls->class_.name_span;
    o->prefix = arena_printf(S->arena, "%s%s__", S->prefix, cls->class_.name);
    int64_t last = 0;
    int high = -1; /* IntFlag: the highest bit of the members so far (auto() is the next one; Python ints are unbounded) */
    for (int k = 0; k < cls->class_.body.n; k++) {
        const Stmt *d = cls->class_.body.stmts[k];
        if (d->kind != S_ASSIGN || d->assign.targets.n != 1 || d->assign.targets.items[0]->kind != E_NAME) continue;
        const Expr *t = d->assign.targets.items[0], *v = d->assign.value;
        const char *callee = v->kind == E_CALL && !v->call.args.n ? (v->call.fn->kind == E_NAME ? v->call.fn->name : v->call.fn->kind == E_ATTR ? v->call.fn->attr.name : NULL) : NULL;
        Expr *lit = ARENA_NEW(S->arena, Expr);
        lit->kind = E_INT, lit->span = v->span;
        int64_t n;
        if (callee && !strcmp(callee, "auto") && cls->class_.int_flag && high >= 63) { /* 2**64 and up: a Python int past 64 bits */
            PyIntCtx pc = {.arena = S->arena, .budget = &S->budget, .at = v->span};
            PyInt *one = pyint_from_i64(&pc, 1), *bit = one ? pyint_shl(&pc, one, pyint_from_i64(&pc, ++high)) : NULL;
            S->core->scope_bind(S, &o->attrs, t->name, bit ? sema_pyint_value(S, bit, v->span) : val_err(), t->span);
            continue;
        }
        if (callee && !strcmp(callee, "auto") && cls->class_.int_flag) {
            lit->i = (uint64_t)1 << ++high; /* 2**63 is a u64 constant */
            S->core->scope_bind(S, &o->attrs, t->name, S->core->sema_eval(S, lit), t->span);
            last = (int64_t)lit->i;
            continue;
        }
        if (callee && !strcmp(callee, "auto")) {
            n = last + 1;
        } else {
            Scope *sc = S->scope;
            S->scope = NULL;
            int mark = diag_quiet_begin();
            bool ok = S->core->sema_const_int(S, v, &n, "an enum member");
            S->scope = sc;
            if (diag_quiet_end(mark) || !ok) {
                S->core->scope_bind(S, &o->attrs, t->name, (Val){.kind = V_HOST, .path = "an enum member qdc cannot compute"}, t->span);
                continue;
            }
        }
        last = n;
        for (int b = 62; b > high; b--) /* IntFlag: a negative member has every high bit (Python: ~0 ...) */
            if (n < 0 || (n >> b) & 1) high = n < 0 ? 62 : b;
        lit->i = n < 0 ? (uint64_t)0 - (uint64_t)n : (uint64_t)n;
        Expr neg = {.kind = E_UNARY, .span = v->span, .op = T_MINUS};
        neg.un.a = lit;
        S->core->scope_bind(S, &o->attrs, t->name, S->core->sema_eval(S, n < 0 ? &neg : lit), t->span);
    }
    S->core->scope_bind(S, BIND_SCOPE(S), cls->class_.name, (Val){.kind = V_OBJECT, .obj = o}, cls->class_.name_span);
}

bool sema_method_object(Sema *S, const Stmt *def, Val *obj) {
    int k = S->core->sema_def_at(S, def);
    if (k < 0) return false;
    const SemaDef *d = &S->defs.items[k];
    if (!d->method) return false;
    *obj = d->scope->b.items[0].v;
    return true;
}

bool sema_class_has_kernels(Sema *S, const SemaClass *c) {
    bool kernels = false;
    for (int j = 0; j < c->cls->class_.body.n; j++) kernels |= method_kind(S, c->cls->class_.body.stmts[j]) == 'K';
    return kernels;
}

void sema_finish_classes(Sema *S) {
    for (int k = 0; k < S->classes.len; k++) {
        const SemaClass *c = &S->classes.items[k];
        /* a plain class's kernel methods are never compiled: Quadrants refuses their calls (sema_helper_call) */
        if (!c->instantiated && !c->imported && !c->hollow && !c->plain && sema_class_has_kernels(S, c))
            diag_warning(c->cls->class_.name_span, QD2104, "@qd.data_oriented class '%s' has kernels, but no instance of it is created "
                         "where qdc can see it (NAME = %s(...) at module level or in a host function); they are not compiled",
                         c->cls->class_.name, c->cls->class_.name);
    }
}

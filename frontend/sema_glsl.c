/* qd.math's GLSL-style helpers that Quadrants writes as qd.func compositions of other operations
 * (python/quadrants/math/mathimpl.py): degrees, radians, fract, step, smoothstep, mod, log2,
 * reflect, refract and eye. Each is evaluated here as that same composition: the arguments are
 * bound the way a qd.func binds them (a constant stays a typed constant, a run-time scalar or a
 * vector is evaluated once), then the expression is built from E_VALUE leaves and evaluated by
 * the ordinary operator and builtin paths, so scalars and vectors, types and promotions behave
 * exactly as the same expression written in a kernel. */
#include "sema.h"
#include <string.h>

typedef struct {
    Sema *S;
    Span sp;
} Glsl;

/* An argument as a qd.func parameter holds it (sema_stmt.c bind_param, unannotated). */
static Val param(Glsl *g, Val v, const char *name) {
    Sema *S = g->S;
    if (v.kind == V_VEC) return sema_vec_materialize(S, v, name, g->sp);
    IrExpr *e = sema_rvalue(S, v, g->sp);
    if (!e) return val_err();
    if (ir_is_uniform(e)) return val_expr(irb_cast(S->arena, e, e->type));
    int l = sema_new_local(S, name, e->type);
    IrStmt *st = sema_stmt_new(S, IR_ASSIGN, g->sp);
    st->assign.local = l, st->assign.value = e;
    sema_emit(S, st);
    return (Val){.kind = V_LOCAL, .index = l};
}

static Expr *leaf(Glsl *g, Val v) { return sema_value_expr(g->S, v, g->sp); }

static Expr *num(Glsl *g, double f) {
    Expr *e = ARENA_NEW(g->S->arena, Expr);
    e->kind = E_FLOAT, e->span = g->sp, e->f = f;
    return e;
}

static Expr *bin(Glsl *g, int tok, Expr *a, Expr *b) {
    Expr *e = ARENA_NEW(g->S->arena, Expr);
    e->kind = E_BINARY, e->span = g->sp, e->op = tok, e->bin.a = a, e->bin.b = b;
    return e;
}

static Expr *ge(Glsl *g, Expr *a, Expr *b) { /* a >= b */
    Expr *e = ARENA_NEW(g->S->arena, Expr);
    e->kind = E_COMPARE, e->span = g->sp, e->cmp.items.n = 2;
    e->cmp.items.items = ARENA_ARRAY(g->S->arena, Expr *, 2);
    e->cmp.items.items[0] = a, e->cmp.items.items[1] = b;
    e->cmp.ops = ARENA_ARRAY(g->S->arena, int, 1), e->cmp.ops[0] = T_GE;
    return e;
}

/* path(args...): a call of a builtin (qd.floor, qd.cast, ...) or of a method (obj.dot). */
static Expr *call(Glsl *g, Expr *fn, int n, Expr **args) {
    Expr *e = ARENA_NEW(g->S->arena, Expr);
    e->kind = E_CALL, e->span = g->sp, e->call.fn = fn, e->call.args.n = n;
    e->call.args.items = ARENA_ARRAY(g->S->arena, Expr *, n ? n : 1);
    for (int k = 0; k < n; k++) e->call.args.items[k] = args[k];
    return e;
}
static Expr *builtin(Glsl *g, const char *path, int n, Expr **args) {
    return call(g, leaf(g, (Val){.kind = V_NS, .path = path}), n, args);
}
static Expr *method(Glsl *g, Expr *obj, const char *name, int n, Expr **args) {
    Expr *fn = ARENA_NEW(g->S->arena, Expr);
    fn->kind = E_ATTR, fn->span = g->sp, fn->attr.obj = obj, fn->attr.name = name;
    return call(g, fn, n, args);
}

/* x as a local (qd.func's `t = ...`): a value used more than once is computed once */
static Expr *once(Glsl *g, Expr *e, const char *name) {
    Val v = sema_eval(g->S, e);
    return leaf(g, v.kind == V_ERR ? v : param(g, v, name));
}

static const struct { const char *name; int nargs; } glsl_fns[] = {
    {"degrees", 1}, {"radians", 1}, {"fract", 1}, {"step", 2}, {"smoothstep", 3}, {"mod", 2},
    {"log2", 1}, {"reflect", 2}, {"refract", 3}, {"eye", 1},
};

bool sema_is_glsl(const char *path) {
    if (strncmp(path, "qd.math.", 8)) return false;
    for (size_t k = 0; k < ARRAY_LEN(glsl_fns); k++)
        if (!strcmp(glsl_fns[k].name, path + 8)) return true;
    return false;
}

Val sema_glsl_call(Sema *S, const Expr *e, const char *path) {
    const char *f = path + 8;
    size_t k = 0;
    while (strcmp(glsl_fns[k].name, f)) k++;
    int n = glsl_fns[k].nargs;
    if (!S->cur) return diag_error(e->span, QD2019, "'%s' can only be called inside a kernel or qd.func", path), val_err();
    if (e->call.args.n != n || e->call.nkw)
        return diag_error(e->span, QD2007, "'%s' takes %d argument%s, got %d", path, n, n == 1 ? "" : "s", e->call.args.n + e->call.nkw), val_err();
    Glsl g = {S, e->span};
    if (!strcmp(f, "eye")) { /* eye(n: template()) = qd.Matrix.identity(float, n) */
        Expr *a[2] = {leaf(&g, (Val){.kind = V_TYPE, .type = S->default_fp}), e->call.args.items[0]};
        return sema_eval(S, builtin(&g, "qd.Matrix.identity", 2, a));
    }
    static const char *const names[] = {"x", "y", "z"};
    Expr *a[3];
    for (int j = 0; j < n; j++) {
        Val v = sema_eval(S, e->call.args.items[j]);
        if (v.kind == V_ERR) return v;
        if (f[0] == 'r' && f[2] == 'f' && j < 2 && v.kind != V_VEC) /* reflect, refract: x.dot(n) */
            return diag_error(e->call.args.items[j]->span, QD2040, "'%s' needs a vector, got %s", path, val_describe(v)), val_err();
        v = param(&g, v, names[j]);
        if (v.kind == V_ERR) return v;
        a[j] = leaf(&g, v);
    }
    Expr *r;
    if (!strcmp(f, "degrees")) r = bin(&g, T_STAR, a[0], num(&g, 180.0 / 3.141592653589793));
    else if (!strcmp(f, "radians")) r = bin(&g, T_STAR, a[0], num(&g, 3.141592653589793 / 180.0));
    else if (!strcmp(f, "fract")) r = bin(&g, T_MINUS, a[0], builtin(&g, "qd.floor", 1, a));
    else if (!strcmp(f, "log2")) r = bin(&g, T_SLASH, builtin(&g, "qd.log", 1, a), num(&g, 0.6931471805599453));
    else if (!strcmp(f, "step")) { /* cast(x >= edge, float) */
        Expr *c[2] = {ge(&g, a[1], a[0]), leaf(&g, (Val){.kind = V_NS, .path = "float"})};
        r = builtin(&g, "qd.cast", 2, c);
    } else if (!strcmp(f, "mod")) { /* x - y * floor(x / y) */
        Expr *q = bin(&g, T_SLASH, a[0], a[1]);
        r = bin(&g, T_MINUS, a[0], bin(&g, T_STAR, a[1], builtin(&g, "qd.floor", 1, &q)));
    } else if (!strcmp(f, "smoothstep")) { /* t = clamp((x - e0) / (e1 - e0), 0, 1); t * t * (3 - 2t) */
        Expr *c[3] = {bin(&g, T_SLASH, bin(&g, T_MINUS, a[2], a[0]), bin(&g, T_MINUS, a[1], a[0])), num(&g, 0.0), num(&g, 1.0)};
        Expr *t = once(&g, builtin(&g, "qd.math.clamp", 3, c), "t");
        r = bin(&g, T_STAR, bin(&g, T_STAR, t, t), bin(&g, T_MINUS, num(&g, 3.0), bin(&g, T_STAR, num(&g, 2.0), t)));
    } else if (!strcmp(f, "reflect")) { /* x - 2 * x.dot(n) * n */
        Expr *kk = once(&g, method(&g, a[0], "dot", 1, &a[1]), "k");
        r = bin(&g, T_MINUS, a[0], bin(&g, T_STAR, bin(&g, T_STAR, num(&g, 2.0), kk), a[1]));
    } else { /* refract: k = 1 - eta^2 (1 - (x.n)^2); k >= 0 ? eta x - (eta x.n + sqrt(k)) n : 0 */
        Expr *d = once(&g, method(&g, a[0], "dot", 1, &a[1]), "dxn");
        Expr *kk = once(&g, bin(&g, T_MINUS, num(&g, 1.0),
                                bin(&g, T_STAR, bin(&g, T_STAR, a[2], a[2]), bin(&g, T_MINUS, num(&g, 1.0), bin(&g, T_STAR, d, d)))),
                        "k");
        Expr *sq = builtin(&g, "qd.sqrt", 1, &kk);
        Expr *res = bin(&g, T_MINUS, bin(&g, T_STAR, a[2], a[0]), bin(&g, T_STAR, bin(&g, T_PLUS, bin(&g, T_STAR, a[2], d), sq), a[1]));
        Expr *sel[3] = {ge(&g, kk, num(&g, 0.0)), res, builtin(&g, "qd.zero", 1, a)};
        r = builtin(&g, "qd.select", 3, sel);
    }
    return sema_eval(S, r);
}

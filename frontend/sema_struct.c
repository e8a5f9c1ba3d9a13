/* Structs (qd.types.struct(a=qd.f32, b=vec3), qd.Struct.field({...}, shape), qd.field(T, shape),
 * qd.Struct(...), T(...)), scalarized like vectors (sema_vec.c): a struct value is its members
 * (scalars or V_VEC), so member access, update and atomics on members are the scalar and vector
 * rules. A struct field is one scalar field per component, named <field>_<member>[_<k>], placed
 * together under one dense node as Quadrants places them: each element's members form one
 * naturally aligned C struct, members in declaration order (qdc-abi(7), SNode storages). */
#include "sema.h"
#include <string.h>

static bool is_scalar(Val v) { return v.kind == V_EXPR || v.kind == V_LOCAL || v.kind == V_REF; }

static int member_len(const QdStruct *st, int k) { return st->vn[k] ? (st->vm[k] ? st->vn[k] * st->vm[k] : st->vn[k]) : 0; }

static QdStruct *struct_alloc(Sema *S, int n) {
    QdStruct *st = ARENA_NEW(S->arena, QdStruct);
    st->n = n;
    st->names = ARENA_ARRAY(S->arena, const char *, n);
    st->dt = ARENA_ARRAY(S->arena, QdType, n);
    st->vn = ARENA_ARRAY(S->arena, int, n), st->vm = ARENA_ARRAY(S->arena, int, n);
    st->sub = ARENA_ARRAY(S->arena, const QdStruct *, n);
    return st;
}

static int member_index(const QdStruct *st, const char *name) {
    for (int k = 0; k < st->n; k++)
        if (!strcmp(st->names[k], name)) return k;
    return -1;
}

/* A member's type: a scalar type, a vector or matrix type, or a struct type (nested). */
static bool member_type(Sema *S, const Keyword *kw, QdStruct *st, int k) {
    Scope *saved = S->scope;
    IrStmtVec *cur = S->cur;
    S->scope = NULL, S->cur = NULL;
    Val v = sema_eval(S, kw->value);
    S->scope = saved, S->cur = cur;
    st->names[k] = kw->name, st->vn[k] = st->vm[k] = 0, st->sub[k] = NULL;
    if (v.kind == V_STRUCTTYPE) return st->sub[k] = v.strct.st, st->dt[k] = QT_VOID, true;
    if (v.kind == V_TYPE) return st->dt[k] = v.type, true;
    if (sema_py_scalar(S, v, &st->dt[k])) return true;
    if (v.kind == V_NS && !strcmp(v.path, "bool")) return st->dt[k] = QT_U1, true; /* Quadrants: bool is u1 */
    if (v.kind == V_VECTYPE) {
        st->dt[k] = v.vt.dt == QT_VOID ? QT_F32 : v.vt.dt, st->vn[k] = v.vt.n, st->vm[k] = v.vt.m;
        return true;
    }
    if (v.kind != V_ERR)
        diag_error(kw->value->span, QD2045, "struct member '%s' must be a scalar, vector, matrix or struct type, got %s", kw->name,
                   val_describe(v));
    return false;
}

/* Members from keywords (qd.types.struct(a=qd.f32)) or a {"a": qd.f32} argument. */
static const QdStruct *members(Sema *S, const Expr *call, const Keyword *kw, int nkw) {
    if (!nkw) return diag_error(call->span, QD2045, "a struct needs at least one member"), NULL;
    QdStruct *st = struct_alloc(S, nkw);
    bool ok = true;
    for (int k = 0; k < nkw; k++) {
        ok &= member_type(S, &kw[k], st, k);
        for (int j = 0; j < k; j++)
            if (!strcmp(kw[j].name, kw[k].name)) ok = false, diag_error(kw[k].span, QD2045, "struct member '%s' is declared twice", kw[k].name);
        if (ok) st->scalars += st->sub[k] ? st->sub[k]->scalars : st->vn[k] ? member_len(st, k) : 1;
    }
    /* struct(v=S, w=S) doubles: the type's size, not its (shared) description, is charged */
    if (ok && !budget_charge(&S->budget, EB_SIZE, st->scalars, call->span)) ok = false;
    return ok ? st : NULL;
}

static bool is_dict(const Expr *e) { return e->kind == E_CALL && e->call.fn->kind == E_NAME && !strcmp(e->call.fn->name, "dict"); }

bool sema_struct_path(const char *p) { return !strcmp(p, "qd.types.struct") || !strcmp(p, "qd.Struct") || !strcmp(p, "qd.Struct.field"); }

bool sema_struct_type_of(Sema *S, const Expr *ann, const QdStruct **st) {
    if (ann->kind != E_NAME) return false;
    Binding *b = sema_lookup(S, ann->name); /* a struct type made in a host function too */
    if (!b || b->v.kind != V_STRUCTTYPE) return false;
    *st = b->v.strct.st;
    return true;
}

/* ---- values ---- */

static Val struct_make(Sema *S, const QdStruct *st) {
    Val v = {.kind = V_STRUCT};
    v.strct.st = st;
    v.strct.m = ARENA_ARRAY(S->arena, Val, st->n);
    return v;
}

static Val member_value(Sema *S, const QdStruct *st, int k, Val v, Span sp);

/* A struct value converted to type st member by member (matched by name). */
static Val struct_convert(Sema *S, const QdStruct *st, Val v, Span sp) {
    Val r = struct_make(S, st);
    for (int k = 0; k < st->n; k++) {
        int j = member_index(v.strct.st, st->names[k]);
        if (j < 0) return diag_error(sp, QD2045, "the struct given has no member '%s'", st->names[k]), val_err();
        r.strct.m[k] = member_value(S, st, k, v.strct.m[j], sp);
        if (r.strct.m[k].kind == V_ERR) return val_err();
    }
    return r;
}

/* A member's zero (a nested struct: every leaf zero). */
static Val zero_member(Sema *S, const QdStruct *st, int k, Span sp) {
    if (!st->sub[k]) return member_value(S, st, k, val_expr(irb_int(S->arena, st->dt[k], 0, sp)), sp);
    Val r = struct_make(S, st->sub[k]);
    for (int j = 0; j < st->sub[k]->n; j++)
        if ((r.strct.m[j] = zero_member(S, st->sub[k], j, sp)).kind == V_ERR) return val_err();
    return r;
}

/* One member's value converted to its type (a scalar is broadcast to a vector member). */
static Val member_value(Sema *S, const QdStruct *st, int k, Val v, Span sp) {
    if (v.kind == V_ERR) return v;
    if (st->sub[k]) {
        if (v.kind == V_STRUCT) return struct_convert(S, st->sub[k], v, sp);
        if (v.kind == V_TUPLE || v.kind == V_VEC || !sema_rvalue(S, v, sp))
            return diag_error(sp, QD2040, "struct member '%s' is a struct, got %s", st->names[k], val_describe(v)), val_err();
        /* Quadrants calls the member's type with the value: its first member takes it, the rest are 0 */
        const QdStruct *sub = st->sub[k];
        Val r = struct_make(S, sub);
        for (int j = 0; j < sub->n; j++)
            if ((r.strct.m[j] = j ? zero_member(S, sub, j, sp) : member_value(S, sub, 0, v, sp)).kind == V_ERR) return val_err();
        return r;
    }
    if (v.kind == V_TUPLE && st->vn[k]) { /* (1, 2, 3) for a vector member, ((1, 2), (3, 4)) for a matrix */
        Val t = vec_make(S, st->vn[k], st->vm[k]);
        bool ok = v.tuple.n == st->vn[k];
        for (int i = 0; ok && i < st->vn[k]; i++) {
            Val row = v.tuple.items[i];
            if (!st->vm[k]) t.vec.c[i] = row;
            else if ((ok = row.kind == V_TUPLE && row.tuple.n == st->vm[k]))
                for (int j = 0; j < st->vm[k]; j++) t.vec.c[i * st->vm[k] + j] = row.tuple.items[j];
        }
        if (!ok) return diag_error(sp, QD2040, "struct member '%s' is %s, got a tuple of another shape", st->names[k],
                                   st->vm[k] ? "a matrix" : "a vector"), val_err();
        v = t;
    }
    if (v.kind == V_STRUCT) return diag_error(sp, QD2040, "struct member '%s' is not a struct, got a struct", st->names[k]), val_err();
    if (!st->vn[k]) {
        IrExpr *e = sema_rvalue(S, v, sp);
        return e ? val_expr(irb_cast(S->arena, e, st->dt[k])) : val_err();
    }
    Val r = vec_make(S, st->vn[k], st->vm[k]);
    if (v.kind == V_VEC && (v.vec.n != st->vn[k] || v.vec.m != st->vm[k])) {
        diag_error(sp, QD2040, "struct member '%s' is %s, got %s", st->names[k], st->vm[k] ? "a matrix" : "a vector", val_describe(v));
        return val_err();
    }
    IrExpr *one = v.kind == V_VEC ? NULL : sema_rvalue(S, v, sp);
    if (v.kind != V_VEC && !one) return val_err();
    for (int c = 0; c < vec_len(r); c++) {
        IrExpr *e = one ? one : sema_rvalue(S, v.vec.c[c], sp);
        if (!e) return val_err();
        r.vec.c[c] = val_expr(irb_cast(S->arena, e, st->dt[k]));
    }
    return r;
}

/* T(a=..., b=...) or T(x, y) in member order; members not given are zero. */
static Val construct(Sema *S, const Expr *call, const QdStruct *st) {
    Val r = struct_make(S, st);
    bool *have = ARENA_ARRAY(S->arena, bool, st->n);
    if (call->call.args.n > st->n) return diag_error(call->span, QD2045, "the struct has %d members, got %d values", st->n, call->call.args.n), val_err();
    for (int k = 0; k < call->call.args.n; k++) {
        r.strct.m[k] = member_value(S, st, k, sema_eval(S, call->call.args.items[k]), call->call.args.items[k]->span);
        if (r.strct.m[k].kind == V_ERR) return val_err();
        have[k] = true;
    }
    for (int j = 0; j < call->call.nkw; j++) {
        int k = member_index(st, call->call.kw[j].name);
        if (k < 0 || have[k])
            return diag_error(call->call.kw[j].span, QD2045, k < 0 ? "the struct has no member '%s'" : "member '%s' is given twice",
                              call->call.kw[j].name), val_err();
        r.strct.m[k] = member_value(S, st, k, sema_eval(S, call->call.kw[j].value), call->call.kw[j].span);
        if (r.strct.m[k].kind == V_ERR) return val_err();
        have[k] = true;
    }
    for (int k = 0; k < st->n; k++)
        if (!have[k] && (r.strct.m[k] = zero_member(S, st, k, call->span)).kind == V_ERR) return val_err();
    return r;
}

/* qd.Struct(a=1.0, v=qd.Vector(...)): an anonymous struct typed by its values. */
static Val anonymous(Sema *S, const Expr *call) {
    Val d = {.kind = V_ERR};
    if (call->call.args.n == 1 && !call->call.nkw) { /* qd.Struct({"a": 1, "b": v}) */
        d = sema_eval(S, call->call.args.items[0]);
        if (d.kind == V_ERR) return d;
        for (int k = 0; d.kind == V_DICT && k < d.dict.n; k++)
            if (d.dict.keys[k].kind != V_STR) d.kind = V_ERR;
        if (d.kind != V_DICT || !d.dict.n) d.kind = V_ERR;
    }
    if ((d.kind != V_DICT && (call->call.args.n || !call->call.nkw)))
        return diag_error(call->span, QD2045, "qd.Struct takes member=value keywords or a dict of them"), val_err();
    int n = d.kind == V_DICT ? d.dict.n : call->call.nkw;
    QdStruct *st = struct_alloc(S, n);
    Val r = struct_make(S, st);
    for (int k = 0; k < n; k++) {
        Span at = d.kind == V_DICT ? call->call.args.items[0]->span : call->call.kw[k].span;
        Val v = d.kind == V_DICT ? d.dict.vals[k] : sema_eval(S, call->call.kw[k].value);
        if (v.kind == V_ERR) return v;
        st->names[k] = d.kind == V_DICT ? d.dict.keys[k].path : call->call.kw[k].name;
        for (int j = 0; j < k; j++)
            if (!strcmp(st->names[j], st->names[k])) return diag_error(at, QD2045, "struct member '%s' is given twice", st->names[k]), val_err();
        if (v.kind == V_STRUCT) {
            st->sub[k] = v.strct.st, st->dt[k] = QT_VOID;
        } else if (v.kind == V_VEC) {
            IrExpr *e = sema_rvalue(S, v.vec.c[0], call->span);
            st->dt[k] = e ? e->type : QT_F32, st->vn[k] = v.vec.n, st->vm[k] = v.vec.m;
        } else {
            IrExpr *e = sema_rvalue(S, v, at);
            if (!e) return val_err();
            st->dt[k] = e->type;
        }
        r.strct.m[k] = member_value(S, st, k, v, at);
        if (r.strct.m[k].kind == V_ERR) return val_err();
    }
    return r;
}

Val sema_struct_call(Sema *S, const Expr *call, Val f) {
    if (f.kind == V_STRUCTTYPE) return construct(S, call, f.strct.st);
    const char *p = f.path;
    if (!strcmp(p, "qd.types.struct")) {
        const QdStruct *st = call->call.args.n == 1 && is_dict(call->call.args.items[0])
                                 ? members(S, call, call->call.args.items[0]->call.kw, call->call.args.items[0]->call.nkw)
                                 : call->call.args.n ? (diag_error(call->span, QD2045, "qd.types.struct takes member=type keywords"), NULL)
                                                     : members(S, call, call->call.kw, call->call.nkw);
        if (!st) return val_err();
        Val t = {.kind = V_STRUCTTYPE};
        t.strct.st = st, t.strct.m = NULL;
        return t;
    }
    if (!strcmp(p, "qd.Struct")) return anonymous(S, call);
    diag_error(call->span, QD2004, "'%s' can only be declared at module level", p);
    return val_err();
}

Val sema_struct_attr(Sema *S, Val o, const char *name, Span sp) {
    int k = member_index(o.strct.st, name);
    if (k >= 0) return o.strct.m[k];
    for (int j = 0; j < o.strct.st->nmethods; j++)
        if (!strcmp(o.strct.st->methods[j]->def.name, name)) { /* p.method: called with self = p */
            Val m = {.kind = V_METHOD};
            m.method.self = ARENA_NEW(S->arena, Val);
            *m.method.self = o;
            m.method.name = name;
            return m;
        }
    diag_error(sp, QD2045, "the struct has no member '%s'", name);
    (void)S;
    return val_err();
}

/* @qd.dataclass class P: annotated members (pos: vec3) and @qd.func methods; P is a struct type. */
void sema_struct_dataclass(Sema *S, const Stmt *cls) {
    const StmtList *b = &cls->class_.body;
    Keyword *kw = ARENA_ARRAY(S->arena, Keyword, b->n + 1);
    const Stmt **methods = ARENA_ARRAY(S->arena, const Stmt *, b->n + 1);
    int n = 0, nm = 0;
    for (int k = 0; k < b->n; k++) {
        const Stmt *s = b->stmts[k];
        if (s->kind == S_ANNASSIGN && s->ann.target->kind == E_NAME) kw[n++] = (Keyword){s->ann.target->name, s->ann.annotation, s->ann.target->span};
        else if (s->kind == S_DEF && s->def.nparams) methods[nm++] = s;
    }
    Expr fake = {.kind = E_CALL, .span = cls->class_.name_span};
    const QdStruct *st = n ? members(S, &fake, kw, n) : struct_alloc(S, 0); /* a dataclass of methods only */
    Val t = {.kind = V_ERR};
    if (st) {
        ((QdStruct *)st)->methods = methods, ((QdStruct *)st)->nmethods = nm;
        t = (Val){.kind = V_STRUCTTYPE};
        t.strct.st = st, t.strct.m = NULL;
    }
    Scope *where = S->bind_to ? S->bind_to : S->hscope; /* a dataclass of a host function is its own */
    scope_bind(S, where, cls->class_.name, t, cls->class_.name_span);
    for (int k = 0; k < nm; k++) /* its methods' bodies see that scope (sema_def_scope) */
        sema_lambda_push(S, ((SemaDef){.def = methods[k], .scope = where}));
}

/* p.method(args): the method inlined like a qd.func, self bound to p itself (updates of
 * self.member change p). */
Val sema_struct_method_call(Sema *S, const Expr *call, Val self, const Stmt *def) {
    Expr fake = *call;
    fake.call.args.n = call->call.args.n + 1;
    fake.call.args.items = ARENA_ARRAY(S->arena, Expr *, fake.call.args.n);
    fake.call.args.items[0] = (Expr *)sema_val_node(S, self, 2, call->call.fn->span);
    for (int k = 0; k < call->call.args.n; k++) fake.call.args.items[k + 1] = call->call.args.items[k];
    return sema_inline_call(S, &fake, def);
}

/* ---- kernel parameters ---- */

/* One scalar kernel parameter per component, named NAME_member[_k] (nested: NAME_inner_member). */
Val sema_struct_params(Sema *S, const QdStruct *st, const char *name, Span sp) {
    Val v = struct_make(S, st);
    for (int k = 0; k < st->n; k++) {
        const char *base = arena_printf(S->arena, "%s_%s", name, st->names[k]);
        if (st->sub[k]) {
            v.strct.m[k] = sema_struct_params(S, st->sub[k], base, sp);
            continue;
        }
        int len = st->vn[k] ? member_len(st, k) : 1;
        if (st->vn[k]) v.strct.m[k] = vec_make(S, st->vn[k], st->vm[k]);
        for (int c = 0; c < len; c++) {
            IrParam p = {.name = st->vn[k] ? arena_printf(S->arena, "%s_%d", base, c) : base, .kind = IR_PARAM_SCALAR, .type = st->dt[k], .span = sp,
                         .elem_shape = {st->vn[k], st->vm[k]}}; /* a vector member's shape, as vector_param's */
            vec_push(&S->params, p);
            IrExpr *e = irb_new(S->arena, IR_PARAM, st->dt[k], sp);
            e->param = S->params.len - 1;
            if (st->vn[k]) v.strct.m[k].vec.c[c] = val_expr(e);
            else v.strct.m[k] = val_expr(e);
        }
    }
    return v;
}

/* A kernel parameter of a struct type (p: Particle), passed by value: its scalar components in
 * the argument struct, in declaration order (qdc-abi(7)). */
bool sema_struct_param(Sema *S, const Param *ap) {
    const QdStruct *st;
    if (!ap->annotation || ap->dflt || !sema_struct_type_of(S, ap->annotation, &st)) return false;
    scope_bind(S, S->scope, ap->name, sema_struct_params(S, st, ap->name, ap->span), ap->span)->is_param = true;
    return true;
}

/* ---- fields ---- */

static int new_field(Sema *S, const char *name, QdType t, Span sp) {
    IrField f = {.name = name, .type = t, .ndim = -1, .span = sp};
    vec_push(&S->fields, f);
    return S->fields.len - 1;
}

enum { LEAVES_MAX = 4 * QD_VEC_MAX }; /* scalar fields of one struct field (vector members of up to QD_VEC_MAX) */

/* One scalar field per component of st, named BASE_member[_k] (nested: BASE_inner_member),
 * their indices appended to idx (at most LEAVES_MAX). */
static Val struct_fields(Sema *S, const QdStruct *st, const char *name, int *idx, int *n, Span span) {
    Val v = struct_make(S, st);
    for (int k = 0; k < st->n; k++) {
        const char *base = arena_printf(S->arena, "%s_%s", name, st->names[k]);
        if (st->sub[k]) {
            v.strct.m[k] = struct_fields(S, st->sub[k], base, idx, n, span);
            continue;
        }
        if (!st->vn[k]) {
            int f = new_field(S, base, st->dt[k], span);
            if (*n < LEAVES_MAX) idx[(*n)++] = f;
            v.strct.m[k] = (Val){.kind = V_FIELD, .index = f};
            continue;
        }
        v.strct.m[k] = vec_make(S, st->vn[k], st->vm[k]);
        for (int c = 0; c < member_len(st, k); c++) {
            int f = new_field(S, arena_printf(S->arena, "%s_%d", base, c), st->dt[k], span);
            if (*n < LEAVES_MAX) idx[(*n)++] = f;
            v.strct.m[k].vec.c[c] = (Val){.kind = V_FIELD, .index = f};
        }
    }
    return v;
}

/* x = qd.Struct.field({"a": qd.f32, "v": vec3}, shape=S), qd.field(T, shape=S), T.field(shape=S).
 * False when call is none of these (nothing reported). */
bool sema_struct_field(Sema *S, const Expr *target, Span span, const Expr *call, const char *path) {
    const QdStruct *st = NULL;
    const Expr *shape = NULL;
    int first_kw = 0;
    if (path && !strcmp(path, "qd.Struct.field")) {
        const Expr *d = call->call.args.n ? call->call.args.items[0] : NULL;
        if (!d || !is_dict(d)) return diag_error(call->span, QD2045, "qd.Struct.field takes a {\"member\": type, ...} dict"), true;
        st = members(S, call, d->call.kw, d->call.nkw);
        if (call->call.args.n > 1) shape = call->call.args.items[1];
    } else if (path && !strcmp(path, "qd.field")) {
        const Expr *dt = call->call.args.n ? call->call.args.items[0] : NULL;
        for (int k = 0; k < call->call.nkw; k++)
            if (!strcmp(call->call.kw[k].name, "dtype")) dt = call->call.kw[k].value;
        if (!dt || !sema_struct_type_of(S, dt, &st)) return false;
        if (call->call.args.n > 1) shape = call->call.args.items[1];
    } else if (call->call.fn->kind == E_ATTR && !strcmp(call->call.fn->attr.name, "field")) {
        if (!sema_struct_type_of(S, call->call.fn->attr.obj, &st)) return false;
        if (call->call.args.n) shape = call->call.args.items[0];
    } else {
        return false;
    }
    (void)first_kw;
    const Expr *offset = NULL;
    const Keyword *ad[2];
    int nad = 0;
    bool soa = false;
    for (int k = 0; k < call->call.nkw; k++) {
        const char *kw = call->call.kw[k].name;
        const Expr *kv = call->call.kw[k].value;
        if (!strcmp(kw, "shape")) shape = kv;
        else if (!strcmp(kw, "offset")) offset = kv->kind == E_NONE ? NULL : kv;
        else if (!strcmp(kw, "layout")) { /* AOS: the members of an element together; SOA: each member its own array */
            const char *lp = sema_path(S, kv);
            if (!lp || (strcmp(lp, "qd.Layout.AOS") && strcmp(lp, "qd.Layout.SOA")))
                return diag_error(kv->span, QD2043, "layout= takes qd.Layout.AOS or qd.Layout.SOA"), true;
            soa = !strcmp(lp, "qd.Layout.SOA");
        } else if (!strcmp(kw, "needs_grad") || !strcmp(kw, "needs_dual")) {
            IrExpr *f = sema_expr(S, kv); /* needs_grad=False: Quadrants' default, no gradient storage */
            if (f && ir_is_const(f) && !qt_is_float(f->type) && !f->c.u) continue;
            if (f && ir_is_const(f) && !qt_is_float(f->type) && nad < 2) { /* refused below (no shape: by sema_ad.c) */
                ad[nad++] = &call->call.kw[k];
                continue;
            }
            scope_bind(S, BIND_SCOPE(S), target->name, val_err(), span); /* later uses are not reported again */
            return diag_error(call->call.kw[k].span, QD2063, "%s=... is not supported: qdc does not compile autodiff", kw), true;
        } else if (strcmp(kw, "dtype") && strcmp(kw, "name"))
            return diag_error(call->call.kw[k].span, QD2045, "struct field argument '%s' is not supported", kw), true;
    }
    if (shape && shape->kind == E_NONE) shape = NULL;
    if (nad && shape) { /* Quadrants places the gradients with the field: what qdc does not compile */
        scope_bind(S, BIND_SCOPE(S), target->name, val_err(), span);
        return diag_error(ad[0]->span, QD2063, "%s=... is not supported: qdc does not compile autodiff", ad[0]->name), true;
    }
    if (offset && !shape) return diag_error(offset->span, QD2004, "shape cannot be None when offset is set"), true;
    if (!st) return scope_bind(S, BIND_SCOPE(S), target->name, val_err(), span), true;
    int64_t sh[IR_MAX_DIMS];
    int nd = shape ? sema_const_shape(S, shape, sh, IR_MAX_DIMS, "a field shape") : 0; /* no shape: placed later */
    if (nd < 0) return scope_bind(S, BIND_SCOPE(S), target->name, val_err(), span), true;
    for (int k = 0; k < nd; k++)
        if (sh[k] <= 0 || sh[k] > INT32_MAX)
            return diag_error(sema_shape_span(shape, k), QD2004, "field extent %lld is out of range", (long long)sh[k]), true;
    int64_t org[IR_MAX_DIMS];
    if (!sema_offset_given(S, offset)) offset = NULL;
    int no = offset ? sema_const_shape(S, offset, org, IR_MAX_DIMS, "a field offset") : 0;
    if (no < 0) return scope_bind(S, BIND_SCOPE(S), target->name, val_err(), span), true;
    if (offset && no != nd)
        return diag_error(offset->span, QD2004, "offset= has %d value%s but the shape has %d dimension%s (the dimensionality of shape "
                          "and offset must be the same)", no, no == 1 ? "" : "s", nd, nd == 1 ? "" : "s"), true;
    int *idx = xcalloc(LEAVES_MAX, sizeof *idx), n = 0;
    Val v = struct_fields(S, st, sema_field_name(S, target->name), idx, &n, span);
    for (int k = 0; k < nad && n; k++) /* placed by host code: Quadrants first checks that its gradients are (sema_ad.c) */
        vec_push(&S->ad_manual, ((AdManual){idx[0], idx[n - 1], ad[k]->span, ad[k]->name[6] == 'd', true}));
    for (int k = 0; k < n; k++)
        for (int d = 0; d < no; d++) S->fields.items[idx[k]].origin[d] = org[d];
    if (shape && !soa) sema_snode_place_together(S, idx, n, sh, nd, span);
    for (int k = 0, at = 0; shape && soa && k < st->n; k++) { /* each member under its own dense node (a vector's components together) */
        Val m = v.strct.m[k];
        int c = m.kind == V_STRUCT ? sema_struct_leaf_fields(m, idx + at, LEAVES_MAX - at) : m.kind == V_VEC ? vec_len(m) : 1;
        sema_snode_place_together(S, idx + at, c, sh, nd, span);
        at += c;
    }
    free(idx);
    scope_bind(S, BIND_SCOPE(S), target->name, v, span);
    return true;
}

int sema_struct_first_field(Val v) {
    Val m = v.strct.m[0];
    return m.kind == V_STRUCT ? sema_struct_first_field(m) : m.kind == V_VEC ? m.vec.c[0].index : m.index;
}

int sema_struct_leaf_fields(Val v, int *out, int max) {
    int n = 0;
    for (int k = 0; k < v.strct.st->n; k++) {
        Val m = v.strct.m[k];
        if (m.kind == V_STRUCT) n += sema_struct_leaf_fields(m, out + n, max - n);
        else if (m.kind == V_VEC)
            for (int c = 0; c < vec_len(m) && n < max; c++) out[n++] = m.vec.c[c].kind == V_FIELD ? m.vec.c[c].index : -1;
        else if (n < max) out[n++] = m.kind == V_FIELD ? m.index : -1;
    }
    return n;
}

/* x[i] on a struct field: every component field indexed the same way. */
Val sema_struct_subscript(Sema *S, Val o, const Expr *e) {
    Val r = struct_make(S, o.strct.st);
    Expr fake = *e;
    for (int k = 0; k < o.strct.st->n; k++) {
        Val m = o.strct.m[k];
        if (m.kind == V_STRUCT) {
            if ((r.strct.m[k] = sema_struct_subscript(S, m, e)).kind == V_ERR) return val_err();
            continue;
        }
        if (m.kind != V_VEC && m.kind != V_FIELD) {
            diag_error(e->span, QD2011, "a struct value is not subscriptable");
            return val_err();
        }
        if (m.kind == V_FIELD) {
            fake.sub.obj = (Expr *)sema_val_node(S, m, 3, e->sub.obj->span);
            r.strct.m[k] = sema_eval(S, &fake);
            if (r.strct.m[k].kind == V_ERR) return val_err();
            continue;
        }
        r.strct.m[k] = vec_make(S, m.vec.n, m.vec.m);
        for (int c = 0; c < vec_len(m); c++) {
            fake.sub.obj = (Expr *)sema_val_node(S, m.vec.c[c], 3, e->sub.obj->span);
            r.strct.m[k].vec.c[c] = sema_eval(S, &fake);
            if (r.strct.m[k].vec.c[c].kind == V_ERR) return val_err();
        }
    }
    return r;
}

/* ---- variables and stores ---- */

Val sema_struct_materialize(Sema *S, Val v, const char *name, Span sp) {
    Val r = struct_make(S, v.strct.st);
    for (int k = 0; k < v.strct.st->n; k++) {
        Val m = v.strct.m[k];
        const char *mn = arena_printf(S->arena, "%s_%s", name, v.strct.st->names[k]);
        if (m.kind == V_STRUCT) {
            r.strct.m[k] = sema_struct_materialize(S, m, mn, sp);
        } else if (m.kind == V_VEC) {
            r.strct.m[k] = sema_vec_materialize(S, m, mn, sp);
        } else {
            IrExpr *e = sema_rvalue(S, m, sp);
            if (!e) return val_err();
            int l = sema_new_local(S, mn, e->type);
            IrStmt *st = sema_stmt_new(S, IR_ASSIGN, sp);
            st->assign.local = l, st->assign.value = e;
            sema_emit(S, st);
            r.strct.m[k] = (Val){.kind = V_LOCAL, .index = l};
        }
        if (r.strct.m[k].kind == V_ERR) return val_err();
    }
    return r;
}

/* target = v member by member (v read completely first). */
void sema_struct_assign(Sema *S, Val target, Val v, Span sp) {
    if (v.kind == V_ERR) return;
    const QdStruct *st = target.strct.st;
    if (v.kind != V_STRUCT || v.strct.st->n != st->n) {
        diag_error(sp, QD2045, "cannot assign %s to a struct with %d members", val_describe(v), st->n);
        return;
    }
    for (int k = 0; k < st->n; k++)
        if (member_index(v.strct.st, st->names[k]) < 0) {
            diag_error(sp, QD2045, "the struct assigned has no member '%s'", st->names[k]);
            return;
        }
    Val snap = sema_struct_materialize(S, v, "$struct", sp);
    if (snap.kind == V_ERR) return;
    for (int k = 0; k < st->n; k++) {
        Val m = snap.strct.m[member_index(v.strct.st, st->names[k])], t = target.strct.m[k];
        if (t.kind == V_STRUCT) {
            sema_struct_assign(S, t, m, sp);
            continue;
        }
        if (m.kind == V_STRUCT) {
            diag_error(sp, QD2040, "struct member '%s' is not a struct, got a struct", st->names[k]);
            return;
        }
        if (t.kind == V_VEC) {
            sema_vec_assign(S, t, m, sp);
            continue;
        }
        IrExpr *e = is_scalar(m) ? sema_rvalue(S, m, sp) : NULL;
        if (!e) {
            diag_error(sp, QD2040, "struct member '%s' is a scalar, got %s", st->names[k], val_describe(m));
            return;
        }
        IrStmt *s;
        if (t.kind == V_LOCAL) {
            s = sema_stmt_new(S, IR_ASSIGN, sp);
            s->assign.local = t.index, s->assign.value = sema_convert(S, e, S->locals.items[t.index].type);
        } else if (t.kind == V_REF) {
            s = sema_stmt_new(S, IR_STORE, sp);
            s->store.ref = t.ref, s->store.value = sema_convert(S, e, t.ref->type);
        } else {
            diag_error(sp, QD2010, "cannot assign to this struct");
            return;
        }
        sema_emit(S, s);
    }
}

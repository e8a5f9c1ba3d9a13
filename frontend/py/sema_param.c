/* Host-code idioms of pytest-style Quadrants tests (qdc-lang(7), PARAMETRIZED HOST FUNCTIONS):
 *  - @pytest.mark.parametrize on a host function: its body is evaluated once per combination of
 *    the listed compile-time values, its kernels named HOSTFN__COMBO__KERNEL;
 *  - getattr(obj, NAME) with a compile-time NAME: the same value as obj.NAME;
 *  - f-strings, str() and + of compile-time strings. */
#include "py.h"

#include <stdio.h>
#include <string.h>

#define MAX_COMBOS 1024

/* ---- compile-time strings ---- */

/* The text str() gives a compile-time string, integer, bool or None; NULL for anything else. */
static const char *py_str(Sema *S, Val v) {
    if (v.kind == V_STR) return v.path;
    if (v.kind == V_NONE) return "None";
    if (v.kind == V_PYINT) return sema_pyint_text(S, v, S->budget.at);
    if (!val_is_host_integral(v)) return NULL;
    if (val_is_host_bool(v)) return val_host_u64(v) ? "True" : "False";
    if (qt_is_signed(val_host_type(v))) return arena_printf(S->arena, "%lld", (long long)val_host_i64(v));
    return arena_printf(S->arena, "%llu", (unsigned long long)val_host_u64(v));
}

static bool ident_start(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }

/* Calls fn for each {NAME} field of an f-string (false: a field that is not a bare name, such as
 * {x + 1} or {x:>4}, or a lone brace). */
static bool fstring_fields(const char *s, bool (*fn)(void *ctx, const char *name, size_t n), void *ctx) {
    for (const char *c = s; *c; c++) {
        if ((c[0] == '{' && c[1] == '{') || (c[0] == '}' && c[1] == '}')) {
            c++;
            continue;
        }
        if (*c == '}') return false;
        if (*c != '{') continue;
        const char *n = ++c;
        if (!ident_start(*c)) return false;
        while (ident_char(*c)) c++;
        if (*c != '}' || !fn(ctx, n, (size_t)(c - n))) return false;
    }
    return true;
}

static bool field_known(void *ctx, const char *name, size_t n) {
    Sema *S = ctx;
    char buf[256];
    if (n >= sizeof buf) return false;
    memcpy(buf, name, n), buf[n] = 0;
    for (Scope *s = S->scope ? S->scope : S->hscope; s; s = s->parent) {
        Binding *b = S->core->scope_find(s, buf);
        if (b) return py_str(S, b->v) != NULL;
    }
    return false;
}

bool sema_fstring_known(Sema *S, const Expr *e) { return fstring_fields(e->str, field_known, S); }

typedef struct {
    Sema *S;
    const Expr *e;
    StrBuf out;
    bool ok;
} FormatCtx;

static bool field_format(void *ctx, const char *name, size_t n) {
    FormatCtx *f = ctx;
    Expr *ne = ARENA_NEW(f->S->arena, Expr);
    ne->kind = E_NAME, ne->span = f->e->span, ne->name = arena_strndup(f->S->arena, name, n);
    Val v = f->S->core->sema_eval(f->S, ne);
    if (v.kind == V_ERR) return f->ok = false;
    const char *s = py_str(f->S, v);
    if (!s) {
        diag_error(f->e->span, QD2062, "the f-string field {%s} is %s; qdc formats compile-time strings, integers, "
                                         "bools and None", ne->name, f->S->core->val_describe(v));
        return f->ok = false;
    }
    sb_puts(&f->out, s);
    return true;
}

Val sema_fstring(Sema *S, const Expr *e) {
    if (!strstr(e->str, "{") && !strstr(e->str, "}")) return (Val){.kind = V_STR, .path = e->str};
    FormatCtx f = {.S = S, .e = e, .ok = true};
    sb_init(&f.out);
    /* copy the text between fields; each field is appended by field_format as it is met */
    const char *c = e->str;
    bool shape = true;
    while (*c && f.ok) {
        if ((c[0] == '{' && c[1] == '{') || (c[0] == '}' && c[1] == '}')) {
            sb_printf(&f.out, "%c", *c), c += 2;
            continue;
        }
        if (*c == '{') {
            const char *end = strchr(c, '}');
            char field[300];
            if (!end || (size_t)(end - c + 1) >= sizeof field) { shape = false; break; }
            memcpy(field, c, (size_t)(end - c + 1)), field[end - c + 1] = 0;
            if (!fstring_fields(field, field_format, &f)) { shape = f.ok ? false : shape; break; }
            c = end + 1;
            continue;
        }
        if (*c == '}') { shape = false; break; }
        sb_printf(&f.out, "%c", *c), c++;
    }
    Val r = {.kind = V_STR, .path = arena_strdup(S->arena, f.out.data ? f.out.data : "")};
    sb_free(&f.out);
    if (!shape) {
        diag_error(e->span, QD2062, "this f-string has a field that is not a bare name ({x + 1}, {x:>4} ...); qdc "
                                      "evaluates f-strings whose fields are names of compile-time values");
        return val_err();
    }
    return f.ok ? S->core->sema_new_value(S, r, e->span) : val_err();
}

/* STR * N and N * STR: N copies (none for N <= 0). The size is checked before the string is
 * made ('ab' * 10**9 would take 2 GB): the size budget, at the expression `at` (QD2026). */
static bool str_repeat(Sema *S, Val s, Val n, Val *out, Span at) {
    if (s.kind != V_STR || !val_is_host_integral(n)) return false;
    int64_t k = qt_is_signed(val_host_type(n)) ? val_host_i64(n) : (int64_t)(val_host_u64(n) > INT64_MAX ? INT64_MAX : val_host_u64(n));
    int64_t len = (int64_t)strlen(s.path), total = k <= 0 || !len ? 0 : k > INT64_MAX / len ? INT64_MAX : k * len;
    if (!budget_fits(&S->budget, EB_SIZE, total == INT64_MAX ? total : total + 1, at)) return *out = val_err(), true;
    char *r = arena_alloc(S->arena, (size_t)total + 1);
    for (int64_t c = 0; c < total; c += len) memcpy(r + c, s.path, (size_t)len);
    r[total] = 0;
    return *out = (Val){.kind = V_STR, .path = r}, true;
}

/* str(x), STR + STR and STR * N on compile-time values; *out unset (false) when the operands are not. */
bool sema_str_binary(Sema *S, int op, Val a, Val b, Val *out, Span at) {
    if (op == T_STAR) return str_repeat(S, a, b, out, at) || str_repeat(S, b, a, out, at);
    if (op != T_PLUS || a.kind != V_STR || b.kind != V_STR) return false;
    *out = (Val){.kind = V_STR, .path = arena_printf(S->arena, "%s%s", a.path, b.path)};
    return true;
}

Val sema_str_call(Sema *S, const Expr *call) {
    if (call->call.args.n != 1 || call->call.nkw) {
        diag_error(call->span, QD2012, "str takes one positional argument here, got %d", call->call.args.n + call->call.nkw);
        return val_err();
    }
    Val v = S->core->sema_eval(S, call->call.args.items[0]);
    if (v.kind == V_ERR) return v;
    const char *s = py_str(S, v);
    if (!s) {
        diag_error(call->call.args.items[0]->span, QD2062, "str() of %s; qdc converts compile-time strings, integers, bools and None",
                   S->core->val_describe(v));
        return val_err();
    }
    return (Val){.kind = V_STR, .path = s};
}

/* getattr(obj, NAME): NAME a compile-time string; the value of obj.NAME (the dotted name). */
Val sema_getattr(Sema *S, const Expr *call) {
    if (call->call.args.n != 2 || call->call.nkw) {
        diag_error(call->span, QD2012, "getattr takes (object, name) here, got %d arguments%s", call->call.args.n + call->call.nkw,
                   call->call.args.n == 3 ? " (a default needs to know at run time whether the attribute exists)" : "");
        return val_err();
    }
    Val n = S->core->sema_eval(S, call->call.args.items[1]);
    if (n.kind == V_ERR) return n;
    if (n.kind != V_STR) {
        diag_error(call->call.args.items[1]->span, QD2012, "getattr needs a compile-time string as the name, got %s", S->core->val_describe(n));
        return val_err();
    }
    if (!*n.path) {
        diag_error(call->call.args.items[1]->span, QD2012, "getattr of an empty name");
        return val_err();
    }
    Expr *a = ARENA_NEW(S->arena, Expr);
    a->kind = E_ATTR, a->span = call->span, a->attr.obj = call->call.args.items[0], a->attr.name = n.path;
    return S->core->sema_eval(S, a);
}

/* ---- @pytest.mark.parametrize ---- */

typedef struct {
    const char *name;  /* the host function's parameter */
    int index;         /* its position in def.params */
} PName;

typedef struct {
    const Expr *deco;  /* the decorator call */
    PName names[16];
    int nnames;
    bool seq;          /* names given as a tuple or list: each row is a sequence even for one name */
    int nrows;         /* -1: the values are unknown (every named parameter stays a run-time value) */
    Val *vals;         /* nrows * nnames; V_ERR: that value cannot be evaluated */
    Span *spans;       /* where each value is written */
    const char **ids;  /* nrows spellings */
} Deco;

/* @pytest.mark.parametrize(...) / @mark.parametrize(...) (any root: pytest is imported as host code). */
static bool is_parametrize(const Expr *d) {
    if (d->kind != E_CALL || d->call.fn->kind != E_ATTR || strcmp(d->call.fn->attr.name, "parametrize")) return false;
    const Expr *m = d->call.fn->attr.obj;
    return (m->kind == E_NAME && !strcmp(m->name, "mark")) || (m->kind == E_ATTR && !strcmp(m->attr.name, "mark"));
}

static const Expr *arg_or_kw(const Expr *call, int pos, const char *kw) {
    if (pos < call->call.args.n) return call->call.args.items[pos];
    for (int k = 0; k < call->call.nkw; k++)
        if (!strcmp(call->call.kw[k].name, kw)) return call->call.kw[k].value;
    return NULL;
}

static void add_name(Deco *d, const Stmt *def, const char *s, size_t n) {
    while (n && (*s == ' ' || *s == '\t')) s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
    if (d->nnames == (int)ARRAY_LEN(d->names)) return;
    PName p = {.index = -1};
    for (int k = 0; k < def->def.nparams; k++)
        if (strlen(def->def.params[k].name) == n && !memcmp(def->def.params[k].name, s, n)) p.index = k, p.name = def->def.params[k].name;
    d->names[d->nnames++] = p; /* index -1: not a parameter of the function (a fixture's) */
}

static bool parse_names(Deco *d, const Stmt *def, const Expr *e) {
    if (e && e->kind == E_STR && !e->fstr) {
        for (const char *s = e->str;;) {
            const char *c = strchr(s, ',');
            size_t n = c ? (size_t)(c - s) : strlen(s);
            if (n || c) add_name(d, def, s, n);
            if (!c) break;
            s = c + 1;
        }
        return d->nnames > 0;
    }
    if (e && (e->kind == E_TUPLE || e->kind == E_LIST)) {
        d->seq = true;
        for (int k = 0; k < e->list.n; k++) {
            if (e->list.items[k]->kind != E_STR) return false;
            add_name(d, def, e->list.items[k]->str, strlen(e->list.items[k]->str));
        }
        return d->nnames > 0;
    }
    return false;
}

/* pytest.param(v1, v2, marks=..., id=...): its positional arguments (marks ignored). */
static bool is_pytest_param(const Expr *e) {
    return e->kind == E_CALL && ((e->call.fn->kind == E_ATTR && !strcmp(e->call.fn->attr.name, "param")) ||
                                 (e->call.fn->kind == E_NAME && !strcmp(e->call.fn->name, "param")));
}

static bool contains_error(const Expr *e) {
    if (!e) return false;
    switch (e->kind) {
    case E_ERROR: return true;
    case E_TUPLE: case E_LIST:
        for (int k = 0; k < e->list.n; k++)
            if (contains_error(e->list.items[k])) return true;
        return false;
    case E_UNARY: return contains_error(e->un.a);
    case E_BINARY: return contains_error(e->bin.a) || contains_error(e->bin.b);
    default: return false;
    }
}

static Binding *find(Sema *S, const char *name) {
    for (Scope *s = S->hscope; s; s = s->parent) {
        Binding *b = S->core->scope_find(s, name);
        if (b) return b;
    }
    return NULL;
}

static bool numeric(Sema *S, const Expr *e) {
    if (e->kind == E_INT || e->kind == E_FLOAT) return true;
    if (e->kind == E_UNARY && (e->op == T_MINUS || e->op == T_PLUS)) return numeric(S, e->un.a);
    Binding *b = e->kind == E_NAME ? find(S, e->name) : NULL;
    return b && val_is_host_scalar(b->v) && !val_is_host_float(b->v);
}

/* A parametrized value qdc evaluates exactly and without a diagnostic: numbers, strings, bools,
 * None, qd.<scalar type>, qd.math constants, names bound to compile-time values, integer
 * arithmetic of those, tuples and lists of them. Anything else (a call, numpy, a host name) is
 * only known when the script runs. */
static bool quiet_constant(Sema *S, const Expr *e) {
    switch (e->kind) {
    case E_INT: case E_FLOAT: case E_BOOL: case E_NONE: case E_LAMBDA: return true; /* a lambda: a function passed to a helper */
    case E_STR: return !e->fstr || sema_fstring_known(S, e);
    case E_UNARY: return (e->op == T_MINUS || e->op == T_PLUS) && numeric(S, e->un.a);
    case E_BINARY:
        return (e->op == T_PLUS || e->op == T_MINUS || e->op == T_STAR || e->op == T_POW) && numeric(S, e->bin.a) && numeric(S, e->bin.b);
    case E_TUPLE: case E_LIST:
        for (int k = 0; k < e->list.n; k++)
            if (!quiet_constant(S, e->list.items[k])) return false;
        return true;
    case E_NAME: {
        Binding *b = find(S, e->name);
        if (!b) return false;
        ValKind k = b->v.kind;
        return k == V_EXPR || k == V_TYPE || k == V_STR || k == V_NONE || k == V_TUPLE || k == V_FIELD || k == V_VECTYPE ||
               k == V_FUNC || k == V_PYFUNC || (k == V_NS && !strncmp(b->v.path, "qd.", 3)); /* functions passed to a helper */
    }
    case E_SUBSCRIPT: { /* TUPLE_CONSTANT[i] */
        Binding *b = e->sub.obj->kind == E_NAME ? find(S, e->sub.obj->name) : NULL;
        return b && b->v.kind == V_TUPLE && e->sub.index->kind == E_INT && e->sub.index->i < (uint64_t)b->v.tuple.n;
    }
    case E_CALL: { /* f(N): a helper function the evaluator runs (one that only computes), of such arguments */
        Binding *b = e->call.fn->kind == E_NAME ? find(S, e->call.fn->name) : NULL;
        if (!b || b->v.kind != V_PYFUNC) return false;
        for (int k = 0; k < e->call.args.n; k++)
            if (e->call.args.items[k]->kind == E_STARRED || !quiet_constant(S, e->call.args.items[k])) return false;
        for (int k = 0; k < e->call.nkw; k++)
            if (!e->call.kw[k].name || !quiet_constant(S, e->call.kw[k].value)) return false;
        return true;
    }
    case E_ATTR: {
        const char *p = S->core->sema_path(S, e);
        if (p) return !strncmp(p, "qd.", 3); /* a qd type, a qd.math constant, or a qd name (qd.ndarray): param_value */
        Binding *b = e->attr.obj->kind == E_NAME ? find(S, e->attr.obj->name) : NULL; /* subgroup.reduce_add */
        if (b && (b->v.kind == V_OBJECT || b->v.kind == V_PYDC || b->v.kind == V_CLASS)) { /* self.n: when qdc knows it */
            int mark = diag_quiet_begin();
            Val v = S->core->sema_eval(S, e);
            return !diag_quiet_end(mark) && v.kind != V_ERR && S->core->sema_module_constant(S, &v);
        }
        return b && b->v.kind == V_NS && !strncmp(b->v.path, "qd.", 3);
    }
    default: return false;
    }
}

/* One parametrized value in the enclosing scope: V_ERR when qdc cannot evaluate it. */
static Val param_value(Sema *S, const Expr *e) {
    if (contains_error(e) || !quiet_constant(S, e)) return val_err();
    if (e->kind == E_ATTR && S->core->sema_path(S, e)) { /* qd.NAME... as cond_atom reads it: a type, else the namespace path */
        const char *p = S->core->sema_path(S, e);
        bool mathc = !strcmp(p, "qd.math.pi") || !strcmp(p, "qd.math.e") || !strcmp(p, "qd.math.inf") || !strcmp(p, "qd.math.nan");
        QdType t = strchr(p + 3, '.') ? QT_VOID : qt_from_name(p + 3);
        if (!mathc) return t != QT_VOID ? (Val){.kind = V_TYPE, .type = t} : (Val){.kind = V_NS, .path = p};
    }
    if (e->kind == E_CALL) { /* a helper's result; one qdc cannot compute leaves the value the script's */
        int mark = diag_quiet_begin();
        Val v = S->core->sema_eval(S, e);
        bool bad = diag_quiet_end(mark);
        return !bad && v.kind != V_ERR && v.kind != V_HOST && S->core->sema_module_constant(S, &v) ? v : val_err();
    }
    Val v = S->core->sema_eval(S, e);
    return v.kind != V_ERR && S->core->sema_module_constant(S, &v) ? v : val_err();
}

/* How a value spells in an entry name: a qd type's name, an integer (m for minus), True/False/None,
 * a string of identifier characters; anything else NAME<row> as pytest's own ids. */
static const char *spell(Sema *S, Val v, const char *name, int row) {
    if (v.kind == V_TYPE) return qt_name(v.type);
    if (v.kind == V_NS && strrchr(v.path, '.')) return strrchr(v.path, '.') + 1; /* qd.ndarray: ndarray */
    if (v.kind == V_STR) {
        bool ok = *v.path != 0;
        for (const char *c = v.path; *c; c++) ok &= ident_char(*c);
        if (ok) return v.path;
    } else if (val_is_host_integral(v)) { /* a float is NAME<row>, as pytest's id */
        StrBuf b;
        sb_init(&b);
        val_host_spell(&b, v);
        const char *s = arena_strdup(S->arena, b.data);
        sb_free(&b);
        return s;
    } else if (v.kind != V_ERR) {
        const char *s = py_str(S, v);
        if (s) return s;
    }
    return arena_printf(S->arena, "%s%d", name ? name : "p", row);
}

/* itertools.permutations(SEQ[, R]), also in list(...) / tuple(...) (nested), or one of its items
 * (SEQ[i], a compile-time index): the tuple of tuples Python
 * gives (lexicographic in the positions of SEQ), SEQ a compile-time tuple or range(N); at most
 * 720 of them. False if e is not one or qdc cannot evaluate it. */
bool sema_permutations(Sema *S, const Expr *e, Val *out) {
    if (e->kind == E_SUBSCRIPT) { /* list(list(itertools.permutations(range(3))))[0]: one arrangement (a parametrize value) */
        Val all, i;
        if (e->sub.index->kind == E_SLICE || !sema_permutations(S, e->sub.obj, &all)) return false;
        i = param_value(S, e->sub.index);
        if (!val_is_host_int(i)) return false;
        int64_t k = val_host_i64(i) < 0 ? val_host_i64(i) + all.tuple.n : val_host_i64(i); /* Python's negative index */
        if (k < 0 || k >= all.tuple.n) return false;
        return *out = all.tuple.items[k], true;
    }
    while (e->kind == E_CALL && e->call.fn->kind == E_NAME && e->call.args.n == 1 && !e->call.nkw && !find(S, e->call.fn->name) &&
           (!strcmp(e->call.fn->name, "list") || !strcmp(e->call.fn->name, "tuple")))
        e = e->call.args.items[0]; /* list(list(...)): the same items */
    const Expr *fn = e->kind == E_CALL ? e->call.fn : NULL;
    if (!fn || fn->kind != E_ATTR || fn->attr.obj->kind != E_NAME || strcmp(fn->attr.obj->name, "itertools") ||
        strcmp(fn->attr.name, "permutations") || e->call.nkw || e->call.args.n < 1 || e->call.args.n > 2)
        return false;
    const Expr *seq = e->call.args.items[0];
    Val items[8];
    int n = 0;
    if (seq->kind == E_CALL && seq->call.fn->kind == E_NAME && !strcmp(seq->call.fn->name, "range") && seq->call.args.n == 1 &&
        !find(S, "range")) {
        Val c = param_value(S, seq->call.args.items[0]);
        if (!val_is_host_integral(c) || val_host_i64(c) < 0 || val_host_i64(c) > 6) return false;
        n = (int)val_host_i64(c);
        for (int k = 0; k < n; k++) items[k] = val_typed_int(S, QT_I32, k, seq->span);
    } else {
        Val t = param_value(S, seq);
        if (t.kind != V_TUPLE || t.tuple.n > 6) return false;
        n = t.tuple.n;
        for (int k = 0; k < n; k++) items[k] = t.tuple.items[k];
    }
    int64_t r = n;
    if (e->call.args.n == 2) {
        Val c = param_value(S, e->call.args.items[1]);
        if (!val_is_host_integral(c) || val_host_i64(c) < 0) return false;
        r = val_host_i64(c);
    }
    VEC(Val) rows = {0};
    int idx[8];
    if (r <= n) { /* Python's algorithm order: positions in lexicographic order */
        for (int k = 0; k < r; k++) idx[k] = k;
        for (;;) {
            Val row = {.kind = V_TUPLE, .tuple = {ARENA_ARRAY(S->arena, Val, r ? r : 1), (int)r}};
            for (int k = 0; k < r; k++) row.tuple.items[k] = items[idx[k]];
            vec_push(&rows, row);
            int k = (int)r - 1; /* the next arrangement of r distinct positions */
            for (; k >= 0; k--) {
                int next = idx[k] + 1;
                for (;; next++) {
                    bool used = false;
                    for (int j = 0; j < k; j++) used |= idx[j] == next;
                    if (!used) break;
                }
                if (next < n) {
                    idx[k] = next;
                    for (int j = k + 1; j < r; j++) { /* the smallest unused positions after it */
                        int c = 0;
                        for (;; c++) {
                            bool used = false;
                            for (int q = 0; q < j; q++) used |= idx[q] == c;
                            if (!used) break;
                        }
                        idx[j] = c;
                    }
                    break;
                }
            }
            if (k < 0) break;
        }
    }
    *out = (Val){.kind = V_TUPLE, .tuple = {ARENA_ARRAY(S->arena, Val, rows.len ? rows.len : 1), rows.len}};
    for (int k = 0; k < rows.len; k++) out->tuple.items[k] = rows.items[k];
    vec_free(&rows);
    return true;
}

/* The list or tuple literal a module-level `NAME = [...]` assigns (the last such assignment before
 * the use), or NULL. */
static const Expr *module_list(Sema *S, const Expr *name) {
    const Expr *found = NULL;
    for (int k = 0; S->ast && k < S->ast->body.n; k++) {
        const Stmt *s = S->ast->body.stmts[k];
        if (s->span.src != name->span.src || s->span.off > name->span.off) break;
        if (s->kind != S_ASSIGN || s->assign.targets.n != 1 || s->assign.targets.items[0]->kind != E_NAME ||
            strcmp(s->assign.targets.items[0]->name, name->name))
            continue;
        const Expr *v = s->assign.value;
        found = v->kind == E_LIST || v->kind == E_TUPLE ? v : NULL;
    }
    return found;
}

/* Whether a module-level statement before `use` changes the list NAME in place after its literal
 * (NAME.append(...), NAME[i] = v, NAME += [...]): then its rows as written are not its rows. */
static bool list_changed(Sema *S, const Expr *name, const Expr *use) {
    bool changed = false;
    for (int k = 0; S->ast && k < S->ast->body.n; k++) {
        const Stmt *s = S->ast->body.stmts[k];
        if (s->span.src != use->span.src || s->span.off > use->span.off) break;
        const Expr *t = s->kind == S_ASSIGN && s->assign.targets.n == 1 ? s->assign.targets.items[0] : s->kind == S_AUGASSIGN ? s->aug.target : NULL;
        const Expr *c = s->kind == S_EXPR ? s->expr : NULL;
        if (t && t->kind == E_NAME && !strcmp(t->name, name->name)) changed = s->kind == S_AUGASSIGN; /* NAME = [...] again: from there */
        else if (t && t->kind == E_SUBSCRIPT && t->sub.obj->kind == E_NAME && !strcmp(t->sub.obj->name, name->name)) changed = true;
        else if (c && c->kind == E_CALL && c->call.fn->kind == E_ATTR && c->call.fn->attr.obj->kind == E_NAME &&
                 !strcmp(c->call.fn->attr.obj->name, name->name))
            changed = true;
    }
    return changed;
}

/* `a, b = CASES[k]` or `a, b = list(CASES)[k]` at module level, CASES a module-level list literal
 * of rows (tuples, or pytest.param(...)) that the script does not change in place, and the row
 * as a whole one qdc cannot compute (np.sin beside qd.sin): each target gets its item, as Python
 * unpacks the row, so the items qdc computes are known. False when v is not such a row. */
bool sema_unpack_row(Sema *S, const Expr *t, const Expr *v, Span sp) {
    if (S->hscope != &S->module || (t->kind != E_TUPLE && t->kind != E_LIST) || v->kind != E_SUBSCRIPT || v->sub.index->kind != E_INT)
        return false;
    const Expr *name = v->sub.obj;
    if (name->kind == E_CALL && name->call.fn->kind == E_NAME && (!strcmp(name->call.fn->name, "list") || !strcmp(name->call.fn->name, "tuple")) &&
        name->call.args.n == 1 && !name->call.nkw && !S->core->sema_lookup(S, name->call.fn->name))
        name = name->call.args.items[0];
    if (name->kind != E_NAME) return false;
    const Expr *lit = module_list(S, name);
    if (!lit || v->sub.index->i >= (uint64_t)lit->list.n || list_changed(S, name, v)) return false;
    const Expr *row = lit->list.items[v->sub.index->i];
    const Expr *const *items;
    int n;
    if (is_pytest_param(row)) items = (const Expr *const *)row->call.args.items, n = row->call.args.n;
    else if (row->kind == E_TUPLE || row->kind == E_LIST) items = (const Expr *const *)row->list.items, n = row->list.n;
    else return false;
    if (n != t->list.n) return false;
    for (int k = 0; k < n; k++)
        if (items[k]->kind == E_STARRED || t->list.items[k]->kind == E_STARRED) return false;
    for (int k = 0; k < n; k++) S->core->sema_module_value(S, t->list.items[k], items[k], sp);
    return true;
}

static void parse_values(Sema *S, Deco *d, const Expr *e) {
    d->nrows = -1;
    if (!e || contains_error(e) || arg_or_kw(d->deco, 99, "indirect")) return;
    const Expr *const *rows;
    int n;
    Val listed = {0};
    if (e->kind == E_LIST || e->kind == E_TUPLE) {
        rows = (const Expr *const *)e->list.items, n = e->list.n;
    } else if (e->kind == E_NAME) { /* VALUES = [...] at module level */
        listed = param_value(S, e);
        const Expr *lit = module_list(S, e); /* its rows as written when they are pytest.param(...) (their ids) */
        bool params = false;
        for (int k = 0; lit && k < lit->list.n; k++) params |= is_pytest_param(lit->list.items[k]);
        if (listed.kind == V_TUPLE && !params) lit = NULL;
        if (lit) { /* a list qdc does not evaluate as a whole (pytest.param rows): read its rows */
            rows = (const Expr *const *)lit->list.items, n = lit->list.n;
            e = lit;
        } else {
            if (listed.kind != V_TUPLE) return;
            rows = NULL, n = listed.tuple.n;
        }
    } else if (sema_permutations(S, e, &listed)) { /* list(itertools.permutations(range(3))) */
        rows = NULL, n = listed.tuple.n;
    } else if (!S->core->sema_is_host_expr(S, e)) { /* qd.types.primitive_types.all_types, [x for x in ...], range(3) ... */
        int mark = diag_quiet_begin();
        Val *items = NULL;
        n = 0;
        bool ok = sema_iter_items(S, e, &items, &n);
        if (diag_quiet_end(mark) || !ok) return;
        listed = (Val){.kind = V_TUPLE, .tuple = {items, n}};
        rows = NULL;
    } else {
        return;
    }
    d->nrows = n;
    d->vals = ARENA_ARRAY(S->arena, Val, (size_t)(n ? n : 1) * (size_t)d->nnames);
    d->spans = ARENA_ARRAY(S->arena, Span, (size_t)(n ? n : 1) * (size_t)d->nnames);
    d->ids = ARENA_ARRAY(S->arena, const char *, n ? n : 1);
    for (int r = 0; r < n; r++) {
        Val *row = &d->vals[r * d->nnames];
        Span *sp = &d->spans[r * d->nnames];
        const char *id = NULL;
        for (int k = 0; k < d->nnames; k++) row[k] = val_err(), sp[k] = e->span;
        if (!rows) { /* from a module constant */
            Val v = listed.tuple.items[r];
            if (d->nnames == 1 && !d->seq) row[0] = v;
            else if (v.kind == V_TUPLE && v.tuple.n == d->nnames)
                for (int k = 0; k < d->nnames; k++) row[k] = v.tuple.items[k];
        } else {
            const Expr *x = rows[r];
            const Expr *const *items = &x;
            int m = 1;
            if (is_pytest_param(x)) {
                items = (const Expr *const *)x->call.args.items, m = x->call.args.n;
                const Expr *ide = arg_or_kw(x, 99, "id");
                if (ide && ide->kind == E_STR && !ide->fstr) id = ide->str;
            } else if ((d->nnames > 1 || d->seq) && (x->kind == E_TUPLE || x->kind == E_LIST)) {
                items = (const Expr *const *)x->list.items, m = x->list.n;
            }
            if (m == d->nnames)
                for (int k = 0; k < m; k++) row[k] = param_value(S, items[k]), sp[k] = items[k]->span;
            else
                for (int k = 0; k < d->nnames; k++) sp[k] = x->span;
        }
        StrBuf b;
        sb_init(&b);
        if (id && *id) {
            Val iv = {.kind = V_STR, .path = id};
            sb_puts(&b, spell(S, iv, "id", r));
        } else {
            for (int k = 0; k < d->nnames; k++) sb_printf(&b, "%s%s", k ? "_" : "", spell(S, row[k], d->names[k].name, r));
        }
        d->ids[r] = arena_strdup(S->arena, b.data ? b.data : "");
        sb_free(&b);
    }
}

static bool defer_helper(Sema *S, const Stmt *s);

/* ---- Python functions returning one expression ---- */

const Expr *sema_pyfunc_return(const Stmt *def) {
    const StmtList *b = &def->def.body;
    int k = b->n > 1 && b->stmts[0]->kind == S_EXPR && b->stmts[0]->expr->kind == E_STR ? 1 : 0; /* a docstring */
    return b->n == k + 1 && b->stmts[k]->kind == S_RETURN ? b->stmts[k]->expr : NULL;
}

/* The scope a Python function (or a lambda host code calls) sees besides its parameters. */
static Scope *pyfunc_of(Sema *S, const Stmt *def) {
    Scope *py = S->core->sema_pyfunc_scope(S, def);
    if (py) return py;
    int k = S->core->sema_lambda_at(S, def); /* as sema_def_scope finds a lambda's */
    if (k >= 0) return S->lambdas.items[k].scope;
    die("V_PYFUNC %s without its scope", def->def.name);
}

/* A scope under the function's own with each parameter bound to its argument (or default);
 * NULL when a call passes what the function does not take (a TypeError in Python). */
static Scope *pyfunc_scope(Sema *S, const Expr *call, const Stmt *def) {
    int np = def->def.nparams;
    if (call->call.args.n > np) return NULL;
    Val *v = ARENA_ARRAY(S->arena, Val, np + 1);
    bool *set = ARENA_ARRAY(S->arena, bool, np + 1);
    for (int k = 0; k < call->call.args.n; k++) v[k] = S->core->sema_eval(S, call->call.args.items[k]), set[k] = true;
    for (int j = 0; j < call->call.nkw; j++) {
        int k = 0;
        while (k < np && (!call->call.kw[j].name || strcmp(def->def.params[k].name, call->call.kw[j].name))) k++;
        if (k == np || set[k]) return NULL;
        v[k] = S->core->sema_eval(S, call->call.kw[j].value), set[k] = true;
    }
    Scope *def_scope = pyfunc_of(S, def);
    Scope *sc = xcalloc(1, sizeof *sc), *caller_h = S->hscope, *caller = S->scope;
    sc->parent = def_scope;
    vec_push(&S->host_scopes, sc);
    S->hscope = def_scope, S->scope = NULL; /* defaults: evaluated where the function is defined */
    for (int k = 0; k < np; k++) {
        if (!set[k] && !def->def.params[k].dflt) { S->hscope = caller_h, S->scope = caller; return NULL; }
        if (!set[k]) v[k] = S->core->sema_eval(S, def->def.params[k].dflt);
        S->core->scope_bind(S, sc, def->def.params[k].name, v[k], def->def.params[k].span);
    }
    S->hscope = caller_h, S->scope = caller;
    return sc;
}

/* What may keep a call's scope after the call: a lambda or a function made in it (they see
 * its names), a kernel or qd.func defined or instantiated there (a snapshot scope pushed after
 * it). A mark of them before the call; scope_drop frees the scope when none appeared, so a
 * script's 100,000 calls (fib(24)) or 500,000 shape readings do not hold a scope each. */
typedef struct { int lambdas, pyfuncs, defs, scopes; } ScopeMark;
static ScopeMark scope_mark(Sema *S) { return (ScopeMark){S->lambdas.len, S->pyfuncs.len, S->defs.len, S->host_scopes.len}; }
static void scope_drop(Sema *S, Scope *sc, ScopeMark m) {
    if (S->lambdas.len != m.lambdas || S->pyfuncs.len != m.pyfuncs || S->defs.len != m.defs) return;
    if (S->host_scopes.len != m.scopes + 1 || S->host_scopes.items[m.scopes] != sc) return;
    S->host_scopes.len--;
    vec_free(&sc->b), free(sc);
}

/* sema_pyfunc_is_host reads the shape of `return EXPR` functions, without running them. A call
 * of a function whose shape is being read already (recursion, direct or mutual) adds nothing:
 * its arguments were checked, and its body is the one being read, so the outer reading decides
 * (without this, fib's shape would branch twice per level and never end). Each reading is a step
 * and one level of the depth budget (a chain of distinct functions), never a fixed cap. */
struct PyShape { const Stmt *def; struct PyShape *up; };

bool sema_pyfunc_is_host(Sema *S, const Expr *call, const Stmt *def) {
    for (int k = 0; k < call->call.args.n; k++)
        if (S->core->sema_is_host_expr(S, call->call.args.items[k])) return true;
    for (int k = 0; k < call->call.nkw; k++)
        if (S->core->sema_is_host_expr(S, call->call.kw[k].value)) return true;
    if (!sema_pyfunc_return(def)) { /* a body of several statements: whether qdc can run it (runaway recursion: the depth budget) */
        if (S->pyfunc_trying) return false; /* inside such a trial: the outer one decides (2**depth trials otherwise) */
        int mark = diag_quiet_begin();
        S->pyfunc_trying++;
        Val r = sema_pyfunc_call(S, call, def);
        S->pyfunc_trying--;
        return diag_quiet_end(mark) || r.kind == V_ERR;
    }
    for (struct PyShape *p = S->pyfunc_shape; p; p = p->up)
        if (p->def == def) return false; /* recursion: decided by the reading under way */
    if (!budget_charge(&S->budget, EB_STEPS, 1, call->span) || !budget_charge(&S->budget, EB_DEPTH, 1, call->span))
        return false; /* out of budget: the evaluation stops and budget_report says which */
    int mark = diag_quiet_begin(); /* the arguments of a call in a branch Python may not take (gcd(b, a % b) when b == 0) */
    ScopeMark sm = scope_mark(S);
    Scope *sc = pyfunc_scope(S, call, def);
    bool failed = diag_quiet_end(mark) > 0;
    bool host = !sc && !failed; /* a call that does not match: a run-time call (failed: the evaluation reports it) */
    if (sc) {
        struct PyShape me = {def, S->pyfunc_shape};
        Scope *h = S->hscope;
        S->hscope = sc, S->pyfunc_depth++, S->pyfunc_shape = &me;
        host = S->core->sema_is_host_expr(S, sema_pyfunc_return(def));
        S->hscope = h, S->pyfunc_depth--, S->pyfunc_shape = me.up;
        scope_drop(S, sc, sm);
    }
    budget_leave(&S->budget);
    return host;
}

Val sema_pyfunc_call(Sema *S, const Expr *call, const Stmt *def) {
    if (!budget_fits(&S->budget, EB_CALLS, 1, call->span) || !budget_fits(&S->budget, EB_DEPTH, 1, call->span)) return val_err();
    ScopeMark sm = scope_mark(S);
    Scope *sc = pyfunc_scope(S, call, def);
    if (!sc) return diag_error(call->span, QD2007, "this call does not match the parameters of '%s'", def->def.name), val_err();
    if (!budget_enter(&S->budget, call->span)) return val_err(); /* a call, one level deeper (QD2026: runaway recursion) */
    if (!sema_pyfunc_return(def)) {
        S->pyfunc_depth++;
        const Expr *outer = S->pyfunc_call;
        S->pyfunc_call = call;
        Val r = sema_pyfunc_body(S, def, sc);
        S->pyfunc_call = outer;
        S->pyfunc_depth--, budget_leave(&S->budget);
        scope_drop(S, sc, sm);
        if (r.kind == V_HOST)
            return diag_error(call->span, QD2062, "'%s' returns %s; qdc evaluates a helper function only when it can compute its result", def->def.name, r.path), val_err();
        return r;
    }
    Scope *h = S->hscope, *k = S->scope;
    if (S->scope) S->scope = sc; /* in a kernel: the function sees its own scope, not the kernel's locals */
    else S->hscope = sc;
    S->pyfunc_depth++;
    Val r = S->core->sema_eval(S, sema_pyfunc_return(def));
    S->hscope = h, S->scope = k, S->pyfunc_depth--;
    budget_leave(&S->budget);
    scope_drop(S, sc, sm);
    return r;
}

/* call, or when it calls a Python function whose body is `return EXPR`: EXPR with the call's
 * arguments and the function's names bound (E_VALUE), so a form qdc recognises by its shape
 * (qd.static(qd.grouped(make_range()))) is seen through the helper that builds it. */
const Expr *sema_pyfunc_expand(Sema *S, const Expr *call) {
    for (int depth = 0; call->kind == E_CALL && depth < 16; depth++) {
        int mark = diag_quiet_begin();
        Val f = S->core->sema_eval(S, call->call.fn);
        diag_quiet_end(mark);
        const Expr *ret = f.kind == V_PYFUNC ? sema_pyfunc_return(f.def) : NULL;
        Scope *sc = ret ? pyfunc_scope(S, call, f.def) : NULL;
        if (!sc) return call;
        Scope *h = S->hscope, *k = S->scope;
        if (S->scope) S->scope = sc;
        else S->hscope = sc;
        call = sema_bound_copy(S, ret);
        S->hscope = h, S->scope = k;
    }
    return call;
}

/* ---- pytest fixtures ---- */

/* @pytest.fixture / @pytest.fixture(params=[...], ...) (any root, as parametrize). */
static const Expr *fixture_deco(const Stmt *s) {
    if (s->def.decorators.n != 1) return NULL;
    const Expr *d = s->def.decorators.items[0], *f = d->kind == E_CALL ? d->call.fn : d;
    bool named = (f->kind == E_ATTR && !strcmp(f->attr.name, "fixture")) || (f->kind == E_NAME && !strcmp(f->name, "fixture"));
    return named ? d : NULL;
}

/* A module-level @pytest.fixture: its name denotes the value pytest passes to a test that asks
 * for it (the test bodies of a script run at module level): the function's result, each of its
 * parameters the fixture of that name defined before it, `request.param` the first of its
 * params (a pytest.param(v, id=...) row: v), as pytest's first parametrization. Evaluated where
 * it is defined; what qdc cannot evaluate stays the script's. */
static bool fixture_def(Sema *S, const Stmt *s) {
    const Expr *d = fixture_deco(s);
    if (!d || S->hscope != &S->module) return false;
    const char *why = "a pytest fixture whose value qdc cannot evaluate";
    Val none = {.kind = V_HOST, .path = why};
    S->core->sema_pyfunc_add(S, s, S->hscope);
    Scope *sc = xcalloc(1, sizeof *sc);
    sc->parent = S->hscope;
    vec_push(&S->host_scopes, sc);
    int mark = diag_quiet_begin();
    bool ok = true, later = false;
    for (int k = 0; k < s->def.nparams && ok; k++) {
        const Param *p = &s->def.params[k];
        Val v = none;
        if (!strcmp(p->name, "request")) {
            const Expr *ps = d->kind == E_CALL ? arg_or_kw(d, 99, "params") : NULL;
            if (ps && ps->kind == E_NAME) ps = module_list(S, ps);
            if (ps && (ps->kind == E_LIST || ps->kind == E_TUPLE) && ps->list.n) {
                const Expr *row = ps->list.items[0];
                if (is_pytest_param(row)) row = row->call.args.n == 1 ? row->call.args.items[0] : NULL;
                Val pv = row ? S->core->sema_eval(S, row) : none;
                const char *name = "param";
                v = sema_namespace(S, "FixtureRequest", &name, &pv, 1);
            }
        } else {
            Binding *b = S->core->scope_find(S->hscope, p->name);
            if (b) v = b->v;
            else if (p->dflt) v = S->core->sema_eval(S, p->dflt);
            else later = true; /* a name the test's parametrization binds (use_ndarray): pytest passes its value */
        }
        ok = v.kind != V_HOST && v.kind != V_ERR;
        S->core->scope_bind(S, sc, p->name, v, p->span);
    }
    Val r = none;
    if (ok) {
        const Expr *ret = sema_pyfunc_return(s);
        Scope *h = S->hscope;
        if (ret) S->hscope = sc, r = sema_pyfunc_result(S, ret), S->hscope = h; /* return qd.template(): an annotation */
        else if (sema_pyfunc_body_ok(s)) r = sema_pyfunc_body(S, s, sc);
    }
    if (diag_quiet_end(mark) || r.kind == V_ERR || r.kind == V_NONE || !S->core->sema_module_constant(S, &r)) r = none;
    S->core->scope_bind(S, S->hscope, s->def.name, r, s->def.name_span);
    bool pending = false;
    for (int k = 0; k < S->fixtures.len; k++) pending |= S->fixtures.items[k] == s;
    if (later && !pending) vec_push(&S->fixtures, s);
    return true;
}

/* The module bound NAME (the parametrize values of the test body, `use_ndarray = False`, come
 * after the fixtures in the script): a fixture that asks for NAME and could not be evaluated
 * where it is defined is evaluated again with it, as pytest passes a test's parameter to the
 * fixtures it requests. */
void sema_fixture_param(Sema *S, const char *name) {
    if (S->hscope != &S->module) return;
    for (int k = 0; k < S->fixtures.len; k++) {
        const Stmt *s = S->fixtures.items[k];
        bool takes = false;
        for (int j = 0; j < s->def.nparams; j++) takes |= !strcmp(s->def.params[j].name, name);
        Binding *b = takes ? S->core->scope_find(S->hscope, s->def.name) : NULL;
        if (b && b->v.kind == V_HOST) fixture_def(S, s);
    }
}

void sema_param_host_function(Sema *S, const Stmt *s) {
    int np = s->def.nparams;
    if (fixture_def(S, s)) return;
    if (!s->def.decorators.n && (sema_pyfunc_return(s) || sema_pyfunc_body_ok(s)) && strncmp(s->def.name, "test", 4)) {
        if (S->pyfunc_body) { /* defined by a call of a Python function: a closure over that call's scope, one per call */
            Stmt *c = ARENA_NEW(S->arena, Stmt);
            *c = *s, s = c;
        }
        S->core->sema_pyfunc_add(S, s, S->hscope);
        S->core->scope_bind(S, S->hscope, s->def.name, (Val){.kind = V_PYFUNC, .def = s}, s->def.name_span);
        return;
    }
    Val *bound = ARENA_ARRAY(S->arena, Val, np ? np : 1);
    Span *decl = ARENA_ARRAY(S->arena, Span, np ? np : 1);
    const char *what = arena_printf(S->arena, "a parameter of the host function '%s'", s->def.name);
    const char *unknown = arena_printf(S->arena, "a parameter of the host function '%s' whose parametrized value qdc cannot "
                                                 "evaluate", s->def.name);
    Deco decos[8];
    int nd = 0;
    for (int k = 0; k < s->def.decorators.n && nd < (int)ARRAY_LEN(decos); k++) {
        const Expr *e = s->def.decorators.items[k];
        if (!is_parametrize(e)) continue;
        Deco *d = &decos[nd];
        *d = (Deco){.deco = e};
        if (!parse_names(d, s, arg_or_kw(e, 0, "argnames"))) continue;
        parse_values(S, d, arg_or_kw(e, 1, "argvalues"));
        nd++;
    }
    if (!nd && defer_helper(S, s)) return;
    bool pytest = S->hscope == &S->module && !strncmp(s->def.name, "test", 4);
    long combos = 1;
    for (int k = 0; k < nd; k++) combos *= decos[k].nrows > 0 ? decos[k].nrows : 1;
    if (combos > MAX_COMBOS)
        for (int k = 0; k < nd; k++) decos[k].nrows = -1;
    if (combos > MAX_COMBOS) combos = 1;
    /* pytest's order: the decorator nearest the def varies slowest and comes first in the id */
    for (long c = 0; c < combos; c++) {
        for (int k = 0; k < np; k++) bound[k] = (Val){.kind = V_HOST, .path = what}, decl[k] = s->def.params[k].span;
        for (int k = 0; k < np && pytest; k++) { /* pytest passes no argument for a parameter with a default */
            const Expr *dflt = s->def.params[k].dflt;
            Val v = dflt ? param_value(S, dflt) : val_err();
            if (v.kind != V_ERR) bound[k] = v, decl[k] = dflt->span;
        }
        StrBuf id;
        sb_init(&id);
        long rest = c;
        int *rowof = (int[8]){0};
        for (int k = 0; k < nd; k++) { /* the topmost decorator varies fastest */
            int n = decos[k].nrows > 0 ? decos[k].nrows : 1;
            rowof[k] = (int)(rest % n), rest /= n;
        }
        for (int k = nd - 1; k >= 0; k--) {
            Deco *d = &decos[k];
            if (d->nrows <= 0) { /* values unknown (or an empty list: pytest skips the test) */
                for (int j = 0; j < d->nnames; j++)
                    if (d->names[j].index >= 0) {
                        bound[d->names[j].index] = (Val){.kind = V_HOST, .path = unknown};
                        decl[d->names[j].index] = d->deco->span;
                    }
                continue;
            }
            int r = rowof[k];
            sb_printf(&id, "%s%s", id.len ? "_" : "", d->ids[r]);
            for (int j = 0; j < d->nnames; j++) {
                int pi = d->names[j].index;
                if (pi < 0) continue;
                Val v = d->vals[r * d->nnames + j];
                bound[pi] = v.kind == V_ERR ? (Val){.kind = V_HOST, .path = unknown} : v;
                decl[pi] = d->spans[r * d->nnames + j];
            }
        }
        S->core->sema_host_function_once(S, s, bound, decl, id.len ? id.data : NULL, c == 0);
        sb_free(&id);
    }
}

/* ---- `if` in a host function's body ---- */

/* A compile-time value of a host condition, or V_ERR; never a diagnostic. */
static Val cond_atom(Sema *S, const Expr *e) {
    if (e->kind == E_ATTR && !strcmp(e->attr.name, "arch")) { /* qd.lang.impl.current_cfg().arch, qd.cfg.arch: the compile's */
        const Expr *o = e->attr.obj;
        const char *p = o->kind == E_CALL && !o->call.args.n ? S->core->sema_path(S, o->call.fn) : S->core->sema_path(S, o);
        if (S->arch && p && (!strcmp(p, "qd.lang.impl.current_cfg") || !strcmp(p, "qd.impl.current_cfg") || (o->kind != E_CALL && !strcmp(p, "qd.cfg"))))
            return (Val){.kind = V_NS, .path = arena_printf(S->arena, "qd.%s", S->arch)};
        if (p && (!strcmp(p, "qd.cfg") || !strcmp(p, "qd.lang.impl.current_cfg") || !strcmp(p, "qd.impl.current_cfg"))) return val_err();
    }
    if (e->kind == E_ATTR || e->kind == E_NAME) { /* qd.ndarray, qd.f32, a bound name */
        const char *p = e->kind == E_ATTR ? S->core->sema_path(S, e) : NULL;
        if (p && !strncmp(p, "qd.", 3)) {
            QdType t = strchr(p + 3, '.') ? QT_VOID : qt_from_name(p + 3);
            return t != QT_VOID ? (Val){.kind = V_TYPE, .type = t} : (Val){.kind = V_NS, .path = p};
        }
        if (e->kind == E_ATTR) return val_err();
        Binding *b = find(S, e->name);
        if (!b) return val_err();
        ValKind k = b->v.kind;
        if (val_is_host_integral(b->v) || k == V_TYPE || k == V_STR || k == V_NONE ||
            (k == V_NS && !strncmp(b->v.path, "qd.", 3)))
            return b->v;
        return val_err();
    }
    if (e->kind == E_INT || e->kind == E_BOOL || e->kind == E_NONE || (e->kind == E_STR && !e->fstr)) return S->core->sema_eval(S, e);
    return val_err();
}

static int truth(Val v) {
    switch (v.kind) {
    case V_EXPR: return val_host_u64(v) != 0;
    case V_NONE: return 0;
    case V_STR: return *v.path != 0;
    case V_TYPE: case V_NS: return 1;
    default: return -1;
    }
}

/* 1 equal, 0 not, -1 unknown (== and `is` agree on these values: types and namespaces are
 * singletons, strings and small integers compared by value). */
static int same(Val a, Val b) {
    if (a.kind == V_ERR || b.kind == V_ERR) return -1;
    if (a.kind != b.kind) return 0;
    switch (a.kind) {
    case V_EXPR: return val_host_u64(a) == val_host_u64(b);
    case V_NONE: return 1;
    case V_STR: return !strcmp(a.path, b.path);
    case V_NS: return !strcmp(!strcmp(a.path, "qd.cpu") ? "qd.x64" : a.path, !strcmp(b.path, "qd.cpu") ? "qd.x64" : b.path);
    case V_TYPE: return a.type == b.type;
    default: return -1;
    }
}

/* Any other condition whose operands are compile-time values (i < n, len(s) > 2, "x" in name):
 * evaluated quietly, with Python's truth of the result; -1 when qdc cannot. */
static int eval_truth(Sema *S, const Expr *e) {
    if (S->core->sema_is_host_expr(S, e)) return -1;
    int mark = diag_quiet_begin();
    Val v = S->core->sema_eval(S, e);
    if (diag_quiet_end(mark) || v.kind == V_ERR) return -1;
    if (v.kind == V_TUPLE) return v.tuple.n > 0;
    if (v.kind == V_DICT) return v.dict.n > 0;
    if (val_is_host_float(v)) return val_host_f64(v) != 0;
    return v.kind == V_EXPR && !val_is_host_scalar(v) ? -1 : truth(v);
}

static int cond_value(Sema *S, const Expr *e) {
    switch (e->kind) {
    case E_UNARY: {
        if (e->op != T_KW_NOT) return -1;
        int v = cond_value(S, e->un.a);
        return v < 0 ? -1 : !v;
    }
    case E_BOOLOP: {
        int and = e->op == T_KW_AND;
        for (int k = 0; k < e->list.n; k++) {
            int v = cond_value(S, e->list.items[k]);
            if (v < 0) return -1;
            if (v != and) return v; /* short-circuit */
        }
        return and;
    }
    case E_COMPARE: {
        int op = e->cmp.ops[0];
        if (e->cmp.items.n != 2 || (op != T_EQ && op != T_NE && op != T_KW_IS && op != T_KW_NOT && op != T_KW_IN && op != CMP_NOT_IN))
            return eval_truth(S, e);
        const Expr *rhs = e->cmp.items.items[1];
        if ((op == T_KW_IN || op == CMP_NOT_IN) && (rhs->kind == E_TUPLE || rhs->kind == E_LIST)) { /* dtype in (qd.f16, qd.f32) */
            Val a = cond_atom(S, e->cmp.items.items[0]);
            int found = 0;
            for (int k = 0; k < rhs->list.n && !found; k++) {
                int eq = same(a, cond_atom(S, rhs->list.items[k]));
                if (eq < 0 || (val_is_host_scalar(a) && eq == 0 && !qt_is_integral(val_host_type(a)))) return eval_truth(S, e);
                found = eq;
            }
            return op == T_KW_IN ? found : !found;
        }
        if (op == T_KW_IN || op == CMP_NOT_IN) return eval_truth(S, e); /* "x" in name, k in (a, b) of names */
        Val a = cond_atom(S, e->cmp.items.items[0]), b = cond_atom(S, e->cmp.items.items[1]);
        int eq = same(a, b);
        if (eq < 0) return op == T_EQ || op == T_NE ? eval_truth(S, e) : -1;
        if ((op == T_KW_IS || op == T_KW_NOT) && a.kind == V_EXPR && b.kind != V_NONE) return -1; /* `is` on integers: identity */
        return op == T_EQ || op == T_KW_IS ? eq : op == T_NE || op == T_KW_NOT ? !eq : -1;
    }
    default: {
        int t = truth(cond_atom(S, e));
        return t >= 0 ? t : eval_truth(S, e);
    }
    }
}

/* Every name a block binds (assignments, definitions, imports, host statements, nested ifs). */
static void bind_block_host(Sema *S, const StmtList *l, const char *what) {
    for (int k = 0; k < l->n; k++) {
        const Stmt *s = l->stmts[k];
        switch (s->kind) {
        case S_ASSIGN:
            for (int j = 0; j < s->assign.targets.n; j++) S->core->sema_bind_host(S, s->assign.targets.items[j], what);
            break;
        case S_ANNASSIGN: S->core->sema_bind_host(S, s->ann.target, what); break;
        case S_AUGASSIGN: S->core->sema_bind_host(S, s->aug.target, what); break;
        case S_HOST:
            for (int j = 0; j < s->host.names.n; j++) S->core->sema_bind_host(S, s->host.names.items[j], what);
            break;
        case S_IF: bind_block_host(S, &s->if_.then, what), bind_block_host(S, &s->if_.els, what); break;
        case S_FOR: S->core->sema_bind_host(S, s->for_.target, what), bind_block_host(S, &s->for_.body, what); break;
        case S_WHILE: bind_block_host(S, &s->while_.body, what); break;
        case S_DEF: case S_CLASS: case S_IMPORT: {
            const char *n = s->kind == S_DEF ? s->def.name : s->kind == S_CLASS ? s->class_.name : s->import.alias;
            if (!n) break;
            Expr *e = ARENA_NEW(S->arena, Expr);
            e->kind = E_NAME, e->span = s->kind == S_DEF ? s->def.name_span : s->kind == S_CLASS ? s->class_.name_span : s->span;
            e->name = n;
            S->core->sema_bind_host(S, e, what);
            break;
        }
        default: break;
        }
    }
}

/* Python runs the branch the condition selects: when qdc knows the condition (compile-time
 * values: parametrized parameters, module constants, qd types and namespaces, compared with
 * ==, !=, is, is not, combined with not/and/or), it evaluates that branch's block like the
 * rest of the body; otherwise every name either branch binds is a run-time value and neither
 * branch's kernels are compiled. */
int sema_host_cond(Sema *S, const Expr *e) { return cond_value(S, e); }

/* A break or continue of the enclosing loop in l (not one of a loop nested in it). */
static bool block_jumps(const StmtList *l) {
    for (int k = 0; k < l->n; k++) {
        const Stmt *s = l->stmts[k];
        if (s->kind == S_BREAK || s->kind == S_CONTINUE) return true;
        if (s->kind == S_IF && (block_jumps(&s->if_.then) || block_jumps(&s->if_.els))) return true;
    }
    return false;
}

void sema_host_if(Sema *S, const Stmt *s) {
    int v = cond_value(S, s->if_.cond);
    if (v < 0 && S->host_loops && (block_jumps(&s->if_.then) || block_jumps(&s->if_.els))) S->host_jump = HJ_UNKNOWN;
    if (v < 0) {
        sema_pyfunc_unknown_return(S, &s->if_.then, "from inside an if statement whose condition qdc cannot evaluate");
        sema_pyfunc_unknown_return(S, &s->if_.els, "from inside an if statement whose condition qdc cannot evaluate");
        bind_block_host(S, &s->if_.then, "set in an if statement whose condition qdc cannot evaluate");
        bind_block_host(S, &s->if_.els, "set in an if statement whose condition qdc cannot evaluate");
        return;
    }
    if (s->if_.tape) S->up->sema_ad_tape(S, s);
    S->raises += s->if_.raises;
    S->core->sema_module_body(S, v ? &s->if_.then : &s->if_.els);
    S->raises -= s->if_.raises;
}

/* ---- calls of host helper functions ---- */

/* A host function with parameters (not a module-level pytest test, whose arguments come from the
 * test runner) is not evaluated where it is defined but at each call qdc evaluates
 * (sema_helper_call). As in Python, a function no call reaches never runs: the kernels it would
 * define do not exist (sema_check_hollow names them when nothing else is compiled). */
/* A statement of l (its loops' and ifs' blocks included, not nested definitions) that calls
 * NAME(...) directly: the script runs the function itself. */
static bool calls_by_name(const StmtList *l, const char *name) {
    for (int k = 0; k < l->n; k++) {
        const Stmt *s = l->stmts[k];
        const Expr *e = s->kind == S_EXPR ? s->expr : s->kind == S_ASSIGN ? s->assign.value : NULL;
        if (e && e->kind == E_CALL && e->call.fn->kind == E_NAME && !strcmp(e->call.fn->name, name)) return true;
        if ((s->kind == S_FOR && calls_by_name(&s->for_.body, name)) || (s->kind == S_WHILE && calls_by_name(&s->while_.body, name)) ||
            (s->kind == S_IF && (calls_by_name(&s->if_.then, name) || calls_by_name(&s->if_.els, name))))
            return true;
    }
    return false;
}

/* def: an undecorated function the script's own top level calls by name (test_scan_for_dtype(qd.i32,
 * 512) in the module body): a helper like any other, not a test pytest collects. */
bool sema_script_calls(Sema *S, const Stmt *def) {
    return S->hscope == &S->module && S->ast && !def->def.decorators.n && calls_by_name(&S->ast->body, def->def.name);
}

static bool defer_helper(Sema *S, const Stmt *s) {
    bool collected = S->hscope == &S->module && !strncmp(s->def.name, "test", 4) && !sema_script_calls(S, s); /* pytest calls it */
    if (!s->def.nparams || collected || !S->ast) return false;
    S->core->scope_bind(S, S->hscope, s->def.name, (Val){.kind = V_HOST, .path = "a Python function (not a qd.func)"}, s->def.name_span);
    SemaHelper h = {.def = s, .scope = S->hscope, .prefix = S->prefix};
    vec_push(&S->helpers, h);
    return true;
}

/* Evaluates the helper's body for one call (once per distinct combo); what it returns. */
static Val run_helper(Sema *S, SemaHelper *h, const Val *bound, const Span *decl, const char *combo) {
    for (int k = 0; k < h->combos.len; k++)
        if (!strcmp(h->combos.items[k], combo ? combo : "")) return h->rets.items[k];
    vec_push(&h->combos, combo ? combo : "");
    vec_push(&h->rets, val_err());
    if (!budget_enter(&S->budget, h->def->span)) return val_err(); /* a call, one level deeper (QD2026: runaway recursion) */
    const Stmt *def = h->def;
    Scope *hscope = S->hscope, *bind_to = S->bind_to;
    const char *prefix = S->prefix;
    int idx = h->combos.len - 1;
    ptrdiff_t hi = h - S->helpers.items; /* evaluating the body may add helpers (and move the vector) */
    S->hscope = h->scope, S->prefix = h->prefix, S->bind_to = NULL, S->helper_depth++;
    S->core->sema_host_function_once(S, def, bound, decl, combo, false);
    Val ret = S->host_ret;
    S->hscope = hscope, S->prefix = prefix, S->bind_to = bind_to, S->helper_depth--, S->host_ret = val_err();
    budget_leave(&S->budget);
    S->helpers.items[hi].rets.items[idx] = ret;
    return ret;
}

/* A helper's argument: as a parametrized value, and a numpy scalar type (np.float32) as the qd
 * type it converts to, the dtype of the arrays the helper makes (with_data_type(np.float32)). */
static Val helper_arg(Sema *S, const Expr *e) {
    Val arr;
    Binding *b = e->kind == E_NAME ? find(S, e->name) : NULL;
    if (b && b->v.kind == V_HOSTARRAY) return b->v; /* an array the script made: its dtype and ndim, as a kernel call takes it */
    if (!b && sema_np_static(S, e, &arr) && sema_np_known(arr)) return arr; /* helper(np.array([2**2 - 1, 7])): its elements too */
    if (!b && e->kind == E_CALL && S->up->sema_host_array(S, e, &arr)) return arr; /* helper(np.zeros(4, dtype=np.float32)) */
    if (e->kind == E_ATTR && e->attr.obj->kind == E_NAME && (!strcmp(e->attr.obj->name, "np") || !strcmp(e->attr.obj->name, "numpy"))) {
        QdType t = S->up->sema_numpy_dtype(S, e);
        if (t != QT_VOID) return (Val){.kind = V_TYPE, .type = t};
    }
    return param_value(S, e);
}

/* A helper's argument in its combo: as spell(), a tuple as its items joined by _ (t2_3 for
 * (2, 3)), so that calls with different tuples are evaluated (and named) apart. */
static void helper_spell(Sema *S, StrBuf *b, Val v, const char *name) {
    if (v.kind == V_FUNC && v.def && v.def->span.src && !strcmp(v.def->def.name, "<lambda>")) { /* a lambda: where it is, so each is evaluated apart */
        uint32_t line, col;
        source_line_col(v.def->span.src, v.def->span.off, &line, &col);
        return (void)sb_puts(b, arena_printf(S->arena, "%s_l%uc%u", name, line, col));
    }
    if (v.kind == V_HOSTARRAY) return S->up->sema_hostarray_spell(b, v); /* f32_2d: calls with other arrays run apart */
    if (v.kind != V_TUPLE) return (void)sb_puts(b, spell(S, v, name, 0));
    sb_putc(b, 't');
    for (int k = 0; k < v.tuple.n; k++) {
        if (k) sb_putc(b, '_');
        helper_spell(S, b, v.tuple.items[k], name);
    }
}

/* helper(args...): each parameter is bound to its argument (or default) when qdc evaluates it
 * exactly (the values @pytest.mark.parametrize accepts); the others stay run-time values. The
 * call's values spell the entry names of the kernels the body defines: HELPER__ARGS__KERNEL. */
/* obj.m(args), m a @qd.kernel method of obj's undecorated class (or a base of it): Quadrants binds
 * the kernel to its instance only for a @qd.data_oriented class, and raises at the call
 * (kernel_impl.py's QuadrantsSyntaxError). Not in a block the script expects to raise. */
static bool undecorated_kernel_method(Sema *S, const Expr *call, const SemaObject *o) {
    const Expr *fn = call->call.fn;
    for (int ci = o->cls; ci >= 0 && !S->raises; ci = S->classes.items[ci].base - 1) {
        const SemaClass *c = &S->classes.items[ci];
        if (!c->plain) return false;
        const StmtList *body = &c->cls->class_.body;
        for (int k = body->n - 1; k >= 0; k--) {
            const Stmt *d = body->stmts[k];
            if (d->kind != S_DEF || strcmp(d->def.name, fn->attr.name)) continue;
            for (int j = 0; j < d->def.decorators.n; j++) {
                const Expr *e = d->def.decorators.items[j];
                const char *p = S->core->sema_path(S, e->kind == E_CALL ? e->call.fn : e);
                if (!p || strcmp(p, "qd.kernel")) continue;
                diag_error(fn->span, QD2069, "Please decorate class %s with @qd.data_oriented (kernel '%s' is its method, called here)",
                           S->classes.items[o->cls].cls->class_.name, fn->attr.name);
                diag_note(c->cls->class_.name_span, "'%s' is defined here without @qd.data_oriented", c->cls->class_.name);
                return true;
            }
            return false; /* the most derived definition of the name decides */
        }
        if (!c->base) break;
    }
    return false;
}

bool sema_helper_call(Sema *S, const Expr *call, const Binding *b) {
    SemaHelper *h = NULL;
    bool apply = call->call.fn->kind == E_ATTR; /* F.apply(args), b F's binding */
    if (!b) { /* obj.m(args): b NULL, obj a data-oriented instance (sema.c's host_calls) */
        const Expr *fn = call->call.fn;
        Binding *ob = fn->kind == E_ATTR && fn->attr.obj->kind == E_NAME ? find(S, fn->attr.obj->name) : NULL;
        for (int k = S->helpers.len - 1; ob && ob->v.kind == V_OBJECT && k >= 0 && !h; k--)
            if (S->helpers.items[k].self == ob->v.obj && !strcmp(S->helpers.items[k].def->def.name, fn->attr.name)) h = &S->helpers.items[k];
        if (!h && ob && ob->v.kind == V_OBJECT && undecorated_kernel_method(S, call, ob->v.obj)) return true;
        apply = false;
    }
    for (int k = S->helpers.len - 1; b && k >= 0 && !h; k--) {
        const SemaHelper *c = &S->helpers.items[k];
        Span at = apply ? c->cls : c->def->def.name_span;
        if (apply && !c->apply) continue;
        if (at.off == b->decl.off && at.src == b->decl.src) /* its name, or a name bound to it (sema_helper_alias) */
            h = &S->helpers.items[k];
    }
    if (!h) return false;
    const Stmt *s = h->def;
    int skip = h->apply; /* forward(ctx, ...): ctx is torch's, a run-time value */
    int np = s->def.nparams;
    Val *bound = ARENA_ARRAY(S->arena, Val, np);
    Span *decl = ARENA_ARRAY(S->arena, Span, np);
    bool *set = ARENA_ARRAY(S->arena, bool, np);
    const char *what = arena_printf(S->arena, "a parameter of the host function '%s' whose argument qdc cannot evaluate", s->def.name);
    for (int k = 0; k < np; k++) bound[k] = val_err(), decl[k] = s->def.params[k].span;
    int npos = s->def.kwonly ? s->def.kwonly - 1 : np; /* def f(a, *, b): b only by keyword */
    bool runtime = call->call.args.n + skip > npos; /* a TypeError when the script runs */
    if (skip) set[0] = true;
    for (int k = 0; k < call->call.args.n && k + skip < npos; k++)
        bound[k + skip] = helper_arg(S, call->call.args.items[k]), decl[k + skip] = call->call.args.items[k]->span, set[k + skip] = true;
    for (int j = 0; j < call->call.nkw; j++) {
        const Keyword *kw = &call->call.kw[j];
        if (!kw->name) { /* **d: a dict qdc evaluates passes its str keys as keywords */
            Binding *db = kw->value->kind == E_NAME ? find(S, kw->value->name) : NULL;
            Val d = db ? db->v : val_err();
            for (int i = 0; d.kind == V_DICT && i < d.dict.n && !runtime; i++) {
                int k = 0;
                while (d.dict.keys[i].kind == V_STR && k < np && strcmp(s->def.params[k].name, d.dict.keys[i].path)) k++;
                if (d.dict.keys[i].kind != V_STR || k == np || set[k]) runtime = true;
                else bound[k] = d.dict.vals[i], decl[k] = kw->value->span, set[k] = true;
            }
            runtime |= d.kind != V_DICT;
            continue;
        }
        int k = 0;
        while (k < np && strcmp(s->def.params[k].name, kw->name)) k++;
        if (k == np || set[k]) { runtime = true; continue; } /* a TypeError when the script runs */
        bound[k] = helper_arg(S, kw->value), decl[k] = kw->value->span, set[k] = true;
    }
    Scope *caller = S->hscope;
    S->hscope = h->scope; /* defaults: evaluated where the function is defined */
    for (int k = 0; k < np; k++)
        if (!set[k] && s->def.params[k].dflt) bound[k] = param_value(S, s->def.params[k].dflt), decl[k] = s->def.params[k].dflt->span;
    S->hscope = caller;
    StrBuf id;
    sb_init(&id);
    bool any = false;
    for (int k = 0; k < np; k++) {
        if (runtime) bound[k] = val_err();
        any |= bound[k].kind != V_ERR;
        sb_puts(&id, k ? "_" : "");
        if (bound[k].kind == V_ERR) sb_puts(&id, s->def.params[k].name);
        else helper_spell(S, &id, bound[k], s->def.params[k].name);
        if (bound[k].kind == V_ERR) bound[k] = (Val){.kind = V_HOST, .path = what};
    }
    const char *combo = any ? arena_strdup(S->arena, id.data) : NULL;
    sb_free(&id);
    Val ret = run_helper(S, h, bound, decl, combo);
    S->helper_call = call, S->helper_ret = ret;
    return true;
}

/* `t = f` (module level or a host function), f a host helper function: as in Python, t names the
 * same function, so a call t(args) runs f's body (sema_helper_call finds it by where f is
 * defined, the binding's decl); `t = F.apply`, F a torch.autograd.Function subclass: t runs F's
 * forward. False when v is neither. */
bool sema_helper_alias(Sema *S, const Expr *t, const Expr *v, Span sp) {
    (void)sp;
    bool apply = v->kind == E_ATTR && v->attr.obj->kind == E_NAME && !strcmp(v->attr.name, "apply");
    Binding *hb = v->kind == E_NAME ? S->core->sema_lookup(S, v->name) : apply ? S->core->sema_lookup(S, v->attr.obj->name) : NULL;
    if (t->kind != E_NAME || !hb || hb->v.kind != V_HOST) return false;
    for (int k = S->helpers.len - 1; k >= 0; k--) {
        const SemaHelper *h = &S->helpers.items[k];
        Span at = apply ? h->cls : h->def->def.name_span;
        if ((apply && !h->apply) || at.off != hb->decl.off || at.src != hb->decl.src) continue;
        S->core->scope_bind(S, BIND_SCOPE(S), t->name, hb->v, h->def->def.name_span);
        return true;
    }
    return false;
}

/* class F(torch.autograd.Function) with a @staticmethod forward(ctx, ...): F.apply(args) runs
 * forward with a run-time ctx first and the call's arguments after it (torch's rule), so the
 * kernels it launches are instantiated from those arguments. False when cls is no such class. */
bool sema_autograd_class(Sema *S, const Stmt *cls) {
    if (!cls->class_.base || strcmp(cls->class_.base, "torch.autograd.Function")) return false;
    const Stmt *fwd = NULL;
    for (int k = 0; k < cls->class_.body.n; k++) {
        const Stmt *d = cls->class_.body.stmts[k];
        if (d->kind == S_DEF && d->def.host && !strcmp(d->def.name, "forward") && d->def.nparams >= 1) fwd = d;
    }
    S->core->scope_bind(S, BIND_SCOPE(S), cls->class_.name, (Val){.kind = V_HOST, .path = "a Python class (a torch.autograd.Function)"},
               cls->class_.name_span);
    if (!fwd) return true;
    SemaHelper h = {.def = fwd, .scope = S->hscope, .prefix = S->prefix, .apply = true, .cls = cls->class_.name_span};
    vec_push(&S->helpers, h);
    return true;
}

/* The first kernel a host function's body defines (nested functions included), or NULL. */
static const Stmt *first_kernel_in(const StmtList *l) {
    for (int k = 0; k < l->n; k++) {
        const Stmt *s = l->stmts[k];
        const Stmt *found = NULL;
        switch (s->kind) {
        case S_DEF:
            for (int d = 0; d < s->def.decorators.n; d++) {
                const Expr *e = s->def.decorators.items[d];
                if (e->kind == E_CALL) e = e->call.fn;
                if (e->kind == E_ATTR && !strcmp(e->attr.name, "kernel")) return s;
            }
            if (s->def.host) found = first_kernel_in(&s->def.body);
            break;
        case S_IF: found = first_kernel_in(&s->if_.then); if (!found) found = first_kernel_in(&s->if_.els); break;
        case S_FOR: found = first_kernel_in(&s->for_.body); break;
        case S_WHILE: found = first_kernel_in(&s->while_.body); break;
        default: break;
        }
        if (found) return found;
    }
    return NULL;
}

/* A host function with parameters that no evaluated call reached and that would define a kernel:
 * the kernel and the function (for sema_check_hollow's message); false when there is none. */
bool sema_uncalled_helper_kernel(Sema *S, const Stmt **kernel, const Stmt **fn) {
    for (int k = 0; k < S->helpers.len; k++) {
        const SemaHelper *h = &S->helpers.items[k];
        if (h->combos.len || !(*kernel = first_kernel_in(&h->def->def.body))) continue;
        *fn = h->def;
        return true;
    }
    return false;
}

/* ---- loops in host code: for, while, break, continue ---- */

/* iterations of one host loop qdc evaluates (qdc-lang(7)): 64 unless --eval-limit=loop=N */
#define MAX_HOST_ITERS ((int)S->budget.limit[EB_LOOP])

/* The values a host loop iterates over, when qdc knows them: range() of compile-time integers,
 * a tuple or list of values @pytest.mark.parametrize accepts, a name bound to one, or any other
 * compile-time iterable (zip, enumerate, a comprehension, a string ...); -1: unknown. More than
 * MAX_HOST_ITERS values: MAX_HOST_ITERS + 1, *out holding the first MAX_HOST_ITERS (a loop that
 * ends early, by break or return, is still evaluated). */
/* range(...) of compile-time ints: its start, stop and step, and how many values it has (at
 * most MAX_HOST_ITERS + 1: a loop that needs more is unknown); false when it is not one. */
static bool range_args(Sema *S, const Expr *it, int64_t a[3], int *n) {
    if (it->kind != E_CALL || it->call.fn->kind != E_NAME || strcmp(it->call.fn->name, "range") || it->call.nkw ||
        it->call.args.n < 1 || it->call.args.n > 3)
        return false;
    a[0] = 0, a[1] = 0, a[2] = 1;
    int na = it->call.args.n;
    for (int k = 0; k < na; k++) {
        Val v = param_value(S, it->call.args.items[k]);
        if (!val_host_int(v, &a[na == 1 ? 1 : k])) return *n = -1, true;
    }
    if (!a[2]) return *n = -1, true;
    __int128 lo = a[0], hi = a[1], st = a[2]; /* Python ints: range(-2**63, 2**63 - 1) must not overflow */
    __int128 wide = st > 0 ? (hi > lo ? (hi - lo + st - 1) / st : 0) : (lo > hi ? (lo - hi - st - 1) / -st : 0);
    *n = wide > MAX_HOST_ITERS ? MAX_HOST_ITERS + 1 : (int)wide;
    return true;
}

/* Value k of such a range: a Python int (i32 when it fits). */
static Val range_item(Sema *S, const Expr *it, const int64_t a[3], int64_t k) {
    Val v = val_int_typed(S, QT_I64, a[0] + k * a[2], it->span); /* a Python int: exact in arithmetic */
    S->core->sema_module_constant(S, &v);
    return v;
}

/* The values of a loop's iterable other than range(...) (sema_host_for makes those one by one). */
static int loop_values(Sema *S, const Expr *it, Val **out) {
    if (it->kind == E_TUPLE || it->kind == E_LIST) {
        int n = it->list.n > MAX_HOST_ITERS ? MAX_HOST_ITERS : it->list.n;
        *out = ARENA_ARRAY(S->arena, Val, n ? n : 1);
        for (int k = 0; k < n; k++)
            if (((*out)[k] = param_value(S, it->list.items[k])).kind == V_ERR) return -1;
        return it->list.n > MAX_HOST_ITERS ? MAX_HOST_ITERS + 1 : n;
    }
    Val v = it->kind == E_NAME ? param_value(S, it) : val_err();
    int n = -1;
    if (v.kind == V_TUPLE) {
        *out = v.tuple.items, n = v.tuple.n;
    } else if (!S->core->sema_iter_is_host(S, it)) {
        int mark = diag_quiet_begin();
        if (!sema_iter_items(S, it, out, &n)) n = -1;
        if (diag_quiet_end(mark)) n = -1;
    }
    return n > MAX_HOST_ITERS ? MAX_HOST_ITERS + 1 : n;
}

static bool bind_target(Sema *S, const Expr *t, Val v) {
    if (t->kind == E_NAME) return S->core->scope_bind(S, S->bind_to ? S->bind_to : S->hscope, t->name, v, t->span), true;
    if ((t->kind == E_TUPLE || t->kind == E_LIST) && v.kind == V_TUPLE && v.tuple.n == t->list.n) {
        for (int k = 0; k < t->list.n; k++)
            if (!bind_target(S, t->list.items[k], v.tuple.items[k])) return false;
        return true;
    }
    return false;
}

/* One evaluation of a host loop's body; false when the loop ends here (a break, or a jump qdc
 * cannot decide: *unknown). */
static bool loop_body(Sema *S, const StmtList *body, bool *unknown, Span at) {
    *unknown = false;
    if (!budget_charge(&S->budget, EB_STEPS, 1, at)) return false; /* nested loops multiply: one budget for all */
    S->host_loops++;
    S->core->sema_module_body(S, body);
    S->host_loops--;
    int jump = S->host_jump;
    S->host_jump = HJ_NONE;
    *unknown = jump == HJ_UNKNOWN;
    return jump != HJ_BREAK && jump != HJ_UNKNOWN && !S->host_returned;
}

/* ---- memory of host-loop iterations (issue 29 item 3) ----
 *
 * Every value is arena-allocated and the arena is freed only with the compilation, so a host
 * loop kept what each iteration made (about 580 B per `n += 1`). A loop whose body only
 * rebinds names to values computed without calls (assignments and op= to names, if, pass,
 * break, continue; operators on names and literals) runs each iteration in an arena of its own:
 * at the iteration's end the values its names hold (IR constants, strings) are copied into the
 * other of two such arenas and the iteration's is freed, so memory stays constant. Anything
 * else pointing into the iteration's arena (a new name's scope index, a value of another kind,
 * a new entry of Sema's tables) keeps the arena: its blocks join the compilation's. */
#define ITER_NAMES 16
typedef struct {
    bool on;
    Arena *main, a[2];
    int cur;
    const char *names[ITER_NAMES]; /* the names the body binds (and the loop's target) */
    int nnames;
    size_t tables;
} IterMem;

static bool iter_expr(const Expr *e) {
    if (!e) return true;
    switch (e->kind) {
    case E_NAME: case E_INT: case E_FLOAT: case E_BOOL: case E_NONE: case E_STR: return true;
    case E_UNARY: return iter_expr(e->un.a);
    case E_BINARY: return iter_expr(e->bin.a) && iter_expr(e->bin.b);
    case E_IFEXP: return iter_expr(e->ifexp.cond) && iter_expr(e->ifexp.a) && iter_expr(e->ifexp.b);
    case E_BOOLOP:
        for (int k = 0; k < e->list.n; k++)
            if (!iter_expr(e->list.items[k])) return false;
        return true;
    case E_COMPARE:
        for (int k = 0; k < e->cmp.items.n; k++)
            if (!iter_expr(e->cmp.items.items[k])) return false;
        return true;
    default: return false;
    }
}

static bool iter_name(IterMem *m, const Expr *t) {
    if (!t || t->kind != E_NAME) return false;
    for (int k = 0; k < m->nnames; k++)
        if (!strcmp(m->names[k], t->name)) return true;
    if (m->nnames == ITER_NAMES) return false;
    m->names[m->nnames++] = t->name;
    return true;
}

static bool iter_body(IterMem *m, const StmtList *l) {
    for (int k = 0; k < l->n; k++) {
        const Stmt *s = l->stmts[k];
        switch (s->kind) {
        case S_PASS: case S_BREAK: case S_CONTINUE: break;
        case S_ASSIGN:
            if (s->assign.targets.n != 1 || !iter_name(m, s->assign.targets.items[0]) || !iter_expr(s->assign.value)) return false;
            break;
        case S_AUGASSIGN:
            if (!iter_name(m, s->aug.target) || !iter_expr(s->aug.value)) return false;
            break;
        case S_IF:
            if (!iter_expr(s->if_.cond) || !iter_body(m, &s->if_.then) || !iter_body(m, &s->if_.els)) return false;
            break;
        default: return false;
        }
    }
    return true;
}

/* Entries of Sema's tables: one more during an iteration may hold what it allocated. */
static size_t iter_tables(const Sema *S) {
    return (size_t)S->defs.len + S->lambdas.len + S->host_scopes.len + S->used_names.len + S->callinsts.len + S->classes.len +
           S->objects.len + S->helpers.len + S->dispatchers.len + S->pyfuncs.len + S->tests.len + S->storages.len + S->snodes.len +
           S->builders.len + S->unplaced_why.len + S->kernels.len + S->instances.len + (size_t)diag_error_count() + diag_warning_count();
}

static void iter_begin(Sema *S, IterMem *m, const Expr *target, const Expr *cond, const StmtList *body) {
    *m = (IterMem){0};
    if ((target && !iter_name(m, target)) || !iter_expr(cond) || !iter_body(m, body)) return;
    m->on = true, m->main = S->arena, m->tables = iter_tables(S);
    S->arena = &m->a[0];
}

/* Whether any pointer-sized word of [p, p + n) points into arena a (a conservative scan). */
static bool iter_points_into(const void *p, size_t n, const Arena *a) {
    const unsigned char *b = p;
    const void *lo = NULL, *hi = NULL;
    bool one = arena_one_block(a, &lo, &hi);
    if (!one && !a->head) return false;
    for (size_t k = 0; k + sizeof(void *) <= n; k += sizeof(void *)) {
        uintptr_t w;
        memcpy(&w, b + k, sizeof w);
        if (one ? w >= (uintptr_t)lo && w < (uintptr_t)hi : arena_contains(a, (const void *)w)) return true;
    }
    return false;
}

/* The value v (in the iteration's arena) copied into arena to, or false when qdc cannot. */
static bool iter_copy(Val *v, Arena *to) {
    if (val_host_copy(v, to)) return true;
    if (v->kind == V_STR || v->kind == V_HOST || v->kind == V_NS) {
        v->path = arena_strdup(to, v->path);
        return true;
    }
    return false;
}

/* The end of an iteration: its names' values move to the other arena and its own is freed,
 * or, when something else may point into it, it joins the compilation's arena. */
static void iter_next(Sema *S, IterMem *m) {
    if (!m->on) return;
    Arena *cur = &m->a[m->cur], *next = &m->a[1 - m->cur];
    Scope *sc = BIND_SCOPE(S);
    bool keep = iter_tables(S) != m->tables || iter_points_into(S, sizeof *S, cur) || arena_contains(cur, sc->index);
    Binding *b[ITER_NAMES];
    for (int k = 0; k < m->nnames && !keep; k++) {
        b[k] = S->core->scope_find(sc, m->names[k]);
        if (!b[k]) continue;
        keep = arena_contains(cur, b[k]->name) || arena_contains(cur, b[k]->decl.src);
        if (keep || !iter_points_into(&b[k]->v, sizeof b[k]->v, cur)) continue; /* the whole union: a conservative scan */
        keep = !val_is_host_scalar(b[k]->v) && b[k]->v.kind != V_STR && b[k]->v.kind != V_HOST && b[k]->v.kind != V_NS;
    }
    if (keep) {
        arena_absorb(m->main, cur);
        m->tables = iter_tables(S);
        return;
    }
    for (int k = 0; k < m->nnames; k++)
        if (b[k] && iter_points_into(&b[k]->v, sizeof b[k]->v, cur)) iter_copy(&b[k]->v, next);
    arena_reset(cur);
    m->cur = 1 - m->cur;
    S->arena = next;
}

static void iter_end(Sema *S, IterMem *m) {
    if (!m->on) return;
    arena_absorb(m->main, &m->a[0]); /* the values the loop leaves (an emptied arena's block too) */
    arena_absorb(m->main, &m->a[1]);
    S->arena = m->main;
}

/* After a host loop qdc could not evaluate to its end: its target and every name its body
 * binds are run-time values (kernels it defines are not compiled: an input that compiles none
 * then says where the first one is). */
static void loop_unknown(Sema *S, const Expr *target, const StmtList *body, const char *what) {
    if (!S->loop_kernel && (S->loop_kernel = first_kernel_in(body))) S->loop_kernel_why = what; /* for sema_check_hollow */
    sema_pyfunc_unknown_return(S, body, arena_printf(S->arena, "from inside a loop qdc cannot follow (its names are %s)", what));
    if (target) S->core->sema_bind_host(S, target, what);
    bind_block_host(S, body, what);
}

static const char *too_many(Sema *S, const char *loop) {
    return arena_printf(S->arena, "set in a %s loop that runs more than %d times (qdc evaluates at most %d iterations of a "
                                  "host loop, its loop budget: raise it with --eval-limit=loop=N)", loop, MAX_HOST_ITERS, MAX_HOST_ITERS);
}

/* Python runs the body once per value: when qdc knows the values (at most MAX_HOST_ITERS), it
 * evaluates the body once per value with the target bound to it (kernel calls in it are call
 * sites; a kernel defined in it is defined again in each iteration, as in Python: KERNEL,
 * KERNEL__def2 ...), honouring break and continue. Otherwise, or from a break or continue qdc
 * cannot decide, the target and every name the body binds are run-time values. */
void sema_host_for(Sema *S, const Stmt *s) {
    Val *vals = NULL;
    int64_t ra[3];
    int n;
    bool lazy = range_args(S, s->for_.iter, ra, &n); /* range(...): each value made in its own iteration */
    if (!lazy) n = loop_values(S, s->for_.iter, &vals);
    bool unknown = n < 0;
    bool many = n > MAX_HOST_ITERS && !block_jumps(&s->for_.body) && !ast_may_return(&s->for_.body); /* cannot end early */
    unknown |= many;
    IterMem mem;
    iter_begin(S, &mem, s->for_.target, NULL, &s->for_.body);
    for (int k = 0; k < n && !unknown; k++) {
        if (k == MAX_HOST_ITERS) {
            unknown = many = true;
            break;
        }
        if (!bind_target(S, s->for_.target, lazy ? range_item(S, s->for_.iter, ra, k) : vals[k])) {
            unknown = true;
            break;
        }
        bool more = loop_body(S, &s->for_.body, &unknown, s->for_.iter->span);
        iter_next(S, &mem);
        if (!more) break;
    }
    iter_end(S, &mem);
    if (unknown) loop_unknown(S, s->for_.target, &s->for_.body, many ? too_many(S, "for") : "set in a for loop whose values qdc cannot evaluate");
}

/* while COND: evaluated while qdc knows COND (sema_host_cond), at most MAX_HOST_ITERS times. */
void sema_host_while(Sema *S, const Stmt *s) {
    bool unknown = false;
    IterMem mem;
    iter_begin(S, &mem, NULL, s->while_.cond, &s->while_.body);
    for (int k = 0;; k++) {
        int c = cond_value(S, s->while_.cond);
        if (c == 0) return iter_end(S, &mem);
        if (c < 0 || k == MAX_HOST_ITERS) {
            iter_end(S, &mem);
            loop_unknown(S, NULL, &s->while_.body, c < 0 ? "set in a while loop whose condition qdc cannot evaluate" : too_many(S, "while"));
            return;
        }
        bool more = loop_body(S, &s->while_.body, &unknown, s->while_.cond->span);
        iter_next(S, &mem);
        if (!more) break;
    }
    iter_end(S, &mem);
    if (unknown) loop_unknown(S, NULL, &s->while_.body, "set in a while loop whose break or continue qdc cannot decide");
}

void sema_host_jump(Sema *S, const Stmt *s) { S->host_jump = s->kind == S_BREAK ? HJ_BREAK : HJ_CONTINUE; }

/* Every binding of scopes from `from` outward that holds the list `items` besides `self`: a
 * list changed through one name is changed for the others (Python's aliasing). */
static void unshare(Sema *S, Scope *from, const Binding *self, const Val *items) {
    for (Scope *sc = from; sc; sc = sc->parent)
        for (int k = 0; k < sc->b.len; k++) {
            Binding *b = &sc->b.items[k];
            if (b != self && b->v.kind == V_TUPLE && b->v.tuple.items == items && b->v.tuple.n)
                b->v = (Val){.kind = V_HOST, .path = "a list host code changes through another name"};
        }
}

/* NAME.append(v) and NAME.extend(seq) on a compile-time list: NAME holds the longer list (a
 * value qdc cannot compute makes it the script's). False when e is not such a call. */
bool sema_host_list_method(Sema *S, const Expr *e) {
    if (e->kind != E_CALL || e->call.fn->kind != E_ATTR || e->call.fn->attr.obj->kind != E_NAME || e->call.args.n != 1 || e->call.nkw)
        return false;
    const char *m = e->call.fn->attr.name;
    bool extend = !strcmp(m, "extend");
    if (!extend && strcmp(m, "append")) return false;
    Binding *b = find(S, e->call.fn->attr.obj->name);
    if (!b || b->v.kind != V_TUPLE) return false;
    const Expr *a = e->call.args.items[0];
    Val v = val_err(), *add = &v;
    int n = 1;
    const char *why = "a list host code fills with values qdc cannot compute";
    if (!S->core->sema_is_host_expr(S, a)) {
        int mark = diag_quiet_begin();
        bool ok = extend ? sema_iter_items(S, a, &add, &n) : (v = S->core->sema_eval(S, a)).kind != V_ERR;
        if (diag_quiet_end(mark) || !ok) v = val_err(), add = &v, n = 1;
        for (int k = 0; k < n && ok; k++) ok = S->core->sema_module_constant(S, &add[k]);
        if (!ok) add = &v, v = val_err(), n = 1;
    }
    unshare(S, S->hscope, b, b->v.tuple.items);
    if (add[0].kind == V_ERR) return b->v = (Val){.kind = V_HOST, .path = why}, true;
    if (!budget_charge(&S->budget, EB_SIZE, (int64_t)b->v.tuple.n + n + 1, e->span)) /* the longer list is a copy (QD2026) */
        return b->v = (Val){.kind = V_HOST, .path = why}, true;
    Val t = {.kind = V_TUPLE, .tuple = {ARENA_ARRAY(S->arena, Val, b->v.tuple.n + n + 1), b->v.tuple.n + n}};
    memcpy(t.tuple.items, b->v.tuple.items, sizeof(Val) * (size_t)b->v.tuple.n);
    memcpy(t.tuple.items + b->v.tuple.n, add, sizeof(Val) * (size_t)n);
    b->v = t;
    return true;
}

/* NAME op= VALUE: NAME = NAME op VALUE when qdc can evaluate it (i += 1 in a host loop);
 * else NAME is the script's value. Other targets (x[i] += 1, obj.n += 1) change run-time data. */
void sema_host_augassign(Sema *S, const Stmt *s) {
    if (s->aug.target->kind == E_ATTR) { /* obj.n += v of a plain instance: obj.n = obj.n + v (sema_class.c) */
        Expr *v = ARENA_NEW(S->arena, Expr);
        *v = (Expr){.kind = E_BINARY, .span = s->span, .op = s->aug.op};
        v->bin.a = s->aug.target, v->bin.b = s->aug.value;
        return S->up->sema_host_setattr(S, s->aug.target, v, s->span);
    }
    Binding *b = s->aug.target->kind == E_NAME ? find(S, s->aug.target->name) : NULL;
    bool value = b && (val_is_host_scalar(b->v) || b->v.kind == V_STR || b->v.kind == V_TUPLE);
    if (!value) return S->core->sema_bind_host(S, s->aug.target, "updated by host code");
    Expr *v = ARENA_NEW(S->arena, Expr);
    *v = (Expr){.kind = E_BINARY, .span = s->span, .op = s->aug.op};
    v->bin.a = s->aug.target, v->bin.b = s->aug.value;
    S->core->sema_module_value(S, s->aug.target, v, s->span);
}

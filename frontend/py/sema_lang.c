/* Python forms that kernels evaluate at compile time (qdc-lang(7) "Compile-time Python"):
 * argument unpacking (*a), slices of vectors, matrices and compile-time sequences, list
 * comprehensions and generator expressions, `is` / `in`, and lambda (host code only, as
 * Quadrants). They share one notion: a compile-time sequence and its items. */
#include "py.h"
#include <string.h>

/* Making n items (a range, a repeated tuple, a comprehension's values) is n steps of the
 * evaluation budget (QD2026, reported by budget_report); a count past what a tuple holds
 * is QD2022 where the steps budget was raised that far. */
static bool items_fit(Sema *S, int64_t n, Span at) {
    if (!budget_fits(&S->budget, EB_STEPS, n, at)) return false;
    if (n > INT32_MAX / 2) return diag_error(at, QD2022, "a compile-time sequence of %lld items (at most %d)", (long long)n, INT32_MAX / 2), false;
    return budget_charge(&S->budget, EB_STEPS, n, at);
}

static Val tuple_of(Sema *S, Val *items, int n) {
    Val t = {.kind = V_TUPLE};
    t.tuple.n = n;
    t.tuple.items = ARENA_ARRAY(S->arena, Val, n ? n : 1);
    if (n) memcpy(t.tuple.items, items, sizeof(Val) * (size_t)n);
    return t;
}

/* The items of a compile-time sequence: a tuple or list, a vector's components, a matrix's
 * rows, an ndarray shape's axes. False (nothing reported) for anything else. */
static bool seq_items(Sema *S, Val v, Span sp, Val **items, int *n) {
    if (v.kind == V_TUPLE) return *items = v.tuple.items, *n = v.tuple.n, true;
    if (v.kind == V_DICT) return *items = v.dict.keys, *n = v.dict.n, true; /* `k in d`, `for k in d` */
    if (v.kind == V_STR) { /* a string: its characters, each a string */
        *n = (int)strlen(v.path);
        *items = ARENA_ARRAY(S->arena, Val, *n ? *n : 1);
        for (int k = 0; k < *n; k++) (*items)[k] = (Val){.kind = V_STR, .path = arena_strndup(S->arena, v.path + k, 1)};
        return true;
    }
    if (v.kind == V_VEC && !v.vec.m) return *items = v.vec.c, *n = v.vec.n, true;
    if (v.kind == V_VEC) {
        *n = v.vec.n;
        *items = ARENA_ARRAY(S->arena, Val, *n);
        for (int r = 0; r < *n; r++) {
            (*items)[r] = S->up->vec_make(S, v.vec.m, 0);
            for (int c = 0; c < v.vec.m; c++) (*items)[r].vec.c[c] = v.vec.c[r * v.vec.m + c];
        }
        return true;
    }
    if (sema_np_items(S, v, sp, items, n)) return true; /* a numpy array qdc computed: its elements or rows */
    if (v.kind == V_SHAPE) {
        const IrParam *p = &S->params.items[v.index];
        *n = p->ndim - p->elem_ndim;
        *items = ARENA_ARRAY(S->arena, Val, *n ? *n : 1);
        for (int k = 0; k < *n; k++) {
            (*items)[k] = val_expr(S->up->sema_ndarray_shape(S, v.index, k, sp));
        }
        return true;
    }
    return false;
}

static const char *call_path(Sema *S, const Expr *e) {
    if (e->kind != E_CALL) return NULL;
    if (e->call.fn->kind == E_NAME && !S->core->sema_lookup(S, e->call.fn->name)) {
        static const char *const py[] = {"range", "enumerate", "zip", "reversed"};
        for (size_t k = 0; k < ARRAY_LEN(py); k++)
            if (!strcmp(py[k], e->call.fn->name)) return py[k];
    }
    const char *p = S->core->sema_path(S, e->call.fn);
    return p && (!strcmp(p, "qd.static") || !strcmp(p, "qd.grouped")) ? p : NULL;
}

static bool iter_items(Sema *S, const Expr *iter, Val **items, int *n);
static bool bind_target(Sema *S, Scope *sc, const Expr *t, Val v);

static bool range_items(Sema *S, const Expr *call, Val **items, int *n) {
    int64_t a[3] = {0, 0, 1};
    int na = call->call.args.n;
    if (na < 1 || na > 3 || call->call.nkw)
        return diag_error(call->span, QD2007, "range takes 1 to 3 positional arguments, got %d", na + call->call.nkw), false;
    for (int k = 0; k < na; k++)
        if (!S->core->sema_const_int(S, call->call.args.items[k], &a[na == 1 ? 1 : k], "a range bound in a comprehension")) return false;
    if (!a[2]) return diag_error(call->call.args.items[2]->span, QD2012, "range step must not be zero"), false;
    int64_t cnt = a[2] > 0 ? (a[1] > a[0] ? (a[1] - a[0] + a[2] - 1) / a[2] : 0) : (a[0] > a[1] ? (a[0] - a[1] - a[2] - 1) / -a[2] : 0);
    if (!items_fit(S, cnt, call->span)) return false;
    *n = (int)cnt;
    *items = ARENA_ARRAY(S->arena, Val, *n ? *n : 1);
    for (int64_t k = 0; k < cnt; k++) (*items)[k] = val_typed_int(S, QT_I32, a[0] + k * a[2], call->span);
    return true;
}

/* enumerate(xs[, start]), zip(xs, ys, ...), reversed(xs): tuples of the items. */
static bool combinator_items(Sema *S, const Expr *call, const char *p, Val **items, int *n) {
    int na = call->call.args.n;
    bool en = !strcmp(p, "enumerate"), zip = !strcmp(p, "zip");
    int64_t start = 0;
    if (en && na == 2 && !S->core->sema_const_int(S, call->call.args.items[1], &start, "enumerate's start")) return false;
    for (int k = 0; en && k < call->call.nkw; k++)
        if (strcmp(call->call.kw[k].name, "start") || !S->core->sema_const_int(S, call->call.kw[k].value, &start, "enumerate's start")) return false;
    if (na < 1 || (!zip && na > (en ? 2 : 1)) || (!en && call->call.nkw))
        return diag_error(call->span, QD2007, "'%s' takes %s, got %d arguments", p, zip ? "sequences" : "one sequence", na), false;
    Val *in[8];
    int len[8], m = zip ? na : 1;
    if (m > 8) return diag_error(call->span, QD2007, "zip of more than 8 sequences"), false;
    for (int k = 0; k < m; k++)
        if (!iter_items(S, call->call.args.items[k], &in[k], &len[k])) return false;
    *n = len[0];
    for (int k = 1; k < m; k++) *n = len[k] < *n ? len[k] : *n;
    *items = ARENA_ARRAY(S->arena, Val, *n ? *n : 1);
    for (int i = 0; i < *n; i++) {
        if (!strcmp(p, "reversed")) {
            (*items)[i] = in[0][*n - 1 - i];
            continue;
        }
        Val parts[8];
        int np = 0;
        if (en) parts[np++] = val_typed_int(S, QT_I32, start + i, call->span);
        for (int k = 0; k < m; k++) parts[np++] = in[k][i];
        (*items)[i] = tuple_of(S, parts, np);
    }
    return true;
}

/* qd.grouped(qd.ndrange(...)) / qd.grouped(range(...)) with constant bounds: one i32 vector of
 * indices per point, the last axis fastest (the order of qd.ndrange). */
static bool grouped_items(Sema *S, const Expr *call, Val **items, int *n) {
    const Expr *in = call->call.args.n == 1 ? sema_pyfunc_expand(S, call->call.args.items[0]) : NULL;
    const char *p = in && in->kind == E_CALL ? (in->call.fn->kind == E_NAME ? in->call.fn->name : S->core->sema_path(S, in->call.fn)) : NULL;
    if (!p || (strcmp(p, "qd.ndrange") && strcmp(p, "range")))
        return diag_error(call->span, QD2012, "qd.static(qd.grouped(...)) takes qd.ndrange(...) or range(...)"), false;
    if (!(in = sema_unpack(S, in))) return false;
    int nd = in->call.args.n;
    int64_t lo[PY_MAX_DIMS], hi[PY_MAX_DIMS], total = 1;
    if (!strcmp(p, "range")) {
        Val *r;
        int cnt;
        if (!range_items(S, in, &r, &cnt)) return false;
        *n = cnt;
        *items = ARENA_ARRAY(S->arena, Val, cnt ? cnt : 1);
        for (int k = 0; k < cnt; k++) (*items)[k] = S->up->vec_make(S, 1, 0), (*items)[k].vec.c[0] = r[k];
        return true;
    }
    if (nd > PY_MAX_DIMS) return diag_error(in->span, QD2012, "qd.ndrange takes at most %d dimensions", PY_MAX_DIMS), false;
    for (int d = 0; d < nd; d++) {
        const Expr *a = in->call.args.items[d];
        Val v = S->core->sema_eval(S, a);
        Val *b = v.kind == V_TUPLE ? v.tuple.items : &v;
        int nb = v.kind == V_TUPLE ? v.tuple.n : 1;
        Val x[2] = {nb == 2 ? val_scalar(S, b[0], a->span) : (Val){.kind = V_NONE}, val_scalar(S, b[nb - 1], a->span)};
        if (v.kind == V_ERR || nb < 1 || nb > 2 || x[1].kind == V_ERR || (nb == 2 && x[0].kind == V_ERR)) return false;
        if ((nb == 2 && !val_is_host_scalar(x[0])) || !val_is_host_scalar(x[1]))
            return diag_error(a->span, QD2009, "the bounds of a qd.static loop must be compile-time constants"), false;
        lo[d] = nb == 2 ? val_host_i64(x[0]) : 0, hi[d] = val_host_i64(x[1]);
        int64_t ext = hi[d] > lo[d] ? hi[d] - lo[d] : 0;
        total = ext && total > INT64_MAX / ext ? INT64_MAX : total * ext;
    }
    if (!items_fit(S, total, in->span)) return false;
    *n = (int)total;
    *items = ARENA_ARRAY(S->arena, Val, total ? total : 1);
    for (int64_t k = 0; k < total; k++) {
        Val v = S->up->vec_make(S, nd, 0);
        for (int64_t d = nd - 1, rest = k; d >= 0; d--) {
            int64_t ext = hi[d] - lo[d];
            v.vec.c[d] = val_typed_int(S, QT_I32, lo[d] + rest % ext, call->span);
            rest /= ext;
        }
        (*items)[k] = v;
    }
    return true;
}

/* The items an iterable produces at compile time (a comprehension's `in`, unpacking). */
static bool iter_items(Sema *S, const Expr *iter, Val **items, int *n) {
    const char *p = call_path(S, iter);
    if (p && !strcmp(p, "qd.static")) {
        if (iter->call.args.n != 1) return diag_error(iter->span, QD2007, "qd.static takes 1 argument"), false;
        return iter_items(S, iter->call.args.items[0], items, n);
    }
    if (p && !strcmp(p, "range")) return range_items(S, iter, items, n);
    if (p && !strcmp(p, "qd.grouped")) return grouped_items(S, iter, items, n);
    if (p) return combinator_items(S, iter, p, items, n);
    Val v = S->core->sema_eval(S, iter);
    if (v.kind == V_ERR) return false;
    if (seq_items(S, v, iter->span, items, n)) return true;
    bool scalar = v.kind == V_EXPR || v.kind == V_LOCAL || v.kind == V_REF;
    diag_error(iter->span, QD2012, "%s is not a compile-time sequence; a comprehension or unpacking in a kernel iterates "
                                     "range(), a tuple or list, a vector or an ndarray shape", scalar ? "a scalar" : S->core->val_describe(v));
    return false;
}

bool sema_iter_items(Sema *S, const Expr *iter, Val **items, int *n) { return iter_items(S, iter, items, n); }

/* for x in qd.static(seq) / for i, x in qd.static(enumerate(seq)) over a compile-time sequence
 * (not range/ndrange, which sema_loop_space takes): the body unrolled once per item. */
bool sema_static_seq_for(Sema *S, const Stmt *s) {
    const Expr *it = s->for_.iter;
    const char *p = it->kind == E_CALL ? S->core->sema_path(S, it->call.fn) : NULL;
    if (!p || strcmp(p, "qd.static") || it->call.args.n != 1) return false;
    const Expr *in = it->call.args.items[0];
    const char *q = in->kind != E_CALL ? NULL : in->call.fn->kind == E_NAME ? in->call.fn->name : S->core->sema_path(S, in->call.fn);
    if (q && (!strcmp(q, "range") || !strcmp(q, "qd.ndrange"))) return false;
    Val *items;
    int n;
    if (!iter_items(S, in, &items, &n)) return true;
    LoopKind saved = S->loop;
    int dyn = S->static_dyn;
    S->loop = LOOP_STATIC, S->static_dyn = S->dyn;
    for (int k = 0, errs = diag_error_count(); k < n && diag_error_count() == errs; k++) {
        if (!budget_charge(&S->budget, EB_UNROLL, 1, it->span)) break; /* QD2022, reported by budget_report */
        if (!bind_target(S, S->scope, s->for_.target, items[k]) || !S->core->sema_static_iteration(S, &s->for_.body)) break;
    }
    S->loop = saved, S->static_dyn = dyn;
    return true;
}

/* ---- argument unpacking ---- */

static bool has_starred(const ExprList *l) {
    for (int k = 0; k < l->n; k++)
        if (l->items[k]->kind == E_STARRED) return true;
    return false;
}

Expr *sema_value_expr(Sema *S, Val v, Span sp) {
    Expr *e = ARENA_NEW(S->arena, Expr);
    Val *slot = ARENA_NEW(S->arena, Val);
    *slot = v;
    e->kind = E_VALUE, e->span = sp, e->value = slot;
    return e;
}

/* The list with every *a replaced by a's items (evaluated once, before the other items). */
static bool unpack_list(Sema *S, const ExprList *l, ExprList *out) {
    VEC(Expr *) v = {0};
    bool ok = true;
    for (int k = 0; k < l->n && ok; k++) {
        Expr *a = l->items[k];
        if (a->kind != E_STARRED) {
            vec_push(&v, a);
            continue;
        }
        Val *items;
        int n;
        ok = iter_items(S, a->un.a, &items, &n);
        for (int j = 0; ok && j < n; j++) vec_push(&v, sema_value_expr(S, items[j], a->span));
    }
    out->n = v.len;
    out->items = ARENA_ARRAY(S->arena, Expr *, v.len ? v.len : 1);
    if (v.len) memcpy(out->items, v.items, sizeof(Expr *) * (size_t)v.len);
    vec_free(&v);
    return ok;
}

const Expr *sema_unpack(Sema *S, const Expr *e) {
    const ExprList *l = e->kind == E_CALL ? &e->call.args : &e->list;
    if (!has_starred(l)) return e;
    Expr *c = ARENA_NEW(S->arena, Expr);
    *c = *e;
    if (!unpack_list(S, l, e->kind == E_CALL ? &c->call.args : &c->list)) return NULL;
    return c;
}

/* (a, b) + (c,) and (a,) * 3 / 3 * (a,): Python's sequence concatenation and repetition on
 * compile-time tuples and lists. False when neither side is a tuple. */
bool sema_tuple_binary(Sema *S, int op, Val a, Val b, Val *out, Span sp) {
    if ((a.kind != V_TUPLE && b.kind != V_TUPLE) || a.kind == V_VEC || b.kind == V_VEC) return false; /* v + [1, 2]: a vector op */
    if (a.kind == V_ERR || b.kind == V_ERR) return *out = val_err(), true;
    if (op == T_PLUS && a.kind == V_TUPLE && b.kind == V_TUPLE) {
        Val *items = ARENA_ARRAY(S->arena, Val, a.tuple.n + b.tuple.n + 1);
        memcpy(items, a.tuple.items, sizeof(Val) * (size_t)a.tuple.n);
        memcpy(items + a.tuple.n, b.tuple.items, sizeof(Val) * (size_t)b.tuple.n);
        return *out = tuple_of(S, items, a.tuple.n + b.tuple.n), true;
    }
    Val t = a.kind == V_TUPLE ? a : b, n = a.kind == V_TUPLE ? b : a;
    if (op != T_STAR || !val_is_host_integral(n)) {
        diag_error(sp, QD2019, "a compile-time tuple or list takes only + (another one) and * (a compile-time integer)");
        return *out = val_err(), true;
    }
    int64_t k = val_host_i64(n);
    if (k < 0) k = 0;
    if (!items_fit(S, t.tuple.n && k > INT64_MAX / t.tuple.n ? INT64_MAX : k * t.tuple.n, sp)) return *out = val_err(), true;
    Val *items = ARENA_ARRAY(S->arena, Val, k * t.tuple.n + 1);
    for (int64_t r = 0; r < k; r++) memcpy(items + r * t.tuple.n, t.tuple.items, sizeof(Val) * (size_t)t.tuple.n);
    return *out = tuple_of(S, items, (int)(k * t.tuple.n)), true;
}

/* A list or tuple beside a vector or matrix in an operator (v == [1, 2, 3]): the vector or
 * matrix of its items, as Quadrants converts it. Other values are returned unchanged. */
Val sema_list_as_vec(Sema *S, Val t, Val other) {
    if (t.kind != V_TUPLE || other.kind != V_VEC || !t.tuple.n) return t;
    bool rows = t.tuple.items[0].kind == V_TUPLE || t.tuple.items[0].kind == V_VEC;
    int n = t.tuple.n, m = 0;
    if (rows) m = t.tuple.items[0].kind == V_TUPLE ? t.tuple.items[0].tuple.n : vec_len(t.tuple.items[0]);
    Val r = S->up->vec_make(S, n, m);
    for (int i = 0; i < n; i++) {
        Val row = t.tuple.items[i];
        int len = !rows ? 1 : row.kind == V_TUPLE ? row.tuple.n : row.kind == V_VEC ? vec_len(row) : -1;
        if (len != (rows ? m : 1)) return t; /* ragged: the operator reports it */
        for (int j = 0; j < (rows ? m : 1); j++)
            r.vec.c[rows ? i * m + j : i] = !rows ? row : row.kind == V_TUPLE ? row.tuple.items[j] : row.vec.c[j];
    }
    return r;
}

/* ---- slices ---- */

/* Python's slice.indices(n): the selected positions of a sequence of n items. */
static bool slice_positions(Sema *S, const Expr *sl, int n, int *pos, int *count) {
    int64_t step = 1, lo, hi;
    if (sl->slice.step && !S->core->sema_const_int(S, sl->slice.step, &step, "a slice step")) return false;
    if (!step) return diag_error(sl->slice.step->span, QD2042, "slice step cannot be zero"), false;
    lo = step > 0 ? 0 : n - 1, hi = step > 0 ? n : -1;
    int64_t b[2] = {lo, hi};
    const Expr *parts[2] = {sl->slice.lo, sl->slice.hi};
    for (int k = 0; k < 2; k++) {
        if (!parts[k]) continue;
        if (!S->core->sema_const_int(S, parts[k], &b[k], "Quadrants does not support variables in slice now: a slice bound")) return false;
        if (b[k] < 0) b[k] += n;
        if (b[k] < 0) b[k] = step > 0 ? 0 : -1;
        if (b[k] >= n) b[k] = step > 0 ? n : n - 1;
    }
    *count = 0;
    for (int64_t i = b[0]; step > 0 ? i < b[1] : i > b[1]; i += step) pos[(*count)++] = (int)i;
    return true;
}

/* One index of a vector/matrix/sequence subscript: a slice (positions) or a constant. */
static bool axis_positions(Sema *S, const Expr *ix, int n, int *pos, int *count, bool *sliced) {
    *sliced = ix->kind == E_SLICE;
    if (*sliced) return slice_positions(S, ix, n, pos, count);
    int64_t k;
    if (!S->core->sema_const_int(S, ix, &k, "an index beside a slice")) return false;
    if (k < 0) k += n;
    if (k < 0 || k >= n) return diag_error(ix->span, QD2042, "index %lld is out of range for %d items", (long long)k, n), false;
    pos[0] = (int)k, *count = 1;
    return true;
}

static bool has_slice(const Expr *ix) {
    if (ix->kind == E_SLICE) return true;
    if (ix->kind != E_TUPLE) return false;
    for (int k = 0; k < ix->list.n; k++)
        if (ix->list.items[k]->kind == E_SLICE) return true;
    return false;
}

/* Quadrants' validate_subscript_index: a negative int index or slice bound of a kernel vector or
 * matrix (not of a field, not of a Python sequence) is rejected. True after the error. */
static bool negative_index(Sema *S, const Expr *ix) {
    if (ix->kind == E_TUPLE) {
        for (int k = 0; k < ix->list.n; k++)
            if (negative_index(S, ix->list.items[k])) return true;
        return false;
    }
    const Expr *parts[2] = {ix->kind == E_SLICE ? ix->slice.lo : ix, ix->kind == E_SLICE ? ix->slice.hi : NULL};
    for (int k = 0; k < 2; k++) {
        Val v = parts[k] ? S->core->sema_eval(S, parts[k]) : (Val){.kind = V_NONE};
        if (val_is_host_scalar(v) && qt_is_signed(val_host_type(v)) && val_host_i64(v) < 0)
            return diag_error(parts[k]->span, QD2171, "Negative indices are not supported in Quadrants kernels."), true;
    }
    return false;
}

/* v[a:b], m[:, 0], m[0, 1:], m[a:b, c:d], t[a:b] with compile-time bounds: a vector, a matrix
 * or a tuple of the selected items (Quadrants: an int index drops its axis). */
static Val slice_value(Sema *S, Val o, const Expr *ix, Span sp) {
    bool matrix = o.kind == V_VEC && o.vec.m;
    int nix = ix->kind == E_TUPLE ? ix->list.n : 1;
    const Expr *axes[2] = {ix->kind == E_TUPLE ? ix->list.items[0] : ix, nix == 2 ? ix->list.items[1] : NULL};
    if (nix > (matrix ? 2 : 1))
        return diag_error(ix->span, QD2042, "%s takes %d index%s, got %d", S->core->val_describe(o), matrix ? 2 : 1, matrix ? "es" : "", nix), val_err();
    if (o.kind != V_VEC) {
        Val *items;
        int n;
        if (!seq_items(S, o, sp, &items, &n)) return diag_error(sp, QD2011, "%s cannot be sliced", S->core->val_describe(o)), val_err();
        int *pos = ARENA_ARRAY(S->arena, int, n + 1), cnt;
        bool sl;
        if (!axis_positions(S, axes[0], n, pos, &cnt, &sl)) return val_err();
        Val *r = ARENA_ARRAY(S->arena, Val, cnt ? cnt : 1);
        for (int k = 0; k < cnt; k++) r[k] = items[pos[k]];
        if (o.kind == V_STR && sl) { /* a string's slice is a string */
            char *t = ARENA_ARRAY(S->arena, char, cnt + 1);
            for (int k = 0; k < cnt; k++) t[k] = r[k].path[0];
            t[cnt] = 0;
            return (Val){.kind = V_STR, .path = t};
        }
        return tuple_of(S, r, cnt);
    }
    if (S->cur && negative_index(S, ix)) return val_err();
    int rows = o.vec.n, cols = matrix ? o.vec.m : 1;
    int rp[QD_VEC_MAX], cp[QD_VEC_MAX] = {0}, nr, nc = 1;
    bool rs, cs = false;
    if (rows > QD_VEC_MAX || cols > QD_VEC_MAX) return diag_error(sp, QD2042, "slices of more than %d rows or columns", QD_VEC_MAX), val_err();
    if (!axis_positions(S, axes[0], rows, rp, &nr, &rs)) return val_err();
    if (matrix && axes[1] && !axis_positions(S, axes[1], cols, cp, &nc, &cs)) return val_err();
    if (matrix && !axes[1]) { /* m[a:b]: whole rows */
        nc = cols, cs = true;
        for (int c = 0; c < cols; c++) cp[c] = c;
    }
    if (!nr || !nc) return diag_error(ix->span, QD2042, "the slice selects no components"), val_err();
    bool two = rs && cs;
    Val r = S->up->vec_make(S, two ? nr : rs ? nr : nc, two ? nc : 0);
    for (int i = 0, k = 0; i < nr; i++)
        for (int j = 0; j < nc; j++) r.vec.c[k++] = o.vec.c[rp[i] * cols + cp[j]];
    return r;
}

Val sema_slice_subscript(Sema *S, const Expr *e, bool *handled) {
    *handled = has_slice(e->sub.index);
    if (!*handled) return val_err();
    Val o = S->core->sema_eval(S, e->sub.obj);
    if (o.kind == V_ERR) return o;
    Val tp;
    if ((o.kind == V_FIELD || o.kind == V_NDARRAY || o.kind == V_SHARED) && S->up->sema_tile_slice(S, o, e, &tp)) return tp; /* a tile's slice proxy */
    if (o.kind == V_FIELD || o.kind == V_NDARRAY || o.kind == V_SHARED) {
        diag_error(e->sub.index->span, QD2011, "%s cannot be sliced; index its elements one at a time", S->core->val_describe(o));
        return val_err();
    }
    if (o.kind == V_BVIEW) return S->up->sema_bview_subscript(S, o, e); /* v[a:b]: a view (sema_bview.c) */
    return slice_value(S, o, e->sub.index, e->span);
}

/* ---- comprehensions ---- */

static bool bind_target(Sema *S, Scope *sc, const Expr *t, Val v) {
    if (t->kind == E_NAME) return S->core->scope_bind(S, sc, t->name, v, t->span), true;
    if (t->kind != E_TUPLE && t->kind != E_LIST)
        return diag_error(t->span, QD2010, "a comprehension binds names or tuples of names"), false;
    Val *items;
    int n;
    if (!seq_items(S, v, t->span, &items, &n) || n != t->list.n)
        return diag_error(t->span, QD2010, "cannot unpack %s into %d names", S->core->val_describe(v), t->list.n), false;
    for (int k = 0; k < n; k++)
        if (!bind_target(S, sc, t->list.items[k], items[k])) return false;
    return true;
}

typedef VEC(Val) ValVec;

static bool comp_clause(Sema *S, const Expr *c, Scope *sc, ValVec *out) {
    Val *items;
    int n;
    S->in_static++; /* ... and its iterables */
    bool ok = iter_items(S, c->comp.iter, &items, &n);
    S->in_static--;
    if (!ok) return false;
    for (int i = 0; i < n; i++) {
        if (!bind_target(S, sc, c->comp.target, items[i])) return false;
        bool keep = true;
        for (int k = 0; k < c->comp.conds.n && keep; k++) {
            S->in_static++; /* Quadrants builds a comprehension's conditions in static scope */
            Val x = val_expr(S->core->sema_to_bool(S, S->core->sema_expr(S, c->comp.conds.items[k])));
            S->in_static--;
            if (x.kind == V_ERR) return false;
            if (!val_is_host_scalar(x))
                return diag_error(c->comp.conds.items[k]->span, QD2009, "a comprehension's condition must be a compile-time value"), false;
            keep = val_host_u64(x) != 0;
        }
        if (!keep) continue;
        if (c->comp.next) {
            if (!comp_clause(S, c->comp.next, sc, out)) return false;
            continue;
        }
        Val v = S->core->sema_eval(S, c->comp.elt);
        if (v.kind == V_ERR) return false;
        if (!items_fit(S, out->len == INT32_MAX / 2 ? INT64_MAX : 1, c->span)) return false; /* nested comprehensions share the one budget */
        vec_push(out, v);
    }
    return true;
}

/* [elt for x in xs if c] and (elt for ...): unrolled at compile time into a list (a tuple of
 * the values); its names are local to it, as in Python 3. */
static Val comprehension(Sema *S, const Expr *e) {
    Scope *sc = ARENA_NEW(S->arena, Scope);
    Scope **cur = S->scope ? &S->scope : &S->hscope, *saved = *cur;
    sc->parent = saved;
    *cur = sc;
    ValVec out = {0};
    bool ok = comp_clause(S, e, sc, &out);
    *cur = saved;
    Val r = ok ? tuple_of(S, out.items, out.len) : val_err();
    vec_free(&out), vec_free(&sc->b);
    return r;
}

/* ---- is / in ---- */

/* Whether two compile-time values are equal: 1, 0, or -1 when one is a run-time value. */
static int same_value(Sema *S, Val a, Val b) {
    if (a.kind == V_EXPR && b.kind == V_EXPR) {
        if (!val_is_host_scalar(a) || !val_is_host_scalar(b)) return -1;
        Val x = val_binop(S, T_EQ, a, b, S->budget.at); /* two constants: folded, never reported */
        return val_is_host_scalar(x) ? (int)val_host_u64(x) : -1;
    }
    if (a.kind == V_LOCAL || a.kind == V_REF || b.kind == V_LOCAL || b.kind == V_REF) return -1;
    if (a.kind != b.kind) return 0;
    switch (a.kind) {
    case V_NONE: return 1;
    case V_STR: return !strcmp(a.path, b.path);
    case V_NS: { /* qd.cpu is the host's arch: x64 */
        const char *x = !strcmp(a.path, "qd.cpu") ? "qd.x64" : a.path, *y = !strcmp(b.path, "qd.cpu") ? "qd.x64" : b.path;
        return !strcmp(x, y);
    }
    case V_TYPE: return a.type == b.type;
    case V_FUNC: case V_KERNEL: return a.def == b.def;
    case V_FIELD: case V_NDARRAY: case V_SHARED: case V_SHAPE: case V_CLASS: return a.index == b.index;
    case V_OBJECT: return a.obj == b.obj;
    case V_TUPLE:
        if (a.tuple.n != b.tuple.n) return 0;
        for (int k = 0; k < a.tuple.n; k++) {
            int s = same_value(S, a.tuple.items[k], b.tuple.items[k]);
            if (s != 1) return s;
        }
        return 1;
    default: return -1;
    }
}

/* A direct qd.template() / qd.Tensor parameter of the kernel being checked (not of a qd.func
 * inlined into it), named by e. */
static bool template_param(Sema *S, const Expr *e) {
    if (e->kind != E_NAME || S->ninline || !S->kernel_def) return false;
    Binding *b = S->core->sema_lookup(S, e->name);
    if (!b || !b->is_param) return false;
    const Stmt *def = S->kernel_def;
    for (int k = 0; k < def->def.nparams; k++) {
        const Param *p = &def->def.params[k];
        const Expr *dt, *nd;
        if (!strcmp(p->name, e->name) && p->annotation) {
            SemaParamShape sh = S->up->sema_param_shape(S, p->annotation, &dt, &nd);
            return sh == PS_TEMPLATE || sh == PS_TENSOR;
        }
    }
    return false;
}

/* Quadrants' rules for is / in in kernel code (its ast_transformer build_Compare): `is` and
 * `is not` only inside qd.static, and there only between None and a direct qd.template() or
 * qd.Tensor kernel parameter; `in` and `not in` only inside qd.static (a comprehension's
 * condition is one). Host Python (a helper function qdc evaluates) has Python's rules. */
static bool quadrants_allows(Sema *S, const Expr *e, int k) {
    if (!S->k || !S->scope || S->pyfunc_depth) return true;
    int op = e->cmp.ops[k];
    bool is = op == T_KW_IS || op == T_KW_NOT;
    const char *name = op == T_KW_IS ? "is" : op == T_KW_NOT ? "is not" : op == T_KW_IN ? "in" : "not in";
    if (!S->in_static) {
        diag_error(e->span, QD2009, is ? "'%s' is not supported in kernel code (Quadrants: Operator \"%s\" in Quadrants scope is not "
                                         "supported); write qd.static(x %s None) with x a qd.template() parameter"
                                       : "'%s' is only supported inside qd.static (Quadrants: \"%s\" is only supported inside "
                                         "`qd.static`)%s", name, is ? name : op == T_KW_IN ? "In" : "NotIn", is ? name : "");
        return false;
    }
    const Expr *l = e->cmp.items.items[k], *r = e->cmp.items.items[k + 1];
    if (is && !(r->kind == E_NONE ? template_param(S, l) : l->kind == E_NONE && template_param(S, r))) {
        diag_error(e->span, QD2009, "'%s' inside qd.static needs a direct qd.template() or qd.Tensor kernel parameter on one side "
                                    "and None on the other (Quadrants: Operator \"%s\" inside `qd.static` requires a direct "
                                    "`qd.template()` or `qd.Tensor` kernel argument and `None`)", name, name);
        return false;
    }
    return true;
}

/* `a is b` / `a is not b` / `a in b` / `a not in b` on compile-time values (Quadrants evaluates
 * them in Python, inside qd.static): a u1 constant. */
static Val static_compare(Sema *S, const Expr *e) {
    for (int k = 0; k + 1 < e->cmp.items.n; k++) {
        int op = e->cmp.ops[k];
        if ((op == T_KW_IS || op == T_KW_NOT || op == T_KW_IN || op == CMP_NOT_IN) && !quadrants_allows(S, e, k)) return val_err();
    }
    Val result = val_bool(S, 1, e->span);
    Val a = S->core->sema_eval(S, e->cmp.items.items[0]);
    for (int k = 1; k < e->cmp.items.n && a.kind != V_ERR; k++) {
        int op = e->cmp.ops[k - 1];
        const Expr *rhs = e->cmp.items.items[k];
        Val b = S->core->sema_eval(S, rhs);
        if (b.kind == V_ERR) return b;
        int r;
        if ((op == T_KW_IS || op == T_KW_NOT) && (a.kind == V_NONE || b.kind == V_NONE)) {
            r = a.kind == b.kind; /* a run-time value is not None either */
        } else if (op == T_KW_IS || op == T_KW_NOT) {
            r = same_value(S, a, b);
            if (a.kind == V_EXPR && b.kind == V_EXPR && r >= 0 && val_host_type(a) != val_host_type(b)) r = 0;
        } else if ((op == T_KW_IN || op == CMP_NOT_IN) && a.kind == V_STR && b.kind == V_STR) {
            r = strstr(b.path, a.path) != NULL; /* a substring */
        } else if (op == T_KW_IN || op == CMP_NOT_IN) {
            Val *items;
            int n;
            if (!seq_items(S, b, rhs->span, &items, &n)) {
                diag_error(rhs->span, QD2019, "'in' needs a compile-time tuple, list or vector on its right, got %s", S->core->val_describe(b));
                return val_err();
            }
            r = 0;
            for (int j = 0; j < n && r == 0; j++) r = same_value(S, a, items[j]);
        } else {
            Val x = val_expr(S->core->sema_binop_tok(S, op, S->core->sema_rvalue(S, a, e->span), S->core->sema_rvalue(S, b, rhs->span), e->span));
            if (x.kind == V_ERR) return val_err();
            r = val_is_host_scalar(x) ? (int)val_host_u64(x) : -1;
        }
        if (r < 0) {
            diag_error(e->span, QD2009, "'%s' compares compile-time values only (Quadrants evaluates it in Python, inside qd.static)",
                       op == T_KW_IS ? "is" : op == T_KW_NOT ? "is not" : op == T_KW_IN ? "in" : op == CMP_NOT_IN ? "not in" : "==");
            return val_err();
        }
        if (op == T_KW_NOT || op == CMP_NOT_IN) r = !r;
        if (!r) return val_bool(S, 0, e->span);
        a = b;
    }
    return a.kind == V_ERR ? a : result;
}

int sema_same_value(Sema *S, Val a, Val b) { return same_value(S, a, b); }

bool sema_is_static_compare(const Expr *e) {
    for (int k = 0; k + 1 < e->cmp.items.n; k++) {
        int op = e->cmp.ops[k];
        if (op == T_KW_IS || op == T_KW_NOT || op == T_KW_IN || op == CMP_NOT_IN) return true;
    }
    return false;
}

/* ---- lambda ---- */

/* A lambda in host code is a function a kernel may call (inlined like a qd.func, its body in
 * the scope the lambda was evaluated in); Quadrants rejects one inside a kernel or qd.func. */
static Val lambda_value(Sema *S, const Expr *e) {
    if (S->cur) {
        diag_error(e->span, QD1012, "'lambda' is not supported in kernels (Quadrants: Unsupported node \"Lambda\"); "
                                      "define a qd.func, or a lambda in host code");
        return val_err();
    }
    SemaDef d = {.def = e->lambda, .scope = S->scope ? S->scope : S->hscope};
    S->core->sema_lambda_push(S, d);
    return (Val){.kind = V_FUNC, .def = e->lambda};
}

Val sema_lang_eval(Sema *S, const Expr *e) {
    switch (e->kind) {
    case E_STARRED: return diag_error(e->span, QD2019, "'*' unpacks only in a call's arguments or a tuple or list"), val_err();
    case E_SLICE: return diag_error(e->span, QD2019, "a slice can only index a vector, a matrix or a compile-time sequence"), val_err();
    case E_COMP: return comprehension(S, e);
    case E_LAMBDA: return lambda_value(S, e);
    case E_COMPARE: return static_compare(S, e);
    case E_VALUE: return *(const Val *)e->value;
    default: die("sema_lang_eval: not a language form");
    }
}

/* ---- dicts ---- */

static bool dict_key(Sema *S, Val k, Span sp, bool building) {
    Val c = k;
    if (val_is_host_scalar(k)) return true;
    if (building && S->cur && (k.kind == V_EXPR || k.kind == V_LOCAL || k.kind == V_REF))
        return true; /* a run-time key put in a kernel's dict: Quadrants hashes the expression, so it is a key of its own */
    if (k.kind == V_TYPE || k.kind == V_NS || k.kind == V_STR || k.kind == V_NONE || k.kind == V_TUPLE) return S->core->sema_module_constant(S, &c);
    diag_error(sp, QD2009, "a dict key must be a compile-time value (a number, string, type or tuple of them), got %s", S->core->val_describe(k));
    return false;
}

static void dict_put(Sema *S, Val *d, Val k, Val v) {
    for (int i = 0; i < d->dict.n; i++)
        if (same_value(S, d->dict.keys[i], k) == 1) { d->dict.vals[i] = v; return; } /* a repeated key: the last wins */
    d->dict.keys[d->dict.n] = k, d->dict.vals[d->dict.n++] = v;
}

/* dict(ITERABLE, **kw) with ITERABLE not written as a list of pairs: a comprehension ({k: v for
 * ...} is dict([(k, v) for ...])), a name bound to a sequence of pairs, another dict (copied). */
static Val dict_of_items(Sema *S, const Expr *call, const Expr *arg) {
    Val it = S->core->sema_eval(S, arg);
    if (it.kind == V_ERR) return it;
    int n = it.kind == V_DICT ? it.dict.n : it.kind == V_TUPLE ? it.tuple.n : -1;
    if (n < 0) return diag_error(arg->span, QD2007, "dict takes (key, value) pairs, got %s", S->core->val_describe(it)), val_err();
    int max = n + call->call.nkw;
    Val d = {.kind = V_DICT};
    d.dict.keys = ARENA_ARRAY(S->arena, Val, max ? max : 1), d.dict.vals = ARENA_ARRAY(S->arena, Val, max ? max : 1);
    for (int i = 0; i < n; i++) {
        Val k, v;
        if (it.kind == V_DICT) {
            k = it.dict.keys[i], v = it.dict.vals[i];
        } else {
            Val p = it.tuple.items[i];
            if (p.kind != V_TUPLE || p.tuple.n != 2)
                return diag_error(arg->span, QD2007, "dict takes (key, value) pairs, got %s as item %d", S->core->val_describe(p), i), val_err();
            k = p.tuple.items[0], v = p.tuple.items[1];
        }
        if (!dict_key(S, k, arg->span, true)) return val_err();
        dict_put(S, &d, k, v);
    }
    for (int i = 0; i < call->call.nkw; i++) {
        Val v = S->core->sema_eval(S, call->call.kw[i].value);
        if (v.kind == V_ERR) return v;
        dict_put(S, &d, (Val){.kind = V_STR, .path = call->call.kw[i].name}, v);
    }
    return d;
}

Val sema_dict_call(Sema *S, const Expr *call) {
    int max = call->call.nkw;
    const Expr *pairs = call->call.args.n == 1 ? call->call.args.items[0] : NULL;
    if (call->call.args.n > 1)
        return diag_error(call->span, QD2007, "dict takes a list of (key, value) pairs and keywords here"), val_err();
    if (pairs && pairs->kind != E_LIST && pairs->kind != E_TUPLE) return dict_of_items(S, call, pairs);
    if (pairs) max += pairs->list.n;
    Val d = {.kind = V_DICT};
    d.dict.keys = ARENA_ARRAY(S->arena, Val, max ? max : 1), d.dict.vals = ARENA_ARRAY(S->arena, Val, max ? max : 1);
    for (int i = 0; pairs && i < pairs->list.n; i++) {
        const Expr *p = pairs->list.items[i];
        if ((p->kind != E_TUPLE && p->kind != E_LIST) || p->list.n != 2)
            return diag_error(p->span, QD2007, "dict takes (key, value) pairs"), val_err();
        Val k = S->core->sema_eval(S, p->list.items[0]), v;
        if (!S->up->sema_host_dtype(S, p->list.items[1], &v)) v = S->core->sema_eval(S, p->list.items[1]); /* {qd.f32: np.float32} */
        if (k.kind == V_ERR || v.kind == V_ERR || !dict_key(S, k, p->list.items[0]->span, true)) return val_err();
        dict_put(S, &d, k, v);
    }
    for (int i = 0; i < call->call.nkw; i++) {
        Val v = S->core->sema_eval(S, call->call.kw[i].value);
        if (v.kind == V_ERR) return v;
        dict_put(S, &d, (Val){.kind = V_STR, .path = call->call.kw[i].name}, v);
    }
    return d;
}

Val sema_dict_method_call(Sema *S, const Expr *call, Val d, const char *name) {
    if (call->call.args.n || call->call.nkw)
        return diag_error(call->span, QD2007, "dict.%s takes no arguments", name), val_err();
    Val *items = ARENA_ARRAY(S->arena, Val, d.dict.n ? d.dict.n : 1);
    for (int i = 0; i < d.dict.n; i++) {
        Val pair[2] = {d.dict.keys[i], d.dict.vals[i]};
        items[i] = name[0] == 'i' ? tuple_of(S, pair, 2) : name[0] == 'k' ? d.dict.keys[i] : d.dict.vals[i];
    }
    return tuple_of(S, items, d.dict.n);
}

Val sema_dict_get(Sema *S, Val d, const Expr *key) {
    Val k = S->core->sema_eval(S, key);
    if (k.kind == V_ERR || !dict_key(S, k, key->span, false)) return val_err();
    for (int i = 0; i < d.dict.n; i++)
        if (same_value(S, d.dict.keys[i], k) == 1) return d.dict.vals[i];
    diag_error(key->span, QD2011, "the key is not in the dict (Python raises KeyError)");
    return val_err();
}

/* ---- host assert and raise ---- */

/* Python's truth of a value the evaluator computed: 1, 0, or -1 when it is not a value it
 * knows (a run-time expression, an object, a function). */
static int known_truth(Val v) {
    switch (v.kind) {
    case V_EXPR:
        return val_host_truth(v);
    case V_NONE: return 0;
    case V_STR: return *v.path != 0;
    case V_TUPLE: return v.tuple.n > 0;
    case V_DICT: return v.dict.n > 0;
    default: return -1;
    }
}

/* The text an assert's message or an exception's argument gives, evaluated as Python would;
 * its source text when qdc cannot compute it. */
static const char *message_text(Sema *S, const Expr *m) {
    int mark = diag_quiet_begin();
    Val v = S->core->sema_is_host_expr(S, m) ? val_err() : S->core->sema_eval(S, m);
    bool failed = diag_quiet_end(mark) > 0;
    if (!failed && v.kind == V_STR) return v.path;
    const Source *src = m->span.src ? m->span.src : S->src;
    return arena_strndup(S->arena, src->text + m->span.off, m->span.len);
}

/* Whether e reads only values the evaluator computes itself and the script cannot change
 * behind its back: literals, names bound to numbers, strings or None, attributes of plain
 * objects and dataclass instances, arithmetic, comparisons (not `is`), calls of functions and
 * methods it evaluates and of abs/min/max/int/float/str/bool. Not: lists and their len() (code
 * qdc does not run may append), qd.* and module attributes (Quadrants' run-time objects),
 * data-oriented instances (kernels), vectors. */
/* A `global NAME` or `nonlocal NAME` statement anywhere in src: a function qdc does not run
 * may rebind NAME (a callback setting a flag the script asserts). */
static bool rebound_elsewhere(const Source *src, const char *name) {
    size_t n = strlen(name);
    for (const char *p = src->text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        while (*p == ' ' || *p == '\t') p++;
        const char *q = !strncmp(p, "global ", 7) ? p + 7 : !strncmp(p, "nonlocal ", 9) ? p + 9 : NULL;
        for (; q && *q && *q != '\n' && *q != '#' && *q != ';'; q++) {
            while (*q == ' ' || *q == ',' || *q == '\t') q++;
            size_t len = strcspn(q, " ,\t\n#;");
            if (len == n && !strncmp(q, name, n)) return true;
            q += len ? len - 1 : 0;
            if (!*q || *q == '\n') break;
        }
    }
    return false;
}

static bool self_computed(Sema *S, const Expr *e) {
    static const char *const builtins[] = {"abs", "min", "max", "int", "float", "str", "bool"};
    switch (e->kind) {
    case E_INT: case E_FLOAT: case E_BOOL: case E_NONE: return true;
    case E_STR:
        if (!e->fstr) return true;
        return sema_fstring_known(S, e);
    case E_NAME: {
        Binding *b = S->core->sema_lookup(S, e->name);
        if (!b || rebound_elsewhere(e->span.src ? e->span.src : S->src, e->name)) return false;
        return val_is_host_scalar(b->v) || b->v.kind == V_STR || b->v.kind == V_NONE || b->v.kind == V_PYINT;
    }
    case E_ATTR: {
        if (e->attr.obj->kind != E_NAME) return false;
        Binding *b = S->core->sema_lookup(S, e->attr.obj->name);
        if (!b) return false;
        return b->v.kind == V_PYDC || (b->v.kind == V_OBJECT && S->classes.items[b->v.obj->cls].plain) ||
               (b->v.kind == V_CLASS && S->classes.items[b->v.index].plain);
    }
    case E_UNARY: return self_computed(S, e->un.a);
    case E_BINARY: return self_computed(S, e->bin.a) && self_computed(S, e->bin.b);
    case E_BOOLOP:
        for (int k = 0; k < e->list.n; k++)
            if (!self_computed(S, e->list.items[k])) return false;
        return true;
    case E_COMPARE:
        for (int k = 0; k + 1 < e->cmp.items.n; k++)
            if (e->cmp.ops[k] == T_KW_IS || e->cmp.ops[k] == T_KW_NOT) return false;
        for (int k = 0; k < e->cmp.items.n; k++)
            if (!self_computed(S, e->cmp.items.items[k])) return false;
        return true;
    case E_IFEXP: return self_computed(S, e->ifexp.cond) && self_computed(S, e->ifexp.a) && self_computed(S, e->ifexp.b);
    case E_CALL: {
        const Expr *fn = e->call.fn;
        bool ok = false;
        if (fn->kind == E_NAME) {
            Binding *b = S->core->sema_lookup(S, fn->name);
            ok = b && b->v.kind == V_PYFUNC;
            for (size_t k = 0; !b && k < ARRAY_LEN(builtins); k++) ok |= !strcmp(fn->name, builtins[k]);
        } else {
            ok = self_computed(S, fn);
        }
        for (int k = 0; ok && k < e->call.args.n; k++) ok = self_computed(S, e->call.args.items[k]);
        for (int k = 0; ok && k < e->call.nkw; k++) ok = self_computed(S, e->call.kw[k].value);
        return ok;
    }
    default: return false;
    }
}

/* `assert cond[, msg]` and `raise E(msg)` in host code (module level, a host function, a
 * method) that the evaluator reaches: Python stops the script there, so a condition qdc
 * computes as false, or a raise it runs, is QD2180 quoting the message. Not reported: a
 * condition qdc cannot compute (it depends on values known when the script runs), code in a
 * try block or `with pytest.raises(...)` (the script catches or expects it), a branch of an
 * if qdc cannot decide (never run, sema_host_if), a function's trial run. */
void sema_host_assert(Sema *S, const Stmt *s) {
    if (S->raises || S->pyfunc_trying) return;
    if (s->assert_.cond) {
        const Expr *c = s->assert_.cond;
        if (!self_computed(S, c) || S->core->sema_is_host_expr(S, c)) return;
        int mark = diag_quiet_begin();
        Val v = S->core->sema_eval(S, c);
        if (diag_quiet_end(mark) || known_truth(v) != 0) return;
        const char *text = message_text(S, s->assert_.msg ? s->assert_.msg : c);
        diag_error(s->span, QD2180, "assertion failed at compile time: %s", text);
    } else {
        if (!S->pyfunc_body) return; /* only in a function qdc runs because it only computes: its ifs depend on its arguments */
        const Expr *e = s->assert_.msg, *fn = e->kind == E_CALL ? e->call.fn : e;
        const char *name = fn->kind == E_NAME ? fn->name : fn->kind == E_ATTR ? fn->attr.name : "an exception";
        if (e->kind == E_CALL && e->call.args.n) diag_error(s->span, QD2180, "%s raised at compile time: %s", name, message_text(S, e->call.args.items[0]));
        else diag_error(s->span, QD2180, "%s raised at compile time", name);
        if (S->pyfunc_call) /* where the script calls the function that raises */
            diag_note(S->pyfunc_call->span, "raised in this call of '%s'", S->core->sema_path(S, S->pyfunc_call->call.fn) ? S->core->sema_path(S, S->pyfunc_call->call.fn)
                      : S->pyfunc_call->call.fn->kind == E_NAME ? S->pyfunc_call->call.fn->name : "a function");
    }
    if (S->pyfunc_body) S->host_returned = true, S->host_ret = val_err(); /* the call ends there */
}

/* Numpy values whose contents the evaluator computes (issue 30): np.array of compile-time
 * items, np.zeros/ones/empty/full, np.arange, np.linspace, their arithmetic (numpy's
 * broadcasting and dtype rules for Python and numpy operands), indexing and slicing, astype,
 * reshape, T, copy, flatten, tolist, item, sum/prod/max/min/mean, .shape/.size/.ndim/.dtype,
 * unpacking and iteration. Such an array is a V_HOSTARRAY whose harr.np holds its elements
 * row-major; a kernel call passing it still sees a dtype, an ndim and a shape. A numpy scalar
 * (a[2], np.sum(a), a 0-d array) is a host scalar, as Quadrants makes one a constant of
 * default_ip / default_fp when a kernel reads it (expr.py, make_constant_expr).
 *
 * Contents are kept while the size budget has room for them (charged per element); past it an
 * array is what it was before this model, a dtype and a shape. They are forgotten (`lost`, for
 * every name bound to the array) when the script may change them without qdc seeing how: the
 * array passed to a kernel, an element stored from a run-time value, a method or numpy function
 * qdc does not model. */
#include "py.h"
#include "value.h"
#include <math.h>
#include <string.h>

typedef union { int64_t i; double f; } NpNum;
/* shared: v is also a kernel's snapshot's (copied before a store). A view a slice makes that is
 * neither C- nor Fortran-contiguous sets the value's harr.strided, as sema_generic.c's shapes do. */
struct NpData { int64_t n; NpNum *v; bool lost, shared; };

typedef struct { /* an operand: an array with contents, or a scalar (a Python one: py) */
    QdType t;
    int nd;
    const int64_t *shape;
    const NpNum *v;
    int64_t n;
    bool py;
    NpNum one;
} Operand;


bool sema_np_known(Val v) { return v.kind == V_HOSTARRAY && v.harr.np && !v.harr.np->lost && !v.harr.en && v.harr.shape; }

void sema_np_forget(Val v) {
    if (v.kind == V_HOSTARRAY && v.harr.np) v.harr.np->lost = true;
}

static bool np_module(Sema *S, const Expr *e) {
    if (e->kind != E_NAME || (strcmp(e->name, "np") && strcmp(e->name, "numpy"))) return false;
    Binding *b = S->core->sema_lookup(S, e->name);
    return b && b->v.kind == V_HOST && !strcmp(b->v.path, "a module the script imports");
}

/* e is an expression whose value this model may compute: a numpy call, a name bound to an array
 * with contents, or an operator, subscript, attribute or method of one. */
bool sema_np_rooted(Sema *S, const Expr *e) {
    switch (e->kind) {
    case E_NAME: {
        Binding *b = S->core->sema_lookup(S, e->name);
        return b && sema_np_known(b->v);
    }
    case E_CALL:
        if (e->call.fn->kind != E_ATTR) return false;
        return np_module(S, e->call.fn->attr.obj) || sema_np_rooted(S, e->call.fn->attr.obj);
    case E_ATTR: return sema_np_rooted(S, e->attr.obj);
    case E_SUBSCRIPT: return sema_np_rooted(S, e->sub.obj);
    case E_UNARY: return sema_np_rooted(S, e->un.a);
    case E_BINARY: return sema_np_rooted(S, e->bin.a) || sema_np_rooted(S, e->bin.b);
    default: return false;
    }
}

/* ---- elements ---- */

/* x (a float when xf) stored as dtype t: numpy's conversion (floats truncate toward zero, ints wrap). */
static NpNum conv(NpNum x, bool xf, QdType t) {
    NpNum r;
    if (qt_is_float(t)) {
        r.f = xf ? x.f : (double)x.i;
        if (t == QT_F32) r.f = (float)r.f;
        return r;
    }
    int64_t i = x.i;
    if (xf) i = isfinite(x.f) && fabs(x.f) < 9.2e18 ? (int64_t)x.f : INT64_MIN;
    if (t == QT_U1) return r.i = xf ? x.f != 0 : x.i != 0, r;
    int b = qt_bits(t);
    if (b >= 64) return r.i = i, r;
    uint64_t m = (UINT64_C(1) << b) - 1, u = (uint64_t)i & m;
    r.i = qt_is_signed(t) && (u >> (b - 1)) & 1 ? (int64_t)(u | ~m) : (int64_t)u;
    return r;
}

static int64_t count(int nd, const int64_t *shape) {
    int64_t n = 1;
    for (int d = 0; d < nd; d++) n *= shape[d];
    return n;
}

/* A new array of dtype t; NULL contents when the size budget has no room for them (the array is
 * then a dtype and a shape, as before this model). */
static Val make(Sema *S, QdType t, int nd, const int64_t *shape, Span sp, NpNum **v) {
    int64_t n = count(nd, shape), *sh = ARENA_ARRAY(S->arena, int64_t, nd ? nd : 1);
    memcpy(sh, shape, sizeof(int64_t) * (size_t)nd);
    Val a = {.kind = V_HOSTARRAY, .harr = {.type = t, .ndim = (signed char)nd, .shape = sh}};
    *v = NULL;
    EvalBudget *b = &S->budget;
    if (b->exhausted || n > b->limit[EB_SIZE] - b->used[EB_SIZE] || !budget_charge(b, EB_SIZE, n, sp)) return a;
    struct NpData *d = ARENA_NEW(S->arena, struct NpData);
    d->n = n, d->v = ARENA_ARRAY(S->arena, NpNum, n ? n : 1);
    a.harr.np = d, *v = d->v;
    return a;
}

/* One element as the value a kernel or host code reads: a Python int, float or bool. */
static Val scalar_val(Sema *S, QdType t, NpNum x, Span sp) {
    if (qt_is_float(t)) return val_float(S, S->k ? S->default_fp : QT_F64, x.f, sp);
    if (t == QT_U1) return val_bool(S, x.i != 0, sp);
    if (t == QT_U64 && x.i < 0) return val_int(S, (__int128)(uint64_t)x.i, sp);
    return val_int(S, x.i, sp);
}

/* A host scalar as an operand: a Python int, float or bool (py), or a numpy scalar of its type. */
static bool scalar_operand(Val v, Operand *o) {
    if (!val_is_host_scalar(v)) return false;
    QdType t = val_host_type(v);
    *o = (Operand){.nd = 0, .n = 1, .py = true};
    if (qt_is_float(t)) o->t = t == QT_F32 ? QT_F32 : QT_F64, o->py = t != QT_F32, o->one.f = val_host_f64(v);
    else if (t == QT_U1) o->t = QT_U1, o->one.i = val_host_u64(v) != 0;
    else o->t = val_is_py_int(v) ? QT_I64 : t, o->py = val_is_py_int(v), o->one.i = val_host_i64(v);
    o->v = &o->one;
    return true;
}

static bool operand(Val v, Operand *o) {
    if (sema_np_known(v)) {
        *o = (Operand){.t = v.harr.type, .nd = v.harr.ndim, .shape = v.harr.shape, .v = v.harr.np->v, .n = v.harr.np->n};
        return true;
    }
    return scalar_operand(v, o);
}

/* An array's value or, when it has no axes, its one element. */
static Val result(Sema *S, Val a, Span sp) {
    if (!a.harr.np || a.harr.ndim) return a;
    return scalar_val(S, a.harr.type, a.harr.np->v[0], sp);
}

/* The array's elements, ready for a store: copied first when a kernel's snapshot shares them
 * (charged to the size budget; false, the contents forgotten, when it has no room). */
static bool writable(Sema *S, struct NpData *d, Span sp) {
    if (!d->shared) return true;
    EvalBudget *b = &S->budget;
    if (b->exhausted || d->n > b->limit[EB_SIZE] - b->used[EB_SIZE] || !budget_charge(b, EB_SIZE, d->n, sp)) return d->lost = true, false;
    NpNum *v = ARENA_ARRAY(S->arena, NpNum, d->n ? d->n : 1);
    memcpy(v, d->v, sizeof(NpNum) * (size_t)d->n);
    d->v = v, d->shared = false;
    return true;
}

/* ---- dtypes ---- */

static int rank_kind(QdType t) { return t == QT_U1 ? 0 : qt_is_int(t) ? 1 : 2; }

/* numpy's result dtype for a binary operator (NEP 50: a Python scalar takes the array's dtype
 * unless it is of a higher kind). */
static QdType promote(const Operand *a, const Operand *b) {
    if (a->py && !b->py) return promote(b, a);
    if (b->py && !a->py) {
        if (rank_kind(b->t) <= rank_kind(a->t)) return a->t;
        return b->t == QT_F64 ? QT_F64 : QT_I64; /* bool array + 1: int64; int array + 0.5: float64 */
    }
    QdType x = a->t, y = b->t;
    if (x == y) return x;
    if (rank_kind(x) > rank_kind(y)) { QdType s = x; x = y; y = s; }
    if (qt_is_float(y)) {
        if (qt_is_float(x)) return qt_bits(x) > qt_bits(y) ? x : y;
        if (x == QT_U1 || qt_bits(x) <= 16 || y == QT_F64) return y;
        return QT_F64;
    }
    if (x == QT_U1) return y;
    if (qt_is_signed(x) == qt_is_signed(y)) return qt_bits(x) > qt_bits(y) ? x : y;
    QdType s = qt_is_signed(x) ? x : y, u = qt_is_signed(x) ? y : x;
    if (qt_bits(u) < qt_bits(s)) return s;
    if (qt_bits(u) == 64) return QT_F64;
    return qt_int_of_width(qt_bits(u) * 2, true);
}

/* ---- broadcasting ---- */

static bool broadcast(const Operand *a, const Operand *b, int *nd, int64_t *shape) {
    *nd = a->nd > b->nd ? a->nd : b->nd;
    for (int d = 0; d < *nd; d++) {
        int da = d - (*nd - a->nd), db = d - (*nd - b->nd);
        int64_t x = da >= 0 ? a->shape[da] : 1, y = db >= 0 ? b->shape[db] : 1;
        if (x != y && x != 1 && y != 1) return false;
        shape[d] = x == 1 ? y : x;
    }
    return true;
}

/* The flat index into o of result element k (result shape nd, shape). */
static int64_t source_index(const Operand *o, int nd, const int64_t *shape, int64_t k) {
    int64_t idx = 0, stride = 1;
    for (int d = nd - 1; d >= 0; d--) {
        int64_t c = k % shape[d];
        k /= shape[d];
        int od = d - (nd - o->nd);
        if (od < 0) continue;
        if (o->shape[od] != 1) idx += c * stride;
        stride *= o->shape[od];
    }
    return idx;
}

static int64_t floordiv(int64_t a, int64_t b) {
    if (!b) return 0; /* numpy: 0 and a warning */
    if (a == INT64_MIN && b == -1) return a;
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t ipow(int64_t a, int64_t b) {
    uint64_t r = 1, x = (uint64_t)a;
    for (; b > 0; b >>= 1, x *= x)
        if (b & 1) r *= x;
    return (int64_t)r;
}

/* x OP y in dtype t (both already of t); false for what numpy refuses (an int to a negative power). */
static bool apply(int op, QdType t, NpNum x, NpNum y, NpNum *r) {
    if (qt_is_float(t)) {
        double a = x.f, b = y.f, v;
        switch (op) {
        case T_PLUS: v = a + b; break;
        case T_MINUS: v = a - b; break;
        case T_STAR: v = a * b; break;
        case T_SLASH: v = a / b; break;
        case T_FDIV: v = floor(a / b); break;
        case T_PERCENT: v = b != 0 ? a - floor(a / b) * b : NAN; break;
        case T_POW: v = pow(a, b); break;
        default: return false;
        }
        *r = conv((NpNum){.f = v}, true, t);
        return true;
    }
    int64_t a = x.i, b = y.i;
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b, v;
    switch (op) {
    case T_PLUS: v = ua + ub; break;
    case T_MINUS: v = ua - ub; break;
    case T_STAR: v = ua * ub; break;
    case T_FDIV: v = (uint64_t)floordiv(a, b); break;
    case T_PERCENT: v = b ? (uint64_t)(a - floordiv(a, b) * b) : 0; break;
    case T_POW:
        if (b < 0) return false;
        v = (uint64_t)ipow(a, b);
        break;
    case T_AMP: v = ua & ub; break;
    case T_PIPE: v = ua | ub; break;
    case T_CARET: v = ua ^ ub; break;
    case T_SHL: v = b < 0 || b >= 64 ? 0 : ua << b; break;
    case T_SHR: v = b < 0 || b >= 64 ? (a < 0 ? UINT64_MAX : 0) : (uint64_t)(a >> b); break;
    default: return false;
    }
    if (t == QT_U1 && (op == T_PLUS || op == T_STAR)) v = v != 0; /* bool + bool: logical or */
    else if (t == QT_U1 && op != T_AMP && op != T_PIPE && op != T_CARET) return false;
    *r = conv((NpNum){.i = (int64_t)v}, false, t);
    return true;
}

/* a OP b where one of them is an array with contents: numpy's element-wise result. */
bool sema_np_binary(Sema *S, int op, Val a, Val b, Span sp, Val *out) {
    if (!sema_np_known(a) && !sema_np_known(b)) return false;
    Operand x, y;
    if (!operand(a, &x) || !operand(b, &y)) return false;
    QdType t = promote(&x, &y);
    if (op == T_SLASH && !qt_is_float(t)) t = QT_F64; /* true division */
    if ((op == T_AMP || op == T_PIPE || op == T_CARET || op == T_SHL || op == T_SHR) && qt_is_float(t)) return false;
    int nd;
    int64_t shape[PY_MAX_DIMS];
    if (!broadcast(&x, &y, &nd, shape)) return false;
    NpNum *v;
    Val r = make(S, t, nd, shape, sp, &v);
    if (!v) return *out = r, true;
    for (int64_t k = 0; k < r.harr.np->n; k++) {
        NpNum p = conv(x.v[source_index(&x, nd, shape, k)], qt_is_float(x.t), t);
        NpNum q = conv(y.v[source_index(&y, nd, shape, k)], qt_is_float(y.t), t);
        if (!apply(op, t, p, q, &v[k])) return false;
    }
    return *out = result(S, r, sp), true;
}

bool sema_np_unary(Sema *S, int op, Val a, Span sp, Val *out) {
    if (!sema_np_known(a)) return false;
    QdType t = a.harr.type;
    if ((op == T_MINUS && t == QT_U1) || (op == T_TILDE && qt_is_float(t)) || (op != T_MINUS && op != T_PLUS && op != T_TILDE)) return false;
    NpNum *v;
    Val r = make(S, t, a.harr.ndim, a.harr.shape, sp, &v);
    for (int64_t k = 0; v && k < r.harr.np->n; k++) {
        NpNum x = a.harr.np->v[k];
        if (op == T_PLUS) v[k] = x;
        else if (op == T_MINUS) v[k] = qt_is_float(t) ? (NpNum){.f = -x.f} : conv((NpNum){.i = (int64_t)(0 - (uint64_t)x.i)}, false, t);
        else v[k] = t == QT_U1 ? (NpNum){.i = !x.i} : conv((NpNum){.i = ~x.i}, false, t);
    }
    return *out = r, true;
}

/* ---- building arrays ---- */

typedef struct {
    VEC(NpNum) v;
    VEC(char) fl; /* each item a float */
    int nd;
    int64_t shape[PY_MAX_DIMS];
    bool anyf, allb, typed;
    QdType t; /* the dtype of numpy items (typed) */
} Flat;

static bool flatten(Val v, int d, Flat *f) {
    if (v.kind == V_TUPLE || sema_np_known(v)) {
        if (d >= PY_MAX_DIMS) return false;
        int64_t n = v.kind == V_TUPLE ? v.tuple.n : v.harr.shape[0];
        if (v.kind == V_HOSTARRAY && !v.harr.ndim) return false;
        if (f->nd < 0 && !n) { /* np.array([]): float64, shape (0,) */
            f->nd = d + 1, f->shape[d] = 0;
            return true;
        }
        if (f->nd >= 0 && (d >= f->nd || f->shape[d] != n)) return false;
        if (f->nd < 0) f->shape[d] = n;
        if (v.kind == V_TUPLE) {
            for (int k = 0; k < v.tuple.n; k++)
                if (!flatten(v.tuple.items[k], d + 1, f)) return false;
            return true;
        }
        int nd = v.harr.ndim; /* an array item: its axes follow */
        if (f->nd < 0) {
            if (d + nd > PY_MAX_DIMS) return false;
            f->nd = d + nd;
            memcpy(f->shape + d, v.harr.shape, sizeof(int64_t) * (size_t)nd);
        } else if (f->nd != d + nd || memcmp(f->shape + d, v.harr.shape, sizeof(int64_t) * (size_t)nd)) {
            return false;
        }
        bool fl = qt_is_float(v.harr.type);
        f->t = f->typed ? (f->t == v.harr.type ? f->t : QT_VOID) : v.harr.type, f->typed = true;
        for (int64_t k = 0; k < v.harr.np->n; k++) {
            vec_push(&f->v, v.harr.np->v[k]);
            vec_push(&f->fl, fl);
        }
        f->anyf |= fl, f->allb &= v.harr.type == QT_U1;
        return true;
    }
    Operand o;
    if (!scalar_operand(v, &o)) return false;
    if (f->nd < 0) f->nd = d;
    if (f->nd != d) return false;
    bool fl = qt_is_float(o.t);
    vec_push(&f->v, o.one);
    vec_push(&f->fl, fl);
    f->anyf |= fl, f->allb &= o.t == QT_U1;
    if (!o.py) f->t = f->typed ? (f->t == o.t ? f->t : QT_VOID) : o.t, f->typed = true;
    return true;
}

static const Expr *kwarg(const Expr *call, const char *name) {
    for (int k = 0; k < call->call.nkw; k++)
        if (call->call.kw[k].name && !strcmp(call->call.kw[k].name, name)) return call->call.kw[k].value;
    return NULL;
}

/* Argument k (positional) or the keyword name: evaluated, V_NONE when absent. */
static Val arg(Sema *S, const Expr *call, int k, const char *name, bool *ok) {
    const Expr *e = k >= 0 && k < call->call.args.n ? call->call.args.items[k] : name ? kwarg(call, name) : NULL;
    if (!e) return (Val){.kind = V_NONE};
    if (e->kind == E_STARRED) return *ok = false, val_err();
    Val v = S->core->sema_eval(S, e);
    if (v.kind == V_ERR) *ok = false;
    return v;
}

static QdType dtype_arg(Sema *S, const Expr *call, int k, bool *ok) {
    const Expr *e = k >= 0 && k < call->call.args.n ? call->call.args.items[k] : kwarg(call, "dtype");
    if (!e || e->kind == E_NONE) return QT_VOID;
    QdType t = S->up->sema_numpy_dtype(S, e);
    if (t == QT_VOID) {
        Val v = S->core->sema_eval(S, e); /* qd.f32, float, int, bool */
        if (v.kind == V_TYPE) t = v.type;
        else if (v.kind == V_NS && !strcmp(v.path, "float")) t = QT_F64;
        else if (v.kind == V_NS && !strcmp(v.path, "int")) t = QT_I64;
        else if (v.kind == V_NS && !strcmp(v.path, "bool")) t = QT_U1;
    }
    if (t == QT_VOID || t == QT_F16) *ok = false;
    return t;
}

/* A shape: an int or a sequence of ints. */
static int shape_of(Val v, int64_t *shape) {
    Operand o;
    if (scalar_operand(v, &o) && qt_is_int(o.t)) return shape[0] = o.one.i, o.one.i < 0 ? -1 : 1;
    Val *items = v.kind == V_TUPLE ? v.tuple.items : NULL;
    int n = v.kind == V_TUPLE ? v.tuple.n : 0;
    if (!items && v.kind != V_TUPLE) {
        if (!sema_np_known(v) || v.harr.ndim != 1 || !qt_is_integral(v.harr.type)) return -1;
        n = (int)v.harr.shape[0];
        if (n > PY_MAX_DIMS) return -1;
        for (int k = 0; k < n; k++) shape[k] = v.harr.np->v[k].i;
        return n;
    }
    if (n > PY_MAX_DIMS) return -1;
    for (int k = 0; k < n; k++) {
        if (!scalar_operand(items[k], &o) || !qt_is_int(o.t) || o.one.i < 0) return -1;
        shape[k] = o.one.i;
    }
    return n;
}

static Val filled(Sema *S, QdType t, int nd, const int64_t *shape, NpNum x, bool xf, Span sp) {
    NpNum *v;
    Val r = make(S, t, nd, shape, sp, &v);
    NpNum c = conv(x, xf, t);
    for (int64_t k = 0; v && k < r.harr.np->n; k++) v[k] = c;
    return r;
}

/* Reductions without an axis: sum and prod in numpy's accumulator type (int64 for smaller ints
 * and bools, uint64 for unsigned), max and min in the array's, mean in float64 (float32 stays). */
static bool reduce(Sema *S, const char *f, Val a, Span sp, Val *out) {
    QdType t = a.harr.type;
    const NpNum *v = a.harr.np->v;
    int64_t n = a.harr.np->n;
    bool fl = qt_is_float(t);
    if (!strcmp(f, "sum") || !strcmp(f, "prod") || !strcmp(f, "mean")) {
        bool prod = f[0] == 'p';
        QdType acc = fl ? t : qt_is_int(t) && !qt_is_signed(t) ? QT_U64 : QT_I64;
        if (f[0] == 'm') {
            if (!n) return false;
            acc = fl ? t : QT_F64;
        }
        NpNum s = conv((NpNum){.i = prod ? 1 : 0}, false, acc);
        for (int64_t k = 0; k < n; k++) apply(prod ? T_STAR : T_PLUS, acc, s, conv(v[k], fl, acc), &s);
        if (f[0] == 'm') apply(T_SLASH, acc, s, conv((NpNum){.i = n}, false, acc), &s);
        return *out = scalar_val(S, acc, s, sp), true;
    }
    bool max = !strcmp(f, "max") || !strcmp(f, "amax"), min = !strcmp(f, "min") || !strcmp(f, "amin");
    if ((!max && !min) || !n) return false;
    NpNum best = v[0];
    for (int64_t k = 1; k < n; k++) {
        bool gt = fl ? v[k].f > best.f : qt_is_signed(t) || t == QT_U1 ? v[k].i > best.i : (uint64_t)v[k].i > (uint64_t)best.i;
        bool lt = fl ? v[k].f < best.f : qt_is_signed(t) || t == QT_U1 ? v[k].i < best.i : (uint64_t)v[k].i < (uint64_t)best.i;
        if (fl && isnan(v[k].f)) best = v[k];
        else if ((max && gt) || (min && lt)) best = v[k];
    }
    return *out = scalar_val(S, t, best, sp), true;
}

static Val tolist(Sema *S, QdType t, int nd, const int64_t *shape, const NpNum *v, Span sp) {
    if (!nd) return scalar_val(S, t, v[0], sp);
    Val r = {.kind = V_TUPLE, .tuple = {ARENA_ARRAY(S->arena, Val, shape[0] ? shape[0] : 1), (int)shape[0]}};
    int64_t inner = count(nd - 1, shape + 1);
    for (int64_t k = 0; k < shape[0]; k++) r.tuple.items[k] = tolist(S, t, nd - 1, shape + 1, v + k * inner, sp);
    return r;
}

static Val copy_of(Sema *S, Val a, QdType t, int nd, const int64_t *shape, Span sp) {
    NpNum *v;
    Val r = make(S, t, nd, shape, sp, &v);
    for (int64_t k = 0; v && k < r.harr.np->n; k++) v[k] = conv(a.harr.np->v[k], qt_is_float(a.harr.type), t);
    return r;
}

static Val transposed(Sema *S, Val a, Span sp) {
    int nd = a.harr.ndim;
    int64_t shape[PY_MAX_DIMS];
    for (int d = 0; d < nd; d++) shape[d] = a.harr.shape[nd - 1 - d];
    NpNum *v;
    Val r = make(S, a.harr.type, nd, shape, sp, &v);
    for (int64_t k = 0; v && k < r.harr.np->n; k++) { /* element k of the result reads the source at the reversed index */
        int64_t rest = k, idx = 0, c[PY_MAX_DIMS];
        for (int d = nd - 1; d >= 0; d--) c[d] = rest % shape[d], rest /= shape[d];
        for (int d = 0; d < nd; d++) idx = idx * a.harr.shape[d] + c[nd - 1 - d];
        v[k] = a.harr.np->v[idx];
    }
    return r;
}

/* A method of an array with contents (a numpy scalar's item/tolist too). */
static bool method(Sema *S, Val a, const Expr *call, Val *out) {
    const char *m = call->call.fn->attr.name;
    bool ok = true;
    Span sp = call->span;
    if (!sema_np_known(a)) {
        if (val_is_host_scalar(a) && (!strcmp(m, "item") || !strcmp(m, "tolist")) && !call->call.args.n) return *out = a, true;
        return false;
    }
    int nargs = call->call.args.n;
    if (!strcmp(m, "copy") && !nargs) return *out = copy_of(S, a, a.harr.type, a.harr.ndim, a.harr.shape, sp), true;
    if ((!strcmp(m, "flatten") || !strcmp(m, "ravel")) && !nargs) {
        int64_t n = a.harr.np->n;
        return *out = copy_of(S, a, a.harr.type, 1, &n, sp), true;
    }
    if (!strcmp(m, "astype") && nargs == 1) {
        QdType t = dtype_arg(S, call, 0, &ok);
        if (!ok) return false;
        return *out = result(S, copy_of(S, a, t, a.harr.ndim, a.harr.shape, sp), sp), true;
    }
    if (!strcmp(m, "reshape") && nargs >= 1) {
        int64_t shape[PY_MAX_DIMS];
        int nd;
        if (nargs == 1) {
            nd = shape_of(arg(S, call, 0, NULL, &ok), shape);
            if (nd < 0) { /* -1 in a tuple: shape_of refuses negatives */
                Val s = arg(S, call, 0, NULL, &ok);
                Operand o;
                nd = s.kind == V_TUPLE && s.tuple.n <= PY_MAX_DIMS ? s.tuple.n : scalar_operand(s, &o) ? 1 : -1;
                for (int k = 0; k < nd; k++)
                    if (!scalar_operand(s.kind == V_TUPLE ? s.tuple.items[k] : s, &o) || !qt_is_int(o.t)) return false;
                    else shape[k] = o.one.i;
            }
        } else {
            nd = nargs;
            if (nd > PY_MAX_DIMS) return false;
            for (int k = 0; k < nd; k++) {
                Operand o;
                if (!scalar_operand(arg(S, call, k, NULL, &ok), &o) || !qt_is_int(o.t)) return false;
                shape[k] = o.one.i;
            }
        }
        if (!ok || nd < 0) return false;
        int unknown = -1;
        int64_t n = 1;
        for (int d = 0; d < nd; d++) {
            if (shape[d] == -1 && unknown < 0) unknown = d;
            else if (shape[d] < 0) return false;
            else n *= shape[d];
        }
        if (unknown >= 0) {
            if (!n || a.harr.np->n % n) return false;
            shape[unknown] = a.harr.np->n / n, n = a.harr.np->n;
        }
        if (n != a.harr.np->n) return false;
        return *out = result(S, copy_of(S, a, a.harr.type, nd, shape, sp), sp), true;
    }
    if (!strcmp(m, "transpose") && !nargs) return *out = transposed(S, a, sp), true;
    if (!strcmp(m, "tolist") && !nargs) return *out = tolist(S, a.harr.type, a.harr.ndim, a.harr.shape, a.harr.np->v, sp), true;
    if (!strcmp(m, "item") && !nargs && a.harr.np->n == 1) return *out = scalar_val(S, a.harr.type, a.harr.np->v[0], sp), true;
    if (!nargs && !call->call.nkw && reduce(S, m, a, sp, out)) return true;
    if (!strcmp(m, "fill") && nargs == 1) {
        Operand o;
        if (!scalar_operand(arg(S, call, 0, NULL, &ok), &o)) return sema_np_forget(a), false;
        NpNum c = conv(o.one, qt_is_float(o.t), a.harr.type);
        if (!writable(S, a.harr.np, sp)) return false;
        for (int64_t k = 0; k < a.harr.np->n; k++) a.harr.np->v[k] = c;
        return *out = (Val){.kind = V_NONE}, true;
    }
    sema_np_forget(a); /* a method qdc does not model may change the array (sort, put, resize) */
    return false;
}

/* np.NAME(...) of compile-time arguments. */
static bool np_function(Sema *S, const Expr *call, Val *out) {
    const char *f = call->call.fn->attr.name;
    Span sp = call->span;
    bool ok = true;
    int64_t shape[PY_MAX_DIMS];
    if (!strcmp(f, "array") || !strcmp(f, "asarray") || !strcmp(f, "ascontiguousarray")) {
        Val x = arg(S, call, 0, "object", &ok);
        QdType t = dtype_arg(S, call, 1, &ok);
        if (!ok || x.kind == V_NONE) return false;
        if (!strcmp(f, "asarray") && t == QT_VOID && sema_np_known(x)) return *out = x, true; /* the same array */
        Flat fl = {.nd = -1, .allb = true};
        bool good = flatten(x, 0, &fl);
        QdType dt = t != QT_VOID ? t : fl.typed && fl.t != QT_VOID && !(fl.anyf && !qt_is_float(fl.t)) ? fl.t
                                                 : fl.anyf || !fl.v.len ? QT_F64 : fl.allb ? QT_U1 : QT_I64;
        Val r = {0};
        NpNum *v = NULL;
        if (good) {
            r = make(S, dt, fl.nd, fl.shape, sp, &v);
            for (int k = 0; v && k < fl.v.len; k++) v[k] = conv(fl.v.items[k], fl.fl.items[k], dt);
        }
        vec_free(&fl.v), vec_free(&fl.fl);
        if (!good) return false;
        return *out = result(S, r, sp), true;
    }
    if (!strcmp(f, "zeros") || !strcmp(f, "ones") || !strcmp(f, "empty") || !strcmp(f, "full")) {
        bool full = f[0] == 'f';
        int nd = shape_of(arg(S, call, 0, "shape", &ok), shape);
        Val fill = full ? arg(S, call, 1, "fill_value", &ok) : (Val){.kind = V_NONE};
        QdType t = dtype_arg(S, call, full ? 2 : 1, &ok);
        Operand o = {.t = QT_F64, .one = {.f = f[0] == 'o' ? 1.0 : 0.0}};
        if (!ok || nd < 0 || (full && !scalar_operand(fill, &o))) return false;
        if (t == QT_VOID) t = full ? (o.py ? (qt_is_float(o.t) ? QT_F64 : o.t == QT_U1 ? QT_U1 : QT_I64) : o.t) : QT_F64;
        return *out = result(S, filled(S, t, nd, shape, o.one, qt_is_float(o.t), sp), sp), true;
    }
    if (!strcmp(f, "arange")) {
        Val a[3];
        int n = call->call.args.n;
        if (n < 1 || n > 3) return false;
        Operand o[3];
        bool anyf = false;
        for (int k = 0; k < n; k++) {
            a[k] = arg(S, call, k, NULL, &ok);
            if (!ok || !scalar_operand(a[k], &o[k])) return false;
            anyf |= qt_is_float(o[k].t);
        }
        QdType t = dtype_arg(S, call, -1, &ok);
        if (!ok) return false;
        double lo = 0, hi, st = 1;
        int64_t ilo = 0, ihi, ist = 1;
#define NUM(x) (qt_is_float((x).t) ? (x).one.f : (double)(x).one.i)
        if (n == 1) hi = NUM(o[0]), ihi = o[0].one.i;
        else lo = NUM(o[0]), hi = NUM(o[1]), ilo = o[0].one.i, ihi = o[1].one.i;
        if (n == 3) st = NUM(o[2]), ist = o[2].one.i;
#undef NUM
        if (st == 0) return false;
        double len = ceil((hi - lo) / st);
        int64_t cnt = len > 0 ? (int64_t)len : 0;
        if (!anyf) cnt = ist > 0 ? (ihi > ilo ? (ihi - ilo + ist - 1) / ist : 0) : (ilo > ihi ? (ilo - ihi - ist - 1) / -ist : 0);
        if (t == QT_VOID) t = anyf ? QT_F64 : QT_I64;
        NpNum *v;
        Val r = make(S, t, 1, &cnt, sp, &v);
        for (int64_t k = 0; v && k < cnt; k++)
            v[k] = anyf ? conv((NpNum){.f = lo + (double)k * st}, true, t) : conv((NpNum){.i = ilo + k * ist}, false, t);
        return *out = r, true;
    }
    if (!strcmp(f, "linspace")) {
        Operand lo, hi, num = {.t = QT_I64, .one = {.i = 50}};
        Val n = arg(S, call, 2, "num", &ok), ep = arg(S, call, 3, "endpoint", &ok);
        if (!ok || !scalar_operand(arg(S, call, 0, "start", &ok), &lo) || !scalar_operand(arg(S, call, 1, "stop", &ok), &hi)) return false;
        if (n.kind != V_NONE && (!scalar_operand(n, &num) || !qt_is_int(num.t) || num.one.i < 0)) return false;
        bool endpoint = ep.kind == V_NONE || val_host_truth(ep) == 1;
        QdType t = dtype_arg(S, call, 5, &ok);
        if (!ok || call->call.args.n > 4) return false;
        if (t == QT_VOID) t = QT_F64;
        double a = qt_is_float(lo.t) ? lo.one.f : (double)lo.one.i, b = qt_is_float(hi.t) ? hi.one.f : (double)hi.one.i;
        int64_t cnt = num.one.i, div = endpoint ? cnt - 1 : cnt;
        NpNum *v;
        Val r = make(S, t, 1, &cnt, sp, &v);
        for (int64_t k = 0; v && k < cnt; k++) {
            double x = div > 0 ? a + (double)k * ((b - a) / (double)div) : a;
            if (endpoint && k == cnt - 1 && cnt > 1) x = b;
            v[k] = conv((NpNum){.f = x}, true, t);
        }
        return *out = r, true;
    }
    static const char *const reductions[] = {"sum", "prod", "max", "min", "amax", "amin", "mean"};
    for (size_t k = 0; k < ARRAY_LEN(reductions); k++) {
        if (strcmp(f, reductions[k]) || call->call.args.n != 1 || call->call.nkw) continue;
        Val a = arg(S, call, 0, NULL, &ok);
        if (!ok) return false;
        if (a.kind == V_TUPLE) { /* np.sum([1, 2, 3]) */
            Flat fl = {.nd = -1, .allb = true};
            bool good = flatten(a, 0, &fl);
            QdType dt = fl.anyf ? QT_F64 : fl.allb ? QT_U1 : QT_I64;
            NpNum *v = NULL;
            if (good) {
                a = make(S, dt, fl.nd, fl.shape, sp, &v);
                for (int j = 0; v && j < fl.v.len; j++) v[j] = conv(fl.v.items[j], fl.fl.items[j], dt);
            }
            vec_free(&fl.v), vec_free(&fl.fl);
            if (!v) return false;
        }
        if (!sema_np_known(a)) return false;
        return reduce(S, f, a, sp, out);
    }
    return false;
}

/* A call this model computes: np.NAME(...), or a method of an array with contents. False (out
 * untouched) when it is not one, or its arguments are not compile-time values; a numpy function
 * qdc does not model forgets the contents of the arrays it is given. */
bool sema_np_call(Sema *S, const Expr *call, Val *out) {
    if (call->kind != E_CALL || call->call.fn->kind != E_ATTR) return false;
    const Expr *obj = call->call.fn->attr.obj;
    for (int k = 0; k < call->call.args.n; k++)
        if (call->call.args.items[k]->kind == E_STARRED) return false;
    if (np_module(S, obj)) {
        int mark = diag_quiet_begin();
        IrStmtVec *cur = S->cur;
        S->cur = NULL;
        Val r;
        bool ok = np_function(S, call, &r);
        S->cur = cur;
        if (diag_quiet_end(mark)) ok = false;
        if (ok) return *out = r, true;
        for (int k = 0; k < call->call.args.n; k++) { /* np.copyto(a, b), np.random.shuffle(a) */
            const Expr *a = call->call.args.items[k];
            Binding *b = a->kind == E_NAME ? S->core->sema_lookup(S, a->name) : NULL;
            if (b) sema_np_forget(b->v);
        }
        return false;
    }
    if (!sema_np_rooted(S, obj)) return false;
    Val a = S->core->sema_eval(S, obj);
    if (a.kind == V_ERR) return *out = a, true;
    int mark = diag_quiet_begin();
    IrStmtVec *cur = S->cur;
    S->cur = NULL;
    Val r;
    bool ok = method(S, a, call, &r);
    S->cur = cur;
    if (diag_quiet_end(mark)) ok = false;
    if (ok) return *out = r, true;
    if (!sema_np_known(a) && !val_is_host_scalar(a)) return false;
    diag_error(call->span, QD2062, "'%s' of a numpy %s is not computed by qdc; a kernel can read a numpy array's "
               "elements, shape and arithmetic of them", call->call.fn->attr.name, sema_np_known(a) ? "array" : "scalar");
    return *out = val_err(), true;
}

/* a.shape, a.size, a.ndim, a.dtype, a.T of an array with contents. */
bool sema_np_attr(Sema *S, Val a, const char *name, Span sp, Val *out) {
    if (!sema_np_known(a)) return false;
    int nd = a.harr.ndim;
    if (!strcmp(name, "ndim")) return *out = val_int(S, nd, sp), true;
    if (!strcmp(name, "size")) return *out = val_int(S, a.harr.np->n, sp), true;
    if (!strcmp(name, "dtype")) return *out = (Val){.kind = V_TYPE, .type = a.harr.type}, true;
    if (!strcmp(name, "T")) return *out = transposed(S, a, sp), true;
    if (strcmp(name, "shape")) return false;
    Val *items = ARENA_ARRAY(S->arena, Val, nd ? nd : 1);
    for (int k = 0; k < nd; k++) items[k] = val_int(S, a.harr.shape[k], sp);
    return *out = (Val){.kind = V_TUPLE, .tuple = {.items = items, .n = nd}}, true;
}

/* One axis of an index: an int (take) or a slice (lo, step, count). */
typedef struct { bool take; int64_t lo, step, n; } Axis;

static bool slice_bound(Sema *S, const Expr *e, int64_t *out) {
    if (!e) return false;
    Operand o;
    Val v = S->core->sema_eval(S, e);
    if (!scalar_operand(v, &o) || !qt_is_integral(o.t)) return false;
    return *out = o.one.i, true;
}

static bool axis_of(Sema *S, const Expr *e, int64_t len, Axis *ax, bool *ok) {
    if (e->kind == E_SLICE) { /* Python's slice.indices */
        int64_t step = 1, lo, hi;
        if (e->slice.step && !slice_bound(S, e->slice.step, &step)) return *ok = false, false;
        if (!step) return *ok = false, false;
        bool has_lo = e->slice.lo != NULL, has_hi = e->slice.hi != NULL;
        if ((has_lo && !slice_bound(S, e->slice.lo, &lo)) || (has_hi && !slice_bound(S, e->slice.hi, &hi))) return *ok = false, false;
        int64_t lower = step < 0 ? -1 : 0, upper = step < 0 ? len - 1 : len;
        if (!has_lo) lo = step < 0 ? upper : lower;
        else lo = lo < 0 ? (lo + len < lower ? lower : lo + len) : (lo > upper ? upper : lo);
        if (!has_hi) hi = step < 0 ? lower : upper;
        else hi = hi < 0 ? (hi + len < lower ? lower : hi + len) : (hi > upper ? upper : hi);
        int64_t n = step > 0 ? (hi > lo ? (hi - lo + step - 1) / step : 0) : (lo > hi ? (lo - hi - step - 1) / -step : 0);
        *ax = (Axis){false, lo, step, n};
        return true;
    }
    int64_t i;
    if (!slice_bound(S, e, &i)) return *ok = false, false;
    if (i < 0) i += len;
    if (i < 0 || i >= len) return *ok = false, false;
    *ax = (Axis){true, i, 1, 1};
    return true;
}

/* a[i], a[i, j], a[lo:hi], a[i, :] of an array with contents, compile-time indexes: an element
 * (a numpy scalar: a host scalar) or a new array (numpy's view, copied). */
bool sema_np_subscript(Sema *S, Val a, const Expr *index, Span sp, Val *out) {
    if (!sema_np_known(a)) return false;
    int nd = a.harr.ndim, ni = index->kind == E_TUPLE ? index->list.n : 1;
    if (ni > nd) return false;
    Axis ax[PY_MAX_DIMS];
    bool ok = true;
    int mark = diag_quiet_begin();
    IrStmtVec *cur = S->cur;
    S->cur = NULL;
    for (int d = 0; d < ni && ok; d++) axis_of(S, index->kind == E_TUPLE ? index->list.items[d] : index, a.harr.shape[d], &ax[d], &ok);
    S->cur = cur;
    if (diag_quiet_end(mark) || !ok) return false;
    for (int d = ni; d < nd; d++) ax[d] = (Axis){false, 0, 1, a.harr.shape[d]};
    int rnd = 0;
    int64_t shape[PY_MAX_DIMS];
    for (int d = 0; d < nd; d++)
        if (!ax[d].take) shape[rnd++] = ax[d].n;
    NpNum *v;
    Val r = make(S, a.harr.type, rnd, shape, sp, &v);
    if (!v) return false;
    int64_t st[PY_MAX_DIMS], src = 1; /* the view's strides, in elements */
    for (int d = nd - 1, j = rnd - 1; d >= 0; src *= a.harr.shape[d--])
        if (!ax[d].take) st[j--] = ax[d].step * src;
    bool c_order = true, f_order = true;
    for (int64_t j = rnd - 1, want = 1; j >= 0; want *= shape[j--]) c_order &= shape[j] <= 1 || st[j] == want;
    for (int64_t j = 0, want = 1; j < rnd; want *= shape[j++]) f_order &= shape[j] <= 1 || st[j] == want;
    r.harr.strided = a.harr.strided || (r.harr.np->n > 1 && !c_order && !f_order); /* callcheck.c refuses it at a launch */
    for (int64_t k = 0; k < r.harr.np->n; k++) {
        int64_t rest = k, idx = 0, stride = 1, c[PY_MAX_DIMS];
        for (int d = rnd - 1; d >= 0; d--) c[d] = rest % shape[d], rest /= shape[d];
        for (int d = nd - 1, j = rnd - 1; d >= 0; d--) {
            int64_t pos = ax[d].take ? ax[d].lo : ax[d].lo + c[j--] * ax[d].step;
            idx += pos * stride, stride *= a.harr.shape[d];
        }
        v[k] = a.harr.np->v[idx];
    }
    return *out = result(S, r, sp), true;
}

/* a[i] = x, a[i, j] = x in host code: the element stored when index and value are compile-time,
 * else the array's contents are forgotten. */
void sema_np_store(Sema *S, const Expr *target, const Expr *value) {
    Binding *b = target->kind == E_SUBSCRIPT && target->sub.obj->kind == E_NAME ? S->core->sema_lookup(S, target->sub.obj->name) : NULL;
    if (!b || !sema_np_known(b->v)) return;
    Val a = b->v;
    const Expr *index = target->sub.index;
    int nd = a.harr.ndim, ni = index->kind == E_TUPLE ? index->list.n : 1;
    Axis ax[PY_MAX_DIMS];
    bool ok = ni == nd;
    int mark = diag_quiet_begin();
    IrStmtVec *cur = S->cur;
    S->cur = NULL;
    for (int d = 0; d < ni && ok; d++) {
        axis_of(S, index->kind == E_TUPLE ? index->list.items[d] : index, a.harr.shape[d], &ax[d], &ok);
        ok = ok && ax[d].take;
    }
    Operand o;
    ok = ok && scalar_operand(S->core->sema_eval(S, value), &o);
    S->cur = cur;
    if (diag_quiet_end(mark) || !ok) return sema_np_forget(a);
    int64_t idx = 0;
    for (int d = 0; d < nd; d++) idx = idx * a.harr.shape[d] + ax[d].lo;
    if (!writable(S, a.harr.np, target->span)) return;
    a.harr.np->v[idx] = conv(o.one, qt_is_float(o.t), a.harr.type);
}

/* The items iterating an array with contents gives (unpacking, `for x in a`): its elements, or
 * its sub-arrays along the first axis. */
bool sema_np_items(Sema *S, Val a, Span sp, Val **items, int *n) {
    if (!sema_np_known(a) || !a.harr.ndim) return false;
    *n = (int)a.harr.shape[0];
    *items = ARENA_ARRAY(S->arena, Val, *n ? *n : 1);
    int64_t inner = count(a.harr.ndim - 1, a.harr.shape + 1);
    for (int k = 0; k < *n; k++) {
        if (a.harr.ndim == 1) {
            (*items)[k] = scalar_val(S, a.harr.type, a.harr.np->v[k], sp);
            continue;
        }
        NpNum *v;
        Val r = make(S, a.harr.type, a.harr.ndim - 1, a.harr.shape + 1, sp, &v);
        if (!v) return false;
        memcpy(v, a.harr.np->v + k * inner, sizeof(NpNum) * (size_t)inner);
        (*items)[k] = r;
    }
    return true;
}

/* Whether e is a value this model computes: its value (an array with contents or a host
 * scalar), found quietly (a speculative evaluation). */
bool sema_np_static(Sema *S, const Expr *e, Val *out) {
    if (!sema_np_rooted(S, e)) return false;
    int mark = diag_quiet_begin();
    IrStmtVec *cur = S->cur;
    S->cur = NULL;
    Val v = S->core->sema_eval(S, e);
    S->cur = cur;
    if (diag_quiet_end(mark)) return false;
    if (!sema_np_known(v) && !val_is_host_scalar(v) && v.kind != V_TUPLE && v.kind != V_TYPE) return false;
    if (out) *out = v;
    return true;
}

/* A kernel's snapshot of the scope at its first call (sema.c): the elements of an array as they
 * are then, apart from the script's later changes to the array. */
void sema_np_snapshot(Sema *S, Val *v) {
    if (!sema_np_known(*v)) return;
    struct NpData *d = ARENA_NEW(S->arena, struct NpData);
    v->harr.np->shared = true;
    *d = *v->harr.np; /* the elements are copied when the script stores into the array (writable) */
    v->harr.np = d;
}

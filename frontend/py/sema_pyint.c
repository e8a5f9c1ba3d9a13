/* Python ints meeting kernel semantics (issue 34 item 2, issue 29 items 1 and 3): the one
 * implementation of Python's integer operators (+ - * // % ** << >> & | ^, unary - + ~ and the
 * comparisons), exact, with Python's floor division and what Python raises (QD2023, QD2050).
 * Every operator between Python ints is `int_op` on pyint.c's values, whoever asks: an operator
 * between Python ints of any size (int literals, whose exact values fit 64 bits, and V_PYINT
 * values past that, sema_pyint_binary), the core's folding of two int literals (sema_py_fold,
 * through Sema.up) and a tree of int literals (sema_py_literal_tree: 2**64 - 1). A result that
 * fits 64 bits is an int literal again, typed by its value (sema_int_literal); a larger one is a
 * V_PYINT, which host code computes with and a kernel cannot hold: where it meets a typed value,
 * a shape or an index it is QD2050 naming its range (sema_pyint_unfit). So `(1 << 100) >> 95` is
 * 32, and `1 << 100` is an error only where something needs its value. */
#include "py.h"
#include "pyint.h"
#include <inttypes.h>
#include <math.h>

/* ---- Python's integer operators ---- */

static const struct { int tok; PyInt *(*fn)(PyIntCtx *, const PyInt *, const PyInt *); } ops[] = {
    {T_PLUS, pyint_add}, {T_MINUS, pyint_sub}, {T_STAR, pyint_mul}, {T_FDIV, pyint_floordiv}, {T_PERCENT, pyint_mod}, {T_POW, pyint_pow},
    {T_AMP, pyint_and},  {T_PIPE, pyint_or},   {T_CARET, pyint_xor}, {T_SHL, pyint_shl},     {T_SHR, pyint_shr},
};

static bool is_int_op(int tok) {
    for (size_t k = 0; k < ARRAY_LEN(ops); k++)
        if (ops[k].tok == tok) return true;
    return false;
}

/* x OP y for a binary operator (is_int_op(tok)); NULL, c->err saying why, where Python raises, its
 * answer is a float (PYINT_NEGPOW) or a budget runs out. */
static PyInt *int_op(PyIntCtx *c, int tok, const PyInt *x, const PyInt *y) {
    size_t k = 0;
    while (ops[k].tok != tok) k++;
    return x && y ? ops[k].fn(c, x, y) : NULL;
}

/* -x, +x, ~x (tok T_MINUS, T_PLUS, T_TILDE). */
static PyInt *int_unary(PyIntCtx *c, int tok, const PyInt *x) {
    return !x ? NULL : tok == T_MINUS ? pyint_neg(c, x) : tok == T_TILDE ? pyint_invert(c, x) : (PyInt *)x;
}

/* The comparison tok of x and y: 0 or 1; -1 when tok is no comparison. */
static int int_compare(int tok, const PyInt *x, const PyInt *y) {
    int k = pyint_cmp(x, y);
    switch (tok) {
    case T_EQ: return k == 0;
    case T_NE: return k != 0;
    case T_LT: return k < 0;
    case T_LE: return k <= 0;
    case T_GT: return k > 0;
    case T_GE: return k >= 0;
    default: return -1;
    }
}

static PyIntCtx ctx(Sema *S, Span at) { return (PyIntCtx){.arena = S->arena, .budget = &S->budget, .at = at}; }

static bool is_pyint(Val v) { return v.kind == V_PYINT || val_is_py_int(v); }

static PyInt *as_pyint(PyIntCtx *c, Val v) {
    if (v.kind == V_PYINT) return (PyInt *)v.big;
    return val_host_type(v) == QT_U64 ? pyint_from_u64(c, val_host_u64(v)) : pyint_from_i64(c, val_host_i64(v));
}

Val sema_pyint_value(Sema *S, const PyInt *v, Span sp) {
    int64_t i;
    uint64_t u;
    if (pyint_to_i64(v, &i)) return val_int(S, i, sp);
    if (pyint_to_u64(v, &u)) return val_int(S, u, sp);
    return (Val){.kind = V_PYINT, .big = v};
}

void sema_pyint_unfit(Sema *S, Val v, Span sp, const char *what) {
    PyIntCtx c = {.arena = S->arena, .at = sp}; /* a message is not charged to the budgets */
    uint64_t bits = pyint_bit_length(v.big);
    const char *text = bits <= 128 ? pyint_str(&c, v.big, 10) : "";
    if (pyint_sign(v.big) > 0)
        diag_error(sp, QD2050, "integer %s%s2**%" PRIu64 " <= value < 2**%" PRIu64 "%s does not fit %s: an integer a kernel uses must fit "
                   "in 64 bits (i64: -2**63 to 2**63 - 1, u64: up to 2**64 - 1)", text, *text ? " (" : "", bits - 1, bits,
                   *text ? ")" : "", what);
    else
        diag_error(sp, QD2050, "integer %s%s-2**%" PRIu64 " < value <= -2**%" PRIu64 "%s does not fit %s: an integer a kernel uses must "
                   "fit in 64 bits (i64: -2**63 to 2**63 - 1, u64: up to 2**64 - 1)", text, *text ? " (" : "", bits, bits - 1,
                   *text ? ")" : "", what);
}

const char *sema_pyint_text(Sema *S, Val v, Span sp) {
    PyIntCtx c = ctx(S, sp);
    return pyint_str(&c, v.big, 10);
}

/* What Python raises, reported: false for a budget that ran out (budget_report says which, where
 * the statement ends) or an error with no message here. */
static bool report(Sema *S, PyIntCtx *c, const PyInt *count, Span sp) {
    switch (c->err) {
    case PYINT_ZERODIV: diag_error(sp, QD2023, "integer division by zero in a constant expression"); break;
    case PYINT_NEGSHIFT: {
        PyIntCtx q = {.arena = S->arena, .at = sp};
        diag_error(sp, QD2050, "negative shift count %s in a constant expression", pyint_bit_length(count) <= 128 ? pyint_str(&q, count, 10) : "");
        break;
    }
    case PYINT_RANGE: diag_error(sp, QD2050, "integer too large to convert to float (Python raises OverflowError)"); break;
    default: return false;
    }
    return true;
}

static Val failed(Sema *S, PyIntCtx *c, const PyInt *count, Span sp) { return report(S, c, count, sp), val_err(); }

/* Python converts an int meeting a float: float(v), OverflowError past the float range. */
static bool to_float(Sema *S, Val *v, Span sp) {
    double d;
    if (!pyint_to_double(v->big, &d)) return diag_error(sp, QD2050, "integer too large to convert to float (Python raises OverflowError)"), false;
    *v = val_float(S, S->k ? S->default_fp : QT_F64, d, sp);
    return true;
}

static bool is_float_const(Val v) { return val_is_host_float(v); }


bool sema_pyint_binary(Sema *S, int tok, Val *a, Val *b, Span sp, Val *out) {
    bool big = a->kind == V_PYINT || b->kind == V_PYINT;
    if (big && (tok == T_SLASH || is_float_const(*a) || is_float_const(*b))) { /* a float operation, as in Python */
        if ((a->kind == V_PYINT && !to_float(S, a, sp)) || (b->kind == V_PYINT && !to_float(S, b, sp))) return *out = val_err(), true;
        return false;
    }
    if (!is_pyint(*a) || !is_pyint(*b) || !is_int_op(tok)) return false; /* a V_PYINT and a kernel value: sema_rvalue reports it */
    PyIntCtx c = ctx(S, sp);
    PyInt *x = as_pyint(&c, *a), *y = as_pyint(&c, *b), *r = int_op(&c, tok, x, y);
    if (!r && c.err == PYINT_NEGPOW) { /* x ** -n is a float */
        double dx, dy;
        if (!big) return false; /* the 64-bit path makes it */
        if (!pyint_to_double(x, &dx) || !pyint_to_double(y, &dy)) return c.err = PYINT_RANGE, *out = failed(S, &c, y, sp), true;
        return *out = val_float(S, S->k ? S->default_fp : QT_F64, pow(dx, dy), sp), true;
    }
    *out = r ? sema_pyint_value(S, r, sp) : failed(S, &c, y, sp);
    return true;
}

bool sema_pyint_unary(Sema *S, int tok, Val a, Span sp, Val *out) {
    if (!is_pyint(a)) return false;
    if (a.kind == V_PYINT && tok == T_PLUS) return *out = a, true;
    if (a.kind == V_PYINT && tok == T_KW_NOT) return *out = val_bool(S, 0, sp), true; /* never 0 */
    if (tok != T_MINUS && tok != T_TILDE) return false;
    PyIntCtx c = ctx(S, sp);
    PyInt *r = int_unary(&c, tok, as_pyint(&c, a));
    *out = r ? sema_pyint_value(S, r, sp) : val_err();
    return true;
}

bool sema_pyint_compare(Sema *S, int tok, Val a, Val b, Span sp, Val *out) {
    if (!is_pyint(a) || !is_pyint(b)) return false;
    PyIntCtx c = ctx(S, sp);
    PyInt *x = as_pyint(&c, a), *y = as_pyint(&c, b);
    if (!x || !y) return *out = val_err(), true;
    int r = int_compare(tok, x, y);
    return r >= 0 && (*out = val_bool(S, r, sp), true);
}

/* ---- the core's questions on int literals ----
 * Exact arithmetic whose results must fit 64 bits (sema_py_fold) or 120 (a literal tree), so it
 * charges nothing to the compilation: the values live in an arena of their own, freed after, and
 * a budget of its own that `2 ** 10**18` exhausts at once (PYINT_BUDGET: too large). */

#define TOO_BIG (((__int128)1) << 120) /* any value past 64 bits: val_int reports it */

typedef struct Scratch {
    Arena arena;
    EvalBudget budget;
    PyIntCtx c;
} Scratch;

static void scratch_begin(Scratch *s, Span at) {
    *s = (Scratch){0};
    budget_init(&s->budget, NULL);
    s->budget.limit[EB_SIZE] = 1024, s->budget.limit[EB_STEPS] = 1024;
    s->c = (PyIntCtx){.arena = &s->arena, .budget = &s->budget, .at = at};
}

bool sema_py_fold(Sema *S, int tok, Val a, Val b, Span sp, Val *out) {
    if (!is_int_op(tok)) return false;
    Scratch s;
    scratch_begin(&s, sp);
    PyInt *y = as_pyint(&s.c, b), *r = int_op(&s.c, tok, as_pyint(&s.c, a), y);
    __int128 v = 0;
    bool done = true;
    if (r) {
        if (!pyint_to_i128(r, &v)) v = TOO_BIG;
    } else if (s.c.err == PYINT_BUDGET) {
        v = TOO_BIG;
    } else {
        done = report(S, &s.c, y, sp); /* QD2023, QD2050; a negative power is a float */
    }
    arena_free(&s.arena);
    return done && (*out = val_int(S, v, sp), true);
}

static PyInt *tree(PyIntCtx *c, const Expr *e, int depth) {
    if (depth > 32) return NULL;
    PyInt *r = NULL;
    if (e->kind == E_INT) {
        r = pyint_from_u64(c, e->i);
    } else if (e->kind == E_UNARY && (e->op == T_MINUS || e->op == T_PLUS || e->op == T_TILDE)) {
        r = int_unary(c, e->op, tree(c, e->un.a, depth + 1));
    } else if (e->kind == E_BINARY && is_int_op(e->op)) {
        PyInt *x = tree(c, e->bin.a, depth + 1);
        r = x ? int_op(c, e->op, x, tree(c, e->bin.b, depth + 1)) : NULL;
    }
    return r && pyint_bit_length(r) <= 120 ? r : NULL; /* every step exact up to 2**120 */
}

bool sema_py_literal_tree(const Expr *e, __int128 *out) {
    Scratch s;
    scratch_begin(&s, e->span);
    PyInt *r = tree(&s.c, e, 0);
    bool ok = r && pyint_to_i128(r, out);
    arena_free(&s.arena);
    return ok;
}

/* Python ints meeting kernel semantics (issue 34 item 2, issue 29 item 3). Compile-time integer
 * arithmetic is Python's, exact: an operator between Python ints (int literals, whose exact
 * values fit 64 bits, and V_PYINT values past that) is evaluated by frontend/py/pyint.c. A result
 * that fits 64 bits is an int literal again, typed by its value (sema_int_literal); a larger one
 * is a V_PYINT, which host code computes with and a kernel cannot hold: where it meets a typed
 * value, a shape or an index it is QD2050 naming its range (sema_pyint_unfit). So
 * `(1 << 100) >> 95` is 32, and `1 << 100` is an error only where something needs its value. */
#include "py.h"
#include "pyint.h"
#include <inttypes.h>
#include <math.h>

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

/* What Python raises, as the 64-bit folding reports it (sema_expr.c). */
static Val failed(Sema *S, PyIntCtx *c, const PyInt *count, Span sp) {
    switch (c->err) {
    case PYINT_ZERODIV: diag_error(sp, QD2023, "integer division by zero in a constant expression"); break;
    case PYINT_NEGSHIFT: {
        PyIntCtx q = {.arena = S->arena, .at = sp};
        diag_error(sp, QD2050, "negative shift count %s in a constant expression", pyint_bit_length(count) <= 128 ? pyint_str(&q, count, 10) : "");
        break;
    }
    case PYINT_RANGE: diag_error(sp, QD2050, "integer too large to convert to float (Python raises OverflowError)"); break;
    default: break; /* a budget ran out: budget_report says which, where the statement ends */
    }
    return val_err();
}

/* Python converts an int meeting a float: float(v), OverflowError past the float range. */
static bool to_float(Sema *S, Val *v, Span sp) {
    double d;
    if (!pyint_to_double(v->big, &d)) return diag_error(sp, QD2050, "integer too large to convert to float (Python raises OverflowError)"), false;
    *v = val_float(S, S->k ? S->default_fp : QT_F64, d, sp);
    return true;
}

static bool is_float_const(Val v) { return val_is_host_float(v); }

static const struct { int tok; PyInt *(*fn)(PyIntCtx *, const PyInt *, const PyInt *); } ops[] = {
    {T_PLUS, pyint_add}, {T_MINUS, pyint_sub}, {T_STAR, pyint_mul}, {T_FDIV, pyint_floordiv}, {T_PERCENT, pyint_mod}, {T_POW, pyint_pow},
    {T_AMP, pyint_and},  {T_PIPE, pyint_or},   {T_CARET, pyint_xor}, {T_SHL, pyint_shl},     {T_SHR, pyint_shr},
};

bool sema_pyint_binary(Sema *S, int tok, Val *a, Val *b, Span sp, Val *out) {
    bool big = a->kind == V_PYINT || b->kind == V_PYINT;
    if (big && (tok == T_SLASH || is_float_const(*a) || is_float_const(*b))) { /* a float operation, as in Python */
        if ((a->kind == V_PYINT && !to_float(S, a, sp)) || (b->kind == V_PYINT && !to_float(S, b, sp))) return *out = val_err(), true;
        return false;
    }
    if (!is_pyint(*a) || !is_pyint(*b)) return false; /* a V_PYINT and a kernel value: sema_rvalue reports it */
    size_t k = 0;
    while (k < ARRAY_LEN(ops) && ops[k].tok != tok) k++;
    if (k == ARRAY_LEN(ops)) return false;
    PyIntCtx c = ctx(S, sp);
    PyInt *x = as_pyint(&c, *a), *y = as_pyint(&c, *b), *r = x && y ? ops[k].fn(&c, x, y) : NULL;
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
    PyInt *x = as_pyint(&c, a), *r = x ? (tok == T_MINUS ? pyint_neg(&c, x) : pyint_invert(&c, x)) : NULL;
    *out = r ? sema_pyint_value(S, r, sp) : val_err();
    return true;
}

bool sema_pyint_compare(Sema *S, int tok, Val a, Val b, Span sp, Val *out) {
    if ((a.kind != V_PYINT && b.kind != V_PYINT) || !is_pyint(a) || !is_pyint(b)) return false;
    PyIntCtx c = ctx(S, sp);
    PyInt *x = as_pyint(&c, a), *y = as_pyint(&c, b);
    if (!x || !y) return *out = val_err(), true;
    int k = pyint_cmp(x, y);
    bool r;
    switch (tok) {
    case T_EQ: r = k == 0; break;
    case T_NE: r = k != 0; break;
    case T_LT: r = k < 0; break;
    case T_LE: r = k <= 0; break;
    case T_GT: r = k > 0; break;
    case T_GE: r = k >= 0; break;
    default: return false;
    }
    return *out = val_bool(S, r, sp), true;
}

/* The evaluator's host scalars (value.h): what is computed from one and does not fit an inline
 * accessor: its spelling in instantiation names, and Python's exact arithmetic on two ints that
 * fit 64 bits (the core's sema_binary and literal trees reach it through Sema.up; results past
 * 64 bits are reported here, where V_PYINT's arithmetic is sema_pyint.c's). */
#include "py.h"
#include <stdio.h>

/* One spelling for every instantiation name (a qd.template() argument, a generic dataclass
 * member, a pytest parameter's id): True/False; an int in decimal, "m" for its minus sign (an
 * unsigned one past INT64_MAX is positive: 18446744073709551615); a float as %g writes it, '-'
 * 'm', '.' 'p' and '+' '_' (2.5: 2p5, -1e+20: m1e_20). */
bool val_host_spell(StrBuf *b, Val v) {
    if (!val_is_host_scalar(v)) return false;
    if (val_is_host_bool(v)) {
        sb_puts(b, val_host_u64(v) ? "True" : "False");
    } else if (val_is_host_float(v)) {
        char buf[64];
        snprintf(buf, sizeof buf, "%g", val_host_f64(v));
        for (char *q = buf; *q; q++) sb_putc(b, *q == '-' ? 'm' : *q == '.' ? 'p' : *q == '+' ? '_' : *q);
    } else if (qt_is_signed(val_host_type(v)) && val_host_i64(v) < 0) {
        sb_printf(b, "m%llu", 0ull - (unsigned long long)val_host_u64(v));
    } else {
        sb_printf(b, "%llu", (unsigned long long)val_host_u64(v));
    }
    return true;
}

/* ---- exact arithmetic on two Python ints that fit 64 bits ---- */

typedef __int128 Wide; /* an int literal's exact value; past 64 bits, struct PyInt (pyint.h) */

#define WIDE_TOO_BIG (((Wide)1) << 120) /* any value past 64 bits: val_int reports it */

static Wide wide_value(Val v) { return val_host_type(v) == QT_U64 ? (Wide)val_host_u64(v) : (Wide)val_host_i64(v); }

static Wide wide_pow(Wide x, Wide y) {
    if (x == 0 || x == 1) return y == 0 ? 1 : x;
    if (x == -1) return y % 2 ? -1 : 1;
    if (y > 128) return WIDE_TOO_BIG;
    Wide r = 1;
    for (Wide k = 0; k < y; k++)
        if (__builtin_mul_overflow(r, x, &r) || r > (Wide)UINT64_MAX || r < INT64_MIN) return WIDE_TOO_BIG;
    return r;
}

bool sema_py_fold(Sema *S, int tok, Val a, Val b, Span sp, Val *out) {
    Wide x = wide_value(a), y = wide_value(b), r;
    switch (tok) {
    case T_PLUS: r = x + y; break;
    case T_MINUS: r = x - y; break;
    case T_STAR: if (__builtin_mul_overflow(x, y, &r)) r = WIDE_TOO_BIG; break;
    case T_FDIV: case T_PERCENT:
        if (y == 0) {
            diag_error(sp, QD2023, "integer division by zero in a constant expression");
            return *out = val_int(S, 0, sp), true;
        }
        r = tok == T_FDIV ? x / y - ((x % y != 0) && ((x < 0) != (y < 0)))
                          : x % y + ((x % y != 0 && ((x % y < 0) != (y < 0))) ? y : 0);
        break;
    case T_POW:
        if (y < 0) return false; /* a float */
        r = wide_pow(x, y);
        break;
    case T_SHL: case T_SHR:
        if (y < 0) {
            diag_error(sp, QD2050, "negative shift count %lld in a constant expression", (long long)y);
            return *out = val_int(S, 0, sp), true;
        }
        if (tok == T_SHR) r = y >= 127 ? (x < 0 ? -1 : 0) : x >> (int)y;
        else if (x == 0) r = 0;
        else if (y >= 120 || __builtin_mul_overflow(x, (Wide)1 << (int)y, &r)) r = WIDE_TOO_BIG;
        break;
    case T_AMP: r = x & y; break;
    case T_PIPE: r = x | y; break;
    case T_CARET: r = x ^ y; break;
    default: return false;
    }
    *out = val_int(S, r, sp);
    return true;
}

/* One step of py_literal_tree: false where Python's answer is not an int or passes 2**120. */
static bool wide_op(int tok, Wide x, Wide y, Wide *r) {
    switch (tok) {
    case T_PLUS: *r = x + y; break;
    case T_MINUS: *r = x - y; break;
    case T_STAR: if (__builtin_mul_overflow(x, y, r)) return false; break;
    case T_FDIV: case T_PERCENT:
        if (y == 0) return false;
        *r = tok == T_FDIV ? x / y - ((x % y != 0) && ((x < 0) != (y < 0)))
                           : x % y + ((x % y != 0 && ((x % y < 0) != (y < 0))) ? y : 0);
        break;
    case T_POW:
        if (y < 0) return false;
        if (x == 0 || x == 1 || x == -1) {
            *r = x == 0 ? y == 0 : x == 1 ? 1 : y % 2 ? -1 : 1;
            break;
        }
        if (y > 128) return false;
        *r = 1;
        for (Wide k = 0; k < y; k++)
            if (__builtin_mul_overflow(*r, x, r) || *r >= WIDE_TOO_BIG || *r <= -WIDE_TOO_BIG) return false;
        break;
    case T_SHL: if (y < 0 || y >= 120 || (x && __builtin_mul_overflow(x, (Wide)1 << (int)y, r))) return false; if (!x) *r = 0; break;
    case T_SHR: if (y < 0) return false; *r = y >= 127 ? (x < 0 ? -1 : 0) : x >> (int)y; break;
    case T_AMP: *r = x & y; break;
    case T_PIPE: *r = x | y; break;
    case T_CARET: *r = x ^ y; break;
    default: return false;
    }
    return *r > -WIDE_TOO_BIG && *r < WIDE_TOO_BIG;
}

static bool tree(const Expr *e, Wide *out, int depth) {
    Wide a, b;
    if (depth > 32) return false;
    if (e->kind == E_INT) return *out = (Wide)e->i, true;
    if (e->kind == E_UNARY && (e->op == T_MINUS || e->op == T_PLUS || e->op == T_TILDE) && tree(e->un.a, &a, depth + 1))
        return *out = e->op == T_MINUS ? -a : e->op == T_PLUS ? a : ~a, true;
    if (e->kind != E_BINARY || !tree(e->bin.a, &a, depth + 1) || !tree(e->bin.b, &b, depth + 1)) return false;
    return wide_op(e->op, a, b, out);
}

bool sema_py_literal_tree(const Expr *e, __int128 *out) { return tree(e, out, 0); }

/* IR builders that fold as they build, and the folder of the primitive operations (the ones
 * left after ir/expand.c): constants are evaluated here exactly as every backend evaluates the
 * same operation at run time. The non-primitive operators fold through their expansion
 * (ir_expand_binary), so the folder never has its own idea of what `//`, `%`, `<<` or a
 * division by zero mean. */
#include "ir.h"
#include <math.h>

IrExpr *irb_new(Arena *a, IrExprKind k, QdType t, Span sp) {
    IrExpr *e = ARENA_NEW(a, IrExpr);
    e->kind = k;
    e->type = t;
    e->span = sp;
    return e;
}

/* Wraps v to the width and signedness of integer type t (u1: nonzero -> 1). */
void ir_set_int_const(IrExpr *e, QdType t, uint64_t v) {
    int bits = qt_bits(t);
    if (t == QT_U1) e->c.u = v != 0;
    else if (bits == 64) e->c.u = v;
    else if (qt_is_signed(t)) e->c.i = (int64_t)(v << (64 - bits)) >> (64 - bits);
    else e->c.u = v & ((UINT64_C(1) << bits) - 1);
}

IrExpr *irb_int(Arena *a, QdType t, int64_t v, Span sp) {
    IrExpr *e = irb_new(a, IR_CONST, t, sp);
    if (qt_is_float(t)) e->c.f = t == QT_F64 ? (double)v : (double)(float)v;
    else ir_set_int_const(e, t, (uint64_t)v);
    return e;
}

IrExpr *irb_float(Arena *a, QdType t, double v, Span sp) {
    IrExpr *e = irb_new(a, IR_CONST, t, sp);
    e->c.f = t == QT_F64 ? v : (double)(float)v;
    return e;
}

/* A conversion to t; a constant converts here exactly as at run time (ir.h, IR_CAST: a float
 * converts toward zero, saturating at the integer range, NaN to 0). */
IrExpr *irb_cast(Arena *a, IrExpr *e, QdType t) {
    if (!e || e->type == t) return e;
    if (e->kind != IR_CONST) {
        IrExpr *c = irb_new(a, IR_CAST, t, e->span);
        c->arg = e;
        return c;
    }
    if (qt_is_float(t))
        return irb_float(a, t, qt_is_float(e->type) ? e->c.f : qt_is_signed(e->type) ? (double)e->c.i : (double)e->c.u, e->span);
    IrExpr *r = irb_new(a, IR_CONST, t, e->span);
    if (!qt_is_float(e->type)) {
        ir_set_int_const(r, t, e->c.u);
        return r;
    }
    double f = trunc(e->c.f);
    int n = qt_bits(t);
    bool sg = qt_is_signed(t);
    double hi = ldexp(1.0, sg ? n - 1 : n), lo = sg ? -hi : 0; /* powers of two: exact */
    if (t == QT_U1) r->c.u = e->c.f != 0;
    else if (isnan(f)) ir_set_int_const(r, t, 0);
    else if (f >= hi) ir_set_int_const(r, t, sg ? UINT64_MAX >> (65 - n) : UINT64_MAX >> (64 - n));
    else if (f <= lo) ir_set_int_const(r, t, sg ? (uint64_t)1 << (n - 1) : 0);
    else ir_set_int_const(r, t, f < 0 ? (uint64_t)(int64_t)f : (uint64_t)f);
    return r;
}

static bool is_const(const IrExpr *e) { return e->kind == IR_CONST; }
static bool is_cmp(IrBinOp op) { return op >= IR_EQ && op <= IR_GE; }

/* The primitive integer operations on the common type t. DIV/REM divide by 1 where the divisor
 * is 0 or the quotient overflows (the expansion's safe divisor: the folder agrees with it even
 * on IR that was not expanded); shift counts are taken modulo the width. */
static bool fold_int(IrBinOp op, QdType t, const IrExpr *a, const IrExpr *b, uint64_t *out) {
    bool sg = qt_is_signed(t);
    int64_t x = a->c.i, y = b->c.i;
    uint64_t ux = a->c.u, uy = b->c.u, count = uy & (uint64_t)(qt_bits(t) - 1);
    switch (op) {
    case IR_ADD: *out = ux + uy; return true;
    case IR_SUB: *out = ux - uy; return true;
    case IR_MUL: *out = ux * uy; return true;
    case IR_DIV:
        if (uy == 0) return *out = ux, true;
        if (sg && y == -1) return *out = 0 - ux, true;
        return *out = sg ? (uint64_t)(x / y) : ux / uy, true;
    case IR_REM:
        if (uy == 0 || (sg && y == -1)) return *out = 0, true;
        return *out = sg ? (uint64_t)(x % y) : ux % uy, true;
    case IR_AND: case IR_LAND: *out = ux & uy; return true;
    case IR_OR: case IR_LOR: *out = ux | uy; return true;
    case IR_XOR: *out = ux ^ uy; return true;
    case IR_SHL: *out = ux << count; return true;
    case IR_SHR: *out = sg ? (uint64_t)(x >> count) : ux >> count; return true;
    case IR_MIN: *out = sg ? (uint64_t)(x < y ? x : y) : ux < uy ? ux : uy; return true;
    case IR_MAX: *out = sg ? (uint64_t)(x > y ? x : y) : ux > uy ? ux : uy; return true;
    case IR_EQ: *out = ux == uy; return true;
    case IR_NE: *out = ux != uy; return true;
    case IR_LT: *out = sg ? x < y : ux < uy; return true;
    case IR_LE: *out = sg ? x <= y : ux <= uy; return true;
    case IR_GT: *out = sg ? x > y : ux > uy; return true;
    case IR_GE: *out = sg ? x >= y : ux >= uy; return true;
    case IR_POW: {
        if (sg && y < 0) return false; /* left to run time (the targets' loop gives 1) */
        uint64_t r = 1;
        for (uint64_t e = uy, base = ux; e; e >>= 1, base *= base)
            if (e & 1) r *= base;
        return *out = r, true;
    }
    default: return false;
    }
}

static bool fold_float(IrBinOp op, double x, double y, double *out) {
    switch (op) {
    case IR_ADD: *out = x + y; return true;
    case IR_SUB: *out = x - y; return true;
    case IR_MUL: *out = x * y; return true;
    case IR_DIV: *out = x / y; return true;
    case IR_REM: *out = fmod(x, y); return true;
    case IR_MIN: *out = fmin(x, y); return true;
    case IR_MAX: *out = fmax(x, y); return true;
    case IR_EQ: *out = x == y; return true;
    case IR_NE: *out = x != y; return true;
    case IR_LT: *out = x < y; return true;
    case IR_LE: *out = x <= y; return true;
    case IR_GT: *out = x > y; return true;
    case IR_GE: *out = x >= y; return true;
    case IR_POW: *out = pow(x, y); return true;
    default: return false;
    }
}

IrExpr *ir_fold_binary(Arena *ar, IrBinOp op, const IrExpr *a, const IrExpr *b, Span sp) {
    if (!is_const(a) || !is_const(b)) return NULL;
    QdType t = a->type, rt = is_cmp(op) ? QT_U1 : t;
    if (qt_is_float(t)) {
        double r;
        if (!fold_float(op, a->c.f, b->c.f, &r)) return NULL;
        return is_cmp(op) ? irb_int(ar, QT_U1, r != 0, sp) : irb_float(ar, t, r, sp);
    }
    uint64_t r;
    if (!fold_int(op, t, a, b, &r)) return NULL;
    IrExpr *e = irb_new(ar, IR_CONST, rt, sp);
    ir_set_int_const(e, rt, r);
    return e;
}

/* x op y on operands of one type (shifts: the count has the value's type). Folds constants and
 * the identities that keep expansions of constant operands small (x & 0, x | 0, ...). */
IrExpr *irb_binary(Arena *ar, IrBinOp op, IrExpr *a, IrExpr *b, Span sp) {
    IrExpr *f = ir_fold_binary(ar, op, a, b, sp);
    if (f) return f;
    if (a->type == QT_U1 && (op == IR_LAND || op == IR_LOR || op == IR_AND || op == IR_OR)) {
        bool and_ = op == IR_LAND || op == IR_AND;
        for (int k = 0; k < 2; k++) {
            IrExpr *c = k ? b : a, *other = k ? a : b;
            if (!is_const(c)) continue;
            if (and_) return c->c.u ? other : c;
            return c->c.u ? c : other;
        }
    }
    IrExpr *e = irb_new(ar, IR_BINARY, is_cmp(op) ? QT_U1 : a->type, sp);
    e->bin.op = op, e->bin.a = a, e->bin.b = b;
    return e;
}

IrExpr *irb_select(Arena *ar, IrExpr *c, IrExpr *a, IrExpr *b, Span sp) {
    if (is_const(c)) return c->c.u ? a : b;
    IrExpr *e = irb_new(ar, IR_SELECT, a->type, sp);
    e->sel.cond = c, e->sel.a = a, e->sel.b = b;
    return e;
}

IrExpr *irb_math(Arena *ar, IrMathOp op, IrExpr *a, Span sp) {
    if (is_const(a) && qt_is_float(a->type) && (op == IR_FLOOR || op == IR_ABS))
        return irb_float(ar, a->type, op == IR_FLOOR ? floor(a->c.f) : fabs(a->c.f), sp);
    IrExpr *e = irb_new(ar, IR_MATH, a->type, sp);
    e->math.op = op, e->math.a = a;
    return e;
}

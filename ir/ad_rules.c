/* The derivative of each differentiable operation, written once for both modes of autodiff:
 * reverse mode (ir/autodiff.c) multiplies an adjoint by these partials and sends it to the
 * operands, forward mode (ir/autodiff_fwd.c) multiplies the operands' tangents by them and sums.
 * The rules are Quadrants' (its make_adjoint.cpp and make_dual.cpp): min/max pass the derivative
 * to the winner of a strict comparison (x < y for min, y < x for max; a tie goes to y), select
 * to the chosen operand, abs uses sgn (0 at 0), floor, ceil, round, %, //, comparisons and bit
 * operations have none, a float-to-float cast passes it unchanged. */
#include "autodiff.h"

static IrExpr *fc(Arena *a, const IrExpr *like, double v) { return irb_float(a, like->type, v, like->span); }
static IrExpr *bin(Arena *a, IrBinOp op, IrExpr *x, IrExpr *y) { return irb_binary(a, op, x, y, x->span); }
static IrExpr *math1(Arena *a, IrMathOp op, IrExpr *x) { return irb_math(a, op, x, x->span); }
static IrExpr *neg(Arena *a, IrExpr *x) {
    IrExpr *e = irb_new(a, IR_UNARY, x->type, x->span);
    e->un.op = IR_NEG, e->un.a = x;
    return e;
}

static int put(AdPartial *out, int n, IrExpr *operand, IrExpr *d, IrExpr *when, bool unless) {
    if (!qt_is_float(operand->type)) return n;
    out[n] = (AdPartial){.operand = operand, .d = d, .when = when, .unless = unless};
    return n + 1;
}

int ad_partials(Arena *a, IrExpr *e, AdPartial out[2]) {
    Span sp = e->span;
    if (!qt_is_float(e->type)) return 0;
    switch (e->kind) {
    case IR_UNARY: return e->un.op == IR_NEG ? put(out, 0, e->un.a, fc(a, e, -1), NULL, false) : 0;
    case IR_CAST: return qt_is_float(e->arg->type) ? put(out, 0, e->arg, NULL, NULL, false) : 0;
    case IR_SELECT: {
        int n = put(out, 0, e->sel.a, NULL, e->sel.cond, false);
        return put(out, n, e->sel.b, NULL, e->sel.cond, true);
    }
    case IR_BINARY: {
        IrExpr *x = e->bin.a, *y = e->bin.b;
        switch (e->bin.op) {
        case IR_ADD: return put(out, put(out, 0, x, NULL, NULL, false), y, NULL, NULL, false);
        case IR_SUB: return put(out, put(out, 0, x, NULL, NULL, false), y, fc(a, e, -1), NULL, false);
        case IR_MUL: return put(out, put(out, 0, x, y, NULL, false), y, x, NULL, false);
        case IR_DIV: /* 1/y, -x/y^2 */
            return put(out, put(out, 0, x, bin(a, IR_DIV, fc(a, e, 1), y), NULL, false), y,
                       neg(a, bin(a, IR_DIV, x, bin(a, IR_MUL, y, y))), NULL, false);
        case IR_POW: { /* d(x^y) = x^(y-1) (y dx + log(x) x dy) */
            IrExpr *c = bin(a, IR_POW, x, bin(a, IR_SUB, y, irb_cast(a, irb_int(a, QT_I32, 1, sp), y->type)));
            int n = put(out, 0, x, bin(a, IR_MUL, irb_cast(a, y, e->type), c), NULL, false);
            return put(out, n, y, bin(a, IR_MUL, math1(a, IR_LOG, x), bin(a, IR_MUL, x, c)), NULL, false);
        }
        case IR_MIN: case IR_MAX: { /* to x where x < y (min) / y < x (max) holds, else to y */
            IrExpr *cmp = e->bin.op == IR_MIN ? bin(a, IR_LT, x, y) : bin(a, IR_LT, y, x);
            return put(out, put(out, 0, x, NULL, cmp, false), y, NULL, cmp, true);
        }
        default: return 0; /* %, //, comparisons, bit and logical operations */
        }
    }
    case IR_MATH: {
        IrExpr *x = e->math.a, *one = fc(a, x, 1), *d = NULL;
        switch (e->math.op) {
        case IR_SIN: d = math1(a, IR_COS, x); break;
        case IR_COS: d = neg(a, math1(a, IR_SIN, x)); break;
        case IR_TAN: { IrExpr *t = math1(a, IR_TAN, x); d = bin(a, IR_ADD, one, bin(a, IR_MUL, t, t)); break; }
        case IR_TANH: { IrExpr *t = math1(a, IR_TANH, x); d = bin(a, IR_SUB, one, bin(a, IR_MUL, t, t)); break; }
        case IR_ASIN: d = bin(a, IR_DIV, one, math1(a, IR_SQRT, bin(a, IR_SUB, one, bin(a, IR_MUL, x, x)))); break;
        case IR_ACOS: d = neg(a, bin(a, IR_DIV, one, math1(a, IR_SQRT, bin(a, IR_SUB, one, bin(a, IR_MUL, x, x))))); break;
        case IR_ATAN: d = bin(a, IR_DIV, one, bin(a, IR_ADD, one, bin(a, IR_MUL, x, x))); break;
        case IR_EXP: d = math1(a, IR_EXP, x); break;
        case IR_LOG: d = bin(a, IR_DIV, one, x); break;
        case IR_SQRT: d = bin(a, IR_DIV, fc(a, x, 0.5), math1(a, IR_SQRT, x)); break;
        case IR_RSQRT: { IrExpr *r = math1(a, IR_RSQRT, x); d = bin(a, IR_MUL, fc(a, x, -0.5), bin(a, IR_MUL, r, bin(a, IR_MUL, r, r))); break; }
        case IR_ABS: /* sgn(x): 0 at 0 */
            d = irb_select(a, bin(a, IR_GT, x, fc(a, x, 0)), one, irb_select(a, bin(a, IR_LT, x, fc(a, x, 0)), fc(a, x, -1), fc(a, x, 0), sp), sp);
            break;
        case IR_ATAN2: { /* atan2(y = a, x = b): x / (x^2 + y^2), -y / (x^2 + y^2) */
            IrExpr *yy = e->math.a, *xx = e->math.b, *n = bin(a, IR_ADD, bin(a, IR_MUL, yy, yy), bin(a, IR_MUL, xx, xx));
            return put(out, put(out, 0, yy, bin(a, IR_DIV, xx, n), NULL, false), xx, neg(a, bin(a, IR_DIV, yy, n)), NULL, false);
        }
        default: return 0; /* floor, ceil, round */
        }
        return put(out, 0, x, d, NULL, false);
    }
    default: return 0;
    }
}

IrExpr *ad_apply(Arena *a, const AdPartial *p, IrExpr *g) {
    Span sp = g->span;
    if (p->d) {
        IrExpr *d = irb_cast(a, p->d, g->type);
        if (d->kind == IR_CONST && d->c.f == -1) g = neg(a, g);
        else if (!(d->kind == IR_CONST && d->c.f == 1)) g = bin(a, IR_MUL, g, d);
    }
    if (p->when) {
        IrExpr *z = irb_float(a, g->type, 0, sp);
        g = p->unless ? irb_select(a, p->when, z, g, sp) : irb_select(a, p->when, g, z, sp);
    }
    return g;
}

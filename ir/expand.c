/* The IR's meaning, written once: Python `//` and `%`, qd.raw_div/raw_mod, shifts and the edge
 * cases of integer division, as primitive IR operations (ir.h). The pass runs once on the checked
 * module, before lowering, and every backend consumes its output; the constant folder evaluates
 * the same expansion on constant operands (ir/build.c folds each primitive as it is built). The
 * rules, also in qdc-semantics(7):
 *   integer x / 0, x // 0 == x;  x % 0, raw_mod(x, 0) == 0         (divide by 1 instead)
 *   INT_MIN / -1, INT_MIN // -1 == INT_MIN;  INT_MIN % -1 == 0      (divide by 1 instead)
 *   x // y floors; x % y takes y's sign (Python); raw_div truncates; raw_mod takes x's sign
 *   x // 2^k == x >> k, x % 2^k == x & (2^k - 1) for a constant positive power of two (any sign of x)
 *   x << n, x >> n use n mod width (the count's low bits, as x86 and PTX shf.wrap do)
 *   float x // y == floor(x / y); float x % y == x - y * floor(x / y), computed as fmod and a
 *   correction, so that x % inf and the sign of zero follow Python */
#include "ir.h"

/* An operand used twice: evaluated once per statement by the backends (IrExpr.shared). */
static IrExpr *share(IrExpr *e) {
    if (e->kind != IR_CONST && e->kind != IR_LOCAL && e->kind != IR_PARAM && e->kind != IR_SHAPE) e->shared = true;
    return e;
}

static IrExpr *k_int(Arena *a, QdType t, int64_t v, Span sp) { return irb_int(a, t, v, sp); }

/* y, or 1 where y is 0 or (signed) where x is the minimum and y is -1: no division traps, and
 * the quotient is x, the remainder 0, in exactly the cases where hardware disagrees. */
static IrExpr *safe_divisor(Arena *a, IrExpr *x, IrExpr *y, Span sp) {
    QdType t = x->type;
    IrExpr *bad = irb_binary(a, IR_EQ, y, k_int(a, t, 0, sp), sp);
    if (qt_is_signed(t)) {
        int64_t min = qt_bits(t) == 64 ? INT64_MIN : -((int64_t)1 << (qt_bits(t) - 1));
        IrExpr *ovf = irb_binary(a, IR_AND, irb_binary(a, IR_EQ, x, k_int(a, t, min, sp), sp),
                                 irb_binary(a, IR_EQ, y, k_int(a, t, -1, sp), sp), sp);
        bad = irb_binary(a, IR_OR, bad, ovf, sp);
    }
    return irb_select(a, bad, k_int(a, t, 1, sp), y, sp);
}

/* Python's correction of a truncated signed quotient/remainder: the remainder r is nonzero and
 * its sign differs from the divisor's. */
static IrExpr *signs_differ(Arena *a, IrExpr *r, IrExpr *y, Span sp) {
    QdType t = r->type;
    IrExpr *nz = irb_binary(a, IR_NE, r, k_int(a, t, 0, sp), sp);
    IrExpr *differ;
    if (qt_is_float(t))
        differ = irb_binary(a, IR_NE, irb_binary(a, IR_LT, r, irb_float(a, t, 0, sp), sp),
                            irb_binary(a, IR_LT, y, irb_float(a, t, 0, sp), sp), sp);
    else
        differ = irb_binary(a, IR_LT, irb_binary(a, IR_XOR, r, y, sp), k_int(a, t, 0, sp), sp);
    return irb_binary(a, IR_AND, nz, differ, sp);
}

/* log2 of y where y is a constant positive power of two of type t, else -1. */
static int power_of_two(const IrExpr *y, QdType t) {
    if (y->kind != IR_CONST || y->type != t || t == QT_U1) return -1;
    unsigned bits = (unsigned)qt_bits(t);
    uint64_t v = bits == 64 ? y->c.u : y->c.u & ((UINT64_C(1) << bits) - 1);
    if (qt_is_signed(t) && y->c.i < 0) return -1;
    if (v == 0 || (v & (v - 1))) return -1;
    int k = 0;
    while (v >>= 1) k++;
    return k;
}

static IrExpr *int_division(Arena *a, IrBinOp op, IrExpr *x, IrExpr *y, Span sp) {
    QdType t = x->type;
    bool python = op == IR_FLOORDIV || op == IR_MOD;
    /* By a positive power of two 2^k, Python's floor rules are two's-complement bit operations for
     * every sign of x: x // 2^k == x >> k (arithmetic where signed), x % 2^k == x & (2^k - 1);
     * no division, no sign correction, nothing that traps (one meaning for every backend). */
    int k = python ? power_of_two(y, t) : -1;
    if (k >= 0) {
        if (op == IR_MOD) return irb_binary(a, IR_AND, x, k_int(a, t, (int64_t)((UINT64_C(1) << k) - 1), sp), sp);
        return irb_binary(a, IR_SHR, x, k_int(a, t, k, sp), sp);
    }
    if (qt_is_signed(t)) share(x); /* compared with INT_MIN, then divided */
    share(y);
    IrExpr *d = safe_divisor(a, x, y, sp);
    IrBinOp prim = op == IR_DIV || op == IR_FLOORDIV ? IR_DIV : IR_REM;
    if (!python || !qt_is_signed(t)) return irb_binary(a, prim, x, d, sp);
    share(d);
    IrExpr *r = share(irb_binary(a, IR_REM, x, d, sp));
    IrExpr *fix = signs_differ(a, r, d, sp);
    if (op == IR_MOD) return irb_select(a, fix, irb_binary(a, IR_ADD, r, d, sp), r, sp);
    IrExpr *q = share(irb_binary(a, IR_DIV, x, d, sp));
    return irb_select(a, fix, irb_binary(a, IR_SUB, q, k_int(a, t, 1, sp), sp), q, sp);
}

static IrExpr *float_python(Arena *a, IrBinOp op, IrExpr *x, IrExpr *y, Span sp) {
    if (op == IR_FLOORDIV) return irb_math(a, IR_FLOOR, irb_binary(a, IR_DIV, x, y, sp), sp);
    share(y);
    IrExpr *r = share(irb_binary(a, IR_REM, x, y, sp));
    return irb_select(a, signs_differ(a, r, y, sp), irb_binary(a, IR_ADD, r, y, sp), r, sp);
}

IrExpr *ir_expand_binary(Arena *a, IrBinOp op, IrExpr *x, IrExpr *y, Span sp) {
    QdType t = x->type;
    switch (op) {
    case IR_DIV: case IR_REM: case IR_FLOORDIV: case IR_MOD:
        if (qt_is_float(t)) return op == IR_FLOORDIV || op == IR_MOD ? float_python(a, op, x, y, sp) : irb_binary(a, op, x, y, sp);
        return int_division(a, op, x, y, sp);
    case IR_SHL: case IR_SHR:
        if (t == QT_U1) return irb_binary(a, op, x, k_int(a, t, 0, sp), sp);
        return irb_binary(a, op, x, irb_binary(a, IR_AND, y, k_int(a, t, qt_bits(t) - 1, sp), sp), sp);
    default: return irb_binary(a, op, x, y, sp);
    }
}

static bool needs_expansion(const IrExpr *e) {
    if (e->kind != IR_BINARY) return false;
    switch (e->bin.op) {
    case IR_FLOORDIV: case IR_MOD: case IR_SHL: case IR_SHR: return true;
    case IR_DIV: case IR_REM: return !qt_is_float(e->bin.a->type);
    default: return false;
    }
}

static IrExpr *expand_expr(IrWalker *w, IrExpr *e) {
    if (!needs_expansion(e)) return e;
    IrExpr *r = ir_expand_binary(w->ctx, e->bin.op, e->bin.a, e->bin.b, e->span);
    r->shared |= e->shared;
    return r;
}

/* ---- addressing: the element index of a subscript ----
 * x[i0, i1, ..., in] of a field, ndarray or SharedArray with extents e0..en is element
 * ((i0 * e1 + i1) * e2 + ...) * en + in of its row-major buffer, exact in i64 (IrRef.flat). A
 * field in an SNode storage already carries the frontend's index into its storage. */
static IrExpr *extent(Arena *a, const IrModule *m, const IrKernel *k, const IrRef *r, int axis) {
    if (r->kind == IR_REF_NDARRAY) {
        IrExpr *e = irb_new(a, IR_SHAPE, QT_I32, r->span);
        e->shape.param = r->index, e->shape.axis = axis;
        return irb_cast(a, e, QT_I64);
    }
    const int64_t *shape = r->kind == IR_REF_FIELD ? m->fields[r->index].shape : k->shared[r->index].shape;
    return k_int(a, QT_I64, shape[axis], r->span);
}

static void linearize(Arena *a, const IrModule *m, const IrKernel *k, IrRef *r) {
    if (r->flat || r->kind == IR_REF_LOCAL || r->nidx == 0) return;
    IrExpr *lin = irb_cast(a, r->idx[0], QT_I64);
    for (int d = 1; d < r->nidx; d++)
        lin = irb_binary(a, IR_ADD, irb_binary(a, IR_MUL, lin, extent(a, m, k, r, d), r->span), irb_cast(a, r->idx[d], QT_I64), r->span);
    r->flat = lin;
}

typedef struct {
    Arena *a;
    const IrModule *m;
} Linear;

static IrExpr *linearize_expr(IrWalker *w, IrExpr *e) {
    const Linear *l = w->ctx;
    if (e->kind == IR_LOAD || e->kind == IR_ADDR) linearize(l->a, l->m, w->k, e->ref);
    if (e->kind == IR_MEMOP) linearize(l->a, l->m, w->k, e->mem.ref);
    return e;
}

static void linearize_stmt(IrWalker *w, IrStmt *s) {
    const Linear *l = w->ctx;
    if (s->kind == IR_STORE) linearize(l->a, l->m, w->k, s->store.ref);
}

/* ---- the task loop: its extent, >= 0, so that every backend's unsigned exit test is the
 * loop's meaning (ir.h, IrTask.extent) ---- */
bool ir_nonneg(const IrExpr *e) {
    if (e->kind == IR_CONST) return qt_is_int(e->type) && (!qt_is_signed(e->type) || e->c.i >= 0);
    if (e->kind == IR_SHAPE) return true;
    return e->kind == IR_BINARY && e->bin.op == IR_MAX && ir_nonneg(e->bin.b);
}

static void clamp_extents(IrModule *m, Arena *a) {
    for (int k = 0; k < m->nkernels; k++)
        for (int t = 0; t < m->kernels[k].ntasks; t++) {
            IrTask *task = &m->kernels[k].tasks[t];
            if (task->kind != IR_TASK_PARALLEL || ir_nonneg(task->extent)) continue;
            IrExpr *e = task->extent;
            task->extent = irb_binary(a, IR_MAX, e, k_int(a, e->type, 0, e->span), e->span);
        }
}

void ir_expand_module(IrModule *m, Arena *a) {
    if (m->expanded) return;
    IrWalker w = {.expr = expand_expr, .ctx = a};
    ir_walk_module(m, &w);
    /* after the operators, so the element indexes are built from expanded subscripts */
    Linear l = {a, m};
    IrWalker lw = {.expr = linearize_expr, .stmt = linearize_stmt, .ctx = &l};
    ir_walk_module(m, &lw);
    clamp_extents(m, a);
    m->expanded = true;
}

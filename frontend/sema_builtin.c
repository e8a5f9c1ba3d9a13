/* Builtins built from the IR's existing operations (qdc-lang(7) "More builtins"): Python's
 * all/any/sum/tuple/list, qd.math.isnan/isinf/sign/ffs, qd.bit_shr, qd.zero/qd.one,
 * qd.global_thread_idx, qd.static_print, qd.lang.impl.get_max_shared_memory_bytes, and
 * qd.random, Quadrants' per-thread generator (a PCG32 stream per loop iteration). */
#include "sema.h"
#include "sema_sparse.h"
#include <stdio.h>
#include <string.h>

typedef IrExpr *(*Scalar1)(Sema *S, IrExpr *a, Span sp);

static Val arg_val(Sema *S, const Expr *call, int k) { return sema_eval(S, call->call.args.items[k]); }

/* f over a scalar, or over each component of a vector or matrix. */
static Val map1(Sema *S, const Expr *call, Scalar1 f) {
    Val v = arg_val(S, call, 0);
    Span sp = call->span;
    if (v.kind == V_ERR) return v;
    if (v.kind != V_VEC) return val_expr(f(S, sema_rvalue(S, v, sp), sp));
    Val r = vec_make(S, v.vec.n, v.vec.m);
    for (int k = 0; k < vec_len(v); k++)
        if ((r.vec.c[k] = val_expr(f(S, sema_rvalue(S, v.vec.c[k], sp), sp))).kind == V_ERR) return val_err();
    return r;
}

static IrExpr *u32c(Sema *S, uint64_t v, Span sp) { return irb_int(S->arena, QT_U32, (int64_t)v, sp); }

static IrExpr *bitcast(Sema *S, IrExpr *a, QdType t) {
    IrExpr *b = irb_new(S->arena, IR_BITCAST, t, a->span);
    b->arg = a;
    return b;
}

/* Quadrants tests the bits of the value cast to the default float type (f32). */
static IrExpr *f32_bits(Sema *S, IrExpr *a, Span sp) {
    (void)sp;
    return sema_binary(S, IR_AND, bitcast(S, irb_cast(S->arena, a, QT_F32), QT_U32), u32c(S, 0x7FFFFFFF, a->span), a->span);
}
static IrExpr *isnan_(Sema *S, IrExpr *a, Span sp) {
    return a ? sema_binary(S, IR_GT, f32_bits(S, a, sp), u32c(S, 0x7F800000, sp), sp) : NULL;
}
static IrExpr *isinf_(Sema *S, IrExpr *a, Span sp) {
    return a ? sema_binary(S, IR_EQ, f32_bits(S, a, sp), u32c(S, 0x7F800000, sp), sp) : NULL;
}
static IrExpr *sign_(Sema *S, IrExpr *a, Span sp) { /* float(x >= 0) - float(x <= 0) */
    if (!a) return NULL;
    IrExpr *z = irb_float(S->arena, QT_F32, 0.0, sp);
    return sema_binary(S, IR_SUB, irb_cast(S->arena, sema_binop_tok(S, T_GE, a, z, sp), QT_F32), irb_cast(S->arena, sema_binop_tok(S, T_LE, a, z, sp), QT_F32), sp);
}
static IrExpr *ffs_(Sema *S, IrExpr *a, Span sp) { /* 1 + the lowest set bit's position; 0 for 0 */
    if (!a) return NULL;
    if (!qt_is_int(a->type))
        return diag_error(sp, QD2006, "'ffs' requires an integer operand, got %s (Quadrants: \"'ffs' takes integral inputs only, however "
                                      "'%s' is provided\")", qt_name(a->type), qt_name(a->type)), NULL;
    QdType u = qt_int_of_width(qt_bits(a->type), false);
    IrExpr *x = a->type == u ? a : bitcast(S, a, u), *one = irb_int(S->arena, u, 1, sp), *zero = irb_int(S->arena, u, 0, sp);
    IrExpr *pc = irb_new(S->arena, IR_MATH, u, sp);
    pc->math.op = IR_POPCNT, pc->math.a = sema_binary(S, IR_XOR, x, sema_binary(S, IR_SUB, x, one, sp), sp);
    IrExpr *s = irb_new(S->arena, IR_SELECT, QT_I32, sp);
    s->sel.cond = sema_binary(S, IR_EQ, x, zero, sp), s->sel.a = irb_int(S->arena, QT_I32, 0, sp), s->sel.b = irb_cast(S->arena, pc, QT_I32);
    return ir_is_const(x) ? (x->c.u ? irb_cast(S->arena, pc, QT_I32) : s->sel.a) : s;
}
static IrExpr *zero_(Sema *S, IrExpr *a, Span sp) { return a ? sema_binary(S, IR_MUL, a, irb_cast(S->arena, irb_int(S->arena, QT_I32, 0, sp), a->type), sp) : NULL; }
static IrExpr *one_(Sema *S, IrExpr *a, Span sp) { return a ? sema_binary(S, IR_ADD, zero_(S, a, sp), irb_cast(S->arena, irb_int(S->arena, QT_I32, 1, sp), a->type), sp) : NULL; }

/* qd.bit_shr(x, n): a logical shift of x's bits, in x's type. */
static Val bit_shr(Sema *S, const Expr *call) {
    Val a = arg_val(S, call, 0), b = arg_val(S, call, 1);
    if (a.kind == V_ERR || b.kind == V_ERR) return val_err();
    bool vec = a.kind == V_VEC || b.kind == V_VEC;
    Val ref = a.kind == V_VEC ? a : b;
    int n = vec ? vec_len(ref) : 1;
    if (vec && a.kind == V_VEC && b.kind == V_VEC && vec_len(a) != vec_len(b))
        return diag_error(call->span, QD2040, "qd.bit_shr of %s and %s", val_describe(a), val_describe(b)), val_err();
    Val r = vec ? vec_make(S, ref.vec.n, ref.vec.m) : val_err();
    for (int k = 0; k < n; k++) {
        IrExpr *x = sema_rvalue(S, a.kind == V_VEC ? a.vec.c[k] : a, call->span), *y = sema_rvalue(S, b.kind == V_VEC ? b.vec.c[k] : b, call->span);
        if (!x || !y) return val_err();
        if (!qt_is_int(x->type) || !qt_is_integral(y->type))
            return diag_error(call->span, QD2006, "qd.bit_shr requires integer operands, got %s and %s", qt_name(x->type), qt_name(y->type)), val_err();
        QdType u = qt_int_of_width(qt_bits(x->type), false);
        IrExpr *s = sema_binary(S, IR_SHR, x->type == u ? x : bitcast(S, x, u), irb_cast(S->arena, y, u), call->span);
        IrExpr *e = x->type == u ? s : bitcast(S, s, x->type);
        if (!vec) return val_expr(e);
        r.vec.c[k] = val_expr(e);
    }
    return r;
}

/* qd.rescale_index(a, b, I): I, an index of field a, as an index of field b (Quadrants' snode.py):
 * along each axis both have, divided by a.shape / b.shape when a is finer, multiplied by
 * b.shape / a.shape when it is coarser; the other components as they are. */
static const IrField *rescale_field(Sema *S, Val v) {
    if (v.kind == V_VEC && vec_len(v) && v.vec.c[0].kind == V_FIELD) v = v.vec.c[0];
    if (v.kind == V_SNODE && !v.snode.method) /* an SNode: its index space (sema_sparse.h) */
        return sema_snode_view(S, v.snode.node < 0 ? sema_snode_parent(S, v.snode.node) : v.snode.node);
    return v.kind == V_FIELD && S->fields.items[v.index].ndim >= 0 ? &S->fields.items[v.index] : NULL;
}

static Val rescale_index(Sema *S, const Expr *call) {
    const IrField *f[2];
    for (int k = 0; k < 2; k++) {
        Val v = sema_eval(S, call->call.args.items[k]);
        if (v.kind == V_ERR) return v;
        if (!(f[k] = rescale_field(S, v)))
            return diag_error(call->call.args.items[k]->span, QD2019, "qd.rescale_index takes fields or SNodes, got %s", val_describe(v)), val_err();
    }
    Val I = sema_eval(S, call->call.args.items[2]);
    if (I.kind == V_TUPLE) { /* a list of indices */
        Val t = vec_make(S, I.tuple.n, 0);
        for (int k = 0; k < I.tuple.n; k++) t.vec.c[k] = I.tuple.items[k];
        I = t;
    }
    if (I.kind == V_ERR) return I;
    if (I.kind != V_VEC || I.vec.m)
        return diag_error(call->call.args.items[2]->span, QD2040, "qd.rescale_index needs an index vector (qd.grouped's), got %s",
                          val_describe(I)), val_err();
    int n = I.vec.n, da = f[0]->ndim - f[0]->elem_ndim, db = f[1]->ndim - f[1]->elem_ndim;
    Val r = vec_make(S, n, 0);
    for (int i = 0; i < n; i++) {
        r.vec.c[i] = I.vec.c[i];
        if (i >= da || i >= db || f[0]->shape[i] == f[1]->shape[i]) continue;
        bool finer = f[0]->shape[i] > f[1]->shape[i];
        int64_t k = finer ? f[0]->shape[i] / f[1]->shape[i] : f[1]->shape[i] / f[0]->shape[i];
        Expr *e = ARENA_NEW(S->arena, Expr), *c = ARENA_NEW(S->arena, Expr);
        c->kind = E_INT, c->span = call->span, c->i = (uint64_t)k;
        e->kind = E_BINARY, e->span = call->span, e->op = finer ? T_FDIV : T_STAR;
        e->bin.a = sema_value_expr(S, I.vec.c[i], call->span), e->bin.b = c;
        r.vec.c[i] = sema_eval(S, e);
    }
    return r;
}

/* qd.math.vdir(a): the unit vector (cos a, sin a). */
static Val vdir(Sema *S, const Expr *call) {
    IrExpr *a = sema_expr(S, call->call.args.items[0]);
    if (!a) return val_err();
    a = qt_is_float(a->type) ? a : irb_cast(S->arena, a, QT_F32);
    if (!ir_is_const(a) && S->cur) { /* evaluated once */
        int l = sema_new_local(S, "$vdir", a->type);
        IrStmt *st = sema_stmt_new(S, IR_ASSIGN, call->span);
        st->assign.local = l, st->assign.value = a;
        sema_emit(S, st);
        a = sema_local(S, l, call->span);
    }
    Val r = vec_make(S, 2, 0);
    for (int k = 0; k < 2; k++) {
        IrExpr *m = irb_new(S->arena, IR_MATH, a->type, call->span);
        m->math.op = k ? IR_SIN : IR_COS, m->math.a = a;
        r.vec.c[k] = val_expr(m);
    }
    return r;
}

/* A value used more than once, in a local (constants stay constant). */
static IrExpr *keep(Sema *S, IrExpr *e, const char *name) {
    if (!e || ir_is_const(e) || !S->cur) return e;
    int l = sema_new_local(S, name, e->type);
    IrStmt *st = sema_stmt_new(S, IR_ASSIGN, e->span);
    st->assign.local = l, st->assign.value = e;
    sema_emit(S, st);
    return sema_local(S, l, e->span);
}

static IrExpr *sel(Sema *S, IrExpr *c, IrExpr *a, IrExpr *b) {
    if (ir_is_const(c)) return c->c.u ? a : b;
    IrExpr *s = irb_new(S->arena, IR_SELECT, a->type, a->span);
    s->sel.cond = c, s->sel.a = a, s->sel.b = b;
    return s;
}

/* qd.frexp(x): (m, e) with x = m * 2^e and 0.5 <= |m| < 1, C's frexp ((x, 0) for 0, infinities
 * and NaN); m has x's float type (f32 for integers), e is i32. Subnormals are scaled by 2^64
 * first. */
static Val frexp_(Sema *S, const Expr *call) {
    IrExpr *x = sema_expr(S, call->call.args.items[0]);
    if (!x) return val_err();
    Span sp = call->span;
    bool d = x->type == QT_F64;
    QdType ft = d ? QT_F64 : qt_is_float(x->type) ? x->type : QT_F32, ut = d ? QT_U64 : QT_U32;
    if (ft == QT_F16 || ft == QT_BF16) ft = QT_F32;
    x = keep(S, irb_cast(S->arena, x, ft), "$frexp_x");
    int mb = d ? 52 : 23, bias = d ? 1022 : 126;
    IrExpr *emask = irb_int(S->arena, ut, d ? 0x7ff : 0xff, sp), *shift = irb_int(S->arena, ut, mb, sp);
    IrExpr *ef = keep(S, sema_binary(S, IR_AND, sema_binary(S, IR_SHR, bitcast(S, x, ut), shift, sp), emask, sp), "$frexp_ef");
    IrExpr *sub = keep(S, sema_binary(S, IR_EQ, ef, irb_int(S->arena, ut, 0, sp), sp), "$frexp_sub");
    IrExpr *xs = sel(S, sub, sema_binary(S, IR_MUL, x, irb_float(S->arena, ft, 0x1p64, sp), sp), x);
    IrExpr *bs = keep(S, bitcast(S, xs, ut), "$frexp_bits");
    IrExpr *es = sema_binary(S, IR_AND, sema_binary(S, IR_SHR, bs, shift, sp), emask, sp);
    IrExpr *special = keep(S, sema_binary(S, IR_LOR, sema_binary(S, IR_EQ, x, irb_float(S->arena, ft, 0.0, sp), sp),
                                        sema_binary(S, IR_EQ, ef, emask, sp), sp), "$frexp_special");
    IrExpr *e = sema_binary(S, IR_SUB, irb_cast(S->arena, es, QT_I32), sel(S, sub, irb_int(S->arena, QT_I32, bias + 64, sp), irb_int(S->arena, QT_I32, bias, sp)), sp);
    IrExpr *keepbits = sema_binary(S, IR_AND, bs, sema_binary(S, IR_XOR, sema_binary(S, IR_SHL, emask, shift, sp), irb_int(S->arena, ut, -1, sp), sp), sp);
    IrExpr *m = bitcast(S, sema_binary(S, IR_OR, keepbits, irb_int(S->arena, ut, (int64_t)bias << mb, sp), sp), ft);
    Val parts[2] = {val_expr(sel(S, special, x, m)), val_expr(sel(S, special, irb_int(S->arena, QT_I32, 0, sp), e))};
    Val t = {.kind = V_TUPLE};
    t.tuple.n = 2, t.tuple.items = ARENA_ARRAY(S->arena, Val, 2);
    memcpy(t.tuple.items, parts, sizeof parts);
    return t;
}

static IrStmt *assign_stmt(Sema *S, int local, IrExpr *v) {
    IrStmt *st = sema_stmt_new(S, IR_ASSIGN, v->span);
    st->assign.local = local, st->assign.value = v;
    return st;
}

static IrStmt *if_stmt(Sema *S, IrExpr *c, IrStmt **then, int n) {
    IrStmt *st = sema_stmt_new(S, IR_IF, c->span);
    st->if_.cond = c;
    st->if_.then.stmts = ARENA_ARRAY(S->arena, IrStmt *, n), st->if_.then.n = n;
    memcpy(st->if_.then.stmts, then, sizeof(IrStmt *) * (size_t)n);
    return st;
}

/* qd.math.fns(mask, base, offset): CUDA's __nv_fns, as Quadrants' portable version: the bit
 * position of the |offset|-th set bit of mask counting from bit base (inclusive) upwards for
 * offset > 0, downwards for offset < 0; for 0, base if that bit is set; 0xFFFFFFFF when there
 * is none. The 32-bit scan is unrolled. */
static Val fns(Sema *S, const Expr *call) {
    Span sp = call->span;
    IrExpr *a[3];
    for (int k = 0; k < 3; k++)
        if (!(a[k] = sema_expr(S, call->call.args.items[k]))) return val_err();
    if (!S->cur) return diag_error(sp, QD2019, "qd.math.fns can only be called inside a kernel or qd.func"), val_err();
    IrExpr *mask = keep(S, irb_cast(S->arena, a[0], QT_U32), "$fns_mask"), *base = keep(S, irb_cast(S->arena, a[1], QT_U32), "$fns_base");
    IrExpr *off = keep(S, irb_cast(S->arena, a[2], QT_I32), "$fns_offset");
    int res = sema_new_local(S, "$fns", QT_U32), n = sema_new_local(S, "$fns_n", QT_I32);
    IrExpr *up = keep(S, sema_binary(S, IR_GT, off, irb_int(S->arena, QT_I32, 0, sp), sp), "$fns_up");
    IrExpr *one = u32c(S, 1, sp);
    IrExpr *bit0 = sema_binary(S, IR_NE, sema_binary(S, IR_AND, sema_binary(S, IR_SHR, mask, base, sp), one, sp), u32c(S, 0, sp), sp);
    IrExpr *at0 = sema_binary(S, IR_LAND, sema_binary(S, IR_EQ, off, irb_int(S->arena, QT_I32, 0, sp), sp),
                            sema_binary(S, IR_LAND, sema_binary(S, IR_LT, base, u32c(S, 32, sp), sp), bit0, sp), sp);
    sema_emit(S, assign_stmt(S, res, sel(S, at0, base, u32c(S, 0xFFFFFFFFu, sp))));
    IrExpr *neg = sema_binary(S, IR_SUB, irb_int(S->arena, QT_I32, 0, sp), off, sp);
    sema_emit(S, assign_stmt(S, n, sel(S, up, off, neg)));
    for (int i = 0; i < 32; i++) {
        IrExpr *pos = sel(S, up, u32c(S, (uint64_t)i, sp), u32c(S, (uint64_t)(31 - i), sp));
        IrExpr *inr = sel(S, up, sema_binary(S, IR_GE, pos, base, sp), sema_binary(S, IR_LE, pos, base, sp));
        IrExpr *set = sema_binary(S, IR_NE, sema_binary(S, IR_AND, sema_binary(S, IR_SHR, mask, pos, sp), one, sp), u32c(S, 0, sp), sp);
        IrExpr *live = sema_binary(S, IR_NE, off, irb_int(S->arena, QT_I32, 0, sp), sp);
        IrStmt *found = if_stmt(S, sema_binary(S, IR_EQ, sema_local(S, n, sp), irb_int(S->arena, QT_I32, 0, sp), sp),
                                (IrStmt *[]){assign_stmt(S, res, sel(S, up, u32c(S, (uint64_t)i, sp), u32c(S, (uint64_t)(31 - i), sp)))}, 1);
        IrStmt *body[2] = {assign_stmt(S, n, sema_binary(S, IR_SUB, sema_local(S, n, sp), irb_int(S->arena, QT_I32, 1, sp), sp)), found};
        sema_emit(S, if_stmt(S, sema_binary(S, IR_LAND, live, sema_binary(S, IR_LAND, inr, set, sp), sp), body, 2));
    }
    return val_expr(sema_local(S, res, sp));
}

/* ---- Python's all / any / sum / tuple / list over compile-time sequences ---- */

static bool items_of(Sema *S, const Expr *call, Val **items, int *n) {
    Val v = arg_val(S, call, 0);
    if (v.kind == V_ERR) return false;
    if (v.kind == V_VEC) { /* every component, row-major (Quadrants' matrix all/any) */
        *items = v.vec.c, *n = vec_len(v);
        return true;
    }
    if (v.kind == V_TUPLE) return *items = v.tuple.items, *n = v.tuple.n, true;
    diag_error(call->call.args.items[0]->span, QD2019, "expected a vector, a matrix or a compile-time sequence, got %s", val_describe(v));
    return false;
}

static Val all_any(Sema *S, const Expr *call, bool all) {
    Val *items;
    int n;
    if (!items_of(S, call, &items, &n)) return val_err();
    IrExpr *r = irb_int(S->arena, QT_U1, all, call->span);
    for (int k = 0; k < n; k++) {
        IrExpr *c = sema_to_bool(S, sema_rvalue(S, items[k], call->span));
        if (!c) return val_err();
        r = sema_binary(S, all ? IR_LAND : IR_LOR, r, c, call->span);
    }
    return val_expr(r);
}

static Val sum(Sema *S, const Expr *call) {
    Val *items;
    int n;
    if (!items_of(S, call, &items, &n)) return val_err();
    Val acc = call->call.args.n > 1 ? arg_val(S, call, 1) : val_expr(irb_int(S->arena, QT_I32, 0, call->span));
    for (int k = 0; k < n && acc.kind != V_ERR; k++) {
        if (acc.kind == V_VEC || items[k].kind == V_VEC) acc = sema_vec_binary(S, T_PLUS, acc, items[k], call->span);
        else acc = val_expr(sema_binop_tok(S, T_PLUS, sema_rvalue(S, acc, call->span), sema_rvalue(S, items[k], call->span), call->span));
    }
    return acc;
}

static Val to_tuple(Sema *S, const Expr *call) {
    if (!call->call.args.n) return (Val){.kind = V_TUPLE, .tuple = {ARENA_NEW(S->arena, Val), 0}};
    Val *items;
    int n;
    if (!sema_iter_items(S, call->call.args.items[0], &items, &n)) return val_err();
    return (Val){.kind = V_TUPLE, .tuple = {items, n}};
}

/* ---- compile-time queries ---- */

/* qd.static_print(*args, sep=" ", end="\n"): Python's print, when the kernel is compiled. */
static Val static_print(Sema *S, const Expr *call) {
    const char *sep = " ", *end = "\n";
    for (int k = 0; k < call->call.nkw; k++) {
        const Keyword *kw = &call->call.kw[k];
        if ((strcmp(kw->name, "sep") && strcmp(kw->name, "end")) || kw->value->kind != E_STR)
            return diag_error(kw->span, QD2007, "qd.static_print takes only sep= and end= keyword arguments, as string literals"), val_err();
        *(kw->name[0] == 's' ? &sep : &end) = kw->value->str;
    }
    StrBuf b;
    sb_init(&b);
    for (int k = 0; k < call->call.args.n; k++) {
        Val v = arg_val(S, call, k);
        if (v.kind == V_ERR) return sb_free(&b), v;
        if (k) sb_puts(&b, sep);
        bool c = val_is_host_scalar(v);
        if (v.kind == V_STR) sb_puts(&b, v.path);
        else if (v.kind == V_NONE) sb_puts(&b, "None");
        else if (c && val_is_host_bool(v)) sb_puts(&b, val_host_u64(v) ? "True" : "False");
        else if (c && val_is_host_float(v)) sb_printf(&b, "%.17g", val_host_f64(v));
        else if (c && qt_is_signed(val_host_type(v))) sb_printf(&b, "%lld", (long long)val_host_i64(v));
        else if (c) sb_printf(&b, "%llu", (unsigned long long)val_host_u64(v));
        else if (v.kind == V_TYPE) sb_puts(&b, qt_name(v.type));
        else sb_printf(&b, "<%s>", val_describe(v));
    }
    sb_puts(&b, end);
    FILE *to = S->print_to_stderr ? stderr : stdout;
    fputs(b.data ? b.data : "", to);
    fflush(to);
    sb_free(&b);
    return (Val){.kind = V_NONE};
}

/* qd.lang.impl.get_max_shared_memory_bytes(is_lowerbound_ok=...): the targets' max_shared_bytes
 * (capability database), a compile-time value when every target of the compile agrees. */
static Val max_shared(Sema *S, const Expr *call) {
    for (int k = 0; k < call->call.nkw; k++)
        if (strcmp(call->call.kw[k].name, "is_lowerbound_ok"))
            return diag_error(call->call.kw[k].span, QD2007, "'%s' has no keyword argument '%s'", "get_max_shared_memory_bytes", call->call.kw[k].name), val_err();
    if (S->max_shared_bytes < 0) {
        diag_error(call->span, QD2080, "the targets of this compile have different max_shared_bytes (capability database); "
                                         "compile them separately to use get_max_shared_memory_bytes()");
        return val_err();
    }
    return val_expr(irb_int(S->arena, QT_I32, S->max_shared_bytes, call->span));
}

/* qd._lib.core.data_type_size(dt): the size of a scalar type in bytes (u1: 1), an int. */
static Val data_type_size(Sema *S, const Expr *call) {
    QdType t;
    if (!sema_annotation_type(S, call->call.args.items[0], &t)) return val_err();
    int bits = qt_bits(t);
    return val_expr(irb_int(S->arena, QT_I32, bits < 8 ? 1 : bits / 8, call->span));
}

/* qd.lang.impl.current_cfg(): the configuration of the compile, of which qdc knows the arch (every
 * target's Quadrants arch, backends.def; QD2080 when they differ), default_fp, default_ip (qd.init)
 * and debug (--debug). */
Val sema_cfg_attr(Sema *S, const char *name, Span sp) {
    if (!strcmp(name, "arch")) {
        if (!S->arch) {
            diag_error(sp, QD2080, "the targets of this compile are different Quadrants archs (CUDA, AMDGPU, Vulkan, Metal, "
                                   "x64); compile them separately to use current_cfg().arch");
            return val_err();
        }
        return (Val){.kind = V_NS, .path = arena_printf(S->arena, "qd.%s", S->arch)};
    }
    if (!strcmp(name, "default_fp") || !strcmp(name, "default_ip")) return (Val){.kind = V_TYPE, .type = name[8] == 'f' ? S->default_fp : S->default_ip};
    if (!strcmp(name, "debug")) return val_expr(irb_int(S->arena, QT_U1, S->debug, sp));
    diag_error(sp, QD2019, "current_cfg().%s is Quadrants' run-time configuration; qdc knows arch, default_fp, default_ip and debug", name);
    return val_err();
}

/* ---- qd.random ---- */

/* lowbias32 (Chris Wellons' integer hash): seeds one stream per loop iteration. */
static IrExpr *hash32(Sema *S, IrExpr *x, Span sp) {
    static const uint32_t mul[2] = {0x7feb352du, 0x846ca68bu};
    static const int shr[3] = {16, 15, 16};
    for (int k = 0; k < 3; k++) {
        x = sema_binary(S, IR_XOR, x, sema_binary(S, IR_SHR, x, u32c(S, (uint64_t)shr[k], sp), sp), sp);
        if (k < 2) x = sema_binary(S, IR_MUL, x, u32c(S, mul[k], sp), sp);
    }
    return x;
}

/* The task's generator state (a u32 local), created at the first qd.random of the task and
 * seeded at the start of each iteration from the iteration index, the task and the seed. */
static int rng_state(Sema *S, Span sp) {
    if (!S->k->random_at.src) S->k->random_at = sp; /* autodiff refuses it (IrKernel.random_at) */
    if (S->rng_local >= 0) return S->rng_local;
    S->rng_local = sema_new_local(S, "$rng", QT_U32);
    const IrTask *t = &S->tasks.items[S->task];
    IrExpr *idx = t->index_local >= 0 ? bitcast(S, sema_local(S, t->index_local, sp), QT_U32) : u32c(S, 0, sp);
    uint32_t salt = (uint32_t)S->random_seed * 0x9E3779B9u ^ (uint32_t)(S->tasks.len * 0x85EBCA6Bu);
    if (S->rng_field < 0) S->rng_field = sema_owned_field(S, arena_printf(S->arena, "qdc_rng_%s", S->k->name), QT_U32, sp);
    IrExpr *launch = irb_new(S->arena, IR_LOAD, QT_U32, sp);
    launch->ref = sema_owned_ref(S, S->rng_field, sp).ref;
    IrExpr *seed = sema_binary(S, IR_ADD, u32c(S, salt, sp), sema_binary(S, IR_MUL, hash32(S, launch, sp), u32c(S, 0x27D4EB2Fu, sp), sp), sp);
    IrStmt *st = sema_stmt_new(S, IR_ASSIGN, sp);
    st->assign.local = S->rng_local;
    st->assign.value = hash32(S, sema_binary(S, IR_ADD, hash32(S, idx, sp), seed, sp), sp);
    S->rng_init = st; /* put first in the task body when it is closed (sema.c) */
    return S->rng_local;
}

/* Every launch draws new values, as Quadrants' state persists: the kernel's last task adds 1
 * to its launch counter, which every task's seeding reads. */
void sema_random_finish(Sema *S) {
    Span sp = S->k->span;
    IrExpr *cur = irb_new(S->arena, IR_LOAD, QT_U32, sp);
    cur->ref = sema_owned_ref(S, S->rng_field, sp).ref;
    IrStmt *st = sema_stmt_new(S, IR_STORE, sp);
    st->store.ref = sema_owned_ref(S, S->rng_field, sp).ref, st->store.value = sema_binary(S, IR_ADD, cur, u32c(S, 1, sp), sp);
    sema_emit(S, st);
}

/* One PCG32 (RXS-M-XS) output: state = state * 747796405 + 2891336453; the output permutes the
 * old state. */
static IrExpr *pcg_next(Sema *S, Span sp) {
    int l = rng_state(S, sp);
    int old = sema_new_local(S, "$rng_old", QT_U32);
    IrStmt *a = sema_stmt_new(S, IR_ASSIGN, sp), *b = sema_stmt_new(S, IR_ASSIGN, sp);
    a->assign.local = old, a->assign.value = sema_local(S, l, sp);
    sema_emit(S, a);
    b->assign.local = l;
    b->assign.value = sema_binary(S, IR_ADD, sema_binary(S, IR_MUL, sema_local(S, old, sp), u32c(S, 747796405u, sp), sp), u32c(S, 2891336453u, sp), sp);
    sema_emit(S, b);
    IrExpr *s = sema_local(S, old, sp);
    IrExpr *sh = sema_binary(S, IR_ADD, sema_binary(S, IR_SHR, s, u32c(S, 28, sp), sp), u32c(S, 4, sp), sp);
    IrExpr *w = sema_binary(S, IR_MUL, sema_binary(S, IR_XOR, sema_binary(S, IR_SHR, s, sh, sp), s, sp), u32c(S, 277803737u, sp), sp);
    int out = sema_new_local(S, "$rng_out", QT_U32);
    IrStmt *c = sema_stmt_new(S, IR_ASSIGN, sp);
    c->assign.local = out, c->assign.value = sema_binary(S, IR_XOR, sema_binary(S, IR_SHR, w, u32c(S, 22, sp), sp), w, sp);
    sema_emit(S, c);
    return sema_local(S, out, sp);
}

static IrExpr *u64_of(Sema *S, IrExpr *hi, IrExpr *lo, Span sp) {
    return sema_binary(S, IR_OR, sema_binary(S, IR_SHL, irb_cast(S->arena, hi, QT_U64), irb_int(S->arena, QT_U64, 32, sp), sp), irb_cast(S->arena, lo, QT_U64), sp);
}

/* qd.random(dtype=float): floats uniform in [0, 1) (24 random bits for f16/f32, 53 for f64);
 * 32-bit integers all 2^32 bit patterns, 64-bit integers all 2^64. */
/* A float uniform in [0, 1): 24 random bits for f16/f32, 53 for f64. */
static IrExpr *random_float(Sema *S, QdType t, Span sp) {
    if (t == QT_F64) {
        IrExpr *a = pcg_next(S, sp), *b = pcg_next(S, sp);
        IrExpr *m = sema_binary(S, IR_SHR, u64_of(S, a, b, sp), irb_int(S->arena, QT_U64, 11, sp), sp);
        return sema_binary(S, IR_MUL, irb_cast(S->arena, m, QT_F64), irb_float(S->arena, QT_F64, 0x1p-53, sp), sp);
    }
    IrExpr *m = sema_binary(S, IR_SHR, pcg_next(S, sp), u32c(S, 8, sp), sp);
    return irb_cast(S->arena, sema_binary(S, IR_MUL, irb_cast(S->arena, m, QT_F32), irb_float(S->arena, QT_F32, 0x1p-24, sp), sp), t);
}

/* The dtype argument of qd.random / qd.randn (positional or `name=`) into *t; false after a
 * diagnostic. A call outside a kernel is QD2019. */
static bool random_dtype(Sema *S, const Expr *call, const char *fn, const char *kw, QdType *t, Span *at) {
    const Expr *dt = call->call.args.n ? call->call.args.items[0] : NULL;
    *at = call->span;
    for (int k = 0; k < call->call.nkw; k++) {
        if (strcmp(call->call.kw[k].name, kw) || dt)
            return diag_error(call->call.kw[k].span, QD2007, "%s takes one argument, %s", fn, kw), false;
        dt = call->call.kw[k].value;
    }
    if (dt && !sema_annotation_type(S, dt, t)) return false;
    if (dt) *at = dt->span;
    if (!S->cur || S->task < 0) return diag_error(call->span, QD2019, "%s can only be called inside a kernel or qd.func", fn), false;
    return true;
}

/* qd.random(dtype=float): floats uniform in [0, 1) (24 random bits for f16/f32, 53 for f64);
 * 32-bit integers all 2^32 bit patterns, 64-bit integers all 2^64. */
static Val random_(Sema *S, const Expr *call) {
    QdType t = S->default_fp;
    Span at;
    if (!random_dtype(S, call, "qd.random", "dtype", &t, &at)) return val_err();
    Span sp = call->span;
    if (t == QT_U1 || t == QT_VOID) return diag_error(at, QD2021, "qd.random takes a float or integer type, got %s", qt_name(t)), val_err();
    if (qt_is_float(t)) return val_expr(random_float(S, t, sp));
    if (qt_bits(t) == 64) {
        IrExpr *a = pcg_next(S, sp), *b = pcg_next(S, sp), *u = u64_of(S, a, b, sp);
        return val_expr(t == QT_U64 ? u : bitcast(S, u, t));
    }
    IrExpr *r = pcg_next(S, sp);
    if (qt_bits(t) == 32) return val_expr(t == QT_U32 ? r : bitcast(S, r, t));
    return val_expr(irb_cast(S->arena, r, t)); /* narrower integers: the low bits */
}

/* qd.randn(dt=None): a standard normal sample by Quadrants' Box-Muller transform over two
 * qd.random draws, in this order: u1 = 1 - random(dt), u2 = random(dt),
 * sqrt(-2 log u1) * cos(2 pi u2). dt is f32 or f64 (default: qd.init's default_fp). */
static Val randn(Sema *S, const Expr *call) {
    QdType t = S->default_fp;
    Span at;
    if (!random_dtype(S, call, "qd.randn", "dt", &t, &at)) return val_err();
    Span sp = call->span;
    if (t != QT_F32 && t != QT_F64) return diag_error(at, QD2021, "qd.randn takes qd.f32 or qd.f64, got %s", qt_name(t)), val_err();
    IrExpr *u1 = sema_binary(S, IR_SUB, irb_float(S->arena, t, 1.0, sp), random_float(S, t, sp), sp);
    IrExpr *u2 = random_float(S, t, sp);
    IrExpr *r = irb_math(S->arena, IR_SQRT, sema_binary(S, IR_MUL, irb_float(S->arena, t, -2.0, sp), irb_math(S->arena, IR_LOG, u1, sp), sp), sp);
    IrExpr *c = irb_math(S->arena, IR_COS, sema_binary(S, IR_MUL, irb_float(S->arena, t, 6.283185307179586, sp), u2, sp), sp);
    return val_expr(sema_binary(S, IR_MUL, r, c, sp));
}

/* qd.clock_counter(): the i64 cycle counter (how each family reads it: its clock section). */
static Val clock_counter(Sema *S, const Expr *call) {
    if (!S->cur || S->task < 0) return diag_error(call->span, QD2019, "qd.clock_counter can only be called inside a kernel or qd.func"), val_err();
    return val_expr(irb_new(S->arena, IR_CLOCK, QT_I64, call->span));
}

/* ---- dispatch ---- */

static const struct { const char *name; int min, max; } builtins[] = {
    {"all", 1, 1}, {"any", 1, 1}, {"sum", 1, 2}, {"tuple", 0, 1}, {"list", 0, 1},
    {"qd.math.isnan", 1, 1}, {"qd.math.isinf", 1, 1}, {"qd.math.sign", 1, 1}, {"qd.math.ffs", 1, 1}, {"qd.ffs", 1, 1},
    {"qd.bit_shr", 2, 2}, {"qd.zero", 1, 1}, {"qd.one", 1, 1},
    {"qd.global_thread_idx", 0, 0}, {"qd.static_print", 0, 64}, {"qd.lang.impl.get_max_shared_memory_bytes", 0, 0},
    {"qd._lib.core.data_type_size", 1, 1}, {"qd.lang.impl.current_cfg", 0, 0}, {"qd.impl.current_cfg", 0, 0},
    {"qd.lang.impl.get_runtime", 0, 0}, {"qd.impl.get_runtime", 0, 0},
    {"qd.random", 0, 1}, {"qd.randn", 0, 1}, {"qd.clock_counter", 0, 0}, {"qd.math.vdir", 1, 1}, {"qd.rescale_index", 3, 3}, {"qd.frexp", 1, 1}, {"qd.math.fns", 3, 3},
};

bool sema_is_more_builtin(const char *p) {
    for (size_t k = 0; k < ARRAY_LEN(builtins); k++)
        if (!strcmp(builtins[k].name, p)) return true;
    return false;
}

Val sema_more_builtin_call(Sema *S, const Expr *call, const char *p) {
    size_t k = 0;
    while (strcmp(builtins[k].name, p)) k++;
    int n = call->call.args.n;
    bool kw_ok = !strcmp(p, "qd.static_print") || !strcmp(p, "qd.random") || !strcmp(p, "qd.randn") || !strcmp(p, "qd.lang.impl.get_max_shared_memory_bytes");
    if (n < builtins[k].min || n > builtins[k].max || (call->call.nkw && !kw_ok)) {
        diag_error(call->span, QD2007, "'%s' takes %d%s%d argument%s, got %d", p, builtins[k].min, builtins[k].max > builtins[k].min ? " to " : "",
                   builtins[k].max > builtins[k].min ? builtins[k].max : -1, builtins[k].max == 1 ? "" : "s", n + call->call.nkw);
        return val_err();
    }
    if (!strcmp(p, "all") || !strcmp(p, "any")) return all_any(S, call, p[1] == 'l');
    if (!strcmp(p, "sum")) return sum(S, call);
    if (!strcmp(p, "tuple") || !strcmp(p, "list")) return to_tuple(S, call);
    if (!strcmp(p, "qd.math.isnan")) return map1(S, call, isnan_);
    if (!strcmp(p, "qd.math.isinf")) return map1(S, call, isinf_);
    if (!strcmp(p, "qd.math.sign")) return map1(S, call, sign_);
    if (!strcmp(p, "qd.math.ffs") || !strcmp(p, "qd.ffs")) return map1(S, call, ffs_);
    if (!strcmp(p, "qd.zero")) return map1(S, call, zero_);
    if (!strcmp(p, "qd.one")) return map1(S, call, one_);
    if (!strcmp(p, "qd.bit_shr")) return bit_shr(S, call);
    if (!strcmp(p, "qd.global_thread_idx")) return sema_mem_call(S, call, "qd.simt.block.global_thread_idx");
    if (!strcmp(p, "qd.math.vdir")) return vdir(S, call);
    if (!strcmp(p, "qd.rescale_index")) return rescale_index(S, call);
    if (!strcmp(p, "qd.frexp")) return frexp_(S, call);
    if (!strcmp(p, "qd.math.fns")) return fns(S, call);
    if (!strcmp(p, "qd.static_print")) return static_print(S, call);
    if (!strcmp(p, "qd.lang.impl.get_max_shared_memory_bytes")) return max_shared(S, call);
    if (!strcmp(p, "qd.randn")) return randn(S, call);
    if (!strcmp(p, "qd._lib.core.data_type_size")) return data_type_size(S, call);
    if (!strcmp(p, "qd.lang.impl.current_cfg") || !strcmp(p, "qd.impl.current_cfg")) return (Val){.kind = V_NS, .path = "qd.lang.impl.current_cfg()"};
    if (strstr(p, "get_runtime")) return (Val){.kind = V_NS, .path = "qd.lang.impl.get_runtime()"};
    if (!strcmp(p, "qd.clock_counter")) return clock_counter(S, call);
    return random_(S, call);
}

/* qd.init(..., random_seed=N, default_fp=T) at module level: qd.random's seed (default 0) and
 * the type of `float` in qd.random / qd.randn (default qd.f32); ad_stack_experimental_enabled=False
 * (Sema.ad_stack_off); debug=True: a certain out-of-bound access is an error (QD2172, sema_expr.c);
 * raise_on_templated_floats=True (Sema.raise_floats, QD2174). */
void sema_init_call(Sema *S, const Expr *e) {
    const char *p = e->kind == E_CALL ? sema_path(S, e->call.fn) : NULL;
    if (!p || strcmp(p, "qd.init")) return;
    for (int k = 0; k < e->call.nkw; k++) {
        int64_t seed;
        if (!strcmp(e->call.kw[k].name, "random_seed") && sema_const_int(S, e->call.kw[k].value, &seed, "qd.init's random_seed"))
            S->random_seed = seed;
        if (!strcmp(e->call.kw[k].name, "ad_stack_experimental_enabled")) /* only an explicit False turns qdc's ad stack off */
            S->ad_stack_off = e->call.kw[k].value->kind == E_BOOL && !e->call.kw[k].value->b;
        if (!strcmp(e->call.kw[k].name, "debug") && e->call.kw[k].value->kind == E_BOOL) S->init_debug = e->call.kw[k].value->b;
        if (!strcmp(e->call.kw[k].name, "raise_on_templated_floats")) { /* a literal or a name bound to one */
            int mark = diag_quiet_begin();
            Val v = sema_eval(S, e->call.kw[k].value);
            diag_quiet_end(mark);
            S->raise_floats = v.kind == V_EXPR && ir_is_const(v.e) && v.e->c.u != 0;
        }
        bool fp = !strcmp(e->call.kw[k].name, "default_fp"), ip = !strcmp(e->call.kw[k].name, "default_ip");
        QdType t;
        if ((!fp && !ip) || !sema_annotation_type(S, e->call.kw[k].value, &t)) continue;
        if (fp ? t == QT_F16 || t == QT_F32 || t == QT_F64 : t == QT_I32 || t == QT_I64)
            *(fp ? &S->default_fp : &S->default_ip) = t;
        else
            diag_error(e->call.kw[k].value->span, QD2021, "qd.init's %s must be %s, got %s", e->call.kw[k].name,
                       fp ? "qd.f16, qd.f32 or qd.f64" : "qd.i32 or qd.i64", qt_name(t));
    }
}

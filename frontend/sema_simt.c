/* qd.simt.subgroup.* and qd.simt.warp.*: the SIMT collectives. The primitives (lane id, size,
 * shuffles, broadcast, ballot, votes, full-subgroup reductions and scans, sync) become one
 * IR_SUBGROUP node each (ops in ir/simt.def); Quadrants' *_tiled helpers and lane masks expand
 * here into those primitives exactly as Quadrants composes them (shuffle_down trees, xor
 * butterflies, Hillis-Steele scans over 2**log2_size lanes), so every backend sees only the
 * primitives. qd.simt.warp.* takes a CUDA mask: the full constant mask lowers to the subgroup
 * primitive with a 32-lane requirement (IrExpr.sg.warp), checked per family by the backends. */
#include "sema.h"
#include <math.h>
#include <string.h>

typedef enum { F_PRIM, F_SIZE, F_SYNC, F_FENCE, F_ELECT, F_BALLOT, F_BALLOT_N, F_VOTE, F_ALL_EQUAL,
               F_BCAST_FIRST, F_SHUFFLE_XOR, F_LANEMASK, F_REDUCE, F_SCAN, F_REDUCE_TILED, F_REDUCE_ALL_TILED,
               F_VOTE_TILED, F_ALL_EQUAL_TILED, F_SCAN_TILED, F_EXSCAN_TILED,
               W_VOTE, W_UNIQUE, W_BALLOT, W_SHFL, W_SHFL_XOR, W_MATCH_ANY, W_MATCH_ALL, W_ACTIVE, W_SYNC } SimtForm;

/* One row per spelling: path suffix, form, IR op (or the lanemask kind), combine op, args. */
typedef struct { const char *name; SimtForm form; int op; IrBinOp combine; int nargs; } SimtFn;

#define SUB(n, f, op, c, na) {"qd.simt.subgroup." n, f, op, c, na}
#define WARP(n, f, op, c, na) {"qd.simt.warp." n, f, op, c, na}
#define RED3(sfx, c) SUB("reduce_" sfx, F_REDUCE, SG_REDUCE, c, 1), SUB("reduce_all_" sfx, F_REDUCE, SG_REDUCE, c, 1), \
    SUB("reduce_" sfx "_tiled", F_REDUCE_TILED, 0, c, 2), SUB("reduce_all_" sfx "_tiled", F_REDUCE_ALL_TILED, 0, c, 2)
#define SCAN(sfx, c) SUB("inclusive_" sfx, F_SCAN, SG_INCLUSIVE, c, 1), SUB("exclusive_" sfx, F_SCAN, SG_EXCLUSIVE, c, 1), \
    SUB("inclusive_" sfx "_tiled", F_SCAN_TILED, 0, c, 2), SUB("exclusive_" sfx "_tiled", F_EXSCAN_TILED, 0, c, 2)
static const SimtFn fns[] = {
    SUB("invocation_id", F_PRIM, SG_INVOCATION_ID, IR_ADD, 0), SUB("group_size", F_SIZE, SG_SIZE, IR_ADD, 0),
    SUB("sync", F_SYNC, 0, IR_ADD, 0), SUB("barrier", F_SYNC, 0, IR_ADD, 0),
    SUB("mem_fence", F_FENCE, 0, IR_ADD, 0), SUB("memory_barrier", F_FENCE, 0, IR_ADD, 0),
    SUB("elect", F_ELECT, 0, IR_ADD, 0), SUB("ballot", F_BALLOT, 0, IR_ADD, 1),
    SUB("ballot_full_subgroup", F_BALLOT, 0, IR_ADD, 1), SUB("ballot_first_n", F_BALLOT_N, 0, IR_ADD, 2),
    SUB("all_true", F_VOTE, SG_ALL, IR_ADD, 1), SUB("any_true", F_VOTE, SG_ANY, IR_ADD, 1),
    SUB("all_equal", F_ALL_EQUAL, 0, IR_ADD, 1), SUB("all_true_tiled", F_VOTE_TILED, 0, IR_AND, 2),
    SUB("any_true_tiled", F_VOTE_TILED, 0, IR_OR, 2), SUB("all_equal_tiled", F_ALL_EQUAL_TILED, 0, IR_ADD, 2),
    SUB("broadcast", F_PRIM, SG_BROADCAST, IR_ADD, 2), SUB("broadcast_first", F_BCAST_FIRST, 0, IR_ADD, 1),
    SUB("shuffle", F_PRIM, SG_SHUFFLE, IR_ADD, 2), SUB("shuffle_up", F_PRIM, SG_SHUFFLE_UP, IR_ADD, 2),
    SUB("shuffle_down", F_PRIM, SG_SHUFFLE_DOWN, IR_ADD, 2), SUB("shuffle_xor", F_SHUFFLE_XOR, 0, IR_ADD, 2),
    SUB("lanemask_lt", F_LANEMASK, 0, IR_ADD, 1), SUB("lanemask_le", F_LANEMASK, 1, IR_ADD, 1),
    SUB("lanemask_eq", F_LANEMASK, 2, IR_ADD, 1), SUB("lanemask_gt", F_LANEMASK, 3, IR_ADD, 1),
    SUB("lanemask_ge", F_LANEMASK, 4, IR_ADD, 1),
    RED3("add", IR_ADD), RED3("min", IR_MIN), RED3("max", IR_MAX),
    SCAN("add", IR_ADD), SCAN("mul", IR_MUL), SCAN("min", IR_MIN), SCAN("max", IR_MAX),
    SCAN("and", IR_AND), SCAN("or", IR_OR), SCAN("xor", IR_XOR),
    WARP("all_nonzero", W_VOTE, SG_ALL, IR_ADD, 2), WARP("any_nonzero", W_VOTE, SG_ANY, IR_ADD, 2),
    WARP("unique", W_UNIQUE, 0, IR_ADD, 2), WARP("ballot", W_BALLOT, 0, IR_ADD, 1),
    WARP("shfl_sync_i32", W_SHFL, SG_SHUFFLE, IR_ADD, 3), WARP("shfl_sync_f32", W_SHFL, SG_SHUFFLE, IR_ADD, 3),
    WARP("shfl_up_i32", W_SHFL, SG_SHUFFLE_UP, IR_ADD, 3), WARP("shfl_up_f32", W_SHFL, SG_SHUFFLE_UP, IR_ADD, 3),
    WARP("shfl_down_i32", W_SHFL, SG_SHUFFLE_DOWN, IR_ADD, 3), WARP("shfl_down_f32", W_SHFL, SG_SHUFFLE_DOWN, IR_ADD, 3),
    WARP("shfl_xor_i32", W_SHFL_XOR, 0, IR_ADD, 3), WARP("match_any", W_MATCH_ANY, 0, IR_ADD, 2),
    WARP("match_all", W_MATCH_ALL, 0, IR_ADD, 2), WARP("active_mask", W_ACTIVE, 0, IR_ADD, 0),
    WARP("sync", W_SYNC, 0, IR_ADD, 1),
};

static const SimtFn *find(const char *path) {
    for (size_t k = 0; k < ARRAY_LEN(fns); k++)
        if (!strcmp(fns[k].name, path)) return &fns[k];
    return NULL;
}

bool sema_is_simt_builtin(const char *path) { return find(path) != NULL; }

/* ---- building blocks ---- */

typedef struct {
    Sema *S;
    Span sp;
    bool warp; /* from qd.simt.warp.*: the family must have 32-lane subgroups */
} Ctx;

static IrExpr *sg(Ctx *c, IrSgOp op, IrBinOp combine, IrExpr *a, IrExpr *b) {
    IrSgResult r = ir_sg_result(op);
    QdType t = r == SGR_I32 ? QT_I32 : r == SGR_U64 ? QT_U64 : r == SGR_ARG ? a->type : QT_VOID;
    IrExpr *e = ir_new(c->S, IR_SUBGROUP, t, c->sp);
    e->sg.op = op, e->sg.combine = combine, e->sg.a = a, e->sg.b = b, e->sg.warp = c->warp;
    c->S->uses_block = true;
    return e;
}

/* A value used more than once: evaluated once, into a compiler temporary. */
static IrExpr *once(Ctx *c, IrExpr *e) {
    if (e->kind == IR_CONST || e->kind == IR_LOCAL || e->kind == IR_PARAM) return e;
    int l = sema_new_local(c->S, "$sg", e->type);
    IrStmt *as = sema_stmt_new(c->S, IR_ASSIGN, c->sp);
    as->assign.local = l, as->assign.value = e;
    sema_emit(c->S, as);
    return ir_local(c->S, l, c->sp);
}

static IrExpr *i32c(Ctx *c, int64_t v) { return ir_const_int(c->S, QT_I32, v, c->sp); }
static IrExpr *u32c(Ctx *c, int64_t v) { return ir_const_int(c->S, QT_U32, v, c->sp); }
static IrExpr *bin(Ctx *c, IrBinOp op, IrExpr *a, IrExpr *b) { return ir_binary(c->S, op, a, b, c->sp); }
static IrExpr *lane(Ctx *c) { return once(c, sg(c, SG_INVOCATION_ID, IR_ADD, NULL, NULL)); }
static IrExpr *nonzero(Ctx *c, IrExpr *p) { return ir_cast(c->S, bin(c, IR_NE, p, ir_const_int(c->S, p->type, 0, c->sp)), QT_I32); }
static IrExpr *lane_arg(Ctx *c, IrExpr *x) { return ir_cast(c->S, x, QT_I32); }

/* Shuffled values: 32- and 64-bit integers and floats (Quadrants' dtype rule for shuffle). */
static bool value_ok(Ctx *c, IrExpr *v, const char *name, Span at, bool int_only) {
    QdType t = v->type;
    bool ok = t == QT_I32 || t == QT_U32 || t == QT_I64 || t == QT_U64 || (!int_only && (t == QT_F32 || t == QT_F64));
    if (!ok)
        diag_error(at, "QD2070", "'%s' takes a %s, got %s", name,
                   int_only ? "32- or 64-bit integer" : "32- or 64-bit integer or float (f32, f64)", qt_name(t));
    return ok;
}

static bool log2_arg(Ctx *c, const Expr *x, int *out) {
    int64_t v;
    if (!sema_const_int(c->S, x, &v, "a tiled subgroup size (log2_size)")) return false;
    if (v < 0 || v > 6) {
        diag_error(x->span, "QD2071", "log2_size must be a constant from 0 to 6 (groups of 1 to 64 lanes), got %lld", (long long)v);
        return false;
    }
    return *out = (int)v, true;
}

/* The full warp mask, as a constant: anything else is a partial warp, which the subgroup
 * primitives cannot express. */
static bool full_mask(Ctx *c, const Expr *x) {
    IrExpr *m = sema_expr(c->S, x);
    if (!m) return false;
    if (m->kind == IR_CONST && (m->c.u & 0xFFFFFFFFu) == 0xFFFFFFFFu) return true;
    diag_error(x->span, "QD2072", "qdc supports qd.simt.warp.* only with the full mask 0xFFFFFFFF (a constant); "
               "partial-warp masks are not supported");
    return false;
}

/* The identity of `op` on type t, lane 0's result of an exclusive scan. */
static IrExpr *identity(Ctx *c, IrBinOp op, QdType t) {
    bool f = qt_is_float(t), s = qt_is_signed(t);
    int bits = qt_bits(t);
    switch (op) {
    case IR_MUL: return f ? ir_const_float(c->S, t, 1.0, c->sp) : ir_const_int(c->S, t, 1, c->sp);
    case IR_AND: return ir_const_int(c->S, t, -1, c->sp);
    case IR_MIN:
        if (f) return ir_const_float(c->S, t, INFINITY, c->sp);
        return ir_const_int(c->S, t, s ? (int64_t)(UINT64_MAX >> (65 - bits)) : -1, c->sp);
    case IR_MAX:
        if (f) return ir_const_float(c->S, t, -INFINITY, c->sp);
        return ir_const_int(c->S, t, s ? -(int64_t)(UINT64_MAX >> (65 - bits)) - 1 : 0, c->sp);
    default: return f ? ir_const_float(c->S, t, 0.0, c->sp) : ir_const_int(c->S, t, 0, c->sp);
    }
}

/* ---- Quadrants' tiled helpers, unrolled over 2**log2 lanes ---- */

static IrExpr *reduce_tiled(Ctx *c, IrBinOp op, IrExpr *v, int log2) { /* valid in lane 0 of each group */
    for (int i = 0; i < log2; i++) {
        v = once(c, v);
        v = bin(c, op, v, sg(c, SG_SHUFFLE_DOWN, IR_ADD, v, i32c(c, 1 << (log2 - 1 - i))));
    }
    return v;
}

static IrExpr *butterfly(Ctx *c, IrBinOp op, IrExpr *v, int log2) { /* on every lane of each group */
    IrExpr *l = log2 ? lane(c) : NULL;
    for (int i = 0; i < log2; i++) {
        v = once(c, v);
        v = bin(c, op, v, sg(c, SG_SHUFFLE, IR_ADD, v, bin(c, IR_XOR, l, i32c(c, 1 << i))));
    }
    return v;
}

static IrExpr *scan_tiled(Ctx *c, IrBinOp op, IrExpr *v, int log2) { /* Hillis-Steele, inclusive */
    IrExpr *in_group = log2 ? once(c, bin(c, IR_AND, lane(c), i32c(c, (1 << log2) - 1))) : NULL;
    for (int i = 0; i < log2; i++) {
        v = once(c, v);
        IrExpr *partner = sg(c, SG_SHUFFLE_UP, IR_ADD, v, i32c(c, 1 << i));
        IrExpr *sel = ir_new(c->S, IR_SELECT, v->type, c->sp);
        sel->sel.cond = bin(c, IR_GE, in_group, i32c(c, 1 << i)), sel->sel.a = bin(c, op, partner, v), sel->sel.b = v;
        v = sel;
    }
    return v;
}

static IrExpr *exscan_tiled(Ctx *c, IrBinOp op, IrExpr *v, int log2) {
    IrExpr *prev = sg(c, SG_SHUFFLE_UP, IR_ADD, v, i32c(c, 1));
    IrExpr *sel = ir_new(c->S, IR_SELECT, v->type, c->sp);
    sel->sel.cond = bin(c, IR_EQ, bin(c, IR_AND, lane(c), i32c(c, (1 << log2) - 1)), i32c(c, 0));
    sel->sel.a = identity(c, op, v->type), sel->sel.b = prev;
    return scan_tiled(c, op, sel, log2);
}

static IrExpr *vote_tiled(Ctx *c, IrBinOp op, IrExpr *p, int log2) { return butterfly(c, op, nonzero(c, p), log2); }

static IrExpr *all_equal_tiled(Ctx *c, IrExpr *v, int log2) {
    v = once(c, v);
    IrExpr *base = sg(c, SG_SHUFFLE, IR_ADD, v, bin(c, IR_AND, lane(c), i32c(c, ~((1 << log2) - 1))));
    return vote_tiled(c, IR_AND, bin(c, IR_EQ, v, base), log2);
}

static IrExpr *lanemask(Ctx *c, int kind, IrExpr *l) {
    IrExpr *one = once(c, bin(c, IR_SHL, u32c(c, 1), ir_cast(c->S, l, QT_U32)));
    IrExpr *lt = bin(c, IR_SUB, one, u32c(c, 1));
    switch (kind) {
    case 0: return lt;
    case 1: return bin(c, IR_OR, one, lt);
    case 2: return one;
    case 3: return bin(c, IR_XOR, bin(c, IR_OR, one, lt), u32c(c, 0xFFFFFFFF));
    default: return bin(c, IR_XOR, lt, u32c(c, 0xFFFFFFFF));
    }
}

/* ---- qd.simt.warp.* on the full mask ---- */

/* __match_any_sync: bit j set iff lane j is active and holds the same value (32 shuffles). */
static IrExpr *match_any(Ctx *c, IrExpr *v) {
    v = once(c, v);
    IrExpr *active = once(c, ir_cast(c->S, sg(c, SG_BALLOT, IR_ADD, i32c(c, 1), NULL), QT_I32)), *m = i32c(c, 0);
    for (int j = 0; j < 32; j++) {
        IrExpr *eq = ir_cast(c->S, bin(c, IR_EQ, sg(c, SG_SHUFFLE, IR_ADD, v, i32c(c, j)), v), QT_I32);
        m = once(c, bin(c, IR_OR, m, bin(c, IR_SHL, eq, i32c(c, j))));
    }
    return bin(c, IR_AND, m, active);
}

static IrExpr *warp_form(Ctx *c, const SimtFn *f, IrExpr **a) {
    switch (f->form) {
    case W_VOTE: return sg(c, f->op, IR_ADD, nonzero(c, a[1]), NULL);
    case W_UNIQUE: { /* every lane's predicate the same */
        IrExpr *p = once(c, nonzero(c, a[1]));
        return bin(c, IR_OR, sg(c, SG_ALL, IR_ADD, p, NULL), bin(c, IR_XOR, sg(c, SG_ANY, IR_ADD, p, NULL), i32c(c, 1)));
    }
    case W_BALLOT: return ir_cast(c->S, sg(c, SG_BALLOT, IR_ADD, nonzero(c, a[0]), NULL), QT_I32);
    case W_SHFL: {
        IrExpr *v = ir_cast(c->S, a[1], strstr(f->name, "f32") ? QT_F32 : QT_I32);
        IrExpr *off = lane_arg(c, a[2]);
        if (f->op == SG_SHUFFLE) off = bin(c, IR_AND, off, i32c(c, 31));
        return sg(c, f->op, IR_ADD, v, off);
    }
    case W_SHFL_XOR:
        return sg(c, SG_SHUFFLE, IR_ADD, ir_cast(c->S, a[1], QT_I32), bin(c, IR_AND, bin(c, IR_XOR, lane(c), lane_arg(c, a[2])), i32c(c, 31)));
    case W_MATCH_ANY: return match_any(c, a[1]);
    case W_MATCH_ALL: { /* the mask when every lane holds the same value, else 0 */
        IrExpr *v = once(c, a[1]);
        IrExpr *same = sg(c, SG_ALL, IR_ADD, ir_cast(c->S, bin(c, IR_EQ, v, sg(c, SG_BROADCAST, IR_ADD, v, i32c(c, 0))), QT_I32), NULL);
        return bin(c, IR_MUL, same, i32c(c, -1));
    }
    case W_ACTIVE: return ir_cast(c->S, sg(c, SG_BALLOT, IR_ADD, i32c(c, 1), NULL), QT_I32);
    default: return NULL;
    }
}

/* ---- the call ---- */

static Val stmt_done(Ctx *c, IrStmt *st) {
    sema_emit(c->S, st);
    c->S->uses_block = true;
    return (Val){.kind = V_NONE};
}

static Val subgroup_sync(Ctx *c) {
    IrStmt *st = sema_stmt_new(c->S, IR_EVAL, c->sp);
    st->eval = sg(c, SG_SYNC, IR_ADD, NULL, NULL);
    return stmt_done(c, st);
}

static Val subgroup_fence(Ctx *c) { /* block scope: the subgroup is a subset of the block */
    IrStmt *st = sema_stmt_new(c->S, IR_FENCE, c->sp);
    st->fence.scope = QSCOPE_BLOCK, st->fence.order = QORD_SEQ_CST;
    return stmt_done(c, st);
}

/* Value operands: which argument is the shuffled/reduced value, and must it be an integer. */
static bool check_value(Ctx *c, const SimtFn *f, IrExpr **a, const Expr *call) {
    int vi = f->form >= W_VOTE ? (f->form == W_BALLOT ? 0 : 1) : 0;
    if (f->nargs == 0 || f->form == F_LANEMASK || f->form == F_BALLOT || f->form == F_BALLOT_N || f->form == F_VOTE ||
        f->form == F_VOTE_TILED || f->form == W_VOTE || f->form == W_UNIQUE || f->form == W_BALLOT || f->form == W_SHFL ||
        f->form == W_SHFL_XOR)
        return true; /* predicates and converted operands */
    bool int_only = f->combine == IR_AND || f->combine == IR_OR || f->combine == IR_XOR;
    return value_ok(c, a[vi], strrchr(f->name, '.') + 1, call->call.args.items[vi]->span, int_only);
}

Val sema_simt_call(Sema *S, const Expr *call, const char *p) {
    const SimtFn *f = find(p);
    Ctx c = {S, call->span, f->form >= W_VOTE};
    if (!S->cur) return diag_error(call->span, "QD2019", "'%s' can only be used inside a kernel or qd.func", p), val_err();
    if (call->call.nkw) return diag_error(call->call.kw[0].span, "QD2007", "'%s' takes no keyword arguments", p), val_err();
    if (call->call.args.n != f->nargs)
        return diag_error(call->span, "QD2007", "'%s' takes %d argument%s, got %d", p, f->nargs, f->nargs == 1 ? "" : "s",
                          call->call.args.n), val_err();
    bool tiled = f->form == F_REDUCE_TILED || f->form == F_REDUCE_ALL_TILED || f->form == F_VOTE_TILED ||
                 f->form == F_ALL_EQUAL_TILED || f->form == F_SCAN_TILED || f->form == F_EXSCAN_TILED;
    int log2 = 0;
    IrExpr *a[3] = {0};
    if (f->form >= W_VOTE && f->form != W_BALLOT && f->form != W_ACTIVE && !full_mask(&c, call->call.args.items[0])) return val_err();
    for (int k = f->form >= W_VOTE && f->form != W_BALLOT ? 1 : 0; k < f->nargs - tiled; k++)
        if (!(a[k] = sema_expr(S, call->call.args.items[k]))) return val_err();
    if (tiled && !log2_arg(&c, call->call.args.items[f->nargs - 1], &log2)) return val_err();
    if (!check_value(&c, f, a, call)) return val_err();
    IrExpr *r = NULL;
    switch (f->form) {
    case F_PRIM: r = sg(&c, f->op, IR_ADD, a[0], f->nargs > 1 ? lane_arg(&c, a[1]) : NULL); break;
    case F_SIZE: r = sg(&c, SG_SIZE, IR_ADD, NULL, NULL); break;
    case F_SYNC: case W_SYNC: return subgroup_sync(&c);
    case F_FENCE: return subgroup_fence(&c);
    case F_ELECT: r = ir_cast(S, bin(&c, IR_EQ, sg(&c, SG_INVOCATION_ID, IR_ADD, NULL, NULL), i32c(&c, 0)), QT_I32); break;
    case F_BALLOT: r = sg(&c, SG_BALLOT, IR_ADD, nonzero(&c, a[0]), NULL); break;
    case F_BALLOT_N: {
        int64_t n;
        if (!sema_const_int(S, call->call.args.items[1], &n, "ballot_first_n's n")) return val_err();
        if (n < 1 || n > 32) return diag_error(call->call.args.items[1]->span, "QD2071", "ballot_first_n's n must be a constant from 1 to 32, got %lld", (long long)n), val_err();
        r = ir_cast(S, sg(&c, SG_BALLOT, IR_ADD, nonzero(&c, a[0]), NULL), QT_U32);
        if (n < 32) r = bin(&c, IR_AND, r, u32c(&c, (int64_t)((1u << n) - 1)));
        break;
    }
    case F_VOTE: r = sg(&c, f->op, IR_ADD, nonzero(&c, a[0]), NULL); break;
    case F_ALL_EQUAL: {
        IrExpr *v = once(&c, a[0]);
        r = sg(&c, SG_ALL, IR_ADD, ir_cast(S, bin(&c, IR_EQ, v, sg(&c, SG_BROADCAST, IR_ADD, v, i32c(&c, 0))), QT_I32), NULL);
        break;
    }
    case F_BCAST_FIRST: r = sg(&c, SG_BROADCAST, IR_ADD, a[0], i32c(&c, 0)); break;
    case F_SHUFFLE_XOR: r = sg(&c, SG_SHUFFLE, IR_ADD, a[0], bin(&c, IR_XOR, lane(&c), lane_arg(&c, a[1]))); break;
    case F_LANEMASK: r = lanemask(&c, f->op, a[0]); break;
    case F_REDUCE: case F_SCAN: r = sg(&c, f->op, f->combine, a[0], NULL); break;
    case F_REDUCE_TILED: r = reduce_tiled(&c, f->combine, a[0], log2); break;
    case F_REDUCE_ALL_TILED: r = butterfly(&c, f->combine, a[0], log2); break;
    case F_VOTE_TILED: r = vote_tiled(&c, f->combine, a[0], log2); break;
    case F_ALL_EQUAL_TILED: r = all_equal_tiled(&c, a[0], log2); break;
    case F_SCAN_TILED: r = scan_tiled(&c, f->combine, a[0], log2); break;
    case F_EXSCAN_TILED: r = exscan_tiled(&c, f->combine, a[0], log2); break;
    default: r = warp_form(&c, f, a); break;
    }
    S->uses_block = true;
    return val_expr(r);
}
